"""The engine's only contact with private parts of matplotlib and ipywidgets.

Each adapter here uses one library internal that makes a public behaviour fast or possible,
checks once per process that the internal still does what it expects, and otherwise takes a
public path (slower, or with a little less), logging one warning on the ``posenc.ui.engine``
logger (:func:`fall_back`). Known good: matplotlib 3.11, ipywidgets 8.1 (requirements.txt
bounds matplotlib for this reason).

* :class:`GlyphCache` (matplotlib's ``RendererAgg._renderer``): text bitmaps replayed.
  Fallback: texts drawn the normal way.
* :func:`from_browser` (ipywidgets' ``Widget._property_lock``, set while a browser message is
  applied): is a change the reader's or a cell's? Fallback: every change counts as a cell's
  (the fill keeps page order; a Stack is told its index once more).
* :func:`options_keep_index` (ipywidgets' ``_initializing_traits_`` on a selection widget):
  new options without ipywidgets selecting the first one. Fallback: the first option is
  selected for a moment (observers see it) before the caller sets the value it wants.

``tests/test_widgets_internals.py`` runs each check on the installed libraries and each fallback.
"""
from __future__ import annotations

import contextlib
import functools
import logging
import math

import numpy as np

#: Where the adapters' fallbacks are logged.
LOG = logging.getLogger("posenc.ui.engine")


@functools.cache
def fall_back(what: str, why: str) -> None:
    """Log (once per process for each ``what`` and ``why``) that an adapter takes its public path."""
    LOG.warning("%s: %s; the engine uses its public fallback (see posenc/ui/engine/internals.py)", what, why)


# ---------------------------------------------------------------------------
# ipywidgets
# ---------------------------------------------------------------------------
def from_browser(widget) -> bool:
    """Is ``widget`` being updated by a message from the browser (not by Python code)?"""
    return property_lock_works() and bool(getattr(widget, "_property_lock", None))


@functools.cache
def property_lock_works() -> bool:
    """Does ipywidgets still mark a browser update (``set_state``) and only that one with a
    non-empty ``_property_lock``, seen by the value's observers? (once per process)"""
    import ipywidgets as w

    seen = []
    try:
        probe = w.IntSlider(0, min=0, max=3)
        probe.observe(lambda change: seen.append(bool(getattr(change["owner"], "_property_lock", None))),
                      names="value")
        probe.set_state({"value": 1})   # what a browser message calls
        probe.value = 2                 # what a cell does
        probe.close()
    except Exception as exc:   # never break a widget over a check
        seen = [repr(exc)]
    if seen != [True, False]:
        fall_back("from_browser", f"ipywidgets' _property_lock did not tell a browser update from code ({seen})")
        return False
    return True


@contextlib.contextmanager
def options_keep_index(widget):
    """Inside this block, setting ``widget.options`` (a selection widget) keeps its index
    instead of selecting the first option; the caller then sets the value it wants (found
    in the new options). Outside a check that passed, the plain path: the first option is
    selected meanwhile."""
    if not initializing_flag_works():
        yield
        return
    widget._initializing_traits_ = True
    try:
        yield
    finally:
        widget._initializing_traits_ = False


@functools.cache
def initializing_flag_works() -> bool:
    """Does ipywidgets still leave a SelectionSlider's index alone (no value notified) when
    its options change while ``_initializing_traits_`` is set? (once per process)"""
    import ipywidgets as w

    seen = []
    try:
        probe = w.SelectionSlider(options=[("a", 1), ("b", 2), ("c", 3)], value=2)
        probe.observe(lambda change: seen.append(change["new"]), names="value")
        probe._initializing_traits_ = True
        try:
            probe.options = [("d", 4), ("b", 2), ("e", 5)]   # the first option is not the value
        finally:
            probe._initializing_traits_ = False
        probe.value = 5
        seen.append(probe.index)
        probe.close()
    except Exception as exc:
        seen = [repr(exc)]
    if seen != [5, 2]:
        fall_back("SubsetSlider", f"ipywidgets selected another option when the options changed ({seen})")
        return False
    return True


