"""The static page's explorers (``POSENC_STATIC_FRAMES=N``): every explorer renders its main
slider's frames when it is made (all values, or N evenly spaced ones with both ends and the
current value), its main slider steps through exactly those and reads the real value, and no
IPython hook is installed; what else works on the page is the builder's decision, from the
explorer's declaration (tests/test_site_pages.py). Each static frame is the PNG a live explorer
shows at that value.
"""
import pytest

import posenc_lib as pl
from posenc.ui.engine import frames as F
from posenc.ui.engine import static


# ---------------------------------------------------------------------------
# Which values (a plain rule, worked by hand; the rule's own tests: tests/test_build_site.py)
# ---------------------------------------------------------------------------
def test_the_values_of_a_static_page_by_hand():
    # round(k * 255 / 4) for k = 0..4: 0, 64, 128, 191, 255; the current 3 replaces 64, the nearest inner one
    assert static.subset(256, 5, 3) == [0, 3, 128, 191, 255]
    assert static.subset(256, 5, 128) == [0, 64, 128, 191, 255]
    assert static.subset(256, 5, 255) == [0, 64, 128, 191, 255]
    assert static.subset(3, 5, 1) == [0, 1, 2], "fewer values than N: all of them"
    assert static.subset(5, 5, 1) == [0, 1, 2, 3, 4]
    assert static.subset(10, 3, 6) == [0, 6, 9], "N = 3: both ends and the current one (in place of 4)"


# ---------------------------------------------------------------------------
# Explorers on a static page
# ---------------------------------------------------------------------------
@pytest.fixture
def static_page(monkeypatch):
    s = F.FrameScheduler()
    monkeypatch.setattr(F, "frame_scheduler", lambda: s)
    monkeypatch.setenv(static.ENV, "5")
    return s


def test_the_clock_on_a_static_page(static_page, monkeypatch):
    import ipywidgets as w

    ex = pl.ClockExplorer(pos=3, d_model=8)
    slider = ex.controls["pos"]
    assert isinstance(slider, w.SelectionSlider)
    assert slider.options == (("0", 0), ("3", 3), ("128", 128), ("191", 191), ("255", 255))
    assert slider.value == 3 and not any(c.disabled for c in ex.controls.values())   # the builder decides
    decl = ex.declaration()
    assert (decl["main"], decl["main_model"], decl["frames"], decl["values"]) == ("pos", slider.model_id, 5, 256)
    assert decl["controls"] == {"d_model": ex.controls["d_model"].model_id, "base": ex.controls["base"].model_id}
    fs = ex.frames
    assert sorted(fs.frames) == [0, 1, 2, 3, 4] and all(c is not ex.image for c in fs.stack.children)
    assert static_page.sets() == [] and static_page._hooks is None and static_page.handle is None, "no scheduler, no hooks"
    assert ex.play.max == 4 and ex.play_link.target == (slider, "index")
    monkeypatch.delenv(static.ENV)
    live = pl.ClockExplorer(pos=3, d_model=8)
    for i, (_, value) in enumerate(slider.options):
        slider.value = value
        live.controls["pos"].value = value
        assert fs.stack.selected_index == i and ex.shown_png() == live.shown_png(), value


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, c in pl.EXPLORERS.items() if c.main))
def test_every_explorer_renders_its_static_frames_when_made(static_page, name):
    ex = pl.EXPLORERS[name]()
    fs = ex.frames
    assert len(fs.values) <= 6 and len(fs.frames) == len(fs.values)
    assert ex.declaration()["main_model"] == ex.controls[ex.main].model_id
    labels = [text for text, _ in ex.controls[ex.main].options]
    assert all(isinstance(t, str) and t for t in labels)


def test_a_float_main_slider_reads_its_value_not_an_index(static_page):
    ex = pl.HandCalcExplorer(word_0=0.5)
    # 41 values -1.00 .. 1.00: indices round(k * 40 / 4) = 0, 10, 20, 30, 40
    assert [v for _, v in ex.controls["word_0"].options] == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert [t for t, _ in ex.controls["word_0"].options] == ["\u22121.00", "\u22120.50", "0.00", "0.50", "1.00"], "U+2212 like the browser's readouts"


def test_frame_pngs_gives_the_values_and_the_live_figures(monkeypatch):
    monkeypatch.delenv(static.ENV, raising=False)
    ex = pl.RopeExplorer(pos=5, n=20)
    pairs = ex.frame_pngs(4)
    # pos in [0, 40]: round(k * 40 / 3) = 0, 13, 27, 40; the current 5 replaces 13
    assert [v for v, _ in pairs] == [0, 5, 27, 40]
    ref = pl.RopeExplorer(pos=5, n=20, base=100.0)
    ex.controls["base"].value = 100.0            # the other controls as they are now
    for value, png in ex.frame_pngs(3):
        ref.controls["pos"].value = value
        assert png == ref.shown_png(), value
    assert len(ex.frame_pngs()) == 41 and ex.values["pos"] == 5


def test_the_process_has_one_frame_scheduler_behind_one_accessor(monkeypatch):
    monkeypatch.delenv(static.ENV, raising=False)
    assert F.frame_scheduler() is F.frame_scheduler()
    ex = pl.RopeExplorer()
    assert ex.frames.scheduler is F.frame_scheduler() and ex.frames in F.frame_scheduler().sets()
    assert F.SCHEDULER is F.frame_scheduler(), "the name tools/drag_metrics.py reads in a kernel"
    ex.close()
