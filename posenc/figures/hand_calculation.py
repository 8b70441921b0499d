"""The 猫咬狗 hand calculation as a picture: word vector + PE = input, as arrows in a pair's
plane, with the table beside the sliders.
"""
from __future__ import annotations

import numpy as np

from ..hand_calculation import HandCalculation, hand_calculation
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, base_slider, choice_slider, float_slider, step
from ..validate import bilingual
from .style import CAPTION_BOX, new_axes, figure_style, label, token_label


class _HandCalcView:
    """Arrows in one pair's plane: word vector, + PE, = input, per token."""

    LIM = 2.3

    def __init__(self, ax, pair_name):
        from matplotlib.patches import Circle

        from .text_pieces import key_line

        self.ax = ax
        ax.set_xlim(-self.LIM, self.LIM)
        ax.set_ylim(-self.LIM, self.LIM)
        ax.set_aspect("equal")
        ax.grid(True, lw=0.4, alpha=0.5)
        ax.axhline(0, color="0.5", lw=0.6)
        ax.axvline(0, color="0.5", lw=0.6)
        ax.add_patch(Circle((0, 0), 1.0, fill=False, ls=":", color="0.6"))
        self.pair_name = pair_name
        kw = dict(angles="xy", scale_units="xy", scale=1, width=0.012)
        z = np.zeros(3)
        self.word = ax.quiver(z, z, z, z, color="0.55", **kw)
        self.pe = ax.quiver(z, z, z, z, color=["C0", "C1", "C2"], **kw)
        # One key line per token, in its arrow's colour, in the upper-left corner: labels at the
        # arrow tips ran past the frame whenever a tip came near an edge.
        # Each line is two texts: the key (token and position, a string that recurs, so the
        # canvas replays its glyphs) and the numbers after it (new on every move, digits only:
        # cheap to lay out). The numbers' text draws one box behind both (KeyLine).
        self.keys, self.numbers = [], []
        for n in range(3):
            key = ax.text(0.03, 0.97 - 0.085 * n, "", transform=ax.transAxes, fontsize=9.5, ha="left",
                          va="top", color=f"C{n}", zorder=3.01)   # over the box the numbers draw
            self.keys.append(key)
            self.numbers.append(key_line(ax, key, fontsize=9.5, color=f"C{n}", zorder=3,
                                         bbox=CAPTION_BOX))
        self.title = ax.set_title(" ")

    @property
    def labels(self) -> list:
        """The key lines' texts: the numbers (each with the line's box) first, then the keys."""
        return [*self.numbers, *self.keys]

    def lines(self) -> list[str]:
        """Each key line as the reader reads it (key and numbers)."""
        return [k.get_text() + n.get_text() for k, n in zip(self.keys, self.numbers)]

    def artists(self):
        return [self.word, self.pe, *self.labels, self.title]

    def update(self, calc: HandCalculation, i: int, pair_name: str | None = None):
        cols = [2 * i, 2 * i + 1]
        w, p, o = calc.word_vectors[:, cols], calc.encodings[:, cols], calc.outputs[:, cols]
        zero = np.zeros((len(w), 2))
        self.word.set_offsets(zero)
        self.word.set_UVC(w[:, 0], w[:, 1])
        self.pe.set_offsets(w)
        self.pe.set_UVC(p[:, 0], p[:, 1])
        for key, numbers, tok, pos, xy in zip(self.keys, self.numbers, calc.tokens, calc.positions, o):
            key.set_text(f"→ {token_label(tok)} (pos {pos}){label('：', ': ')}")
            numbers.set_text(f"[{xy[0]:.2f}, {xy[1]:.2f}]")
        name = pair_name or self.pair_name
        self.title.set_text(label(f"{name}：第 {2 * i}、{2 * i + 1} 维（i={i}）",
                                  f"{name}: dims {2 * i}, {2 * i + 1} (i={i})"))


def plot_hand_calculation(calc: HandCalculation | None = None, ax=None):
    """Word vector (grey) + PE (colour) = input, in the plane of pair 0.
    """
    calc = hand_calculation() if calc is None else calc
    if not isinstance(calc, HandCalculation):
        raise TypeError(bilingual("calc must be a HandCalculation from hand_calculation()",
                                  "calc 必须来自 hand_calculation()"))
    if len(calc.tokens) > 3:
        raise ValueError(bilingual("plot_hand_calculation draws at most 3 tokens", "最多画 3 个词"))
    with figure_style():
        fig, ax = new_axes(ax, (4, 4))
        view = _HandCalcView(ax, label("第 0 对", "pair 0"))
        view.update(calc, 0)
    return fig


