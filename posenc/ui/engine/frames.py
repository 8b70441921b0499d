"""Frames: the figures of a main slider, rendered ahead of time and switched in the browser,
so that a drag never waits for the kernel.

Without frames every slider move is a kernel round trip (widget message -> update the
artists -> blit -> PNG -> message back), and ipywidgets sends the next value only after the
kernel answered: a drag gets 7-14 figures a second. With frames, the figure shown is an
``ipywidgets.Stack`` of ``Image`` widgets, one per position of the slider, each holding a
``data:image/png;base64,...`` URL; the Stack's ``selected_index`` is ``jsdlink``-ed to the
slider's ``value`` (an ``IntSlider`` from 0 in steps of 1) or ``index`` (a
``SelectionSlider``), so the browser switches the figure itself.

A :class:`FrameSet` knows nothing of what it shows: it is given the slider, the live image
(shown where no frame is rendered yet), and a ``render(value) -> (png, extra_values)``
callable. :class:`~posenc.ui.engine.explorer.Explorer` builds one for its ``main`` control.

* A position whose frame is not rendered yet shows the live image, redrawn by the kernel.
  (data: URLs, not PNG bytes: the browser shows a data: URL at once, a PNG widget's ``blob:``
  URL loads asynchronously and blanks the figure for a moment on every switch.)
* The fill yields to the reader. Frames are rendered on a thread of their own
  (:class:`FillThread`), never on a thread that handles the reader's messages (JupyterLab
  >= 4.4 with ipykernel >= 7 hands widget messages to a subshell thread, cells run on the main
  thread, and a comm's next message goes to the thread that sent its last one), one per
  callback, only once the kernel has been quiet (no cell run, no control of any explorer
  moved) for :data:`QUIET_S`; drawing is one at a time (:mod:`~posenc.ui.engine.lock`), so a
  reader's move waits at most for the frame being drawn. A reader who moves a control
  pauses every fill. Positions nearest the slider's handle
  are filled first. The explorer the reader moved last is filled first, then the others in
  the order they were made (higher on the page first; a move made by a cell's code does not
  change that order). Without a running event loop where a fill is asked for (plain Python,
  pytest) nothing is scheduled: call :meth:`FrameSet.fill`.
* Moving any other control drops the frames (every position shows the live image again,
  one message) and a new fill starts when the kernel is quiet; the dropped widgets are
  closed later, a few per quiet callback, not while the reader waits for the new figure.
* Memory: at most :data:`MAX_BYTES` of data: URLs per set, the frames nearest the slider's
  position first (when the reader moves on, the farthest frames make room for nearer
  ones), and at most :data:`MAX_TOTAL_BYTES` in one kernel (the set used least recently
  gives its frames up first).
* Setting the slider's ``.value`` in code stays synchronous: the Stack's index follows
  before the assignment returns.
"""
from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import logging
import threading
import time
import weakref

from .canvas import data_url, png_of
from .controls import frame_attr, frame_options
from .internals import from_browser
from .lock import DRAWING

#: The kernel must have been quiet this long (s) before a frame is rendered.
QUIET_S = 1.0
#: Pause (s) after each frame: a reader's move waiting for the drawing lock takes it before
#: the next frame.
YIELD_S = 0.002
#: Frames rendered meanwhile are sent to the browser at most this often (s) during a fill.
PUBLISH_S = 0.15
#: Widgets of dropped frames closed per quiet callback (each close is one message).
CLOSE_BATCH = 32
#: Data: URL bytes one set's frames may hold (kernel memory; the browser keeps about as
#: much again in decoded images while they are shown).
MAX_BYTES = 24 * 2**20
#: Data: URL bytes all frames of one kernel may hold (a re-run cell leaves its old explorer
#: behind, as every ipywidget that is not closed stays alive).
MAX_TOTAL_BYTES = 4 * MAX_BYTES


