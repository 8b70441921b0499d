"""ALiBi as pictures: the bias matrix of each head, and the attention the bias alone gives.
"""
from __future__ import annotations

import numpy as np

from ..alibi import (
    alibi_attention,
    alibi_bias,
    alibi_causal_bias,
    alibi_slope_exponents,
    alibi_slopes,
)
from ..validate import bilingual, check_bool, check_int, is_int
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, checkbox, int_slider, step
from .style import alibi_cmap, index_heatmap, new_axes, place_index_ticks, figure_style, label

ALIBI_VMIN = -6.0   # bias colour scale: -6 and below share the darkest colour (exp(-6) ~ 0.0025)


def plot_alibi_bias(seq_len: int = 12, num_heads: int = 8, heads=(1, 4, 8), causal: bool = False,
                    annotate: bool = True, ax=None):
    """ALiBi bias matrices for a few heads (1-based), side by side, one colour scale.

    ``causal=True`` draws the paper's decoder form (grey = masked future keys). With
    ``annotate`` and seq_len <= 12 every cell shows its value. With ``ax``, the panels share
    its grid cell and the line describing the form goes above them instead of a suptitle.
    """
    seq_len = check_int("seq_len", seq_len, 2, 64)
    num_heads = check_int("num_heads", num_heads, 1, 1024)
    if is_int(heads):
        heads = (heads,)
    heads = [check_int("heads", h, 1, num_heads) for h in heads]
    if not heads or len(heads) > 4:
        raise ValueError(bilingual("heads must name 1 to 4 heads", "heads 要给 1 到 4 个头"))
    causal, annotate = check_bool("causal", causal), check_bool("annotate", annotate)
    bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
    slopes, exponents = alibi_slopes(num_heads), alibi_slope_exponents(num_heads)
    own_figure = ax is None
    with figure_style():
        fig, axes = new_axes(ax, (2.9 * len(heads) + 0.8, 3.3), 1, len(heads))
        axes = np.atleast_1d(axes)
        for ax, h in zip(axes, heads):
            img = ax.imshow(np.ma.masked_invalid(bias[h - 1]), cmap=alibi_cmap(), vmin=ALIBI_VMIN, vmax=0,
                            interpolation="nearest")
            if annotate and seq_len <= 12:
                for r in range(seq_len):
                    for c in range(seq_len):
                        if np.isfinite(bias[h - 1, r, c]):
                            ax.text(c, r, f"{abs(r - c)}", ha="center", va="center",   # no minus: 11 px digits fit a cell
                                    fontsize=9, color="white" if bias[h - 1, r, c] < 0.5 * ALIBI_VMIN else "black")
            step = max(1, seq_len // 6)
            ax.set_xticks(range(0, seq_len, step))
            ax.set_yticks(range(0, seq_len, step))
            ax.set_xlabel(label("key 位置 n", "key position n"))
            ax.set_title(f"head {h}: s_{h} = 2^(−{exponents[h - 1]:g}) = {slopes[h - 1]:.4g}")
        axes[0].set_ylabel(label("query 位置 m", "query position m"))
        form = (label("因果形式 −s_h·(m−n)，n ≤ m（灰 = 被遮住的未来）", "causal −s_h·(m−n), n ≤ m (grey = masked future)")
                if causal else label("对称形式 −s_h·|n−m|", "symmetric −s_h·|n−m|"))
        note = (label("；格中数字 = |n−m|（偏置 = −s_h × 它）", "; cell numbers = |n−m| (bias = −s_h × number)")
                if annotate and seq_len <= 12 else "")
        head = label(f"ALiBi 偏置，H = {num_heads}：", f"ALiBi bias, H = {num_heads}: ")
        if own_figure:   # one head's panel is too narrow for the line: one part per line
            one = len(heads) == 1
            fig.suptitle("\n".join((head, form, note.lstrip("；; "))) if one else f"{head}{form}{note}", fontsize=10)
        else:
            axes[0].set_title(f"{head}{form}{note}\n{axes[0].get_title()}", loc="left")
        fig.colorbar(img, ax=list(axes), shrink=0.85,
                     label=label(f"偏置（≤ {ALIBI_VMIN:g} 画成最深色）", f"bias (≤ {ALIBI_VMIN:g}: darkest)"))
    return fig


def plot_alibi_attention(seq_len: int = 33, num_heads: int = 8, causal: bool = False, query=None, ax=None):
    """Attention of one query from the ALiBi bias alone (q.κ = 0), one curve per head.

    x = the offset k = n - m (key position minus query position). Steep heads (small h) look
    only nearby; flat heads spread their weight over the whole sequence.
    """
    weights = alibi_attention(seq_len, num_heads, query, causal)
    query = seq_len // 2 if query is None else query
    slopes = alibi_slopes(num_heads)
    rel = np.arange(seq_len) - query
    with figure_style():
        import matplotlib

        fig, ax = new_axes(ax, (6.6, 3.0))
        cmap = matplotlib.colormaps["viridis"]
        for h in range(num_heads):
            keep = np.isfinite(weights[h]) & (weights[h] > 0)
            color = cmap(h / max(1, num_heads - 1) * 0.9)
            ax.plot(rel[keep], weights[h, keep], "o-", ms=2.5, lw=1.1, color=color,
                    label=f"h = {h + 1}: s_{h + 1} = {slopes[h]:.3g}")
        ax.set_xlabel(label("偏移 k = n − m（key 位置 − query 位置）", "offset k = n − m (key − query position)"))
        ax.set_ylabel(label("注意力权重", "attention weight"))
        form = label("因果", "causal") if causal else label("对称", "symmetric")
        ax.set_title(label(f"只有 ALiBi 偏置（q·κ = 0）：query m = {query}，seq_len = {seq_len}，{form}",
                           f"ALiBi bias alone (q·κ = 0): query m = {query}, seq_len = {seq_len}, {form}"))
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=9, ncols=2, loc="upper left", frameon=False)
    return fig


