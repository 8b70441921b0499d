"""posenc/ui/engine/internals.py: the engine's only contact with matplotlib's and ipywidgets'
private parts. Each adapter checks once that the internal still behaves as it expects; the
check passes on the installed libraries, and when a library changes (simulated here) the
adapter takes its public path and logs one warning. Also the training button's stale clicks,
on a fake clock (nothing here sleeps or reads the real time).
"""
import contextlib
import logging

import pytest

import posenc_lib as pl
from posenc.ui.engine import internals as I
from posenc.ui.engine.controls import StaleClicks


@pytest.fixture
def fresh_checks():
    """Forget every adapter's verdict (and which fallbacks were logged) before and after."""
    checks = (I.fall_back, I.property_lock_works, I.initializing_flag_works, I.GlyphCache.works)
    for f in checks:
        f.cache_clear()
    yield
    for f in checks:
        f.cache_clear()


def fallbacks(caplog, what) -> list:
    return [r for r in caplog.records if r.name == "posenc.ui.engine" and r.getMessage().startswith(what)]


# ---------------------------------------------------------------------------
# from_browser: ipywidgets' _property_lock
# ---------------------------------------------------------------------------
def test_from_browser_tells_a_browser_update_from_code(fresh_checks, caplog):
    import ipywidgets as w

    slider, seen = w.IntSlider(0, min=0, max=5), []
    slider.observe(lambda change: seen.append(I.from_browser(change["owner"])), names="value")
    slider.set_state({"value": 3})               # what a message from the browser calls
    slider.value = 4                             # what a cell does
    assert seen == [True, False] and not I.from_browser(slider)
    assert I.property_lock_works() is True and not fallbacks(caplog, "from_browser")


def test_from_browser_falls_back_to_code_when_ipywidgets_stops_marking_browser_updates(
        fresh_checks, caplog, monkeypatch):
    import ipywidgets as w
    from ipywidgets.widgets.widget import Widget

    monkeypatch.setattr(Widget, "_lock_property", lambda self, **kw: contextlib.nullcontext())
    slider = w.IntSlider(0, min=0, max=5)
    slider._property_lock = {"value": 1}         # stale state the check no longer trusts
    with caplog.at_level(logging.WARNING, logger="posenc.ui.engine"):
        assert I.from_browser(slider) is False
        assert I.from_browser(slider) is False
    assert len(fallbacks(caplog, "from_browser")) == 1, "logged once"


# ---------------------------------------------------------------------------
# options_keep_index: ipywidgets' _initializing_traits_ (the static page's SubsetSlider)
# ---------------------------------------------------------------------------
def subset_slider():
    from posenc.ui.engine import static

    pairs = [(str(v), v) for v in range(11)]
    slider, seen = static.subset_slider_class()(pairs, 5, value=10), []
    slider.observe(lambda change: seen.append(change["new"]), names="value")
    return slider, seen


def test_a_subset_slider_reforms_around_a_value_with_one_notification(fresh_checks, caplog):
    slider, seen = subset_slider()
    assert [v for _, v in slider.options] == [0, 2, 5, 8, 10]
    slider.value = 4
    assert [v for _, v in slider.options] == [0, 2, 4, 7, 10]   # subset(11, 5, 4), by hand in static's doctest
    assert seen == [4] and slider.index == 2 and slider.label == "4"
    assert I.initializing_flag_works() is True and not fallbacks(caplog, "SubsetSlider")


