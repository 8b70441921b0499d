"""No explorer's text is clipped or covered: every text a figure shows lies inside the figure,
a text placed in an axes' data coordinates never straddles that axes' visible frame (the frame
would be drawn through it), no two texts overlap, no line of a plot runs through a text inside
it, and a legend placed inside its plot stays inside it. The texts are those a full draw draws
and the animated ones an explorer blits over it (the texts that change with its controls).
Checked at the default state, across every control's range (each control alone, sampled), with
every control at its first and at its last value, and at a few random combinations of sampled
values.

The texts and their extents come from a draw that lays the figure out without rasterizing it
(``Figure.draw_without_rendering``): the same layout as a PNG, about 3-10x cheaper. (Saving a
PNG per value drew each figure twice and was most of the 74 s that t5_buckets took, on top of
every one of its 473 ``max_distance`` positions being checked.)
"""
import numpy as np
import matplotlib.text as mtext
import pytest

import posenc_lib as pl
from posenc.figures.text_pieces import NumberText
from posenc.ui.engine.spec import checkbox, choice_slider, dropdown, int_slider

TOLERANCE = 0.5   # px


def drawn_texts(fig) -> list:
    """The Text artists a full render of ``fig`` really draws (visible, non-empty, in view).

    Only ``fig``'s own texts count: the patch of ``Text.draw`` is process-wide, and an explorer
    made by an earlier test may still be drawing its frames on its fill thread meanwhile.
    """
    drawn = {}
    # a NumberText draws its digits without Text.draw: its own draw is recorded too
    patched = [(cls, cls.__dict__["draw"]) for cls in (mtext.Text, NumberText)]

    def recorder(original):
        def record(self, renderer):
            if self.get_figure(root=True) is fig and self.get_visible() and self.get_text().strip():
                drawn[id(self)] = self
            return original(self, renderer)
        return record

    for cls, original in patched:
        cls.draw = recorder(original)
    try:
        with pl.figure_style():
            fig.draw_without_rendering()
    finally:
        for cls, original in patched:
            cls.draw = original
    return list(drawn.values())


def shown_texts(fig) -> list:
    """Every visible, non-empty text of ``fig``: those a full draw draws (:func:`drawn_texts`,
    which also lays the figure out) and the animated ones an explorer blits (a plain draw skips
    animated artists)."""
    drawn = drawn_texts(fig)
    ids = {id(t) for t in drawn}
    return drawn + [t for t in fig.findobj(mtext.Text)
                    if t.get_animated() and t.get_visible() and t.get_text().strip() and id(t) not in ids]


def text_boxes(fig) -> list:
    """``(text, box on the canvas)`` of every shown text (:func:`shown_texts`) with a width."""
    texts = shown_texts(fig)
    renderer = fig.canvas.get_renderer()
    boxes = [(t, t.get_window_extent(renderer)) for t in texts]
    return [(t, box) for t, box in boxes if box.width > 0]


def clipped(fig, boxes=None) -> list[str]:
    """Texts past the figure's edge or across their plot's frame (``boxes``: :func:`text_boxes`
    of ``fig``, measured here if not given)."""
    problems = []
    figure_box = fig.bbox
    for t, box in text_boxes(fig) if boxes is None else boxes:
        if (box.x0 < figure_box.x0 - TOLERANCE or box.x1 > figure_box.x1 + TOLERANCE
                or box.y0 < figure_box.y0 - TOLERANCE or box.y1 > figure_box.y1 + TOLERANCE):
            problems.append(f"{t.get_text()!r} runs past the figure's edge")
        ax = t.axes
        if ax is None or not ax.axison or t.get_transform() != ax.transData:
            continue
        a = ax.bbox
        rows, cols = box.y1 > a.y0 and box.y0 < a.y1, box.x1 > a.x0 and box.x0 < a.x1
        straddles = ((ax.spines["left"].get_visible() and rows and box.x0 < a.x0 - TOLERANCE < box.x1)
                     or (ax.spines["right"].get_visible() and rows and box.x0 < a.x1 + TOLERANCE < box.x1)
                     or (ax.spines["bottom"].get_visible() and cols and box.y0 < a.y0 - TOLERANCE < box.y1)
                     or (ax.spines["top"].get_visible() and cols and box.y0 < a.y1 + TOLERANCE < box.y1))
        if straddles:
            problems.append(f"{t.get_text()!r} straddles its plot's frame")
    return problems


