"""The explorer machinery: controls -> artists updated in place -> blit -> PNG in an Image
widget, with a per-canvas glyph cache; the main slider's figures rendered ahead of time
(frames.py) so that a drag is switched in the browser.
"""
from __future__ import annotations

import functools
import io
import math

import numpy as np

from .frames import FrameSet, _data_url, frame_slider
from .style import figure_style, label

#: Dots per inch of every explorer figure at 1x.
FIGURE_DPI = 90
#: Pixel density of explorer figures: 1 draws them at FIGURE_DPI and shows them pixel for
#: pixel; 2 draws them at twice the dpi and shows them at half that size (sharp on a HiDPI
#: screen). Kept at 1: at 2 a live update costs more than a 60 Hz frame (median over the
#: controls 7.5 -> 17.2 ms, worst rope_scaling.factor 14.5 -> 30.8 ms) and frame sets take
#: 2.4x the memory (clock 15.9 -> 37.5 MB, so its 24 MB cap keeps 163 of 256 frames).
#: Measured 2026-11-30: ``python tools/benchmark.py --only sliders --scale 2``, ``--only frames``.
PIXEL_SCALE = 1


def _slider_style():
    """Widget style: labels as wide as their text (no truncation)."""
    return {"description_width": "initial"}


def _base_slider(value, max_exponent: float = 6, step: float = 0.1):
    """The ``base`` slider every explorer uses: 10 .. 10**max_exponent on a log scale."""
    import ipywidgets as w

    return w.FloatLogSlider(value, base=10, min=1, max=max_exponent, step=step, description="base",
                            style=_slider_style())


class _Held:
    """A control's value (and range) without the widget: what an off-screen copy reads."""

    def __init__(self, widget):
        for attr in ("value", "min", "max"):
            if hasattr(widget, attr):
                setattr(self, attr, getattr(widget, attr))


