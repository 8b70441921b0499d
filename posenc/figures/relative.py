"""Relative position and distance as pictures: the shift-by-k rotation on the clocks, scores
against the offset (with and without projections), the sin-alone regression, and the
word-vs-PE cosines behind "add, don't concatenate".
"""
from __future__ import annotations

import math

import numpy as np

from ..attention import attention_weights_for_demo
from ..distance import (
    linear_fit,
    offset_scores,
    offset_structure,
    score_matrix,
    word_pe_cosines,
)
from ..encoding import (
    encode_positions,
    frequencies,
    pe_dot_by_offset,
    relative_rotation,
)
from ..validate import check_base, check_d_model, check_int, check_real, is_int
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, Param, base_slider, checkbox, choice_slider, int_slider, step
from .style import new_axes, figure_style, label


def plot_dot_product(d_model: int = 64, base: float = 10000.0, k_max: int = 100, ax=None):
    """``PE(pos) . PE(pos + k)`` against the offset k in [-k_max, k_max].
    """
    k_max = check_int("k_max", k_max, 1, 100000)
    ks = np.arange(-k_max, k_max + 1)
    dots = pe_dot_by_offset(ks, d_model, base)
    with figure_style():
        fig, ax = new_axes(ax, (6, 3))
        ax.plot(ks, dots, lw=1.2)
        ax.axvline(0, color="0.6", lw=0.8)
        ax.set_xlabel(label("偏移 k (offset)", "offset k"))
        ax.set_ylabel("PE(pos)·PE(pos+k)")
        ax.set_title(f"d_model = {d_model}, base = {base:g}")
    return fig


def plot_shift_regression(k: int = 1, d_model: int = 2, i: int = 0, base: float = 10000.0,
                          seq_len: int = 200, ax=None):
    """Predict ``sin((pos+k) w_i)`` from ``sin(pos w_i)`` alone (left) and from the pair (right).

    Left: the target against sin(pos w_i), coloured by the sign of cos(pos w_i): two
    branches over the same x, so no function of sin alone fits. Right: the least-squares
    prediction from (sin, cos) against the target: the diagonal, R^2 = 1.
    """
    d_model = check_d_model(d_model)
    i = check_int("i", i, 0, d_model // 2 - 1)
    k = check_real("k", k)
    seq_len = check_int("seq_len", seq_len, 3, 100000)
    w = frequencies(d_model, base)[i]
    pos = np.arange(seq_len, dtype=float)
    s, c, y = np.sin(pos * w), np.cos(pos * w), np.sin((pos + k) * w)
    fit_sin = linear_fit(s, y)
    fit_pair = linear_fit(np.column_stack([s, c]), y)
    with figure_style():
        fig, (ax, ax2) = new_axes(ax, (8, 3.3), 1, 2)
        up = c >= 0
        ax.scatter(s[up], y[up], s=8, color="C0", label=label("cos(pos·w) ≥ 0", "cos(pos·w) >= 0"))
        ax.scatter(s[~up], y[~up], s=8, color="C1", label="cos(pos·w) < 0")
        grid = np.linspace(-1, 1, 3)
        ax.plot(grid, fit_sin.predict(grid), color="k", lw=1.2,
                label=label(f"只用 sin 的最佳直线，R² = {fit_sin.r2:.3f}", f"best line from sin alone, R² = {fit_sin.r2:.3f}"))
        ax.set_xlabel("sin(pos·w)")
        ax.set_ylabel("sin((pos+k)·w)")
        ax.set_title(label(f"只用 sin：k = {k:g}, w = {w:.3g}", f"sin alone: k = {k:g}, w = {w:.3g}"))
        ax.legend(fontsize=9, loc="lower right")
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.6, 1.15)
        pred = fit_pair.predict(np.column_stack([s, c]))
        ax2.plot([-1, 1], [-1, 1], color="0.7", lw=3)
        ax2.scatter(y, pred, s=8, color="C2")
        ax2.set_xlabel(label("真实值 sin((pos+k)·w)", "true sin((pos+k)·w)"))
        ax2.set_ylabel(label("用 (sin, cos) 的线性预测", "linear prediction from (sin, cos)"))
        ax2.set_title(label(f"用 (sin, cos) 一对：R² = {fit_pair.r2:.6f}",
                            f"from the (sin, cos) pair: R² = {fit_pair.r2:.6f}"))
        ax2.set_aspect("equal")
    return fig


