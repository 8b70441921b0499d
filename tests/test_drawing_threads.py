"""One drawing at a time: JupyterLab >= 4.4 with ipykernel >= 7 runs a widget's observer in a
subshell thread while the main thread runs cells and the fill thread renders frames (measured in this repo's
JupyterLab: a slider's observer reported ``subshell-…`` as its thread, a cell ``MainThread``).
Matplotlib is not thread-safe, so the engine holds one lock around every drawing. The frame
fill runs on a thread of its own (posenc/ui/engine/frames.py), never on one that handles the
reader's messages."""
import sys
import threading

import pytest

import posenc_lib as pl
from posenc.ui.engine import canvas, frames as F, lock, scheduler as S
from posenc.ui.engine.fill_thread import _Handle, fill_thread


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


@pytest.mark.slow
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
        held.append(lock.DRAWING.held())
        return real(self, *args, **kwargs)

    from unittest import mock

    with mock.patch.object(canvas.BlitCanvas, "draw", spy):
        ex.controls[ex.main].value = ex.declared[ex.main].values()[3]
        ex.refresh(full=True)
        ex.render_frame(ex.declared[ex.main].values()[5])
    assert held and all(held), held


# ---------------------------------------------------------------------------
# The fill runs on a thread of its own, never on one that handles the reader's messages
# ---------------------------------------------------------------------------
def _in_thread_with_a_loop(name: str, fn):
    """Run ``fn()`` in a new thread named ``name`` inside a running asyncio loop (what a kernel's
    subshell thread is for a widget observer); returns the thread."""
    import asyncio

    def main():
        async def call():
            fn()
        asyncio.run(call())

    t = threading.Thread(target=main, name=name)
    t.start()
    t.join(120)
    return t


def test_the_fill_thread_runs_callbacks_on_itself_and_survives_a_failing_one():
    from posenc.ui.engine.fill_thread import FillThread

    ft = FillThread(name="test-fill")
    ran, done = [], threading.Event()

    def record(tag):
        def callback():
            ran.append((tag, threading.current_thread()))
            if tag == "last":
                done.set()
        return callback

    def ask():
        ft.call_later(0.0, record("first"))
        ft.call_later(0.0, lambda: 1 / 0)                     # logged; the thread goes on
        ft.call_later(0.0, record("cancelled")).cancel()
        ft.call_later(0.0, record("last"))

    caller = _in_thread_with_a_loop("subshell-test", ask)
    assert done.wait(60), "the fill thread never ran the callbacks"
    assert [tag for tag, _ in ran] == ["first", "last"]
    assert {t for _, t in ran} == {ft.thread} and ft.thread is not caller
    assert ft.thread is not threading.main_thread() and ft.thread.daemon


def test_a_fill_woken_by_a_reader_s_move_on_a_subshell_renders_on_the_fill_thread(monkeypatch):
    """The reader moves a control: its observer runs on a subshell thread (a running event
    loop) and wakes the fill. Every frame is rendered on the fill thread: neither on that
    subshell nor on the main thread (the cells)."""
    monkeypatch.setattr(S, "QUIET_S", 0.0)
    scheduler = S.FrameScheduler()
    monkeypatch.setattr(F, "frame_scheduler", lambda: scheduler)
    ex = pl.EXPLORERS["rope"]()
    fs = ex.frames
    assert scheduler.handle is None, "made in plain Python (a cell here): nothing scheduled yet"
    threads, three = [], threading.Event()
    render = fs.render

    def recorded(*args):                   # (value) or, in a grid, (value, the other axes' values)
        threads.append(threading.current_thread())
        if len(threads) >= 3:
            three.set()
        return render(*args)
    fs.render = recorded

    subshell = _in_thread_with_a_loop("subshell-test", lambda: setattr(ex.controls["i"], "value", 3))
    try:
        assert three.wait(120), "no fill after a move on a subshell"
    finally:
        ex.close()                         # waits for the frame being drawn; the fill stops
    assert set(threads) == {fill_thread().thread}
    assert subshell not in threads and threading.main_thread() not in threads


