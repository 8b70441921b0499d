"""The frame fill's scheduling (:class:`FrameScheduler`, one per process: :func:`frame_scheduler`):
when frames are rendered (only while the kernel is quiet, one per callback, on the fill thread;
a frame being drawn gives way to a reader's move), which frame set comes first, and how much all
of them may hold; and, before any frame and after a shorter quiet, the figures an explorer wants
drawn ahead for a live control's next step (:mod:`~posenc.ui.engine.ahead`). What a frame set is
and how its Stacks show the frames: :mod:`posenc.ui.engine.frames`.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import threading
import time
import weakref

from .fill_thread import fill_thread
from .lock import DRAWING, Interrupted, interruptible

#: The kernel must have been quiet this long (s) before a frame is rendered.
QUIET_S = 1.0
#: ... and this long (s) before the neighbours of a live control's value are drawn
#: (:mod:`~posenc.ui.engine.ahead`): after the browser has painted the figure of a move
#: (15-25 ms after the reply here), before a reader's next arrow key or click (a drag's steps
#: come closer together: 02's word_0 gets 20-27 figures a second here, so no neighbour is drawn
#: while it is dragged).
AHEAD_S = 0.08
#: Pause (s) after each frame: a reader's move waiting for the drawing lock takes it before
#: the next frame.
YIELD_S = 0.002
#: The interpreter's switch interval (s) while a frame is drawn (Python's default: 5 ms). A
#: reader's message crosses two kernel threads (the shell channel's, then a subshell's), each
#: waiting for the GIL the fill holds; a waiting thread makes the holder give it up after this
#: long. Beside a thread busy in pure Python a press reached 02's word slider in 5.3 ms median
#: instead of 11.3; beside the real fill 5.3-5.5 ms with it, 5.4-10.8 without (within the noise).
FILL_SWITCH_S = 0.0005
#: Widgets of dropped frames closed per quiet callback once no frame is wanted (each close is
#: one message), and beside each frame rendered meanwhile.
CLOSE_BATCH = 32
CLOSE_WITH_FRAME = 2
#: Data: URL bytes all frames of one kernel may hold, four sets' worth
#: (:data:`~posenc.ui.engine.frames.MAX_BYTES` each): a re-run cell leaves its old explorer
#: behind, as every ipywidget that is not closed stays alive.
MAX_TOTAL_BYTES = 4 * 24 * 2**20


class FrameScheduler:
    """Fills frame sets while the kernel is quiet, on the fill thread.

    One per process (:func:`frame_scheduler`). :meth:`install` hooks IPython's cell events (a cell
    that runs is activity; one that finished wakes the fill) once per kernel (hooks of an
    earlier scheduler, e.g. from a reloaded module, are removed first: each hook is marked
    with :data:`HOOK_MARK`), :meth:`uninstall`
    removes them (also done when the last frame set closes); :meth:`wake` installs them the
    first time it finds a running loop.

    ``clock()`` gives the time in seconds and ``call_later(delay, callback)`` schedules a callback,
    returning a handle with ``cancel()``. Defaults: ``time.monotonic`` and the process's
    :class:`~posenc.ui.engine.fill_thread.FillThread`
    (:func:`~posenc.ui.engine.fill_thread.fill_thread`), used only when the call that asks for a
    fill comes from a thread with a running event loop (a kernel: its main thread or a subshell)
    or from the fill thread itself; plain Python and pytest schedule nothing.
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
        self._aheads: list = []   # weak references to the Aheads of the explorers (ahead.py)
        self._due = None          # when the pending callback runs (scheduler's clock)
        self._ticking = False     # a callback is running
        self._soon = False        # ahead() was called while a callback ran
        self.rendered = 0  # frames rendered by the background fill (tests, benchmarks)
        self.interrupted = 0  # frames (and figures drawn ahead) given up half drawn for a reader's move

    # -- sets -----------------------------------------------------------------
    def add(self, fs) -> None:
        self._sets = [r for r in self._sets if r() is not None]
        self._sets.append(weakref.ref(fs))

    def remove(self, fs) -> None:
        """Forget ``fs`` (closed); with no set left, remove the IPython hooks."""
        self._sets = [r for r in self._sets if r() is not None and r() is not fs]
        if not self._sets:
            self.uninstall()

    def ahead(self, a) -> None:
        """``a`` (an :class:`~posenc.ui.engine.ahead.Ahead`) wants figures drawn: render them
        once the kernel has been quiet for :data:`AHEAD_S` (before any frame)."""
        if not any(r() is a for r in self._aheads):
            self._aheads = [r for r in self._aheads if r() is not None] + [weakref.ref(a)]
        self.wake(AHEAD_S)

    def wanting_ahead(self):
        """The first :class:`~posenc.ui.engine.ahead.Ahead` with a figure still to draw, or None
        (tools/live_metrics.py waits for None before it times a live control's press)."""
        return next((a for a in (r() for r in self._aheads) if a is not None and a.wants()), None)

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

    def wake(self, delay: float = QUIET_S) -> None:
        """Make sure a fill callback is scheduled within ``delay`` s; nothing happens where
        nothing can be scheduled (:meth:`_can_schedule`)."""
        if not self._can_schedule():
            return  # plain Python / pytest: frames are rendered only by FrameSet.fill()
        if self._call_later is None:
            self.install()
        with self._guard:
            self._woken = True
            due = self.clock() + delay
            if self._ticking:   # the running callback schedules the next one
                self._soon = self._soon or delay < QUIET_S
            elif self.handle is None or self.handle.cancelled():
                self.handle, self._due = self._later(delay, self._tick), due
            elif self._due is not None and due < self._due:   # sooner than the pending one
                self.handle.cancel()
                self.handle, self._due = self._later(delay, self._tick), due

    def _later(self, delay, callback):
        return (self._call_later or fill_thread().call_later)(delay, callback)

    def _tick(self) -> None:
        """One callback of the fill (on the fill thread): wait for quiet, render one frame and
        close a few dropped widgets (once no frame is wanted: a batch of closes, and the next
        part of each set's publish), then schedule the next callback (or none when every set is
        full and sent, nothing is left to close and no wake came meanwhile)."""
        with self._guard:
            self._woken, self._ticking = False, True
        try:
            delay = self._step()
        except BaseException:
            with self._guard:
                self._ticking = False
            raise
        with self._guard:
            self._ticking = False
            if delay is None and self._woken:
                delay = YIELD_S
            if self._soon:   # neighbours wanted meanwhile: look again at once
                delay = YIELD_S if delay is None else min(delay, YIELD_S)
                self._soon = False
            self.handle = None if delay is None else self._later(delay, self._tick)
            self._due = None if delay is None else self.clock() + delay

    def _step(self):
        """The work of one callback; the delay before the next one (None: nothing to do)."""
        a = self.wanting_ahead()
        if a is not None:   # a live control's neighbours first, after a short quiet
            wait = self.last_activity + AHEAD_S - self.clock()
            if wait > 0:
                return wait
            with DRAWING:
                try:
                    with interruptible(), switch_interval(FILL_SWITCH_S):
                        _unbroken(a, a.render_next)   # broken: that explorer's steps are drawn as before
                except Interrupted:   # drawn later, once the kernel is quiet again
                    self.interrupted += 1
            return YIELD_S
        wait = self.last_activity + QUIET_S - self.clock()
        if wait > 0:
            return wait
        publish_in = None   # when the next part of a publish is due (frames rendered behind the live figure)
        with DRAWING:   # frame sets change under the reader's moves too: one at a time
            fs = self._choose()
            try:
                # a reader's move waits for one artist or one widget, not one frame or one part;
                # its message for the GIL for a short switch interval, not the default 5 ms
                with interruptible(), switch_interval(FILL_SWITCH_S):
                    for s in self.sets():   # the other sets' frames not sent yet go out in parts meanwhile
                        due = None if s is fs else _unbroken(s, s.publish_due)
                        if due is not None:
                            publish_in = due if publish_in is None else min(publish_in, due)
                    if fs is not None and _unbroken(fs, fs.render_next):
                        self.rendered += 1
            except Interrupted:   # drawn (or sent) later, once the kernel is quiet again
                self.interrupted += 1
        # widgets of dropped frames: a few beside each frame, a batch once no frame is wanted
        # (each close is a message the browser handles; hundreds at once, as a live move drops a
        # whole grid, held a reader's next move up by 100-200 ms)
        with self._guard:
            n = CLOSE_BATCH if fs is None else CLOSE_WITH_FRAME
            batch, self._closing = self._closing[:n], self._closing[n:]
            more = bool(self._closing)
        for x in batch:
            x.close()
        if fs is not None or more:
            return YIELD_S
        return publish_in

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


def _unbroken(fs, work):
    """``work()`` for ``fs``, a frame set or an explorer's :class:`~posenc.ui.engine.ahead.Ahead`;
    an exception other than giving way to a reader marks ``fs`` broken (its figure stays live,
    nothing more is drawn for it) and gives None: never break the fill (an exception out of a
    callback left its handle set, and the kernel's fill stopped)."""
    try:
        return work()
    except Interrupted:
        raise
    except Exception as exc:
        fs.broken = exc
        return None


@contextlib.contextmanager
def switch_interval(seconds: float):
    """Inside this block the interpreter's switch interval is ``seconds`` (the process's; the
    one before is restored after)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


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
