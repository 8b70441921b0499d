"""posenc/rope.py: RoPE in numpy, and scores of content + position (RoPE against an additive PE).

Expected values come from tests/reference.py: RoPE with complex numbers (pair i =
x_2i + i x_2i+1 multiplied by e^{i pos theta_i}, as in RoFormer and Meta's LLaMA code);
and hand-made tables.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pl
import reference as ref
from posenc.rope import apply_rope_half, rope_cos_sin
from support import assert_refused_clearly

vectors = st.integers(1, 8).flatmap(
    lambda h: st.lists(st.floats(-3, 3, allow_nan=False), min_size=4 * h, max_size=4 * h))
positions = st.integers(-500, 500)


@given(x=vectors, pos=st.floats(-1000, 1000, allow_nan=False), base=st.sampled_from([100.0, 10000.0, 5e5]))
def test_rope_matches_complex_multiplication(x, pos, base):
    expected = ref.rope_vector(x, pos, base)
    x = np.array(x)
    np.testing.assert_allclose(pl.rope(x[None], [pos], base)[0], expected, atol=1e-9)
    np.testing.assert_allclose(pl.rope_rotation(pos, len(x), base) @ x, expected, atol=1e-9)


@given(qk=vectors.flatmap(lambda v: st.tuples(st.just(v), st.lists(st.floats(-3, 3, allow_nan=False),
                                                                  min_size=len(v), max_size=len(v)))),
       m=positions, n=positions, shift=positions)
def test_rope_score_depends_on_offset_only(qk, m, n, shift):
    """The relative-only property: shifting both positions leaves the score unchanged, and the
    score equals the complex-number closed form with n - m alone."""
    q, k = np.array(qk[0]), np.array(qk[1])
    score = lambda a, b: float(pl.rope(q[None], [a])[0] @ pl.rope(k[None], [b])[0])
    scale = 1.0 + float(np.abs(q).sum() * np.abs(k).sum())
    assert abs(score(m, n) - score(m + shift, n + shift)) <= 1e-11 * scale
    # Re( sum_i conj(q_i) k_i e^{i (n - m) w_i} ) with pairs as complex numbers
    expected = ref.rope_score(qk[0], qk[1], n - m)
    assert abs(score(m, n) - expected) <= 1e-11 * scale
    assert abs(float(pl.rope_score_by_offset(q, k, [n - m])[0]) - expected) <= 1e-11 * scale


def test_rope_dot_depends_on_offset_only_on_a_grid():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
    dots = {}
    for m in range(0, 30, 3):
        for n in range(0, 30, 4):
            dots.setdefault(m - n, []).append(float((pl.rope(q, [m]) @ pl.rope(k, [n]).T)[0, 0]))
    for values in dots.values():
        assert max(values) - min(values) < 1e-9


def test_rope_tells_before_from_after_unless_pairs_are_parallel():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=16), rng.normal(size=16)
    f = pl.rope_score_by_offset(q, k, np.arange(-20, 21))
    assert np.abs(f - f[::-1]).max() > 0.1
    g = pl.rope_score_by_offset(q, 2.5 * q, np.arange(-20, 21))   # every pair of k parallel to q's
    np.testing.assert_allclose(g, g[::-1], atol=1e-12)
    a, b = pl.rope_pair_coefficients([1.0, 2.0], [3.0, 5.0])
    assert a.tolist() == [1 * 3 + 2 * 5] and b.tolist() == [2 * 3 - 1 * 5]


@given(m=positions, d=st.sampled_from([2, 4, 8, 32]))
def test_rope_rotation_is_the_inverse_direction_of_04s_R_k(m, d):
    """Both matrices are built by one helper, so each is checked against its own loop reference:
    column j of RoPE's matrix is RoFormer's complex rotation of the basis vector e_j, column j of
    R_k is notebook 04's angle-addition shift PE(pos) -> PE(pos + k) of e_j; with k = -m they agree."""
    basis = np.eye(d).tolist()
    rope_columns = np.array([ref.rope_vector(e, m) for e in basis]).T
    shift_columns = np.array([ref.rotate_pairs(e, -m, d) for e in basis]).T
    np.testing.assert_allclose(pl.rope_rotation(m, d), rope_columns, atol=1e-12)
    np.testing.assert_allclose(pl.relative_rotation(-m, d), shift_columns, atol=1e-12)
    np.testing.assert_allclose(rope_columns, shift_columns, atol=1e-12)
    np.testing.assert_allclose(pl.rope_rotation(m, d).T @ pl.rope_rotation(m + 7, d), pl.rope_rotation(7, d),
                               atol=1e-9)


