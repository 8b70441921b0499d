"""Explorers: controls -> artists updated in place -> blit -> PNG in an Image widget, and the
main slider's figures rendered ahead of time (frames) on an off-screen twin."""
from __future__ import annotations

import contextlib
import contextvars

from . import static
from .canvas import BlitCanvas, copy_layout, data_url, freeze_layout, new_figure
from .controls import frame_slider
from .frames import FrameSet

#: Set while an off-screen twin is being built: the figure whose frozen layout it copies.
_TWIN_OF = contextvars.ContextVar("posenc_twin_of", default=None)


def _figure_style():
    from ..figures.style import figure_style  # the course's fonts and look (not a figure family)

    return figure_style()


def _image_widget(size):
    import ipywidgets as widgets

    w, h = size
    dims = {} if _scale() == 1 else {"width": f"{w / _scale():.0f}", "height": f"{h / _scale():.0f}"}
    return widgets.Image(format="url", _dom_classes=("posenc-figure",), **dims)


def _scale():
    from . import canvas

    return canvas.PIXEL_SCALE


class _Held:
    """A control's value and range without the widget: what the off-screen twin reads."""

    def __init__(self, widget):
        for attr in ("value", "min", "max", "options"):
            if hasattr(widget, attr):
                setattr(self, attr, getattr(widget, attr))