def boxes_overlap(a, b, margin: float = 0.0) -> bool:
    """Do boxes ``a`` and ``b`` overlap by more than ``margin`` px each way?"""
    return a.x0 < b.x1 - margin and b.x0 < a.x1 - margin and a.y0 < b.y1 - margin and b.y0 < a.y1 - margin


def overlapping(fig, boxes=None, margin: float = 1.0) -> list[str]:
    """Pairs of shown texts whose boxes overlap by more than ``margin`` px each way (``boxes``
    as for :func:`clipped`)."""
    boxes = [(t, b) for t, b in (text_boxes(fig) if boxes is None else boxes) if b.height > 0]
    return [f"{t.get_text()!r} overlaps {u.get_text()!r}"
            for k, (t, a) in enumerate(boxes) for u, b in boxes[k + 1:] if boxes_overlap(a, b, margin)]


def lines_through(fig, boxes=None) -> list[str]:
    """Texts placed inside a plot (not its title, axis or tick labels, nor a legend's) that one
    of the plot's lines or markers runs through: a vertex, or a drawn segment, more than 1 px
    inside the text's box. Guide lines drawn under everything (zorder below 1,
    e.g. 07's crosshair through the circle's centre) do not count, nor a line drawn under the
    text's own opaque box (higher zorder, and not a line an explorer blits over a static text).
    ``boxes`` as for :func:`clipped`."""
    from matplotlib.transforms import Bbox

    def covered(line, t) -> bool:
        patch = t.get_bbox_patch()
        return (patch is not None and patch.get_facecolor()[3] >= 0.8   # (the alpha is in the colour)
                and t.get_zorder() > line.get_zorder() and (t.get_animated() or not line.get_animated()))

    problems = []
    for t, box in text_boxes(fig) if boxes is None else boxes:
        ax = t.axes
        if ax is None or t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label):
            continue
        legend = ax.get_legend()
        if legend is not None and any(t is x for x in legend.get_texts()):
            continue
        if any(t is x for x in (*ax.xaxis.get_ticklabels(which="both"), *ax.yaxis.get_ticklabels(which="both"))):
            continue
        inner = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
        if inner.width <= 0:
            continue
        for line in ax.lines:
            if not line.get_visible() or line.get_zorder() < 1 or covered(line, t):
                continue
            path = line.get_transform().transform_path(line.get_path())
            xy = path.vertices[np.isfinite(path.vertices).all(axis=1)]
            drawn = line.get_linestyle() not in ("None", "", " ")
            if (inner.count_contains(xy) if len(xy) else 0) or (drawn and path.intersects_bbox(inner, filled=False)):
                problems.append(f"{line.get_label()!r} runs through {t.get_text()!r}")
    return problems


def legends_past_their_plot(fig) -> list[str]:
    """Legends placed inside their plot (a ``loc`` and no anchor of their own) whose box runs
    more than 1 px past the plot's frame: they cross its lines."""
    renderer = fig.canvas.get_renderer()
    problems = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible() or legend.get_bbox_to_anchor().bounds != ax.bbox.bounds:
            continue
        box, frame = legend.get_window_extent(renderer), ax.bbox
        if box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1:
            problems.append(f"the legend {[t.get_text() for t in legend.get_texts()]} runs past its plot's frame")
    return problems


#: A slider over more options than this is sampled like a numeric slider (the main sliders
#: are SelectionSliders over every value, for the frames: t5_buckets has 473).
MAX_OPTIONS = 12
POINTS = 5        # evenly spaced values per numeric control, ends included
COMBINATIONS = 4  # random combinations of sampled values per explorer (fixed random seed)


