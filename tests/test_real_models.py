"""MODEL_CONFIGS' shape and invariants (not its numbers, which come from the files named in each
``source``), and the per-pair frequencies of every rope_scaling type against independent formulas."""
import re

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref

REQUIRED = ("head_dim", "rope_theta", "max_position_embeddings", "rope_scaling", "partial_rotary_factor", "source")


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
    assert dims == ROTATED_DIMS.get(name, cfg["head_dim"])


#: How many dims rotate where not the whole head, as each model's source states it (not computed):
#: GPT-NeoX-20B's 20B.yml rotary_pct 0.25 of 96; DeepSeek's qk_rope_head_dim 64.
ROTATED_DIMS = {"GPT-NeoX-20B": 24, "DeepSeek-V2-Lite": 64, "DeepSeek-V3": 64}


@pytest.mark.parametrize("config, dims", [
    ({"head_dim": 96, "partial_rotary_factor": 0.25}, 24),
    ({"hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.25}, 20),  # 80 × 0.25
    ({"hidden_size": 4096, "num_attention_heads": 32}, 128),
    ({"head_dim": 256, "hidden_size": 2048, "num_attention_heads": 8}, 256),    # head_dim wins (Gemma)
    ({"head_dim": 192, "qk_rope_head_dim": 64, "partial_rotary_factor": 1.0}, 64),
])
def test_rotary_dims_reads_the_config_keys(config, dims):
    assert pl.rotary_dims(config) == dims


@pytest.mark.parametrize("name", sorted(pl.MODEL_CONFIGS))
def test_scaling_types_are_known_and_consistent(name):
    cfg = pl.MODEL_CONFIGS[name]
    kind = pl.rope_type(cfg)
    assert kind in pl.ROPE_SCALING
    if "train_len" in cfg:           # a paper or report states it: that number, not the config's
        assert pl.config_train_len_key(cfg) == "train_len"
        assert pl.config_train_len(cfg) == cfg["train_len"] <= cfg["max_position_embeddings"]
    elif cfg["rope_scaling"] is None:
        assert pl.config_train_len_key(cfg) == "max_position_embeddings"
        assert pl.config_train_len(cfg) == cfg["max_position_embeddings"]
    if cfg["rope_scaling"] is not None:
        s = cfg["rope_scaling"]
        assert s["factor"] > 1
        assert s["original_max_position_embeddings"] < cfg["max_position_embeddings"]
        if "train_len" not in cfg:
            assert pl.config_train_len_key(cfg) == "original_max_position_embeddings"
            assert pl.config_train_len(cfg) == s["original_max_position_embeddings"]
    assert pl.config_train_len_key(cfg) in pl.TRAIN_LEN_KEYS
    if "kv_lora_rank" in cfg:   # MLA: the q·k width is the unrotated plus the rotated part
        assert cfg["head_dim"] == cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]


def test_llama3_matches_metas_rule():
    d, base = 128, 500000.0
    got, att = pl.ROPE_SCALING["llama3"](d, base, pl.MODEL_CONFIGS["Llama-3.1-8B"]["rope_scaling"])
    np.testing.assert_allclose(got, ref.llama3_inv_freq(d, base, 8.0, 1.0, 4.0, 8192), rtol=1e-12)
    assert att == 1.0


@pytest.mark.parametrize("seq_len", [100, 4096, 4097, 8192, 20000])
def test_dynamic_matches_the_formula_and_is_unchanged_up_to_the_original(seq_len):
    d, base, factor, original = 64, 10000.0, 4.0, 4096
    scaling = {"rope_type": "dynamic", "factor": factor, "original_max_position_embeddings": original}
    got, _ = pl.ROPE_SCALING["dynamic"](d, base, scaling, seq_len=seq_len)
    np.testing.assert_allclose(got, ref.dynamic_inv_freq(d, base, factor, original, seq_len), rtol=1e-12)
    if seq_len <= original:
        np.testing.assert_array_equal(got, pl.frequencies(d, base))   # bit for bit the unscaled ones


def test_dynamic_at_twice_the_length_slows_the_last_pair_five_times_with_factor_4():
    """((4·2L/L) − 3) = 5: the slowest pair is interpolated by 5, not 2 (the issue's statement)."""
    d = 64
    scaling = {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 1000}
    got, _ = pl.ROPE_SCALING["dynamic"](d, 10000.0, scaling, seq_len=2000)
    assert ref.frequencies(d, 10000.0)[-1] / got[-1] == pytest.approx(5.0, rel=1e-12)


def test_deepseek_yarn_matches_deepseeks_own_code():
    got, att = pl.model_frequencies("DeepSeek-V3")
    np.testing.assert_allclose(got, ref.yarn_inv_freq(64, 10000.0, 40.0, 4096), rtol=1e-12)
    assert att == pytest.approx(0.1 * np.log(40) + 1)   # DeepSeek: softmax_scale · mscale², mscale = 0.1 ln 40 + 1


def test_linear_divides_every_frequency_and_default_changes_nothing():
    d, base = 32, 10000.0
    got, _ = pl.ROPE_SCALING["linear"](d, base, {"rope_type": "linear", "factor": 4.0})
    np.testing.assert_allclose(got, [w / 4 for w in ref.frequencies(d, base)], rtol=1e-12)
    np.testing.assert_allclose(pl.model_frequencies("GPT-NeoX-20B")[0], ref.frequencies(24, 10000.0), rtol=1e-12)


#: Phi-3.5-mini-instruct's config.json (its source is named in the entry): the data the
#: registry reads; the expected frequencies below come from tests/reference.py.
PHI3 = {k: v for k, v in pl.PHI3_LONGROPE_CONFIG.items() if k != "source"}
PHI3_LONG = PHI3["rope_scaling"]["long_factor"]
PHI3_SHORT = PHI3["rope_scaling"]["short_factor"]


def test_phi3_config_has_one_factor_per_pair():
    assert len(PHI3_LONG) == len(PHI3_SHORT) == 3072 // 32 // 2


def test_the_older_type_key_reads_like_rope_type():
    """Phi-3.5-mini-instruct's own config.json writes ``"type": "longrope"`` (older Phi-3 files ``"su"``)."""
    older = {**PHI3, "rope_scaling": {"type": "longrope", "short_factor": PHI3_SHORT, "long_factor": PHI3_LONG}}
    for seq_len in (None, 8192):
        a, fa = pl.rope_frequencies_from_config(older, seq_len=seq_len)
        b, fb = pl.rope_frequencies_from_config(PHI3, seq_len=seq_len)
        np.testing.assert_array_equal(a, b)
        assert fa == fb


@pytest.mark.parametrize("seq_len, table", [(None, PHI3_SHORT), (4096, PHI3_SHORT), (4097, PHI3_LONG),
                                            (131072, PHI3_LONG)])
def test_longrope_switches_tables_past_the_original_length(seq_len, table):
    got, att = pl.rope_frequencies_from_config(PHI3, seq_len=seq_len)
    np.testing.assert_allclose(got, ref.longrope_inv_freq(96, 10000.0, PHI3_SHORT, PHI3_LONG, 4096, seq_len),
                               rtol=1e-12)
    np.testing.assert_allclose(got, [w / f for w, f in zip(ref.frequencies(96, 10000.0), table)], rtol=1e-12)
    # no factor in the config: s = 131072 / 4096 = 32, attention factor sqrt(1 + ln 32 / ln 4096)
    assert att == pytest.approx(ref.longrope_attention_factor(32.0, 4096), rel=1e-12)
    assert att == pytest.approx(np.sqrt(1 + 5 / 12), rel=1e-12)      # ln 32 / ln 4096 = 5/12


def test_longrope_attention_factor_and_factor_from_the_config_win():
    cfg = {**PHI3, "rope_scaling": {**PHI3["rope_scaling"], "attention_factor": 1.5}}
    assert pl.rope_frequencies_from_config(cfg)[1] == 1.5
    cfg = {**PHI3, "rope_scaling": {**PHI3["rope_scaling"], "factor": 8.0}}
    assert pl.rope_frequencies_from_config(cfg)[1] == pytest.approx(ref.longrope_attention_factor(8.0, 4096))


def test_from_config_reads_head_dim_partial_rotary_and_old_type_key():
    cfg = {"hidden_size": 6144, "num_attention_heads": 64, "partial_rotary_factor": 0.25, "rope_theta": 10000.0,
           "max_position_embeddings": 2048, "rope_scaling": None}
    got, att = pl.rope_frequencies_from_config(cfg)
    np.testing.assert_allclose(got, ref.frequencies(24, 10000.0), rtol=1e-12)
    assert att == 1.0
    cfg = {"head_dim": 16, "hidden_size": 64, "num_attention_heads": 8, "rope_theta": 10000.0,
           "max_position_embeddings": 64, "rope_scaling": {"type": "linear", "factor": 2.0}}
    np.testing.assert_allclose(pl.rope_frequencies_from_config(cfg)[0],
                               [w / 2 for w in ref.frequencies(16, 10000.0)], rtol=1e-12)


def test_from_config_dynamic_measures_against_max_position_embeddings():
    cfg = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}
    got, _ = pl.rope_frequencies_from_config(cfg, seq_len=10000)
    np.testing.assert_allclose(got, ref.dynamic_inv_freq(64, 10000.0, 4.0, 4096, 10000), rtol=1e-12)


