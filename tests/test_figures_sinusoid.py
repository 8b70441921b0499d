"""posenc/figures/sinusoid.py: the heatmap, the clocks and the binary counter, the sin/cos
curves and binary bits vs sinusoids. (Every plot's drawing contract: test_figures_style.py;
every explorer's: test_figures_explorer.py.)

Expected values come from tests/reference.py (the formula as plain loops) and Python's bit
operations.
"""
import io
import math
import warnings

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


# ---------------------------------------------------------------------------
# plot_pe_curves
# ---------------------------------------------------------------------------
def marker_lines(ax):
    """The dotted (marker-only) lines: one per column drawn, in order."""
    return [ln for ln in ax.get_lines() if ln.get_linestyle() == "None"]


@pytest.mark.parametrize("d_model,max_pos,base,pairs,expected_pairs", [
    (4, 10, 10000.0, None, [0, 1]),
    (2, 3, 10000.0, None, [0]),
    (16, 20, 10000.0, None, [0, 1, 7]),
    (8, 5, 100.0, 2, [2]),
])
def test_pe_curves_dots_are_the_formula(d_model, max_pos, base, pairs, expected_pairs):
    from matplotlib.figure import Figure

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = pl.plot_pe_curves(d_model, max_pos, base, pairs=pairs)
        assert isinstance(fig, Figure)
        fig.savefig(io.BytesIO(), format="png")
    lines = marker_lines(fig.axes[0])
    assert len(lines) == 2 * len(expected_pairs)
    for j, i in enumerate(expected_pairs):
        for k in (0, 1):                                # sin column 2i, cos column 2i + 1
            x, y = lines[2 * j + k].get_data()
            assert list(x) == list(range(max_pos + 1))
            expected = [ref.pe_row(p, d_model, base)[2 * i + k] for p in range(max_pos + 1)]
            np.testing.assert_allclose(y, expected, rtol=0, atol=1e-12)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert len(labels) == 2 * len(expected_pairs)


def test_pe_curves_second_pair_of_d4_barely_moves():
    """Curriculum: with d_model = 4, pair 1 turns 0.01 rad per position."""
    lines = marker_lines(pl.plot_pe_curves(4, 10).axes[0])
    _, cos1 = lines[3].get_data()
    assert cos1.min() > 0.995


@pytest.mark.parametrize("kwargs,exc", [
    (dict(d_model=5), ValueError), (dict(max_pos=0), ValueError), (dict(pairs=[2]), ValueError),
    (dict(pairs=[]), ValueError), (dict(base=1.0), ValueError), (dict(pairs=[0.5]), TypeError),
])
def test_pe_curves_refuses_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        pl.plot_pe_curves(**kwargs)


# ---------------------------------------------------------------------------
# plot_binary_vs_sinusoid
# ---------------------------------------------------------------------------
def test_plot_binary_vs_sinusoid_refuses_bad_arguments():
    with pytest.raises(ValueError, match="k"):
        pl.plot_binary_vs_sinusoid((0, 99))
    with pytest.raises(ValueError, match="n_pos"):
        pl.plot_binary_vs_sinusoid(n_pos=1)


# ---------------------------------------------------------------------------
# The heatmap and the clocks
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["interleaved", "split"])
def test_heatmap_explorer_shows_the_table(layout):
    ex = pl.HeatmapExplorer()
    ex.controls["layout"].value = layout
    ex.controls["seq_len"].value = 12
    ex.controls["d_model"].value = 6
    ex.controls["base"].value = 100.0
    table = ref.pe_table(12, 6, 100.0)
    if layout == "split":           # the sin columns of every pair, then the cos columns
        table = [row[0::2] + row[1::2] for row in table]
    np.testing.assert_allclose(np.asarray(ex.view.image.get_array()), table, rtol=0, atol=1e-12)
    name = {"interleaved": "交错 (interleaved)", "split": "前后分半 (split)"}[layout]
    assert ex.view.title.get_text() == f"PE：seq_len=12，d_model=6，base=100，{name}"


def test_plot_pe_heatmap_shows_the_table():
    fig = pl.plot_pe_heatmap(seq_len=7, d_model=4, base=10.0)
    np.testing.assert_allclose(np.asarray(fig.axes[0].images[0].get_array()), ref.pe_table(7, 4, 10.0),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("pos", [0, 1, 5, 200])
def test_clock_hands_point_at_the_pair_and_bits_count_pos(pos):
    ex = pl.ClockExplorer(d_model=8)
    ex.controls["pos"].value = pos
    v = ex.view
    row = ref.pe_row(pos, 8)
    for j in range(4):                  # d_model = 8: four pairs, four clocks
        cx, cy = v.centers[j]
        (tx,), (ty,) = v.tips[j].get_data()
        assert math.isclose(tx, cx + 0.9 * row[2 * j], abs_tol=1e-12)       # tip = (PE[2i], PE[2i+1])
        assert math.isclose(ty, cy + 0.9 * row[2 * j + 1], abs_tol=1e-12)
    assert [t.get_text() for t in v.bit_text] == [str((pos >> k) & 1) for k in range(8)]
    assert v.pos_text.get_text() == f"pos = {pos}"