class _Handle:
    """A scheduled callback of :class:`FillThread` (what ``asyncio``'s ``call_later`` returns, in short)."""

    __slots__ = ("_cancelled",)

    def __init__(self):
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    def cancelled(self) -> bool:
        return self._cancelled


class FillThread:
    """One daemon thread that runs the frame fill's callbacks, apart from every thread that
    handles the reader's messages. ``call_later(delay, callback)``, from any thread: run
    ``callback`` on this thread after ``delay`` seconds (callbacks run one at a time, in due
    order); returns a handle with ``cancel()``. The thread starts with the first callback.
    A callback that raises is logged; the thread goes on."""

    def __init__(self, clock=time.monotonic, name: str = "posenc-frame-fill"):
        self.clock, self.name = clock, name
        self.thread: threading.Thread | None = None
        self._cond = threading.Condition()
        self._queue: list = []   # heap of (due, seq, callback, handle)
        self._seq = itertools.count()

    def call_later(self, delay: float, callback) -> _Handle:
        handle = _Handle()
        with self._cond:
            heapq.heappush(self._queue, (self.clock() + delay, next(self._seq), callback, handle))
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self.thread.start()
            self._cond.notify()
        return handle

    def _next(self):
        """The next callback due (waits for it)."""
        with self._cond:
            while True:
                while self._queue and self._queue[0][3].cancelled():
                    heapq.heappop(self._queue)
                wait = self._queue[0][0] - self.clock() if self._queue else None
                if wait is not None and wait <= 0:
                    return heapq.heappop(self._queue)[2]
                self._cond.wait(wait)

    def _run(self) -> None:
        while True:
            callback = self._next()
            try:
                callback()
            except Exception:  # never end the thread: the next fill needs it
                logging.getLogger(__name__).exception("frame fill callback failed")


@functools.cache
def fill_thread() -> FillThread:
    """The process's fill thread (made on first use, started with its first callback)."""
    return FillThread()


