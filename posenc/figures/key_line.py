"""A label split in two texts on one line: a key that recurs and the numbers after it.

A canvas replays the glyphs of a string it has drawn before (the engine's glyph cache), so an
explorer redraws a recurring string almost for free, while a new string costs a full layout
and raster, dearest with Chinese characters (font fallback). A label such as
``→ 猫 (pos 1)：[1.14, 1.04]`` gets new numbers on every move of a slider: drawn as the key
``→ 猫 (pos 1)：`` (replayed) followed by a :class:`KeyLine` holding ``[1.14, 1.04]`` (digits
only, cheap), it looks the same and costs a fraction. Imported on first use (it loads
matplotlib).
"""
from __future__ import annotations

from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform


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
    color, zorder, bbox...), not clipped to the axes (as ``ax.text`` leaves a text)."""
    text = KeyLine(key, **kwargs)
    ax.add_artist(text)
    text.set_clip_path(None)
    return text
