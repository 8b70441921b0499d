"""One drawing at a time in the process (imports nothing of the course, so that the course's
look and every room of the engine can hold it)."""
from __future__ import annotations

import functools
import threading

#: One drawing at a time in the process. JupyterLab >= 4.4 with ipykernel >= 7 hands widget
#: messages to a subshell thread (the lab setting ``commsOverSubshells``, on by default), so a
#: slider's observer runs beside the main thread's cells and the frame fill's own thread
#: (:class:`~posenc.ui.engine.fill_thread.FillThread`); matplotlib is not
#: thread-safe (``rc_context`` changes global settings; the glyph cache swaps a renderer's
#: drawing object while it records). Re-entrant: a reaction that draws may call another.
DRAWING = threading.RLock()


def one_at_a_time(method):
    """``method`` run while holding :data:`DRAWING` (see there why)."""
    @functools.wraps(method)
    def locked(*args, **kwargs):
        with DRAWING:
            return method(*args, **kwargs)

    return locked
