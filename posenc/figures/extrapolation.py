"""Longer-than-trained sentences: accuracy by length per encoding, and by the biter's position.
"""
from __future__ import annotations

from ..task.data import MAX_LENGTH
from ..task.experiments import EXTRAPOLATION_ROW_KEYS
from ..validate import bilingual, check_int, check_lengths, check_rows
from .style import PE_STYLES, new_axes, figure_style, label


def plot_extrapolation(rows, ax=None):
    """Accuracy against test length, one line per row of :func:`extrapolation_table`.

    A row whose model cannot run (learned table too short) appears in the legend only.
    The dashed line is chance (1/2: the mirror-pair argument).
    """
    rows = check_rows(rows, EXTRAPOLATION_ROW_KEYS, "extrapolation_table")
    styles = PE_STYLES
    with figure_style():
        from matplotlib.lines import Line2D

        fig, ax = new_axes(ax, (7.2, 3.2))
        handles = []
        for r in rows:
            color, marker = styles.get(r.get("pe"), ("k", "o"))
            ls = "-"
            pts = sorted((L, a) for L, a in r["by_length"].items() if a is not None)
            name = r["label"]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, ls=ls, marker=marker, ms=4, lw=1.4, color=color)
                handles.append(Line2D([], [], color=color, marker=marker, ms=4, ls=ls, label=name))
            else:
                handles.append(Line2D([], [], color=color, marker="x", ms=6, ls="none",
                                      label=f"{name}: {label('无法运行', 'cannot run')}"))
        ax.axhline(0.5, color="0.5", lw=0.9, ls="--")
        ax.text(1.0, 0.5, label(" 随机 (chance)", " chance"), transform=ax.get_yaxis_transform(),
                va="center", ha="left", fontsize=9, color="0.4")
        lengths = sorted({L for r in rows for L in r["by_length"]})
        ax.set_xticks(lengths)
        lowest = min([0.45] + [a for r in rows for a in r["by_length"].values() if a is not None])
        ax.set_ylim(max(0.0, lowest - 0.05), 1.03)
        ax.set_xlabel(label("测试句子长度（词数，含「。」）", "test sentence length (tokens)"))
        ax.set_ylabel(label("准确率", "accuracy"))
        ax.set_title(label("在短句上训练，在更长的句子上测试", "trained on short sentences, tested on longer ones"))
        ax.legend(handles=handles, fontsize=9, loc="upper left", bbox_to_anchor=(1.06, 1.0), frameon=False)
    return fig


def plot_accuracy_by_start(by_start: dict, seq_len: int, train_lengths=(4, 8), ax=None):
    """Accuracy at one test length against the biter's position, one line per model.

    ``by_start`` maps a model name to ``{start: accuracy}`` (from :func:`accuracy_by_start`).
    Shaded: positions the biter occupied in training (``start <= hi - 4``) and the positions
    whose distance to the final 。 (``seq_len - 1 - start``) occurred in training.
    """
    seq_len = check_int("seq_len", seq_len, 4, 32)
    lo, hi = check_lengths("train_lengths", train_lengths, 4, MAX_LENGTH)
    if not isinstance(by_start, dict) or not by_start:
        raise ValueError(bilingual("by_start must be a non-empty dict {model name: {start: accuracy}}",
                                   "by_start 必须是非空 dict"))
    with figure_style():
        fig, ax = new_axes(ax, (7.2, 3.2))
        last = seq_len - 4
        ax.axvspan(-0.5, hi - 4 + 0.5, color="C0", alpha=0.1, lw=0)
        ax.axvspan(seq_len - hi - 0.5, last + 0.5, color="C3", alpha=0.1, lw=0)
        ax.text(-0.4, 0.02, label("训练中见过的\n咬人者位置", "biter positions\nseen in training"),
                color="C0", fontsize=9, va="bottom")
        ax.text(last + 0.4, 0.02, label("到「。」的距离\n训练中见过", "distance to the end\nseen in training"),
                color="C3", fontsize=9, va="bottom", ha="right")
        for j, (name, acc) in enumerate(by_start.items()):
            pts = sorted(acc.items())
            color, marker = PE_STYLES.get(name, (f"C{(j + 4) % 10}", "v"))
            ax.plot([p for p, _ in pts], [a for _, a in pts], marker=marker, ms=4, lw=1.3,
                    color=color, label=str(name))
        ax.axhline(0.5, color="0.5", lw=0.8, ls="--")
        ax.set_xlim(-0.5, last + 0.5)
        ax.set_ylim(0, 1.05)
        ax.set_xticks(range(last + 1))
        ax.set_xlabel(label(f"咬人者的位置 start（句长 {seq_len}，「。」在位置 {seq_len - 1}）",
                            f"position of the biter (length {seq_len}, the end mark at {seq_len - 1})"))
        ax.set_ylabel(label("准确率", "accuracy"))
        ax.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0.38, 0.03), frameon=True, framealpha=0.9)
    return fig
