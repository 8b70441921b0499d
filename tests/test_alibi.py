"""posenc/alibi.py: ALiBi in numpy, its head slopes, biases and the attention they give.

Expected values come from tests/reference.py: the ALiBi slopes by the authors' recipe and
2^(-8h/H), biases as plain loops, softmax by hand; and hand-made tables.
"""
import math

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from support import assert_refused_clearly


def test_alibi_slopes_for_a_power_of_2_heads_are_geometric_from_2_to_the_minus_8_over_h():
    expected = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    np.testing.assert_allclose(pl.alibi_slopes(8), expected, rtol=1e-15)
    np.testing.assert_allclose(pl.alibi_slopes(8), [1 / 2 ** h for h in range(1, 9)], rtol=1e-15)
    np.testing.assert_allclose(pl.alibi_slopes(4), [1 / 4, 1 / 16, 1 / 64, 1 / 256], rtol=1e-15)
    # a power of 2 heads: geometric, start = ratio = 2^(-8/H)
    for h in (1, 2, 16, 64):
        s = pl.alibi_slopes(h)
        np.testing.assert_allclose(s[0], 2 ** (-8 / h))
        np.testing.assert_allclose(s[1:] / s[:-1], 2 ** (-8 / h))


def test_alibi_slopes_for_other_head_counts_follow_the_authors_recipe():
    """Not a power of 2 (BLOOM-176B has 112 heads): the closest lower power's slopes, then every
    other slope of twice that power."""
    for h in (3, 5, 6, 7, 12, 112):
        np.testing.assert_allclose(pl.alibi_slopes(h), ref.alibi_reference_slopes(h), rtol=1e-14)
    np.testing.assert_allclose(pl.alibi_slopes(12)[8:], 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5]), rtol=1e-14)


def test_alibi_bias_hand_values():
    b = pl.alibi_bias(4, 2)
    assert b.shape == (2, 4, 4)
    assert b[0, 0, 3] == pytest.approx(-3 * 2 ** -4) and b[1, 2, 0] == pytest.approx(-2 * 2 ** -8)


@pytest.mark.parametrize("seq_len,num_heads", [(1, 1), (5, 2), (7, 8), (12, 3)])
def test_alibi_bias_matches_loops(seq_len, num_heads):
    np.testing.assert_allclose(pl.alibi_bias(seq_len, num_heads), ref.alibi_bias(seq_len, num_heads), atol=1e-15)
    np.testing.assert_array_equal(pl.alibi_causal_bias(seq_len, num_heads),
                                  ref.alibi_bias(seq_len, num_heads, causal=True))


@pytest.mark.parametrize("causal", [False, True])
def test_alibi_attention_matches_hand_softmax(causal):
    seq_len, num_heads = 9, 4
    bias = ref.alibi_bias(seq_len, num_heads, causal)
    for query in (0, 4, 8):
        got = pl.alibi_attention(seq_len, num_heads, query, causal)
        for h in range(num_heads):
            np.testing.assert_allclose(got[h], ref.softmax(bias[h][query]), atol=1e-15)
    w = pl.alibi_attention(33, 8)      # middle query: each step away multiplies by exp(-m)
    np.testing.assert_allclose(w[:, 17] / w[:, 16], np.exp(-pl.alibi_slopes(8)))
    np.testing.assert_allclose(w[:, 15], w[:, 17])


def test_causal_bias_equals_plus_m_j_after_softmax():
    """The reference implementation adds +m j: a constant per row away from -m (i - j)."""
    seq_len, num_heads = 6, 8
    causal = pl.alibi_causal_bias(seq_len, num_heads)
    for h, m in enumerate(pl.alibi_slopes(num_heads)):
        for i in range(seq_len):
            shifted = [m * j if j <= i else -math.inf for j in range(seq_len)]
            np.testing.assert_allclose(ref.softmax(list(causal[h, i])), ref.softmax(shifted), atol=1e-15)


