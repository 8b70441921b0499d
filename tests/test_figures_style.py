"""posenc/figures/style.py: CJK fonts with English fallbacks, and the promise every ``plot_*``
keeps through it (``figure_style`` + ``_new_axes``).

The plot contract is checked for every public ``plot_*``, found by introspection of
``posenc_lib.__all__``: each, called with every sample in PLOT_SAMPLES,
(a) returns a Figure that draws something with no warning at all (no "Glyph missing");
(b) draws into an axes the caller made with ``Figure().subplots()`` (no pyplot), returns the
    caller's figure, and keeps to that axes' grid cell (multi-panel plots split it);
(c) draws with no CJK character on a machine without a CJK font (English glosses, no tofu).
A new ``plot_*`` without an entry in PLOT_SAMPLES fails here.
"""
import os
import warnings

import pytest

import posenc_lib as pl
from posenc.figures.style import _CJK_FILES
from support import EXTRAPOLATION_ROWS, assert_draws_cleanly

#: Samples of each public plot_*: its arguments as Python source (``pl`` in scope), evaluated
#: here and in a fresh interpreter with no CJK font. Plots that need a TrainResult use the
#: memoised ``pl.trained_run`` or a 10-step run.
PLOT_SAMPLES = {
    # figures/sinusoid.py
    "plot_pe_heatmap": [""],
    "plot_clock": ["", "5", "3"],
    "plot_wavelengths": ["", "64, bases=(100.0, 10000.0)"],
    "plot_pe_curves": ["", "16, 12"],
    "plot_binary_vs_sinusoid": ["", "2, n_pos=16"],
    # figures/hand_calculation.py
    "plot_hand_calculation": [""],
    # figures/permutation.py
    "plot_attention": ["", "'猫咬狗'", "'狗咬猫', use_pe=True, reference='猫咬狗'"],
    # figures/relative.py
    "plot_dot_product": [""],
    "plot_shift_regression": ["k=1"],
    "plot_cosine_histograms": [""],
    "plot_relative_rotation": ["5, -3, 16"],
    "plot_similarity": ["64, projection=True"],
    # figures/learned.py
    "plot_loss_curves": [
        "{pe: pl.trained_run(pe) for pe in ('none', 'sinusoidal', 'learned')}",
        "{'learned': [2.0, 1.0, 0.5]}",
        "{'none': [2.0, 0.7]}",
        "{'none': [2.0, 0.7], 'learned': [2.0, 0.1]}",
    ],
    "plot_learned_similarity": ["", "step=0",
                                "run=pl.train_order_model('learned', steps=10, snapshot_every=5)"],
    "plot_length_accuracy": [
        "{'none': {4: 0.5, 9: 0.5}, 'learned': {4: 1.0, 9: None}, 'learned (16)': {4: 1.0, 9: 0.7}}",
        "{'sinusoidal': {4: 1.0, 5: 0.9}}",
        "{'learned': {4: 1.0, 9: None}}",
    ],
    # figures/rope.py
    "plot_rope": ["", "pos=16, n=20, i=3, base=100.0"],
    # figures/alibi.py
    "plot_alibi_bias": ["", "seq_len=30, num_heads=4, heads=2, causal=True", "causal=True"],
    "plot_alibi_attention": ["", "seq_len=20, num_heads=4, causal=True, query=19"],
    # figures/extrapolation.py
    "plot_extrapolation": [
        repr(EXTRAPOLATION_ROWS),
        repr([{"label": "rope", "pe": "rope", "in_distribution": 1.0, "by_length": {9: 1.0}, "error": None}]),
    ],
    "plot_accuracy_by_start": ["{'rope': {0: 1.0, 1: 0.9}, 'alibi': {0: 0.6, 1: 1.0}}, 8",
                               "{'rope': {0: 1.0}}, 8"],
}

PLOTS = sorted(name for name in pl.__all__ if name.startswith("plot_"))
CASES = [(name, i) for name in PLOTS for i in range(len(PLOT_SAMPLES.get(name, [None])))]


def call_source(name: str, i: int, ax: str = "") -> str:
    args = PLOT_SAMPLES[name][i]
    return f"pl.{name}({', '.join(a for a in (args, ax) if a)})"


def case_id(case) -> str:
    name, i = case
    return f"{name}-{i}"


def test_plot_samples_name_only_public_plots():
    assert PLOTS, "no plot_* found in posenc_lib.__all__"
    assert sorted(PLOT_SAMPLES) == PLOTS, "PLOT_SAMPLES lists a name that is not a public plot_*"
    assert all(PLOT_SAMPLES[name] for name in PLOTS), "every plot needs at least one sample"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_plot_returns_a_figure_that_draws_without_warnings(case):
    name, i = case
    assert name in PLOT_SAMPLES, f"{name} has no sample arguments: add it to PLOT_SAMPLES"
    assert_draws_cleanly(lambda: eval(call_source(name, i), {"pl": pl}))


@pytest.mark.parametrize("case", CASES, ids=case_id)
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
        assert eval(call_source(name, i, ax="ax=right"), {"pl": pl, "right": right}) is fig
        fig.savefig(io.BytesIO(), format="rgba")
    assert left in fig.axes and left.get_position().bounds == left_box
    drawn = [a for a in fig.axes if a is not left]
    assert drawn, "the plot drew no axes"
    for a in drawn:
        box = a.get_position()
        assert (cell.x0 - 1e-9 <= box.x0 and box.x1 <= cell.x1 + 1e-9
                and cell.y0 - 1e-9 <= box.y0 and box.y1 <= cell.y1 + 1e-9), \
            f"{name}: an axes at {box.bounds} leaves the caller's grid cell {cell.bounds}"


@pytest.fixture(scope="module", autouse=True)
def no_cjk_drawing(without_cjk_font_each):
    """Every sample drawn once in one fresh interpreter that sees no CJK font, started when
    this module starts so that it runs beside the other tests."""
    wait = without_cjk_font_each({case_id(c): call_source(*c) for c in CASES if c[0] in PLOT_SAMPLES})
    yield wait
    if wait.process.poll() is None:     # no test asked for the verdicts (e.g. deselected)
        wait.process.kill()
        wait.process.wait()


@pytest.fixture
def no_cjk_verdicts(no_cjk_drawing):
    return no_cjk_drawing()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_plot_without_cjk_font_draws_no_tofu(case, no_cjk_verdicts):
    name, _ = case
    assert name in PLOT_SAMPLES, f"{name} has no sample arguments: add it to PLOT_SAMPLES"
    assert no_cjk_verdicts[case_id(case)] == "ok"


def test_plots_never_import_pyplot(no_cjk_verdicts):
    assert no_cjk_verdicts["matplotlib.pyplot imported"] is False


def test_cjk_font_found_when_installed():
    if not any(os.path.exists(p) for p in _CJK_FILES):
        pytest.skip("no CJK font on this machine (apt-get install fonts-noto-cjk)")
    assert pl.cjk_font() is not None
