"""Every text a figure draws is legible, and the labels named in the learners' review are not
covered by data or by another label.

Size: a text's height in pixels is its font size in points × dpi / 72, at the course's
resolution (the explorers' 90 dpi, ``FIGURE_DPI``; the ``plot_*`` figures are shown at 100 dpi,
so checking them at 90 is the stricter reading). The rule: at least :data:`MIN_PX` = 11 px.
The texts are those a full draw really draws and the animated ones an explorer blits
(``shown_texts``): titles, labels, tick labels, legends, annotations, captions.

Overlap: the label's box on the canvas (its window extent) against the other labels' boxes and
against the points a line draws (its data, transformed to the canvas).
"""
import math
import re

import numpy as np
import pytest

import posenc_lib as pl
from posenc.ui.engine.canvas import FIGURE_DPI
from support import PLOT_CASES, default_explorer, plot_call, plot_case_id
from test_figures_layout import boxes_overlap, shown_texts

#: The smallest text the course draws, in pixels at FIGURE_DPI.
MIN_PX = 11.0


def text_px(text) -> float:
    """Height of a text's font in pixels at the course's resolution."""
    return text.get_fontsize() * FIGURE_DPI / 72


def too_small(fig) -> list[str]:
    return sorted({f"{t.get_text()!r}: {text_px(t):.1f} px" for t in shown_texts(fig) if text_px(t) < MIN_PX - 1e-9})


def test_the_size_rule_reads_points_at_90_dpi():
    """8.8 pt is 11 px at 90 dpi (the rule's edge); matplotlib's former 7 pt legends are 8.75 px."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with pl.figure_style():
        fig = Figure(figsize=(3, 2), dpi=90)
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        ax.plot([0, 1], [0, 1], label="line")
        ax.legend(fontsize=7)
        ax.text(0.5, 0.5, "ok", fontsize=8.8)
        moving = ax.text(0.2, 0.2, "moving", fontsize=8, animated=True)   # an explorer's blitted label
    found = too_small(fig)
    assert any("'line'" in p and "8.8 px" in p for p in found), found     # 7 pt * 90 / 72 = 8.75
    assert any("'moving'" in p for p in found) and not any("'ok'" in p for p in found)
    assert moving in shown_texts(fig)


def _ends(ex):
    """Each control at its first and at its last sampled value, then back to where it was."""
    from test_figures_layout import sample

    for name, control in ex.controls.items():
        start = control.value
        values = sample(ex, name)
        for v in (values[0], values[-1]):
            control.value = v
            yield f"{name}={v!r}"
        control.value = start


@pytest.mark.slow  # a sweep over every control's ends (the README's rule for slow)
@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_every_explorer_text_is_at_least_11_px(name):
    ex = pl.EXPLORERS[name]()
    found = {p: "default" for p in too_small(ex.figure)}
    for where in _ends(ex):
        for p in too_small(ex.figure):
            found.setdefault(p, where)
    assert not found, "\n".join(f"{name} at {where}: {p}" for p, where in found.items())


@pytest.mark.slow  # a sweep over every plot and its samples (the README's rule for slow)
@pytest.mark.parametrize("case", PLOT_CASES, ids=plot_case_id)
def test_every_plot_text_is_at_least_11_px_inside_and_uncovered(case):
    """Each plot's texts: at least 11 px, inside the figure and off their plot's frame, none
    over another and no line through one, and legends inside their plots (test_figures_layout's
    checks, run here on the plots this test draws anyway)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from test_figures_layout import clipped, legends_past_their_plot, lines_through, overlapping, text_boxes

    fig = eval(plot_call(*case), {"pl": pl})
    if not hasattr(fig.canvas, "get_renderer"):   # a plot made outside pyplot has a bare canvas
        FigureCanvasAgg(fig)
    boxes = text_boxes(fig)
    found = (too_small(fig) + clipped(fig, boxes) + overlapping(fig, boxes) + lines_through(fig, boxes)
             + legends_past_their_plot(fig))
    assert not found, "\n".join(found)