class FrameScheduler:
    """Fills frame sets while the kernel is quiet, on the fill thread.

    One per process (:func:`frame_scheduler`). :meth:`install` hooks IPython's cell events (a cell
    that runs is activity; one that finished wakes the fill) once per kernel (hooks of an
    earlier scheduler, e.g. from a reloaded module, are removed first: each hook is marked
    with :data:`HOOK_MARK`), :meth:`uninstall`
    removes them (also done when the last frame set closes); :meth:`wake` installs them the
    first time it finds a running loop.

    ``clock()`` gives the time in seconds and ``call_later(delay, callback)`` schedules a
    callback, returning a handle with ``cancel()``. Defaults: ``time.monotonic`` and the
    process's :class:`FillThread` (:func:`fill_thread`), used only when the call that asks
    for a fill comes from a thread with a running event loop (a kernel: its main thread or a
    subshell) or from the fill thread itself; plain Python and pytest schedule nothing.
    Tests pass a fake clock and a fake ``call_later`` and advance them by hand. Every method
    may be called from any thread.
    """

    def __init__(self, clock=time.monotonic, call_later=None):
        self.clock = clock
        self._call_later = call_later  # None: the fill thread's call_later
        self._sets: list = []  # weak references, in creation order
        self.last_activity = clock()
        self.handle = None
        self._guard = threading.Lock()   # the pending callback and the widgets to close
        self._woken = False   # wake() was called while a callback ran
        self._hooks = None  # (shell, [(event, callback), ...]) once installed
        self._closing: list = []  # widgets of dropped frames, closed while quiet
        self.rendered = 0  # frames rendered by the background fill (tests, benchmarks)

    # -- sets -----------------------------------------------------------------
    def add(self, fs) -> None:
        self._sets = [r for r in self._sets if r() is not None]
        self._sets.append(weakref.ref(fs))

    def remove(self, fs) -> None:
        """Forget ``fs`` (closed); with no set left, remove the IPython hooks."""
        self._sets = [r for r in self._sets if r() is not None and r() is not fs]
        if not self._sets:
            self.uninstall()

    def sets(self) -> list:
        """Every frame set alive, in the order they were made."""
        return [s for s in (r() for r in self._sets) if s is not None]

    def close_later(self, widgets) -> None:
        """Close these widgets when the kernel is quiet, a few per callback (each close is a
        message to the browser); at once when nothing can be scheduled (plain Python, pytest)."""
        if not self._can_schedule():
            for x in widgets:
                x.close()
            return
        with self._guard:
            self._closing.extend(widgets)
        self.wake()

    # -- activity -------------------------------------------------------------
    def touch(self) -> None:
        """Something happened (a cell ran, a control moved): wait QUIET_S again."""
        self.last_activity = self.clock()

    def quiet(self) -> bool:
        return self.clock() - self.last_activity >= QUIET_S

    # -- IPython hooks --------------------------------------------------------
    def install(self, shell=None) -> bool:
        """Register the cell hooks on ``shell`` (default: the running IPython); False: none."""
        if self._hooks is not None:
            return True
        if shell is None:
            try:
                from IPython import get_ipython
            except ImportError:  # pragma: no cover - ipywidgets needs IPython
                return False
            shell = get_ipython()
        if shell is None:
            return False
        hooks = [("pre_run_cell", _marked(self._pre_run_cell)), ("post_run_cell", _marked(self._post_run_cell))]
        for event, _ in hooks:  # once per kernel: an earlier scheduler's hooks go
            for callback in list(shell.events.callbacks.get(event, [])):
                if getattr(callback, HOOK_MARK, False):
                    shell.events.unregister(event, callback)
        for event, callback in hooks:
            shell.events.register(event, callback)
        self._hooks = (shell, hooks)
        return True

    def uninstall(self) -> None:
        """Remove the cell hooks and cancel a pending fill callback."""
        if self._hooks is not None:
            shell, hooks = self._hooks
            for event, callback in hooks:
                try:
                    shell.events.unregister(event, callback)
                except ValueError:
                    pass
            self._hooks = None
        with self._guard:
            if self.handle is not None:
                self.handle.cancel()
                self.handle = None

    def _pre_run_cell(self, *args) -> None:
        self.touch()

    def _post_run_cell(self, *args) -> None:
        self.touch()
        self.wake()

    # -- the fill -------------------------------------------------------------
    def _can_schedule(self) -> bool:
        """A given ``call_later`` always schedules; the fill thread only for a call from a
        thread with a running event loop (a kernel's) or from the fill thread itself."""
        if self._call_later is not None or threading.current_thread() is fill_thread().thread:
            return True
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    def wake(self) -> None:
        """Make sure a fill is scheduled; nothing happens where nothing can be scheduled
        (:meth:`_can_schedule`)."""
        if not self._can_schedule():
            return  # plain Python / pytest: frames are rendered only by FrameSet.fill()
        if self._call_later is None:
            self.install()
        with self._guard:
            self._woken = True
            if self.handle is None or self.handle.cancelled():
                self.handle = self._later(QUIET_S, self._tick)

    def _later(self, delay, callback):
        return (self._call_later or fill_thread().call_later)(delay, callback)

    def _tick(self) -> None:
        """One callback of the fill (on the fill thread): wait for quiet, close a batch of
        dropped widgets or render one frame, then schedule the next callback (or none when
        every set is full and no wake came meanwhile)."""
        with self._guard:
            self._woken = False
        delay = self._step()
        with self._guard:
            if delay is None and self._woken:
                delay = YIELD_S
            self.handle = None if delay is None else self._later(delay, self._tick)

    def _step(self):
        """The work of one callback; the delay before the next one (None: nothing to do)."""
        wait = self.last_activity + QUIET_S - self.clock()
        if wait > 0:
            return wait
        with self._guard:
            batch, self._closing = self._closing[:CLOSE_BATCH], self._closing[CLOSE_BATCH:]
        if batch:
            for x in batch:
                x.close()
            return YIELD_S
        with DRAWING:   # frame sets change under the reader's moves too: one at a time
            fs = self._choose()
            if fs is None:
                for s in self.sets():
                    s.publish()
                return None
            try:
                if fs.render_next():
                    self.rendered += 1
            except Exception as exc:  # never break the fill: this set stays live
                fs.broken = exc
        return YIELD_S

    def _choose(self):
        """The frame set to render for next: the one used last; room made if needed."""
        sets = self.sets()
        wanting = [s for s in sets if s.wants_frame()]
        if not wanting:
            return None
        fs = max(wanting, key=lambda s: s.last_used)
        while sum(s.bytes for s in sets) + fs.frame_size() > MAX_TOTAL_BYTES:
            older = [s for s in sets if s is not fs and s.frames and s.last_used < fs.last_used]
            if not older:
                return None
            min(older, key=lambda s: s.last_used).drop()
        return fs


