"""posenc/encoding.py: the sinusoidal table, frequencies, wavelengths, the shift-by-k rotation
R_k, distances and near repeats, the binary counter.

Expected values come from tests/reference.py (the formula as plain loops), a tutorial's
torch snippet, Python's own ``bin``, hand-calculated tables and identities.
"""
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import posenc_lib as pl
import reference as ref
from support import assert_refused_clearly


def tutorial_torch_snippet(seq_len, d_model):
    """The torch snippet most tutorials print (exp/log form of the frequencies)."""
    import torch

    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)
    pos = torch.arange(seq_len).unsqueeze(1).double()
    div = torch.exp(torch.arange(0, d_model, 2).double() * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe.numpy()


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seq_len,d_model,base,start", [
    (1, 2, 10000.0, 0), (7, 2, 10000.0, 1), (20, 16, 10000.0, 0), (13, 10, 100.0, 5),
    (50, 64, 10000.0, 0), (4, 512, 10000.0, 1000),
])
def test_table_matches_plain_loops(seq_len, d_model, base, start):
    got = pl.sinusoidal_encoding(seq_len, d_model, base, start=start)
    assert got.shape == (seq_len, d_model)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, ref.pe_table(seq_len, d_model, base, start), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seq_len,d_model", [(4, 8), (50, 128), (3, 2)])
def test_table_matches_tutorial_torch_snippet(seq_len, d_model):
    np.testing.assert_allclose(pl.sinusoidal_encoding(seq_len, d_model),
                               tutorial_torch_snippet(seq_len, d_model), rtol=0, atol=1e-12)


def test_exp_log_form_equals_power_form():
    d = 512
    i2 = np.arange(0, d, 2)
    np.testing.assert_allclose(np.exp(i2 * (-math.log(10000.0) / d)), pl.frequencies(d), rtol=1e-13)


def test_zero_based_and_d4_values_from_curriculum():
    assert list(np.round(pl.sinusoidal_encoding(1, 2)[0], 4)) == [0.0, 1.0]
    np.testing.assert_array_equal(np.round(pl.sinusoidal_encoding(1, 4, start=1)[0], 4),
                                  [0.8415, 0.5403, 0.0100, 1.0000])
    assert pl.frequencies(4)[1] == pytest.approx(0.01)


def test_sinusoidal_table_matches_formula():
    pe = pl.sinusoidal_encoding(4, 2)
    np.testing.assert_allclose(pe[1:4], [[0.8415, 0.5403], [0.9093, -0.4161], [0.1411, -0.9900]], atol=5e-5)
    pe4 = pl.sinusoidal_encoding(3, 4)
    np.testing.assert_allclose(pe4[1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)])