def plot_cosine_histograms(d_models=(16, 64, 512), n_words: int = 200, seq_len: int = 200,
                           base: float = 10000.0, seed: int = 0, ax=None):
    """Histograms of cos(word vector, PE(pos)) for several ``d_model``: near 0 when d is large.

    The dashed lines mark ``±1/sqrt(d_model)``, the spread of the cosine between random
    directions.
    """
    if is_int(d_models):
        d_models = (d_models,)
    d_models = [check_int("d_models", d, 1, 4096) for d in d_models]
    cosines = [word_pe_cosines(d, n_words, seq_len, base, seed) for d in d_models]
    with figure_style():
        fig, ax = new_axes(ax, (6.4, 3.0))
        bins = np.linspace(-1, 1, 81)
        for j, (d, cs) in enumerate(zip(d_models, cosines)):
            color = f"C{j % 10}"
            ax.hist(cs.ravel(), bins=bins, histtype="step", lw=1.5, color=color, density=True,
                    label=label(f"d_model = {d}：平均 |cos| = {np.abs(cs).mean():.3f}",
                                f"d_model = {d}: mean |cos| = {np.abs(cs).mean():.3f}"))
            for sign in (-1, 1):
                ax.axvline(sign / math.sqrt(d), color=color, lw=0.8, ls="--")
        ax.set_xlim(-1, 1)
        ax.set_xlabel(label("cos(词向量, PE(pos))", "cos(word vector, PE(pos))"))
        ax.set_ylabel(label("密度", "density"))
        ax.set_title(label(f"{n_words} 个随机词 × {seq_len} 个位置；虚线 = ±1/√d_model",
                           f"{n_words} random words × {seq_len} positions; dashed = ±1/√d_model"))
        ax.legend(fontsize=9)
    return fig


