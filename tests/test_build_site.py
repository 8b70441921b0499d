"""The static edition's pure parts and the static mode of the widgets, in process.

tools/build_site.py: notebook links become page links (anchors kept), the exporter's
integrity/crossorigin attributes go, the widgets a page keeps are those it shows (and the
browser-side links between them), and the frame count fits the page budget.
posenc/ui/engine/static.py: the subset of frames (evenly spaced, both ends and the current value,
exactly N), the main slider that steps through them and re-forms around a value set in code,
the other controls disabled with a hint, no scheduler, and the quiz / training panel / exercise
checks that say they need JupyterLab. (The built pages in a real browser: tests/browser/test_static_site.py.)
"""
import pytest

import build_site as bs  # tools/build_site.py (pyproject puts tools/ on the test path)
from posenc.ui.engine import static

# ---------------------------------------------------------------------------
# links and tags


@pytest.mark.parametrize("before,after", [
    ('<a href="07_rope.ipynb">', '<a href="07_rope.html">'),
    ('<a href="04_relative_position.ipynb#符号约定">', '<a href="04_relative_position.html#符号约定">'),
    ("<a href='06_relative_family.ipynb#6.-用短句训练'>", "<a href='06_relative_family.html#6.-用短句训练'>"),
    ('<a href="00_index.ipynb">目录</a> | <a href="02_x.ipynb">下一篇</a>',
     '<a href="00_index.html">目录</a> | <a href="02_x.html">下一篇</a>'),
    ('<a href="sub/dir/05_a.ipynb?x=1">', '<a href="sub/dir/05_a.html?x=1">'),
])
def test_notebook_links_become_page_links(before, after):
    assert bs.rewrite_links(before) == after


@pytest.mark.parametrize("kept", [
    '<a href="https://example.org/a.ipynb">',     # an absolute URL is somebody else's page
    '<a href="/abs/a.ipynb">',
    '<a href="#a.ipynb">',                         # an anchor in this page
    '<a href="README.md">',
    '<img src="07_rope.ipynb">',                   # only links (href)
    '<a href="notes.ipynb.txt">',
])
def test_other_links_stay(kept):
    assert bs.rewrite_links(kept) == kept


def test_integrity_and_crossorigin_go_from_script_and_link_tags_only():
    page = ('<script src="static/vendor/require.js" integrity="sha256-abc=" crossorigin="anonymous"></script>'
            "<link rel='stylesheet' href='a.css' crossorigin integrity='sha384-x'>"
            '<p>integrity="kept in text"</p>')
    assert bs.drop_sri(page) == ('<script src="static/vendor/require.js"></script>'
                                 "<link rel='stylesheet' href='a.css'>"
                                 '<p>integrity="kept in text"</p>')


def test_dangling_links_name_missing_files_and_missing_anchors(tmp_path):
    (tmp_path / "02_a.html").write_text(
        '<h1 id="%E6%A0%87%E9%A2%98">标题</h1><a href="03_b.html#%E7%AC%A6">ok</a>'
        '<a href="#%E6%A0%87%E9%A2%98">self</a><a href="04_c.html">missing page</a>'
        '<a href="03_b.html#nowhere">missing anchor</a><a href="https://example.org/x">outside</a>'
        '<a href="03_b.html#W%27">an id holding the other quote</a>'
        '<a href="03_b.html#4.-T5-(2020)%EF%BC%9A">a heading as nbconvert writes its id</a>'
        '<a href="03_b.html#4.-T5-%282020%29%EF%BC%9A">its brackets encoded: no browser finds it</a>'
        '<a href="03_b.html#cell-id=nb03-07">a cell</a>'
        '<script src="static/a.js"></script>', encoding="utf-8")
    (tmp_path / "03_b.html").write_text('<h2 id="符">符</h2><h2 id="W\'">W\'</h2><h2 id="4.-T5-(2020)%EF%BC%9A">T5</h2>'
                                        '<div id="cell-id=nb03-07"></div>', encoding="utf-8")
    (tmp_path / "static").mkdir()
    (tmp_path / "static" / "a.js").write_text("")
    assert bs.dangling_links(tmp_path) == [("02_a.html", "04_c.html"), ("02_a.html", "03_b.html#nowhere"),
                                           ("02_a.html", "03_b.html#4.-T5-%282020%29%EF%BC%9A")]


