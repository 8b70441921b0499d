"""posenc/attention.py: softmax, self-attention and the 猫咬狗 permutation demo.

Expected values: self-attention written as loops (tests/reference.py), torch's own
``nn.MultiheadAttention``, and the permutation identities (equivariance, invariance).
"""
import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from support import assert_refused_clearly


def test_softmax_matches_loops_and_masks_minus_inf():
    rng = np.random.default_rng(7)
    scores = rng.normal(scale=30, size=(4, 6))
    scores[1, 2] = scores[3, 0] = -np.inf
    got = pl.softmax(scores)
    np.testing.assert_allclose(got, [ref.softmax(row) for row in scores.tolist()], rtol=0, atol=1e-15)
    assert got[1, 2] == 0.0 and got[3, 0] == 0.0
    np.testing.assert_allclose(pl.softmax(scores.T, axis=0), got.T, rtol=0, atol=1e-15)


def test_self_attention_matches_loops():
    rng = np.random.default_rng(3)
    x, wq, wk, wv = rng.normal(size=(5, 6)), rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    out, weights = pl.self_attention(x, wq, wk, wv)
    ref_out, ref_w = ref.self_attention(x.tolist(), wq.tolist(), wk.tolist(), wv.tolist())
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    np.testing.assert_allclose(weights, ref_w, atol=1e-12)


def test_self_attention_matches_torch_multihead():
    import torch

    d = 4
    wq, wk, wv = pl.attention_weights_for_demo(d)
    x = pl.token_vectors("猫咬狗", d)
    mha = torch.nn.MultiheadAttention(d, num_heads=1, bias=False, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([wq.T, wk.T, wv.T])))
        mha.out_proj.weight.copy_(torch.eye(d, dtype=torch.float64))
        t = torch.tensor(x)[None]
        out, w = mha(t, t, t)
    ours_out, ours_w = pl.self_attention(x, wq, wk, wv)
    np.testing.assert_allclose(out[0].numpy(), ours_out, atol=1e-12)
    np.testing.assert_allclose(w[0].numpy(), ours_w, atol=1e-12)


@pytest.mark.parametrize("a,b", [("猫咬狗", "狗咬猫"), ("我爱你", "你爱我"), ("我打你", "你打我")])
def test_equivariant_without_pe_and_broken_with_pe(a, b):
    da, db = pl.attention_demo(a), pl.attention_demo(b)
    perm = [da.tokens.index(t) for t in db.tokens]
    np.testing.assert_allclose(db.outputs, da.outputs[perm], atol=1e-12)  # equivariant
    np.testing.assert_allclose(db.weights, da.weights[np.ix_(perm, perm)], atol=1e-12)
    np.testing.assert_allclose(db.pooled, da.pooled, atol=1e-12)  # invariant
    pa, pb = pl.attention_demo(a, use_pe=True), pl.attention_demo(b, use_pe=True)
    assert np.abs(pb.output_of(b[0]) - pa.output_of(b[0])).max() > 1e-3
    assert np.abs(pb.pooled - pa.pooled).max() > 1e-3


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.self_attention(np.ones((3, 4)), np.ones((5, 2)), np.ones((4, 2)), np.ones((4, 2))), ValueError, "w_q"),
    (lambda: pl.self_attention(np.ones(3), np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2))), ValueError, "x"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
