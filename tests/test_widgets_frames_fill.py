"""posenc/ui/engine/scheduler.py and frames.py: the background fill, when frames are rendered,
sent to the browser and closed. It waits until the kernel has been quiet, renders one frame
per callback and lets a widget message in between two; behind the live figure nothing is sent
until the frames are rendered, then they go out in parts; every frame shares one Layout. The
scheduler takes its clock and its ``call_later`` as arguments (the ``fake`` fixture): the tests
advance a fake clock by hand, nothing here sleeps or reads the real time.
"""
import pytest

import posenc_lib as pl
from posenc.ui.engine import frames as F, scheduler as S

#: Every test here renders or fills frames: the slow set.
pytestmark = pytest.mark.slow


def test_without_an_event_loop_nothing_is_scheduled(scheduler):
    ex = pl.RopeExplorer()
    ex.controls["pos"].value = 7
    assert scheduler.handle is None and not ex.frames.frames and scheduler.rendered == 0


def test_the_fill_waits_for_quiet_and_renders_one_frame_per_callback(fake):
    """No frame is rendered before the kernel has been quiet for QUIET_S; then each callback
    renders at most one frame and schedules the next one, so a widget message waits for one
    frame at most; at the end every frame is rendered and published."""
    loop, s = fake
    ex = pl.Rope2DExplorer()                      # a small grid: 3 layouts x 13 grid sizes
    fs = ex.frames
    loop.advance(S.QUIET_S * 0.5)
    ex.controls["query_col"].value = 2           # activity: quiet again from now
    loop.advance(S.QUIET_S * 0.9)
    assert not fs.frames and s.rendered == 0, "rendered before the kernel was quiet"
    loop.advance(S.QUIET_S * 0.1 + S.YIELD_S / 2)  # quiet now: the first frame, not the second
    assert s.rendered == 1
    per_callback = []
    for _ in range(10):
        n = s.rendered
        assert loop.step()
        per_callback.append(s.rendered - n)
        pending = [when for when, _, _, h in loop.queue if not h.cancelled()]
        assert pending == [loop.now + S.YIELD_S], "the next frame waits in the loop, behind any message"
    assert max(per_callback) == 1
    loop.run()
    assert len(fs.frames) == len(fs.positions) == 39
    assert all(c is not fs.live for st in fs.leaves.values() for c in st.children), "every frame published at the end"
    assert not fs.live_shown


def test_a_dropped_grid_s_widgets_are_closed_a_few_beside_each_frame_then_in_batches(fake):
    """A live move drops a whole grid; its widgets are closed beside the refill's frames, at
    most CLOSE_WITH_FRAME per callback (each close is a message the browser handles: hundreds
    at once held a reader's next move up), the rest in batches of CLOSE_BATCH once no frame is
    wanted; in the end every dropped widget is closed and none of the new frames is."""
    loop, s = fake
    ex = pl.Rope2DExplorer()
    fs = ex.frames
    loop.run()
    old = [x for f in fs.frames.values() for x in fs._parts(f)]
    assert len(old) == 39
    ex.controls["query_col"].value = 2            # outside the grid: every frame dropped
    loop.advance(S.QUIET_S + S.YIELD_S / 2)
    closed = []
    while loop.queue and any(not h.cancelled() for *_, h in loop.queue):
        before_frames, before_closed = s.rendered, sum(x.comm is None for x in old)
        loop.step()
        closed.append((s.rendered - before_frames, sum(x.comm is None for x in old) - before_closed))
    last_frame = max(k for k, (r, _) in enumerate(closed) if r)
    assert max(c for _, c in closed[:last_frame + 1]) <= S.CLOSE_WITH_FRAME, "a burst of closes while frames were wanted"
    assert sum(c for _, c in closed[:last_frame + 1]) > 0, "nothing closed beside the frames"
    assert all(x.comm is None for x in old) and all(fs.image_at(p).comm is not None for p in fs.frames)
    assert len(fs.frames) == 39 and max(c for _, c in closed) <= S.CLOSE_BATCH


def test_a_control_moved_during_the_fill_pauses_it(fake):
    loop, s = fake
    ex = pl.ClockExplorer()
    loop.advance(S.QUIET_S + 5 * S.YIELD_S)
    assert ex.frames.frames
    ex.controls["pos"].value = 200               # the reader moves: quiet again for QUIET_S
    n = s.rendered
    loop.advance(S.QUIET_S * 0.6)
    assert s.rendered == n
    loop.advance(S.QUIET_S * 0.5)
    assert s.rendered > n


def test_status_lists_each_frame_set():
    ex = pl.RopeExplorer()
    ex.frames.fill(limit=3)
    row = [r for r in F.status() if r["explorer"] == "rope"][-1]
    assert row["control"] == "pos" and row["frames"] == 3 and row["positions"] == 8 * 41   # i's 8 values x pos
    assert row["bytes"] == ex.frames.bytes and row["pending"] and row["broken"] is None