def test_from_config_yarn_without_factor_uses_the_length_ratio():
    cfg = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096 * 40,
           "rope_scaling": {"rope_type": "yarn", "original_max_position_embeddings": 4096}}
    got, att = pl.rope_frequencies_from_config(cfg)
    np.testing.assert_allclose(got, ref.yarn_inv_freq(64, 10000.0, 40.0, 4096), rtol=1e-12)
    assert att == pytest.approx(0.1 * np.log(40) + 1)


def test_yarn_mscale_ratio_is_the_attention_factor():
    """DeepSeek-V2-Lite: mscale = mscale_all_dim = 0.707, so the factor on cos and sin is 1
    (Hugging Face's _compute_yarn_parameters: get_mscale(s, mscale) / get_mscale(s, mscale_all_dim))."""
    assert pl.model_frequencies("DeepSeek-V2-Lite")[1] == pytest.approx(1.0, abs=1e-15)
    scaling = {"factor": 40.0, "original_max_position_embeddings": 4096, "mscale": 1.0, "mscale_all_dim": 0.5}
    att = pl.ROPE_SCALING["yarn"](64, 10000.0, scaling)[1]
    assert att == pytest.approx((0.1 * np.log(40) + 1) / (0.05 * np.log(40) + 1), rel=1e-12)


