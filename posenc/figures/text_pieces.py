"""Labels drawn in pieces, so that what recurs is replayed and only the numbers are new.

A canvas replays the glyphs of a string it has drawn before (the engine's glyph cache), so an
explorer redraws a recurring string almost for free, while a new string costs a full layout
and raster, dearest with Chinese characters (font fallback): about 1 ms for a new number,
2-7 ms for a new line of Chinese, 0.1 ms for a replayed string. Each slider move brings new
numbers, so:

* :class:`NumberText`: a number drawn one character at a time from whole pixels, each
  character a string drawn before (replayed);
* :class:`TextRow`: a text (a title, a caption; one or more lines) drawn as pieces side by
  side, the words (recurring) and the numbers (NumberTexts), aligned as the whole text;
* :class:`KeyLine`: the numbers after a key text (``→ 猫 (pos 1)：`` then ``[1.14, 1.04]``),
  one box behind both.

Each looks as the text drawn at once, moved by less than a pixel (tests/test_figures_text_pieces.py
compares them with matplotlib's own drawing). Imported on first use (it loads matplotlib).
"""
from __future__ import annotations

from matplotlib.colors import to_rgba
from matplotlib.font_manager import FontProperties
from matplotlib.text import Text
from matplotlib.transforms import Bbox, IdentityTransform

from ..validate import bilingual

#: What was measured, by what and how (string, font, dpi, kind of renderer...): ink metrics,
#: reference boxes, whether widths add up.
_METRICS: dict = {}


def _cached(key: tuple, compute):
    """``compute()``, once per ``key`` (each kind of renderer measures its own way: Agg hints);
    a font in the key is stored as a copy (a FontProperties can be changed afterwards)."""
    found = _METRICS.get(key)
    if found is None:
        if len(_METRICS) >= 4096:
            _METRICS.clear()
        found = _METRICS[tuple(k.copy() if isinstance(k, FontProperties) else k for k in key)] = compute()
    return found


def _metrics(renderer, s: str, prop, dpi: float) -> tuple:
    """Width, height and descent of ``s`` (measured once per string, font and dpi)."""
    return _cached((s, prop, dpi, type(renderer)),
                   lambda: renderer.get_text_width_height_descent(s, prop, ismath=False))


def _spread(text, renderer, inks) -> list:
    """The ascent and descent matplotlib gives each line of ``text`` (one ``(ascent, descent)``
    of ink per line), as its layout of a text does: with ``linespacing="normal"`` each line at
    least the font's ascent and descent (plus half the font's line gap on each side when there
    are several lines), else the ink spread to ``linespacing`` times the font's height. The
    font's numbers come from the boxes of the one- and two-line texts "0" and "0\\n0"."""
    one, two = (_reference_box(text, renderer, s) for s in ("0", "0\n0"))
    if text.get_linespacing() == "normal":
        gap = (two.height - 2 * one.height) / 2 if len(inks) > 1 else 0.0
        return [(max(a, one.y1) + gap / 2, max(d, -one.y0) + gap / 2) for a, d in inks]
    return [((one.height + a - d) / 2, (one.height - a + d) / 2) for a, d in inks]


def _reference_box(text, renderer, s: str):
    """The box of ``s`` drawn with ``text``'s font and line spacing, baseline at 0 (once per font)."""
    def measure():
        probe = Text(0, 0, s, va="baseline", fontproperties=text.get_fontproperties(),
                     linespacing=text.get_linespacing(), figure=text.get_figure(root=False))
        return probe.get_window_extent(renderer)

    return _cached(("box", s, text.get_fontproperties(), text.get_linespacing(), text.get_figure(root=True).dpi,
                    type(renderer)), measure)


#: Where a block of lines' top sits above its anchor, by vertical alignment, from the first
#: line's ascent, the distance from the first baseline to the last and the last line's descent.
_TOP = {"top": lambda a, steps, d: 0.0, "baseline": lambda a, steps, d: a + steps,
        "bottom": lambda a, steps, d: a + steps + d, "center": lambda a, steps, d: (a + steps + d) / 2}

