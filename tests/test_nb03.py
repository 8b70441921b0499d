"""Section 03 of posenc_lib (clock hands, binary counter, uniqueness, layouts) against
independent references: plain loops with the math module, Python's own bin(), identities."""
import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pl
from support import pixels


def pe_row_loops(pos, d_model, base=10000.0):
    """One PE row from the paper's formula, one number at a time."""
    return [math.sin(pos / base ** (2 * (c // 2) / d_model)) if c % 2 == 0
            else math.cos(pos / base ** (2 * (c // 2) / d_model)) for c in range(d_model)]


def distance_loops(p, q, d_model, base=10000.0):
    a, b = pe_row_loops(p, d_model, base), pe_row_loops(q, d_model, base)
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


# ---------------------------------------------------------------------------
# Distances and near repeats
# ---------------------------------------------------------------------------
@given(p=st.integers(0, 3000), k=st.integers(-500, 500),
       d_model=st.sampled_from([2, 4, 8, 16, 64]), base=st.sampled_from([10.0, 100.0, 10000.0]))
def test_distance_by_offset_matches_two_rows(p, k, d_model, base):
    q = p + k
    if q < 0:
        return
    got = pl.pe_distance_by_offset([k], d_model, base)[0]
    assert got == pytest.approx(distance_loops(p, q, d_model, base), abs=1e-9)


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
    assert dist == pytest.approx(distance_loops(0, 1, 64), abs=1e-12)
    # brute force over every pair of positions 0..300 agrees
    rows = np.array([pe_row_loops(p, 64) for p in range(301)])
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
@given(pos=st.integers(1, 2**40))
def test_flipped_bits_match_python_bin(pos):
    a, b = bin(pos - 1)[2:].zfill(64)[::-1], bin(pos)[2:].zfill(64)[::-1]
    expected = [k for k in range(64) if a[k] != b[k]]
    assert list(pl.flipped_bits(pos)) == expected


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
# Checks
# ---------------------------------------------------------------------------
def test_check_flipped_bits():
    assert pl.check_flipped_bits(8, [0, 1, 2, 3])
    assert pl.check_flipped_bits(8, {3, 2, 1, 0})
    assert pl.check_flipped_bits(6, [0, 1])  # 101 -> 110
    assert pl.check_flipped_bits(5, [0])  # 100 -> 101
    partial = pl.check_flipped_bits(8, 3)
    assert not partial and "进位" in partial.message
    assert not pl.check_flipped_bits(8, None)
    assert not pl.check_flipped_bits(8, "3")


def test_check_nearest_repeat():
    assert pl.check_nearest_repeat(710)
    assert pl.check_nearest_repeat(710.0)
    opposite = pl.check_nearest_repeat(355)
    assert not opposite and "正对面" in opposite.message
    assert not pl.check_nearest_repeat(None)
    assert not pl.check_nearest_repeat(5000)
    assert pl.check_nearest_repeat(1, d_model=64)


def test_check_split_column():
    # split = [sin of pairs 0..d/2-1, cos of pairs 0..d/2-1]; interleaved column of sin_i is 2i, cos_i is 2i+1
    d = 8
    expected = [2 * i for i in range(d // 2)] + [2 * i + 1 for i in range(d // 2)]
    for j in range(d):
        assert pl.check_split_column(j, d, expected[j])
        assert not pl.check_split_column(j, d, expected[j] + 1)
    assert not pl.check_split_column(5, 8, None)


def test_check_wavelength_for_the_exercises():
    assert pl.check_wavelength(1, 4, 2 * math.pi * 100)
    assert pl.check_wavelength(3, 8, 2 * math.pi * 1000)
    assert not pl.check_wavelength(3, 8, 2 * math.pi * 10000)


# ---------------------------------------------------------------------------
# The plot
# ---------------------------------------------------------------------------
def test_plot_binary_vs_sinusoid():
    from matplotlib.figure import Figure

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = pl.plot_binary_vs_sinusoid()
        assert isinstance(fig, Figure) and pixels(fig).std() > 0
        fig2 = Figure()
        ax = fig2.subplots()
        assert pl.plot_binary_vs_sinusoid(2, n_pos=16, ax=ax) is fig2
        pixels(fig2)
    with pytest.raises(ValueError, match="k"):
        pl.plot_binary_vs_sinusoid((0, 99))
    with pytest.raises(ValueError, match="n_pos"):
        pl.plot_binary_vs_sinusoid(n_pos=1)


def test_plot_binary_vs_sinusoid_without_cjk_font(without_cjk_font):
    without_cjk_font('''
figs = [pl.plot_binary_vs_sinusoid()]
''')
