"""Labels drawn in pieces, so that what recurs is replayed and only the numbers are new.

A canvas replays the glyphs of a string it has drawn before (the engine's glyph cache), so an
explorer redraws a recurring string almost for free, while a new string costs a full layout
and raster, dearest with Chinese characters (font fallback). A label such as
``→ 猫 (pos 1)：[1.14, 1.04]`` gets new numbers on every move of a slider: drawn as the key
``→ 猫 (pos 1)：`` (replayed) followed by a :class:`KeyLine` holding ``[1.14, 1.04]`` (digits
only, cheap), it looks the same and costs a fraction. A title whose numbers sit between
Chinese words is a :class:`TextRow`: its pieces side by side, each on a whole pixel (the glyph
cache keys a string by its sub-pixel offset), the row aligned as a whole. Imported on first
use (it loads matplotlib).
"""
from __future__ import annotations

from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform

#: Where a row's anchor sits along it, by horizontal alignment.
_ALONG = {"left": 0.0, "center": 0.5, "right": 1.0}


class KeyLine(Text):
    """A text drawn just after its ``key`` (a text artist), bottoms aligned: at each draw it is
    placed (in pixels) at the key's right edge. Its box (``bbox``, as for ``ax.text``) spans the
    key and itself, one box behind the whole line: draw the key after this text (a higher
    zorder, and later in an explorer's list of animated artists) or the box covers it."""

    def __init__(self, key, **kwargs):
        super().__init__(0, 0, "", ha="left", va="bottom", transform=IdentityTransform(), **kwargs)
        self.key = key
        self._key_box = None

    def draw(self, renderer):
        if not self.get_visible():
            return
        self._key_box = box = self.key.get_window_extent(renderer)
        # set directly, not by set_position: a draw must not mark the figure stale
        self._x, self._y = box.x1, box.y0
        super().draw(renderer)

    def get_window_extent(self, renderer=None, dpi=None):
        if self.key.get_text():   # where a draw would place it
            box = self.key.get_window_extent(renderer, dpi)
            self._x, self._y = box.x1, box.y0
        return super().get_window_extent(renderer, dpi)

    def update_bbox_position_size(self, renderer):
        super().update_bbox_position_size(renderer)
        patch = self.get_bbox_patch()
        if patch is not None and self._key_box is not None:
            x0, y0 = patch.get_transform().transform((0.0, 0.0))
            box = Bbox.union([self._key_box, Bbox.from_bounds(x0, y0, patch.get_width(), patch.get_height())])
            patch.set_bounds(box.x0, box.y0, box.width, box.height)
            patch.set_transform(IdentityTransform())


def key_line(ax, key, **kwargs) -> KeyLine:
    """A :class:`KeyLine` after text ``key`` in ``ax`` (keywords as for ``ax.text``: fontsize,
    color, zorder, bbox...), not clipped to the axes."""
    text = KeyLine(key, **kwargs)
    ax.add_artist(text)
    text.set_clip_on(False)
    return text


class TextRow(Text):
    """One line of text drawn as pieces side by side (:meth:`set_pieces`), aligned as a whole
    by ``ha`` at the text's position, baselines at the position's ``y`` (``va`` is
    ``"baseline"``; one line). Each piece starts on a whole pixel, so a piece that recurs
    (the words around the numbers) is replayed from the canvas's glyph cache wherever the
    numbers before it end. :meth:`get_text` is the whole line, and its box the line's box as
    one text (what a layout engine makes room for; the pieces cover it within a pixel)."""

    def __init__(self, x, y, **kwargs):
        super().__init__(x, y, "", va="baseline", **kwargs)
        self._pieces: list[Text] = []

    def set_pieces(self, strings) -> None:
        """The line's pieces, in order (their concatenation is the text)."""
        strings = list(strings)
        while len(self._pieces) < len(strings):
            piece = Text(0, 0, "", ha="left", va="baseline", transform=IdentityTransform())
            self._pieces.append(piece)
        for piece, s in zip(self._pieces, strings):
            piece.set_text(s)
        for piece in self._pieces[len(strings):]:
            piece.set_text("")
        self.set_text("".join(strings))

    def _place(self, renderer) -> list:
        """The pieces with text, each put where it is drawn (pixels)."""
        x, y = self.get_transform().transform(self.get_unitless_position())
        pieces = [p for p in self._pieces if p.get_text()]
        widths = []
        for p in pieces:   # free texts (in no figure's tree): setting them marks nothing stale
            p.update_from(self)     # font, colour, alpha of the row
            p.set_horizontalalignment("left")
            p.set_verticalalignment("baseline")
            p.set_transform(IdentityTransform())
            p.set_figure(self.get_figure(root=False))
            widths.append(p.get_window_extent(renderer).width)
        left = x - _ALONG[self.get_horizontalalignment()] * sum(widths)
        for p, w in zip(pieces, widths):
            p.set_position((round(left), round(y)))
            left += w
        return pieces

    def draw(self, renderer):
        if not self.get_visible() or not self.get_text():
            return
        for p in self._place(renderer):
            p.draw(renderer)
        self.stale = False


def title_row(ax) -> TextRow:
    """A :class:`TextRow` as ``ax``'s title (``ax.title``: same font, colour and place; the
    axes positions it and a layout engine makes room for it as for any title)."""
    title = ax.title
    row = TextRow(*title.get_position(), transform=title.get_transform(), ha="center",
                  fontproperties=title.get_fontproperties(), color=title.get_color())
    row.set_figure(title.get_figure(root=False))
    row.axes = ax
    ax.title = row
    return row