#: Where a row's anchor sits along it, by horizontal alignment.
_ALONG = {"left": 0.0, "center": 0.5, "right": 1.0}


#: The characters a :class:`NumberText` draws one by one.
_CHARS = frozenset("0123456789.,+-−e×[]()%/ ")
#: What :func:`_adds_up` measures: every such character, and numbers as the explorers print them.
_SAMPLE = "".join(sorted(_CHARS - {" "})) + " 0.0464 1e+04 [-0.76, 1.39]"
#: Where a text's baseline sits from its anchor, by vertical alignment (ascent a, descent d).
_BASELINE = {"baseline": lambda a, d: 0.0, "top": lambda a, d: -a, "bottom": lambda a, d: d,
             "center": lambda a, d: (d - a) / 2}


def _adds_up(renderer, prop, dpi: float) -> bool:
    """Do the widths of single characters add up to the width of the string they form, for
    this font and dpi (hinted advances, whole pixels)? Measured once per font."""
    return _cached(("adds up", prop, dpi, type(renderer)), lambda: _metrics(renderer, _SAMPLE, prop, dpi)[0] == sum(
        _metrics(renderer, c, prop, dpi)[0] for c in _SAMPLE))


def _draw_box(text, renderer, box) -> None:
    """Draw ``text``'s box (its ``bbox``, if any) around ``box`` (pixels), as Text.draw does
    around its layout's box."""
    patch = text.get_bbox_patch()
    if patch is not None:
        patch.set_bounds(box.x0, box.y0, box.width, box.height)
        patch.set_transform(IdentityTransform())
        patch.set_mutation_scale(renderer.points_to_pixels(text.get_size()))
        patch.draw(renderer)


class NumberText(Text):
    """A text that, when it holds only digits and the signs around numbers (``_CHARS``), is
    drawn one character at a time from whole pixels: each character is a string the canvas
    has drawn before (replayed from its glyph cache), so a number never seen costs about what
    a known one does. The characters' widths add up to the string's (checked per font), so
    it looks as the string drawn at once, moved by less than a pixel. Anything else (other
    characters, several lines, a rotation, path effects, TeX) is drawn as any text."""

    def _char_layout(self, renderer):
        """``(left, baseline, widths, box)`` of the characters in pixels, or None when this
        text is drawn as any text."""
        s = self.get_text()
        if (not s or not set(s) <= _CHARS or self.get_rotation() or self.get_usetex() or self.get_path_effects()
                or self.get_verticalalignment() not in _BASELINE):
            return None
        prop, dpi = self.get_fontproperties(), self.get_figure(root=True).dpi
        if not _adds_up(renderer, prop, dpi):
            return None
        wads = [_metrics(renderer, c, prop, dpi) for c in s]
        widths = [w for w, _, _ in wads]
        (a, d), = _spread(self, renderer, [(max(h - dd for _, h, dd in wads), max(dd for _, _, dd in wads))])
        x, y = self.get_transform().transform(self.get_unitless_position())
        left = round(x - _ALONG[self.get_horizontalalignment()] * sum(widths))
        baseline = round(y + _BASELINE[self.get_verticalalignment()](a, d))
        return left, baseline, widths, Bbox.from_bounds(left, baseline - d, sum(widths), a + d)

    def draw(self, renderer):
        if renderer is not None:
            self._renderer = renderer
        if not self.get_visible():
            return
        layout = self._char_layout(renderer)
        if layout is None:
            super().draw(renderer)
            return
        left, baseline, widths, box = layout
        self._draw_box(renderer, box)
        placed = []
        for c, w in zip(self.get_text(), widths):
            if c != " ":
                placed.append((left, baseline, c))
            left += w
        self._draw_strings(renderer, placed)

    def _draw_strings(self, renderer, placed) -> None:
        """Draw strings in this text's font and colour, each ``(x, baseline, string)`` in pixels
        from the bottom left, with the graphics context Text.draw sets up for its lines."""
        renderer.open_group("text", self.get_gid())
        gc = renderer.new_gc()   # as Text.draw sets it up
        gc.set_foreground(to_rgba(self.get_color()), isRGBA=True)
        gc.set_alpha(self.get_alpha())
        gc.set_url(self.get_url())
        gc.set_antialiased(self.get_antialiased())
        gc.set_snap(self.get_snap())
        self._set_gc_clip(gc)
        height = renderer.get_canvas_width_height()[1]
        prop = self.get_fontproperties()
        for x, y, s in placed:
            renderer.draw_text(gc, x, height - y if renderer.flipy() else y, s, prop, 0.0, ismath=False, mtext=self)
        gc.restore()
        renderer.close_group("text")
        self.stale = False

    def _draw_box(self, renderer, box) -> None:
        """Draw the text's box (``bbox``), around ``box`` (the characters' box in pixels)."""
        _draw_box(self, renderer, box)


