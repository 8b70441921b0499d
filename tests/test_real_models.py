"""MODEL_CONFIGS' shape and invariants (not its numbers, which come from the files named in each
``source``), and the per-pair frequencies of every rope_scaling type against independent formulas."""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

import posenc_lib as pl
from posenc.real_models import ROPE_TYPE_METHODS
import reference_real_models as ref

REQUIRED = ("head_dim", "rope_theta", "max_position_embeddings", "rope_scaling", "partial_rotary_factor", "source")


def test_the_reference_file_uses_only_math():
    tree = ast.parse((Path(__file__).parent / "reference_real_models.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"math"}, imported


def test_at_least_eight_models_the_issue_names_among_them():
    assert len(pl.MODEL_CONFIGS) >= 8
    for name in ("Llama-2-7B", "Llama-3.1-8B", "Mistral-7B-v0.1", "GPT-NeoX-20B", "DeepSeek-V3"):
        assert name in pl.MODEL_CONFIGS


@pytest.mark.parametrize("name", sorted(pl.MODEL_CONFIGS))
def test_every_entry_has_the_config_keys_and_a_source(name):
    cfg = pl.MODEL_CONFIGS[name]
    for key in REQUIRED:
        assert key in cfg, f"{name} lacks {key}"
    # a source names at least one public repository (owner/name) and a file path in it
    assert re.search(r"\b[\w.-]+/[\w.-]+ [\w./-]+\.(py|json|yml|md)\b", cfg["source"]), cfg["source"]
    assert isinstance(cfg["head_dim"], int) and cfg["head_dim"] % 2 == 0
    assert cfg["rope_theta"] > 1
    assert 0 < cfg["partial_rotary_factor"] <= 1
    dims = pl.rotary_dims(cfg)
    assert dims % 2 == 0 and 0 < dims <= cfg["head_dim"]
    assert dims == round(cfg["head_dim"] * cfg["partial_rotary_factor"])


@pytest.mark.parametrize("name", sorted(pl.MODEL_CONFIGS))
def test_scaling_types_are_known_and_consistent(name):
    cfg = pl.MODEL_CONFIGS[name]
    kind = pl.rope_type(cfg)
    assert kind in ROPE_TYPE_METHODS
    if "training_length" in cfg:           # a paper or report states it: that number, not the config's
        assert pl.training_context_key(cfg) == "training_length"
        assert pl.training_context(cfg) == cfg["training_length"] <= cfg["max_position_embeddings"]
    elif cfg["rope_scaling"] is None:
        assert pl.training_context_key(cfg) == "max_position_embeddings"
        assert pl.training_context(cfg) == cfg["max_position_embeddings"]
    if cfg["rope_scaling"] is not None:
        s = cfg["rope_scaling"]
        assert s["factor"] > 1
        assert s["original_max_position_embeddings"] < cfg["max_position_embeddings"]
        if "training_length" not in cfg:
            assert pl.training_context_key(cfg) == "original_max_position_embeddings"
            assert pl.training_context(cfg) == s["original_max_position_embeddings"]
    assert pl.training_context_key(cfg) in pl.TRAINING_CONTEXT_KEYS
    if "kv_lora_rank" in cfg:   # MLA: the q·k width is the unrotated plus the rotated part
        assert cfg["head_dim"] == cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]


def test_llama3_matches_metas_rule():
    d, base = 128, 500000.0
    got, att = pl.scaled_frequencies(d, base, pl.MODEL_CONFIGS["Llama-3.1-8B"]["rope_scaling"])
    np.testing.assert_allclose(got, ref.llama3_inv_freq(d, base, 8.0, 1.0, 4.0, 8192), rtol=1e-12)
    assert att == 1.0


@pytest.mark.parametrize("seq_len", [100, 4096, 4097, 8192, 20000])
def test_dynamic_matches_the_formula_and_is_unchanged_up_to_the_original(seq_len):
    d, base, factor, original = 64, 10000.0, 4.0, 4096
    scaling = {"rope_type": "dynamic", "factor": factor, "original_max_position_embeddings": original}
    got, _ = pl.scaled_frequencies(d, base, scaling, seq_len=seq_len)
    np.testing.assert_allclose(got, ref.dynamic_inv_freq(d, base, factor, original, seq_len), rtol=1e-12)
    if seq_len <= original:
        np.testing.assert_array_equal(got, pl.frequencies(d, base))   # bit for bit the unscaled ones


def test_dynamic_at_twice_the_length_slows_the_last_pair_five_times_with_factor_4():
    """((4·2L/L) − 3) = 5: the slowest pair is interpolated by 5, not 2 (the issue's statement)."""
    d = 64
    scaling = {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 1000}
    got, _ = pl.scaled_frequencies(d, 10000.0, scaling, seq_len=2000)
    assert ref.inv_freq(d, 10000.0)[-1] / got[-1] == pytest.approx(5.0, rel=1e-12)


def test_deepseek_yarn_matches_deepseeks_own_code():
    got, att = pl.model_frequencies("DeepSeek-V3")
    np.testing.assert_allclose(got, ref.deepseek_yarn_inv_freq(64, 10000.0, 40.0, 4096), rtol=1e-12)
    assert att == pytest.approx(0.1 * np.log(40) + 1)   # DeepSeek: softmax_scale · mscale², mscale = 0.1 ln 40 + 1


def test_linear_divides_every_frequency_and_default_changes_nothing():
    d, base = 32, 10000.0
    got, _ = pl.scaled_frequencies(d, base, {"rope_type": "linear", "factor": 4.0})
    np.testing.assert_allclose(got, [w / 4 for w in ref.inv_freq(d, base)], rtol=1e-12)
    np.testing.assert_allclose(pl.model_frequencies("GPT-NeoX-20B")[0], ref.inv_freq(24, 10000.0), rtol=1e-12)


def test_bad_arguments_are_refused_naming_them():
    with pytest.raises(ValueError, match="rope_type"):
        pl.scaled_frequencies(8, 10000.0, {"rope_type": "longrope", "factor": 2.0})
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        pl.scaled_frequencies(8, 10000.0, {"rope_type": "llama3", "factor": 2.0})
    with pytest.raises(ValueError, match="name"):
        pl.model_frequencies("GPT-5")


@pytest.mark.parametrize("name", sorted(n for n, c in pl.MODEL_CONFIGS.items() if "training_length" in c))
def test_a_stated_training_length_names_its_paper_and_the_number_in_it(name):
    """The number in ``training_length`` appears in the quoted source (8192 / '32,768' style)."""
    cfg = pl.MODEL_CONFIGS[name]
    source = cfg["training_length_source"]
    assert re.search(r"arXiv \d{4}\.\d{5}", source), source
    n = cfg["training_length"]
    assert str(n) in source or f"{n:,}" in source, (n, source)


def test_the_config_maximum_is_not_taken_for_the_training_length_where_a_paper_says_otherwise():
    """Mistral-7B-v0.1: config 32768, paper 8192; Qwen2.5-7B: config 131072, report 32768."""
    for name in ("Mistral-7B-v0.1", "Qwen2.5-7B"):
        cfg = pl.MODEL_CONFIGS[name]
        assert pl.training_context(cfg) < cfg["max_position_embeddings"]