def test_the_registry_has_hugging_faces_names_and_the_courses_ntk():
    assert set(pl.ROPE_SCALING) == {"default", "linear", "dynamic", "yarn", "longrope", "llama3", "ntk"}
    for kind, fn in pl.ROPE_SCALING.items():
        w, att = fn(16, 10000.0, {"factor": 1.0, "original_max_position_embeddings": 32, "low_freq_factor": 1.0,
                                  "high_freq_factor": 4.0, "short_factor": [1.0] * 8, "long_factor": [1.0] * 8})
        np.testing.assert_allclose(w, ref.frequencies(16, 10000.0), rtol=1e-12, err_msg=kind)   # s = 1: unchanged
        assert att == 1.0, kind


@pytest.mark.parametrize("call, key", [
    (lambda: pl.rope_frequencies_from_config({**PHI3, "rope_scaling": {"rope_type": "su2"}}), "rope_type"),
    (lambda: pl.ROPE_SCALING["linear"](8, 10000.0, {"rope_type": "linear"}), "'factor'"),
    (lambda: pl.ROPE_SCALING["llama3"](8, 10000.0, {"factor": 2.0}), "original_max_position_embeddings"),
    (lambda: pl.ROPE_SCALING["llama3"](8, 10000.0, {"factor": 2.0, "original_max_position_embeddings": 16}),
     "low_freq_factor"),
    (lambda: pl.rope_frequencies_from_config({**PHI3, "rope_scaling": {**PHI3["rope_scaling"],
                                                                       "long_factor": PHI3_LONG[:-1]}}),
     "long_factor"),
    (lambda: pl.rope_frequencies_from_config({**PHI3, "rope_scaling": {"type": "longrope",
                                                                       "long_factor": PHI3_LONG}}), "short_factor"),
    (lambda: pl.rope_frequencies_from_config({"head_dim": 8, "max_position_embeddings": 8}), "rope_theta"),
    (lambda: pl.ROPE_SCALING["yarn"](8, 10000.0, {"factor": 0.5, "original_max_position_embeddings": 16}), "factor"),
    (lambda: pl.model_frequencies("GPT-5"), "name"),
])
def test_bad_configs_are_refused_naming_the_key(call, key):
    with pytest.raises(ValueError) as err:
        call()
    assert key in str(err.value) and " / " in str(err.value)     # English / 中文


@pytest.mark.parametrize("name", sorted(n for n, c in pl.MODEL_CONFIGS.items() if "train_len" in c))
def test_a_stated_training_length_names_its_paper_and_the_number_in_it(name):
    """The number in ``train_len`` appears in the quoted source (8192 / '32,768' style)."""
    cfg = pl.MODEL_CONFIGS[name]
    source = cfg["train_len_source"]
    assert re.search(r"arXiv \d{4}\.\d{5}", source), source
    n = cfg["train_len"]
    assert str(n) in source or f"{n:,}" in source, (n, source)


def test_the_config_maximum_is_not_taken_for_the_training_length_where_a_paper_says_otherwise():
    """Mistral-7B-v0.1: config 32768, paper 8192; Qwen2.5-7B: config 131072, report 32768."""
    for name in ("Mistral-7B-v0.1", "Qwen2.5-7B"):
        cfg = pl.MODEL_CONFIGS[name]
        assert pl.config_train_len(cfg) < cfg["max_position_embeddings"]
