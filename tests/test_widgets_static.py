"""The static page's explorers (``POSENC_STATIC_FRAMES=N``): every explorer renders its main
slider's frames when it is made (all values, or N evenly spaced ones with both ends and the
current value), its main slider steps through exactly those and reads the real value, and no
IPython hook is installed; what else works on the page is the builder's decision, from the
explorer's declaration (tests/test_site_pages.py). Each static frame is the PNG a live explorer
shows at that value.
"""
import pytest

import posenc_lib as pl
from posenc.ui.engine import frames as F, scheduler as S
from posenc.ui.engine import static


# ---------------------------------------------------------------------------
# Which values (a plain rule, worked by hand; the rule's own tests: tests/test_build_site.py)
# ---------------------------------------------------------------------------
def test_the_values_of_a_static_page_by_hand():
    # nothing kept inside: round(k * 255 / 4) for k = 0..4
    assert static.subset(256, 5, 255) == [0, 64, 128, 191, 255]
    # 0, 3 and 255 fixed; the two others go to the longer gap 3..255 (252), at thirds: 87, 171
    assert static.subset(256, 5, 3) == [0, 3, 87, 171, 255]
    # 128 fixed: one pick in each half, at its middle
    assert static.subset(256, 5, 128) == [0, 64, 128, 192, 255]
    assert static.subset(3, 5, 1) == [0, 1, 2], "fewer values than N: all of them"
    assert static.subset(5, 5, 1) == [0, 1, 2, 3, 4]
    assert static.subset(10, 3, 6) == [0, 6, 9], "N = 3: both ends and the current one"


def test_a_page_holds_the_values_an_axis_declares():
    from posenc.ui.engine.spec import Axis, base_slider, int_slider

    pos = int_slider("pos", 3, 0, 255)
    carry = Axis("pos", count=8, keep=range(5))
    # ends, 0..4 kept, the 2 others spread over 4..255 (251): 4 + 251/3, 4 + 502/3 = 88, 171
    assert carry.page_values(pos, 3) == [0, 1, 2, 3, 4, 88, 171, 255]
    assert carry.page_values(pos, 3, limit=4) == [0, 2, 3, 255], "the builder's limit: the kept ones nearest 3"
    base = base_slider(10000.0, 1, 6)
    assert Axis("base", page=(10.0, 1e4, 1e6)).page_values(base, 10000.0) == [10.0, 1e4, 1e6]
    assert Axis("base", page=(10.0, 1e6)).page_values(base, 100.0) == [10.0, 100.0, 1e6], "the value it starts at too"
    assert len(Axis("base").page_values(base, 1e4)) == 51, "a log slider in steps of 0.1 over 5 decades"


# ---------------------------------------------------------------------------
# Explorers on a static page
# ---------------------------------------------------------------------------
@pytest.fixture
def static_page(monkeypatch):
    s = S.FrameScheduler()
    monkeypatch.setattr(F, "frame_scheduler", lambda: s)
    monkeypatch.setenv(static.ENV, "5")
    return s


def test_the_clock_on_a_static_page(static_page, monkeypatch):
    import ipywidgets as w

    ex = pl.ClockExplorer(pos=9, d_model=4)
    slider = ex.controls["pos"]
    assert isinstance(slider, w.SelectionSlider)
    # N = 5: both ends, 9 and the kept values nearest it (the carry's 0..24)
    assert slider.options == (("0", 0), ("8", 8), ("9", 9), ("10", 10), ("255", 255))
    assert slider.value == 9 and not any(c.disabled for c in ex.controls.values())   # the builder decides
    d_model = ex.controls["d_model"]
    assert [v for _, v in d_model.options] == [4, 16] and d_model.value == 4
    decl = ex.declaration()
    assert (decl["main"], decl["main_model"], decl["frames"], decl["values"]) == ("pos", slider.model_id, 5, 256)
    assert decl["grid"] == [{"name": "d_model", "model": d_model.model_id, "frames": 2, "values": 8, "shown": ["4", "16"]}]
    assert decl["controls"] == {"base": ex.controls["base"].model_id}
    fs = ex.frames
    assert sorted(fs.frames) == [(d, i) for d in (0, 1) for i in range(5)]
    assert all(fs.shown(p) for p in fs.positions) and not fs.live_shown
    assert static_page.sets() == [] and static_page._hooks is None and static_page.handle is None, "no scheduler, no hooks"
    assert ex.play.max == 4 and ex.play_link.target == (slider, "index")
    monkeypatch.delenv(static.ENV)
    live = pl.ClockExplorer(pos=9, d_model=4)
    for dj, d in enumerate((4, 16)):
        d_model.value = d
        live.controls["d_model"].value = d
        for i, (_, value) in enumerate(slider.options):
            slider.value = value
            live.controls["pos"].value = value
            assert fs.stack.selected_index == dj and fs.leaves[(dj,)].selected_index == i
            assert ex.shown_png() == live.shown_png(), (d, value)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, c in pl.EXPLORERS.items() if c.main))
def test_every_explorer_renders_its_static_frames_when_made(static_page, name):
    ex = pl.EXPLORERS[name]()
    fs = ex.frames
    assert len(fs.values) <= 6 and len(fs.frames) == len(fs.positions) == len(fs.values) * len(fs.positions) // len(fs.values)
    assert all(fs.shown(p) for p in fs.positions), "every position of the grid is a frame on the page"
    assert ex.declaration()["main_model"] == ex.controls[ex.main].model_id
    for axis in ex.frame_axes:
        labels = [text for text, _ in ex.controls[axis].options] if hasattr(ex.controls[axis], "options") else ["x"]
        assert all(isinstance(t, str) and t for t in labels)


def test_a_float_main_slider_reads_its_value_not_an_index(static_page):
    ex = pl.SimilarityExplorer(d_model=64)
    # d_model 2 .. 256 in steps of 2 (indices 0 .. 127), N = 5: the ends, the current 64 (index
    # 31); the gaps 0..31 (31) and 31..127 (96) share 2 picks, both to the longer: 63, 95
    assert [v for _, v in ex.controls["d_model"].options] == [2, 64, 128, 192, 256]
    assert [t for t, _ in ex.controls["d_model"].options] == ["2", "64", "128", "192", "256"]
    hx = pl.HandCalcExplorer()         # base, a log slider: its readout is the value (3 digits)
    assert [t for t, _ in hx.controls["base"].options] == [f"{v:.3g}" for _, v in hx.controls["base"].options]
    assert hx.controls["base"].options[0] == ("10", 10.0) and hx.controls["base"].options[-1] == ("1e+06", 1e6)


def test_frame_pngs_gives_the_values_and_the_live_figures(monkeypatch):
    monkeypatch.delenv(static.ENV, raising=False)
    ex = pl.RopeExplorer(pos=5, n=20)
    pairs = ex.frame_pngs(4)
    # pos in [0, 40], 4 values: both ends, the current 5 and the declared 16 (of 16, 24 the one nearer 5)
    assert [v for v, _ in pairs] == [0, 5, 16, 40]
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
