"""No explorer's text is clipped: every text a figure draws lies inside the figure, and a text
placed in an axes' data coordinates never straddles that axes' visible frame (the frame would
be drawn through it). Checked at the default state and across every control's range."""
import io

import matplotlib.text as mtext
import pytest

import posenc_lib as pl
from posenc.figures.frames import control_values

TOLERANCE = 0.5   # px


def drawn_texts(fig) -> list:
    """The Text artists a full render of ``fig`` really draws (visible, non-empty, in view)."""
    drawn, original = [], mtext.Text.draw

    def record(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        return original(self, renderer)

    mtext.Text.draw = record
    try:
        with pl.figure_style():
            fig.savefig(io.BytesIO(), format="png", dpi="figure")
    finally:
        mtext.Text.draw = original
    return drawn


def clipped(fig) -> list[str]:
    problems = []
    texts = drawn_texts(fig)
    renderer = fig.canvas.get_renderer()
    figure_box = fig.bbox
    for t in texts:
        box = t.get_window_extent(renderer)
        if box.width == 0:
            continue
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


def sample(control):
    """Every option of a control with options, both states of a checkbox, 5 values of a slider."""
    return control_values(control, 5, max_options=None)


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_no_explorer_text_is_clipped(name):
    ex = pl.EXPLORERS[name]()
    found = {p: "default" for p in clipped(ex.figure)}
    for cname, control in ex.controls.items():
        start = control.value
        for value in sample(control):
            control.value = value
            for p in clipped(ex.figure):
                found.setdefault(p, f"{cname}={value!r}")
        control.value = start
    assert not found, "\n".join(f"{where}: {p}" for p, where in found.items())


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