# ---------------------------------------------------------------------------
# Bad input gets a clear error naming the parameter (English and Chinese)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.alibi_slopes(0), ValueError, "num_heads"),
    (lambda: pl.alibi_causal_bias(0, 2), ValueError, "seq_len"),
    (lambda: pl.alibi_causal_bias(4, 0), ValueError, "num_heads"),
    (lambda: pl.alibi_attention(5, 2, query=5), ValueError, "query"),
    (lambda: pl.alibi_attention(5, 2.0), TypeError, "num_heads"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


@pytest.mark.parametrize("seq_len,num_heads,train_len,causal,query", [
    (16, 4, 8, True, None), (40, 8, 12, True, 30), (33, 8, 5, False, 16), (9, 3, 1, False, 0), (1, 2, 1, True, None)])
def test_alibi_reach_matches_loops(seq_len, num_heads, train_len, causal, query):
    mean, share = pl.alibi_reach(seq_len, num_heads, train_len, causal, query)
    ref_mean, ref_share = ref.alibi_reach(seq_len, num_heads, train_len, causal, query)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(share, ref_share, rtol=1e-12, atol=1e-15)


def test_alibi_reach_on_a_long_causal_row_is_the_geometric_series():
    """Weights ∝ r^d with r = exp(-s_h), d = 0, 1, 2, ...: on a row much longer than 1/s_h the mean
    distance is r / (1 - r) = 1 / (e^s - 1) and the weight at d >= L is r^L = exp(-s_h L)."""
    s = pl.alibi_slopes(8)
    mean, share = pl.alibi_reach(1 << 16, 8, 1024)
    np.testing.assert_allclose(mean, 1 / np.expm1(s), rtol=1e-9)
    np.testing.assert_allclose(share, np.exp(-s * 1024), rtol=1e-9, atol=1e-300)
    longer, _ = pl.alibi_reach(1 << 18, 8, 1024)
    np.testing.assert_allclose(longer, mean, rtol=1e-9)      # a longer input does not move it


def test_alibi_reach_refuses_bad_arguments():
    assert_refused_clearly(lambda: pl.alibi_reach(0, 8, 4), ValueError, "seq_len")
    assert_refused_clearly(lambda: pl.alibi_reach(16, 8, 0), ValueError, "train_len")
    assert_refused_clearly(lambda: pl.alibi_reach(16, 8, 4, query=16), ValueError, "query")


# ---------------------------------------------------------------------------
# A needle D positions back: its weight, and the content margin it needs (notebook 08 §7)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seq_len,num_heads,distance,margin", [
    (16, 4, 9, 0.0), (40, 8, 30, 3.5), (200, 8, 120, 20.0), (64, 12, 1, -2.0), (2, 1, 1, 1.0)])
def test_alibi_needle_weight_matches_loops(seq_len, num_heads, distance, margin):
    np.testing.assert_allclose(pl.alibi_needle_weight(seq_len, num_heads, distance, margin),
                               ref.alibi_needle_weight(seq_len, num_heads, distance, margin), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("seq_len,distance,share", [(64, 20, 0.5), (4096, 1024, 0.5), (4096, 300, 0.9),
                                                    (1 << 14, 1 << 12, 0.1), (500, 499, 0.5)])
def test_alibi_needle_margin_is_the_weight_inverted(seq_len, distance, share):
    """Feeding each head its margin back gives it exactly ``share`` of the weight."""
    margins = pl.alibi_needle_margin(seq_len, 8, distance, share)
    for h, margin in enumerate(margins):
        assert pl.alibi_needle_weight(seq_len, 8, distance, float(margin))[h] == pytest.approx(share, rel=1e-9)


def test_alibi_needle_margin_grows_by_the_slope_per_token():
    """Far out (e^{-s_h D} negligible) the margin is s_h·D + ln Z_h, Z_h the geometric sum: one
    more token of distance costs exactly s_h more logits, whatever the input length."""
    s = pl.alibi_slopes(8)
    n = 1 << 16
    z = (1 - np.exp(-s * n)) / (1 - np.exp(-s))
    far = pl.alibi_needle_margin(n, 8, 40000)
    np.testing.assert_allclose(far, s * 40000 + np.log(z), rtol=1e-12)
    np.testing.assert_allclose(pl.alibi_needle_margin(n, 8, 40001) - far, s, rtol=1e-9)
    assert np.all(np.diff(pl.alibi_needle_margin(n, 8, 1000)) < 0)       # steeper heads need more


def test_alibi_needle_refuses_bad_arguments():
    assert_refused_clearly(lambda: pl.alibi_needle_weight(16, 8, 16, 1.0), ValueError, "distance")
    assert_refused_clearly(lambda: pl.alibi_needle_weight(16, 8, 0, 1.0), ValueError, "distance")
    assert_refused_clearly(lambda: pl.alibi_needle_weight(16, 8, 3, "big"), TypeError, "margin")
    assert_refused_clearly(lambda: pl.alibi_needle_margin(16, 8, 3, share=1.0), ValueError, "share")
    assert_refused_clearly(lambda: pl.alibi_needle_margin(1, 8, 1), ValueError, "seq_len")
