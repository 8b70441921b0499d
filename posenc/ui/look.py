"""The course's look: a CJK font with English fallbacks, labels that fall back to English
glosses when the machine has no CJK font, the temporary rcParams every figure is drawn under,
and the axes every ``plot_*`` draws into. The bottom of the UI: the widget engine, the progress
chart and every figure family use it; it imports nothing of the course.
"""
from __future__ import annotations

import contextlib
import functools
import os

import numpy as np

from ..validate import bilingual

#: English glosses, used in figures when no CJK font is installed.
GLOSS = {
    "猫": "cat", "狗": "dog", "咬": "bites", "我": "I", "你": "you", "爱": "love",
    "打": "hit", "鼠": "mouse", "鸡": "hen", "牛": "ox", "羊": "sheep", "兔": "rabbit",
    "马": "horse", "追": "chases", "。": ".",
}


CJK_FAMILIES = (
    "Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "PingFang SC",
    "Hiragino Sans GB", "Microsoft YaHei", "SimHei", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
    "Noto Sans CJK JP", "Arial Unicode MS",
)


CJK_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/Hiragino Sans GB.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/simhei.ttf",
)


CJK_INSTALL_HINT = bilingual(
    "No Chinese (CJK) font found: figures use English glosses. To see Chinese labels, "
    "install one and restart the kernel — Debian/Ubuntu: `sudo apt-get install fonts-noto-cjk`; "
    "macOS and Windows ship PingFang / Microsoft YaHei.",
    "未找到中文字体，图中改用英文标注；安装 fonts-noto-cjk 后重启内核即可显示中文。"
)


@functools.lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The CJK font family figures use, or None when the machine has none.

    Registers the font file with matplotlib when its font cache predates the install.
    Set the environment variable ``POSENC_NO_CJK=1`` to test the fallback.
    """
    if os.environ.get("POSENC_NO_CJK"):
        return None
    from matplotlib import font_manager

    def known() -> set:
        return {f.name for f in font_manager.fontManager.ttflist}

    names = known()
    for fam in CJK_FAMILIES:
        if fam in names:
            return fam
    for path in CJK_FILES:
        if os.path.exists(path):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue
            names = known()
            for fam in CJK_FAMILIES:
                if fam in names:
                    return fam
    return None


def label(zh: str, en: str) -> str:
    """``zh`` when a CJK font is available, else the English ``en`` (no tofu boxes).

    Used by every figure and explorer for its texts.
    """
    return zh if cjk_font() else en


def token_label(token: str) -> str:
    """A token as figures show it: itself with a CJK font, its English gloss without.

    Used by the figures that label tokens (notebooks 01 and 02).
    """
    if cjk_font():
        return token
    return GLOSS.get(token, token.encode("ascii", "replace").decode())


@contextlib.contextmanager
def figure_style():
    """Temporary matplotlib settings for this course's figures (never global).

    ``font.family`` lists DejaVu Sans first and the CJK font second, which gives
    per-character fallback for mixed Chinese/English labels. Held with
    :data:`~posenc.ui.engine.lock.DRAWING`: one figure is styled and drawn at a time.
    """
    import matplotlib

    from .engine.lock import DRAWING  # the settings below are global: every thread sees them

    fam = ["DejaVu Sans"] + ([cjk_font()] if cjk_font() else [])
    style = {"font.family": fam, "font.size": 9, "axes.titlesize": 10, "axes.unicode_minus": False,
             "figure.dpi": 100, "savefig.dpi": 100}
    rc = matplotlib.rcParams
    with DRAWING:
        # what matplotlib.rc_context does (every setting back after, also one changed inside
        # the block; the backend kept), with the settings saved as RcParams' dict holds them:
        # rc_context copies them one by one through RcParams.copy (0.17 ms, four times per
        # move of a live control), this 0.02 ms
        before = dict(dict.items(rc))
        del before["backend"]
        try:
            rc.update(style)   # validated, as rc_context's
            yield
        finally:
            dict.update(rc, before)


def adopt_axes(ax):
    """Give axes made outside figure_style() the course's fonts; return their figure.

    Their title and axis labels exist already, so only the font list is changed, or
    Chinese text in them would have no glyphs. Call inside figure_style().
    """
    import matplotlib
    from matplotlib.text import Text

    family = matplotlib.rcParams["font.family"]
    # the three titles (centre, left, right) are among the axes' children: no private names
    titles = [c for c in ax.get_children() if isinstance(c, Text)]
    for text in (*titles, ax.xaxis.label, ax.yaxis.label):
        text.set_fontfamily(family)
    return ax.get_figure()


def new_axes(ax, figsize, nrows: int = 1, ncols: int = 1, **gridspec_kw):
    """The axes a ``plot_*`` draws into: a new figure, or the caller's ``ax``.

    Every ``plot_*`` goes through here, inside figure_style(). With ``ax=None`` a new
    constrained-layout Figure of ``figsize`` gets ``nrows x ncols`` panels
    (``gridspec_kw``: e.g. ``width_ratios``). With a caller's ``ax`` its fonts are adopted;
    a plot with several panels splits that axes' grid cell into them (the caller's axes
    must come from ``subplots``/``add_subplot``). Returns ``(figure, axes)`` shaped like
    ``Figure.subplots`` (one Axes, or an array of them).
    """
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.subplots(nrows, ncols, gridspec_kw=gridspec_kw or None)
    fig = adopt_axes(ax)
    if nrows == ncols == 1:
        return fig, ax
    spec = ax.get_subplotspec()
    if spec is None:
        raise ValueError(bilingual("this plot has several panels: give an ax made by subplots() or add_subplot()",
                                   "这个图有多个子图：ax 必须来自 subplots() 或 add_subplot()"))
    grid = spec.subgridspec(nrows, ncols, **gridspec_kw)
    ax.remove()
    axes = np.array([[fig.add_subplot(grid[r, c]) for c in range(ncols)] for r in range(nrows)])
    return fig, axes.squeeze() if axes.size > 1 else axes.item()
