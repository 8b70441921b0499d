"""posenc/rope.py, the forms real models use: the complex form, RoFormer's long-term-decay bound,
attention with v rotated or not, the split-halves layout (rotate_half) and Hugging Face's
Llama row permutation, partial rotary.

Expected values come from tests/reference.py (plain loops with math / cmath) and identities.
"""

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from support import assert_refused_clearly

RNG = np.random.default_rng(11)


def test_complex_form_is_the_rotation_and_its_score_the_dot_product():
    x = RNG.normal(size=(5, 12))
    pos = [0.0, 1.0, 7.5, -3.0, 250.0]
    z = pl.rope_complex(x, pos, base=500.0)
    for r in range(5):
        expected = ref.rope_vector(list(x[r]), pos[r], 500.0)
        np.testing.assert_allclose(z[r].real, expected[0::2], atol=1e-12)
        np.testing.assert_allclose(z[r].imag, expected[1::2], atol=1e-12)
    q, key = RNG.normal(size=(2, 12))
    for m, n in [(0, 0), (3, 10), (10, 3), (-40, 900)]:
        dot = ref.dot(ref.rope_vector(list(q), m), ref.rope_vector(list(key), n))
        assert abs(pl.rope_complex_score(q, key, m, n) - dot) < 1e-10
        assert abs(pl.rope_complex_score(q, key, m, n) - ref.rope_score(list(q), list(key), n - m)) < 1e-10


def test_partial_sums_match_the_loop_and_start_at_zero():
    ks = np.array([0.0, 1.0, 5.0, -5.0, 77.0])
    s = pl.rope_partial_sums(ks, 16, base=100.0)
    assert s.shape == (5, 9)
    for a, k in enumerate(ks):
        for j in range(9):
            assert abs(s[a, j] - ref.rope_partial_sum(k, j, 16, 100.0)) < 1e-12
    assert np.all(s[:, 0] == 0)
    np.testing.assert_allclose(np.abs(s[3]), np.abs(s[2]), atol=1e-12)        # |S_j(-k)| = |S_j(k)|


def test_decay_quantity_at_zero_and_decaying_on_average():
    d = 128
    b = pl.rope_decay_bound(np.arange(0, 257), d)
    assert abs(b[0] - (d / 2 + 1) / 2) < 1e-12                              # mean of j = 1 .. d/2
    assert b[128:].mean() < 0.5 * b[:16].mean()
    assert np.any(np.diff(b) > 0)                                            # not monotone


@pytest.mark.parametrize("seed", range(4))
def test_abel_bound_matches_the_loop_and_bounds_every_score(seed):
    rng = np.random.default_rng(seed)
    q, key = rng.normal(size=(2, 16))
    ks = np.arange(-60, 61, 7)
    bound = pl.rope_abel_bound(q, key, ks)
    for k, b in zip(ks, bound):
        assert abs(b - ref.rope_abel_bound(list(q), list(key), k)) < 1e-9
        assert abs(ref.rope_score(list(q), list(key), k)) <= b + 1e-12


def test_abel_bound_of_all_ones_is_twice_the_sum():
    ones = np.ones(8)
    ks = np.array([0.0, 3.0])
    # h_i = |1 + i|^2 = 2 for every pair: the only nonzero step is |h_{d/2} - h_{d/2-1}| = 2
    expected = [2 * sum(abs(ref.rope_partial_sum(k, j, 8)) for j in range(1, 5)) for k in ks]
    np.testing.assert_allclose(pl.rope_abel_bound(ones, ones, ks), expected, atol=1e-12)


@pytest.mark.parametrize("rotate_values,rotate_back", [(False, False), (True, False), (True, True)])
def test_rope_attention_matches_the_loop(rotate_values, rotate_back):
    q, key, value = RNG.normal(size=(3, 4, 6))
    pos = [2, 5, 6, 11]
    got = pl.rope_attention(q, key, value, pos, rotate_values=rotate_values, rotate_back=rotate_back)
    expected = ref.rope_attention(q.tolist(), key.tolist(), value.tolist(), pos, rotate_values, rotate_back)
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_rotating_v_breaks_the_shift_and_rotating_back_restores_it():
    q, key, value = RNG.normal(size=(3, 6, 8))
    pos = np.arange(6)
    out = lambda t, **kw: pl.rope_attention(q, key, value, pos + t, **kw)
    assert np.abs(out(0) - out(9)).max() < 1e-12
    assert np.abs(out(0, rotate_values=True) - out(9, rotate_values=True)).max() > 1e-2
    assert np.abs(out(0, rotate_values=True, rotate_back=True) - out(9, rotate_values=True, rotate_back=True)).max() < 1e-12