def _subscript(n: int) -> str:
    """``n`` in subscript digits (``w₁₀`` for the w_i of pair 10)."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


class _RelativeView:
    """A few pairs as arrows on unit circles: PE(pos) (blue), PE(pos+k) (orange), the turn
    R_k makes (green arc), and R_k itself as a small heatmap."""

    MAX_PAIRS = 4
    GAP = 2.7
    ARC_POINTS = 120

    def __init__(self, ax_r, ax_c):
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle

        from .text_pieces import text_row, title_row

        self.ax_r, self.ax_c = ax_r, ax_c
        self.r_image = ax_r.imshow(np.eye(2), cmap="RdBu_r", vmin=-1, vmax=1, aspect="equal",
                                   interpolation="nearest", extent=(0, 1, 1, 0))
        ax_r.set_xlim(0, 1)
        ax_r.set_ylim(1, 0)
        ax_r.set_xticks([])
        ax_r.set_yticks([])
        ax_r.set_title(label("R_k：块对角，只依赖 k", "R_k: block diagonal, k only"), fontsize=9)
        n = self.MAX_PAIRS
        self.centers = np.array([(self.GAP * j, 0.0) for j in range(n)])
        self.faces = []
        for cx, cy in self.centers:
            face = Circle((cx, cy), 1.0, fill=False, lw=1.0, color="0.55")
            ax_c.add_patch(face)
            ax_c.plot([cx, cx], [cy + 0.9, cy + 1.0], color="0.55", lw=1.0)  # 12 o'clock = pos 0
            self.faces.append(face)
        kw = dict(angles="xy", scale_units="xy", scale=1, headaxislength=3.5)
        far = np.full((n, 2), -100.0)
        # PE(pos) drawn wide, PE(pos+k) narrow on top: both stay visible when they coincide.
        self.arcs = [ax_c.plot([], [], color="C2", lw=1.3, zorder=1)[0] for _ in range(n)]
        self.q_from = ax_c.quiver(far[:, 0], far[:, 1], np.zeros(n), np.zeros(n), color="C0",
                                  width=0.016, headwidth=3, headlength=3.5, zorder=3, **kw)
        self.q_to = ax_c.quiver(far[:, 0], far[:, 1], np.zeros(n), np.zeros(n), color="C1",
                                width=0.007, headwidth=4, headlength=5, zorder=4, **kw)
        # one line each, in pieces: the words recur, only the numbers are new (text is the costly artist)
        self.captions = [text_row(ax_c, cx, -1.12, ha="center", va="top", fontsize=9) for cx, _ in self.centers]
        ax_c.set_xlim(-1.25, self.GAP * (n - 1) + 1.25)
        ax_c.set_ylim(-1.95, 1.12)
        ax_c.set_aspect("equal")
        ax_c.axis("off")
        self.title = title_row(ax_c, fontsize=9)
        handles = [Line2D([], [], color="C0", lw=2, label=label("PE(pos) 的一对 (sin, cos)", "pair of PE(pos)")),
                   Line2D([], [], color="C1", lw=2, label=label("PE(pos+k) 的一对", "pair of PE(pos+k)")),
                   Line2D([], [], color="C2", lw=1.3,
                          label=label("R_k 转过 k·w_i 弧度（k>0 顺时针）", "R_k turns by k·w_i rad (k>0: clockwise)"))]
        ax_c.legend(handles=handles, loc="lower center", ncols=3, fontsize=9, frameon=False,
                    bbox_to_anchor=(0.5, -0.04), handlelength=1.5, columnspacing=1.0)

    def artists(self):
        # drawing order when blitting = zorder order of a full draw: arcs under the arrows
        return [self.r_image, *self.faces, *self.arcs, self.q_from, self.q_to, *self.captions,
                self.title]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``)."""
        return {"matrix": [self.r_image], "faces": self.faces, "arcs": self.arcs, "arrows": [self.q_from, self.q_to],
                "captions": self.captions, "title": [self.title]}

    def update(self, pos, k, d_model, base):
        w = frequencies(d_model, base)
        shown = min(len(w), self.MAX_PAIRS)
        idx = np.unique(np.round(np.linspace(0, len(w) - 1, shown)).astype(int))
        rot = relative_rotation(k, d_model, base)
        self.r_image.set_data(rot)
        a = encode_positions([pos], d_model, base)[0]
        b = encode_positions([pos + k], d_model, base)[0]
        n = self.MAX_PAIRS
        off = np.full((n, 2), -100.0)
        ua, va, ub, vb = (np.zeros(n) for _ in range(4))
        for j in range(n):
            on = j < len(idx)
            self.faces[j].set_alpha(1.0 if on else 0.15)
            self.captions[j].set_visible(on)
            if not on:
                self.arcs[j].set_data([], [])
                continue
            i = idx[j]
            cx, cy = self.centers[j]
            off[j] = (cx, cy)
            ua[j], va[j] = 0.92 * a[2 * i], 0.92 * a[2 * i + 1]  # x = sin, y = cos: the clock of 03
            ub[j], vb[j] = 0.92 * b[2 * i], 0.92 * b[2 * i + 1]
            t0, turn = pos * w[i], k * w[i]
            t = t0 + np.linspace(0.0, turn, self.ARC_POINTS)
            r = 0.42 + 0.3 * np.abs(t - t0) / max(abs(turn), 2 * np.pi)  # a spiral once |turn| > 2π
            self.arcs[j].set_data(cx + r * np.sin(t), cy + r * np.cos(t))
            self.captions[j].set_pieces(("k·w", _subscript(i), " = ", f"{turn:.3g}"))  # radians
        self.q_from.set_offsets(off)
        self.q_from.set_UVC(ua, va)
        self.q_to.set_offsets(off)
        self.q_to.set_UVC(ub, vb)
        err = float(np.abs(rot @ a - b).max())
        self.title.set_pieces(("pos = ", f"{pos:g}", ", k = ", f"{k:g}",
                               label("：max|R_k·PE(pos) − PE(pos+k)| = ", ": max|R_k·PE(pos) − PE(pos+k)| = "),
                               f"{err:.1e}"))


def plot_relative_rotation(pos: int = 5, k: int = 3, d_model: int = 8, base: float = 10000.0, ax=None):
    """R_k as a heatmap and a few pairs of PE(pos) and PE(pos + k) as arrows on unit circles.
    """
    pos, k = check_real("pos", pos), check_real("k", k)
    d_model, base = check_d_model(d_model), check_base(base)
    with figure_style():
        fig, (ax_r, ax_c) = new_axes(ax, (8.2, 2.9), 1, 2, width_ratios=[1, 4.2])
        _RelativeView(ax_r, ax_c).update(pos, k, d_model, base)
    return fig