def test_wavelength_range():
    lam = pl.wavelengths(512)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert lam[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert lam[-1] < 2 * math.pi * 10000
    assert np.all(np.diff(lam) > 0)


def test_split_layout_is_column_permutation():
    inter = pl.sinusoidal_encoding(30, 12)
    split = pl.sinusoidal_encoding(30, 12, layout="split")
    np.testing.assert_array_equal(split[:, :6], inter[:, 0::2])
    np.testing.assert_array_equal(split[:, 6:], inter[:, 1::2])
    np.testing.assert_array_equal(split, inter[:, pl.split_permutation(12)])


# ---------------------------------------------------------------------------
# Identities, as property tests
# ---------------------------------------------------------------------------
d_models = st.integers(1, 64).map(lambda h: 2 * h)
bases = st.floats(1.5, 1e6)


@given(seq_len=st.integers(1, 40), d_model=d_models, base=bases, start=st.integers(0, 10**6))
def test_row_norm_is_sqrt_half_d(seq_len, d_model, base, start):
    pe = pl.sinusoidal_encoding(seq_len, d_model, base, start=start)
    np.testing.assert_allclose(np.linalg.norm(pe, axis=1), math.sqrt(d_model / 2), rtol=1e-12)


@given(k=st.integers(-500, 500), d_model=d_models, base=bases)
def test_relative_rotation_maps_pos_to_pos_plus_k(k, d_model, base):
    pos = np.arange(0, 300, 7)
    r = pl.relative_rotation(k, d_model, base)
    np.testing.assert_allclose(pl.encode_positions(pos, d_model, base) @ r.T,
                               pl.encode_positions(pos + k, d_model, base), atol=1e-9)
    # R_k is orthogonal and R_{-k} undoes it
    np.testing.assert_allclose(r @ pl.relative_rotation(-k, d_model, base), np.eye(d_model), atol=1e-12)


@given(k=st.integers(0, 300), d_model=d_models, base=bases)
def test_dot_product_depends_on_offset_only_and_is_symmetric(k, d_model, base):
    pos = np.arange(0, 400, 13)
    a = pl.encode_positions(pos, d_model, base)
    plus = np.sum(a * pl.encode_positions(pos + k, d_model, base), axis=1)
    minus = np.sum(a * pl.encode_positions(pos - k, d_model, base), axis=1)
    expected = ref.pe_dot_by_offset(k, d_model, base)
    np.testing.assert_allclose(plus, expected, atol=1e-9)
    np.testing.assert_allclose(minus, expected, atol=1e-9)
    assert pl.pe_dot_by_offset([k, -k], d_model, base) == pytest.approx([expected, expected], abs=1e-9)


def test_dot_product_is_not_monotone():
    dots = pl.pe_dot_by_offset(np.arange(0, 200), 64)
    assert np.any(np.diff(dots) > 0), "PE.PE should rise again somewhere: it is not a monotone decay"
    np.testing.assert_allclose(pl.pe_dot_by_offset(np.arange(10), 2), np.cos(np.arange(10)))


# ---------------------------------------------------------------------------
# The rotation R_k
# ---------------------------------------------------------------------------
@given(k=st.floats(-300, 300, allow_nan=False), d_model=st.sampled_from([2, 4, 16, 64]))
def test_rotation_error_is_rounding_only(k, d_model):
    assert pl.rotation_error(k, d_model) < 1e-11


def test_rotation_error_matches_a_loop_over_pairs():
    # Rotate every pair by hand with the angle-addition formulas, compare with PE(pos+k).
    d_model, k = 8, -7
    worst = 0.0
    for pos in range(0, 200, 7):
        turned, b = ref.rotate_pairs(ref.pe_row(pos, d_model), k, d_model), ref.pe_row(pos + k, d_model)
        worst = max([worst] + [abs(x - y) for x, y in zip(turned, b)])
    assert worst < 1e-12
    assert abs(pl.rotation_error(k, d_model, positions=range(0, 200, 7)) - worst) < 1e-12


def test_transposed_rotation_goes_the_other_way():
    d_model = 16
    pe = pl.encode_positions(np.arange(50.0), d_model)
    r = pl.relative_rotation(5, d_model)
    np.testing.assert_allclose(pe @ r, pl.encode_positions(np.arange(50.0) - 5, d_model), atol=1e-12)
    assert np.abs(pe @ r - pl.encode_positions(np.arange(50.0) + 5, d_model)).max() > 0.5


# ---------------------------------------------------------------------------
# Distances and near repeats
# ---------------------------------------------------------------------------
@given(p=st.integers(0, 3000), k=st.integers(-500, 500),
       d_model=st.sampled_from([2, 4, 8, 16, 64]), base=st.sampled_from([10.0, 100.0, 10000.0]))
def test_distance_by_offset_matches_two_rows(p, k, d_model, base):
    q = p + k
    assume(q >= 0)
    got = pl.pe_distance_by_offset([k], d_model, base)[0]
    assert got == pytest.approx(ref.pe_distance(p, q, d_model, base), abs=1e-9)


def test_distance_identity_with_dot_product():
    # ||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b, and every row has ||PE||^2 = d_model / 2.
    ks = np.arange(-40, 41)
    for d_model in (2, 6, 32):
        d2 = pl.pe_distance_by_offset(ks, d_model) ** 2
        np.testing.assert_allclose(d2, d_model - 2 * pl.pe_dot_by_offset(ks, d_model), atol=1e-9)


def test_nearest_repeat_of_one_hand_is_710():
    # One hand turns 1 radian per step: the offsets closest to a whole number of turns.
    best = min(range(1, 1001), key=lambda k: abs(2 * math.sin(k / 2)))
    assert best == 710 and abs(710 - 113 * 2 * math.pi) < 1e-4  # 355/113 ~ pi
    k, dist = pl.nearest_repeat(2, 1000)
    assert k == 710
    assert dist == pytest.approx(2 * abs(math.sin(355)), rel=1e-9)
    assert 0 < dist < 1e-4


def test_nearest_repeat_with_many_pairs_is_the_neighbour():
    k, dist = pl.nearest_repeat(64, 1000)
    assert k == 1
    assert dist == pytest.approx(ref.pe_distance(0, 1, 64), abs=1e-12)
    # brute force over every pair of positions 0..300 agrees
    rows = np.array(ref.pe_table(301, 64))
    d = np.sqrt(((rows[:, None, :] - rows[None, :, :]) ** 2).sum(-1))
    d[np.eye(len(rows), dtype=bool)] = np.inf
    assert d.min() == pytest.approx(dist, abs=1e-12)


def test_nearest_repeat_refuses_bad_input():
    with pytest.raises(ValueError, match="d_model"):
        pl.nearest_repeat(3)
    with pytest.raises(ValueError, match="max_offset"):
        pl.nearest_repeat(2, 0)


# ---------------------------------------------------------------------------
# Binary counter
# ---------------------------------------------------------------------------
def test_binary_bits():
    assert list(pl.binary_bits(6, 4)) == [0, 1, 1, 0]
    flips = [np.sum(np.abs(np.diff([pl.binary_bits(p, 5)[k] for p in range(64)]))) for k in range(5)]
    assert flips == [63 // 2 ** k for k in range(5)]


@given(pos=st.integers(1, 2**40))
def test_flipped_bits_match_python_bin(pos):
    assert list(pl.flipped_bits(pos)) == ref.flipped_bits(pos)


def test_flipped_bits_examples():
    assert list(pl.flipped_bits(8)) == [0, 1, 2, 3]
    assert list(pl.flipped_bits(5)) == [0]
    assert list(pl.flipped_bits(128)) == list(range(8))
    with pytest.raises(ValueError, match="pos"):
        pl.flipped_bits(0)


def test_square_wave_and_sinusoid_change_sign_together():
    # The docstring's claim: -sin(pi pos / 2**k) is positive exactly while bit k is 1
    # (checked half-way between integers, where the sinusoid is never 0).
    for k in range(6):
        for p in range(200):
            bit = (p >> k) & 1
            assert (-math.sin(math.pi * (p + 0.5) / 2 ** k) > 0) == (bit == 1)


# ---------------------------------------------------------------------------
# Bad input gets a clear error naming the parameter (English and Chinese)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.sinusoidal_encoding(0, 4), ValueError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(-3, 4), ValueError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(2.5, 4), TypeError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(True, 4), TypeError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(4, 5), ValueError, "d_model must be"),
    (lambda: pl.sinusoidal_encoding(4, 0), ValueError, "d_model"),
    (lambda: pl.sinusoidal_encoding(4, -2), ValueError, "d_model"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=1.0), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=0.5), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=float("nan")), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=float("inf")), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base="10000"), TypeError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, start=-1), ValueError, "start"),
    (lambda: pl.sinusoidal_encoding(4, 4, layout="halves"), ValueError, "layout"),
    (lambda: pl.sinusoidal_encoding(10**7, 1024), ValueError, "seq_len * d_model"),
    (lambda: pl.frequencies(7), ValueError, "d_model"),
    (lambda: pl.relative_rotation(float("nan"), 4), ValueError, "k"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
