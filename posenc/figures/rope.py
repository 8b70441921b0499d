"""RoPE as a picture: q and the key vector κ rotating in one pair's plane, and the score
against the offset k = n - m.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..encoding import frequencies
from ..rope import rope, rope_rotation
from ..validate import bilingual, check_base, check_int
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, Param, base_slider, int_slider, step
from .style import new_axes, figure_style, label


class _RopeView:
    """Pair i's plane (q at m, κ at n as arrows) and the score against the offset k = n - m."""

    OFFSET_MAX = 30
    GRID = 601
    #: Smallest angle (radians) between the directions of the q and κ labels.
    SPREAD = 0.75
    #: Where the angle readout may go: direction (degrees) of a corner of the plane -> (x, y, ha, va).
    CORNERS = {225: (0.03, 0.03, "left", "bottom"), 315: (0.97, 0.03, "right", "bottom"),
               135: (0.03, 0.97, "left", "top"), 45: (0.97, 0.97, "right", "top")}

    @staticmethod
    def _place_label(text, angle: float, s: str) -> None:
        """``s`` just outside the unit circle at ``angle``, extending away from the circle."""
        c, si = math.cos(angle), math.sin(angle)
        text.set_position((1.06 * c, 1.06 * si))
        text.set_horizontalalignment("left" if c > 0.38 else "right" if c < -0.38 else "center")
        text.set_verticalalignment("bottom" if si > 0.38 else "top" if si < -0.38 else "center")
        text.set_text(s)

    def __init__(self, ax_pair, ax_curve):
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle

        from .text_pieces import text_row, title_row

        self.ax_pair, self.ax_curve = ax_pair, ax_curve
        ax_pair.add_patch(Circle((0, 0), 1.0, fill=False, lw=1.0, color="0.6"))
        ax_pair.axhline(0, color="0.85", lw=0.6, zorder=0)
        ax_pair.axvline(0, color="0.85", lw=0.6, zorder=0)
        (self.ghost,) = ax_pair.plot([0, 0], [0, 0], color="C0", lw=1.0, ls=":", alpha=0.8)
        kw = dict(angles="xy", scale_units="xy", scale=1, width=0.02, headwidth=3.2, headlength=3.8,
                  headaxislength=3.4)
        self.arrows = ax_pair.quiver([0, 0], [0, 0], [0, 0], [0, 0], color=["C0", "C1"], zorder=3, **kw)
        (self.arc,) = ax_pair.plot([], [], color="C2", lw=1.4, zorder=2)
        self.q_text = ax_pair.text(0, 0, "", color="C0", fontsize=9, ha="center", va="center")
        self.k_text = ax_pair.text(0, 0, "", color="C1", fontsize=9, ha="center", va="center")
        ax_pair.set_xlim(-1.45, 1.45)   # room for a label outside the circle at any angle
        ax_pair.set_ylim(-1.45, 1.45)
        # equal aspect shrinks the plane inside its cell; anchored at the top, the title's room
        # is what the layout measured (centred, the title ended 0.9 px past the figure's edge)
        ax_pair.set_aspect("equal", anchor="N")
        ax_pair.set_xticks([])
        ax_pair.set_yticks([])
        ax_pair.set_xlabel(label("第 2i 维", "dim 2i"), labelpad=2)
        ax_pair.set_ylabel(label("第 2i+1 维", "dim 2i+1"), labelpad=2)
        # the titles and the angle in pieces: their words recur, only the numbers are new
        self.title_pair = title_row(ax_pair, fontsize=9)
        self.angle_text = text_row(ax_pair, 0.03, 0.03, transform=ax_pair.transAxes, fontsize=9, color="C2",
                                   va="bottom")

        offsets = np.linspace(-self.OFFSET_MAX, self.OFFSET_MAX, self.GRID)
        zeros = np.zeros_like(offsets)
        (self.pair_curve,) = ax_curve.plot(offsets, zeros, color="C2", lw=0.8, alpha=0.55)
        (self.mirror,) = ax_curve.plot(offsets, zeros, color="C3", lw=1.1, ls=":")
        (self.total,) = ax_curve.plot(offsets, zeros, color="C0", lw=1.6)
        (self.vline,) = ax_curve.plot([0, 0], [-1.1, 1.1], color="0.5", lw=0.8, ls="--")
        (self.pair_dot,) = ax_curve.plot([0], [0], "o", color="C2", ms=5)
        (self.total_dot,) = ax_curve.plot([0], [0], "o", color="C0", ms=7, mec="k", mew=0.8)
        ax_curve.axhline(0, color="0.8", lw=0.6, zorder=0.5)
        ax_curve.set_xlim(-self.OFFSET_MAX, self.OFFSET_MAX)
        ax_curve.set_ylim(-1.1, 2.05)   # room for the legend above the curves (it is not redrawn on top)
        ax_curve.set_yticks([-1, -0.5, 0, 0.5, 1])
        ax_curve.set_xlabel(label("偏移 k = n − m (offset)", "offset k = n − m"))
        ax_curve.set_ylabel(label("分数 / (|q||κ|)", "score / (|q||κ|)"))
        handles = [Line2D([], [], color="C0", lw=1.6, label=label("全部对：cos(q_m, κ_n)", "all pairs: cos(q_m, κ_n)")),
                   Line2D([], [], color="C3", lw=1.1, ls=":", label=label("镜像 k → −k", "mirrored: k → −k")),
                   Line2D([], [], color="C2", lw=0.9, label=label("只看第 i 对", "pair i alone")),
                   Line2D([], [], color="C0", marker="o", ms=6, mec="k", mew=0.8, ls="none",
                          label=label("在实际的 (m, n) 上算出的分数", "score computed at the actual (m, n)"))]
        ax_curve.legend(handles=handles, fontsize=9, loc="upper center", ncols=2, frameon=False,
                        handlelength=1.6, columnspacing=0.8, borderaxespad=0.2)
        self.title_curve = title_row(ax_curve, fontsize=9)

    def artists(self):
        return [self.ghost, self.arc, self.arrows, self.q_text, self.k_text, self.title_pair,
                self.angle_text, self.pair_curve, self.mirror, self.total, self.vline, self.pair_dot, self.total_dot,
                self.title_curve]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): q at position
        0 (pair i only), the rotated arrows with their labels and angle, the plane's title, pair
        i's curve, the curve of all pairs and its mirror (base only; drawn over pair i's), the
        marks at the actual (m, n) (drawn over both curves) and the score's title."""
        return {"ghost": [self.ghost], "plane": [self.arc, self.arrows, self.q_text, self.k_text, self.angle_text],
                "pair_title": [self.title_pair], "pair_curve": [self.pair_curve], "curve": [self.mirror, self.total],
                "marks": [self.vline, self.pair_dot, self.total_dot], "score_title": [self.title_curve]}

    def update(self, q, key, pos, n, i, base):
        d = len(q)
        w = frequencies(d, base)
        norm = float(np.linalg.norm(q) * np.linalg.norm(key))   # rotations keep lengths: score / norm = cosine
        # the curves: q at position 0, κ at position k (the relative claim: nothing else is needed)
        offsets = self.total.get_xdata()
        qs, ks = rope(q[None, :], [0.0], base)[0], rope(np.tile(key, (len(offsets), 1)), offsets, base)
        curve = ks @ qs / norm
        self.total.set_ydata(curve)
        self.mirror.set_ydata(curve[::-1])
        qi, ki = q[2 * i:2 * i + 2], key[2 * i:2 * i + 2]
        ni = float(np.linalg.norm(qi) * np.linalg.norm(ki))
        phase = math.atan2(qi[0] * ki[1] - qi[1] * ki[0], qi @ ki)   # angle from q_i to κ_i
        self.pair_curve.set_ydata(np.cos(phase + offsets * w[i]))
        # the marker: the score actually computed with q at m = pos and κ at n
        qm = rope(q[None, :], [float(pos)], base)[0]
        kn = rope(key[None, :], [float(n)], base)[0]
        off = n - pos
        score = float(qm @ kn) / norm
        pair_score = float(qm[2 * i:2 * i + 2] @ kn[2 * i:2 * i + 2]) / ni
        self.vline.set_xdata([off, off])
        self.total_dot.set_data([off], [score])
        self.pair_dot.set_data([off], [pair_score])
        # the plane of pair i: directions only (lengths differ from pair to pair)
        uq = qm[2 * i:2 * i + 2] / np.linalg.norm(qi)
        uk = kn[2 * i:2 * i + 2] / np.linalg.norm(ki)
        u0 = qi / np.linalg.norm(qi)
        self.ghost.set_data([0, 0.95 * u0[0]], [0, 0.95 * u0[1]])
        self.arrows.set_UVC([0.95 * uq[0], 0.95 * uk[0]], [0.95 * uq[1], 0.95 * uk[1]])
        a0 = math.atan2(uq[1], uq[0])
        turn = (math.atan2(uk[1], uk[0]) - a0 + math.pi) % (2 * math.pi) - math.pi
        # labels outside the circle, anchored by the corner facing it; two close arrows get their
        # labels spread apart (at least SPREAD radians), so neither label covers the other
        spread = max(0.0, self.SPREAD - abs(turn)) / 2 * (1.0 if turn >= 0 else -1.0)
        self._place_label(self.q_text, a0 - spread, f"q_{pos}")
        self._place_label(self.k_text, a0 + turn + spread, f"κ_{n}")
        # the angle readout goes to the corner farthest from both labels
        gap = lambda c: min(abs((c - a + math.pi) % (2 * math.pi) - math.pi) for a in (a0 - spread, a0 + turn + spread))
        corner = max(self.CORNERS, key=lambda k: gap(math.radians(k)))
        x, y, ha, va = self.CORNERS[corner]
        self.angle_text.set_position((x, y))
        self.angle_text.set_horizontalalignment(ha)
        self.angle_text.set_verticalalignment(va)
        arc = a0 + np.linspace(0.0, turn, 40)
        self.arc.set_data(0.3 * np.cos(arc), 0.3 * np.sin(arc))
        self.title_pair.set_pieces((label(f"第 {i} 对：w_{i} = ", f"pair {i}: w_{i} = "), f"{w[i]:.3g}"),
                                   (f"(d = {d}, base = ", f"{base:g}", ")"))
        self.angle_text.set_pieces(("q→κ",), (f"{turn:+.2f}", " rad"))   # two short lines fit a corner
        self.title_curve.set_pieces(("m = ", f"{pos}", f", n = {n}, k = n − m = ", f"{off:+d}", ": cos(q_m, κ_n) = ",
                                     f"{score:+.3f}"))


