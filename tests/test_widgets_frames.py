"""posenc/ui/engine/frames.py: the figures of an explorer's frame grid (its main slider and the
spec's other grid axes) rendered ahead of time and switched in the browser (Stacks of data: URL
images nested like the axes, each ``jsdlink``-ed to its axis's widget).

What the reader sees must not change: each frame is byte for byte the PNG a separate explorer
draws at that position, and a full render of ``.figure`` (an unpickled copy drawn on a fresh
canvas) agrees with it; setting a control's ``.value`` in code moves the Stacks and the figure
before it returns; a control outside the grid shows the live figure at once (one message, the
Stacks are not republished) and drops the frames. The fill renders the frames nearest the
handles first (steps along any axis, summed) and keeps within the memory cap. A FrameSet needs
no explorer: a slider, an image and a render callable; an explorer renders its frames with its
spec's view drawn on a second figure. When the fill runs and what it sends:
test_widgets_frames_fill.py (the ``scheduler`` and ``fake`` fixtures are in conftest.py).
"""
import base64

import numpy as np
import pytest

import posenc_lib as pl
from posenc.ui.engine import frames as F, scheduler as S
from posenc.ui.engine.canvas import data_url
from support import full_render, rgb, share_differing

#: Every test here renders or fills frames (many full figure renders each): the slow set.
pytestmark = pytest.mark.slow

FRAMED = sorted(name for name, cls in pl.EXPLORERS.items() if cls.main is not None)


def frame_png(fs, pos) -> bytes:
    url = bytes(fs.image_at(pos).value)
    assert url.startswith(b"data:image/png;base64,")
    return base64.b64decode(url.split(b",", 1)[1])


def other_value(ex, name):
    """A value of control ``name`` other than its current one (its far end)."""
    ends = ex.control_values(name, 2, max_options=0)
    return ends[-1] if ends[-1] != ex.controls[name].value else ends[0]


def move_to(ex, pos):
    """Set every axis of ``ex``'s frame grid to the value at position ``pos``."""
    fs = ex.frames
    for name, opts, i in zip(fs.names, fs.options, pos):
        ex.controls[name].value = opts[i]


def set_like(ref, ex, pos):
    """Set ``ref``'s grid controls to the values at ``ex``'s position ``pos``."""
    fs = ex.frames
    for name, opts, i in zip(fs.names, fs.options, pos):
        ref.controls[name].value = opts[i]




# ---------------------------------------------------------------------------
# Which control, and the slider that drives the Stack
# ---------------------------------------------------------------------------
def test_every_explorer_has_frames_and_its_stacks_follow_their_axes():
    assert set(FRAMED) == set(pl.EXPLORERS)
    for name in FRAMED:
        ex = pl.EXPLORERS[name]()
        fs = ex.frames
        assert fs.main == type(ex).main and ex.controls[fs.main] is fs.slider and fs.names[-1] == fs.main
        assert list(ex.frame_axes) == fs.names == [a.control for a in ex.spec.axes()]
        assert ex.widget.children[-1] is fs.view, f"{name}: the figure shown is not the frames' view"
        assert fs.view.children == (fs.stack, fs.live_box) and fs.live_box.children == (fs.live_view,)
        assert "posenc-live" in fs.live_box._dom_classes
        assert not fs.live_shown and fs.live_box.layout.display == "none" and fs.stack.layout.display is None
        for leaf in fs.leaves.values():
            assert len(leaf.children) == len(fs.values) and all(c is fs.live_view for c in leaf.children)
            assert leaf.selected_index == fs.index()[-1]
        for level, (widget, attr) in enumerate(zip(fs.widgets, fs.attrs)):
            for st in fs.levels[level].values():
                (link,) = [ln for ln in fs.links if ln.target[0] is st]
                assert link.source == (widget, attr) and link.target == (st, "selected_index")
                assert st.selected_index == getattr(widget, attr)
            assert "posenc-frames-control" in widget._dom_classes
        # one Stack per framed value of the outer axes; an unframed value shows the live figure
        for level in range(len(fs.widgets) - 1):
            for prefix, st in fs.levels[level].items():
                for i, child in enumerate(st.children):
                    framed = i in fs.framed[level]
                    assert (child is fs.levels[level + 1].get((*prefix, i))) if framed else (child is fs.live_view)


