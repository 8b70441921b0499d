"""The course's look for figures: the fonts and the axes every ``plot_*`` draws into
(:mod:`posenc.ui.look`, re-exported here), index ticks an explorer can redraw, and the colours
of the position encodings.
"""
from __future__ import annotations

import numpy as np

from ..ui.look import (  # noqa: F401  (the figure families import the look from here)
    CJK_INSTALL_HINT, GLOSS, adopt_axes, cjk_font, figure_style, label, new_axes, token_label,
)


def index_heatmap(ax, cmap, vmin: float, vmax: float):
    """An empty image that fills ``ax`` (rows top to bottom, no axis ticks) and six index tick
    texts on each side for :func:`place_index_ticks`: ``(image, xticks, yticks)``. The image
    is filled later with ``set_data``, so a drag redraws it without a new artist."""
    image = ax.imshow(np.zeros((2, 2)), cmap=cmap, vmin=vmin, vmax=vmax,
                      aspect="auto", interpolation="nearest", extent=(0, 1, 1, 0))
    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)
    ax.set_xticks([])
    ax.set_yticks([])
    from .text_pieces import number_text   # digits: drawn a character at a time from the glyph cache

    xticks = [number_text(ax, 0, 1.0, "", transform=ax.transAxes, ha="center", va="top", fontsize=9)
              for _ in range(6)]
    yticks = [number_text(ax, 0, 0, "", transform=ax.transAxes, ha="right", va="center", fontsize=9)
              for _ in range(6)]
    return image, xticks, yticks


def place_index_ticks(texts, n: int, along_x: bool) -> None:
    """Put up to ``len(texts)`` integer tick labels 0 .. n-1 under (``along_x``) or beside an
    image that fills its axes, as text artists an explorer can redraw; hide the rest."""
    from matplotlib.ticker import MaxNLocator

    values = [v for v in MaxNLocator(nbins=5, integer=True).tick_values(0, n - 1) if 0 <= v <= n - 1]
    for j, t in enumerate(texts):
        if j < len(values):
            frac = (values[j] + 0.5) / n
            t.set_position((frac, -0.02) if along_x else (-0.01, 1 - frac))
            t.set_text(f"{int(values[j])}")
            t.set_visible(True)
        else:
            t.set_visible(False)


#: The box behind a caption that sits among a plot's lines (``ax.text(..., zorder=3,
#: bbox=CAPTION_BOX)``): a line that passes there goes under it, and the caption stays legible.
CAPTION_BOX = dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85)

#: Colour and marker of each position encoding, in every figure that compares them.
PE_STYLES = {"none": ("0.45", "x"), "sinusoidal": ("C0", "o"), "learned": ("C1", "s"),
             "rope": ("C2", "^"), "alibi": ("C3", "D")}
#: Colour of each position encoding (the colour part of PE_STYLES).
PE_COLORS = {pe: color for pe, (color, _) in PE_STYLES.items()}


def alibi_cmap():
    import matplotlib

    return matplotlib.colormaps["viridis"].with_extremes(bad="0.9")