class _AlibiView:
    """The bias matrix of one head (left) and the attention row it gives a query (right)."""

    MAX_LEN = 64

    def __init__(self, ax_heat, ax_bar, cax):
        from matplotlib.collections import LineCollection

        from .text_pieces import title_row

        self.ax_heat, self.ax_bar = ax_heat, ax_bar
        self.image, self.xticks, self.yticks = index_heatmap(ax_heat, alibi_cmap(), ALIBI_VMIN, 0)
        ax_heat.set_xlabel(label("key 位置 n", "key position n"), labelpad=12)
        ax_heat.set_ylabel(label("query 位置 m", "query position m"), labelpad=16)
        (self.row,) = ax_heat.plot([0, 1, 1, 0, 0], [0, 0, 1, 1, 0], color="C1", lw=1.4)
        self.title_heat = title_row(ax_heat, fontsize=9)   # both titles in pieces: words recur, numbers are new
        ax_heat.get_figure().colorbar(self.image, cax=cax)
        cax.set_ylabel(label(f"偏置（≤ {ALIBI_VMIN:g} 最深）", f"bias (≤ {ALIBI_VMIN:g} darkest)"), fontsize=9)
        cax.tick_params(labelsize=9)
        half = self.MAX_LEN // 2
        self.bars = LineCollection([], colors="C1", linewidths=3.0)
        ax_bar.add_collection(self.bars)
        (self.tops,) = ax_bar.plot([], [], "o", color="C1", ms=2.5)
        ax_bar.axvline(0, color="0.8", lw=0.6, zorder=0.5)
        ax_bar.set_xlim(-half - 0.5, half - 0.5)
        ax_bar.set_ylim(0, 0.62)
        ax_bar.set_xlabel(label("偏移 k = n − m", "offset k = n − m"))
        ax_bar.set_ylabel(label("注意力权重（q·κ = 0）", "attention weight (q·κ = 0)"))
        self.title_bar = title_row(ax_bar, fontsize=9)

    def artists(self):
        # the orange row frame is drawn over the image: it comes after it
        return [self.image, self.row, *self.xticks, *self.yticks, self.title_heat, self.bars, self.tops,
                self.title_bar]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the bias map
        with the query's row frame drawn over it, the tick labels, the map's title, the
        attention row with its title."""
        return {"image": [self.image, self.row], "ticks": [*self.xticks, *self.yticks], "title_heat": [self.title_heat],
                "attention": [self.bars, self.tops, self.title_bar]}

    def update(self, num_heads, seq_len, head, causal):
        bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
        slope = alibi_slopes(num_heads)[head - 1]
        self.image.set_data(np.ma.masked_invalid(bias[head - 1]))
        query = seq_len // 2
        y0, y1 = query / seq_len, (query + 1) / seq_len
        self.row.set_data([0.002, 0.998, 0.998, 0.002, 0.002], [y0, y0, y1, y1, y0])
        place_index_ticks(self.xticks, seq_len, True)
        place_index_ticks(self.yticks, seq_len, False)
        weights = alibi_attention(seq_len, num_heads, query, causal)[head - 1]
        rel = np.arange(seq_len) - query
        keep = weights > 0
        self.bars.set_segments([[(x, 0.0), (x, y)] for x, y in zip(rel[keep], weights[keep])])
        self.tops.set_data(rel[keep], weights[keep])
        mean_dist = float(np.abs(rel) @ weights)
        form = label("因果", "causal") if causal else label("对称", "symmetric")
        exponent = float(alibi_slope_exponents(num_heads)[head - 1])
        self.title_heat.set_pieces(("head ", f"{head}/{num_heads}", ": s_", f"{head}", " = 2^(−", f"{exponent:.3g}", ") = ",
                                    f"{slope:.3g}", f" ({form})"))
        self.title_bar.set_pieces(("query m = ", f"{query}", label("：给自己 ", ": "), f"{weights[query]:.2f}",
                                   label("，平均看 ", " on itself, mean distance "), f"{mean_dist:.1f}", label(" 步远", "")))


class AlibiExplorer(Explorer):
    """ALiBi: pick the number of heads, the sequence length, one head and the causal form.

    Left: that head's bias ``-s_h |n - m|`` (or the causal ``-s_h (m - n)``, future masked);
    right: the attention the bias alone gives the middle query. The ``head`` slider's
    maximum follows ``num_heads``.
    """

    spec = ExplorerSpec(
        name="alibi", main="seq_len", figsize=(7.6, 3.0),
        controls=(
            int_slider("num_heads", 8, 1, 16, label="头数", changes=("image", "title_heat", "attention")),
            int_slider("seq_len", 24, 4, _AlibiView.MAX_LEN, label="序列长度", changes=("image", "ticks", "attention")),
            int_slider("head", 1, 1, 16, label="第几个头", max_follows=("num_heads", 0),
                       changes=("image", "title_heat", "attention")),
            checkbox("causal", False, label="因果形式", changes=("image", "title_heat", "attention")),
        ),
        view=lambda fig, p: _AlibiView(*_alibi_axes(fig)),
        update=lambda view, v, p: view.update(v["num_heads"], v["seq_len"], v["head"], bool(v["causal"])),
        grid=(Axis("causal"), Axis("head", page=tuple(range(1, 9)), live=tuple(range(1, 17))), Axis("seq_len", count=8, keep=(24,))),
        steps=(
            step(*(("head", h) for h in range(1, 9)), see="从陡到平，尖峰变成平台"),
            step(("num_heads", 12), ("head", 9), see="头数越多斜率排得越密，H = 12 的第 9 个头最陡", page=False),
            step(("seq_len", 64), see="偏置的形状与长度无关，平的头分到每个词的权重变少"),
            step(("causal", True), see="右上三角被因果掩码挡住"),
        ),
    )


def _alibi_axes(fig):
    ax_heat, cax, ax_bar = fig.subplots(1, 3, width_ratios=[1, 0.05, 1.25])
    return ax_heat, ax_bar, cax