@pytest.mark.parametrize("make,name,values,labels", [
    # IntSlider from 0 in steps of 1: kept, its value is the index
    (lambda: pl.ClockExplorer(), "pos", list(range(256)), None),
    # IntSlider from -50: a SelectionSlider over the same integers, labelled as before (with the
    # minus sign U+2212 of the browser's own slider readouts)
    (lambda: pl.RelativeExplorer(), "k", list(range(-50, 51)), [str(k).replace("-", "\u2212") for k in range(-50, 51)]),
    # IntSlider from 2 in steps of 2
    (lambda: pl.SimilarityExplorer(), "d_model", list(range(2, 257, 2)), None),
    # a log slider 10 .. 10^6 in a frame grid (02's, beside its main slider d_model): the eleven
    # half decades it frames, readout its value to 3 digits
    (lambda: pl.HandCalcExplorer(), "base", [10.0 ** (k / 2) for k in range(2, 13)],
     [f"{10.0 ** (k / 2):.3g}" for k in range(2, 13)]),
])
def test_a_frame_control_keeps_its_name_values_and_readout(make, name, values, labels):
    import ipywidgets as w

    ex = make()
    s = ex.controls[name]
    if labels is None and values[0] == 0:
        assert isinstance(s, w.IntSlider) and ex.frames.attr == "value"
    else:
        assert isinstance(s, w.SelectionSlider) and ex.frames.attr == "index"
        assert [o[1] for o in s.options] == pytest.approx(values, rel=1e-12)
        if labels is not None:
            assert [o[0] for o in s.options] == labels
        assert s.description.startswith(name)
    level = ex.frames.names.index(name)                   # the main slider's is the last
    assert ex.frames.options[level] == pytest.approx(values, rel=1e-12)
    j = len(values) // 3
    s.value = s.options[j][1] if isinstance(s, w.SelectionSlider) else values[j]
    assert ex.values[name] == pytest.approx(values[j], rel=1e-12) and ex.frames.index()[level] == j