def _calculation(values) -> HandCalculation:
    """The HandCalculation for these control values."""
    word = np.resize([values["word_0"], values["word_1"]], values["d_model"])
    return hand_calculation(word_vectors=word, start=values["start"], d_model=values["d_model"], base=values["base"])


class _HandCalcPairs:
    """The explorer's view: the first pair's plane and the last pair's, side by side."""

    def __init__(self, fig):
        ax0, ax1 = fig.subplots(1, 2)
        self.views = [_HandCalcView(ax0, label("第一对 (快)", "first pair (fast)")),
                      _HandCalcView(ax1, label("最后一对 (慢)", "last pair (slow)"))]

    def artists(self):
        return [a for v in self.views for a in v.artists()]

    def parts(self):
        """The animated artists of both planes by what changes them (the controls' ``changes``):
        the grey word arrows, the coloured PE arrows (drawn from the word arrows' tips), the
        key lines, the titles (which pair)."""
        return {"word": [v.word for v in self.views], "pe": [v.pe for v in self.views],
                "labels": [t for v in self.views for t in v.labels], "titles": [v.title for v in self.views]}

    def update(self, values) -> dict:
        calc = _calculation(values)
        self.views[0].update(calc, 0)
        only = label("唯一的一对 (d_model = 2)", "the only pair (d_model = 2)")
        self.views[1].update(calc, calc.d_model // 2 - 1, only if calc.d_model == 2 else None)
        return {"table": calc._repr_html_()}


class HandCalcExplorer(Explorer):
    """The 猫咬狗 hand calculation with sliders: word vector, start, d_model, base.

    Every token's word vector is ``[word_0, word_1, word_0, word_1, ...]`` (length
    d_model). The HTML table (``.table``) and the arrows in the planes of the first and last
    pair update together: the frame grid is start x base x d_model (the main slider d_model: at
    the default d_model = 2 the only pair turns at w_0 = 1 whatever the base, so a base slider
    would move nothing there); while any of them moves, figure and table are switched in the
    browser, each table rendered with its frame (the spec's ``extras``); a position without a
    frame yet, and the word vector's sliders, update them through the kernel.
    """

    spec = ExplorerSpec(
        name="hand_calc", main="d_model", figsize=(7.6, 3.7), extras=("table",),
        controls=(
            float_slider("word_0", 0.5, -1.0, 1.0, 0.05, label="词向量的偶数维", changes=("word", "pe", "labels")),
            float_slider("word_1", 0.5, -1.0, 1.0, 0.05, label="词向量的奇数维", changes=("word", "pe", "labels")),
            choice_slider("start", 1, (0, 1), label="第一个词的位置", changes=("pe", "labels")),
            # every pair's word vector is (word_0, word_1): d_model moves the last plane's PE and title only
            choice_slider("d_model", 2, (2, 4, 6, 8), label="维度", changes=("pe", "labels", "titles")),
            base_slider(10000.0, 1, 6, changes=("pe", "labels")),
        ),
        view=lambda fig, p: _HandCalcPairs(fig),
        update=lambda view, v, p: view.update(v),
        # the steps move start, d_model and base: every start and d_model, base at every half decade
        grid=(Axis("start"), Axis("base", page=tuple(10 ** (k / 2) for k in range(2, 13))), Axis("d_model")),
        steps=(
            step(("start", 0), see="猫 的位置编码变成 [0, 1]，左图它的彩色箭头竖直朝上"),
            step(("d_model", 4), see="右图换成第 1 对，三个彩色箭头几乎重合"),
            step(("d_model", 4), ("base", 10.0), ("base", 1e6), see="base = 10 时右图的箭头分开，10^6 时贴得更紧"),
            step(("word_0", 0.0), ("word_1", -0.5), see="只有灰色箭头动", page=False),
        ),
    )

    @property
    def views(self) -> list:
        """The two pair views (first pair, last pair)."""
        return self.view.views

    def calculation(self) -> HandCalculation:
        """The HandCalculation for the current slider values."""
        return _calculation(self.values)
