"""Explorers derived from a spec: controls -> artists updated in place -> blit -> PNG in an
Image widget, and the figures of the spec's frame grid (the main slider and the controls the
notebook's steps move) rendered ahead of time (frames) by the same view drawn on a second figure.

A figure family writes

.. code-block:: python

    class RopeExplorer(Explorer):
        \"\"\"...\"\"\"
        spec = ExplorerSpec(...)          # posenc.ui.engine.spec

and gets the constructor (one for every explorer, :meth:`Explorer.__init__`: its signature
and argument checks come from the spec), the widgets, the frames and, with
``POSENC_STATIC_FRAMES`` set, the static page's frames (:mod:`posenc.ui.engine.static` is that
mode's interface).
"""
from __future__ import annotations

from . import static
from ...validate import bilingual
from .ahead import Ahead, neighbours
from .internals import from_browser, options_keep_index
from .canvas import BlitCanvas, copy_layout, data_url, freeze_layout, new_figure
from .lock import DRAWING, one_at_a_time
from .controls import control_widget, frame_control, frame_options, frame_slider, play_link
from .frames import FrameSet


def _figure_style():
    from ..look import figure_style  # the course's fonts and look (not a figure family)

    return figure_style()


def _image_widget(size):
    import ipywidgets as widgets

    w, h = size
    dims = {} if _scale() == 1 else {"width": f"{w / _scale():.0f}", "height": f"{h / _scale():.0f}"}
    return widgets.Image(format="url", _dom_classes=("posenc-figure",), **dims)


def _scale():
    from . import canvas

    return canvas.PIXEL_SCALE


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

    @one_at_a_time
    def refresh(self, full: bool = False) -> None:
        """Redraw the animated artists (``full``: the whole figure) and show the new PNG."""
        with _figure_style():
            self.canvas.draw(full=full)
        self.image.value = data_url(self.canvas.png())


class Drawing:
    """A spec's view on a figure of its own, with no widgets: the live explorer's figure, and
    the second figure its frames are drawn on (``layout_of``: the figure whose frozen axes
    positions it takes, so both give the same pixels).

    ``controls`` are the spec's controls bound to the explorer's ``params``; ``values`` the
    control values it is first drawn with. :meth:`update` moves the artists, :meth:`draw`
    also draws them (blitting what cannot have moved).
    """

    def __init__(self, spec, params: dict, controls: tuple, values: dict, layout_of=None):
        self.spec, self.params, self.controls = spec, params, controls
        self.readouts: dict = {}
        with _figure_style():
            self.figure = new_figure(spec.figsize)
            self.view = spec.view(self.figure, params)
            self.canvas = BlitCanvas(self.figure)
            self.update(values)
            if layout_of is None:
                freeze_layout(self.figure)
            else:
                copy_layout(self.figure, layout_of)
            self.canvas.set_animated(spec.animated(self.view) if spec.animated else self.view.artists())

    def update(self, values: dict) -> dict:
        """Move the artists to ``values`` (constraints applied); the readouts it gives."""
        with _figure_style():
            out = self.spec.update(self.view, self.spec.resolve(self.controls, values), self.params)
        self.readouts = dict(out or {})
        return self.readouts

    def draw(self, values: dict, full: bool = False, changed: str | None = None) -> None:
        """Update the artists and draw them on the canvas. ``changed`` names the control that
        moved: only the parts of the view it declares it ``changes`` are drawn, the other
        animated artists come from a cached layer (None: everything is drawn)."""
        self.update(values)
        moving = None if changed is None else self.spec.changed_artists(self.view, changed)
        with _figure_style():
            self.canvas.draw(full=full, moving=moving, key=None if moving is None else changed)


