"""Frames: the figures of an explorer's frame grid (its main slider and the controls its steps
use), rendered ahead of time and switched in the browser, so that a drag never waits for the
kernel.

Without frames every slider move is a kernel round trip (widget message -> update the
artists -> blit -> PNG -> message back), and ipywidgets sends the next value only after the
kernel answered: a drag gets 7-14 figures a second. With frames, the figure shown is an
``ipywidgets.Stack`` of ``Image`` widgets, one per position of the main slider, each holding a
``data:image/png;base64,...`` URL; the Stack's ``selected_index`` is ``jsdlink``-ed to the
slider's ``value`` (an ``IntSlider`` from 0 in steps of 1) or ``index`` (a selection widget), so
the browser switches the figure itself. A grid of more controls nests Stacks the same way: one
Stack per framed value of each outer control, each ``jsdlink``-ed to that control's widget (no
JavaScript of our own: it works in JupyterLab and on a static page alike).

A :class:`FrameSet` knows nothing of what it shows: it is given the widgets of the grid, the
live image (shown where no frame is rendered yet), and a ``render(value[, at]) -> (png,
extra_values)`` callable. :class:`~posenc.ui.engine.explorer.Explorer` builds one from its
spec's grid (:attr:`ExplorerSpec.grid <posenc.ui.engine.spec.ExplorerSpec.grid>`).

* A position whose frame is not rendered yet shows the live image, redrawn by the kernel.
  (data: URLs, not PNG bytes: the browser shows a data: URL at once, a PNG widget's ``blob:``
  URL loads asynchronously and blanks the figure for a moment on every switch.)
* The fill yields to the reader. Frames are rendered on a thread of their own
  (:class:`~posenc.ui.engine.fill_thread.FillThread`), never on a thread that handles the
  reader's messages (JupyterLab >= 4.4 with ipykernel >= 7 hands widget messages to a subshell
  thread, cells run on the main thread, and a comm's next message goes to the thread that sent
  its last one), one per callback, only once the kernel has been quiet (no cell run, no control
  of any explorer moved) for :data:`~posenc.ui.engine.scheduler.QUIET_S`; drawing is one at a
  time (:mod:`~posenc.ui.engine.lock`), and a frame being drawn gives way to a reader's move at
  its next artist (it is drawn again later). A reader who moves a control pauses every fill.
  Positions nearest the handles are filled first: the grid's other controls at the main slider's
  position, then the main slider's every position, then the rest (:meth:`FrameSet._rank`). The
  explorer the reader moved last is filled first, then the others in the order they were made
  (higher on the page first; a move made by a cell's code does not change that order). Without a
  running event loop where a fill is asked for (plain Python, pytest) nothing is scheduled: call
  :meth:`FrameSet.fill`.
* A frame is kept as its data: URL until it is published; its widgets (each one a message
  the browser handles) are made then, at most :data:`PUBLISH_WIDGETS` per publish, nearest
  the handles first, and every frame shares one Layout per kind.
* Moving a control outside the grid drops the frames: the browser shows the live figure at
  once (small messages: the frames' tree is hidden, not republished) and a new fill starts
  when the kernel is quiet; the new frames are sent once they are all rendered, in parts
  (the live figure stays up meanwhile, and the browser has nothing to handle while the
  reader moves that control again), or, one frame, when a control of the grid moves to a
  position that has its frame (the rest follow as the fill goes on). The dropped widgets are
  closed later, a few per quiet callback, not while the reader waits for the new figure.
  The next value each way of the control that moved is drawn ahead meanwhile
  (:mod:`~posenc.ui.engine.ahead`), before any frame.
* Memory: at most :data:`MAX_BYTES` of data: URLs per set, the frames nearest the handles first
  (when the reader moves on, the farthest frames make room for nearer ones), and at most
  :data:`~posenc.ui.engine.scheduler.MAX_TOTAL_BYTES` in one kernel (the set used least recently
  gives its frames up first).
* Setting a grid control's ``.value`` in code stays synchronous: the Stacks' indices follow
  before the assignment returns.
"""
from __future__ import annotations