def test_a_fragment_finds_the_ids_a_browser_tries():
    """As written, with what a browser percent-encodes encoded (beyond ASCII, space), then decoded;
    ( ) ' = stay as they are."""
    assert bs.fragment_ids("符") == {"%E7%AC%A6", "符"}
    assert bs.fragment_ids("%E7%AC%A6") == {"%E7%AC%A6", "符"}
    assert bs.fragment_ids("a-(b)'c") == {"a-(b)'c"}
    assert bs.fragment_ids("a%28b%29") == {"a%28b%29", "a(b)"}
    assert bs.fragment_ids("cell-id=nb07-41") == {"cell-id=nb07-41"}


def test_notebooks_are_named_by_number_name_or_path():
    every = sorted(bs.NB_DIR.glob("[0-9][0-9]_*.ipynb"))
    assert bs.notebook_paths([]) == every
    rope = next(p for p in every if p.stem.startswith("07_"))
    assert bs.notebook_paths(["07"]) == bs.notebook_paths(["7"]) == bs.notebook_paths([rope.name]) == [rope]
    assert bs.notebook_paths([str(rope), "07"]) == [rope]


# ---------------------------------------------------------------------------
# which widgets a page keeps


def _model(name, **state):
    return {"model_name": name, "state": state}


def test_a_page_keeps_what_it_shows_and_the_links_between_them():
    state = {
        "box": _model("VBoxModel", children=["IPY_MODEL_slider", "IPY_MODEL_stack"], layout="IPY_MODEL_lay"),
        "lay": _model("LayoutModel"),
        "slider": _model("IntSliderModel", style="IPY_MODEL_sty"),
        "sty": _model("SliderStyleModel"),
        "stack": _model("StackModel", children=["IPY_MODEL_f0", "IPY_MODEL_f1"]),
        "f0": _model("ImageModel"), "f1": _model("ImageModel"),
        "link": _model("DirectionalLinkModel", source=["IPY_MODEL_slider", "value"],
                       target=["IPY_MODEL_stack", "selected_index"]),
        "dropped": _model("ImageModel"),                       # a frame taken out of the Stack
        "live": _model("ImageModel"),                          # the live image no frame position shows
        "stale_link": _model("LinkModel", source=["IPY_MODEL_slider", "value"],
                             target=["IPY_MODEL_gone", "value"]),   # to a widget not kept
        "other": _model("VBoxModel", children=["IPY_MODEL_f9"]),   # never displayed
        "f9": _model("ImageModel"),
    }
    keep = bs.reachable_widgets(state, ["box", "not-in-state"])
    assert keep == {"box", "lay", "slider", "sty", "stack", "f0", "f1", "link"}


# ---------------------------------------------------------------------------
# frames per explorer for a page budget


def test_frames_for_budget_is_the_largest_count_that_fits():
    # 1000 bytes of page without frames; two explorers of 100 and 50 bytes per frame,
    # 256 and 20 values, measured with 40 frames each (the second had all its 20)
    sets = [{"bytes": 40 * 100, "frames": 40, "main": 40, "cap": 256},
            {"bytes": 20 * 50, "frames": 20, "main": 20, "cap": 20}]
    page = 1000 + 4000 + 1000
    budget = 1000 + 1000 + 100 * 30            # room for exactly 30 frames of the first
    assert bs.frames_for_budget(page, sets, budget=budget, margin=1.0) == 30
    assert bs.frames_for_budget(page, sets, budget=budget - 1, margin=1.0) == 29
    # the second explorer keeps its 20 frames while N >= 20, and shrinks with N below that
    assert bs.frames_for_budget(page, sets, budget=1000 + 15 * 100 + 15 * 50, margin=1.0) == 15
    assert bs.frames_for_budget(page, sets, budget=1000 + 3 * 150 - 1, margin=1.0) is None


