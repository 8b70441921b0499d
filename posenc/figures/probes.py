"""Where position goes, as pictures: probe scores against the layer, and what a position probe
reads at each true position (inside and past the training length).
"""
from __future__ import annotations

import numpy as np

from ..validate import bilingual
from .style import new_axes, figure_style, label


def _check_table(table):
    if not isinstance(table, dict) or not table or not all(hasattr(v, "position_r2") for v in table.values()):
        raise ValueError(bilingual("table must be a non-empty dict: label -> LayerProbes",
                                   "table 必须是非空字典：名称 -> LayerProbes"))
    return table


def plot_layer_probes(table, ax=None):
    """Left: held-out R² of the absolute-position probe against the residual stream (0 = the
    input to layer 1); right: held-out accuracy of the relative-order probe (chance 0.5).
    ``table``: label -> :class:`~posenc.probes.LayerProbes`.
    """
    table = _check_table(table)
    with figure_style():
        fig, (ax_pos, ax_ord) = new_axes(ax, (9.0, 3.4), 1, 2)
        markers = "osD^vx"
        for j, (name, probes) in enumerate(table.items()):
            layers = np.arange(len(probes.position_r2))
            ax_pos.plot(layers, probes.position_r2, marker=markers[j % 6], label=name, color=f"C{j}")
            ax_ord.plot(layers, probes.order_accuracy, marker=markers[j % 6], label=name, color=f"C{j}")
        for a in (ax_pos, ax_ord):
            a.set_xticks(layers)
            a.set_xlabel(label("残差流：0 = 第 1 层之前，l = 第 l 层之后", "stream: 0 = before layer 1, l = after layer l"))
            a.grid(alpha=0.3)
        ax_pos.axhline(0, color="0.6", lw=0.8, ls="--")
        ax_ord.axhline(0.5, color="0.6", lw=0.8, ls="--")
        ax_pos.set_ylabel(label("绝对位置探针 R²（留出）", "position probe R² (held out)"))
        ax_ord.set_ylabel(label("先后顺序探针准确率（留出）", "order probe accuracy (held out)"))
        ax_pos.set_ylim(-0.15, 1.05)
        ax_ord.set_ylim(0.4, 1.02)
        # beside the panel, not over it: a model's line may end in any corner
        ax_ord.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return fig


def plot_position_readout(readouts, train_positions: int, ax=None):
    """The mean position a probe reads at each true position (one line per model); the dotted
    diagonal is a perfect reading, the dashed line the end of the training positions.
    ``readouts``: label -> array from :func:`~posenc.probes.position_readout`.
    """
    if not isinstance(readouts, dict) or not readouts:
        raise ValueError(bilingual("readouts must be a non-empty dict: label -> array", "readouts 必须是非空字典：名称 -> 数组"))
    with figure_style():
        fig, ax = new_axes(ax, (5.6, 3.4))
        width = max(len(v) for v in readouts.values())
        ax.plot([0, width - 1], [0, width - 1], color="0.6", ls=":", lw=1, label=label("完美读出", "perfect reading"))
        for j, (name, r) in enumerate(readouts.items()):
            ax.plot(np.arange(len(r)), r, marker="o", ms=3, label=name, color=f"C{j}")
        ax.axvline(train_positions - 0.5, color="0.4", ls="--", lw=0.8)
        ax.text(train_positions - 0.3, 0.5, label("训练时没见过的位置 →", "positions unseen in training →"), fontsize=9)
        ax.set_xlabel(label("真实位置 pos", "true position pos"))
        ax.set_ylabel(label("探针读出的平均位置", "mean position read by the probe"))
        ax.legend(fontsize=9, loc="upper left")
        ax.grid(alpha=0.3)
    return fig