class Explorer:
    """Base class: controls -> update artists in place -> blit -> PNG in an Image widget.

    A subclass passes its controls (parameter name -> widget) to ``__init__``, creates its
    axes and view object(s) in ``_make_view(fig)``, updates the artists in
    ``_update(**values)`` (returning True when something outside the animated artists
    changed: then the whole figure is redrawn once), and may list in ``_depends()`` which
    artists each control can change. ``_animated()`` defaults to ``self.view.artists()``.
    ``.controls`` maps each parameter name to its widget; setting
    ``explorer.controls[name].value`` redraws before the assignment returns; ``.widget`` is
    what a notebook displays and ``.figure`` what ``savefig`` writes: the same pixels.

    ``FRAMES`` names the control a reader drags: its figures are rendered ahead of time and
    switched in the browser (see :mod:`posenc.figures.frames`; ``.frames`` is the
    :class:`~posenc.figures.frames.FrameSet`). :meth:`shown_png` is the PNG on screen.
    """

    name = "explorer"
    #: The control whose figures are rendered ahead of time (None: every move is drawn by
    #: the kernel). A slider; if it is not an IntSlider from 0 in steps of 1 or a
    #: SelectionSlider, it is replaced by a SelectionSlider over the same values.
    FRAMES: str | None = None
    #: Attributes holding widgets (e.g. an HTML table) whose value follows ``FRAMES`` too:
    #: they are rendered with each frame and switched in the browser with it.
    FRAME_EXTRAS: tuple = ()

    def __init__(self, controls: dict, extras=()):
        import ipywidgets as widgets
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        controls = dict(controls)
        if self.FRAMES is not None:
            controls[self.FRAMES] = frame_slider(controls[self.FRAMES])
        self.controls = controls
        with figure_style():
            self.figure = self._build()
            self._canvas = FigureCanvasAgg(self.figure)
            for a in self._animated():
                a.set_animated(True)
        w, h = self._canvas.get_width_height(physical=True)
        size = {} if PIXEL_SCALE == 1 else {"width": f"{w / PIXEL_SCALE:.0f}", "height": f"{h / PIXEL_SCALE:.0f}"}
        self.image = widgets.Image(format="url", _dom_classes=("posenc-figure",), **size)
        self._live_png = b""
        self.frames = None
        self._background = None
        self._layer_key, self._layer = None, None  # cached layer of artists the moving control can't change
        self.redraws = 0  # full redraws, for tests and benchmarks
        for c in controls.values():
            c.observe(self._on_change, names="value")
        self.refresh(full=True)
        shown, extras = self.image, list(extras)
        if self.FRAMES is not None:
            self.frames = FrameSet(self, self.FRAMES, self.FRAME_EXTRAS)
            shown = self.frames.stack
            for x, stack in zip(self.frames.live_extras, self.frames.extra_stacks):
                extras = [stack if e is x else e for e in extras]
        box = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        self.widget = widgets.VBox([box, *extras, shown])
        self.widget.add_class("posenc-explorer")
        self.widget.add_class(f"posenc-explorer-{self.name}")

    # -- subclass API -----------------------------------------------------
    #: Figure size in inches (at 90 dpi): small figures blit and encode fast.
    FIGSIZE = (7.6, 3.0)

    def _make_view(self, fig) -> None:  # pragma: no cover - abstract
        """Create the axes and the view object(s) holding the artists, e.g. ``self.view``."""
        raise NotImplementedError

    def _build(self, layout_of=None):
        """Build the figure once: axes and artists, first values, then a frozen layout (or,
        given ``layout_of``, the frozen layout of that figure, copied without a draw)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = _figure(self.FIGSIZE)
        self._make_view(fig)
        FigureCanvasAgg(fig)
        self._update(**self.values)
        if layout_of is None:
            _freeze_layout(fig)
        else:
            fig.set_layout_engine("none")
            for mine, theirs in zip(fig.axes, layout_of.axes, strict=True):
                mine._set_position(theirs.get_position(original=True), which="original")
        return fig

    def _animated(self) -> list:
        """The artists an update may change (drawn on top of the cached background)."""
        return self.view.artists()

    def _update(self, **values) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- machinery ----------------------------------------------------------
    @property
    def values(self) -> dict:
        """Current control values, by parameter name."""
        return {k: c.value for k, c in self.controls.items()}

    def _on_change(self, change) -> None:
        name = next((k for k, c in self.controls.items() if c is change["owner"]), None)
        if self.frames is not None and name == self.frames.name:
            self.frames.on_main()
            return
        self.refresh(changed=name)
        if self.frames is not None:
            self.frames.invalidate()

    def _depends(self) -> dict:
        """Control name -> the animated artists that control can change.

        Artists missing from a control's list are drawn once into a cached layer while
        that control is being dragged. Default: every animated artist, for every control.
        """
        return {}

    def refresh(self, full: bool = False, changed: str | None = None) -> None:
        """Update artists from the controls, redraw, and push new PNG bytes to the widget.

        ``changed`` names the control that moved. Artists it cannot change are drawn into a
        cached layer the first time, so repeated moves of one slider redraw only what moves.
        """
        self._draw(full=full, changed=changed)
        png = self.png()
        self._live_png = png
        self.image.value = _data_url(png)

    def _set_artists(self) -> None:
        """Update the artists only (a pre-rendered frame shows them): no draw, no PNG."""
        with figure_style():
            if self._update(**self.values):
                self._background = None  # the next draw redraws the whole figure
        self._layer_key, self._layer = None, None  # the cached layer may hold the old state

    def _draw(self, full: bool = False, changed: str | None = None) -> None:
        """Update the artists and draw them on the canvas (blitting what did not move)."""
        with figure_style():
            full = bool(self._update(**self.values)) or full or self._background is None
            if full:
                self._canvas.draw()
                self._background = self._canvas.copy_from_bbox(self.figure.bbox)
                self._layer_key, self._layer = None, None
                self.redraws += 1
            renderer = self._canvas.get_renderer()
            _GlyphCache.install(renderer)
            animated = self._animated()
            deps = self._depends().get(changed) if changed is not None else None
            if deps is None:
                self._layer_key, self._layer = None, None
                self._canvas.restore_region(self._background)
                dirty = animated
            else:
                moving = {id(a) for a in deps}
                dirty = [a for a in animated if id(a) in moving]
                if self._layer_key != changed:
                    self._canvas.restore_region(self._background)
                    for a in animated:
                        if id(a) not in moving:
                            a.draw(renderer)
                    self._layer = self._canvas.copy_from_bbox(self.figure.bbox)
                    self._layer_key = changed
                self._canvas.restore_region(self._layer)
            for a in dirty:
                a.draw(renderer)
            for ax in {id(a.axes): a.axes for a in dirty if _is_image(a)}.values():
                # An image blitted last would cover its axes' frame and lines drawn above it.
                over = [*ax.spines.values(), *(ln for ln in ax.lines if not ln.get_animated())]
                for artist in over:
                    if artist.get_visible():
                        artist.draw(renderer)

    def png(self) -> bytes:
        """The canvas as PNG bytes (fast zlib level; what the live image shows)."""
        from PIL import Image

        w, h = self._canvas.get_width_height(physical=True)
        img = Image.frombuffer("RGBA", (w, h), self._canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        out = io.BytesIO()
        img.convert("RGB").save(out, format="png", compress_level=1)
        return out.getvalue()

    def shown_png(self) -> bytes:
        """The PNG the reader sees now: the frame the figure shows, else the live image."""
        return self.frames.shown_png() if self.frames is not None else self._live_png

    def _offscreen(self):
        """A copy of this explorer that draws into a figure of its own, for frames: the same
        settings and control values (plain values, no widgets) and the same frozen layout."""
        import ipywidgets as widgets
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        for k, v in self.__dict__.items():
            if isinstance(v, widgets.Widget):
                setattr(copy, k, _Held(v))
        copy.controls = {k: _Held(c) for k, c in self.controls.items()}
        copy.frames = None
        copy._live_png = b""
        with figure_style():
            copy.figure = copy._build(layout_of=self.figure)
            copy._canvas = FigureCanvasAgg(copy.figure)
            for a in copy._animated():
                a.set_animated(True)
        copy._background, copy._layer_key, copy._layer = None, None, None
        copy.redraws = 0
        return copy

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


class _GlyphCache:
    """Replay the glyph bitmaps of strings an explorer has drawn before.

    Matplotlib's Agg renderer lays out and rasterises every glyph of every text on every
    draw (about 0.4 ms for one Chinese character, 4 ms for a title). Explorers redraw the
    same strings again and again (token labels, titles, 0/1 digits), so each canvas gets
    one of these: the first draw of a string records the ``draw_text_image`` calls the
    renderer makes, keyed by string, font, size, angle and sub-pixel phase; later draws
    replay them (same pixels, no layout, no FreeType). Anything unusual (mathtext, no
    antialiasing, a renderer without the expected internals) takes the normal path.

    This leans on matplotlib internals (``RendererAgg._renderer.draw_text_image``, known good
    on matplotlib 3.7-3.11). :meth:`works` checks once per process that a replayed string
    gives exactly the pixels of a normal draw; if a matplotlib release changes those
    internals, the check fails and every explorer draws its texts the normal way.
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
    @functools.lru_cache(maxsize=1)
    def works() -> bool:
        """Does replaying give the very pixels of a normal draw on this matplotlib? (cached)"""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        try:
            with figure_style():
                fig = Figure(figsize=(2.0, 0.5), dpi=90)
                fig.text(0.03, 0.3, label("猫咬狗 pos = 1", "cat bites dog, pos = 1"), fontsize=9)
                canvas = FigureCanvasAgg(fig)
                canvas.draw()
                plain = bytes(canvas.buffer_rgba())
                renderer = canvas.get_renderer()
                if not (hasattr(renderer, "_renderer") and hasattr(renderer, "_draw_text_glyphs_and_boxes")):
                    return False
                _GlyphCache._attach(renderer)
                canvas.draw()   # records
                canvas.draw()   # replays
                return bytes(canvas.buffer_rgba()) == plain and bool(renderer._posenc_glyph_cache.entries)
        except Exception:   # any change of internals: fall back, never break a figure
            return False

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


def _is_image(artist) -> bool:
    from matplotlib.image import AxesImage

    return isinstance(artist, AxesImage)


def _figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=FIGURE_DPI * PIXEL_SCALE, layout="constrained")



def _freeze_layout(fig):
    """Run the constrained layout once, then keep the axes where they are.

    Later redraws then never move an axes, so the blitted background stays valid.
    """
    fig.canvas.draw()
    fig.set_layout_engine("none")
