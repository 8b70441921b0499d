"""RoPE on an image's patch grid: the score of one query patch with every key patch, for 1D
RoPE in raster order, axial 2D RoPE and Qwen2-VL's M-RoPE.
"""
from __future__ import annotations

import numpy as np

from ..rope_2d import PATCH_LAYOUTS, patch_scores
from ..validate import check_base, check_int, check_one_of
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, base_slider, dropdown, int_slider, step
from .style import new_axes, figure_style, label

#: Grid sizes (rows = columns) the explorer offers.
GRID_MIN, GRID_MAX = 4, 16
#: Head dimension of every figure here (Qwen2-VL's: 64 pairs, split 16 / 24 / 24 for M-RoPE).
HEAD_DIM = 128
#: Smallest 1 − score the colour scale shows (the query patch itself has 0).
GAP_MIN = 1e-4
LAYOUT_NAMES = {"raster": ("一维光栅顺序 (raster)", "1D raster order"),
                "axial": ("轴向二维 (axial 2D)", "axial 2D"),
                "mrope": ("M-RoPE (Qwen2-VL)", "M-RoPE (Qwen2-VL)")}


class _Rope2DView:
    """The score heatmap on the grid, the query patch marked, and the two neighbours' scores."""

    def __init__(self, ax):
        from matplotlib.colors import LogNorm

        from .text_pieces import text_row, title_row

        self.ax = ax
        # colour = 1 − score on a log scale: M-RoPE's and raster order's differences both show
        self.image = ax.imshow(np.ones((GRID_MAX, GRID_MAX)), cmap="viridis_r", norm=LogNorm(GAP_MIN, 2.0),
                               origin="upper", interpolation="nearest", extent=(0, 1, 1, 0), aspect="equal")
        (self.query,) = ax.plot([0], [0], marker="s", ms=9, mfc="none", mec="red", mew=2, ls="none")
        (self.below,) = ax.plot([0], [1], marker="v", ms=6, color="white", mec="k", mew=0.5, ls="none")
        (self.right,) = ax.plot([1], [0], marker=">", ms=6, color="white", mec="k", mew=0.5, ls="none")
        self.colorbar = ax.figure.colorbar(self.image, ax=ax, shrink=0.85)
        self.colorbar.set_label(label("1 − 分数（对数刻度）", "1 − score (log scale)"))
        ax.set_xlim(0, 1)
        ax.set_ylim(1, 0)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(label("列 c →", "column c →"))
        ax.set_ylabel(label("← 行 r", "← row r"))
        # both texts in pieces: their words recur (replayed from the glyph cache), the numbers are new
        self.title = title_row(ax, fontsize=9)
        self.coords = text_row(ax, 0.01, -0.06, transform=ax.transAxes, fontsize=9, va="top")

    def artists(self):
        return [self.image, self.query, self.below, self.right, self.title, self.coords]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the score map
        with the marks drawn over it, the texts. Every control changes the scores, so both."""
        return {"map": [self.image, self.query, self.below, self.right], "texts": [self.title, self.coords]}

    def update(self, grid, query_row, query_col, layout, base):
        scores = patch_scores(grid, grid, query_row, query_col, layout, HEAD_DIM, base)
        self.scores = scores
        self.image.set_data(np.clip(1.0 - scores, GAP_MIN, 2.0))
        at = lambda i: (i + 0.5) / grid                       # patch index -> axes coordinate
        self.query.set_data([at(query_col)], [at(query_row)])
        # on the last row (column) the neighbour is the one above (to the left), marked as such
        last_row, last_col = query_row + 1 == grid, query_col + 1 == grid
        rb = query_row - 1 if last_row else query_row + 1
        cr = query_col - 1 if last_col else query_col + 1
        self.below.set_data([at(query_col)], [at(rb)])
        self.below.set_marker("^" if last_row else "v")
        self.right.set_data([at(cr)], [at(query_row)])
        self.right.set_marker("<" if last_col else ">")
        below, right = float(scores[rb, query_col]), float(scores[query_row, cr])
        v_zh, v_en = ("上方邻居 ▲", "neighbour above ▲") if last_row else ("下方邻居 ▼", "neighbour below ▼")
        h_zh, h_en = ("左方邻居 ◀", "to the left ◀") if last_col else ("右方邻居 ▶", "to the right ▶")
        self.coords.set_pieces((f"{grid}×{grid}", label(" 块，查询块 (r, c) = (", " patches, query (r, c) = ("),
                                f"{query_row}, {query_col}", label(")，最低分 ", "), lowest score "),
                                f"{scores.min():.3f}"))
        zh, en = LAYOUT_NAMES[layout]
        self.title.set_pieces((label(f"{zh}，base = ", f"{en}, base = "), f"{base:g}"),
                              (label(f"{v_zh} 分数 ", f"{v_en} "), f"{below:.4f}",
                               label(f"，{h_zh} 分数 ", f", {h_en} "), f"{right:.4f}"))
        return below, right


def plot_rope_2d(grid: int = 8, query_row: int = 3, query_col: int = 3, layout: str = "raster",
                 base: float = 10000.0, ax=None):
    """Heatmap of the RoPE score of patch (query_row, query_col) with every patch of a
    ``grid × grid`` image (head_dim 128, q = κ = one fixed vector), for ``layout`` in
    ("raster", "axial", "mrope"); ▼ and ▶ mark the neighbour below and to the right (on the last
    row ▲ the one above, on the last column ◀ the one to the left).
    """
    grid = check_int("grid", grid, GRID_MIN, 64)
    query_row = check_int("query_row", query_row, 0, grid - 1)
    query_col = check_int("query_col", query_col, 0, grid - 1)
    layout = check_one_of("layout", layout, PATCH_LAYOUTS)
    base = check_base(base)
    with figure_style():
        fig, ax = new_axes(ax, (4.8, 4.2))
        _Rope2DView(ax).update(grid, query_row, query_col, layout, base)
    return fig


class Rope2DExplorer(Explorer):
    """Pick the grid size, the query patch (row, column), the layout (1D raster / axial 2D /
    M-RoPE) and ``base``: the score of the query patch with every key patch on the grid.

    The query sliders end at the grid's last row and column: their maximum follows ``grid``
    (a smaller grid moves a query past its edge onto the edge). Colour: 1 − score on a log
    scale.
    """

    #: The grid size is the slider whose figures are drawn ahead (frames): every one of its
    #: values draws a different grid.
    spec = ExplorerSpec(
        name="rope_2d", main="grid", figsize=(5.0, 4.4),
        controls=(
            int_slider("grid", 8, GRID_MIN, GRID_MAX, label="每边几块", widget={"continuous_update": True},
                       changes=("map", "texts")),
            int_slider("query_row", 3, 0, GRID_MAX - 1, label="查询块的行", max_follows=("grid", -1),
                       changes=("map", "texts")),
            int_slider("query_col", 3, 0, GRID_MAX - 1, label="查询块的列", max_follows=("grid", -1),
                       changes=("map", "texts")),
            dropdown("layout", "raster", PATCH_LAYOUTS, label="排法",
                     option_labels=tuple(LAYOUT_NAMES[k] for k in PATCH_LAYOUTS), changes=("map", "texts")),
            base_slider(10000.0, 1, 6, step=0.25, changes=("map", "texts")),
        ),
        view=lambda fig, p: _Rope2DView(fig.subplots(1, 1)),
        update=lambda view, v, p: {"neighbours": view.update(v["grid"], v["query_row"], v["query_col"], v["layout"],
                                                             v["base"])},
        grid=(Axis("layout"),),
        steps=(
            step(("layout", "axial"), see="亮的一条横带变成以查询块为中心的一团"),
            step(("grid", 12), ("grid", 8), see="网格变大变小"),
            step(("query_row", 5), ("query_col", 1), ("base", 100.0), see="换查询块、换 base", page=False),
        ),
    )