class _Piece(NumberText):
    """A piece of a :class:`TextRow`: a number as a NumberText; any other one line (no math,
    no rotation, path effects or TeX), which the row places on a whole pixel, left and
    baseline, is drawn as one string straight from there: where Text.draw would put it, the
    same pixels, without its layout (09's three titles: 2.1 ms a draw before, 1.2 ms after)."""

    def draw(self, renderer):
        s = self.get_text()
        if (not s or set(s) <= _CHARS or "$" in s or "\n" in s or self.get_rotation() or self.get_usetex()
                or self.get_path_effects() or not self.get_visible() or renderer is None):
            super().draw(renderer)
            return
        self._renderer = renderer
        x, y = self.get_unitless_position()   # whole pixels (TextRow._place), identity transform
        self._draw_strings(renderer, [(x, y, s)])


class KeyLine(NumberText):
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

    def _draw_box(self, renderer, box) -> None:
        super()._draw_box(renderer, box if self._key_box is None else Bbox.union([self._key_box, box]))

    def update_bbox_position_size(self, renderer):   # drawn as any text (not only digits)
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
    return _add(ax, KeyLine(key, **kwargs))


class TextRow(Text):
    """Text drawn as pieces side by side (:meth:`set_pieces`), each line aligned as a whole by
    ``ha`` at the text's position, the block of lines by ``va`` ("baseline": the last line's
    baseline, as a title's; "top", "bottom", "center"). Each piece starts on a whole pixel,
    so a piece that recurs (the words around the numbers) is replayed from the canvas's glyph
    cache wherever the numbers before it end. :meth:`get_text` is the whole text, and its box
    the box of that text drawn as one (what a layout engine makes room for; the pieces cover
    it within a pixel, lines spaced as matplotlib spaces one text's lines)."""

    def __init__(self, x, y, va="baseline", **kwargs):
        if va not in _TOP:
            raise ValueError(bilingual(f"TextRow: va must be one of {sorted(_TOP)}, not {va!r}",
                                       f"TextRow 的 va 只能取 {sorted(_TOP)} 之一，收到 {va!r}"))
        super().__init__(x, y, "", va=va, **kwargs)
        self._lines: list[list[NumberText]] = []
        self._joined = ""

    def set_pieces(self, *lines) -> None:
        """The pieces of each line, in order (each line a list of strings; their concatenation
        is the line's text)."""
        while len(self._lines) < len(lines):
            self._lines.append([])
        for texts, strings in zip(self._lines, [*lines, *[[]] * (len(self._lines) - len(lines))]):
            strings = list(strings)
            while len(texts) < len(strings):
                texts.append(_Piece(0, 0, "", ha="left", va="baseline", transform=IdentityTransform()))
            for piece, s in zip(texts, [*strings, *[""] * (len(texts) - len(strings))]):
                piece.set_text(s)
        self._joined = "\n".join("".join(line) for line in lines)
        super().set_text(self._joined)

    def set_text(self, s) -> None:
        """The whole text (a title set with ``ax.set_title`` over a row, say): one piece per line."""
        super().set_text(s)
        if hasattr(self, "_lines") and self.get_text() != self._joined:
            self.set_pieces(*([line] for line in self.get_text().split("\n")))

    def _place(self, renderer) -> list:
        """The pieces with text, each put where it is drawn (pixels): lines spaced as
        matplotlib spaces the lines of one text (:func:`_spread`)."""
        x, y = self.get_transform().transform(self.get_unitless_position())
        along = _ALONG[self.get_horizontalalignment()]
        lines = [[p for p in texts if p.get_text()] for texts in self._lines]
        lines = [line for line in lines if line]
        if not lines:
            return []
        prop, dpi = self.get_fontproperties(), self.get_figure(root=True).dpi
        metrics = []   # per line: (widths, ascent, descent) of its ink, as measured for one text
        for line in lines:   # free texts (in no figure's tree): setting them marks nothing stale
            for p in line:
                p.update_from(self)     # font, colour, alpha of the text
                p.set_horizontalalignment("left")
                p.set_verticalalignment("baseline")
                p.set_transform(IdentityTransform())
                p.set_figure(self.get_figure(root=False))
            wads = [_metrics(renderer, p.get_text(), prop, dpi) for p in line]
            metrics.append(([w for w, _, _ in wads], max(h - d for _, h, d in wads), max(d for _, _, d in wads)))
        spread = _spread(self, renderer, [(a, d) for _, a, d in metrics])
        steps = sum(spread[k][1] + spread[k + 1][0] for k in range(len(lines) - 1))   # first to last baseline
        top = y + _TOP[self.get_verticalalignment()](spread[0][0], steps, spread[-1][1])
        width = max(sum(widths) for widths, _, _ in metrics)
        # the box of the whole text (what a bbox is drawn around), as one text's layout has it
        self._box = Bbox.from_extents(x - along * width, top - spread[0][0] - steps - spread[-1][1],
                                      x - along * width + width, top)
        baseline = top - spread[0][0]
        for k, (line, (widths, _, _)) in enumerate(zip(lines, metrics)):
            left = x - along * sum(widths)
            for p, w in zip(line, widths):
                p.set_position((round(left), round(baseline)))
                left += w
            if k + 1 < len(lines):
                baseline -= spread[k][1] + spread[k + 1][0]
        return [p for line in lines for p in line]

    def draw(self, renderer):
        if not self.get_visible() or not self.get_text():
            return
        pieces = self._place(renderer)
        _draw_box(self, renderer, self._box)
        for p in pieces:
            p.draw(renderer)
        self.stale = False


