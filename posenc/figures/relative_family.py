"""The relative-position family as pictures: T5's buckets and the bias row they give a head,
the four terms of the attention score (absolute PE vs Transformer-XL) against the offset, and
which row of Shaw et al.'s table each (query, key) pair uses.
"""
from __future__ import annotations

import math

import numpy as np

from ..distance import random_word_vectors
from ..relative_family import (
    TERM_LABELS,
    TERM_LABELS_EN,
    t5_sizes,
    absolute_score_terms,
    shaw_relative_index,
    t5_bucket_ranges,
    t5_demo_bias_table,
    t5_relative_bucket,
    transformer_xl_demo_parameters,
    transformer_xl_score_terms,
)
from ..validate import bilingual, check_int
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, checkbox, int_slider, step
from .style import new_axes, figure_style, label

TERMS = ("a", "b", "c", "d")
_TERM_COLORS = {"a": "C0", "b": "C1", "c": "C2", "d": "C3"}


# ---------------------------------------------------------------------------
# T5 buckets
# ---------------------------------------------------------------------------
def _t5_summary(bidirectional, num_buckets, max_distance) -> dict:
    """Numbers the T5 figure writes: buckets per direction, exact range, start of the last bucket."""
    _, half, max_exact, _ = t5_sizes(bidirectional, num_buckets, max_distance)
    ranges = t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    used = {b for b, _, _ in ranges}
    last_start = next(-hi for b, lo, hi in ranges if lo == -math.inf)    # the earlier side's last bucket
    return {"half": half, "max_exact": max_exact, "last_start": int(last_start),
            "unused": sorted(set(range(num_buckets)) - used)}