# ---------------------------------------------------------------------------------------------
# Overlap of the named labels
# ---------------------------------------------------------------------------------------------
def _box(artist, fig):
    return artist.get_window_extent(fig.canvas.get_renderer())


def _points_inside(box, line, margin: float = 1.0, dense: int = 0) -> int:
    """How many points of ``line`` (its vertices, plus ``dense`` points per segment) lie inside
    ``box`` shrunk by ``margin`` px."""
    xy = np.column_stack(line.get_data()).astype(float)
    if len(xy) == 0 or not line.get_visible():
        return 0
    if dense and len(xy) > 1:
        t = np.linspace(0, 1, dense + 2)[:, None, None]
        xy = (xy[:-1][None] * (1 - t) + xy[1:][None] * t).reshape(-1, 2)
    p = line.get_transform().transform(xy)
    inside = ((p[:, 0] > box.x0 + margin) & (p[:, 0] < box.x1 - margin)
              & (p[:, 1] > box.y0 + margin) & (p[:, 1] < box.y1 - margin))
    return int(inside.sum())


def _drawn(fig):
    from test_figures_layout import drawn_texts

    drawn_texts(fig)      # lays the figure out with the current texts


def _circle_points_inside(box, ax, radius=1.0, n=720) -> int:
    a = np.linspace(0, 2 * math.pi, n)
    p = ax.transData.transform(np.column_stack([radius * np.cos(a), radius * np.sin(a)]))
    return int(((p[:, 0] > box.x0 + 1) & (p[:, 0] < box.x1 - 1) & (p[:, 1] > box.y0 + 1) & (p[:, 1] < box.y1 - 1)).sum())


@pytest.mark.slow           # every query position of four pairs, at two bases: the full sweep where the overlap was found
@pytest.mark.parametrize("base", [10000.0, 10.0])
def test_rope_q_and_kappa_labels_clear_the_circle_the_arrows_and_each_other(base):
    """07: q_m and κ_n sit outside the unit circle, off the arrows and the angle readout, and
    apart from each other, for every query position and a spread of pairs."""
    ex = pl.EXPLORERS["rope"]()
    ex.controls["base"].value = base
    view, fig = ex.view, ex.figure
    problems = []
    for i in (0, 1, 3, 7):
        ex.controls["i"].value = i
        for pos in range(ex.controls["pos"].min, ex.controls["pos"].max + 1):
            ex.controls["pos"].value = pos
            _drawn(fig)
            q, k, angle = (_box(t, fig) for t in (view.q_text, view.k_text, view.angle_text))
            where = f"i={i}, pos={pos}"
            if boxes_overlap(q, k):
                problems.append(f"{where}: q and κ labels overlap")
            for name, b in (("q", q), ("κ", k)):
                if _circle_points_inside(b, view.ax_pair):
                    problems.append(f"{where}: the circle runs through the {name} label")
                if boxes_overlap(b, angle):
                    problems.append(f"{where}: the {name} label covers the angle readout")
                if _points_inside(b, view.arc) or _points_inside(b, view.ghost, dense=20):
                    problems.append(f"{where}: a line runs through the {name} label")
                # the arrows end at radius 0.95 (plus the head): the label starts outside 1.0
                u = np.array(b.corners())
                r = np.hypot(*view.ax_pair.transData.inverted().transform(u).T)
                if r.min() < 1.0:
                    problems.append(f"{where}: the {name} label reaches inside the circle")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.slow           # every model and context length: the full sweep where the overlap was found
