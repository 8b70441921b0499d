"""One drawing at a time in the process (imports nothing of the course, so that the course's
look and every room of the engine can hold it), and a drawing that gives way: the frame fill's
(:func:`interruptible`, :func:`checkpoint`)."""
from __future__ import annotations

import contextlib
import functools
import threading


class DrawingLock:
    """A re-entrant lock that knows whether a thread is waiting for it (:meth:`contended`).
    ``with lock:`` as with ``threading.RLock``."""

    def __init__(self):
        self._lock = threading.RLock()
        self._count = threading.Lock()
        self._waiting = 0
        self._owner, self._depth = None, 0   # changed only by the thread that holds the lock

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        got = self._lock.acquire(blocking=False)
        if not got and blocking:
            with self._count:
                self._waiting += 1
            try:
                got = self._lock.acquire(True, timeout)
            finally:
                with self._count:
                    self._waiting -= 1
        if got:
            self._owner, self._depth = threading.get_ident(), self._depth + 1
        return got

    def release(self) -> None:
        if not self.held():
            self._lock.release()   # another thread's or nobody's: raises RuntimeError as an RLock does
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def held(self) -> bool:
        """Does the calling thread hold this lock?"""
        return self._owner == threading.get_ident()

    def contended(self) -> bool:
        """Is another thread waiting for this lock now?"""
        return self._waiting > 0


#: One drawing at a time in the process. JupyterLab >= 4.4 with ipykernel >= 7 hands widget
#: messages to a subshell thread (the lab setting ``commsOverSubshells``, on by default), so a
#: slider's observer runs beside the main thread's cells and the frame fill's own thread
#: (:class:`~posenc.ui.engine.fill_thread.FillThread`); matplotlib is not
#: thread-safe (``figure_style`` changes global settings; the glyph cache swaps a renderer's
#: drawing object while it records). Re-entrant: a reaction that draws may call another.
DRAWING = DrawingLock()


def one_at_a_time(method):
    """``method`` run while holding :data:`DRAWING` (see there why)."""
    @functools.wraps(method)
    def locked(*args, **kwargs):
        with DRAWING:
            return method(*args, **kwargs)

    return locked


class Interrupted(Exception):
    """A drawing inside :func:`interruptible` gave way to a thread waiting for :data:`DRAWING`."""


_local = threading.local()


@contextlib.contextmanager
def interruptible():
    """Inside this block (on this thread), :func:`checkpoint` raises :class:`Interrupted` as soon
    as another thread waits for :data:`DRAWING`: the frame fill's drawing gives way to a
    reader's move within one artist, not one frame. The caller catches it and draws again later."""
    outer = getattr(_local, "on", False)
    _local.on = True
    try:
        yield
    finally:
        _local.on = outer


def checkpoint() -> None:
    """Where a drawing may stop (between two artists, before the PNG): raise
    :class:`Interrupted` inside :func:`interruptible` while another thread waits for :data:`DRAWING`."""
    if getattr(_local, "on", False) and DRAWING.contended():
        raise Interrupted