def test_a_frame_that_fails_leaves_the_explorer_live(fake):
    loop, s = fake
    ex = pl.RopeExplorer()
    ex.frames.render = lambda value, at: 1 / 0
    loop.advance(S.QUIET_S * 2)
    assert isinstance(ex.frames.broken, ZeroDivisionError) and not ex.frames.wants_frame()
    ex.controls["pos"].value = 12
    assert ex.shown_png() == ex.png()


def test_a_refill_behind_the_live_figure_is_sent_when_rendered_and_a_shown_tree_as_it_fills(fake):
    """While the tree shows, the frames reach its Stack every PUBLISH_S as they are rendered
    (a drag gets them as they come). After a control outside the grid dropped them, the live
    figure is up: nothing is sent while the new frames are rendered; then they go out in parts
    of PUBLISH_WIDGETS (each widget is a message the browser handles), PUBLISH_S apart, and the
    tree shows with the last part."""
    import ipywidgets as w

    loop, sched = fake
    slider, live = w.IntSlider(0, min=0, max=39), w.Image(format="url")

    def render(value):
        loop.now += 0.02                          # 20 ms a frame on the fake clock
        return f"png of {value}".encode(), ()

    fs = F.FrameSet(slider, live, render, label="plain", main="x", scheduler=sched)
    publishes = []
    fs.stack.observe(lambda change: publishes.append(sum(c is not live for c in change["new"])), names="children")
    loop.run()
    assert len(fs.frames) == 40 and not fs.live_shown
    assert len(publishes) >= 3 and publishes[0] < 40 and publishes[-1] == 40, publishes
    parts = []
    fs.stack.observe(lambda change: parts.append((loop.now, len(fs.frames), fs.live_shown)), names="children")
    publishes.clear()
    fs.invalidate()                                # a control outside the grid moved
    assert fs.live_shown
    loop.run()
    assert publishes == [F.PUBLISH_WIDGETS, 40], "in parts of PUBLISH_WIDGETS, once every frame is rendered"
    assert [n for _, n, _ in parts] == [40, 40] and parts[1][0] - parts[0][0] >= F.PUBLISH_S
    assert [shown for *_, shown in parts] == [True, True], "the live figure up until the last part"
    assert not fs.live_shown and fs.shown_png() == b"png of 0"

    import ipywidgets.widgets.widget as W

    publishes.clear()
    fs.invalidate()
    made = set(W._instances)
    for _ in range(20):                            # part of the refill: kept as data: URLs, nothing sent
        loop.step()
    assert 5 <= len(fs.frames) < 40 and all(isinstance(f, F.Unsent) for f in fs.frames.values())
    assert set(W._instances) == made and publishes == []
    slider.value = 1                               # a grid move to a rendered frame: that one is sent
    assert fs.moved(slider) is True and not fs.live_shown
    fs.follow()
    assert fs.shown_png() == b"png of 1" and publishes == [1]
    assert sum(not isinstance(f, F.Unsent) for f in fs.frames.values()) == 1
    loop.run()                                     # the tree shows: the rest as the fill goes on
    assert publishes[-1] == 40 and not any(isinstance(f, F.Unsent) for f in fs.frames.values())


@pytest.mark.parametrize("name", ["hand_calc", "clock"])
def test_a_frame_is_its_image_and_extras_only_the_layouts_are_shared(name, scheduler):
    """Each widget is one message to the browser: a frame adds its Image (and, with extras,
    one widget per extra and the box holding them), never a Layout or a style of its own;
    the shared ones are closed with the set."""
    import ipywidgets.widgets.widget as W

    ex = pl.EXPLORERS[name]()
    fs = ex.frames
    fs.render_next()
    fs.publish()
    before = set(W._instances)
    fs.render_next()
    fs.render_next()
    assert set(W._instances) == before, "rendered, not sent: no widget yet"
    fs.publish()
    new = [W._instances[k] for k in set(W._instances) - before]
    per_frame = 1 + (len(ex.spec.extras) + 1 if ex.spec.extras else 0)
    assert len(new) == 2 * per_frame, sorted(type(x).__name__ for x in new)
    assert not any(type(x).__name__.endswith(("Layout", "Style")) for x in new)
    shared = list(fs._layouts.values())
    assert shared and all(x.comm is not None for x in shared)
    ex.close()
    assert all(x.comm is None for x in shared)