class _T5View:
    """Bucket of every offset k (top) and the bias row of one head (bottom), on a symlog axis."""

    K_MAX = 1000
    LINTHRESH = 10
    NB_MAX = 64

    def __init__(self, ax_bucket, ax_bias):
        from matplotlib.lines import Line2D
        from matplotlib.transforms import offset_copy

        from .text_pieces import text_row, title_row

        self.ks = np.arange(-self.K_MAX, self.K_MAX + 1)
        self.past = self.ks <= 0
        self.ax_bucket, self.ax_bias = ax_bucket, ax_bias
        for ax in (ax_bucket, ax_bias):
            ax.set_xscale("symlog", linthresh=self.LINTHRESH, linscale=1.0)
            ax.set_xlim(-self.K_MAX, self.K_MAX)
            ax.axvline(0, color="0.8", lw=0.6, zorder=0.5)
        ax_bucket.set_ylim(-2, self.NB_MAX + 2)
        ax_bucket.set_yticks([0, 16, 32, 48, 64])
        ax_bucket.set_ylabel(label("桶 (bucket)", "bucket"))
        ax_bucket.tick_params(labelbottom=False)
        ax_bias.set_ylim(-7.8, 1.4)
        ax_bias.set_ylabel(label("偏置（示意）", "bias (illustrative)"))
        ax_bias.set_xlabel(label("偏移 k = n − m（对称对数刻度：|k| ≤ 10 线性，之外每格 10 倍）",
                                 "offset k = n − m (symlog: linear for |k| ≤ 10, then ×10 per tick)"))
        self.bucket_past, = ax_bucket.plot([], [], color="C0", lw=1.5, drawstyle="steps-mid")
        self.bucket_future, = ax_bucket.plot([], [], color="C0", lw=1.5, drawstyle="steps-mid")
        self.bias_past, = ax_bias.plot([], [], color="C4", lw=1.5, drawstyle="steps-mid")
        self.bias_future, = ax_bias.plot([], [], color="C4", lw=1.5, drawstyle="steps-mid")
        self.exact_lines = [ax.plot([], [], color="C2", lw=0.9, ls="--")[0] for ax in (ax_bucket, ax_bias)]
        self.far_lines = [ax.plot([], [], color="C3", lw=0.9, ls="--")[0] for ax in (ax_bucket, ax_bias)]
        # one text per line, each in pieces: the words are replayed from the glyph cache, only
        # the numbers are new
        fig = ax_bucket.get_figure()
        self.info = [text_row(ax_bucket, 0.01, 0.97, transform=offset_copy(ax_bucket.transAxes, fig, 0, -10.5 * j,
                                                                            units="points"),
                              ha="left", va="top", fontsize=9,
                              bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1.6))
                     for j in range(3)]
        self.title = title_row(ax_bucket, fontsize=9)
        self.title_bias = ax_bias.set_title(" ", fontsize=9)
        handles = [Line2D([], [], color="C2", lw=0.9, ls="--", label=label("±max_exact：精确桶到此为止",
                                                                            "±max_exact: exact buckets end")),
                   Line2D([], [], color="C3", lw=0.9, ls="--", label=label("±max_distance", "±max_distance"))]
        ax_bucket.legend(handles=handles, loc="lower right", fontsize=9, frameon=False)

    def info_text(self) -> str:
        """The three lines of explanation, as one string."""
        return "\n".join(t.get_text() for t in self.info)

    def artists(self):
        return [self.bucket_past, self.bucket_future, self.bias_past, self.bias_future, *self.exact_lines,
                *self.far_lines, *self.info, self.title, self.title_bias]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the bucket and
        bias steps with the ±max_exact and ±max_distance lines drawn over them (every control
        moves the steps), the three lines of explanation (over the steps too), the titles (the
        bias panel's never changes)."""
        return {"curves": [self.bucket_past, self.bucket_future, self.bias_past, self.bias_future,
                           *self.exact_lines, *self.far_lines],
                "info": self.info, "title": [self.title], "bias_title": [self.title_bias]}

    def update(self, num_buckets, max_distance, bidirectional):
        ks, past = self.ks, self.past
        buckets = t5_relative_bucket(ks, bidirectional, num_buckets, max_distance)
        bias = t5_demo_bias_table(bidirectional, num_buckets, max_distance)[buckets]
        s = _t5_summary(bidirectional, num_buckets, max_distance)
        future = ks >= 0
        self.bucket_past.set_data(ks[past], buckets[past])
        self.bucket_future.set_data(ks[future], buckets[future])
        self.bias_past.set_data(ks[past], bias[past])
        self.bias_future.set_data(ks[future], bias[future])
        for line in (self.bucket_future, self.bias_future):   # causal: k > 0 is masked anyway
            line.set_color("C0" if line is self.bucket_future else "C4")
            line.set_linestyle("-" if bidirectional else ":")
            line.set_alpha(1.0 if bidirectional else 0.45)
        sides = (-1, 1) if bidirectional else (-1,)
        for lines, at in ((self.exact_lines, s["max_exact"]), (self.far_lines, max_distance)):
            xs, ys = [], []
            for sign in sides:
                xs += [sign * at, sign * at, np.nan]
                ys += [-1e3, 1e3, np.nan]
            for line in lines:
                line.set_data(xs, ys)
        mode = label("双向 (bidirectional)", "bidirectional") if bidirectional else label("因果 (causal)", "causal")
        self.title.set_pieces((f"T5: {mode}, num_buckets = ", f"{num_buckets}", ", max_distance = ", f"{max_distance}"))
        # each line in pieces: words, then numbers (label picks the Chinese or the English pieces)
        half, exact, last = f"{s['half']}", f"{s['max_exact']}", f"{s['last_start']}"
        per = (label(("每个方向 ", half, " 个桶"), (half, " buckets per direction")) if bidirectional
               else label((half, " 个桶全给过去 (k ≤ 0)"), ("all ", half, " buckets for the past (k ≤ 0)")))
        lines = [per + label(("；|k| < ", exact, "：一个偏移一个桶"), ("; |k| < ", exact, ": one bucket each")),
                 label(("|k| ≥ ", last, "：全在最后一个桶（含 ≥ ", f"{max_distance}", " 的一切）"),
                       ("|k| ≥ ", last, ": all in the last bucket (so is everything ≥ ", f"{max_distance}", ")"))]
        if bidirectional:
            lines.append(label(("k > 0 从桶 ", half, " 起算，但桶 ", half, " 没有偏移用到"),
                               ("k > 0 starts at bucket ", half, ", which no offset reaches")))
        else:
            lines.append((label("k ≥ 0 全在桶 0（k > 0 本来就被掩码遮住）", "k ≥ 0 all in bucket 0 (k > 0 is masked)"),))
        for text, line in zip(self.info, lines):
            text.set_pieces(line)
        self.title_bias.set_text(label("一个头加到分数上的偏置 bias[bucket(k)]（示意表，不是训练出来的）",
                                       "the bias one head adds, bias[bucket(k)] (illustrative table, not trained)"))


def plot_t5_buckets(num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True, ax=None):
    """T5's bucket of every offset k in ±1000 (top) and the bias row a head adds (bottom).

    The bias table is :func:`t5_demo_bias_table`, an illustrative one (not trained). The axis
    is symlog: linear for |k| <= 10, logarithmic beyond, so T5's log-spaced buckets look even.
    """
    t5_sizes(bidirectional, num_buckets, max_distance)
    check_int("num_buckets", num_buckets, 2, _T5View.NB_MAX)
    with figure_style():
        fig, (ax_bucket, ax_bias) = new_axes(ax, (7.6, 4.2), 2, 1, height_ratios=[1.25, 1])
        _T5View(ax_bucket, ax_bias).update(num_buckets, max_distance, bool(bidirectional))
    return fig


class T5BucketExplorer(Explorer):
    """T5's relative buckets: move ``num_buckets`` and ``max_distance``, switch ``bidirectional``.

    Top: the bucket of every offset k = n - m in ±1000; bottom: the bias a head with an
    illustrative (not trained) bias table would add.
    """

    spec = ExplorerSpec(
        name="t5_buckets", main="max_distance", figsize=(7.6, 4.0),
        controls=(
            int_slider("num_buckets", 32, 4, _T5View.NB_MAX, step=4, label="桶数", changes=("curves", "info", "title")),
            int_slider("max_distance", 128, 40, 512, label="最远距离", changes=("curves", "info", "title")),
            checkbox("bidirectional", True, label="双向", changes=("curves", "info", "title")),
        ),
        view=lambda fig, p: _T5View(*fig.subplots(2, 1, height_ratios=[1.25, 1], sharex=True)),
        update=lambda view, v, p: view.update(v["num_buckets"], v["max_distance"], bool(v["bidirectional"])),
        grid=(Axis("bidirectional"), Axis("num_buckets", page=(8, 16, 32, 64), live=(4, 8, 12, 16, 24, 32, 48, 64)), Axis("max_distance", count=12)),
        steps=(
            step(("num_buckets", 8), ("num_buckets", 64), see="精确的一段变长，对数段分得更细"),
            step(("max_distance", 40), ("max_distance", 512), see="对数段的终点移动，更远的偏移挤进最后一个桶"),
            step(("bidirectional", False), see="因果分桶：所有桶给 k ≤ 0，k > 0 全在桶 0"),
        ),
    )


# ---------------------------------------------------------------------------
# The four terms, absolute PE vs Transformer-XL
# ---------------------------------------------------------------------------
class _TermsView:
    """Each term of the score of one query word at m and one key word at m + k, against k:
    absolute PE (left) and Transformer-XL (right)."""

    K_MAX = 24
    M_MIN, M_MAX = 24, 224
    D_MODEL = 64

    def __init__(self, ax_abs, ax_xl):
        from matplotlib.lines import Line2D

        self.ks = np.arange(-self.K_MAX, self.K_MAX + 1)
        self.x_q, self.x_key = random_word_vectors(2, self.D_MODEL)[:, None, :]
        self.params = transformer_xl_demo_parameters(self.D_MODEL)
        self.axes = {"absolute": ax_abs, "transformer_xl": ax_xl}
        self.reference = {scheme: self.terms(scheme, self.M_MIN) for scheme in self.axes}
        # one y-range for both panels: enough for the sum of any subset of terms at any m
        subsets = [[x for j, x in enumerate(TERMS) if mask >> j & 1] for mask in range(1, 16)]
        reach = max(float(np.abs(sum(t[x] for x in subset)).max())
                    for t in [self.terms("absolute", m) for m in range(self.M_MIN, self.M_MAX + 1, 4)]
                    + [self.reference["transformer_xl"]] for subset in subsets)
        lim = 1.1 * reach
        self.lines, self.totals, self.titles = {}, {}, {}
        for scheme, ax in self.axes.items():
            self.lines[scheme] = {x: ax.plot(self.ks, np.zeros(len(self.ks)), color=_TERM_COLORS[x], lw=1.2)[0]
                                  for x in TERMS}
            self.totals[scheme], = ax.plot(self.ks, np.zeros(len(self.ks)), color="k", lw=2.0)
            ax.axhline(0, color="0.8", lw=0.6, zorder=0.5)
            ax.axvline(0, color="0.8", lw=0.6, zorder=0.5)
            ax.set_xlim(-self.K_MAX, self.K_MAX)
            ax.set_ylim(-lim, lim)
            ax.set_xlabel(label("偏移 k = n − m", "offset k = n − m"))
            self.titles[scheme] = ax.set_title(" ", fontsize=9)
            handles = [Line2D([], [], color=_TERM_COLORS[x], lw=1.2,
                              label=f"({x}) " + label(TERM_LABELS[scheme][x], TERM_LABELS_EN[scheme][x]))
                       for x in TERMS]
            handles.append(Line2D([], [], color="k", lw=2.0, label=label("勾选的项之和", "sum of the ticked terms")))
            ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=1, fontsize=9,
                      frameon=False, handlelength=1.4, columnspacing=0.8)
        ax_abs.set_ylabel(label("分数的各项", "score terms"))

    def terms(self, scheme: str, m: int) -> dict:
        keys = np.repeat(self.x_key, len(self.ks), axis=0)
        n = m + self.ks
        p = self.params
        if scheme == "absolute":
            t = absolute_score_terms(self.x_q, keys, p["w_q"], p["w_k_content"], [m], n)
        else:
            t = transformer_xl_score_terms(self.x_q, keys, p["w_q"], p["w_k_content"], p["w_k_position"],
                                           p["u"], p["v"], [m], n)
        return {x: t[x][0] for x in TERMS}

    def artists(self):
        out = []
        for scheme in self.axes:
            out += [*self.lines[scheme].values(), self.totals[scheme], self.titles[scheme]]
        return out

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the curves of
        both panels (a ticked term changes its line and the sum; the lines cross, so all are
        redrawn), the titles (which name m), and the absolute panel's curves (the only ones m moves)."""
        return {"curves": [*self.lines["absolute"].values(), self.totals["absolute"],
                           *self.lines["transformer_xl"].values(), self.totals["transformer_xl"]],
                "absolute": [*self.lines["absolute"].values(), self.totals["absolute"]],
                "titles": list(self.titles.values())}

    def update(self, m, shown):
        for scheme in self.axes:
            t = self.terms(scheme, m)
            total = np.zeros(len(self.ks))
            for x in TERMS:
                line = self.lines[scheme][x]
                line.set_ydata(t[x])
                line.set_alpha(1.0 if shown[x] else 0.25)
                line.set_linestyle("-" if shown[x] else ":")
                if shown[x]:
                    total = total + t[x]
            self.totals[scheme].set_ydata(total)
            change = max(float(np.abs(t[x] - self.reference[scheme][x]).max()) for x in TERMS)
            what = label("绝对位置编码 (x + PE)", "absolute PE (x + PE)") if scheme == "absolute" else "Transformer-XL"
            self.titles[scheme].set_text(label(
                f"{what}，query 在 m = {m}\n各项与 m = {self.M_MIN} 时相比最多变了 {change:.2f}",
                f"{what}, query at m = {m}\nlargest change of a term since m = {self.M_MIN}: {change:.2f}"))