class LiveFigure:
    """A figure blitted into an ``Image`` widget, with no controls (e.g. a loss curve that a
    training loop updates). ``make_view(fig)`` builds the axes and returns the animated
    artists; change them, then call :meth:`refresh`."""

    def __init__(self, figsize, make_view):
        with _figure_style():
            self.figure = new_figure(figsize)
            animated = make_view(self.figure)
            self.canvas = BlitCanvas(self.figure)
            freeze_layout(self.figure)
            self.canvas.set_animated(animated)
        self.image = _image_widget(self.canvas.size())
        self.refresh(full=True)

    def refresh(self, full: bool = False) -> None:
        """Redraw the animated artists (``full``: the whole figure) and show the new PNG."""
        with _figure_style():
            self.canvas.draw(full=full)
        self.image.value = data_url(self.canvas.png())


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

    ``FRAMES`` names the control a reader drags: its figures are rendered ahead of time by an
    off-screen twin (the same class, built from the same constructor arguments) and switched
    in the browser (:mod:`posenc.widgets.frames`; ``.frames`` is the
    :class:`~posenc.widgets.frames.FrameSet`). :meth:`shown_png` is the PNG on screen.

    In static mode (``POSENC_STATIC_FRAMES``, :mod:`posenc.widgets.static`) the frames are
    rendered at construction (at most that many: a subset keeps both ends and the current
    value), the other controls are disabled and the box says so in one line.
    """

    name = "explorer"
    #: The control whose figures are rendered ahead of time (None: every move is drawn by
    #: the kernel). A slider; if it is not an IntSlider from 0 in steps of 1 or a
    #: SelectionSlider, it is replaced by a SelectionSlider over the same values.
    FRAMES: str | None = None
    #: Attributes holding widgets (e.g. an HTML table) whose value follows ``FRAMES`` too:
    #: they are rendered with each frame and switched in the browser with it.
    FRAME_EXTRAS: tuple = ()
    #: Figure size in inches (at 90 dpi): small figures blit and encode fast.
    FIGSIZE = (7.6, 3.0)

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._init_args = (args, kwargs)  # what the off-screen twin is built from
        return self

    def __init__(self, controls: dict, extras=()):
        import ipywidgets as widgets

        controls = dict(controls)
        twin_of = _TWIN_OF.get()
        limit = static.frames_limit() if twin_of is None else None  # static mode (a twin never is)
        if self.FRAMES is not None:
            main = controls[self.FRAMES]
            subset = static.subset_slider(main, limit) if limit is not None else None
            controls[self.FRAMES] = frame_slider(main) if subset is None else subset
        self.controls = controls
        with _figure_style():
            self.figure = new_figure(self.FIGSIZE)
            self._make_view(self.figure)
            self.canvas = BlitCanvas(self.figure)
            self._update(**self.values)
            if twin_of is None:
                freeze_layout(self.figure)
            else:
                copy_layout(self.figure, twin_of)
            self.canvas.set_animated(self._animated())
        self.frames = None
        self._twin, self._twin_settings = None, None
        if twin_of is not None:  # an off-screen twin: no widgets of its own, no observers
            self.image = self.widget = None
            return
        self.image = _image_widget(self.canvas.size())
        self._live_png = b""
        for c in controls.values():
            c.observe(self._on_change, names="value")
        self.refresh(full=True)
        shown, extras = self.image, list(extras)
        if self.FRAMES is not None:
            live_extras = [getattr(self, a) for a in self.FRAME_EXTRAS]
            self.frames = FrameSet(controls[self.FRAMES], self.image, self._render_frame, live_extras,
                                   label=self.name, name=self.FRAMES, eager=limit is not None)
            shown = self.frames.stack
            for x, stack in zip(live_extras, self.frames.extra_stacks):
                extras = [stack if e is x else e for e in extras]
        box = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        if limit is not None:
            others = [c for k, c in controls.items() if k != self.FRAMES]
            static.disable(others)
            extras.insert(0, static.explorer_hint(self.FRAMES, self.frames, bool(others)))
        self.widget = widgets.VBox([box, *extras, shown])
        self.widget.add_class("posenc-explorer")
        self.widget.add_class(f"posenc-explorer-{self.name}")

    # -- subclass API -----------------------------------------------------
    def _make_view(self, fig) -> None:  # pragma: no cover - abstract
        """Create the axes and the view object(s) holding the artists, e.g. ``self.view``."""
        raise NotImplementedError

    def _animated(self) -> list:
        """The artists an update may change (drawn on top of the cached background)."""
        return self.view.artists()

    def _update(self, **values) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _depends(self) -> dict:
        """Control name -> the animated artists that control can change.

        Artists missing from a control's list are drawn once into a cached layer while
        that control is being dragged. Default: every animated artist, for every control.
        """
        return {}

    # -- machinery ----------------------------------------------------------
    @property
    def values(self) -> dict:
        """Current control values, by parameter name."""
        return {k: c.value for k, c in self.controls.items()}

    @property
    def redraws(self) -> int:
        """Full redraws of the figure so far (tests and benchmarks)."""
        return self.canvas.redraws

    def _on_change(self, change) -> None:
        name = next((k for k, c in self.controls.items() if c is change["owner"]), None)
        if self.frames is not None and name == self.FRAMES:
            if self.frames.moved():
                self._set_artists()  # the browser shows the frame: move the artists, so savefig equals it
            else:
                self.refresh(changed=name)
            self.frames.follow()
            return
        self.refresh(changed=name)
        if self.frames is not None:
            self.frames.invalidate(change["owner"])

    def refresh(self, full: bool = False, changed: str | None = None) -> None:
        """Update artists from the controls, redraw, and push new PNG bytes to the widget.

        ``changed`` names the control that moved. Artists it cannot change are drawn into a
        cached layer the first time, so repeated moves of one slider redraw only what moves.
        """
        self._draw(full=full, changed=changed)
        png = self.canvas.png()
        self._live_png = png
        self.image.value = data_url(png)

    def _set_artists(self) -> None:
        """Update the artists only (a pre-rendered frame shows them): no draw, no PNG."""
        with _figure_style():
            if self._update(**self.values):
                self.canvas.forget_background()
        self.canvas.forget_layer()  # the cached layer may hold the old state

    def _draw(self, full: bool = False, changed: str | None = None) -> None:
        """Update the artists and draw them on the canvas (blitting what did not move)."""
        with _figure_style():
            full = bool(self._update(**self.values)) or full
            deps = self._depends().get(changed) if changed is not None else None
            self.canvas.draw(full=full, moving=deps, key=changed)

    def png(self) -> bytes:
        """The canvas as PNG bytes (what the live image shows)."""
        return self.canvas.png()

    def shown_png(self) -> bytes:
        """The PNG the reader sees now: the frame the figure shows, else the live image."""
        framed = self.frames.shown_png() if self.frames is not None else None
        return self._live_png if framed is None else framed

    # -- frames: the off-screen twin --------------------------------------------
    def _make_twin(self) -> "Explorer":
        """The same class built from the same constructor arguments, drawing into a figure of
        its own with this figure's frozen layout; its widgets are closed (it is never shown)."""
        import ipywidgets as widgets

        args, kwargs = self._init_args
        token = _TWIN_OF.set(self.figure)
        try:
            twin = type(self)(*args, **kwargs)
        finally:
            _TWIN_OF.reset(token)
        for c in twin.controls.values():
            c.close()
        for v in vars(twin).values():
            if isinstance(v, widgets.Widget):
                v.close()  # values stay readable and settable; no messages, no observers
        # Plain values, not widgets: a widget would clamp a value to a range that only the
        # live explorer's observers keep in step (e.g. ALiBi's head slider follows num_heads).
        twin.controls = {k: _Held(c) for k, c in twin.controls.items()}
        return twin

    def _render_frame(self, value):
        """The frame at main-slider ``value`` with every other control as it is now: PNG
        bytes and the values of ``FRAME_EXTRAS`` (FrameSet's render callable)."""
        if self._twin is None:
            self._twin = self._make_twin()
        twin = self._twin
        settings = {k: v for k, v in self.values.items() if k != self.FRAMES}
        if settings != self._twin_settings:
            twin.canvas.forget_layer()  # its cached layer holds the old settings
            self._twin_settings = settings
        for k, v in settings.items():
            twin.controls[k].value = v
        twin.controls[self.FRAMES].value = value
        twin._draw(changed=self.FRAMES)
        return twin.canvas.png(), tuple(getattr(twin, a).value for a in self.FRAME_EXTRAS)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
