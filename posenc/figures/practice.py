"""Positions in practice, as pictures: a packed row's block-diagonal causal mask with its position
ids, how bf16 / fp16 round integer positions, and the RoPE angle error of each pair in low precision.
"""
from __future__ import annotations

import numpy as np

from ..practice import (POSITION_DTYPES, angle_error, cu_seqlens, packed_causal_mask, packed_position_ids,
                        rope_angles_in, stored_positions)
from ..validate import bilingual, check_int
from .style import new_axes, figure_style, label


def plot_packing(lengths=(3, 5, 2), ax=None):
    """The attention mask of documents of these ``lengths`` packed into one row: a dark cell is a
    key (column) the query (row) may see, block-diagonal and causal. The ticks show each token's
    position id (restarting at 0 per document); dashed lines mark the ``cu_seqlens`` boundaries.
    """
    mask = packed_causal_mask(lengths)
    ids = packed_position_ids(lengths)
    cu = cu_seqlens(lengths)
    n = len(ids)
    with figure_style():
        fig, ax = new_axes(ax, (4.2, 4.0))
        ax.imshow(mask, cmap="Blues", vmin=-0.3, vmax=1.0, interpolation="nearest")
        ax.set_xticks(np.arange(n), [str(i) for i in ids], fontsize=9)
        ax.set_yticks(np.arange(n), [str(i) for i in ids], fontsize=9)
        for b in cu[1:-1]:
            ax.axhline(b - 0.5, color="C3", ls="--", lw=1)
            ax.axvline(b - 0.5, color="C3", ls="--", lw=1)
        ax.set_xlabel(label("键 (key) 的位置编号", "key position id"))
        ax.set_ylabel(label("查询 (query) 的位置编号", "query position id"))
        ax.set_title(label(f"打包 {len(cu) - 1} 篇文档：cu_seqlens = {cu.tolist()}",
                           f"{len(cu) - 1} packed documents: cu_seqlens = {cu.tolist()}"), fontsize=9)
    return fig


def plot_position_rounding(start: int = 4064, stop: int = 4160, dtypes=("bfloat16", "float16"), ax=None):
    """Each integer position in ``start … stop − 1`` against the value it becomes in each of
    ``dtypes`` (a staircase where the format cannot hold every integer); the dotted diagonal keeps
    every position.
    """
    start = check_int("start", start, 0, 2**24)
    stop = check_int("stop", stop, start + 2, start + 4096)
    dtypes = tuple(dtypes)
    if not dtypes or any(d not in POSITION_DTYPES for d in dtypes):
        raise ValueError(bilingual(f"dtypes must be a non-empty tuple of {POSITION_DTYPES}",
                                   f"dtypes 必须取自 {POSITION_DTYPES}"))
    pos = np.arange(start, stop)
    with figure_style():
        fig, ax = new_axes(ax, (5.6, 3.4))
        ax.plot(pos, pos, color="0.6", ls=":", lw=1, label=label("精确", "exact"))
        for j, dtype in enumerate(dtypes):
            ax.step(pos, stored_positions(pos, dtype), where="mid", color=f"C{j}", label=dtype)
        ax.set_xlabel(label("真实位置 pos", "true position pos"))
        ax.set_ylabel(label("存下来的值", "stored value"))
        ax.legend(fontsize=9, loc="upper left")
        ax.grid(alpha=0.3)
    return fig


def plot_angle_error(positions=(4095, 32768, 131071), head_dim: int = 128, base: float = 500000.0,
                     dtypes=("bfloat16", "float32"), ax=None):
    """The RoPE angle error of every pair i (wrapped into [0, π], log scale) when the angles of
    these ``positions`` are computed in each of ``dtypes`` (:func:`~posenc.practice.rope_angles_in`)
    instead of float64; one line per (dtype, position), π dotted. A zero error is drawn at the
    bottom of the axis.
    """
    positions = [check_int("positions[]", p, 0, 2**24) for p in positions]
    dtypes = tuple(dtypes)
    if not positions or not dtypes or any(d not in POSITION_DTYPES for d in dtypes):
        raise ValueError(bilingual(f"positions must be non-empty and dtypes taken from {POSITION_DTYPES}",
                                   f"positions 不能为空，dtypes 必须取自 {POSITION_DTYPES}"))
    exact = rope_angles_in(positions, head_dim, base, "float64")
    floor = 1e-9
    with figure_style():
        fig, ax = new_axes(ax, (6.4, 3.6))
        styles = ["-", "--", ":", "-."]
        for j, dtype in enumerate(dtypes):
            err = angle_error(rope_angles_in(positions, head_dim, base, dtype), exact)
            for r, p in enumerate(positions):
                ax.plot(np.arange(err.shape[1]), np.maximum(err[r], floor), color=f"C{r}", ls=styles[j % 4],
                        lw=1.2, label=f"{dtype}, pos {p}")
        ax.axhline(np.pi, color="0.5", ls=":", lw=1)
        ax.set_yscale("log")
        ax.set_ylim(floor / 2, 10)
        ax.set_xlabel(label("频率对 i（越往右越慢）", "pair i (slower to the right)"))
        ax.set_ylabel(label("角度误差（弧度，按圆周折算）", "angle error (rad, wrapped)"))
        ax.legend(fontsize=9, loc="upper right", ncol=2)
        ax.grid(alpha=0.3)
    return fig