def sample(ex, name) -> list:
    """Values to check for control ``name``: every option of a dropdown or short selection
    slider, both states of a checkbox, POINTS evenly spaced values of a numeric slider
    (``Explorer.control_values``); a long numeric selection slider is sampled like a numeric
    slider, plus both sides of every change in the number of characters a value prints with
    (where a label grows: 99 -> 100, 0.5 -> -0.05)."""
    listed = hasattr(ex.controls[name], "options")
    return thinned(ex.control_values(name, POINTS, max_options=None), listed)


def thinned(values, listed: bool) -> list:
    """``values`` of a control (every one, for a widget that lists them), thinned as
    :func:`sample` says."""
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if not listed or len(values) <= MAX_OPTIONS or not numeric:
        return values
    keep = set(np.linspace(0, len(values) - 1, POINTS).round().astype(int).tolist())
    width = [len(f"{v:g}") for v in values]
    keep |= {k for j in range(1, len(values)) if width[j] != width[j - 1] for k in (j - 1, j)}
    return [values[j] for j in sorted(keep)]


def settings(ex) -> list[tuple[str, dict]]:
    """(where, {control: value}) to check, each applied on top of the previous: every control
    alone over its samples (then back to its start), all controls at their first sample, all at
    their last, and COMBINATIONS random combinations of samples."""
    samples = {name: sample(ex, name) for name in ex.controls}
    start = {name: c.value for name, c in ex.controls.items()}
    out = []
    for name, values in samples.items():
        out += [(f"{name}={v!r}", {name: v}) for v in values]
        out.append((f"{name} back to {start[name]!r}", {name: start[name]}))
    out.append(("every control at its first value", {n: v[0] for n, v in samples.items()}))
    out.append(("every control at its last value", {n: v[-1] for n, v in samples.items()}))
    rng = np.random.default_rng(0)
    for _ in range(COMBINATIONS):
        values = {n: v[rng.integers(len(v))] for n, v in samples.items()}
        out.append((", ".join(f"{n}={v!r}" for n, v in values.items()), values))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_no_explorer_text_is_clipped_or_covered(name):
    ex = pl.EXPLORERS[name]()
    found = {}
    for where, values in [("default", {}), *settings(ex)]:
        for cname, value in values.items():
            ex.controls[cname].value = value
        boxes = text_boxes(ex.figure)
        for p in (clipped(ex.figure, boxes) + overlapping(ex.figure, boxes) + lines_through(ex.figure, boxes)
                  + legends_past_their_plot(ex.figure)):
            found.setdefault(p, where)
    assert not found, "\n".join(f"{where}: {p}" for p, where in found.items())


def test_the_samples_cover_the_ends_and_where_labels_grow():
    """sample() keeps both ends of every control, every option of a short list, and both sides
    of a change in printed width (max_distance 99 -> 100) of a long selection slider."""
    def spread(control, listed=False):
        return thinned(control.spread(POINTS, control.default, listed=listed, max_options=None), listed)

    values = spread(int_slider("max_distance", 128, 40, 512), listed=True)   # a main slider: listed
    assert values[0] == 40 and values[-1] == 512 and {99, 100} <= set(values) and len(values) < 12
    assert spread(choice_slider("d_model", 2, (2, 4, 6, 8)), listed=True) == [2, 4, 6, 8]
    assert spread(dropdown("x", "pi", ("pi", "none"), option_labels=("插值", "无"))) == ["pi", "none"]
    assert spread(int_slider("n", 3, 1, 9)) == [1, 3, 5, 7, 9]
    assert spread(checkbox("c", True)) == [False, True]


#: Width of a notebook's output area in JupyterLab in the browser suite's 1400 x 1000 window
#: with the file browser open (measured there; tests/browser checks the real page).
NOTEBOOK_OUTPUT_PX = 968


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_explorer_figure_is_no_wider_than_a_notebook_output(name):
    fig = pl.EXPLORERS[name]().figure
    width = fig.get_figwidth() * fig.dpi
    assert width <= NOTEBOOK_OUTPUT_PX, f"{name}: {width:.0f} px wide, the output has {NOTEBOOK_OUTPUT_PX}"