class RelativeExplorer(Explorer):
    """Move k and pos: each pair of PE(pos) turns by k·w_i into the pair of PE(pos + k).

    The title shows ``max|R_k·PE(pos) − PE(pos+k)|`` (rounding error only).
    """

    spec = ExplorerSpec(
        name="relative", main="k", figsize=(7.6, 2.4), arguments=("pos", "k", "d_model", "base"),
        controls=(
            int_slider("k", 3, -50, 50, label="偏移", changes=("matrix", "arcs", "arrows", "captions", "title")),
            int_slider("pos", 5, 0, 100, label="位置", changes=("arcs", "arrows", "title")),
            choice_slider("d_model", 8, (2, 4, 8, 16, 32, 64), label="维度",
                          changes=("matrix", "faces", "arcs", "arrows", "captions", "title")),
        ),
        params=(Param("base", 10000.0, check_base),),
        view=lambda fig, p: _RelativeView(*fig.subplots(1, 2, width_ratios=[1, 4.2])),
        update=lambda view, v, p: view.update(v["pos"], v["k"], v["d_model"], p["base"]),
        grid=(Axis("pos", page=(0, 5, 10, 20, 40, 70, 100), live=tuple(range(0, 101, 5))), Axis("k", count=17, keep=(-3, 3))),
        steps=(
            step(("pos", 10), ("pos", 40), ("pos", 100), see="蓝、橙一起转，绿弧长度不变，左边的矩阵不动"),
            step(("k", 20), ("k", -20), see="快的那对转得多，k 为负时弧改成逆时针"),
            step(("d_model", 32), see="矩阵变大，误差始终只是舍入", page=False),
        ),
    )