# ---------------------------------------------------------------------------
# Frames are what the explorer draws
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", FRAMED)
def test_frames_are_byte_identical_to_an_independent_render(name):
    """A frame at a position is the PNG a separate explorer draws when its grid controls are
    set to that position's values (same bytes), and a full render of that explorer's figure
    agrees; positions at both ends of every axis."""
    ex = pl.EXPLORERS[name]()
    fs = ex.frames
    ref = pl.EXPLORERS[name]()
    n = len(fs.values)
    every = fs.positions
    corners = [every[0], (*every[-1][:-1], n // 3), (*every[0][:-1], n - 1)]
    for pos in corners:
        move_to(ex, pos)
        fs.fill(limit=1)                 # the nearest missing frame: this one
        assert pos in fs.frames
        set_like(ref, ex, pos)
        assert frame_png(fs, pos) == ref.shown_png(), f"{name} frame {pos}"
        assert share_differing(rgb(frame_png(fs, pos)), full_render(ref.figure)) < 0.002


@pytest.mark.parametrize("name", ["hand_calc", "alibi", "context", "t5_buckets"])
def test_frames_after_another_control_moved_are_still_identical(name):
    """Every control moved to its far end: the refilled frames (those of the grid's positions
    nearest the handles) are what a separate explorer moved the same way draws (the off-screen
    copy keeps the live layout)."""
    ex, ref = pl.EXPLORERS[name](), pl.EXPLORERS[name]()
    fs = ex.frames
    for k, c in ex.controls.items():
        if k != fs.main:
            v = other_value(ex, k)
            c.value = v
            ref.controls[k].value = v
    fs.fill(limit=3)
    assert len(fs.frames) == 3
    for pos in fs.frames:
        set_like(ref, ex, pos)
        assert frame_png(fs, pos) == ref.shown_png(), f"{name} {ex.values} frame {pos}"


def test_the_hand_calculation_table_is_part_of_each_frame():
    """The table follows the grid in the browser too: each frame is the table above the figure,
    both for that position, the table computed directly (start, d_model, base)."""
    import ipywidgets as w

    ex = pl.HandCalcExplorer()
    fs = ex.frames
    assert fs.live_view.children == (ex.table, ex.image) and ex.table not in ex.widget.children
    fs.fill(limit=6)
    for pos, frame in fs.frames.items():
        assert isinstance(frame, w.VBox) and frame.children[-1] is fs.image_at(pos)
        v = ex.values | {name: opts[i] for name, opts, i in zip(fs.names, fs.options, pos)}
        word = np.resize([v["word_0"], v["word_1"]], v["d_model"])
        want = pl.hand_calculation(word_vectors=word, start=v["start"], d_model=v["d_model"], base=v["base"])
        assert frame.children[0].value == want._repr_html_()
    pos = next(p for p in fs.frames if p != fs.index())
    move_to(ex, pos)
    assert ex.table.value == fs.frames[pos].children[0].value, "savefig and the readouts follow the frame"


# ---------------------------------------------------------------------------
# Code stays synchronous; other controls drop the frames
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["clock", "relative", "learned"])
def test_setting_the_value_in_code_moves_stack_and_figure_before_it_returns(name):
    ex = pl.EXPLORERS[name]()
    fs = ex.frames
    n = len(fs.values)
    fs.fill(limit=n // 2)
    live = ex.image.value
    here = fs.index()
    framed = sorted(p for p in fs.frames if p[:-1] == here[:-1] and p != here)
    framed = [framed[0], framed[len(framed) // 2], framed[-1]]
    for pos in framed:
        fs.slider.value = fs.values[pos[-1]]
        assert fs.leaves[pos[:-1]].selected_index == pos[-1]          # no front end needed
        assert ex.shown_png() == frame_png(fs, pos)
        assert ex.image.value == live, "a frame was ready: the live image should not be redrawn"
        differ = share_differing(rgb(ex.shown_png()), full_render(ex.figure))
        assert differ < 0.002, f"{name} {pos}: savefig differs from the frame shown in {differ:.2%}"
    missing = next(i for i in range(n) if (*here[:-1], i) not in fs.frames)
    fs.slider.value = fs.values[missing]
    leaf = fs.leaves[here[:-1]]
    assert leaf.selected_index == missing and leaf.children[missing] is ex.image
    assert ex.image.value != live and ex.shown_png() == ex.png()
    assert share_differing(rgb(ex.shown_png()), full_render(ex.figure)) < 0.002


def test_a_grid_axis_moved_in_code_switches_its_stacks_and_keeps_the_live_image():
    """The heatmap's base (the grid's middle axis): in JupyterLab it offers its declared values,
    the eleven half decades 10 .. 10^6, each with frames (a page holds three). At a value with
    a frame the Stacks switch and the live image is not redrawn; before its frame is drawn the
    live figure is; a full render agrees with what is shown each time."""
    ex = pl.HeatmapExplorer(seq_len=50, base=10000.0)
    fs = ex.frames
    b = fs.options[1]
    assert b == [10.0 ** (k / 2) for k in range(2, 13)] and [v for _, v in ex.controls["base"].options] == b
    assert fs.framed[1] == list(range(11)), "every value offered gets frames"
    fs.fill(limit=12)
    here = fs.index()
    near = (here[0], b.index(10.0 ** 4.5), here[2])
    assert near in fs.frames, "the other axes at the main slider's position come first"
    live = ex.image.value
    ex.controls["base"].value = 10.0 ** 4.5
    assert fs.levels[1][(here[0],)].selected_index == b.index(10.0 ** 4.5) and ex.image.value == live
    assert ex.shown_png() == frame_png(fs, near) == pl.HeatmapExplorer(seq_len=50, base=10.0 ** 4.5).shown_png()
    assert share_differing(rgb(ex.shown_png()), full_render(ex.figure)) < 0.002
    ex.controls["seq_len"].value = 120                  # no frame there yet: the live figure, redrawn
    assert (here[0], b.index(10.0 ** 4.5), fs.values.index(120)) not in fs.frames and ex.image.value != live
    assert ex.shown_png() == ex.png() == pl.HeatmapExplorer(seq_len=120, base=10.0 ** 4.5).shown_png()


def test_another_control_shows_the_live_figure_at_once_and_republishes_later():
    """A control outside the grid (the clock's base): the view switches to the live figure (one
    small change), the frames are dropped, and the Stacks are not republished on the reader's
    path; the next publish (the fill's, while the kernel is quiet) sends the Stacks the new
    frames, closes the old ones and shows the tree again. The refill uses the new value."""
    ex = pl.ClockExplorer()
    fs = ex.frames.fill(limit=20)
    old = [fs.image_at(p) for p in fs.frames]
    sent = []
    for st in fs.leaves.values():
        st.observe(lambda change: sent.append("children"), names="children")
    for part, box in (("tree", fs.stack), ("live", fs.live_box)):
        box.layout.observe(lambda change, part=part: sent.append((part, change["new"])), names="display")
    ex.controls["base"].value = 100.0
    assert sent == [("live", None), ("tree", "none")], "only the view changes while the reader moves base (live first: on top)"
    assert not fs.frames and fs.bytes == 0 and fs.shown_png() is None
    ref = pl.ClockExplorer(pos=ex.controls["pos"].value, base=100.0)
    assert ex.shown_png() == ref.shown_png()
    ex.controls["base"].value = 1000.0                  # a drag: no message but the live image
    assert sent == [("live", None), ("tree", "none")]
    fs.fill(limit=5)
    back = sent.index(("tree", None))
    assert back > 2 and set(sent[2:back]) == {"children"}, "the Stacks first, then the tree shown again"
    assert sent[back + 1] == ("live", "none"), "the tree first: it lies under the live figure"
    assert all(img.comm is None for img in old), "old frames closed after the publish"
    assert all(c is fs.live_view or c in fs.frames.values() for st in fs.leaves.values() for c in st.children)
    ref.controls["base"].value = 1000.0
    for pos in fs.frames:
        set_like(ref, ex, pos)
        assert frame_png(fs, pos) == ref.shown_png()


def test_figure_stays_right_when_the_main_control_moved_over_frames_meanwhile():
    """Moving pos over frames updates the artists only; a later move of another control
    must not reuse a layer cached before that (it would show the old hands)."""
    ex = pl.ClockExplorer()
    fs = ex.frames
    ex.controls["base"].value = 100.0            # layer cached for "base", with pos = 3
    fs.fill(limit=40)
    ex.controls["pos"].value = 17                # a frame: artists only
    ex.controls["base"].value = 1000.0           # live redraw
    assert share_differing(rgb(ex.shown_png()), full_render(ex.figure)) < 0.002
    ref = pl.ClockExplorer(pos=17, base=1000.0)
    assert share_differing(rgb(ex.shown_png()), rgb(ref.shown_png())) == 0


def test_play_is_linked_in_the_browser_and_in_code():
    from ipywidgets.widgets.widget_link import Link

    ex = pl.ClockExplorer()
    assert isinstance(ex.play_link, Link)   # what jslink makes: the link lives in the browser
    assert ex.play_link.source == (ex.play, "value") and ex.play_link.target == (ex.controls["pos"], "value")
    ex.play.value = 9
    assert ex.controls["pos"].value == 9 and all(st.selected_index == 9 for st in ex.frames.leaves.values())
    ex.controls["pos"].value = 30
    assert ex.play.value == 30
    lx = pl.LearnedTableExplorer()
    assert lx.play_link.target == (lx.controls["step"], "index")
    lx.play.value = 2
    assert lx.controls["step"].index == 2 and lx.frames.stack.selected_index == 2


# ---------------------------------------------------------------------------
# Order and memory
# ---------------------------------------------------------------------------
def nearest_first(sizes, centre):
    """Every position of a grid of ``sizes`` by steps from ``centre`` summed over the axes, ties
    the lower position first (outer axes first): plain loops."""
    positions = [()]
    for n in sizes:
        positions = [(*p, i) for p in positions for i in range(n)]
    order = []
    for d in range(sum(sizes) + 1):
        for p in positions:            # in lexicographic order
            if sum(abs(a - b) for a, b in zip(p, centre)) == d:
                order.append(p)
    return order


def plain_set(scheduler, sizes=(9,), at=None, png_bytes=1000):
    """A frame set over a grid of ``sizes`` whose frames are ``png_bytes`` long (no explorer)."""
    import ipywidgets as w

    *outer, n = sizes
    at = at or tuple(0 for _ in sizes)
    widgets = [w.IntSlider(i, min=0, max=k - 1) for k, i in zip(sizes, at)]
    live = w.Image(format="url")

    def render(value, grid=None):
        tag = f"{sorted((grid or {}).items())} {value}".encode()
        return tag + b"\0" * (png_bytes - len(tag)), ()

    grid = [(f"g{k}", x, None) for k, x in enumerate(widgets[:-1])]
    return F.FrameSet(widgets[-1], live, render, label="plain", main="x", scheduler=scheduler, grid=grid), widgets


def test_fill_renders_nearest_first_within_the_cap(scheduler):
    """With a cap of about 12 frames: the frames are the ones nearest the slider, in that
    order, the bytes held never pass the cap, and one more frame would not have fitted."""
    fs, _ = plain_set(scheduler, (256,), (100,))
    one = len(data_url(b"\0" * 1000))
    fs.max_bytes = int(12.5 * one)
    order = []
    while fs.render_next():
        order.append(next(p for p in fs.frames if p not in order))
        assert fs.bytes <= fs.max_bytes
    assert order == nearest_first((256,), (100,))[:len(order)] and len(order) == 12
    fs.publish()
    assert [i for i, c in enumerate(fs.stack.children) if c is not fs.live] == sorted(p[0] for p in order)


def fill_order(sizes, centre):
    """Every position of a grid of ``sizes`` (the main slider last) in the order the fill draws
    them, by plain loops: the other axes at the main slider's position (steps summed), then
    the main slider's every position at the other axes' values (nearest first), then the rest,
    the other axes nearest first, then the main slider nearest first; ties: the lower position."""
    positions = nearest_first(sizes, centre)            # every position, in lexicographic ties
    line = [p for p in positions if p[-1] == centre[-1]]
    row = [p for p in positions if p[:-1] == centre[:-1] and p not in line]
    rest = [p for p in positions if p not in line and p not in row]
    steps = lambda p: sum(abs(a - b) for a, b in zip(p[:-1], centre[:-1]))
    rest.sort(key=lambda p: (steps(p), abs(p[-1] - centre[-1]), p))
    row.sort(key=lambda p: (abs(p[-1] - centre[-1]), p))
    line.sort(key=lambda p: (steps(p), p))
    return line + row + rest


def test_a_grid_fills_the_other_axes_then_the_main_slider_then_the_rest_within_the_cap(scheduler):
    fs, (outer, main) = plain_set(scheduler, (3, 40), (1, 20))
    one = len(data_url(b"\0" * 1000))
    fs.max_bytes = int(50.5 * one)
    order = []
    while fs.render_next():
        order.append(next(p for p in fs.frames if p not in order))
    assert order == fill_order((3, 40), (1, 20))[:50]
    assert order[:3] == [(1, 20), (0, 20), (2, 20)], "a drag of the other axis follows first"
    assert {(1, i) for i in range(40)} <= set(order), "then every position of the main slider, as without a grid"
    outer.value = 2                                  # the other axis moved: the window follows it
    fs.fill()
    assert sorted(fs.frames) == sorted(fill_order((3, 40), (2, 20))[:50]) and fs.bytes <= fs.max_bytes


def test_the_window_follows_the_slider_farthest_frames_go_first(scheduler):
    fs, (slider,) = plain_set(scheduler, (256,), (100,))
    fs.max_bytes = 10 * len(data_url(b"\0" * 1000))
    fs.fill()
    first = set(fs.frames)
    old = {p: fs.frames[p] for p in first}
    slider.value = 110
    fs.fill()
    assert fs.bytes <= fs.max_bytes
    assert sorted(fs.frames) == sorted(nearest_first((256,), (110,))[:len(fs.frames)])
    gone = first - set(fs.frames)
    assert gone and all(old[p].comm is None for p in gone)
    assert all(fs.stack.children[p[0]] is fs.live for p in gone)


def test_the_memory_caps_are_module_constants_and_the_biggest_set_keeps_to_its_own():
    assert F.MAX_BYTES == 24 * 2**20 and S.MAX_TOTAL_BYTES >= 2 * F.MAX_BYTES
    ex = pl.ClockExplorer()
    assert ex.frames.max_bytes == F.MAX_BYTES


def test_a_kernel_over_its_total_gives_up_the_frames_used_least_recently(scheduler, monkeypatch):
    a, b, c = pl.RopeExplorer(), pl.RopeExplorer(), pl.RopeExplorer()
    for ex in (a, b, c):
        ex.frames.fill(limit=5)
    monkeypatch.setattr(S, "MAX_TOTAL_BYTES", sum(ex.frames.bytes for ex in (a, b, c)) + 1)  # one more frame: over
    b.controls["pos"].set_state({"value": 6})    # the reader moves b, then c (messages from the
    c.controls["pos"].set_state({"value": 6})    # browser): a, used least recently, gives its frames up
    assert scheduler._choose() is c.frames
    assert a.frames.bytes == 0 and b.frames.bytes > 0
    assert a.frames.live_shown, "a shows its live figure until its frames come back"
    a.frames.publish()
    assert all(ch is a.image for st in a.frames.leaves.values() for ch in st.children)


# ---------------------------------------------------------------------------
# The narrow doors: a FrameSet needs only a slider, an image and a render callable; an
# explorer's frames are its spec's view drawn on a second figure
# ---------------------------------------------------------------------------
def test_a_frame_set_needs_no_explorer_only_a_render_callable(scheduler):
    import ipywidgets as w

    slider, live = w.IntSlider(2, min=0, max=4), w.Image(format="url")
    calls = []

    def render(value):
        calls.append(value)
        return f"png of {value}".encode(), ()

    fs = F.FrameSet(slider, live, render, label="plain", main="x", scheduler=scheduler)
    fs.fill()
    assert calls == [2, 1, 3, 0, 4], "nearest the slider first, lower side first on ties"
    assert [bytes(fs.image_at((i,)).value) for i in range(5)] == [data_url(f"png of {i}".encode()) for i in range(5)]
    assert all(c is not live for c in fs.stack.children)
    slider.value = 4                              # moved in code: moved() says a frame is there
    assert fs.moved() is True
    fs.follow()
    assert fs.stack.selected_index == 4 and fs.shown_png() == b"png of 4"
    fs.invalidate()
    assert not fs.frames and fs.live_shown and fs.shown_png() is None
    fs.publish()                                  # the fill's publish: it wants frames, the live figure stays up
    assert all(c is live for c in fs.stack.children) and fs.live_shown
    slider.value = 1                              # a grid move where no frame is: still the live figure
    assert fs.moved() is False and fs.live_shown
    fs.render_next()                              # the frame at 1 (nearest first)
    assert fs.moved() is True and not fs.live_shown, "a frame there: the tree back"
    fs.follow()
    assert fs.shown_png() == b"png of 1"
    with pytest.raises(TypeError, match="frame_slider"):
        F.FrameSet(w.IntSlider(0, min=-3, max=3), live, render, scheduler=scheduler)


def test_a_grid_needs_no_explorer_either(scheduler):
    """Two axes, only some values of the outer one framed: the render callable gets the outer
    axis's value by name; an unframed value shows the live image and is never drawn."""
    import ipywidgets as w

    outer = w.Dropdown(options=[("a", "A"), ("b", "B"), ("c", "C")], value="B")
    slider, live = w.IntSlider(1, min=0, max=2), w.Image(format="url")
    calls = []

    def render(value, at):
        calls.append((at["o"], value))
        return f"{at['o']}{value}".encode(), ()

    fs = F.FrameSet(slider, live, render, label="plain", main="x", scheduler=scheduler, grid=[("o", outer, ("A", "B"))])
    assert fs.attrs == ["index", "value"] and fs.stack.children[2] is fs.live_view
    fs.fill()
    assert calls == [("B", 1), ("A", 1), ("B", 0), ("B", 2), ("A", 0), ("A", 2)], "steps summed, lower first"
    outer.value = "A"
    slider.value = 2
    assert fs.moved(outer) is True
    fs.follow()
    assert fs.stack.selected_index == 0 and fs.leaves[(0,)].selected_index == 2 and fs.shown_png() == b"A2"
    outer.value = "C"
    assert fs.moved(outer) is False
    fs.follow()
    assert fs.stack.selected_index == 2 and fs.shown_png() is None


def test_frames_are_the_view_on_a_second_figure_with_the_live_layout():
    ex = pl.ClockExplorer(pos=40, d_model=8, base=100.0)
    ex.controls["d_model"].value = 12
    png, extras = ex.render_frame(77)             # drawn with the live settings (d_model 12)
    assert extras == ()
    second = ex._frame_drawing
    assert second.figure is not ex.figure and type(second.view) is type(ex.view)
    for mine, theirs in zip(second.figure.axes, ex.figure.axes, strict=True):
        assert np.allclose(mine.get_position().bounds, theirs.get_position().bounds)
    ref = pl.ClockExplorer(pos=77, d_model=12, base=100.0)
    assert png == ref.shown_png()
    assert ex.values["pos"] == 40, "rendering a frame moves no control"


def test_the_loss_monitor_is_a_live_figure_not_an_explorer():
    from posenc.ui.engine.explorer import Explorer, LiveFigure

    panel = pl.TrainingPanel(steps=10)
    assert not isinstance(panel.monitor, Explorer) and isinstance(panel.monitor.live, LiveFigure)
    before = panel.image.value
    panel.monitor.set_losses(panel.pes[0], [2.0, 1.0, 0.5])
    panel.monitor.refresh()
    assert panel.image.value != before
    assert share_differing(rgb(png_of_image(panel.image)), full_render(panel.monitor.figure)) < 0.002


def png_of_image(image) -> bytes:
    from posenc.ui.engine.canvas import png_of

    return png_of(image.value)


def test_the_fill_order_follows_the_reader_not_the_notebook_s_code(scheduler):
    """Explorers are filled in page order (made first, first) until the reader moves one;
    a cell that sets a control in code does not reorder them."""
    a, b = pl.RopeExplorer(), pl.RopeExplorer()
    b.controls["pos"].value = 9                  # code (a notebook cell): no reordering
    b.controls["base"].value = 100.0
    assert scheduler._choose() is a.frames
    b.controls["base"].set_state({"value": 1000.0})   # the reader moves b in the browser
    assert scheduler._choose() is b.frames
    a.controls["pos"].set_state({"value": 3})
    assert scheduler._choose() is a.frames
