"""The fill thread: one daemon thread that runs the frame fill's callbacks
(:class:`~posenc.ui.engine.scheduler.FrameScheduler`), apart from every thread that handles the
reader's messages. JupyterLab >= 4.4 with ipykernel >= 7 hands widget messages to a subshell
thread and runs cells on the main thread, and a comm's next message goes to the thread that sent
its last one: a fill run on either would queue the reader's next message behind frame renders.

A thread, not a forked child process: frames drawn in a child forked from the kernel (no GIL
shared, ``nice 19``) were tried and made a reader's press during a fill slower, not faster. After
a fork the kernel copies every memory page it writes that the child still shares (copy on
write): the first redraw of 02's ``word_0`` after a fork took 16-77 ms instead of 8 (offline),
and in JupyterLab the presses during a fill went from 34-45 ms (median) to 46-58 ms. A worker
process started on its own (no shared pages: it rebuilt each explorer's frame figure from its
class, params and axes positions; six frames of each of the 14 explorers were byte for byte the
kernel's), at ``nice 19`` and stopped while the reader moved a control, was also built and
measured (02 and 09, five live controls, 23-24 presses during a fill each, interleaved): a press
reached the kernel 1.4-3.1 ms sooner, but its redraw took 0.4-3.4 ms longer beside it, and the
medians moved both ways (33.7-36.9 ms on the fill thread, 32.6-38.8 with the worker). Not worth
a second process per kernel.
"""
from __future__ import annotations

import functools
import heapq
import itertools
import logging
import threading
import time


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