#: The attribute that marks a frame scheduler's IPython hook (a new scheduler, e.g. of a
#: reloaded module, finds and removes an earlier one's by it).
HOOK_MARK = "posenc_frame_hook"


def _marked(method):
    """``method`` as an IPython event callback marked with :data:`HOOK_MARK`."""
    def hook(*args):
        method(*args)

    setattr(hook, HOOK_MARK, True)
    hook.scheduler = method.__self__
    return hook


@functools.cache
def frame_scheduler() -> FrameScheduler:
    """The process's frame scheduler (made on first use): every live frame set is filled by it."""
    return FrameScheduler()


def __getattr__(name):
    if name == "SCHEDULER":   # the name tools/drag_metrics.py reads in a kernel: frame_scheduler()
        return frame_scheduler()
    raise AttributeError(name)


def _positions(slider) -> list:
    """The value at each position of a frame slider, in index order."""
    return [v for _, v in frame_options(slider)]


class Unscheduled:
    """The scheduler of an eager frame set (static mode, :mod:`posenc.ui.engine.static`): nothing
    is scheduled, no hook is installed, and dropped widgets are closed at once."""

    clock = staticmethod(time.monotonic)

    def add(self, fs) -> None:
        pass

    def remove(self, fs) -> None:
        pass

    def wake(self) -> None:
        pass

    def touch(self) -> None:
        pass

    def close_later(self, widgets) -> None:
        for x in widgets:
            x.close()


