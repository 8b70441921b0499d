"""posenc/ui/engine/ahead.py: after a reader's move of a live control (one outside the frame
grid), the figures at that control's next value each way are drawn in the background; a step
onto one of them shows it without a redraw on the reader's path.

What is held to an independent answer: the neighbours a widget offers (written out by hand
for each kind of widget), and every figure shown from ahead, which must equal, byte for byte,
a full draw of the same view at the same values on a figure of its own with the explorer's
axes positions (:func:`full_draw`: no layer, no blitting, nothing drawn ahead). The scheduler runs on a fake clock (the ``fake`` fixture); nothing here sleeps.
A browser's message is what ``Widget.set_state`` gets (ipywidgets marks it as one).
"""
import ipywidgets as w
import pytest

import posenc_lib as pl
from posenc.ui.engine import lock, scheduler as S
from posenc.ui.engine.ahead import neighbours, same_values
from posenc.ui.engine.canvas import png_of
from posenc.ui.engine.controls import frame_options
from posenc.ui.engine.explorer import Drawing
from posenc.ui.engine.spec import checkbox, dropdown, float_slider, int_slider, log_slider

#: (explorer, control) of every control outside its explorer's frame grid (a live control).
LIVE = [(n, c.name) for n, cls in sorted(pl.EXPLORERS.items()) for c in cls.spec.controls
        if c.name not in {a.control for a in cls.spec.axes()}]


def browser_sets(widget, value) -> None:
    """What a browser's message does: a slider's value, a selection's index."""
    if hasattr(widget, "options"):
        widget.set_state({"index": [v for _, v in frame_options(widget)].index(value)})
    else:
        widget.set_state({"value": value})


def full_draw(ex) -> bytes:
    """The PNG of a whole-figure draw of ``ex``'s view at its values now (its axes positions)."""
    d = Drawing(ex.spec, ex.params, tuple(ex.declared.values()), ex.values, layout_of=ex.figure)
    d.draw(ex.values, full=True)
    return d.canvas.png()


def _enabled(ex, cname):
    """``ex``'s widget of ``cname``, enabled by the first dropdown option that does (by code)."""
    for other, wd in ex.controls.items():
        if not ex.controls[cname].disabled:
            break
        if other != cname and ex.declared[other].kind == "dropdown":
            for _, v in frame_options(wd):
                wd.value = v
                if not ex.controls[cname].disabled:
                    break
    assert not ex.controls[cname].disabled
    return ex.controls[cname]


# -- the neighbours a widget offers ------------------------------------------------------------
def test_an_int_slider_s_neighbours_the_direction_of_the_move_first():
    c = int_slider("n", 5, 0, 10)
    wd = w.IntSlider(5, min=0, max=10, step=1)
    assert neighbours(c, wd, 4, 5) == [6, 4]
    assert neighbours(c, wd, 6, 5) == [4, 6]
    assert neighbours(c, wd, 9, 10) == [9]          # the top end: one way only
    assert neighbours(c, wd, 1, 0) == [1]


def test_a_float_slider_s_neighbours_are_whole_steps():
    c = float_slider("x", 0.5, 0.0, 1.0, 0.05)
    wd = w.FloatSlider(0.55, min=0.0, max=1.0, step=0.05)
    assert neighbours(c, wd, 0.5, 0.55) == [0.6, 0.5]    # not 0.6000000000000001


def test_a_log_slider_s_neighbours_are_one_step_of_the_exponent():
    c = log_slider("base", 10 ** 3.1, 2, 5, 0.1)
    wd = w.FloatLogSlider(10 ** 3.1, base=10, min=2, max=5, step=0.1)
    up, down = neighbours(c, wd, 1000.0, 10 ** 3.1)
    assert up == pytest.approx(1584.893192461114, rel=1e-12) and down == pytest.approx(1000.0, rel=1e-12)
    assert neighbours(c, wd, 10 ** 4.9, 1e5) == [pytest.approx(10 ** 4.9, rel=1e-12)]


def test_a_dropdown_s_and_a_checkbox_s_neighbours():
    c = dropdown("kind", "b", ("a", "b", "c"))
    wd = w.Dropdown(options=["a", "b", "c"], value="b")
    assert neighbours(c, wd, "c", "b") == ["a", "c"]
    assert neighbours(c, wd, "a", "b") == ["c", "a"]
    assert neighbours(checkbox("on", True), w.Checkbox(value=True), False, True) == [False]


def test_same_values_allows_the_last_bits_of_a_power_not_a_shown_digit():
    assert same_values({"base": 10 ** 3.1, "k": 1}, {"base": 1258.9254117941675, "k": 1})
    assert not same_values({"base": 1000.0}, {"base": 1001.0})
    assert not same_values({"on": True}, {"on": 1.0})
    assert not same_values({"a": 1}, {"a": 1, "b": 2})