def test_rotate_half_layout_matches_the_loop_and_the_permutation():
    x = RNG.normal(size=(3, 10))
    pos = [0.0, 4.0, -17.0]
    got = pl.rope_rotate_half(x, pos)
    for r in range(3):
        np.testing.assert_allclose(got[r], ref.rope_vector_half(list(x[r]), pos[r]), atol=1e-12)
    np.testing.assert_array_equal(pl.rotate_half(np.arange(4.0)), [-2.0, -3.0, 0.0, 1.0])
    perm = pl.split_permutation(10)
    np.testing.assert_allclose(pl.rope_rotate_half(x[:, perm], pos), pl.rope(x, pos)[:, perm], atol=1e-12)


def test_llama_permute_rows_matches_the_index_loop():
    n_heads, head_dim, d_in = 3, 8, 5
    w = RNG.normal(size=(n_heads * head_dim, d_in))
    got = pl.llama_permute_rows(w, n_heads)
    for h in range(n_heads):
        for r in range(head_dim):
            np.testing.assert_array_equal(got[h * head_dim + r], w[h * head_dim + ref.llama_permuted_row(r, head_dim)])


def test_permuted_weights_with_rotate_half_give_the_interleaved_scores():
    d_in, n_heads, head_dim = 12, 2, 8
    w_q, w_k = RNG.normal(size=(2, n_heads * head_dim, d_in))
    x = RNG.normal(size=(5, d_in))
    pos = np.arange(5)
    heads = lambda y: y.reshape(5, n_heads, head_dim).transpose(1, 0, 2)
    meta = [pl.rope(a, pos) @ pl.rope(b, pos).T for a, b in zip(heads(x @ w_q.T), heads(x @ w_k.T))]
    hf = [pl.rope_rotate_half(a, pos) @ pl.rope_rotate_half(b, pos).T
          for a, b in zip(heads(x @ pl.llama_permute_rows(w_q, n_heads).T), heads(x @ pl.llama_permute_rows(w_k, n_heads).T))]
    raw = [pl.rope_rotate_half(a, pos) @ pl.rope_rotate_half(b, pos).T for a, b in zip(heads(x @ w_q.T), heads(x @ w_k.T))]
    np.testing.assert_allclose(hf, meta, atol=1e-10)
    assert np.abs(np.array(raw) - np.array(meta)).max() > 1e-2


def test_partial_rope_rotates_the_first_dims_with_their_own_frequencies():
    x = RNG.normal(size=(4, 12))
    pos = [0.0, 1.0, 2.0, 30.0]
    got = pl.partial_rope(x, pos, 4)
    for r in range(4):
        np.testing.assert_allclose(got[r, :4], ref.rope_vector_half(list(x[r, :4]), pos[r]), atol=1e-12)
        np.testing.assert_array_equal(got[r, 4:], x[r, 4:])
    inter = pl.partial_rope(x, pos, 4, layout="interleaved")
    np.testing.assert_allclose(inter[1, :4], ref.rope_vector(list(x[1, :4]), 1.0), atol=1e-12)
    np.testing.assert_array_equal(pl.partial_rope(x, pos, 0), x)
    np.testing.assert_allclose(pl.partial_rope(x, pos, 12), pl.rope_rotate_half(x, pos), atol=1e-12)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.rope_complex(np.ones(4), [0]), ValueError, "x must have shape"),
    (lambda: pl.rope_complex_score([1, 0], [1, 0, 0, 1], 0, 1), ValueError, "q and key"),
    (lambda: pl.rope_partial_sums([0], 5), ValueError, "d_model"),
    (lambda: pl.rope_attention(np.ones((2, 4)), np.ones((3, 4)), np.ones((2, 4)), [0, 1]), ValueError, "one shape"),
    (lambda: pl.rope_attention(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4)), [0, 1], rotate_back=True),
     ValueError, "rotate_back"),
    (lambda: pl.llama_permute_rows(np.ones((12, 3)), 4), ValueError, "n_heads"),
    (lambda: pl.partial_rope(np.ones((2, 8)), [0, 1], 3), ValueError, "rotary_dims"),
    (lambda: pl.partial_rope(np.ones((2, 8)), [0, 1], 4, layout="gptj"), ValueError, "layout"),
    (lambda: pl.plot_rope_decay(d_model=7), ValueError, "d_model"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