def test_rope_turns_pe_backwards():
    pe = pl.encode_positions([10.0], 8)
    np.testing.assert_allclose(pl.rope(pe, [3]), pl.encode_positions([7.0], 8), atol=1e-12)


# ---------------------------------------------------------------------------
# Content + position scores
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["additive", "rope"])
def test_content_position_scores_match_loops(kind):
    rng = np.random.default_rng(2)
    x_q, x_k = rng.normal(size=4), rng.normal(size=4)
    w_q, w_k = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    got = pl.content_position_scores(x_q, x_k, w_q, w_k, kind=kind, seq_len=5, k_max=3, start=-2)
    expected = ref.content_position_scores(x_q.tolist(), x_k.tolist(), w_q.tolist(), w_k.tolist(),
                                           kind, 5, 3, -2)
    np.testing.assert_allclose(got, expected, atol=1e-10)


def test_rope_scores_ignore_absolute_position_additive_ones_do_not():
    d = 32
    x_q, x_k = pl.token_vectors("猫狗", d)
    w_q, w_k, _ = pl.attention_weights_for_demo(d)
    rope0 = pl.content_position_scores(x_q, x_k, w_q, w_k, kind="rope")
    rope100 = pl.content_position_scores(x_q, x_k, w_q, w_k, kind="rope", start=100)
    np.testing.assert_allclose(rope0, rope100, atol=1e-12)
    assert pl.offset_structure(rope0)["position_dependence"] < 1e-12
    add0 = pl.content_position_scores(x_q, x_k, w_q, w_k, kind="additive")
    assert pl.offset_structure(add0)["position_dependence"] > 0.1


# ---------------------------------------------------------------------------
# Bad input gets a clear error naming the parameter (English and Chinese)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.rope(np.ones((3, 5)), [0, 1, 2]), ValueError, "d_model"),
    (lambda: pl.rope(np.ones((3, 4)), [0, 1]), ValueError, "positions"),
    (lambda: pl.rope_rotation(float("nan"), 4), ValueError, "pos"),
    (lambda: pl.rope_rotation(1, 5), ValueError, "d_model"),
    (lambda: pl.rope_pair_coefficients([1, 2], [1, 2, 3, 4]), ValueError, "q and k"),
    (lambda: pl.rope_pair_coefficients([1, 2, 3], [1, 2, 3]), ValueError, "d_model"),
    (lambda: pl.rope_score_by_offset([1, 2], [3, 4], [float("inf")]), ValueError, "offsets"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], kind="concat"), ValueError, "kind"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], seq_len=0), ValueError, "seq_len"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], k_max=-1), ValueError, "k_max"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], np.ones((2, 3)), np.ones((2, 3))), ValueError, "d_k"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], np.ones((3, 2)), np.ones((3, 2))), ValueError, "w_q"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


def test_the_cos_sin_cache_is_each_pairs_angle_written_twice():
    """rope_cos_sin: column j and column j + d/2 of row r both hold cos (sin) of positions[r]·w_j."""
    positions, d, base = [0, 3, 10, 41], 6, 500.0
    cos, sin = rope_cos_sin(positions, d, base)
    assert cos.shape == sin.shape == (4, 6)
    for r, pos in enumerate(positions):
        for c in range(d):
            angle = pos * base ** (-2 * (c % (d // 2)) / d)
            assert cos[r, c] == pytest.approx(np.cos(angle), abs=1e-14)
            assert sin[r, c] == pytest.approx(np.sin(angle), abs=1e-14)


def test_the_cache_applied_with_rotate_half_is_the_split_halves_rope():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 8))
    positions = [0, 1, 4, 9, 30]
    got = apply_rope_half(x, *rope_cos_sin(positions, 8))
    for h in range(2):
        for r, pos in enumerate(positions):
            np.testing.assert_allclose(got[h, r], ref.rope_vector_half(list(x[h, r]), pos), atol=1e-12)
    np.testing.assert_array_equal(got, pl.rope_rotate_half(x, positions))
    assert_refused_clearly(lambda: apply_rope_half(x, *rope_cos_sin(positions[:4], 8)), ValueError, "cos")