# -- the figures drawn ahead ---------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name, cname", LIVE)
def test_a_step_onto_a_neighbour_shows_what_a_full_draw_shows(name, cname, fake, monkeypatch):
    """Every live control of every explorer (one greyed out at the defaults under the first
    option that enables it): a browser's step, quiet for AHEAD_S, then a step onto the
    neighbour in the direction of the move shows a figure drawn ahead (no draw of the live
    canvas), equal to a full draw at the same values; the explorer's PNG then equals what is shown."""
    loop, s = fake
    ex = pl.EXPLORERS[name]()
    wd = _enabled(ex, cname)
    first = neighbours(ex.declared[cname], wd, None, wd.value)
    assert first, f"{name}.{cname}: no neighbour"
    browser_sets(wd, first[0])
    loop.advance(S.AHEAD_S + 4 * S.YIELD_S)
    assert len(ex.ahead.ready) == len(ex.ahead.wanted) >= 1, f"{name}.{cname}: nothing drawn ahead"
    draws = []
    target = ex.ahead.wanted[0][cname]
    with monkeypatch.context() as m:
        m.setattr(ex.canvas, "draw", lambda *a, **k: draws.append(1))
        browser_sets(wd, target)
    assert ex.ahead.hits == 1 and not draws, f"{name}.{cname}: redrawn on the reader's path"
    shown = png_of(ex.image.value)
    assert shown == full_draw(ex), f"{name}.{cname} at {target!r}: not what a full draw shows"
    assert ex.png() == shown and ex.shown_png() == shown


@pytest.mark.slow
def test_the_neighbours_are_drawn_after_a_short_quiet_before_any_frame(fake):
    loop, s = fake
    ex = pl.HandCalcExplorer()
    loop.run()                                       # the frames of the first fill
    rendered = s.rendered
    wd = ex.controls["word_0"]
    browser_sets(wd, round(wd.value + wd.step, 10))
    assert ex.ahead.wanted and not ex.ahead.ready
    loop.advance(S.AHEAD_S * 0.9)
    assert not ex.ahead.ready, "drawn before the kernel was quiet"
    loop.advance(S.AHEAD_S * 0.1 + S.YIELD_S / 2)
    assert len(ex.ahead.ready) == 1, "one figure per callback"
    loop.advance(S.YIELD_S)
    assert len(ex.ahead.ready) == 2 and s.rendered == rendered, "a frame before the kernel was quiet for QUIET_S"
    loop.advance(S.QUIET_S)
    assert s.rendered > rendered, "the frames' refill did not follow"


@pytest.mark.slow
def test_only_a_browser_s_step_plans_and_any_other_move_forgets(fake):
    loop, s = fake
    ex = pl.HandCalcExplorer()
    wd = ex.controls["word_0"]
    wd.value = 0.7                                   # a cell's code
    assert not ex.ahead.wanted
    browser_sets(wd, 0.75)
    assert [v["word_0"] for v in ex.ahead.wanted] == [0.8, 0.7]
    loop.advance(S.AHEAD_S * 2)
    assert len(ex.ahead.ready) == 2
    main = ex.controls[ex.main]
    browser_sets(main, [v for _, v in frame_options(main)][-1])   # the main slider (a grid axis)
    assert not ex.ahead.wanted and not ex.ahead.ready
    browser_sets(wd, 0.8)                            # a miss: drawn as before
    assert ex.ahead.misses >= 1 and png_of(ex.image.value) == full_draw(ex)


@pytest.mark.slow
def test_a_figure_being_drawn_ahead_gives_way_to_a_reader(fake, monkeypatch):
    loop, s = fake
    ex = pl.HandCalcExplorer()
    wd = ex.controls["word_0"]
    browser_sets(wd, 0.55)
    with monkeypatch.context() as m:
        m.setattr(lock.DRAWING, "contended", lambda: True)   # a reader waits for the lock
        loop.advance(S.AHEAD_S + S.YIELD_S / 2)
        assert not ex.ahead.ready and s.interrupted >= 1
    loop.advance(4 * S.YIELD_S)
    assert len(ex.ahead.ready) == 2
    browser_sets(wd, 0.6)
    assert ex.ahead.hits == 1 and png_of(ex.image.value) == full_draw(ex)


@pytest.mark.slow
def test_a_figure_drawn_ahead_that_fails_leaves_the_explorer_live(fake):
    """An exception while drawing ahead is kept (``broken``), nothing more is drawn ahead for
    that explorer, the fill goes on and every step is drawn as before."""
    loop, s = fake
    ex = pl.HandCalcExplorer()
    ex.ahead._make = lambda: 1 / 0
    wd = ex.controls["word_0"]
    browser_sets(wd, 0.55)
    loop.advance(S.AHEAD_S + 4 * S.YIELD_S)
    assert isinstance(ex.ahead.broken, ZeroDivisionError) and not ex.ahead.ready
    browser_sets(wd, 0.6)
    assert not ex.ahead.wanted and png_of(ex.image.value) == full_draw(ex)
    loop.advance(S.QUIET_S * 2)
    assert s.rendered > 0, "the frames' fill stopped"


def test_a_static_page_draws_nothing_ahead(monkeypatch):
    from posenc.ui.engine import static

    monkeypatch.setattr(static, "frames_limit", lambda: 3)
    assert pl.PermutationExplorer().ahead is None
