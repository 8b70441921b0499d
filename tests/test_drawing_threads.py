"""One drawing at a time: JupyterLab >= 4.4 with ipykernel >= 7 runs a widget's observer in a
subshell thread while the main thread runs cells and fills frames (measured in this repo's
JupyterLab: a slider's observer reported ``subshell-…`` as its thread, a cell ``MainThread``).
Matplotlib is not thread-safe, so the engine holds one lock around every drawing."""
import sys
import threading

import pytest

import posenc_lib as pl
from posenc.ui.engine import canvas, lock

pytestmark = pytest.mark.slow


def _hammer(ex, rounds: int) -> list:
    """Two threads on one explorer: one moves its main slider as a subshell would, the other
    redraws and renders frames as the main thread's cells and fill do. Returns what went wrong."""
    errors: list = []
    slider = ex.controls[ex.main]
    values = ex.declared[ex.main].values()
    start = threading.Barrier(2)

    def browser():
        start.wait()
        try:
            for i in range(rounds):
                slider.value = values[i % len(values)]
        except Exception as exc:
            errors.append(f"observer thread: {type(exc).__name__}: {exc}")

    def kernel():
        start.wait()
        try:
            for i in range(rounds):
                ex.refresh(full=i % 7 == 0)
                ex.render_frame(values[-1 - i % len(values)])
        except Exception as exc:
            errors.append(f"main thread: {type(exc).__name__}: {exc}")

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        threads = [threading.Thread(target=browser), threading.Thread(target=kernel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        sys.setswitchinterval(old)
    for d in (ex.drawing, ex._frame_drawing):
        if d is not None and type(d.canvas.agg.get_renderer()._renderer).__name__ != "RendererAgg":
            errors.append(f"the renderer was left as {type(d.canvas.agg.get_renderer()._renderer).__name__}")
    return errors


def test_a_slider_moved_from_another_thread_while_the_kernel_draws_breaks_nothing():
    ex = pl.EXPLORERS["score_terms"]()
    assert _hammer(ex, 150) == []
    # and the figure it ends on is the one its values give, drawn from scratch
    ex.refresh(full=True)
    fresh = pl.EXPLORERS["score_terms"](**{k: v for k, v in ex.values.items()
                                           if k in pl.EXPLORERS["score_terms"].spec.signature().parameters})
    assert ex.png() == fresh.png()


def test_every_engine_reaction_holds_the_drawing_lock():
    """Each entry point a thread can reach draws with the lock held (seen from inside)."""
    ex = pl.EXPLORERS["clock"]()
    held: list = []
    real = canvas.BlitCanvas.draw.__wrapped__

    def spy(self, *args, **kwargs):
        held.append(lock.DRAWING._is_owned())
        return real(self, *args, **kwargs)

    from unittest import mock

    with mock.patch.object(canvas.BlitCanvas, "draw", spy):
        ex.controls[ex.main].value = ex.declared[ex.main].values()[3]
        ex.refresh(full=True)
        ex.render_frame(ex.declared[ex.main].values()[5])
    assert held and all(held), held