def test_a_set_done_rendering_is_sent_while_another_set_renders(fake):
    """The parts of a set whose frames are all rendered go out PUBLISH_S apart while the fill
    renders another set's frames, not after every set is full."""
    import ipywidgets as w

    loop, sched = fake

    def make(n):
        def render(value):
            loop.now += 0.02
            return f"png of {value}".encode(), ()
        return F.FrameSet(w.IntSlider(0, min=0, max=n - 1), w.Image(format="url"), render, label=f"set{n}",
                          main="x", scheduler=sched)

    first, second = make(40), make(200)           # made first: filled first
    loop.run()
    first.invalidate()
    second.invalidate()
    when = []
    first.live_box.layout.observe(lambda change: when.append(len(second.frames)), names="display")
    loop.run()
    assert not first.live_shown and not second.live_shown
    assert when and when[0] < 200, f"the first set's tree came back after the second was full: {when}"


def test_a_set_whose_publish_fails_is_marked_broken_and_the_fill_goes_on(fake, monkeypatch):
    """A publish that raises (a widget that cannot be made) marks its set broken; the fill
    renders the other sets' frames all the same."""
    import ipywidgets as w

    loop, sched = fake

    def render(value):
        return f"png of {value}".encode(), ()

    first = F.FrameSet(w.IntSlider(0, min=0, max=3), w.Image(format="url"), render, label="a", main="x",
                       scheduler=sched)
    second = F.FrameSet(w.IntSlider(0, min=0, max=30), w.Image(format="url"), render, label="b", main="x",
                        scheduler=sched)
    original = F.FrameSet._widget

    def failing(self, pos):
        if self is first:
            raise RuntimeError("no widget")
        return original(self, pos)

    monkeypatch.setattr(F.FrameSet, "_widget", failing)
    loop.run()
    assert isinstance(first.broken, RuntimeError)
    assert len(second.frames) == 31 and not second.live_shown and sched.handle is None


def test_a_frame_is_drawn_with_a_short_switch_interval_and_the_old_one_comes_back(fake):
    """While the fill draws, a thread waiting for the GIL (a reader's message) gets it after
    FILL_SWITCH_S, not Python's 5 ms; the interval before is restored after each frame, also
    after a frame that raised."""
    import sys

    import ipywidgets as w

    loop, sched = fake
    seen = []

    def render(value):
        seen.append(sys.getswitchinterval())
        if value == 2:
            raise ZeroDivisionError
        return b"png", ()

    before = sys.getswitchinterval()
    fs = F.FrameSet(w.IntSlider(0, min=0, max=3), w.Image(format="url"), render, label="plain", main="x",
                    scheduler=sched)
    loop.run()
    assert seen and all(x == pytest.approx(S.FILL_SWITCH_S) for x in seen) and S.FILL_SWITCH_S < before
    assert isinstance(fs.broken, ZeroDivisionError) and sys.getswitchinterval() == pytest.approx(before)


def test_the_scheduler_installs_and_uninstalls_its_cell_hooks():
    from IPython.core.events import EventManager, available_events

    class Shell:
        events = EventManager(None, available_events)

    s, shell = S.FrameScheduler(), Shell()
    before = {e: list(shell.events.callbacks[e]) for e in ("pre_run_cell", "post_run_cell")}
    assert s.install(shell) is True and s.install(shell) is True   # once only
    for e in before:
        assert len(shell.events.callbacks[e]) == len(before[e]) + 1
    s.last_activity = 0.0
    shell.events.trigger("pre_run_cell", None)                      # a cell runs: activity
    assert s.last_activity > 0.0 and not s.quiet()
    s.uninstall()
    assert {e: list(shell.events.callbacks[e]) for e in before} == before
    s.uninstall()                                                   # twice is harmless


def test_the_scheduler_s_hooks_are_installed_once_per_kernel_and_go_with_the_last_explorer(monkeypatch):
    from IPython.core.events import EventManager, available_events

    class Shell:
        events = EventManager(None, available_events)

    shell = Shell()
    before = {e: list(shell.events.callbacks[e]) for e in ("pre_run_cell", "post_run_cell")}
    old, s = S.FrameScheduler(), S.FrameScheduler()
    old.install(shell)
    s.install(shell)                              # e.g. the module reloaded: the old hooks go
    for e in before:
        assert len(shell.events.callbacks[e]) == len(before[e]) + 1
        assert all(getattr(cb, "scheduler", None) is not old for cb in shell.events.callbacks[e])
    monkeypatch.setattr(F, "frame_scheduler", lambda: s)
    a, b = pl.RopeExplorer(), pl.ClockExplorer()
    assert s.sets() == [a.frames, b.frames]
    a.close()
    assert s.sets() == [b.frames] and s._hooks is not None
    b.close()
    assert s.sets() == [] and s._hooks is None
    assert {e: list(shell.events.callbacks[e]) for e in before} == before
    assert b.frames.stack.comm is None and all(c.comm is None for c in b.controls.values())