class Explorer:
    """Base class of every explorer: a subclass sets ``spec`` (an
    :class:`~posenc.ui.engine.spec.ExplorerSpec`) and, if it likes, a docstring and read-only
    helpers; everything else is derived from the spec.

    ``.controls`` maps each parameter name to its widget; setting
    ``explorer.controls[name].value`` redraws before the assignment returns; ``.widget`` is
    what a notebook displays and ``.figure`` what ``savefig`` writes: the same pixels.
    ``.view`` is the spec's view object, ``.readouts`` what its last update returned; the
    spec's params and extras are attributes of their own names.

    The spec's ``main`` control (the main slider) and the other controls of its frame grid
    (``spec.grid``: those the notebook's steps move; ``.frame_axes``) are the ones a reader
    drags: their figures are rendered ahead of time on a second figure (:class:`Drawing`) and
    switched in the browser (:mod:`posenc.ui.engine.frames`; ``.frames`` is the
    :class:`~posenc.ui.engine.frames.FrameSet`). :meth:`shown_png` is the PNG on screen. Any
    other control (a live one) is redrawn by the kernel when it moves, except a reader's step
    onto a value next to the one before, whose figure was drawn ahead meanwhile (``.ahead``, an
    :class:`~posenc.ui.engine.ahead.Ahead`; JupyterLab only).

    With frames rendered for a page (:mod:`posenc.ui.engine.static`) every explorer renders its
    grid's frames at construction and each control of the grid steps through exactly those;
    :meth:`declaration` tells the builder which controls work on the page.
    """

    name = "explorer"
    spec = None
    #: The main control (frames), from the spec.
    main: str | None = None
    #: Figure size in inches (at 90 dpi), from the spec.
    FIGSIZE = (7.6, 3.0)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is None:
            return
        taken = spec.reserved() & set(dir(Explorer))
        if taken:
            raise TypeError(bilingual(f"{cls.__name__}: spec names {sorted(taken)} are Explorer attributes",
                                      f"{cls.__name__} 的 spec 用了 Explorer 已有的属性名 {sorted(taken)}"))
        cls.name, cls.main, cls.FIGSIZE = spec.name, spec.main, spec.figsize
        cls.__signature__ = spec.signature()  # what inspect.signature(cls) and Shift-Tab show

    def __init__(self, *args, **kwargs):
        """The explorer for the spec's controls and params, given by position or keyword in
        the order ``inspect.signature(type(self))`` shows (:meth:`ExplorerSpec.signature
        <posenc.ui.engine.spec.ExplorerSpec.signature>`), each checked up front
        (:meth:`ExplorerSpec.check_arguments <posenc.ui.engine.spec.ExplorerSpec.check_arguments>`)."""
        import ipywidgets as widgets

        spec = self.spec
        params, values = spec.check_arguments(*args, **kwargs)
        self.params = params
        for k, v in params.items():
            setattr(self, k, v)
        self.declared = {c.name: c for c in spec.control_list(params)}
        self._syncing = False
        self._frame_drawing, self._frame_settings = None, None
        limit = static.frames_limit()  # None: live mode
        self.static = limit is not None
        main = spec.main
        self.frame_axes = {a.control: a for a in spec.axes()}    # the frame grid, outermost first, main last
        controls = {name: control_widget(c, values[name], c.top(values))
                    for name, c in self.declared.items() if name not in self.frame_axes}
        framed = {}
        for name, axis in self.frame_axes.items():
            c = self.declared[name]
            if name == main:
                subset = static.subset_slider(axis, c, values[main], limit) if self.static else None
                controls[main] = frame_slider(c, values[main]) if subset is None else subset
            else:
                # a page: the page values; JupyterLab: the live values; every value offered gets frames
                every = (axis.page_values if self.static else axis.live_values)(c, c.nearest(values[name]))
                controls[name] = frame_control(c, values[name], every, top=c.top(values))
                framed[name] = (every, None)
        self._axis_options = {name: [(c.text(v), v) for v in every]
                              for name, (every, _) in framed.items() for c in [self.declared[name]]}
        self.controls = controls = {name: controls[name] for name in self.declared}   # in declared order
        self.drawing = Drawing(spec, params, tuple(self.declared.values()), self.values)
        self.figure, self.view, self.canvas = self.drawing.figure, self.drawing.view, self.drawing.canvas
        extras = {x: widgets.HTML() for x in spec.extras}
        for x, w in extras.items():
            setattr(self, x, w)
        self.image = _image_widget(self.canvas.size())
        self._live_png = b""
        self._canvas_behind = False   # the image shows a figure drawn ahead; the live canvas holds an older one
        self.ahead = None             # the neighbours of a live control's value (live mode, ahead.py)
        for c in controls.values():
            c.observe(self._on_change, names="value")
        self._follow_activity()
        self.refresh(full=True)
        self.frames = None
        shown, below = self.image, list(extras.values())
        if main is not None:
            grid = [(name, controls[name], *framed[name]) for name in self.frame_axes if name != main]
            self.frames = FrameSet(controls[main], self.image, self.render_frame, list(extras.values()),
                                   label=self.name, main=main, eager=self.static, grid=grid)
            shown, below = self.frames.view, []
            if not self.static:
                self.ahead = Ahead(self._second_drawing)
        self.play = self.play_link = None
        if spec.play is not None and main is not None:
            self.play = widgets.Play(step=1, interval=spec.play, description="play")
            self.play_link = play_link(self.play, controls[main])  # plays in the browser, frame by frame
            below = [self.play, *below]
        from ..declare import EXPLORER, declared_box

        rows = [widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))]
        self.widget = declared_box([*rows, *below, shown], EXPLORER, self.declaration)
        self.widget.add_class("posenc-explorer")
        self.widget.add_class(f"posenc-explorer-{self.name}")

    # -- state ----------------------------------------------------------------------
    @property
    def values(self) -> dict:
        """Current control values, by parameter name."""
        return {k: c.value for k, c in self.controls.items()}

    @property
    def readouts(self) -> dict:
        """What the view's last update returned (e.g. the hand calculation's table)."""
        return self.drawing.readouts

    @property
    def redraws(self) -> int:
        """Full redraws of the figure so far (tests and benchmarks)."""
        return self.canvas.redraws

    def control_values(self, name: str, n: int, *, max_options: int | None = 24) -> list:
        """Values spread over control ``name``'s whole range as it is now, end to end: what
        tests and tools (tools/benchmark.py, tools/pixel_hashes.py) set it to when they sweep
        it (:meth:`Control.spread <posenc.ui.engine.spec.Control.spread>`; a widget that lists
        options, e.g. a frame grid's SelectionSlider, is swept over the values it offers)."""
        c, widget = self.declared[name], self.controls[name]
        listed = [v for _, v in frame_options(widget)] if hasattr(widget, "options") else False
        return c.spread(n, widget.value, c.top(self.values), listed=listed, max_options=max_options)

    # -- controls -> figure -----------------------------------------------------------
    def _follow_constraints(self) -> bool:
        """Give each control whose maximum follows another its new maximum (clamping its
        value to :meth:`ExplorerSpec.resolve <posenc.ui.engine.spec.ExplorerSpec.resolve>`'s,
        without a redraw of its own); True if a value was clamped."""
        values = self.values
        resolved = self.spec.resolve(tuple(self.declared.values()), values)
        clamped = False
        for c in self.declared.values():
            if c.max_follows is None:
                continue
            w, top = self.controls[c.name], c.top(resolved)
            listed = c.name in self._axis_options     # a grid axis: a selection widget over its values
            options = [o for o in self._axis_options.get(c.name, ()) if o[1] <= top]
            if (len(w.options) != len(options) if listed else w.max != top) or resolved[c.name] != values[c.name]:
                self._syncing = True
                try:
                    if resolved[c.name] != values[c.name]:
                        w.value, clamped = resolved[c.name], True
                    if listed:       # its first options, so each keeps its index (and its frames' Stack)
                        with options_keep_index(w):
                            w.options = options
                        w.value = resolved[c.name]
                    else:
                        w.max = top
                finally:
                    self._syncing = False
        return clamped

    def _follow_activity(self) -> None:
        """Grey out each control whose ``active_when`` says it cannot change the figure now."""
        values = self.values
        for c in self.declared.values():
            if c.active_when is not None:
                self.controls[c.name].disabled = not c.active_when(values)

    def _on_change(self, change) -> None:
        if self.frames is not None:  # before waiting for the drawing lock: no fill starts another frame
            self.frames.scheduler.touch()
        with DRAWING:
            self._react(change)

    def _react(self, change) -> None:
        if self._syncing:  # a control being clamped by _follow_constraints: drawn with the change
            return
        name = next((k for k, c in self.controls.items() if c is change["owner"]), None)
        clamped = self._follow_constraints()
        self._follow_activity()
        if self.frames is not None and name in self.frame_axes and not clamped:
            if self.ahead is not None:
                self.ahead.forget()
            if self.frames.moved(change["owner"]):
                self._set_artists()  # the browser shows the frame: move the artists, so savefig equals it
            else:
                self.refresh(changed=name)
            self.frames.follow()
            return
        self.refresh(changed=None if clamped else name)   # a clamped control changed what it declares too
        if self.frames is not None:
            self.frames.invalidate(change["owner"])
        if self.ahead is not None:   # a reader's step: its next one each way drawn ahead
            if clamped or not from_browser(change["owner"]):
                self.ahead.forget()
            else:
                values = self.values
                self.ahead.plan(name, [values | {name: v} for v in
                                       neighbours(self.declared[name], change["owner"], change["old"], change["new"])])
                self.frames.scheduler.ahead(self.ahead)

    @one_at_a_time
    def refresh(self, full: bool = False, changed: str | None = None) -> None:
        """Update artists from the controls, redraw, and push new PNG bytes to the widget.

        ``changed`` names the control that moved. Artists it cannot change are drawn into a
        cached layer the first time, so repeated moves of one slider redraw only what moves.
        A figure drawn ahead for these values (:mod:`~posenc.ui.engine.ahead`) is shown instead
        of a redraw: the artists move, the live canvas is drawn when it is next read (:meth:`png`).
        """
        values = self.values
        ready = None if full or changed is None or self.ahead is None else self.ahead.take(values)
        if ready is not None:
            _, url, png = ready
            self._live_png = png
            self.image.value = url              # sent first: what the reader waits for
            self.drawing.update(values)         # then the artists (savefig writes what is shown)
            self._show_readouts()
            self._canvas_behind = True          # the canvas's layer for `changed` stays valid
            return
        self.drawing.draw(values, full=full, changed=changed)
        self._canvas_behind = False
        self._show_readouts()
        png = self.canvas.png()
        self._live_png = png
        self.image.value = data_url(png)

    def _set_artists(self) -> None:
        """Update the artists only (a pre-rendered frame shows them): no draw, no PNG."""
        self.drawing.update(self.values)
        self._show_readouts()
        self.canvas.forget_layer()  # the cached layer may hold the old state

    def _show_readouts(self) -> None:
        for x in self.spec.extras:
            getattr(self, x).value = self.drawing.readouts[x]

    @one_at_a_time
    def png(self) -> bytes:
        """The canvas as PNG bytes (what the live image shows; drawn first if the image shows a
        figure drawn ahead)."""
        if self._canvas_behind:
            self.drawing.draw(self.values)
            self._canvas_behind = False
        return self.canvas.png()

    def shown_png(self) -> bytes:
        """The PNG the reader sees now: the frame the figure shows, else the live image."""
        framed = self.frames.shown_png() if self.frames is not None else None
        return self._live_png if framed is None else framed

    # -- frames: the view on a second figure ------------------------------------------
    def _second_drawing(self) -> Drawing:
        """The view on a figure of its own with the live figure's axes positions (the same
        pixels): what frames and figures drawn ahead are drawn on, one each."""
        return Drawing(self.spec, self.params, tuple(self.declared.values()), self.values, layout_of=self.figure)

    @one_at_a_time
    def render_frame(self, value, at: dict | None = None):
        """The figure at main-slider ``value`` with every other control as it is now (``at``:
        other values for some of them, e.g. the grid's other axes): PNG bytes and the values of
        the spec's extras (the FrameSet's render callable)."""
        main = self.main
        settings = {k: v for k, v in self.values.items() if k != main} | dict(at or {})
        if self._frame_drawing is None:
            self._frame_drawing = self._second_drawing()
        d = self._frame_drawing
        if settings != self._frame_settings:
            d.canvas.forget_layer()  # its cached layer holds the old settings
            self._frame_settings = settings
        d.draw({**settings, main: value}, changed=main)
        return d.canvas.png(), tuple(d.readouts[x] for x in self.spec.extras)

    def frame_pngs(self, n: int | None = None) -> list:
        """``[(value, png_bytes)]`` of the main slider, every other control as it is now: every
        value the main control can take, or the ``n`` a static page with ``POSENC_STATIC_FRAMES=n``
        holds (:meth:`Axis.page_values <posenc.ui.engine.spec.Axis.page_values>`)."""
        if self.main is None:
            return []
        c = self.declared[self.main]
        values = c.values()
        if n is not None:
            values = self.frame_axes[self.main].page_values(c, self.controls[self.main].value, n)
        return [(v, self.render_frame(v)[0]) for v in values]

    def close(self) -> None:
        """Close every widget of this explorer and forget its frames; the last explorer of a
        kernel to close removes the frame scheduler's IPython hooks."""
        if self.frames is not None:
            self.frames.close()
        if self.ahead is not None:
            self.ahead.forget()
        for c in self.controls.values():
            c.close()
        for x in (*(getattr(self, e) for e in self.spec.extras), self.play_link, self.play, self.image, self.widget):
            if x is not None:
                x.close()

    def declaration(self) -> dict:
        """What this explorer is, for the static edition's builder (:mod:`posenc.ui.declare`):
        its name, its main slider (and Play button) and the frame grid's other axes by widget
        model id — what works on a page without a kernel — with how many of each one's values
        have frames out of how many it has (``cap``: the most values of the main slider a page
        holds with no limit from the builder), the frames' root, and every other control by model id."""
        frames = self.frames
        main = {} if frames is None else {
            "main": self.main, "main_model": frames.slider.model_id,
            "play_model": None if self.play is None else self.play.model_id,
            "frames": len(frames.values),
            "values": len(self.declared[self.main].values()),
            "cap": len(self.frame_axes[self.main].page_values(self.declared[self.main], frames.slider.value)),
            "grid": [{"name": name, "model": widget.model_id, "frames": len(frames.framed[k]),
                      "values": len(self.declared[name].values()),
                      "shown": [text for text, _ in frame_options(widget)] if len(frames.framed[k]) <= 8 else None}
                     for k, (name, widget) in enumerate(zip(frames.names[:-1], frames.widgets[:-1]))],
            "frames_model": frames.view.model_id}
        return {"name": self.name, **main,
                "controls": {k: c.model_id for k, c in self.controls.items() if k not in self.frame_axes}}

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
