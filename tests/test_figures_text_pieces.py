"""posenc/figures/text_pieces.py: labels drawn in pieces (NumberText, TextRow, KeyLine).

Expected pixels come from matplotlib itself: the same string drawn as one plain ``Text`` at the
same place. The pieces are placed on whole pixels, so the check is the ink's bounding box
(within a pixel on each side) and how much ink there is, not pixel equality; a text that is
not numbers only is drawn by ``Text.draw`` itself and must give the very same pixels.
"""
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import posenc_lib as pl
from matplotlib.text import Text

from posenc.figures.text_pieces import NumberText, _Piece, key_line, number_text, text_row
from posenc.ui.engine.canvas import GlyphCache


def render(draw, cache: bool = False) -> np.ndarray:
    """Pixels (grey levels) of a small figure on which ``draw(ax)`` put its texts."""
    with pl.figure_style():
        fig = Figure(figsize=(4.0, 1.2), dpi=90)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        draw(ax)
        canvas = FigureCanvasAgg(fig)
        if cache:
            assert GlyphCache.install(canvas.get_renderer())
            canvas.draw()   # records the strings; the next draw replays them
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., :3].astype(int).sum(-1)


def ink_box(img: np.ndarray) -> tuple:
    ys, xs = np.nonzero(img < 3 * 255 - 60)
    return ys.min(), ys.max(), xs.min(), xs.max()


def assert_same_look(ours: np.ndarray, plain: np.ndarray) -> None:
    """The same ink box within 1 px on each side, and about as much ink."""
    assert np.abs(np.subtract(ink_box(ours), ink_box(plain))).max() <= 1, (ink_box(ours), ink_box(plain))
    ink = lambda img: (3 * 255 - img).sum()
    assert abs(ink(ours) - ink(plain)) <= 0.05 * ink(plain)


@pytest.mark.parametrize("s", ["0.0464", "1e+04", "[-0.76, 1.39]", "135"])
@pytest.mark.parametrize("ha, va", [("center", "top"), ("left", "baseline"), ("right", "center"), ("left", "bottom")])
def test_a_number_looks_as_the_same_string_drawn_as_one_text(s, ha, va):
    kw = dict(ha=ha, va=va, fontsize=9)
    ours = render(lambda ax: number_text(ax, 0.43, 0.52, s, **kw))
    plain = render(lambda ax: ax.text(0.43, 0.52, s, **kw))
    assert_same_look(ours, plain)


def test_a_number_is_drawn_from_single_characters_the_glyph_cache_replays():
    with pl.figure_style():
        fig = Figure(figsize=(3.0, 1.0), dpi=90)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()   # no tick labels: the only strings are the number's
        text = number_text(ax, 0.5, 0.5, "0.0464", ha="center")
        canvas = FigureCanvasAgg(fig)
        assert GlyphCache.install(canvas.get_renderer())
        canvas.draw()
        for value in ("6.4400", "-0.1357", "1e+04"):
            text.set_text(value)
            canvas.draw()
        strings = {key[0] for key in canvas.get_renderer()._posenc_glyph_cache.entries}
    assert {"0", ".", "4", "6"} <= strings and "0.0464" not in strings
    assert all(len(s) == 1 for s in strings), strings


def test_replayed_digits_give_the_pixels_of_a_normal_draw():
    draw = lambda ax: number_text(ax, 0.4, 0.5, "[-0.76, 1.39]", fontsize=9.5, color="C2")
    assert (render(draw, cache=True) == render(draw)).all()


@pytest.mark.parametrize("s", ["pos = 5", "猫 (pos 1)", "0.5\n0.25"])
def test_a_text_that_is_not_one_line_of_numbers_is_drawn_as_any_text(s):
    ours = render(lambda ax: number_text(ax, 0.1, 0.5, s, fontsize=9))
    plain = render(lambda ax: ax.text(0.1, 0.5, s, fontsize=9))
    assert (ours == plain).all()


@pytest.mark.parametrize("va", ["baseline", "top", "bottom", "center"])
@pytest.mark.parametrize("lines", [
    [("PE：seq_len=", "50", "，d_model=", "64", "，base=", "10000", "，交错 (interleaved)")],
    [("一维光栅顺序 (raster)，base = ", "100"), ("下方邻居 ▼ 分数 ", "0.4404", "，右方邻居 ▶ 分数 ", "0.9443")],
    [("q→κ",), ("+0.12", " rad")],
])
@pytest.mark.parametrize("ha", ["center", "left", "right"])
def test_a_row_of_pieces_looks_as_its_text_drawn_as_one(lines, va, ha):
    whole = "\n".join("".join(line) for line in lines)

    def ours(ax):
        row = text_row(ax, 0.5, 0.45, transform=ax.transAxes, ha=ha, va=va, fontsize=9)
        row.set_pieces(*lines)
        assert row.get_text() == whole

    plain = render(lambda ax: ax.text(0.5, 0.45, whole, transform=ax.transAxes, ha=ha, va=va, fontsize=9))
    assert_same_look(render(ours), plain)