def test_the_figures_drawn_ahead_after_a_reader_s_step_are_drawn_on_the_fill_thread_with_the_lock(monkeypatch):
    """A reader's step of a live control on a subshell thread plans its neighbours; they are
    drawn on the fill thread, holding the drawing lock, before any frame (QUIET_S is long here)."""
    monkeypatch.setattr(S, "QUIET_S", 3600.0)
    scheduler = S.FrameScheduler()
    monkeypatch.setattr(F, "frame_scheduler", lambda: scheduler)
    ex = pl.EXPLORERS["hand_calc"]()
    seen = []
    real = canvas.BlitCanvas.draw.__wrapped__

    def spy(self, *args, **kwargs):
        seen.append((threading.current_thread(), lock.DRAWING.held(), self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(canvas.BlitCanvas, "draw", spy)
    subshell = _in_thread_with_a_loop("subshell-test", lambda: ex.controls["word_0"].set_state({"value": 0.55}))
    try:
        _wait_for(lambda: len(ex.ahead.ready) == 2, "the neighbours were not drawn ahead")
    finally:
        ex.close()
    ahead = [(t, held) for t, held, c in seen if c is ex.ahead.drawing.canvas]
    assert len(ahead) == 2 and all(held for _, held in ahead)
    assert {t for t, _ in ahead} == {fill_thread().thread} != {subshell}
    assert scheduler.rendered == 0, "a frame before the kernel was quiet for QUIET_S"


def _wait_for(condition, what: str) -> None:
    """Poll ``condition`` (a condition on real threads, not a timed wait) for at most 60 s."""
    import time as real_time

    deadline = real_time.monotonic() + 60
    while not condition() and real_time.monotonic() < deadline:
        real_time.sleep(0.005)
    assert condition(), what


def test_a_reader_s_move_pauses_the_fill_before_it_waits_for_the_drawing_lock(monkeypatch):
    """While the fill thread draws a frame (it holds the drawing lock), a move on a subshell
    marks the kernel busy at once, before it waits for the lock: the fill's next callback sees
    the activity and draws no further frame until the kernel is quiet again."""
    now = [10.0]
    scheduler = S.FrameScheduler(clock=lambda: now[0], call_later=lambda delay, callback: _Handle())
    monkeypatch.setattr(F, "frame_scheduler", lambda: scheduler)
    ex = pl.EXPLORERS["rope"]()
    now[0] = 50.0
    with lock.DRAWING:                                  # a frame being drawn
        mover = threading.Thread(target=lambda: setattr(ex.controls["i"], "value", 5), name="subshell-test")
        mover.start()
        _wait_for(lambda: scheduler.last_activity == 50.0, "the move did not mark the kernel busy")
        assert mover.is_alive(), "the move drew without the drawing lock"
        assert not scheduler.quiet()
    mover.join(60)
    assert not mover.is_alive() and ex.values["i"] == 5


def test_the_drawing_lock_knows_when_another_thread_waits_for_it():
    drawing = lock.DrawingLock()
    got = threading.Event()

    def other():
        seen.append(drawing.held())
        with drawing:
            seen.append(drawing.held())
            got.set()

    seen: list = []
    with drawing:
        with drawing:                               # re-entrant: the owner never waits
            assert not drawing.contended() and drawing.held()
        assert drawing.held()
        t = threading.Thread(target=other)
        t.start()
        _wait_for(drawing.contended, "the waiting thread was not counted")
        assert not got.is_set()
    t.join(60)
    assert got.is_set() and not drawing.contended() and seen == [False, True] and not drawing.held()
    with pytest.raises(RuntimeError):
        drawing.release()
    assert drawing.acquire(blocking=False)
    drawing.release()


def test_a_checkpoint_stops_only_an_interruptible_drawing_and_only_while_someone_waits():
    with lock.interruptible():
        lock.checkpoint()                           # nobody waits: goes on
    waiting = threading.Thread(target=lambda: lock.DRAWING.__enter__() and lock.DRAWING.release())
    with lock.DRAWING:
        waiting.start()
        _wait_for(lock.DRAWING.contended, "the waiting thread was not counted")
        lock.checkpoint()                           # outside interruptible(): a cell's drawing goes on
        with pytest.raises(lock.Interrupted):
            with lock.interruptible():
                lock.checkpoint()
    waiting.join(60)


def test_a_frame_being_drawn_gives_way_to_a_reader_s_move_at_its_next_artist(monkeypatch):
    """The fill thread draws a frame (holding the drawing lock) while a move arrives on a
    subshell: the frame stops at its next artist, the move draws at once, and the frame is not
    kept (drawn again later, the scheduler counts it)."""
    now = [10.0]
    scheduler = S.FrameScheduler(clock=lambda: now[0], call_later=lambda delay, callback: _Handle())
    monkeypatch.setattr(F, "frame_scheduler", lambda: scheduler)
    ex = pl.EXPLORERS["clock"]()
    fs = ex.frames
    fs.fill(limit=1)                                # the frame figure exists: its artists can be held up
    drawn_on_move = threading.Event()
    mover = threading.Thread(target=lambda: (setattr(ex.controls["base"], "value", 100.0), drawn_on_move.set()),
                             name="subshell-test")
    first = ex._frame_drawing.canvas.animated[0]
    real_draw = first.draw

    def held_up(renderer):                          # the move arrives while this artist is drawn
        if not mover.is_alive() and not drawn_on_move.is_set():
            mover.start()
            _wait_for(lock.DRAWING.contended, "the move did not wait for the drawing lock")
        return real_draw(renderer)

    monkeypatch.setattr(first, "draw", held_up)
    before = set(fs.frames)
    now[0] = 50.0                                   # quiet: the fill draws
    assert scheduler._step() == S.YIELD_S
    mover.join(60)
    assert drawn_on_move.is_set() and ex.values["base"] == 100.0
    assert scheduler.interrupted == 1 and scheduler.rendered == 0
    assert not fs.frames and set(fs.frames) <= before, "no frame kept from the interrupted drawing"
    ref = pl.ClockExplorer(pos=ex.values["pos"], base=100.0)
    assert ex.shown_png() == ref.shown_png(), "the move's figure is whole"