def _check_terms(terms) -> dict:
    if isinstance(terms, str):
        terms = tuple(terms)
    picked = set(terms)
    if not picked <= set(TERMS):
        raise ValueError(bilingual(f"terms must be letters among 'abcd', got {terms!r}", "terms 只能由 a、b、c、d 组成"))
    return {x: x in picked for x in TERMS}


def plot_score_terms(m: int = 50, terms="abcd", ax=None):
    """The four terms of one query word (at m) against one key word at m + k, k in ±24.

    Left: sinusoidal PE added to the input (:func:`absolute_score_terms`); right:
    Transformer-XL (:func:`transformer_xl_score_terms`), same W_q and content W_k, untrained
    parameters from :func:`transformer_xl_demo_parameters`. ``terms`` (e.g. ``"bd"``) picks the
    terms in the black sum; the others are drawn dotted. The titles give the largest change of
    any term since m = 24: the right panel never changes with m.
    """
    m = check_int("m", m, _TermsView.M_MIN, _TermsView.M_MAX)
    shown = _check_terms(terms)
    with figure_style():
        fig, (ax_abs, ax_xl) = new_axes(ax, (7.6, 3.9), 1, 2)
        _TermsView(ax_abs, ax_xl).update(m, shown)
    return fig


class ScoreTermsExplorer(Explorer):
    """The four terms against the offset k: move the query position ``m``, tick terms (a)-(d).

    Left, absolute PE: terms (b)-(d) change as m moves. Right, Transformer-XL: nothing moves,
    every term depends on positions only through k.
    """

    spec = ExplorerSpec(
        name="score_terms", main="m", figsize=(7.6, 3.9),
        controls=(
            int_slider("m", 50, _TermsView.M_MIN, _TermsView.M_MAX, label="query 的位置",
                       changes=("absolute", "titles")),
            *(checkbox(x, True, label=name, widget={"indent": False}, width="auto",
                       changes=("curves",)) for x, name in zip(TERMS, (
                "内容–内容", "内容–位置", "位置–内容 | u", "位置–位置 | v"))),
        ),
        view=lambda fig, p: _TermsView(*fig.subplots(1, 2, sharey=True)),
        update=lambda view, v, p: view.update(v["m"], {x: v[x] for x in TERMS}),
        grid=(Axis("a"), Axis("c"), Axis("m", count=16)),
        steps=(
            step(("m", 100), ("m", 224), see="左边 (b)、(c)、(d) 和黑线在变，右边纹丝不动"),
            step(("a", False), ("c", False), see="右边剩下的 (b)+(d) 只是 k 的函数"),
        ),
    )