ROWS = [
    [("PE：seq_len=", "50", "，d_model=", "64", "，base=", "10000", "，交错 (interleaved)")],
    [("一维光栅顺序 (raster)，base = ", "100"), ("下方邻居 ▼ 分数 ", "0.4404", "，右方邻居 ▶ 分数 ", "0.9443")],
    [("$w_i$ = ", "0.5", " rad"), ("L' = ", "4096", "：", "18", " 对出现没见过的角度")],
]


@pytest.mark.parametrize("lines", ROWS)
@pytest.mark.parametrize("ha, va", [("center", "baseline"), ("left", "top"), ("right", "center")])
def test_a_rows_words_give_the_pixels_text_draw_gives_them(lines, ha, va, monkeypatch):
    """A row draws its words as one string each from the pixel it placed them on: the very
    pixels matplotlib's Text.draw gives each piece there (math, "$w_i$", goes through Text.draw)."""
    def draw(ax):
        text_row(ax, 0.5, 0.45, transform=ax.transAxes, ha=ha, va=va, fontsize=9, color="C1").set_pieces(*lines)

    ours = render(draw)
    monkeypatch.setattr(_Piece, "draw", NumberText.draw)   # every word through Text.draw
    assert (ours == render(draw)).all()


def test_a_rows_words_skip_the_layout_of_a_text(monkeypatch):
    through = []
    plain_draw = Text.draw
    monkeypatch.setattr(Text, "draw", lambda self, renderer: through.append(self.get_text()) or plain_draw(self, renderer))
    render(lambda ax: text_row(ax, 0.5, 0.5, transform=ax.transAxes, fontsize=9).set_pieces(*ROWS[2]))
    # the one piece with math; the words and numbers are drawn straight (the axes' empty titles are texts too)
    assert [s for s in through if s] == ["$w_i$ = "]


def test_a_key_line_looks_as_one_label_with_one_box():
    box = dict(boxstyle="round,pad=0.15", facecolor="0.8", edgecolor="none")

    def ours(ax):
        key = ax.text(0.05, 0.7, "→ 猫 (pos 1)：", va="top", fontsize=9.5, color="C0", zorder=3.01)
        numbers = key_line(ax, key, fontsize=9.5, color="C0", zorder=3, bbox=box)
        numbers.set_text("[1.34, 1.04]")

    plain = render(lambda ax: ax.text(0.05, 0.7, "→ 猫 (pos 1)：[1.34, 1.04]", va="top", fontsize=9.5,
                                      color="C0", bbox=box))
    assert_same_look(render(ours), plain)   # the grey box is ink here: one box, the size of the whole line


@pytest.mark.parametrize("bbox", [dict(facecolor="0.8", edgecolor="none", pad=1.6),
                                  dict(boxstyle="round,pad=0.15", facecolor="0.8", edgecolor="none")])
def test_a_row_with_a_box_looks_as_one_text_with_its_box(bbox):
    pieces = ("|k| ≥ ", "64", "：全在最后一个桶（含 ≥ ", "128", " 的一切）")

    def ours(ax):
        text_row(ax, 0.05, 0.6, transform=ax.transAxes, va="top", fontsize=9, bbox=bbox).set_pieces(pieces)

    plain = render(lambda ax: ax.text(0.05, 0.6, "".join(pieces), transform=ax.transAxes, va="top", fontsize=9,
                                      bbox=bbox))
    assert_same_look(render(ours), plain)   # the grey box is ink: it must be the size of the whole text


def test_a_text_set_over_a_row_is_what_it_draws():
    """A plot_* function given the reader's axes leaves a TextRow as their title: the reader's
    own ax.set_title afterwards replaces it, as for any title."""
    def ours(ax):
        row = text_row(ax, 0.1, 0.5, transform=ax.transAxes, fontsize=9)
        row.set_pieces(("PE：seq_len=", "50"))
        row.set_text("自己的标题 42")      # what ax.set_title does to ax.title
        assert row.get_text() == "自己的标题 42"

    assert_same_look(render(ours), render(lambda ax: ax.text(0.1, 0.5, "自己的标题 42", transform=ax.transAxes,
                                                             fontsize=9)))
    with pl.figure_style():
        fig = pl.plot_pe_heatmap(seq_len=8, d_model=8)
        ax = fig.axes[0]
        ax.set_title("mine")
        assert ax.get_title() == "mine" and ax.title.get_text() == "mine"
