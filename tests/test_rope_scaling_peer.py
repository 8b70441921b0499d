"""Peer test: ``pl.rope_frequencies_from_config`` against Hugging Face transformers' own
``ROPE_INIT_FUNCTIONS`` (``src/transformers/modeling_rope_utils.py``), one case per type.

Optional: skipped when ``transformers`` is not installed (it is not in the requirements; install
it by hand, CPU only, no weights are downloaded). transformers computes in float32, hence the
tolerance. ``"default"`` is ``ROPE_INIT_FUNCTIONS["default"]`` in older releases and
``LlamaRotaryEmbedding.compute_default_rope_parameters`` since 5.0; the course's static
``"ntk"`` has no Hugging Face type and is compared with ``"dynamic"`` at the length where
dynamic's factor equals s (``s·L'/L − (s − 1) = s``).
"""
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402

import posenc_lib as pl  # noqa: E402
from test_real_models import PHI3  # noqa: E402  (Phi-3.5-mini-instruct's config.json, sourced there)

from transformers import LlamaConfig, Phi3Config  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

RTOL = 1e-5          # float32 against float64

LLAMA = {"hidden_size": 512, "num_attention_heads": 8, "head_dim": 64, "rope_theta": 10000.0,
         "max_position_embeddings": 8192}
CASES = {
    "default": (dict(LLAMA, rope_scaling=None), [None]),
    "linear": (dict(LLAMA, rope_scaling={"rope_type": "linear", "factor": 4.0}), [None]),
    "dynamic": (dict(LLAMA, max_position_embeddings=2048, rope_scaling={"rope_type": "dynamic", "factor": 4.0}),
                [None, 1000, 2048, 5000, 16384]),
    "yarn": (dict(LLAMA, max_position_embeddings=32768, rope_theta=500000.0,
                  rope_scaling={"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096}),
             [None]),
    "yarn-mscale": (dict(LLAMA, max_position_embeddings=163840,
                         rope_scaling={"type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096,
                                       "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 0.707,
                                       "mscale_all_dim": 0.707}), [None]),
    "llama3": (dict(LLAMA, head_dim=128, hidden_size=4096, num_attention_heads=32, rope_theta=500000.0,
                    max_position_embeddings=131072,
                    rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}), [None]),
    "longrope": (PHI3, [None, 4096, 4097, 131072]),
}


def _hf_config(config: dict):
    config = {k: v for k, v in config.items() if v is not None}
    scaling = config.get("rope_scaling")
    if scaling is not None:
        config["rope_scaling"] = dict(scaling)
        if "long_factor" in scaling:
            config["rope_scaling"]["long_factor"] = list(scaling["long_factor"])
            config["rope_scaling"]["short_factor"] = list(scaling["short_factor"])
    cls = Phi3Config if "original_max_position_embeddings" in config else LlamaConfig
    return cls(**config)


def _hf_frequencies(kind: str, config: dict, seq_len):
    hf = _hf_config(config)
    if kind == "default" and "default" not in ROPE_INIT_FUNCTIONS:
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
        inv, att = LlamaRotaryEmbedding.compute_default_rope_parameters(hf)
    else:
        inv, att = ROPE_INIT_FUNCTIONS[kind.split("-")[0]](hf, "cpu", seq_len=seq_len)
    return inv.double().numpy(), float(att)


@pytest.mark.parametrize("kind, seq_len", [(k, s) for k, (_, lengths) in CASES.items() for s in lengths])
def test_from_config_agrees_with_transformers(kind, seq_len):
    config = CASES[kind][0]
    want, want_att = _hf_frequencies(kind, config, seq_len)
    got, att = pl.rope_frequencies_from_config(config, seq_len=seq_len)
    np.testing.assert_allclose(got, want, rtol=RTOL)
    assert att == pytest.approx(want_att, rel=RTOL)


@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0])
def test_the_courses_static_ntk_is_dynamic_at_the_matching_length(factor):
    config = dict(LLAMA, max_position_embeddings=2048, rope_scaling={"rope_type": "dynamic", "factor": factor})
    seq_len = 2048 * (2 * factor - 1) / factor                # factor·L'/L − (factor − 1) = factor
    want, _ = ROPE_INIT_FUNCTIONS["dynamic"](_hf_config(config), "cpu", seq_len=seq_len)
    got, att = pl.ROPE_SCALING["ntk"](64, 10000.0, {"factor": factor})
    np.testing.assert_allclose(got, want.double().numpy(), rtol=RTOL)
    assert att == 1.0


def test_every_registered_type_has_a_peer_case():
    covered = {k.split("-")[0] for k in CASES} | {"ntk"}
    assert covered == set(pl.ROPE_SCALING)