def test_real_models_length_labels_clear_the_dots_the_lines_and_each_other():
    """10: 上下文 and 训练长度 are not under the dots or the orange line, nor over each other, for
    every model and context length; without rope_scaling no orange line covers the dots."""
    from posenc.figures.real_models import SEQ_LENS

    ex = pl.EXPLORERS["real_models"]()
    view, fig = ex.view, ex.figure
    problems = []
    for model in ex.controls["model"].options:
        model = model[1] if isinstance(model, tuple) else model
        ex.controls["model"].value = model
        for seq_len in SEQ_LENS:
            ex.controls["seq_len"].value = seq_len
            _drawn(fig)
            train, ctx = _box(view.train_text, fig), _box(view.len_text, fig)
            where = f"{model}, seq_len={seq_len}"
            if boxes_overlap(train, ctx):
                problems.append(f"{where}: the two length labels overlap")
            for name, b in (("训练长度", train), ("上下文", ctx)):
                for line in (view.turned, view.unturned):
                    if _points_inside(b, line, margin=-3):       # a dot's radius around its centre
                        problems.append(f"{where}: dots under the {name} label")
                if _points_inside(b, view.scaled, dense=10):
                    problems.append(f"{where}: the scaled line runs through the {name} label")
            legend = _box(view.ax_wave.get_legend(), fig)
            for line in (view.turned, view.unturned, view.scaled):
                if _points_inside(legend, line, margin=-3, dense=10 if line is view.scaled else 0):
                    problems.append(f"{where}: the legend covers {line.get_label()}")
            if boxes_overlap(legend, train) or boxes_overlap(legend, ctx):
                problems.append(f"{where}: the legend covers a length label")
            if np.size(view.scaled.get_xdata()):
                wave = np.concatenate([view.turned.get_ydata(), view.unturned.get_ydata()])
                assert not np.allclose(np.sort(view.scaled.get_ydata()), np.sort(wave)), \
                    f"{where}: the orange line redraws the dots"
    assert not problems, "\n".join(problems[:20])


def test_real_models_without_scaling_show_every_dot():
    """10: a model without rope_scaling draws no scaled line (it would lie on the dots)."""
    from posenc.real_models import MODEL_CONFIGS

    ex = pl.EXPLORERS["real_models"]()
    unscaled = [m for m, cfg in MODEL_CONFIGS.items() if not cfg.get("rope_scaling")]
    assert unscaled, "no model without rope_scaling to check"
    for model in unscaled:
        ex.controls["model"].value = model
        assert np.size(ex.view.scaled.get_xdata()) == 0, model
        assert ex.view.turned.get_zorder() > ex.view.scaled.get_zorder()