import itertools

from .canvas import data_url, png_of
from .controls import frame_attr, frame_options
from .internals import from_browser
from .lock import DRAWING, checkpoint
from .scheduler import Unscheduled, frame_scheduler

#: Data: URL bytes one set's frames may hold (kernel memory; the browser keeps about as
#: much again in decoded images while they are shown).
MAX_BYTES = 24 * 2**20
#: Frames rendered meanwhile are sent to the browser at most this often (s) during a fill.
PUBLISH_S = 0.15
#: Widgets one publish of the fill makes at most (each one a message the browser handles):
#: frames rendered behind the live figure go out in parts, one per PUBLISH_S while the kernel
#: is quiet, not all at once.
PUBLISH_WIDGETS = 24


def __getattr__(name):
    if name == "SCHEDULER":   # the name tools/drag_metrics.py reads in a kernel: frame_scheduler()
        return frame_scheduler()
    raise AttributeError(name)


def _positions(slider) -> list:
    """The value at each position of a frame slider, in index order."""
    return [v for _, v in frame_options(slider)]


class FrameSet:
    """The frames of a grid of controls (the main slider and the spec's other grid axes, if
    any) and the Stacks that show them.

    ``slider``: the main slider, an IntSlider from 0 in steps of 1 or a selection widget
    (:func:`~posenc.ui.engine.controls.frame_control` makes one). ``grid``: the other axes,
    outermost first, each ``(name, widget, framed)`` or ``(name, widget, values, framed)``: a
    frame control, the value at each of its positions (None: its options now; a widget whose
    maximum follows another control offers the first of them) and the values of it that get
    frames (None: all of them; at the others the live figure shows, drawn by the kernel).
    ``live``: the Image shown where no frame is rendered; ``live_extras``: widgets whose
    ``.value`` also follows the controls (e.g. an HTML table), shown above the figure, in every
    frame too. ``render(value)`` (no grid) or ``render(value, at)`` (``at``: the other axes'
    values by name): the PNG bytes of the figure at main-slider ``value`` and the values of the
    extras. ``label`` and ``main`` (the explorer's name and its main slider's) identify the set
    in :func:`status`.

    A position is a tuple of widget positions (the outer axes' first, the main slider's last).
    The Stacks nest like the axes: one Stack per framed value of each outer axis, each
    ``jsdlink``-ed from its axis's widget (value or index -> ``selected_index``), the innermost
    ones holding the frames; so the browser switches the figure for every axis of the grid
    itself. :attr:`view`, what an explorer displays, is a Box of two in one grid cell: the
    frames' tree and the live figure on top of it, each shown or hidden by its Layout's display
    (both stay rendered in the browser). A control outside the grid that moves shows the live
    figure at once (two small messages, not the tree's children again) and drops the frames;
    the tree gets the new frames while the kernel is quiet, and is shown again when the fill is
    done, or as soon as a control of the grid moves to a position that has its frame.

    ``eager=True`` (static mode, :mod:`posenc.ui.engine.static`): no scheduler and no memory
    cap; every position is rendered before the constructor returns, again after
    :meth:`invalidate`, and the positions a re-formed main slider (a
    :class:`~posenc.ui.engine.static.SubsetSlider` whose options changed) lacks are rendered
    when it moves: the tree never shows the live figure.
    """

    def __init__(self, slider, live, render, live_extras=(), label: str = "", main: str = "", scheduler=None,
                 eager: bool = False, grid=()):
        import ipywidgets as w

        self.slider, self.live, self.render = slider, live, render
        self.label, self.main = label, main
        self.eager = bool(eager)
        grid = [(name, widget, *rest) if len(rest) == 2 else (name, widget, None, *rest) for name, widget, *rest in grid]
        self.names = [name for name, *_ in grid] + [main]
        self.widgets = [widget for _, widget, *_ in grid] + [slider]
        self.attrs = [frame_attr(x) for x in self.widgets]   # TypeError for a widget a Stack cannot follow
        self.attr = self.attrs[-1]
        self.options = [_positions(x) if values is None else list(values) for (_, x, values, _) in grid]
        self.options.append(_positions(slider))
        self.values = self.options[-1]
        self.framed = [sorted(i for i, v in enumerate(opts) if framed is None or v in framed)
                       for (*_, framed), opts in zip(grid, self.options)]
        self.scheduler = Unscheduled() if eager else frame_scheduler() if scheduler is None else scheduler
        self.live_extras = tuple(live_extras)
        self.live_view = w.VBox([*self.live_extras, live]) if self.live_extras else live
        self.max_bytes = float("inf") if eager else MAX_BYTES
        self.frames: dict = {}  # position -> the widget in its Stack (the Image, or a VBox of the extras and it)
        self.sizes: dict = {}   # position -> bytes held
        self.bytes = 0
        self.broken = None  # the exception that stopped this set's fill, if any
        # fill order: moved last by the reader first; never moved: made first (higher on the page) first
        self.last_used = -self.scheduler.clock()
        self._dirty_leaves: set = set()     # innermost Stacks whose children differ from the frames
        self._unpublished_closes: list = []  # frames evicted or dropped, out of the Stacks at the next publish
        self._full_at = None
        self._order = (None, [])            # (centre, positions nearest it first)
        self._last_publish = 0.0
        self._layouts: dict = {}            # the Layouts every frame shares (:meth:`_shared`)
        self.levels: list = [{} for _ in self.widgets]   # per axis: outer prefix -> Stack
        self.stack = self._build((), 0)
        self.leaves = self.levels[-1]
        # The tree and the live figure share one grid cell, the live one on top; which one shows
        # is one small message each way (a Layout's display). Both stay rendered in the browser:
        # a Stack of the two re-created the live image's view (and dropped the tree's) at every
        # switch, 40 ms of a reader's move during a fill.
        self.stack.layout.grid_area = "figure"
        self.live_box = w.Box([self.live_view], layout=w.Layout(grid_area="figure", display="none"),
                              _dom_classes=("posenc-live",))
        self.view = w.Box([self.stack, self.live_box], _dom_classes=("posenc-frames",),
                          layout=w.Layout(display="grid", grid_template_areas='"figure"'))
        self.links = [w.jsdlink((x, attr), (st, "selected_index"))
                      for x, attr, level in zip(self.widgets, self.attrs, self.levels) for st in level.values()]
        for x in self.widgets:
            x.add_class("posenc-frames-control")      # every control of the grid
        slider.add_class("posenc-frames-main")        # the main slider
        self.scheduler.add(self)
        self.scheduler.wake()
        if self.eager:
            self.fill()

    def _build(self, prefix: tuple, level: int):
        """The Stack of axis ``level`` under the outer positions ``prefix`` (and those inside it)."""
        import ipywidgets as w

        n = len(self.options[level])
        if level == len(self.widgets) - 1:
            children = [self.live_view] * n
        else:
            framed = set(self.framed[level])
            children = [self._build((*prefix, i), level + 1) if i in framed else self.live_view for i in range(n)]
        stack = w.Stack(children=children, selected_index=self._index(level))
        self.levels[level][prefix] = stack
        return stack

    @property
    def positions(self) -> list:
        """Every position that can have a frame now (an axis whose widget offers only its first
        values, e.g. ALiBi's head up to num_heads: those)."""

        offered = [len(frame_options(x)) for x in self.widgets[:-1]]
        framed = [[i for i in f if i < n] for f, n in zip(self.framed, offered)]
        return [(*outer, i) for outer in itertools.product(*framed) for i in range(len(self.values))]

    # -- state ------------------------------------------------------------------
    def _index(self, level: int) -> int:
        return getattr(self.widgets[level], self.attrs[level])

    def index(self) -> tuple:
        """The widgets' positions (the Stacks' indices they select), outer axes first."""
        return tuple(self._index(level) for level in range(len(self.widgets)))

    @property
    def live_shown(self) -> bool:
        """Does the view show the live figure (the frames' tree hidden, its frames dropped)?"""
        return self.live_box.layout.display != "none"

    def _show_live(self, live: bool) -> None:
        """Show the live figure or the tree. The one to show first: it lies in the same grid
        cell, the live one on top, so the browser never shows neither nor both side by side."""
        if live == self.live_shown:
            return
        if live:
            self.live_box.layout.display = None
            self.stack.layout.display = "none"
        else:
            self.stack.layout.display = None
            self.live_box.layout.display = "none"

    def shown(self, pos: tuple) -> bool:
        """Does the browser show a frame at position ``pos`` (published, not the live image)?"""
        leaf = self.leaves.get(pos[:-1])
        return not self.live_shown and leaf is not None and leaf.children[pos[-1]] is not self.live_view

    def shown_png(self) -> bytes | None:
        """The PNG bytes of the frame the Stacks show now; None when they show the live image."""
        if self.live_shown:
            return None
        node = self.stack
        for _ in self.widgets:
            i = node.selected_index
            node = self.live_view if i is None else node.children[i]
            if node is self.live_view:
                return None
        return png_of(self._image(node).value)

    def image_at(self, pos: tuple):
        """The Image widget of the frame at ``pos`` (KeyError: none rendered); a frame not sent
        to the browser yet gets its widgets now."""
        return self._image(self._widget(pos))

    def _image(self, frame):
        """The Image widget holding a frame's data: URL (the frame, or the last of its box)."""
        return frame.children[-1] if self.live_extras else frame

    def frame_size(self) -> int:
        """Bytes one more frame will probably take (the mean so far; 0 before the first)."""
        return self.bytes // len(self.sizes) if self.sizes else 0

    def _centre(self) -> tuple:
        """The position the fill works outwards from: the widgets' positions, an outer axis at
        a value with no frames taken at its nearest framed value (as ordinals)."""
        here = self.index()
        outer = tuple(min(range(len(f)), key=lambda k: (abs(f[k] - i), k)) for f, i in zip(self.framed, here))
        return (*outer, here[-1])

    def _rank(self, pos: tuple, centre: tuple) -> tuple:
        """How soon the fill draws ``pos`` (lower first; the farthest frames make room first):
        the other axes' values at the main slider's position (a drag of any of them follows
        from there), then the main slider's every position at the other axes' values (a drag
        of it, as before a grid), then the rest, nearest the other axes' values first (steps
        summed), each nearest the main slider's position first."""
        outer = sum(abs(f.index(i) - c) for f, i, c in zip(self.framed, pos, centre))
        main = abs(pos[-1] - centre[-1])
        return (0, outer) if main == 0 else (1, main) if outer == 0 else (2, outer, main)

    def _nearest_first(self) -> list:
        """Every position in the fill's order (:meth:`_rank`; a tie: the lower position first,
        the outer axes' first, so one Stack fills at a time)."""
        key = (self._centre(), tuple(len(frame_options(x)) for x in self.widgets[:-1]))
        if self._order[0] != key:
            self._order = (key, sorted(self.positions, key=lambda p: (self._rank(p, key[0]), p)))
        return self._order[1]

    def _missing(self):
        """The position nearest the centre that has no frame (None: all have one)."""
        return next((p for p in self._nearest_first() if p not in self.frames), None)

    def _farthest(self):
        centre = self._centre()
        return max(self.frames, key=lambda p: (self._rank(p, centre), p)) if self.frames else None

    def wants_frame(self) -> bool:
        """Is there a frame to render now (within the memory cap)?"""
        if self.broken is not None or self.max_bytes <= 0:
            return False
        pos = self._missing()
        if pos is None or self._full_at == self.index():
            return False
        if self.bytes + self.frame_size() <= self.max_bytes:
            return True
        far = self._farthest()
        centre = self._centre()
        return far is not None and self._rank(far, centre) > self._rank(pos, centre)

    @property
    def _dirty(self) -> bool:
        """Is anything not published yet (frames, or the tree shown again)?"""
        return bool(self._dirty_leaves) or self.live_shown

    # -- moves ------------------------------------------------------------------
    def moved(self, control=None) -> bool:
        """An axis of the grid moved (browser or code; ``control``: its widget, default the
        main slider): True if the browser shows a frame there (the caller then only moves its
        artists), False if the live image must be redrawn. Call :meth:`follow` after the live
        image is up to date."""
        self.scheduler.touch()
        self._used(self.slider if control is None else control)
        if self.eager and _positions(self.slider) != self.values:
            self._reposition()
            self.fill()
        if self._dirty and self.eager:
            self.publish()
        elif self.live_shown and self.index() in self.frames:
            # a frame is there: the tree again, switched in the browser; only this frame is sent
            # now, the others rendered behind the live figure follow with the fill's next publish
            self._widget(self.index())
            self.publish(show_tree=True, limit=0)
        return self.shown(self.index())

    def _reposition(self) -> None:
        """The main slider's values changed (a re-formed SubsetSlider): keep the frames of the
        values it still has, at their new positions; the others are taken out at the next publish."""
        values = _positions(self.slider)
        new_index = {v: j for j, v in enumerate(values)}
        kept = {}
        for pos, frame in self.frames.items():
            j = new_index.get(self.values[pos[-1]])
            if j is None:
                self._unpublished_closes += self._parts(frame)
            else:
                kept[(*pos[:-1], j)] = (frame, self.sizes[pos])
        self.frames = {p: f for p, (f, _) in kept.items()}
        self.sizes = {p: n for p, (_, n) in kept.items()}
        self.bytes = sum(self.sizes.values())
        self.values = self.options[-1] = values
        self._full_at = None
        self._order = (None, [])
        self._dirty_leaves |= set(self.leaves)

    def follow(self) -> None:
        """Select the widgets' positions in the Stacks when code moved them (from the browser,
        the jsdlinks have switched already), and let the fill go on later."""
        for level, widget in enumerate(self.widgets):
            if from_browser(widget):
                continue
            i = self._index(level)
            for st in self.levels[level].values():
                if st.selected_index != i:
                    st.selected_index = i
        self.scheduler.wake()

    def drop(self) -> None:
        """Forget every frame. The browser shows the live figure at once (one message: the
        frames' tree is hidden, not republished); the tree is published again, with the frames
        rendered meanwhile, while the kernel is quiet (:meth:`publish`)."""
        self._unpublished_closes += [x for f in self.frames.values() for x in self._parts(f)]
        self.frames.clear()
        self.sizes.clear()
        self.bytes = 0
        self._full_at = None
        stale = {p for p, leaf in self.leaves.items() if any(c is not self.live_view for c in leaf.children)}
        self._dirty_leaves |= stale
        if stale:
            self._show_live(True)

    def invalidate(self, control=None) -> None:
        """What the frames show changed (``control``, a control outside the grid, moved): drop
        them; a new fill starts when the kernel is quiet."""
        self.scheduler.touch()
        self._used(control)
        self.drop()
        self.scheduler.wake()
        if self.eager:
            self.fill()

    def _used(self, control) -> None:
        """A reader's move (a message from the browser) puts this set first in the fill
        order; a move made by code (a notebook cell) does not change the order."""
        if control is not None and from_browser(control):
            self.last_used = self.scheduler.clock()

    # -- rendering ----------------------------------------------------------------
    def render_at(self, pos: tuple):
        """The figure at grid position ``pos`` (indices, outer axes first, the main slider's
        last), drawn now: what the ``render`` callback returns (the PNG and the extras)."""
        value = self.values[pos[-1]]
        if len(self.widgets) == 1:
            return self.render(value)
        return self.render(value, {name: opts[i] for name, opts, i in zip(self.names, self.options, pos[:-1])})

    def render_next(self) -> bool:
        """Render the frame nearest the centre (making room if needed); False: nothing to do.
        The frame is kept as its data: URL; its widgets are made when it is published."""
        if not self.wants_frame():
            self._maybe_publish(force=True)
            return False
        pos, here = self._missing(), self.index()
        png, values = self.render_at(pos)
        url = data_url(png)
        size = len(url) + sum(len(str(v).encode()) for v in values)
        self.frames[pos] = Unsent(url, values)
        self.sizes[pos] = size
        self.bytes += size
        self._dirty_leaves.add(pos[:-1])
        while self.bytes > self.max_bytes:  # the farthest frames make room
            far = self._farthest()
            self._evict(far)
            if far == pos:
                self._full_at = here
                break
        self._maybe_publish()
        return True

    def _widget(self, pos: tuple):
        """The widget of the frame at ``pos`` in its Stack, made now if it has not been sent yet
        (each widget made is a message to the browser)."""
        import ipywidgets as w

        frame = self.frames[pos]
        if not isinstance(frame, Unsent):
            return frame
        size_attrs = {} if self.live.width == "" else {"width": self.live.width, "height": self.live.height}
        # one Layout (and style) shared by every frame: each new one is a message more per frame
        # (6 instead of 3 for a frame with a table), and was never closed with its frame
        image = w.Image(value=frame.url, format="url", _dom_classes=("posenc-figure",), layout=self._shared("image"),
                        **size_attrs)
        extras = [type(x)(value=v, layout=x.layout, **({"style": x.style} if hasattr(x, "style") else {}))
                  for x, v in zip(self.live_extras, frame.values)]
        self.frames[pos] = w.VBox([*extras, image], layout=self._shared("box")) if extras else image
        return self.frames[pos]

    def _shared(self, name: str):
        """The Layout every frame's ``name`` (image, box) shares, made on first use."""
        import ipywidgets as w

        if name not in self._layouts:
            self._layouts[name] = w.Layout()
        return self._layouts[name]

    def _evict(self, pos: tuple) -> None:
        # closed only after a publish has taken them out of the Stacks' children: a closed
        # child the browser still shows would leave a hole in the figure
        self._unpublished_closes += self._parts(self.frames.pop(pos))
        self.bytes -= self.sizes.pop(pos)
        self._dirty_leaves.add(pos[:-1])

    def _parts(self, frame) -> list:
        """The widgets of one frame (the VBox of the extras and the image, or the image; none
        for a frame not sent yet)."""
        if isinstance(frame, Unsent):
            return []
        return [frame, *frame.children] if self.live_extras else [frame]

    def _maybe_publish(self, force: bool = False) -> None:
        """After a frame is rendered (``force``: when none is left to render): the fill's
        publish (:meth:`publish_due`), at once when this was the set's last frame."""
        self.publish_due(force or not self.wants_frame())

    def publish_due(self, force: bool = False) -> float | None:
        """The fill's publish, once :data:`PUBLISH_S` have passed since the last (or ``force``):
        at most :data:`PUBLISH_WIDGETS` new widgets, the frames nearest the handles first. While
        the tree shows, a drag of the grid's controls gets the frames as they come; behind the
        live figure nothing is sent until the set is full (each widget made is a message the
        browser handles: during a refill they held a reader's moves up by 10-20 ms, for frames
        nobody saw yet). The seconds until the next part is due; None when nothing is left to
        send now."""
        if not self._dirty or (self.live_shown and self.wants_frame()):
            return None
        wait = self._last_publish + PUBLISH_S - self.scheduler.clock()
        if wait > 0 and not force:
            return wait
        per_frame = 1 + (len(self.live_extras) + 1 if self.live_extras else 0)
        self.publish(limit=max(1, PUBLISH_WIDGETS // per_frame))
        return PUBLISH_S if self._dirty_leaves else None

    def publish(self, show_tree: bool | None = None, limit: int | None = None) -> None:
        """Send the innermost Stacks the frames rendered so far: all, or the ``limit`` not sent
        yet that are nearest the handles (the others show the live figure and stay to publish);
        frames taken out are closed later. The tree is shown again with ``show_tree``, or (None)
        once every frame is sent and the set wants no more: while a fill runs after a control
        outside the grid moved, the live figure stays up, so that control's next move switches
        nothing in the browser (a switch during a fill cost a reader's move 30-50 ms); a move of
        a grid control to a position with a frame brings the tree back at once (:meth:`moved`)."""
        if self._dirty_leaves:
            unsent = [p for p, f in self.frames.items() if isinstance(f, Unsent)]
            if limit != 0:   # which go first (limit=0, a reader's grid move, sends none of them)
                centre = self._centre()
                unsent.sort(key=lambda p: (self._rank(p, centre), p))
            for pos in unsent[:limit]:
                checkpoint()   # the fill's publish gives way to a reader's move between two frames
                self._widget(pos)
            n = len(self.values)
            for prefix in sorted(self._dirty_leaves):
                frames = (self.frames.get((*prefix, i)) for i in range(n))
                self.leaves[prefix].children = [self.live_view if f is None or isinstance(f, Unsent) else f
                                                for f in frames]
            self._dirty_leaves = set() if limit is None else {p[:-1] for p in unsent[limit:]}
            self._last_publish = self.scheduler.clock()
        if show_tree or (show_tree is None and not self._dirty_leaves and not self.wants_frame()):
            self._show_live(False)
        if self._unpublished_closes:
            gone, self._unpublished_closes = self._unpublished_closes, []
            self.scheduler.close_later(gone)

    def close(self) -> None:
        """Close every frame and Stack of this set and leave the scheduler (after the frame
        the fill thread may be drawing for it)."""
        with DRAWING:
            self._close()

    def _close(self) -> None:
        self.scheduler.remove(self)
        stacks = [st for level in self.levels for st in level.values()]
        for x in (*(x for f in self.frames.values() for x in self._parts(f)), *self._unpublished_closes,
                  *self.links, *stacks, *self._layouts.values(), self.view):
            x.close()
        if self.live_extras:
            self.live_view.close()
        self.frames.clear()
        self._unpublished_closes = []

    def fill(self, limit: int | None = None) -> FrameSet:
        """Render frames now, nearest the centre first (all, or ``limit`` of them), and
        publish them: for tests and for code that runs with no event loop."""
        count = 0
        while (limit is None or count < limit) and self.render_next():
            count += 1
        self.publish(show_tree=True)
        return self


class Unsent:
    """A frame rendered but not sent to the browser yet: its data: URL and the values of the
    extras (:meth:`FrameSet._widget` makes its widgets when it is published)."""

    __slots__ = ("url", "values")

    def __init__(self, url: str, values: tuple):
        self.url, self.values = url, values


def status() -> list[dict]:
    """One row per frame set alive: its label (the explorer's name), slider, frames rendered,
    positions, bytes, whether more frames are wanted (for tests and benchmarks)."""
    return [{"explorer": s.label, "control": s.main, "frames": len(s.frames),
             "positions": len(s.positions), "bytes": s.bytes, "pending": s.wants_frame() or s._dirty,
             "broken": repr(s.broken) if s.broken else None}
            for s in frame_scheduler().sets()]