class _SimilarityView:
    """Scores against the offset k (left) and the full score matrix (right)."""

    SEQ_LEN = 64
    K_MAX = 64

    def __init__(self, ax_curve, ax_heat):
        ks = np.arange(-self.K_MAX, self.K_MAX + 1)
        zeros = np.zeros_like(ks, dtype=float)
        (self.band_lo,) = ax_curve.plot(ks, zeros, color="C0", lw=0.7, alpha=0.6, ls="--")
        (self.band_hi,) = ax_curve.plot(ks, zeros, color="C0", lw=0.7, alpha=0.6, ls="--",
                                        label=label("m 取 0..63 的最小/最大", "min / max over m = 0..63"))
        (self.mirror,) = ax_curve.plot(ks, zeros, color="C3", lw=1.1, ls=":",
                                       label=label("镜像：把 k 换成 −k", "mirrored: k → −k"))
        (self.mean,) = ax_curve.plot(ks, zeros, color="C0", lw=1.6,
                                     label=label("对 m 取平均", "mean over m"))
        ax_curve.axvline(0, color="0.6", lw=0.8, zorder=0.5)  # under the (blitted) curves
        ax_curve.axhline(0, color="0.6", lw=0.8, zorder=0.5)
        ax_curve.set_xlim(-self.K_MAX, self.K_MAX)
        # The curves stay within ±1; the legend lives above them (it is not redrawn on top), in
        # two rows (in one it was wider than the plot and crossed both sides of the frame) on a
        # white box (the k = 0 line runs under it).
        ax_curve.set_ylim(-1.1, 1.75)
        ax_curve.set_yticks([-1, -0.5, 0, 0.5, 1])
        ax_curve.set_xlabel(label("偏移 k (offset)", "offset k"))
        ax_curve.set_ylabel(label("分数 / 最大|分数|", "score / max|score|"))
        ax_curve.legend(fontsize=9, loc="upper center", ncols=2, handlelength=1.6, columnspacing=0.8,
                        borderaxespad=0.2, framealpha=0.9, edgecolor="none")
        self.title_curve = ax_curve.set_title(" ", fontsize=9)
        n = self.SEQ_LEN
        self.image = ax_heat.imshow(np.zeros((n, n)), cmap="RdBu_r", vmin=-1, vmax=1,
                                    interpolation="nearest", extent=(-0.5, n - 0.5, n - 0.5, -0.5))
        ticks = [0, 16, 32, 48, 63]
        ax_heat.set_xticks(ticks)
        ax_heat.set_yticks(ticks)
        ax_heat.set_xlabel(label("key 位置 n", "key position n"))
        ax_heat.set_ylabel(label("query 位置 m", "query position m"))
        self.title_heat = ax_heat.set_title(" ", fontsize=9)

    def artists(self):
        return [self.band_lo, self.band_hi, self.mirror, self.mean, self.title_curve, self.image,
                self.title_heat]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the curves
        against k with their title, the matrix with its title (which names d_model and base)."""
        return {"curves": [self.band_lo, self.band_hi, self.mirror, self.mean, self.title_curve],
                "matrix": [self.image, self.title_heat]}

    def update(self, d_model, base, projection):
        w_q = w_k = None
        if projection:
            w_q, w_k, _ = attention_weights_for_demo(d_model, seed=0)
        scores = offset_scores(d_model, base, self.SEQ_LEN, self.K_MAX, w_q, w_k)
        info = offset_structure(scores)
        scale = max(float(np.abs(scores).max()), 1e-300)
        profile = scores.mean(axis=0) / scale
        self.mean.set_ydata(profile)
        self.mirror.set_ydata(profile[::-1])
        self.band_lo.set_ydata(scores.min(axis=0) / scale)
        self.band_hi.set_ydata(scores.max(axis=0) / scale)
        s = score_matrix(self.SEQ_LEN, d_model, base, w_q, w_k)
        self.image.set_data(s / max(float(np.abs(s).max()), 1e-300))
        self.title_curve.set_text(label(
            f"±k 不对称 {info['asymmetry']:.2f}，随位置变化 {info['position_dependence']:.2f}，峰在 k = {info['peak_k']}",
            f"±k asymmetry {info['asymmetry']:.2f}, position dependence {info['position_dependence']:.2f}, "
            f"peak at k = {info['peak_k']}"))
        what = (label("随机投影 (W_q PE(m))·(W_k PE(n))", "random projection (W_q PE(m))·(W_k PE(n))")
                if projection else label("PE(m)·PE(n)（无投影）", "PE(m)·PE(n) (no projection)"))
        self.title_heat.set_text(f"{what}\nd_model = {d_model}, base = {base:g}")


def plot_similarity(d_model: int = 64, base: float = 10000.0, projection: bool = False, ax=None):
    """PE(m)·PE(m+k) against k (mean, min and max over m, and mirrored) and the full matrix.

    With ``projection`` the scores are ``(W_q PE(m))·(W_k PE(n))`` for the fixed random
    matrices of :func:`attention_weights_for_demo`.
    """
    d_model, base = check_d_model(d_model), check_base(base)
    with figure_style():
        fig, (ax_curve, ax_heat) = new_axes(ax, (8, 3.2), 1, 2, width_ratios=[1.5, 1])
        _SimilarityView(ax_curve, ax_heat).update(d_model, base, bool(projection))
    return fig


class SimilarityExplorer(Explorer):
    """PE·PE against the offset k and as a matrix; the checkbox adds random W_q, W_k.
    """

    spec = ExplorerSpec(
        name="similarity", main="d_model", figsize=(7.6, 2.9),
        controls=(
            int_slider("d_model", 64, 2, 256, step=2, label="维度", changes=("curves", "matrix")),
            base_slider(10000.0, 1, 6, changes=("curves", "matrix")),
            # indent=False and an auto width: the label is shown whole, not cut to the
            # checkbox's default 300 px with an 80 px indent in front.
            checkbox("projection", False, label="随机投影 W_q, W_k",
                     widget={"indent": False}, width="auto", changes=("curves", "matrix")),
        ),
        view=lambda fig, p: _SimilarityView(*fig.subplots(1, 2, width_ratios=[1.55, 1])),
        update=lambda view, v, p: view.update(v["d_model"], v["base"], v["projection"]),
        grid=(Axis("projection"), Axis("base", page=(10.0, 1e4, 1e6), live=tuple(10 ** (k / 2) for k in range(2, 13))), Axis("d_model", count=12, keep=(2, 64))),
        steps=(
            step(("projection", False), see="虚线、点线都和实线重合，右图每条对角线颜色相同"),
            step(("d_model", 2), ("d_model", 256), see="d_model 小时起伏明显，越大越平滑"),
            step(("base", 10.0), ("base", 1e6), see="base 小，曲线很快掉到 0 附近；base 大，下降得慢"),
            step(("projection", True), see="虚线之间的带子变宽，红点线和实线分开"),
        ),
    )