def test_frames_for_budget_counts_a_grid_and_a_declared_cap():
    # a grid of 4 values of another control x 10 main-slider values (its cap: 12), 100 bytes
    # a frame: N main values cost 4 * 100 * min(12, N); nothing grows past 12
    sets = [{"bytes": 40 * 100, "frames": 40, "main": 10, "cap": 12}]
    assert bs.frames_for_budget(1000 + 4000, sets, budget=1000 + 4 * 100 * 7, margin=1.0) == 7
    assert bs.frames_for_budget(1000 + 4000, sets, budget=10**9, margin=1.0) == 12


# ---------------------------------------------------------------------------
# the subset of frames


@pytest.mark.parametrize("n,limit", [(256, 128), (256, 70), (199, 7), (11, 5), (10, 3), (1000, 999)])
def test_subset_is_evenly_spaced_with_both_ends_and_the_current_value(n, limit):
    spacing = (n - 1) / (limit - 1)
    even = [round(k * spacing) for k in range(limit)]
    for current in sorted({0, 1, n // 3, n // 2, n - 2, n - 1}):
        picks = static.subset(n, limit, current)
        assert len(picks) == limit == len(set(picks)) and picks == sorted(picks)
        assert picks[0] == 0 and picks[-1] == n - 1 and current in picks
        if current in (0, n - 1):
            assert picks == even, "nothing kept inside: exactly evenly spaced"
        # the others spread over both sides of the current value: no gap much wider than even spacing
        gaps = [b - a for a, b in zip(picks, picks[1:])]
        assert max(gaps) <= 2 * spacing + 1, (current, picks)


def test_subset_spreads_the_others_over_the_gaps_in_proportion():
    # 11 values, 5 kept, the current one 4: ends 0, 10 and 4 fixed; the gaps 0..4 (4) and 4..10
    # (6) get one pick each (6/1 > 4/1, then 4/1 > 6/2), in their middles: 2 and 7
    assert static.subset(11, 5, 4) == [0, 2, 4, 7, 10]
    # a carry kept: every value 0..4 of 40, 8 picks: the other 2 spread over 4..39 (35): 16, 27
    from posenc.ui.engine.spec import spaced

    assert spaced(40, 8, range(5)) == [0, 1, 2, 3, 4, 16, 27, 39]


def test_subset_of_few_values_is_all_of_them():
    assert static.subset(5, 8, 2) == [0, 1, 2, 3, 4]
    assert static.subset(8, 8, 7) == list(range(8))


def test_subset_checks_its_arguments():
    with pytest.raises(ValueError, match="current"):
        static.subset(10, 5, 10)
    with pytest.raises(ValueError, match="limit"):
        static.subset(10, 2, 0)


@pytest.mark.parametrize("raw,expected", [(None, None), ("", None), ("  ", None), ("3", 3), ("128", 128)])
def test_the_environment_variable(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv(static.ENV, raising=False)
    else:
        monkeypatch.setenv(static.ENV, raw)
    assert static.frames_limit() == expected


@pytest.mark.parametrize("raw", ["2", "0", "-5", "many", "3.5"])
def test_a_bad_environment_variable_is_refused_by_name(monkeypatch, raw):
    monkeypatch.setenv(static.ENV, raw)
    with pytest.raises(ValueError, match=static.ENV):
        static.frames_limit()


def test_the_subset_slider_shows_real_values_and_reforms_around_a_value_set_in_code():
    import ipywidgets as w

    pairs = [(f"{v:.2f}", v) for v in (round(-1 + 0.05 * k, 10) for k in range(41))]
    s = static.subset_slider_class()(pairs, 5, value=0.5, description="word_0")
    assert isinstance(s, w.SelectionSlider)
    assert s._options_labels == ("-1.00", "-0.50", "0.00", "0.50", "1.00") and s.label == "0.50"
    s.value = -0.85                     # not rendered: the subset re-forms around it
    assert s.value == -0.85 and s.label == "-0.85" and s._options_labels[s.index] == "-0.85"
    assert len(s.options) == 5 and s.options[0] == ("-1.00", -1.0) and s.options[-1] == ("1.00", 1.0)
    with pytest.raises(Exception, match="Invalid selection"):
        s.value = 0.33                  # not a value of the slider at all


# ---------------------------------------------------------------------------
# static mode of the widgets, in process


@pytest.fixture
def static_mode(monkeypatch):
    monkeypatch.setenv(static.ENV, "5")


@pytest.mark.slow
def test_a_static_explorer_renders_its_subset_and_schedules_nothing(static_mode, monkeypatch):
    import posenc_lib as pl
    from posenc.ui.engine import frames as F, scheduler as S

    s = S.FrameScheduler()
    monkeypatch.setattr(F, "frame_scheduler", lambda: s)
    ex = pl.ClockExplorer(pos=3, d_model=4)
    main, fs = ex.controls["pos"], ex.frames
    # N = 5 of pos's 256 values: both ends, the current 3 and the kept values nearest it (2, 4)
    assert fs.values == [0, 2, 3, 4, 255] and main.label == "3"
    assert [v for _, v in ex.controls["d_model"].options] == [4, 16], "the grid's other axis: its page values"
    assert len(fs.frames) == 10 and all(fs.shown(p) for p in fs.positions)
    assert s.sets() == [] and s._hooks is None and s.handle is None
    assert ex.declaration()["frames"] == 5 and ex.declaration()["values"] == 256
    assert (ex.play.min, ex.play.max, ex.play.value) == (0, 4, 2)   # Play steps through the frames

    monkeypatch.delenv(static.ENV)
    for value, d_model, base in [(3, 4, 10000.0), (255, 16, 10000.0), (100, 16, 10000.0), (100, 4, 100.0)]:
        ex.controls["d_model"].value = d_model
        if base != ex.controls["base"].value:
            ex.controls["base"].value = base           # a control outside the grid set in code: every frame again
        ex.controls["pos"].value = value               # 100: not rendered, the values re-form around it
        assert value in fs.values and main.label == str(value) and len(fs.values) == 5
        assert all(fs.shown(p) for p in fs.positions) and len(fs.frames) == 10
        assert ex.shown_png() == pl.ClockExplorer(pos=value, d_model=d_model, base=base).png()


def test_two_builds_at_once_run_npm_ci_once(tmp_path, monkeypatch):
    """Two processes that need node_modules at the same moment: one installs, the other waits
    for it and finds the stamp (two ``npm ci`` in one folder delete each other's files)."""
    import os
    import subprocess
    import sys
    import textwrap

    tools = tmp_path / "tools"
    (tools / "node_modules").mkdir(parents=True)
    (tools / "package-lock.json").write_text('{"lockfileVersion": 3}')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    fake = bin_dir / "npm"
    fake.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        echo "$$ $*" >> {calls}
        sleep 1
        """))
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin",
           "PYTHONPATH": os.pathsep.join([str(bs.TOOLS), *filter(None, [os.environ.get("PYTHONPATH")])])}
    code = f"import build_site as bs; from pathlib import Path; bs.npm_ci(Path({str(tools)!r}))"
    runs = [subprocess.Popen([sys.executable, "-c", code], env=env) for _ in range(2)]
    assert [r.wait(timeout=60) for r in runs] == [0, 0]
    lines = calls.read_text().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].split()[1:] == ["ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    # the stamp is the lock file's digest, so a third build does not install again
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert len(calls.read_text().splitlines()) == 1