def _rope_demo_vectors(d: int = 16, seed: int = 7, peak: float = 4.0):
    """The fixed q and key vector κ of the RoPE figures (d = 16: 8 pairs).

    q is random; κ = rope_rotation(-peak) q + noise, so the score peaks near k = n - m = +peak
    ("look 4 tokens ahead") and the curve is visibly not symmetric.
    """
    rng = np.random.default_rng(seed)
    q = rng.normal(size=d)
    return q, rope_rotation(-peak, d) @ q + 0.6 * rng.normal(size=d)


def plot_rope(pos: int = 5, n: int = 20, i: int = 0, base: float = 10000.0, ax=None):
    """RoPE for one fixed random q, κ (d = 16): pair i's plane and the score against k = n - m.

    Left: pair i of q rotated to position m = ``pos`` (blue; dotted: at position 0) and of
    κ rotated to n (orange). Right: ``rope(q, m).rope(κ, n) / (|q||κ|)`` for m = 0 and every
    offset k (solid), the same curve mirrored (dotted) and pair i's own cosine (green); the
    dots are the score computed at the actual (m, n).
    """
    q, key = _rope_demo_vectors()
    pos = check_int("pos", pos, -10**6, 10**6)
    n = check_int("n", n, -10**6, 10**6)
    i = check_int("i", i, 0, len(q) // 2 - 1)
    base = check_base(base)
    if abs(n - pos) > _RopeView.OFFSET_MAX:
        raise ValueError(bilingual(f"|n - pos| must be <= {_RopeView.OFFSET_MAX}, got {n - pos}",
                                   "|n − pos| 不能超过 "
                                   f"{_RopeView.OFFSET_MAX}"))
    with figure_style():
        fig, (ax_pair, ax_curve) = new_axes(ax, (8, 3.2), 1, 2, width_ratios=[1, 2.1])
        _RopeView(ax_pair, ax_curve).update(q, key, pos, n, i, base)
    return fig


@functools.cache
def _demo_vectors():
    """The explorer's q and κ (the same every time: a fixed seed), computed once."""
    return _rope_demo_vectors()


class RopeExplorer(Explorer):
    """Move the query position m (``pos``), the pair ``i`` and ``base``: q and κ as arrows in
    pair i's plane, and the score against the offset k = n - m with the current (m, n) marked.

    κ stays at position ``n`` (constructor argument). The curve is computed once with q at
    position 0; the marker is the score computed at the actual m and n and always lands on it.
    """

    spec = ExplorerSpec(
        name="rope", main="pos", figsize=(7.6, 3.0),
        controls=(
            int_slider("pos", 5, lambda p: p["n"] - _RopeView.OFFSET_MAX + 10,
                       lambda p: p["n"] + _RopeView.OFFSET_MAX - 10, label="q 的位置 m",
                       changes=("plane", "marks", "score_title")),
            # pair i's curve lies under the curve of all pairs: that one is redrawn over it
            int_slider("i", 0, 0, 7, label="第几对",   # the demo vectors' 8 pairs
                       changes=("ghost", "plane", "pair_title", "pair_curve", "curve", "marks")),
            base_slider(10000.0, 1, 5, step=0.25,
                        changes=("plane", "pair_title", "pair_curve", "curve", "marks", "score_title")),
        ),
        params=(Param("n", 20, lambda v: check_int("n", v, 0, 40)),),
        view=lambda fig, p: _RopeView(*fig.subplots(1, 2, width_ratios=[1, 2.1])),
        update=lambda view, v, p: view.update(*_demo_vectors(), v["pos"], p["n"], v["i"], v["base"]),
        grid=(Axis("i", page=(0, 1, 3, 7)), Axis("pos", count=21, keep=(16, 24))),
        steps=(
            step(("pos", 16), ("pos", 24), see="圆点总落在曲线上；k = +4 是峰，k = −4 处蓝线和红点线不重合"),
            step(("i", 1), ("i", 3), ("i", 7), see="第 0 对振荡得最密，后面的对越来越慢"),
            step(("base", 10.0), ("base", 1e5), see="base 小曲线毛糙，base 大慢的对几乎不转", page=False),
        ),
    )


def plot_rope_decay(d_model: int = 128, base: float = 10000.0, max_offset: int = 256, seed: int = 0,
                    ax=None):
    """RoFormer's long-term decay: the bound and two actual scores against the offset k.

    Left: the decaying quantity ``(1/(d/2)) Σ_j |S_j(k)|`` (:func:`posenc.rope.rope_decay_bound`),
    divided by its value at k = 0. Right: ``rope(q, m) · rope(κ, m + k) / (|q||κ|)`` for
    q = κ = all ones (falls on average, oscillating) and for one random pair q, κ (``seed``;
    no decay). The random pair's own bound (:func:`posenc.rope.rope_abel_bound`) is far above
    its score and is printed, not drawn, in the notebook.
    """
    from ..rope import rope_decay_bound, rope_score_by_offset

    d_model = check_int("d_model", d_model, 2, 1024)
    if d_model % 2:
        raise ValueError(bilingual(f"d_model must be even, got {d_model}", "d_model 必须是偶数"))
    base = check_base(base)
    max_offset = check_int("max_offset", max_offset, 1, 100000)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    ks = np.arange(max_offset + 1)
    bound = rope_decay_bound(ks, d_model, base)
    ones = np.ones(d_model)
    q, key = rng.normal(size=(2, d_model))
    norm = np.linalg.norm(q) * np.linalg.norm(key)
    with figure_style():
        fig, (ax_b, ax_s) = new_axes(ax, (8.4, 3.0), 1, 2)
        ax_b.plot(ks, bound / bound[0], color="C3", lw=1.3)
        ax_b.set_xlabel(label("偏移 k = n − m", "offset k = n − m"))
        ax_b.set_ylabel(label("(1/(d/2))Σ|S_j|，除以 k = 0 的值", "(1/(d/2))Σ|S_j| / value at k = 0"))
        ax_b.set_title(label(f"RoFormer 的衰减量（d = {d_model}）", f"RoFormer's decaying quantity (d = {d_model})"),
                       fontsize=9)
        ax_b.set_ylim(0, 1.05)
        ax_s.axhline(0, color="0.8", lw=0.6)
        ax_s.plot(ks, rope_score_by_offset(ones, ones, ks, base) / d_model, color="C0", lw=1.2,
                  label=label("q = κ = 全 1", "q = κ = all ones"))
        ax_s.plot(ks, rope_score_by_offset(q, key, ks, base) / norm, color="C1", lw=1.0,
                  label=label("随机 q、κ", "random q, κ"))
        ax_s.set_xlabel(label("偏移 k = n − m", "offset k = n − m"))
        ax_s.set_ylabel(label("分数 / (|q||κ|)", "score / (|q||κ|)"))
        ax_s.set_title(label("实际的分数", "actual scores"), fontsize=9)
        ax_s.legend(fontsize=9, loc="upper right", frameon=False)
    return fig