def test_probe_legend_is_beside_the_panel():
    """12: the probe legend lies outside the order panel, so no line runs under it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = pl.plot_layer_probes({"a": pl.LayerProbes([1.0, 0.8, 0.5], [1.0, 0.9, 0.7]),
                                "b": pl.LayerProbes([0.0, 0.3, 0.4], [0.5, 0.6, 0.7])})
    FigureCanvasAgg(fig)
    _drawn(fig)
    ax_ord = fig.axes[1]
    legend = _box(ax_ord.get_legend(), fig)
    for ax in fig.axes:
        assert not boxes_overlap(legend, ax.get_window_extent()), "the legend lies over a panel"


def test_score_terms_legends_do_not_overlap():
    ex = pl.EXPLORERS["score_terms"]()
    _drawn(ex.figure)
    legends = [_box(ax.get_legend(), ex.figure) for ax in ex.figure.axes if ax.get_legend()]
    assert len(legends) == 2 and not boxes_overlap(*legends)


@pytest.mark.parametrize("grid", [8, 10])
def test_rope_2d_neighbour_marks_are_where_their_names_say(grid):
    """The vertical neighbour's mark is below the query (▼), or above it on the last row (▲);
    the horizontal one right of it (▶), or left of it on the last column (◀)."""
    ex = pl.EXPLORERS["rope_2d"]()
    ex.controls["grid"].value = grid
    view = ex.view
    for row, col in [(0, 0), (grid - 1, grid - 1), (grid - 1, 0), (0, grid - 1), (grid // 2, grid // 2)]:
        ex.controls["query_row"].value = row
        ex.controls["query_col"].value = col
        (qx,), (qy,) = view.query.get_data()
        (bx,), (by,) = view.below.get_data()
        (rx,), (ry,) = view.right.get_data()
        title = view.title.get_text()
        # y grows downwards on the grid (row 0 on top)
        if row == grid - 1:
            assert by < qy and view.below.get_marker() == "^" and "▲" in title and "▼" not in title
        else:
            assert by > qy and view.below.get_marker() == "v" and "▼" in title
        if col == grid - 1:
            assert rx < qx and view.right.get_marker() == "<" and "◀" in title and "▶" not in title
        else:
            assert rx > qx and view.right.get_marker() == ">" and "▶" in title
        assert bx == qx and ry == qy


def test_context_title_says_the_rho_it_draws():
    """09: without scaling the slowdown is 1 for every pair, and the title says ρ = 1."""
    ex = pl.EXPLORERS["context"]()
    rope_type = ex.controls["rope_type"]
    none = next(o[1] if isinstance(o, tuple) else o for o in rope_type.options
                if (o[1] if isinstance(o, tuple) else o) == "default")
    rope_type.value = none
    ex.controls["factor"].value = ex.controls["factor"].options[-1]
    slow = ex.view.slow.get_ydata()
    assert np.allclose(slow, 1.0)
    assert "ρ = 1" in ex.view.title_slow.get_text() or "ρ = 1：" in ex.view.title_slow.get_text()


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_slider_readouts_write_the_browsers_minus_sign(name):
    """A slider turned into a SelectionSlider for its frames (04's k) labels its values
    itself: negative ones get U+2212 "−", the minus ipywidgets' own readouts draw (d3-format),
    so it reads like the sliders beside it."""
    import re

    import ipywidgets as w

    ex = default_explorer(name)
    for cname, c in ex.controls.items():
        if isinstance(c, w.SelectionSlider):
            labels = [o[0] for o in c.options if isinstance(o, tuple)]
            assert not [s for s in labels if re.search(r"-\d", s)], f"{name}.{cname}: {labels[:5]}"
    if name == "relative":
        assert "−3" in [o[0] for o in ex.controls["k"].options]


@pytest.mark.slow           # every d_model at the ends of k: the sweep where the overlap was found
def test_relative_captions_clear_each_other_and_the_legend():
    """04: the captions under the clocks (k·w_i of each pair shown) neither overlap one another
    nor the legend, for every d_model and k at its ends and at 3; each reads the pair's turn
    k·w_i with w_i = base^(-2i/d_model), written here from the definition."""
    ex = pl.EXPLORERS["relative"]()
    view, fig = ex.view, ex.figure
    subscript = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
    problems = []
    ks = [v for _, v in ex.controls["k"].options]
    for d_model in ex.controls["d_model"].options:
        ex.controls["d_model"].value = d_model
        for k in (ks[0], 3, ks[-1]):
            ex.controls["k"].value = k
            _drawn(fig)
            shown = [c for c in view.captions if c.get_visible() and c.get_text()]
            boxes = [_box(c, fig) for c in shown]
            legend = _box(view.ax_c.get_legend(), fig)
            where = f"d_model={d_model}, k={k}"
            for a in range(len(boxes)):
                if boxes_overlap(boxes[a], legend):
                    problems.append(f"{where}: caption {shown[a].get_text()!r} covers the legend")
                for b in range(a + 1, len(boxes)):
                    if boxes_overlap(boxes[a], boxes[b]):
                        problems.append(f"{where}: {shown[a].get_text()!r} overlaps {shown[b].get_text()!r}")
            for c in shown:
                read = re.fullmatch(r"k·w(\d+) = (\S+)", c.get_text().translate(subscript))
                if read is None:
                    problems.append(f"{where}: {c.get_text()!r} does not read k·w_i = its value")
                    continue
                i, turn = read.groups()
                expected = k * 10000.0 ** (-2 * int(i) / d_model)
                if not math.isclose(float(turn), expected, rel_tol=5e-3):
                    problems.append(f"{where}: {c.get_text()!r}, expected k·w_{i} = {expected:.4g}")
    assert not problems, "\n".join(problems[:20])
