"""The static page's explorers (``POSENC_STATIC_FRAMES=N``): every explorer renders its main
slider's frames when it is made (all values, or N evenly spaced ones with both ends and the
current value), its main slider steps through exactly those and reads the real value, every
other control is shown disabled under a one-line hint, and no IPython hook is installed.
Each static frame is the PNG a live explorer shows at that value.
"""
import pytest

import posenc_lib as pl
from posenc.widgets import frames as F
from posenc.widgets.explorer import STATIC_ENV, static_frame_count


# ---------------------------------------------------------------------------
# Which values (a plain rule, worked by hand)
# ---------------------------------------------------------------------------
def test_the_values_of_a_static_page_by_hand():
    values = list(range(256))
    # round(k * 255 / 4) for k = 0..4: 0, 64, 128, 191, 255; the current 3 replaces 64, the nearest inner one
    assert F.static_values(values, 5, 3) == [0, 3, 128, 191, 255]
    assert F.static_values(values, 5, 128) == [0, 64, 128, 191, 255]
    assert F.static_values(values, 5, 255) == [0, 64, 128, 191, 255]
    assert F.static_values([4, 8, 12], 5, 8) == [4, 8, 12], "fewer values than N: all of them"
    assert F.static_values([1, 2, 3, 4, 5], 5, 2) == [1, 2, 3, 4, 5]
    assert F.static_values(list(range(10)), 2, 4) == [0, 4, 9], "N = 2: both ends and the current one"
    with pytest.raises(ValueError):
        F.static_values(values, 1, 3)


def test_the_environment_variable(monkeypatch):
    monkeypatch.delenv(STATIC_ENV, raising=False)
    assert static_frame_count() is None
    monkeypatch.setenv(STATIC_ENV, "12")
    assert static_frame_count() == 12
    for bad in ("1", "many"):
        monkeypatch.setenv(STATIC_ENV, bad)
        with pytest.raises(ValueError, match=STATIC_ENV):
            static_frame_count()


# ---------------------------------------------------------------------------
# Explorers on a static page
# ---------------------------------------------------------------------------
@pytest.fixture
def static(monkeypatch):
    s = F.FrameScheduler()
    monkeypatch.setattr(F, "SCHEDULER", s)
    monkeypatch.setenv(STATIC_ENV, "5")
    return s


def test_the_clock_on_a_static_page(static, monkeypatch):
    import ipywidgets as w

    ex = pl.ClockExplorer(pos=3, d_model=8)
    slider = ex.controls["pos"]
    assert isinstance(slider, w.SelectionSlider)
    assert slider.options == (("0", 0), ("3", 3), ("128", 128), ("191", 191), ("255", 255))
    assert slider.value == 3 and not slider.disabled
    assert ex.controls["d_model"].disabled and ex.controls["base"].disabled
    hints = [c for c in ex.widget.children if "posenc-static-hint" in c._dom_classes]
    assert len(hints) == 1 and "静态网页" in hints[0].value and "JupyterLab" in hints[0].value
    fs = ex.frames
    assert sorted(fs.frames) == [0, 1, 2, 3, 4] and all(c is not ex.image for c in fs.stack.children)
    assert static.sets() == [] and static._hooks is None and static.handle is None, "no scheduler, no hooks"
    assert ex.play.max == 4 and ex.play_link.target == (slider, "index")
    monkeypatch.delenv(STATIC_ENV)
    live = pl.ClockExplorer(pos=3, d_model=8)
    for i, (_, value) in enumerate(slider.options):
        slider.value = value
        live.controls["pos"].value = value
        assert fs.stack.selected_index == i and ex.shown_png() == live.shown_png(), value


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, c in pl.EXPLORERS.items() if c.FRAMES))
def test_every_explorer_renders_its_static_frames_when_made(static, name):
    ex = pl.EXPLORERS[name]()
    fs = ex.frames
    assert len(fs.values) <= 6 and len(fs.frames) == len(fs.values)
    assert all(c.disabled for k, c in ex.controls.items() if k != ex.FRAMES)
    assert not ex.controls[ex.FRAMES].disabled
    labels = [text for text, _ in ex.controls[ex.FRAMES].options]
    assert all(isinstance(t, str) and t for t in labels)


def test_a_float_main_slider_reads_its_value_not_an_index(static):
    ex = pl.HandCalcExplorer(word_0=0.5)
    # 41 values -1.00 .. 1.00: indices round(k * 40 / 4) = 0, 10, 20, 30, 40
    assert [v for _, v in ex.controls["word_0"].options] == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert [t for t, _ in ex.controls["word_0"].options] == ["-1.00", "-0.50", "0.00", "0.50", "1.00"]


def test_frame_pngs_gives_the_values_and_the_live_figures(monkeypatch):
    monkeypatch.delenv(STATIC_ENV, raising=False)
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
