"""The sinusoidal table as pictures: the heatmap, one clock per pair beside the binary
counter, wavelengths on a log axis, the sin/cos curves, and binary bits vs sinusoids.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..encoding import LAYOUTS, binary_bits, frequencies, sinusoidal_encoding, wavelengths
from ..validate import (
    bilingual,
    check_base,
    check_d_model,
    check_int,
    check_one_of,
    check_real,
    check_table_size,
    is_int,
)
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, base_slider, choice_slider, dropdown, int_slider, step
from .style import index_heatmap, new_axes, place_index_ticks, figure_style, label

#: How the heatmap titles name the two column layouts.
_LAYOUT_NAMES = {"interleaved": "交错 (interleaved)", "split": "前后分半 (split)"}


class _PEHeatmapView:
    """Artists for the PE-table heatmap; ``update`` changes them in place."""

    def __init__(self, ax, cax=None):
        self.ax = ax
        self.image, self.xticks, self.yticks = index_heatmap(ax, "RdBu_r", -1, 1)
        ax.set_xlabel(label("维度 (dimension) →", "dimension →"), labelpad=14)
        ax.set_ylabel(label("← 位置 pos", "← position pos"), labelpad=22)
        from .text_pieces import title_row

        self.title = title_row(ax)   # its words recur; only the numbers are new
        if cax is not None:
            ax.get_figure().colorbar(self.image, cax=cax)

    def artists(self):
        return [self.image, self.title, *self.xticks, *self.yticks]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``)."""
        return {"image": [self.image], "title": [self.title], "xticks": self.xticks, "yticks": self.yticks}

    def update(self, seq_len, d_model, base, layout):
        pe = sinusoidal_encoding(seq_len, d_model, base, layout=layout)
        self.image.set_data(pe)
        place_index_ticks(self.xticks, d_model, True)
        place_index_ticks(self.yticks, seq_len, False)
        self.title.set_pieces((label("PE：seq_len=", "PE: seq_len="), f"{seq_len}", label("，d_model=", ", d_model="),
                               f"{d_model}", label("，base=", ", base="), f"{base:g}",
                               label(f"，{_LAYOUT_NAMES[layout]}", f", {layout}")))


def plot_pe_heatmap(seq_len: int = 50, d_model: int = 64, base: float = 10000.0,
                    layout: str = "interleaved", ax=None):
    """Heatmap of the full PE table (rows = positions, columns = dimensions).
    """
    seq_len, d_model = check_int("seq_len", seq_len, 1), check_d_model(d_model)
    base, layout = check_base(base), check_one_of("layout", layout, LAYOUTS)
    check_table_size(seq_len, d_model)
    with figure_style():
        fig, ax = new_axes(ax, (6.5, 3.4))
        view = _PEHeatmapView(ax)
        fig.colorbar(view.image, ax=ax, shrink=0.9)
        view.update(seq_len, d_model, base, layout)
    return fig


class HeatmapExplorer(Explorer):
    """Sliders for seq_len, d_model, base and layout over the full PE table.
    """

    spec = ExplorerSpec(
        name="heatmap", main="seq_len", figsize=(7.2, 3.4),
        controls=(
            int_slider("seq_len", 50, 2, 200, label="序列长度", changes=("image", "title", "yticks")),
            int_slider("d_model", 64, 2, 256, step=2, label="维度", changes=("image", "title", "xticks")),
            base_slider(10000.0, 1, 6, changes=("image", "title")),
            # Chinese first, the keyword in brackets: the value passed on stays the English keyword.
            dropdown("layout", "interleaved", LAYOUTS, label="列的排法", option_labels=tuple((_LAYOUT_NAMES[x], x) for x in LAYOUTS),
                     changes=("image", "title")),
        ),
        view=lambda fig, p: _heatmap_view(fig),
        update=lambda view, v, p: view.update(v["seq_len"], v["d_model"], v["base"], v["layout"]),
        grid=(Axis("layout"), Axis("base", page=(10.0, 1e4, 1e6), live=tuple(10 ** (k / 2) for k in range(2, 13))), Axis("seq_len", count=16)),
        steps=(
            step(("seq_len", 200), see="中间的条纹开始弯曲变色"),
            step(("base", 10.0), ("base", 1e6), see="base = 10 右边也闪烁，10^6 更多列变成常数"),
            step(("layout", "split"), see="同样的数字换了列顺序，图完全不同"),
        ),
    )


