"""A figure that redraws only what moved: Agg canvas, cached background and layer, glyph
cache (:class:`~posenc.ui.engine.internals.GlyphCache`, the one part that uses matplotlib
internals), PNG bytes (:func:`png_bytes`)."""
from __future__ import annotations

import base64
import struct
import zlib

from .internals import GlyphCache
from .lock import checkpoint, one_at_a_time


#: Dots per inch of every explorer figure at 1x.
FIGURE_DPI = 90
#: Pixel density of explorer figures: 1 draws them at FIGURE_DPI and shows them pixel for
#: pixel; 2 draws them at twice the dpi and shows them at half that size (sharp on a HiDPI
#: screen). Kept at 1 for the cost of 2 (the README's measurement, ``tools/benchmark.py --scale 2``).
PIXEL_SCALE = 1


def new_figure(figsize):
    """A constrained-layout figure at the explorers' dpi (and pixel density)."""
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=FIGURE_DPI * PIXEL_SCALE, layout="constrained")


def freeze_layout(fig) -> None:
    """Run the constrained layout once, then keep the axes where they are.

    Later redraws then never move an axes, so the blitted background stays valid.
    """
    fig.canvas.draw()
    fig.set_layout_engine("none")


def copy_layout(fig, layout_of) -> None:
    """Give ``fig`` the frozen axes positions of ``layout_of`` (same axes, same order), without
    a draw. (``set_position`` also takes an axes out of layout computations, which a frozen
    figure no longer runs; each axes keeps its ``in_layout`` as it was.)"""
    fig.set_layout_engine("none")
    for mine, theirs in zip(fig.axes, layout_of.axes, strict=True):
        in_layout = mine.get_in_layout()
        mine.set_position(theirs.get_position(original=True), which="original")
        mine.set_in_layout(in_layout)


def data_url(png: bytes) -> bytes:
    """PNG bytes as a ``data:`` URL (what an ``Image(format="url")`` shows at once)."""
    return b"data:image/png;base64," + base64.b64encode(png)


def png_of(url) -> bytes:
    """The PNG bytes inside a ``data:`` URL."""
    url = bytes(url)
    return base64.b64decode(url[url.index(b",") + 1:])


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def png_bytes(rgba) -> bytes:
    """An (height, width, 4) uint8 RGBA array as a lossless RGB PNG: each row unfiltered, the
    whole deflated at zlib level 1. The figures are mostly flat colour, so this is as small as
    Pillow's PNG at level 1 (whose per-row filters cost more than they save here) and takes
    less than half the time (tools/benchmark.py --only encode; the other encodings measured
    there, a 256-colour palette and JPEG, lose colours or blur text edges)."""
    import numpy as np

    rgba = np.ascontiguousarray(rgba, np.uint8)
    h, w = rgba.shape[:2]
    stride = 1 + 3 * w
    raw = np.empty((h, stride), np.uint8)
    raw[:, 0] = 0                                   # filter type 0 (none) before each row
    # red and green as one 2-byte copy, then blue: less than half the time of copying the
    # three bytes of each pixel one by one (a numpy strided copy costs per item)
    np.ndarray((h, w), "<u2", raw, 1, (stride, 3))[...] = np.ndarray((h, w), "<u2", rgba, 0, (4 * w, 4))
    raw[:, 3::3] = rgba[..., 2]
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)   # 8-bit RGB, deflate, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw.data, 1))
            + _chunk(b"IEND", b""))


def _is_image(artist) -> bool:
    from matplotlib.image import AxesImage

    return isinstance(artist, AxesImage)


def _draw(renderer, artists) -> None:
    """Draw ``artists`` in order; then, over each image among them, its axes' frame and the
    lines drawn above it in a full draw (an image blitted last would cover them). Stops at an
    artist's boundary when an interruptible drawing must give way (:func:`~posenc.ui.engine.lock.checkpoint`)."""
    for a in artists:
        checkpoint()
        a.draw(renderer)
    for ax in {id(a.axes): a.axes for a in artists if _is_image(a)}.values():
        over = [*ax.spines.values(), *(ln for ln in ax.lines if not ln.get_animated())]
        for artist in over:
            if artist.get_visible():
                artist.draw(renderer)


class BlitCanvas:
    """A figure on its own Agg canvas, redrawn by blitting.

    ``animated`` lists the artists an update may change: they are drawn on top of a cached
    background (everything else, drawn once). :meth:`draw` with ``moving`` (the artists one
    control can change) and ``key`` (that control's name) also caches a layer of the animated
    artists that control cannot change, so repeated moves of one slider redraw only what
    moves. ``redraws`` counts full redraws (tests and benchmarks).
    """

    def __init__(self, figure, animated=()):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure = figure
        self.agg = FigureCanvasAgg(figure)
        self._background = None
        self._layer_key, self._layer = None, None
        self.set_animated(animated)
        self.redraws = 0

    def set_animated(self, artists) -> None:
        """The artists an update may change (drawn over the background, never into it)."""
        self.animated = list(artists)
        for a in self.animated:
            a.set_animated(True)
        self.forget_background()

    def size(self) -> tuple[int, int]:
        """Width and height in physical pixels."""
        return self.agg.get_width_height(physical=True)

    def forget_background(self) -> None:
        """The next draw redraws the whole figure (something outside the animated artists changed)."""
        self._background = None

    def forget_layer(self) -> None:
        """Drop the cached layer (it holds artists drawn with settings that changed since)."""
        self._layer_key, self._layer = None, None

    @one_at_a_time
    def draw(self, full: bool = False, moving=None, key=None) -> None:
        """Draw the animated artists over the cached background (the whole figure first when
        ``full`` or when there is no background yet). ``moving``: the only artists that can
        have changed since the last draw with the same ``key``; the others come from a layer."""
        full = full or self._background is None
        agg = self.agg
        if full:
            agg.draw()
            self._background = agg.copy_from_bbox(self.figure.bbox)
            self.forget_layer()
            self.redraws += 1
        renderer = agg.get_renderer()
        GlyphCache.install(renderer)
        animated = self.animated
        if moving is None:
            self.forget_layer()
            agg.restore_region(self._background)
            dirty = animated
        else:
            ids = {id(a) for a in moving}
            dirty = [a for a in animated if id(a) in ids]
            if self._layer_key != key:
                agg.restore_region(self._background)
                _draw(renderer, [a for a in animated if id(a) not in ids])
                self._layer = agg.copy_from_bbox(self.figure.bbox)
                self._layer_key = key
            agg.restore_region(self._layer)
        _draw(renderer, dirty)

    @one_at_a_time
    def png(self) -> bytes:
        """The canvas as PNG bytes (:func:`png_bytes`)."""
        import numpy as np

        checkpoint()

        return png_bytes(np.asarray(self.agg.buffer_rgba()))