def test_texts_another_figure_draws_meanwhile_are_not_counted():
    """CI once failed on heatmap with hand_calc's labels: a fill thread drew them mid-check."""
    import matplotlib.artist as martist
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    def small_figure(text):
        with pl.figure_style():
            fig = Figure(figsize=(3, 2), dpi=90)
            FigureCanvasAgg(fig)
            fig.text(0.1, 0.5, text)
        return fig

    checked, elsewhere = small_figure("checked"), small_figure("drawn elsewhere, far past 3 in")

    class DrawsTheOther(martist.Artist):
        def draw(self, renderer):
            elsewhere.draw_without_rendering()

    checked.add_artist(DrawsTheOther())
    assert [t.get_text() for t in drawn_texts(checked)] == ["checked"]


def test_the_check_finds_a_label_across_the_frame_and_past_the_edge():
    from matplotlib.figure import Figure

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    with pl.figure_style():
        fig = Figure(figsize=(3, 2), dpi=90)
        FigureCanvasAgg(fig)
        ax = fig.subplots()
    ax.set_xlim(0, 1)
    ax.text(0.9, 0.5, "bites (pos 2), a long label")   # starts inside, ends past the right spine
    ax.text(0.1, 0.5, "ok")
    fig.text(0.95, 0.95, "off the edge of the figure")
    problems = clipped(fig)
    assert any("straddles" in p for p in problems) and any("past the figure" in p for p in problems)
    assert not any("'ok'" in p for p in problems)


def test_the_check_finds_texts_over_each_other_and_counts_the_animated_ones():
    """Two captions side by side that run into each other (04's clock captions did at d_model =
    32) are found, an animated one too (an explorer's changing texts are animated; a plain
    draw skips them); texts apart are not, nor an animated text past the edge missed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with pl.figure_style():
        fig = Figure(figsize=(4, 2), dpi=90)
        FigureCanvasAgg(fig)
        fig.text(0.10, 0.5, "i = 5: k·w_i = 0.169")
        fig.text(0.30, 0.5, "i = 10: k·w_i = 0.00949", animated=True)
        fig.text(0.10, 0.1, "apart")
        fig.text(0.70, 0.1, "apart too")
        fig.text(0.98, 0.9, "animated, past the edge", animated=True)
    assert overlapping(fig) == ["'i = 5: k·w_i = 0.169' overlaps 'i = 10: k·w_i = 0.00949'"]
    assert any("'animated, past the edge' runs past" in p for p in clipped(fig))


def test_the_check_finds_a_line_through_a_text_unless_the_text_covers_it():
    """A line through a caption inside a plot is found (05's step line crossed ``ln 2``); a guide
    line under everything, a line under the caption's opaque box, and a line under a title
    are not; an animated line (blitted over the static caption) is, box or not."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from posenc.figures.style import CAPTION_BOX

    def caption_with(**line):
        with pl.figure_style():
            fig = Figure(figsize=(4, 3), dpi=90)
            FigureCanvasAgg(fig)
            ax = fig.subplots()
            ax.set_xlim(0, 10)
            ax.set_ylim(0, 10)
            ax.set_title("a title the line does not reach")
            boxed = line.pop("boxed", False)
            ax.text(5, 5, "ln 2", ha="center", va="center", **(dict(zorder=3, bbox=CAPTION_BOX) if boxed else {}))
            ax.plot([5, 5], [0, 10], label="step", **line)
        return lines_through(fig)

    assert caption_with() == ["'step' runs through 'ln 2'"]
    assert caption_with(zorder=0) == []                      # a guide line
    assert caption_with(boxed=True) == []                    # under the caption's box
    assert caption_with(boxed=True, animated=True) == ["'step' runs through 'ln 2'"]   # blitted over it