def _heatmap_view(fig):
    ax = fig.add_subplot(1, 1, 1)
    view = _PEHeatmapView(ax)
    fig.colorbar(view.image, ax=ax, shrink=0.9, label="PE")
    return view


class _ClockView:
    """One clock face per (sin, cos) pair plus the binary counter of pos."""

    MAX_PAIRS = 8

    def __init__(self, ax_clock, ax_bits):
        from matplotlib.patches import Circle, Rectangle

        from .text_pieces import number_text

        self.ax, self.axb = ax_clock, ax_bits
        n = self.MAX_PAIRS
        self.centers = [(2.5 * i, 0.0) for i in range(n)]
        self.faces, self.hands, self.tips, self.captions = [], [], [], []
        for cx, cy in self.centers:
            face = Circle((cx, cy), 1.0, fill=False, lw=1.2, color="0.4")
            ax_clock.add_patch(face)
            for a in range(12):
                t = 2 * np.pi * a / 12
                ax_clock.plot([cx + 0.88 * np.sin(t), cx + np.sin(t)],
                              [cy + 0.88 * np.cos(t), cy + np.cos(t)], color="0.6", lw=0.8)
            self.faces.append(face)
            (hand,) = ax_clock.plot([cx, cx], [cy, cy + 0.9], lw=2.5, color="C3",
                                    solid_capstyle="round")
            (tip,) = ax_clock.plot([cx], [cy + 0.9], "o", color="C3", ms=4)
            self.hands.append(hand)
            self.tips.append(tip)
            # numbers only, new at every base: drawn a character at a time from the glyph cache
            self.captions.append([number_text(ax_clock, cx, cy - 1.2 - 0.38 * r, "", ha="center", va="top",
                                              fontsize=9) for r in range(3)])
        for r, name in enumerate(("i", "w_i", label("波长", "λ"))):
            ax_clock.text(-1.35, -1.2 - 0.38 * r, name, ha="right", va="top", fontsize=9, color="0.1")
        ax_clock.set_xlim(-2.3, 2.5 * (n - 1) + 1.3)
        ax_clock.set_ylim(-2.35, 1.35)
        ax_clock.set_aspect("equal")
        ax_clock.axis("off")
        ax_clock.set_title(label("每个钟 = 一对 (sin, cos)，指针尖 = (PE[2i], PE[2i+1])",
                                 "one clock per (sin, cos) pair; tip = (PE[2i], PE[2i+1])"))
        self.pos_text = ax_clock.text(-1.3, 1.35, " ", ha="left", va="bottom", fontsize=11,
                                      fontweight="bold")
        self.bits, self.bit_text = [], []
        for k in range(n):
            cx = 2.5 * k
            rect = Rectangle((cx - 0.45, 0.05), 0.9, 0.9, facecolor="white", edgecolor="0.3")
            ax_bits.add_patch(rect)
            self.bits.append(rect)
            self.bit_text.append(ax_bits.text(cx, 0.5, "0", ha="center", va="center", fontsize=10))
            ax_bits.text(cx, -0.05, label(f"bit {k}\n每 {2 ** k} 步翻转", f"bit {k}\nflips every {2 ** k}"),
                         ha="center", va="top", fontsize=9)
        ax_bits.set_xlim(-2.3, 2.5 * (n - 1) + 1.3)
        ax_bits.set_ylim(-0.9, 1.0)
        ax_bits.set_aspect("equal")
        ax_bits.axis("off")
        ax_bits.text(-1.3, 1.0, label("二进制计数器 (binary counter)：pos 的低 8 位，bit 0 在最左",
                                      "binary counter: low 8 bits of pos, bit 0 on the left"),
                     ha="left", va="bottom", fontsize=9)

    def artists(self):
        return [*self.faces, *self.hands, *self.tips, *sum(self.captions, []), self.pos_text,
                *self.bits, *self.bit_text]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the faces
        (greyed when unused), the hands, each clock's pair index i (d_model picks the pairs
        shown) and its rate w_i and wavelength (base too), the counter of pos."""
        return {"faces": self.faces, "hands": [*self.hands, *self.tips],
                "index_captions": [c[0] for c in self.captions],
                "rate_captions": [t for c in self.captions for t in c[1:]],
                "counter": [self.pos_text, *self.bits, *self.bit_text]}

    def update(self, pos, d_model, base):
        w = frequencies(d_model, base)
        n_pairs = len(w)
        shown = min(n_pairs, self.MAX_PAIRS)
        # With more pairs than faces, show evenly spaced pairs from the fastest to the slowest.
        idx = np.unique(np.round(np.linspace(0, n_pairs - 1, shown)).astype(int))
        for j in range(self.MAX_PAIRS):
            cx, cy = self.centers[j]
            on = j < len(idx)
            self.faces[j].set_alpha(1.0 if on else 0.15)
            self.hands[j].set_visible(on)
            self.tips[j].set_visible(on)
            for t in self.captions[j]:
                t.set_visible(on)
            if not on:
                continue
            i = idx[j]
            theta = pos * w[i]
            x, y = np.sin(theta), np.cos(theta)  # tip = (PE[2i], PE[2i+1])
            self.hands[j].set_data([cx, cx + 0.9 * x], [cy, cy + 0.9 * y])
            self.tips[j].set_data([cx + 0.9 * x], [cy + 0.9 * y])
            for t, text in zip(self.captions[j], (f"{i}", f"{w[i]:.3g}", f"{2 * np.pi / w[i]:.3g}")):
                t.set_text(text)
        self.pos_text.set_text(f"pos = {pos}")
        bits = binary_bits(pos, self.MAX_PAIRS)
        for rect, txt, b in zip(self.bits, self.bit_text, bits):
            rect.set_facecolor("C0" if b else "white")
            txt.set_text(str(int(b)))
            txt.set_color("white" if b else "0.2")


def plot_clock(pos: int = 3, d_model: int = 16, base: float = 10000.0, ax=None):
    """Clock faces for every pair at position ``pos`` and its binary counter.
    """
    pos = check_int("pos", pos, 0)
    d_model, base = check_d_model(d_model), check_base(base)
    with figure_style():
        fig, (ax, axb) = new_axes(ax, (9, 3.2), 2, 1, height_ratios=[2.2, 1])
        view = _ClockView(ax, axb)
        view.update(pos, d_model, base)
    return fig


class ClockExplorer(Explorer):
    """Clock hands for every pair at ``pos`` (with a Play button) and the binary counter.

    The Play button drives ``pos`` in the browser (``jslink``), so playing steps through
    the pre-rendered frames without a kernel round trip.
    """

    spec = ExplorerSpec(
        name="clock", main="pos", figsize=(9, 3.3), play=250,
        controls=(
            int_slider("pos", 3, 0, 255, label="位置", changes=("hands", "counter")),
            choice_slider("d_model", 16, range(2, 17, 2), label="维度",
                          changes=("faces", "hands", "index_captions", "rate_captions")),
            base_slider(10000.0, 1, 6, changes=("hands", "rate_captions")),
        ),
        view=lambda fig, p: _ClockView(*fig.subplots(2, 1, height_ratios=[2.2, 1])),
        update=lambda view, v, p: view.update(v["pos"], v["d_model"], v["base"]),
        # every pos from 0 to 24 (bit 3 flips at 8, 16, 24: the carry from 7 to 8), the rest spread
        grid=(Axis("d_model", page=(4, 16)), Axis("pos", count=40, keep=tuple(range(25)))),
        steps=(
            step(*(("pos", p) for p in range(8)), see="i = 0 每步转 1 弧度，bit 0 每一步都翻转"),
            step(*(("pos", p) for p in range(8, 17)), see="bit 3 每 8 步翻一次，i = 1 转得慢得多"),
            step(("pos", 7), ("pos", 8), see="从 7 到 8 四位同时翻转，指针照常多转 w_i"),
            step(("d_model", 4), ("pos", 255), see="第二根指针的波长 628，pos = 255 只转了 0.4 圈多"),
            step(("base", 10.0), see="慢指针都快了起来", page=False),
        ),
    )


def plot_wavelengths(d_model: int = 512, bases=(10000.0,), ax=None):
    """Wavelength of every pair on a log axis, for one or more ``base`` values.
    """
    if isinstance(bases, numbers.Real):
        bases = (bases,)
    bases = [check_real("bases", b, greater_than=1.0) for b in bases]
    lams = [wavelengths(d_model, b) for b in bases]
    with figure_style():
        fig, ax = new_axes(ax, (6, 3.2))
        i = np.arange(d_model // 2)
        for b, lam in zip(bases, lams):
            ax.plot(i, lam, label=f"base = {b:g}: {lam[0]:.3g} … {lam[-1]:.3g}")
        ax.set_yscale("log")
        ax.axhline(2 * np.pi, color="0.6", lw=0.8, ls="--")
        ax.set_xlabel(label("对的编号 i (pair index)", "pair index i"))
        ax.set_ylabel(label("波长 2π/w_i（位置数，对数轴）", "wavelength 2π/w_i (log)"))
        ax.set_title(f"d_model = {d_model}")
        ax.legend(fontsize=9)
    return fig


def plot_pe_curves(d_model: int = 4, max_pos: int = 10, base: float = 10000.0, pairs=None,
                   ax=None):
    """sin (solid) and cos (dashed) of each pair against pos; dots mark whole positions.

    Pair i turns by ``w_i`` radians per position: the first pair swings through its whole
    range within a few positions, a slow pair hardly leaves (sin, cos) = (0, 1).
    ``pairs`` picks the pairs to draw (default: all when there are at most 4, else the
    first, second and last).
    """
    w = frequencies(d_model, base)
    max_pos = check_int("max_pos", max_pos, 1, 100000)
    n_pairs = len(w)
    if pairs is None:
        pairs = list(range(n_pairs)) if n_pairs <= 4 else sorted({0, 1, n_pairs - 1})
    elif is_int(pairs):
        pairs = [pairs]
    pairs = [check_int("pairs", p, 0, n_pairs - 1) for p in pairs]
    if not pairs:
        raise ValueError(bilingual("pairs must name at least one pair", "pairs 至少要有一对"))
    grid = np.linspace(0.0, max_pos, 60 * max_pos + 1 if max_pos <= 50 else 3001)
    whole = np.arange(max_pos + 1, dtype=float)
    with figure_style():
        from matplotlib.lines import Line2D

        fig, ax = new_axes(ax, (7.2, 3.2))
        handles = []
        for j, i in enumerate(pairs):
            color = f"C{j % 10}"
            per_step = label(f"每步转 {w[i]:.3g} 弧度", f"{w[i]:.3g} rad per step")
            for col, fn, ls, marker in ((2 * i, np.sin, "-", "o"), (2 * i + 1, np.cos, "--", "s")):
                name = "sin" if col % 2 == 0 else "cos"
                ax.plot(grid, fn(grid * w[i]), ls=ls, lw=1.0, color=color, alpha=0.6)
                ax.plot(whole, fn(whole * w[i]), marker, ms=4, color=color, ls="none")
                handles.append(Line2D([], [], color=color, ls=ls, lw=1.0, marker=marker, ms=4,
                                      label=f"i={i}, {name} ({label(f'第 {col} 维', f'dim {col}')}), "
                                            f"{per_step}"))
        ax.axhline(0, color="0.6", lw=0.6)
        ax.set_xlim(-0.2, max_pos + 0.2)
        ax.set_ylim(-1.12, 1.12)
        ax.set_xlabel(label("位置 pos", "position pos"))
        ax.set_ylabel("PE[pos, dim]")
        ax.set_title(f"d_model = {d_model}, base = {base:g}")
        ax.legend(handles=handles, fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False)
    return fig


def plot_binary_vs_sinusoid(ks=(0, 1, 2, 3), n_pos: int = 32, ax=None):
    """Bit k of the binary counter next to the sinusoid with the same period, per k.

    Bit b is a square wave of period ``2**(b+1)`` that exists at integer pos only
    (drawn as steps with dots); the sinusoid ``-sin(pi * pos / 2**b)`` has the same period,
    is defined for every real pos and changes sign exactly where bit b flips. (The figure
    writes b for the bit index: k means the position offset everywhere in the course.)
    """
    if is_int(ks):
        ks = (ks,)
    ks = [check_int("ks", k, 0, 20) for k in ks]
    if not ks:
        raise ValueError(bilingual("ks must hold at least one bit index", "ks 至少要有一个 bit 编号"))
    n_pos = check_int("n_pos", n_pos, 2, 4096)
    pos = np.arange(n_pos + 1)
    x = np.linspace(0, n_pos, 40 * n_pos + 1)
    gap = 1.5
    with figure_style():
        fig, ax = new_axes(ax, (8, 0.85 * len(ks) + 1.3))
        for row, k in enumerate(ks):
            y0 = -gap * row
            bits = np.array([binary_bits(int(p), k + 1)[k] for p in pos])
            ax.axhline(y0, color="0.85", lw=0.6, zorder=0)
            ax.step(pos, y0 - 0.5 + bits, where="post", color="C0", lw=1.6,
                    label=label("bit b：方波（只在整数 pos 有值）", "bit b: square wave (integer pos only)")
                    if row == 0 else None)
            ax.plot(pos[:-1], y0 - 0.5 + bits[:-1], "o", color="C0", ms=2.5)
            ax.plot(x, y0 - 0.5 * np.sin(np.pi * x / 2 ** k), color="C3", lw=1.3,
                    label=label("−sin(π·pos/2^b)：同周期的正弦（任意实数 pos）",
                                "-sin(pi*pos/2^b): same period (any real pos)") if row == 0 else None)
        ax.set_yticks([])
        for row, k in enumerate(ks):  # text artists, not tick labels: fonts fixed at creation
            ax.text(-0.012, -gap * row, label(f"bit {k}\n周期 {2 ** (k + 1)}", f"bit {k}\nperiod {2 ** (k + 1)}"),
                    transform=ax.get_yaxis_transform(), ha="right", va="center")
        ax.set_ylim(-gap * (len(ks) - 1) - 0.8, 1.35)
        ax.set_xlim(0, n_pos)
        step = max(1, n_pos // 8)
        ax.set_xticks(np.arange(0, n_pos + 1, step))
        ax.grid(True, axis="x", lw=0.4, alpha=0.5)
        ax.set_xlabel(label("位置 pos", "position pos"))  # new_axes gave a foreign ax the fonts
        ax.set_title(label("二进制计数器的每一位 vs 同周期的正弦波",
                           "binary counter bits vs sinusoids of the same period"))
        ax.legend(loc="upper right", fontsize=9, ncols=2, framealpha=0.9)
    return fig