# ---------------------------------------------------------------------------
# matplotlib
# ---------------------------------------------------------------------------
class GlyphCache:
    """Replay the glyph bitmaps of strings a canvas has drawn before.

    Matplotlib's Agg renderer lays out and rasterises every glyph of every text on every
    draw (about 0.4 ms for one Chinese character, 4 ms for a title). Explorers redraw the
    same strings again and again (token labels, titles, 0/1 digits), so each canvas gets
    one of these: the first draw of a string records the ``draw_text_image`` calls the
    renderer makes, keyed by string, font, size, angle and sub-pixel phase; later draws
    replay them (same pixels, no layout, no FreeType). Anything unusual (mathtext, no
    antialiasing, a renderer without the expected internals) takes the normal path.

    This leans on matplotlib internals (``RendererAgg._renderer.draw_text_image``, swapped for
    a recorder while a string is drawn the first time; known good on matplotlib 3.7-3.11).
    :meth:`works` checks once per process that a replayed string gives exactly the pixels of
    a normal draw; if a matplotlib release changed those internals, the check fails, one
    warning is logged (:func:`fall_back`) and every explorer draws its texts the normal way.
    """

    MAX_ENTRIES = 4096

    def __init__(self, renderer):
        self.renderer = renderer
        self.original = renderer.draw_text
        self.entries: dict = {}

    @classmethod
    def install(cls, renderer) -> bool:
        """Route ``renderer``'s text drawing through a cache; False if the cache can't be trusted."""
        if getattr(renderer, "_posenc_glyph_cache", None) is not None:
            return True
        if not cls.works():
            return False  # another matplotlib: draw texts the normal way
        cls._attach(renderer)
        return True

    @staticmethod
    @functools.cache
    def works() -> bool:
        """Does replaying give the very pixels of a normal draw on this matplotlib? (checked
        once per process; False logs one warning)"""
        why = GlyphCache._self_check()
        if why is not None:
            fall_back("glyph cache", why)
        return why is None

    @staticmethod
    def _self_check() -> str | None:
        """None if a string recorded and replayed gives the pixels of a normal draw, else why not."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from ..look import figure_style, label

        try:
            with figure_style():
                fig = Figure(figsize=(2.0, 0.5), dpi=90)
                fig.text(0.03, 0.3, label("猫咬狗 pos = 1", "cat bites dog, pos = 1"), fontsize=9)
                canvas = FigureCanvasAgg(fig)
                canvas.draw()
                plain = bytes(canvas.buffer_rgba())
                renderer = canvas.get_renderer()
                if not (hasattr(renderer, "_renderer") and hasattr(renderer, "_draw_text_glyphs_and_boxes")):
                    return "RendererAgg has no _renderer / _draw_text_glyphs_and_boxes"
                GlyphCache._attach(renderer)
                canvas.draw()   # records
                canvas.draw()   # replays
                if not renderer._posenc_glyph_cache.entries:
                    return "nothing was recorded"
                if bytes(canvas.buffer_rgba()) != plain:
                    return "replayed text differs from a normal draw"
                return None
        except Exception as exc:   # any change of internals: fall back, never break a figure
            return f"{type(exc).__name__}: {exc}"

    @classmethod
    def _attach(cls, renderer) -> None:
        cache = cls(renderer)
        renderer._posenc_glyph_cache = cache
        renderer.draw_text = cache.draw_text

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath or not gc.get_antialiased():
            return self.original(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        ix, iy = math.floor(x), math.floor(y)
        key = (s, hash(prop), prop.get_size_in_points(), angle, round((x - ix) * 64),
               round((y - iy) * 64), self.renderer.dpi,
               getattr(mtext, "get_fontfeatures", lambda: None)(),
               getattr(mtext, "get_language", lambda: None)())
        glyphs = self.entries.get(key)
        if glyphs is None:
            glyphs = self._record(gc, x, y, s, prop, angle, mtext, ix, iy)
            if glyphs is None:
                return None
            if len(self.entries) >= self.MAX_ENTRIES:
                self.entries.clear()
            self.entries[key] = glyphs
            return None
        draw = self.renderer._renderer.draw_text_image
        for buffer, dx, dy in glyphs:
            draw(buffer, ix + dx, iy + dy, 0, gc)
        return None

    def _record(self, gc, x, y, s, prop, angle, mtext, ix, iy):
        real = self.renderer._renderer
        glyphs = []
        ok = True

        class Recorder:
            def draw_text_image(self, buffer, left, bottom, angle_, gc_):
                nonlocal ok
                ok = ok and angle_ == 0
                glyphs.append((np.array(buffer, copy=True), left - ix, bottom - iy))
                real.draw_text_image(buffer, left, bottom, angle_, gc_)

            def __getattr__(self, name):  # e.g. draw_path for mathtext boxes
                nonlocal ok
                ok = False
                return getattr(real, name)

        self.renderer._renderer = Recorder()
        try:
            self.original(gc, x, y, s, prop, angle, mtext=mtext)
        finally:
            self.renderer._renderer = real
        # Nothing recorded for visible text means the renderer drew it some other way: don't cache.
        return glyphs if ok and (glyphs or not s.strip()) else None
