"""Stretching RoPE's context as a picture: what PI, NTK-aware scaling and YaRN do to each
pair's frequency, which angles each pair saw in training and meets at the target length,
and the score against the offset before and after scaling.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..context import (
    ROPE_TYPES,
    YARN_BETA_FAST,
    YARN_BETA_SLOW,
    check_rope_type,
    rope_angle_coverage,
    rope_scaled_score,
    rotations_per_context,
    yarn_paper_ramp,
    yarn_ramp,
)
from ..validate import bilingual, check_base, check_d_model, check_factor, check_int
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, Param, choice_slider, dropdown, step
from .style import CAPTION_BOX, new_axes, figure_style, label

#: How figures name the RoPE scaling types (Hugging Face's ``rope_type`` names).
ROPE_TYPE_NAMES = {"default": ("不缩放 (default)", "none (default)"), "linear": ("PI（位置插值，linear）", "PI (linear)"),
                   "ntk": ("NTK-aware", "NTK-aware"), "yarn": ("YaRN", "YaRN")}
#: The values the explorer's sliders offer.
FACTORS = (1, 2, 4, 8, 16, 32)
TRAIN_LENS = (16, 64, 256, 1024, 2048, 4096, 8192)
TARGET_LENGTHS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
HEAD_DIMS = (8, 16, 32, 64, 128)


def _rope_type_name(rope_type: str) -> str:
    return label(*ROPE_TYPE_NAMES[rope_type])


# What the scaling type and factor do not change is computed once per setting: the score
# range seen in training (6 ms of a 8-ms update at L = 4096) and the plain curve.
@functools.lru_cache(maxsize=64)
def _training_band(d_model: int, train_len: int, base: float) -> tuple[float, float]:
    """The lowest and highest score over the offsets 0 .. L-1 of plain RoPE (q = κ)."""
    seen = rope_scaled_score(d_model, np.arange(train_len), base)
    return float(seen.min()), float(seen.max())


@functools.lru_cache(maxsize=64)
def _plain_scores(d_model: int, target_len: int, base: float, grid: int):
    """``grid`` integer offsets spread over 0 .. L' and plain RoPE's score at each (read-only arrays)."""
    ks = np.unique(np.round(np.linspace(0.0, 1.0, grid) * target_len))
    plain = rope_scaled_score(d_model, ks, base)
    ks.flags.writeable = plain.flags.writeable = False
    return ks, plain


class _ScalingView:
    """Three panels: slowdown per pair, largest angle per pair (training vs target), score vs offset."""

    R_LIM = (1e-4, 1e4)        # turns per original context, every setting of the explorer fits
    GRID = 801

    def __init__(self, ax_slow, ax_turn, ax_score):
        from .text_pieces import title_row

        self.ax_slow, self.ax_turn, self.ax_score = ax_slow, ax_turn, ax_score
        lo, hi = self.R_LIM
        # panel 1: w_i / w'_i against the pair's turns in the original context
        for ax in (ax_slow, ax_turn):
            ax.set_xscale("log")
            ax.set_xlim(lo, hi)
            ax.axvline(YARN_BETA_SLOW, color="0.75", lw=0.8, ls=":")
            ax.axvline(YARN_BETA_FAST, color="0.75", lw=0.8, ls=":")
        ax_slow.set_yscale("log", base=2)
        ax_slow.set_ylim(0.8, 55)
        ax_slow.set_yticks([1, 2, 4, 8, 16, 32], labels=["1", "2", "4", "8", "16", "32"])
        # the β names above the largest ρ (32): its dashed line ran through them at 38
        ax_slow.text(YARN_BETA_SLOW, 52, " β_slow", fontsize=9, color="0.5", va="top")
        ax_slow.text(YARN_BETA_FAST, 52, " β_fast", fontsize=9, color="0.5", va="top")
        (self.s_line,) = ax_slow.plot([lo, hi], [1, 1], color="C3", lw=0.9, ls="--")
        (self.slow,) = ax_slow.plot([], [], "o-", color="C0", ms=3.5, lw=1.0)
        ax_slow.set_xlabel(label("第 i 对在训练长度 L 内转的圈数 r_i = L·w_i / 2π",
                                 "turns of pair i in the training length, r_i = L·w_i / 2π"), fontsize=9)
        ax_slow.set_ylabel(label("变慢的倍数 w_i / w'_i", "slowdown w_i / w'_i"), fontsize=9)
        self.title_slow = title_row(ax_slow, fontsize=9)   # words recur, numbers new: drawn in pieces
        # panel 2: largest angle per pair, in turns, training vs target
        ax_turn.set_yscale("log")
        ax_turn.set_ylim(1e-4, 1e4)
        # the one-turn line is named in the legend: a name on the line was run through by the
        # points at some training length, wherever it sat
        ax_turn.axhline(1.0, color="0.4", lw=0.9, ls="--", label=label("一整圈", "one turn"))
        (self.train_pts,) = ax_turn.plot([], [], "o", color="C0", ms=3.5, label=label("训练中", "in training"))
        (self.target_pts,) = ax_turn.plot([], [], "^", color="C1", ms=4, mfc="none",
                                          label=label("目标长度下", "at the target length"))
        (self.unseen_pts,) = ax_turn.plot([], [], "^", color="C3", ms=4.5,
                                          label=label("没见过的角度", "angles never seen"))
        # Upper left: the training points lie on the diagonal (|k|·w_i/2π = r_i at k = L) and
        # the target's L'/L times higher, so only a short L with a long L' reaches there (the
        # lower right is crossed by every L' < L). On a white box over the dotted β lines.
        ax_turn.legend(fontsize=9, loc="upper left", handletextpad=0.3, framealpha=0.9, edgecolor="none")
        ax_turn.set_xlabel(label("r_i（同左图）", "r_i (as on the left)"), fontsize=9)
        ax_turn.set_ylabel(label("最大转角 |k|·w_i / 2π（圈）", "largest angle |k|·w_i / 2π (turns)"), fontsize=9)
        self.title_turn = title_row(ax_turn, fontsize=9)   # words recur, numbers new: drawn in pieces
        # panel 3: score against the offset, as a fraction of the target length
        x = np.linspace(0.0, 1.0, 2)
        from matplotlib.patches import Polygon

        self.band = ax_score.add_patch(Polygon([(0, 0), (0, 0), (1, 0), (1, 0)], closed=True, color="C0",
                                               alpha=0.12, lw=0, transform=ax_score.get_yaxis_transform()))
        (self.plain,) = ax_score.plot(x, np.zeros_like(x), color="0.55", lw=0.8,
                                      label=label("原始 RoPE", "plain RoPE"))
        (self.scaled,) = ax_score.plot(x, np.zeros_like(x), color="C1", lw=1.2,
                                       label=label("缩放后", "scaled"))
        (self.train_end,) = ax_score.plot([0, 0], [-0.7, 2.0], color="C0", lw=0.9, ls="--")
        ax_score.set_xlim(0, 1)
        ax_score.set_ylim(-0.7, 2.0)
        ax_score.set_xlabel(label("偏移 k / 目标长度 L'", "offset k / target length L'"), fontsize=9)
        ax_score.set_ylabel(label("q = κ 时的分数（每对平均）", "score for q = κ (mean over pairs)"), fontsize=9)
        ax_score.legend(fontsize=9, loc="upper right", frameon=False)
        self.title_score = title_row(ax_score, fontsize=9)   # words recur, numbers new: drawn in pieces

    def artists(self):
        return [self.s_line, self.slow, self.title_slow, self.train_pts, self.target_pts, self.unseen_pts,
                self.title_turn, self.band, self.plain, self.scaled, self.train_end, self.title_score]

    def parts(self):
        """The animated artists by panel (the controls' ``changes``): the slowdown per pair
        (the target length does not change it), the angles per pair, the score against the offset."""
        return {"slowdown": [self.s_line, self.slow, self.title_slow],
                "angles": [self.train_pts, self.target_pts, self.unseen_pts, self.title_turn],
                "score": [self.band, self.plain, self.scaled, self.train_end, self.title_score]}

    def update(self, rope_type, factor, train_len, target_len, d_model, base):
        cov = rope_angle_coverage(d_model, train_len, target_len, base, rope_type, factor)
        r = cov.rotations
        s = factor if rope_type != "default" else 1.0
        self.s_line.set_ydata([s, s])
        self.slow.set_data(r, cov.slowdown)
        turns_train = cov.train_angle / (2 * math.pi)
        turns_target = cov.target_angle / (2 * math.pi)
        self.train_pts.set_data(r, turns_train)
        self.target_pts.set_data(r, turns_target)
        self.unseen_pts.set_data(r[cov.unseen], turns_target[cov.unseen])
        name = _rope_type_name(rope_type)
        # the ρ the curve is drawn with: 1 without scaling, whatever the factor slider says
        self.title_slow.set_pieces((label(f"{name}，ρ = ", f"{name}, ρ = "), f"{s:g}",
                                    label("：每对变慢的倍数", ": slowdown per pair")))
        if target_len < train_len:      # nothing to extend: said in words, not left to the reader
            self.title_turn.set_pieces(("L' = ", f"{target_len}", " < L = ", f"{train_len}",
                                        label("：比训练还短，无需扩展", ": shorter, nothing to extend")))
        else:
            self.title_turn.set_pieces(("L = ", f"{train_len}", " → L' = ", f"{target_len}", label("：", ": "),
                                        f"{int(cov.unseen.sum())}", label(" 对出现没见过的角度", " pairs meet new angles")))
        # score against the offset: plain and scaled, on integer offsets 0 .. L'
        ks, plain = _plain_scores(d_model, target_len, base, self.GRID)
        scaled = rope_scaled_score(d_model, ks, base, rope_type, factor, train_len)
        self.plain.set_data(ks / target_len, plain)
        self.scaled.set_data(ks / target_len, scaled)
        lo, hi = _training_band(d_model, train_len, base)
        self.band.set_xy([(0, lo), (0, hi), (1, hi), (1, lo)])
        end = min(1.0, (train_len - 1) / target_len)
        self.train_end.set_xdata([end, end])
        outside = float(np.mean((scaled < lo - 1e-9) | (scaled > hi + 1e-9)))
        self.title_score.set_pieces(
            ("d = ", f"{d_model}", label("：缩放后 ", ": "), f"{outside:.0%}",
             label(" 的偏移分数超出训练时的范围（蓝带）", " of offsets score outside the training band")),
            (label("注意力因子 ", "attention factor "), f"{cov.attention_factor:.3f}",
             label("（logits 再乘它的平方）", " (logits times its square)")))
        return cov


def plot_rope_scaling(rope_type: str = "default", factor: float = 4.0, train_len: int = 4096,
                      target_len: int = 16384, d_model: int = 128, base: float = 10000.0, ax=None):
    """What a RoPE scaling rope_type does per pair, and what it changes at the target length.

    Left: each pair's slowdown ``w_i / w'_i`` against its turns in the training length
    (``r_i``, log axis; dotted: YaRN's β_slow = 1 and β_fast = 32). Middle: each pair's largest
    angle (in turns) in training and at ``target_len`` with the scaled frequencies; red:
    angles training never produced. Right: the score of q = κ against the offset over the
    whole target length, plain (grey) and scaled (orange); the blue band is the range of
    scores seen in training, the dashed line the training length. A ``target_len`` below
    ``train_len`` is a shorter context than training: nothing to extend, and the middle
    title says so. (``factor`` below 1 is refused: see :func:`rope_frequencies`.)
    """
    rope_type = check_rope_type(rope_type, ROPE_TYPES)
    factor = check_factor(factor)
    train_len = check_int("train_len", train_len, 2, 10**6)
    target_len = check_int("target_len", target_len, 2, 10**6)
    d_model = check_d_model(d_model)
    if d_model > 256:
        raise ValueError(bilingual(f"d_model must be <= 256 here, got {d_model}", "这里 d_model 不能超过 256"))
    base = check_base(base)
    with figure_style():
        fig, axes = new_axes(ax, (11.5, 3.4), 1, 3, width_ratios=[1, 1, 1.25])
        _ScalingView(*axes).update(rope_type, factor, train_len, target_len, d_model, base)
    return fig


def plot_yarn_ramp(d_model: int = 128, train_len: int = 4096, base: float = 10000.0, ax=None):
    """YaRN's blend γ for each pair against the pair's turns in the training length (log axis),
    in the paper's direction (0 = interpolate, 1 = keep): the ramp implementations compute
    (:func:`yarn_ramp`, linear in the pair index i, i.e. in log r) and the paper's eq. 18
    (:func:`yarn_paper_ramp`, linear in r), with ``beta_slow`` = 1 and ``beta_fast`` = 32 dotted.
    """
    d_model = check_d_model(d_model)
    train_len = check_int("train_len", train_len, 2, 10**6)
    base = check_base(base)
    r = rotations_per_context(d_model, train_len, base)
    with figure_style():
        fig, ax = new_axes(ax, (7.2, 3.2))
        ax.set_xscale("log")
        for turns in (YARN_BETA_SLOW, YARN_BETA_FAST):
            ax.axvline(turns, color="0.7", lw=0.8, ls=":")
        ax.text(YARN_BETA_SLOW, 1.1, " beta_slow", fontsize=9, color="0.45", va="center")
        ax.text(YARN_BETA_FAST, 1.1, " beta_fast", fontsize=9, color="0.45", va="center")
        ax.plot(r, yarn_paper_ramp(d_model, train_len, base), "s", color="C1", ms=3.5, mfc="none",
                label=label("论文式 (18)：在 r 上线性", "the paper, eq. 18: linear in r"))
        ax.plot(r, yarn_ramp(d_model, train_len, base), "o-", color="C0", ms=3.5, lw=1.0,
                label=label("实现（作者代码、Hugging Face）：在 i 上线性", "implementations: linear in i"))
        ax.set_ylim(-0.08, 1.2)
        # room for the beta_fast label right of its line when every pair turns fewer times
        ax.set_xlim(right=max(ax.get_xlim()[1], 4 * YARN_BETA_FAST))
        ax.set_yticks([0, 0.5, 1])
        # on white boxes above the ramps: with few pairs (small d) a ramp passes where they are
        ax.text(r.min(), 0.06, label(" γ = 0：插值 w/ρ", " γ = 0: interpolate, w/ρ"), fontsize=9, color="0.3",
                zorder=3, bbox=CAPTION_BOX)
        ax.text(r.max(), 0.94, label("γ = 1：保留 w ", "γ = 1: keep w "), fontsize=9, color="0.3",
                ha="right", va="top", zorder=3, bbox=CAPTION_BOX)
        ax.set_xlabel(label("第 i 对在训练长度 L 内转的圈数 r_i = L·w_i / 2π（每个点是一对）",
                            "turns of pair i in the training length, r_i = L·w_i / 2π (one point per pair)"),
                      fontsize=9)
        ax.set_ylabel(label("γ_i", "γ_i"), fontsize=9)
        ax.set_title(label(f"YaRN 的过渡比例 γ：d = {d_model}，L = {train_len}，w' = γ·w + (1 − γ)·w/ρ",
                           f"YaRN's blend γ: d = {d_model}, L = {train_len}, w' = γ·w + (1 − γ)·w/ρ"), fontsize=9)
        ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(0.0, 0.9), frameon=False)
    return fig


#: The three panels of the context explorer (what most of its controls change).
_PANELS = ("slowdown", "angles", "score")


class ContextExplorer(Explorer):
    """Pick a RoPE scaling type, the factor s, the training length L, the target length L' and
    the head dimension d: what each pair's frequency becomes, which angles are new at L',
    and the score against the offset before and after scaling.
    """

    spec = ExplorerSpec(
        name="context", main="target_len",
        figsize=(10.7, 3.4),   # 963 px at 90 dpi: inside a 968-px notebook output (the browser suite checks)
        controls=(
            dropdown("rope_type", "default", ROPE_TYPES, label="缩放类型",
                     option_labels=tuple(ROPE_TYPE_NAMES[m] for m in ROPE_TYPES), changes=_PANELS),
            choice_slider("factor", 4, FACTORS, label="倍数 ρ",   # no scaling: ρ changes nothing, greyed out
                          active_when=lambda v: v["rope_type"] != "default", changes=_PANELS),
            choice_slider("train_len", 4096, TRAIN_LENS, label="训练长度 L", changes=_PANELS),
            choice_slider("target_len", 16384, TARGET_LENGTHS, label="目标长度 L'", changes=("angles", "score")),
            choice_slider("d_model", 128, HEAD_DIMS, label="每个头的维度 d", changes=_PANELS),
        ),
        params=(Param("base", 10000.0, check_base),),
        view=lambda fig, p: _ScalingView(*fig.subplots(1, 3, width_ratios=[1, 1, 1.25])),
        update=lambda view, v, p: {"coverage": view.update(v["rope_type"], v["factor"], v["train_len"],
                                                           v["target_len"], v["d_model"], p["base"])},
        grid=(Axis("rope_type"), Axis("target_len")),
        steps=(
            step(("rope_type", "default"), ("target_len", 4096), ("target_len", 32768),
                 see="红三角都在虚线下方（没转满一圈的对）"),
            step(("rope_type", "linear"), ("target_len", 16384), see="左图所有点都在 ρ 上，L' = ρ·L 时没有红三角"),
            step(("rope_type", "ntk"), ("target_len", 8192), ("target_len", 32768), see="从右（不动）到左（慢 ρ 倍）平滑上升"),
            step(("rope_type", "yarn"), ("target_len", 16384), see="两条点线之间是一段斜坡"),
            step(("rope_type", "yarn"), ("train_len", 1024), see="斜坡跟着圈数移动", page=False),
        ),
    )

    @property
    def coverage(self):
        """Which angles are new at L' for the current settings (the view's last update)."""
        return self.readouts["coverage"]