class FrameSet:
    """The frames of one slider, and the Stack(s) that show them.

    ``slider``: an IntSlider from 0 in steps of 1 or a SelectionSlider
    (:func:`~posenc.ui.engine.controls.frame_slider` makes one). ``live``: the Image shown where
    no frame is rendered. ``render(value)``: the PNG bytes of the figure at that slider value
    and the values of ``live_extras`` (widgets whose ``.value`` also follows the slider, e.g.
    an HTML table: each gets a Stack of its own, switched by the same slider). ``label`` and
    ``main`` (the explorer's name and its main slider's) identify the set in :func:`status`.

    ``eager=True`` (static mode, :mod:`posenc.ui.engine.static`): no scheduler and no memory
    cap; every position is rendered before the constructor returns, again after
    :meth:`invalidate`, and the positions a re-formed slider (a
    :class:`~posenc.ui.engine.static.SubsetSlider` whose options changed) lacks are rendered
    when it moves: the Stack never shows the live image.
    """

    def __init__(self, slider, live, render, live_extras=(), label: str = "", main: str = "", scheduler=None,
                 eager: bool = False):
        import ipywidgets as w

        self.slider, self.live, self.render = slider, live, render
        self.label, self.main = label, main
        self.eager = bool(eager)
        self.attr = frame_attr(slider)  # TypeError for a slider a Stack cannot follow
        self.values = _positions(slider)
        self.scheduler = Unscheduled() if eager else frame_scheduler() if scheduler is None else scheduler
        self.live_extras = tuple(live_extras)
        self.max_bytes = float("inf") if eager else MAX_BYTES
        self.frames: dict = {}  # index -> Image widget holding a data: URL
        self.extras: dict = {}  # index -> one widget per extra
        self.sizes: dict = {}   # index -> bytes held
        self.bytes = 0
        self.broken = None  # the exception that stopped this set's fill, if any
        # fill order: moved last by the reader first; never moved: made first (higher on the page) first
        self.last_used = -self.scheduler.clock()
        self._dirty = False
        self._unpublished_closes: list = []  # frames evicted or dropped, out of the Stack at the next publish
        self._full_at = None
        self._last_publish = 0.0
        n, i = len(self.values), self.index()
        self.stack = w.Stack(children=[live] * n, selected_index=i, _dom_classes=("posenc-frames",))
        self.extra_stacks = [w.Stack(children=[x] * n, selected_index=i) for x in self.live_extras]
        self.links = [w.jsdlink((slider, self.attr), (s, "selected_index"))
                      for s in (self.stack, *self.extra_stacks)]
        slider.add_class("posenc-frames-control")
        self.scheduler.add(self)
        self.scheduler.wake()
        if self.eager:
            self.fill()

    # -- state ------------------------------------------------------------------
    def index(self) -> int:
        """The slider's position (= the Stack index it selects)."""
        return self.slider.value if self.attr == "value" else self.slider.index

    def shown(self, i: int) -> bool:
        """Does the browser have a frame at position ``i`` (published, not the live image)?"""
        return self.stack.children[i] is not self.live

    def shown_png(self) -> bytes | None:
        """The PNG bytes of the frame the Stack shows now; None when it shows the live image."""
        i = self.stack.selected_index
        child = self.live if i is None else self.stack.children[i]
        return None if child is self.live else png_of(child.value)

    def frame_size(self) -> int:
        """Bytes one more frame will probably take (the mean so far; 0 before the first)."""
        return self.bytes // len(self.sizes) if self.sizes else 0

    def _missing(self):
        """The position nearest the slider that has no frame (None: all have one)."""
        i0 = self.index()
        for d in range(len(self.values)):
            for i in (i0 - d, i0 + d):
                if 0 <= i < len(self.values) and i not in self.frames:
                    return i
        return None

    def _farthest(self):
        i0 = self.index()
        return max(self.frames, key=lambda i: (abs(i - i0), i)) if self.frames else None

    def wants_frame(self) -> bool:
        """Is there a frame to render now (within the memory cap)?"""
        if self.broken is not None or self.max_bytes <= 0:
            return False
        i = self._missing()
        if i is None or self._full_at == self.index():
            return False
        if self.bytes + self.frame_size() <= self.max_bytes:
            return True
        far = self._farthest()
        i0 = self.index()
        return far is not None and abs(far - i0) > abs(i - i0)

    # -- moves ------------------------------------------------------------------
    def moved(self) -> bool:
        """The slider moved (browser or code): True if the browser shows a frame there (the
        caller then only moves its artists), False if the live image must be redrawn. Call
        :meth:`follow` after the live image is up to date."""
        self.scheduler.touch()
        self._used(self.slider)
        if self.eager and _positions(self.slider) != self.values:
            self._reposition()
            self.fill()
        if self._dirty:
            self.publish()
        return self.shown(self.index())

    def _reposition(self) -> None:
        """The slider's values changed (a re-formed SubsetSlider): keep the frames of the values
        it still has, at their new positions; the others are taken out at the next publish."""
        values = _positions(self.slider)
        old = {self.values[i]: i for i in self.frames}
        frames, extras, sizes = {}, {}, {}
        for j, v in enumerate(values):
            i = old.pop(v, None)
            if i is not None:
                frames[j], extras[j], sizes[j] = self.frames[i], self.extras[i], self.sizes[i]
        for i in old.values():
            self._unpublished_closes += [self.frames[i], *self.extras[i]]
        self.frames, self.extras, self.sizes = frames, extras, sizes
        self.bytes = sum(sizes.values())
        self.values = values
        self._full_at = None
        self._dirty = True

    def follow(self) -> None:
        """Select the slider's position in the Stack(s) when code moved it (from the browser,
        the jsdlink has switched already), and let the fill go on later."""
        if not from_browser(self.slider):
            i = self.index()
            for s in (self.stack, *self.extra_stacks):
                s.selected_index = i
        self.scheduler.wake()

    def drop(self) -> None:
        """Forget every frame: each position shows the live image again."""
        self._unpublished_closes += [*self.frames.values(), *(x for xs in self.extras.values() for x in xs)]
        self.frames.clear()
        self.extras.clear()
        self.sizes.clear()
        self.bytes = 0
        self._full_at = None
        # (while another control is dragged the Stack already shows the live image only:
        # don't send the children list again on every move)
        self._dirty = any(c is not self.live for c in self.stack.children)
        self.publish()

    def invalidate(self, control=None) -> None:
        """What the frames show changed (``control``, another control, moved): drop them; a
        new fill starts when the kernel is quiet."""
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
    def render_next(self) -> bool:
        """Render the frame nearest the slider (making room if needed); False: nothing to do."""
        import ipywidgets as w

        if not self.wants_frame():
            self._maybe_publish(force=True)
            return False
        i, i0 = self._missing(), self.index()
        png, values = self.render(self.values[i])
        url = data_url(png)
        size = len(url) + sum(len(str(v).encode()) for v in values)
        layout = {} if self.live.width == "" else {"width": self.live.width, "height": self.live.height}
        self.frames[i] = w.Image(value=url, format="url", _dom_classes=("posenc-figure",), **layout)
        self.extras[i] = tuple(type(x)(value=v, layout=x.layout) for x, v in zip(self.live_extras, values))
        self.sizes[i] = size
        self.bytes += size
        self._dirty = True
        while self.bytes > self.max_bytes:  # the farthest frames make room
            far = self._farthest()
            self._evict(far)
            if far == i:
                self._full_at = i0
                break
        self._maybe_publish()
        return True

    def _evict(self, i: int) -> None:
        # closed only after a publish has taken them out of the Stack's children: a closed
        # child the browser still shows would leave a hole in the figure
        self._unpublished_closes += [self.frames.pop(i), *self.extras.pop(i)]
        self.bytes -= self.sizes.pop(i)
        self._dirty = True

    def _maybe_publish(self, force: bool = False) -> None:
        if self._dirty and (force or self.scheduler.clock() - self._last_publish > PUBLISH_S
                            or not self.wants_frame()):
            self.publish()

    def publish(self) -> None:
        """Send the Stack(s) every frame rendered so far; frames taken out are closed later."""
        if self._dirty:
            n = len(self.values)
            self.stack.children = [self.frames.get(i, self.live) for i in range(n)]
            for j, s in enumerate(self.extra_stacks):
                s.children = [self.extras[i][j] if i in self.extras else self.live_extras[j] for i in range(n)]
            self._dirty = False
            self._last_publish = self.scheduler.clock()
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
        for x in (*self.frames.values(), *(x for xs in self.extras.values() for x in xs),
                  *self._unpublished_closes, *self.links, self.stack, *self.extra_stacks):
            x.close()
        self.frames.clear()
        self.extras.clear()
        self._unpublished_closes = []

    def fill(self, limit: int | None = None) -> FrameSet:
        """Render frames now, nearest the slider first (all, or ``limit`` of them), and
        publish them: for tests and for code that runs with no event loop."""
        count = 0
        while (limit is None or count < limit) and self.render_next():
            count += 1
        self.publish()
        return self


def status() -> list[dict]:
    """One row per frame set alive: its label (the explorer's name), slider, frames rendered,
    positions, bytes, whether more frames are wanted (for tests and benchmarks)."""
    return [{"explorer": s.label, "control": s.main, "frames": len(s.frames),
             "positions": len(s.values), "bytes": s.bytes, "pending": s.wants_frame() or s._dirty,
             "broken": repr(s.broken) if s.broken else None}
            for s in frame_scheduler().sets()]