def title_row(ax, **kwargs) -> TextRow:
    """A :class:`TextRow` as ``ax``'s title (``ax.title``: same font, colour and place; the
    axes positions it and a layout engine makes room for it as for any title); ``kwargs`` as
    for ``ax.set_title`` (fontsize...)."""
    ax.set_title(" ", **kwargs)
    title = ax.title
    row = TextRow(*title.get_position(), transform=title.get_transform(), ha="center",
                  fontproperties=title.get_fontproperties(), color=title.get_color())
    row.set_figure(title.get_figure(root=False))
    row.axes = ax
    ax.title = row
    return row


def text_row(ax, x, y, **kwargs) -> TextRow:
    """A :class:`TextRow` at ``(x, y)`` in ``ax`` (keywords as for ``ax.text``: transform,
    fontsize, ha, va...), not clipped to the axes."""
    return _add(ax, TextRow(x, y, **kwargs))


def number_text(ax, x, y, s: str = "", **kwargs) -> NumberText:
    """A :class:`NumberText` in ``ax``, as ``ax.text(x, y, s, **kwargs)`` makes a text (data
    coordinates unless ``transform`` says otherwise; not clipped)."""
    return _add(ax, NumberText(x, y, s, **kwargs))


def _add(ax, text):
    """``text`` added to ``ax``, not clipped (``add_artist`` clips to the axes; ``ax.text``
    does not): in the layout as any text of ``ax.text`` is."""
    ax.add_artist(text)
    text.set_clip_on(False)
    return text
