"""MLA: one absorbed matrix reproduces every score without RoPE and cannot with it; the
decoupled rotated part keeps absorption exact."""
import math

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


def _setup(seed=0, n=12, d_model=16, d_c=6, d_h=8):
    rng = np.random.default_rng(seed)
    h = rng.normal(size=(n, d_model))
    w_dkv = rng.normal(size=(d_model, d_c)) / 4
    c = h @ w_dkv
    return h, c, rng.normal(size=(d_model, d_h)) / 4, rng.normal(size=(d_c, d_h)) / 2, rng


def test_absorption_is_exact_without_rope():
    h, c, w_q, w_uk, _ = _setup()
    a = pl.mla_absorbed_matrix(w_q, w_uk)
    assert a.shape == (16, 6)
    # against the written-out product q_m·k_n = sum_j (h_m W_Q)_j (c_n W_UK)_j
    want = np.array([[sum((h[m] @ w_q)[j] * (c[n] @ w_uk)[j] for j in range(8)) for n in range(12)] for m in range(12)])
    np.testing.assert_allclose(pl.mla_absorbed_scores(h, c, a), want, atol=1e-12)
    np.testing.assert_allclose(pl.mla_scores(h, c, w_q, w_uk), want, atol=1e-12)


def test_no_single_matrix_reproduces_rope_scores():
    """The same token pair at offsets 1 and 5: any absorbed matrix gives one score, RoPE two."""
    rng = np.random.default_rng(3)
    tok_q, tok_k = rng.normal(size=16), rng.normal(size=16)
    w_q, w_uk, w_dkv = rng.normal(size=(16, 8)), rng.normal(size=(6, 8)), rng.normal(size=(16, 6))
    h = np.array([tok_q, tok_k, tok_k, tok_k, tok_k, tok_k])
    c = h @ w_dkv
    s = pl.mla_scores(h, c, w_q, w_uk, rope=True)
    assert abs(s[0, 1] - s[0, 5]) > 1e-3
    absorbed = pl.mla_absorbed_scores(h, c, rng.normal(size=(16, 6)))
    assert absorbed[0, 1] == absorbed[0, 5]
    # and the plain absorbed matrix misses the RoPE scores by far more than rounding
    plain = pl.mla_absorbed_scores(h, c, pl.mla_absorbed_matrix(w_q, w_uk))
    assert np.abs(plain - s).max() > 1e-2


def test_decoupled_rope_keeps_absorption_exact():
    h, c, w_q, w_uk, rng = _setup()
    w_qr, w_kr = rng.normal(size=(16, 4)), rng.normal(size=(16, 4))
    a = pl.mla_decoupled_scores(h, c, w_q, w_uk, w_qr, w_kr, absorbed=True)
    b = pl.mla_decoupled_scores(h, c, w_q, w_uk, w_qr, w_kr, absorbed=False)
    np.testing.assert_allclose(a, b, atol=1e-12)
    # the rotated part depends on the offset only: shift every position by one, same scores
    rot = a - pl.mla_absorbed_scores(h, c, pl.mla_absorbed_matrix(w_q, w_uk))
    # against the loop reference: rope(h_m W_QR, m + 7) · rope(h_n W_KR, n + 7), RoFormer's rotation written out
    qr = [ref.rope_vector(list(h[m] @ w_qr), m + 7) for m in range(12)]
    kr = [ref.rope_vector(list(h[n] @ w_kr), n + 7) for n in range(12)]
    want = [[ref.dot(qr[m], kr[n]) for n in range(12)] for m in range(12)]
    np.testing.assert_allclose(rot, want, atol=1e-12)


def test_cache_per_token():
    cfg = pl.MODEL_CONFIGS["DeepSeek-V3"]
    assert pl.mla_cache_per_token(cfg["kv_lora_rank"], cfg["qk_rope_head_dim"]) == 512 + 64


def test_softmax_scale_is_mscale_squared_on_every_qk_dimension():
    """DeepSeek's inference/model.py (MLA.__init__): softmax_scale · mscale², mscale = 0.1·mscale·ln(40) + 1;
    Hugging Face's DeepseekV3Attention: the same with mscale_all_dim (V2-Lite: 0.707)."""
    assert pl.mla_softmax_scale(pl.MODEL_CONFIGS["DeepSeek-V3"]) == pytest.approx((0.1 * math.log(40) + 1) ** 2, rel=1e-12)
    assert pl.mla_softmax_scale(pl.MODEL_CONFIGS["DeepSeek-V2-Lite"]) == pytest.approx(
        (0.1 * 0.707 * math.log(40) + 1) ** 2, rel=1e-12)
    plain = dict(pl.MODEL_CONFIGS["DeepSeek-V3"], rope_scaling=None)
    assert pl.mla_softmax_scale(plain) == 1.0
    with pytest.raises(ValueError, match="qk_rope_head_dim"):
        pl.mla_softmax_scale(pl.MODEL_CONFIGS["Llama-2-7B"])
