"""posenc/ui/look.py and posenc/figures/style.py: CJK fonts with English fallbacks, and the promise every ``plot_*``
keeps through it (``figure_style`` + ``new_axes``).

The plot contract is checked for every public ``plot_*``, found by introspection of
``posenc_lib.__all__``: each, called with every sample in ``support.PLOT_SAMPLES``,
(a) returns a Figure that draws something with no warning at all (no "Glyph missing");
(b) draws into an axes the caller made with ``Figure().subplots()`` (no pyplot), returns the
    caller's figure, and keeps to that axes' grid cell (multi-panel plots split it);
(c) draws with no CJK character on a machine without a CJK font (English glosses, no tofu;
    drawn in one fresh interpreter, see conftest ``no_cjk_verdicts``).
A new ``plot_*`` without an entry in PLOT_SAMPLES fails here.
"""
import os
import warnings

import pytest

import posenc_lib as pl
from posenc.ui.look import CJK_FILES
from support import PLOT_CASES, PLOT_SAMPLES, PLOTS, assert_draws_cleanly, plot_call, plot_case_id


def test_plot_samples_name_only_public_plots():
    assert PLOTS, "no plot_* found in posenc_lib.__all__"
    assert sorted(PLOT_SAMPLES) == PLOTS, "PLOT_SAMPLES lists a name that is not a public plot_*"
    assert all(PLOT_SAMPLES[name] for name in PLOTS), "every plot needs at least one sample"


@pytest.mark.slow
@pytest.mark.parametrize("case", PLOT_CASES, ids=plot_case_id)
def test_plot_returns_a_figure_that_draws_without_warnings(case):
    name, i = case
    assert name in PLOT_SAMPLES, f"{name} has no sample arguments: add it to PLOT_SAMPLES"
    assert_draws_cleanly(lambda: eval(plot_call(name, i), {"pl": pl}))


@pytest.mark.slow
@pytest.mark.parametrize("case", PLOT_CASES, ids=plot_case_id)
def test_plot_draws_into_the_callers_axes_and_keeps_to_its_grid_cell(case):
    """Axes the caller made outside figure_style(), with no pyplot, in a grid of two: the plot
    draws Chinese without missing glyphs, returns the caller's figure and leaves the
    neighbouring axes where they were."""
    import io

    from matplotlib.figure import Figure

    name, i = case
    assert name in PLOT_SAMPLES, f"{name} has no sample arguments: add it to PLOT_SAMPLES"
    fig = Figure(figsize=(12.8, 4.8), dpi=50)            # small: drawing, not resolution, is tested
    left, right = fig.subplots(1, 2)
    cell = right.get_subplotspec().get_position(fig)
    left_box = left.get_position().bounds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert eval(plot_call(name, i, ax="ax=right"), {"pl": pl, "right": right}) is fig
        fig.savefig(io.BytesIO(), format="rgba")
    assert left in fig.axes and left.get_position().bounds == left_box
    drawn = [a for a in fig.axes if a is not left]
    assert drawn, "the plot drew no axes"
    for a in drawn:
        box = a.get_position()
        assert (cell.x0 - 1e-9 <= box.x0 and box.x1 <= cell.x1 + 1e-9
                and cell.y0 - 1e-9 <= box.y0 and box.y1 <= cell.y1 + 1e-9), \
            f"{name}: an axes at {box.bounds} leaves the caller's grid cell {cell.bounds}"


@pytest.mark.slow
@pytest.mark.parametrize("case", PLOT_CASES, ids=plot_case_id)
def test_plot_without_cjk_font_draws_no_tofu(case, no_cjk_verdicts):
    name, _ = case
    assert name in PLOT_SAMPLES, f"{name} has no sample arguments: add it to PLOT_SAMPLES"
    assert no_cjk_verdicts[plot_case_id(case)] == "ok"


@pytest.mark.slow
def test_drawing_every_plot_and_explorer_never_imports_pyplot(no_cjk_verdicts):
    assert no_cjk_verdicts["matplotlib.pyplot imported"] is False


def test_cjk_font_found_when_installed():
    if not any(os.path.exists(p) for p in CJK_FILES):
        pytest.skip("no CJK font on this machine (apt-get install fonts-noto-cjk)")
    assert pl.cjk_font() is not None


def test_figure_style_leaves_every_setting_as_matplotlib_s_rc_context_would():
    """The same block run in figure_style() and in matplotlib.rc_context with the same settings
    (the reference): the same settings inside, and after it, also after a setting changed inside
    and after an exception; the backend, which rc_context keeps as the block left it, too."""
    import matplotlib

    rc = matplotlib.rcParams

    def run(context):
        seen = {}
        backend = rc["backend"]
        try:
            with pytest.raises(KeyError), context():
                seen["inside"] = dict(dict.items(rc))
                rc["lines.linewidth"] = 7.5
                rc["backend"] = "svg"
                raise KeyError("out of the block")
            seen["after"] = dict(dict.items(rc))
        finally:
            dict.update(rc, {"backend": backend})
        return seen

    with pl.figure_style():
        style = {k: rc[k] for k in ("font.family", "font.size", "axes.titlesize", "axes.unicode_minus",
                                    "figure.dpi", "savefig.dpi")}
    size, width = rc["font.size"], rc["lines.linewidth"]
    rc["font.size"] = 13.0
    try:
        ours = run(pl.figure_style)
        reference = run(lambda: matplotlib.rc_context(style))
    finally:
        rc["font.size"] = size
    assert ours["inside"]["font.size"] == 9 and ours["after"]["font.size"] == 13.0
    assert ours["after"]["lines.linewidth"] == width != 7.5
    assert ours["after"]["backend"] == "svg"
    assert ours == reference