# ---------------------------------------------------------------------------
# Shaw et al.: which row of the table
# ---------------------------------------------------------------------------
def plot_shaw_index(query_len: int = 8, key_len: int | None = None, max_relative: int = 3, ax=None):
    """Each cell (query m, key n) shows the clipped offset clip(n - m, ±max_relative) whose
    vector a^K (and a^V) Shaw et al.'s attention uses there: 2*max_relative + 1 rows serve any length.
    """
    query_len = check_int("query_len", query_len, 1, 24)
    key_len = query_len if key_len is None else check_int("key_len", key_len, 1, 24)
    max_relative = check_int("max_relative", max_relative, 0, 24)
    clipped = shaw_relative_index(query_len, key_len, max_relative) - max_relative
    with figure_style():
        fig, ax = new_axes(ax, (4.6, 3.9))
        vmax = max(max_relative, 1)
        ax.imshow(clipped, cmap="PuOr", vmin=-vmax - 1, vmax=vmax + 1, interpolation="nearest")
        for r in range(query_len):
            for c in range(key_len):
                dark = max_relative > 0 and abs(clipped[r, c]) == max_relative
                ax.text(c, r, f"{clipped[r, c]:d}", ha="center", va="center", fontsize=9,
                        color="white" if dark else "black")
        ax.set_xticks(range(key_len))
        ax.set_yticks(range(query_len))
        ax.set_xlabel(label("key 位置 n", "key position n"))
        ax.set_ylabel(label("query 位置 m", "query position m"))
        ax.set_title(label(f"格中 = clip(n − m, ±{max_relative})：用 a^K 的哪一个\n"
                           f"（共 {2 * max_relative + 1} 个向量，对任何长度都够用）",
                           f"cell = clip(n − m, ±{max_relative}): which a^K\n"
                           f"({2 * max_relative + 1} vectors serve any length)"), fontsize=9)
    return fig