def test_the_subset_slider_still_ends_right_when_ipywidgets_resets_the_index(fresh_checks, caplog, monkeypatch):
    """An ipywidgets that no longer reads the flag (it selects the first option on every
    options change): the check sees it, logs once, and the re-form takes the plain path (the
    first option for a moment, then the value asked for)."""
    import ipywidgets as w
    from traitlets import observe

    class Forgetful(w.SelectionSlider):
        @observe("options")
        def _propagate_options(self, change):   # the release's own handler, ignoring the flag
            if change is not None:
                self._initializing_traits_ = False
            super()._propagate_options(change)

    monkeypatch.setattr(w, "SelectionSlider", Forgetful)
    with caplog.at_level(logging.WARNING, logger="posenc.ui.engine"):
        assert I.initializing_flag_works() is False
        I.initializing_flag_works()
    assert len(fallbacks(caplog, "SubsetSlider")) == 1
    monkeypatch.undo()
    slider, seen = subset_slider()
    slider.value = 4
    assert seen == [0, 4], "the plain path: ipywidgets selects the first option, then the value asked for"
    assert [v for _, v in slider.options] == [0, 2, 4, 7, 10] and slider.value == 4 and slider.index == 2


# ---------------------------------------------------------------------------
# GlyphCache: matplotlib's RendererAgg._renderer (behaviour when internals change:
# tests/test_figures_explorer.py)
# ---------------------------------------------------------------------------
def test_the_glyph_cache_logs_once_when_it_cannot_be_trusted(fresh_checks, caplog, monkeypatch):
    assert I.GlyphCache.works() is True
    I.GlyphCache.works.cache_clear()
    monkeypatch.setattr(I.GlyphCache, "_self_check", staticmethod(lambda: "replayed text differs"))
    with caplog.at_level(logging.WARNING, logger="posenc.ui.engine"):
        assert I.GlyphCache.works() is False and I.GlyphCache.works() is False
    (record,) = fallbacks(caplog, "glyph cache")
    assert "replayed text differs" in record.getMessage()


def test_the_frame_figure_copies_the_layout_through_public_calls():
    """copy_layout uses Axes.set_position (no private call) and leaves each axes in the layout."""
    ex = pl.ClockExplorer()
    ex.render_frame(10)
    second = ex._frame_drawing.figure
    assert all(ax.get_in_layout() for ax in second.axes)
    for mine, theirs in zip(second.axes, ex.figure.axes, strict=True):
        assert mine.get_position(original=True).bounds == theirs.get_position(original=True).bounds


# ---------------------------------------------------------------------------
# The training button: clicks sent while a run was going on are ignored
# ---------------------------------------------------------------------------
class FakeTimes:
    """The kernel's clock and the browser's send times, set by the test (the browser's clock
    runs 4000 s behind the kernel's)."""

    def __init__(self):
        self.kernel, self.sent = 5000.0, None

    def clock(self):
        return self.kernel

    def sent_time(self):
        return self.sent


def test_a_click_sent_during_the_run_is_stale_one_sent_after_it_is_not():
    t = FakeTimes()
    clicks = StaleClicks(clock=t.clock, sent_time=t.sent_time)
    t.sent = 1000.0                      # the first click: answered at once
    assert clicks.stale() is False and clicks.offset == 4000.0
    t.kernel = 5010.0                    # the run ends at 5010 on the kernel's clock
    clicks.finished()
    t.sent = 1005.0                      # clicked at 5005 (kernel time), while the run went on
    assert clicks.stale() is True
    t.sent = 1010.5                      # clicked after the run ended
    t.kernel = 5010.6
    assert clicks.stale() is False
    t.sent = None                        # no send time (another front end): never stale
    assert clicks.stale() is False


def test_the_training_panel_ignores_stale_clicks_and_says_so():
    t = FakeTimes()
    panel = pl.TrainingPanel(steps=10)
    panel.clicks = StaleClicks(clock=t.clock, sent_time=t.sent_time)
    runs = []

    def train():                         # a run of 10 s, no model trained
        runs.append(t.kernel)
        t.kernel += 10.0
        panel.clicks.finished()

    panel.train = train
    t.sent = 1000.0
    panel.button.click()
    t.sent = 1004.0                      # sent during the run, handled after it
    panel.button.click()
    assert runs == [5000.0] and "已忽略" in panel.status.value
    t.sent, t.kernel = 1011.0, 5011.0
    panel.button.click()
    assert runs == [5000.0, 5011.0]
