"""posenc/ui/engine/spec.py: an explorer is declared once (its spec) and the rest is derived.

The constructor's signature and checks, the widgets (ranges, options, labels), and the
constraints between controls all come from the spec; a figure family's explorer class holds
a spec and no constructor of its own.
"""
import inspect
import re

import pytest

import posenc_lib as pl
from posenc.ui.engine.explorer import Explorer
from posenc.ui.engine.spec import ExplorerSpec, int_slider
from support import default_explorer


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_every_explorer_is_a_spec_with_no_constructor_of_its_own(name):
    cls = pl.EXPLORERS[name]
    assert isinstance(cls.spec, ExplorerSpec) and cls.spec.name == name
    assert cls.main == cls.spec.main and cls.FIGSIZE == cls.spec.figsize
    src = inspect.getsource(cls)
    assert "def __init__" not in src and "ipywidgets" not in src, f"{cls.__name__} builds widgets itself"
    params = inspect.signature(cls).parameters
    names = {c.name for c in cls.spec.controls} | {p.name for p in cls.spec.params}
    assert set(params) - {"self"} == names


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_widgets_are_what_the_spec_declares(name):
    ex = default_explorer(name)
    spec = ex.spec
    assert list(ex.controls) == [c.name for c in spec.controls]
    for c in spec.control_list(ex.params):
        w = ex.controls[c.name]
        if c.name in ex.frame_axes:       # the frame grid: the main slider every value, another axis its live values
            values = ([o[1] if isinstance(o, tuple) else o for o in w.options] if hasattr(w, "options")
                      else list(range(w.min, w.max + 1, w.step)))
            offered = c.values() if c.name == spec.main else ex.frame_axes[c.name].live_values(c, ex.values[c.name])
            assert values == [v for v in offered if c.max_follows is None or v <= c.top(ex.values)], c.name
        elif c.kind in ("int", "float") and c.max_follows is None:
            assert (w.min, w.max, w.step) == (c.lo, c.hi, c.step), c.name
        elif c.kind in ("choice", "dropdown"):
            assert [o[1] if isinstance(o, tuple) else o for o in w.options] == list(c.options), c.name


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_every_control_reads_its_name_with_a_chinese_gloss(name):
    """Issue 28: every control is labelled ``pos（位置）``: the parameter, its Chinese gloss in brackets."""
    if pl.cjk_font() is None:
        pytest.skip("without a CJK font every label is the parameter's name")
    ex = default_explorer(name)
    for cname, w in ex.controls.items():
        m = re.fullmatch(rf"{re.escape(cname)}（(.+)）", w.description)
        assert m and re.search(r"[\u4e00-\u9fff]", m.group(1)), f"{name}.{cname}: {w.description!r}"


def test_the_training_panel_s_controls_read_the_same_way():
    if pl.cjk_font() is None:
        pytest.skip("without a CJK font every label is the parameter's name")
    panel = pl.TrainingPanel(steps=10)
    assert [w.description for w in panel.controls.values()] == ["seed（随机种子）", "steps（训练步数）"]


def test_the_2d_query_sliders_end_at_the_grid_s_last_patch():
    """Issue 28: on a 10 x 10 grid the query row slider ends at 9, and every move of it changes
    the figure (before, 10..15 drew row 9 again)."""
    ex = pl.Rope2DExplorer(grid=10, query_row=3)
    row, col = ex.controls["query_row"], ex.controls["query_col"]
    assert (row.min, row.max) == (0, 9) and (col.min, col.max) == (0, 9)
    seen = set()
    for r in range(row.min, row.max + 1):
        row.value = r
        seen.add(ex.shown_png())
    assert len(seen) == 10
    ex.controls["grid"].value = 6                 # a smaller grid: the query moves onto its edge
    assert (row.max, row.value) == (5, 5)
    ex.controls["grid"].value = 16
    assert (row.max, row.value) == (15, 5)
    ref = pl.Rope2DExplorer(grid=16, query_row=5)
    assert ex.shown_png() == ref.shown_png()
    with pytest.raises(ValueError, match=r"query_row must be in \[0, 9\]"):
        pl.Rope2DExplorer(grid=10, query_row=12)


def test_a_constraint_clamps_once_and_draws_once():
    ex = pl.AlibiExplorer(num_heads=8, head=6)
    before = ex.canvas.redraws
    pngs = []
    ex.image.observe(lambda change: pngs.append(change["new"]), names="value")
    ex.controls["num_heads"].value = 4
    assert ex.controls["head"].value == 4 and top_of(ex.controls["head"]) == 4
    assert len(pngs) == 1, "the clamped head slider must not redraw on its own"
    assert "head 4/4" in ex.view.title_heat.get_text()
    assert ex.canvas.redraws >= before


def test_a_control_that_cannot_change_the_figure_is_greyed_out():
    """09's ρ does nothing without scaling (the scaled curve is the plain one): greyed out
    then, live again once a scaling type is chosen; a live ρ changes the figure."""
    ex = pl.ContextExplorer()
    rho = ex.controls["factor"]
    assert ex.values["rope_type"] == "default" and rho.disabled
    before = ex.png()
    rho.value = 8
    assert ex.png() == before, "without scaling ρ must change nothing, or it should not be greyed out"
    ex.controls["rope_type"].value = "linear"
    assert not rho.disabled
    before = ex.png()
    rho.value = 2
    assert ex.png() != before
    ex.controls["rope_type"].value = "default"
    assert rho.disabled


def test_a_new_figure_family_is_a_spec_and_a_view():
    """What a new family writes: a view (draw once, update artists) and a spec; the explorer,
    its checks, widgets and frames follow."""

    class View:
        def __init__(self, fig):
            ax = fig.subplots()
            (self.line,) = ax.plot([0, 1], [0, 0])
            ax.set_ylim(0, 10)

        def artists(self):
            return [self.line]

        def update(self, y):
            self.line.set_ydata([y, y])

    class LineExplorer(Explorer):
        spec = ExplorerSpec(name="line", main="y", controls=(int_slider("y", 2, 0, 9, label="高度"),),
                            view=lambda fig, p: View(fig), update=lambda view, v, p: view.update(v["y"]))

    ex = LineExplorer(y=3)
    assert str(inspect.signature(LineExplorer)) == "(y=2)"
    with pytest.raises(ValueError, match=r"y must be in \[0, 9\]"):
        LineExplorer(y=10)
    pairs = ex.frame_pngs()
    assert [v for v, _ in pairs] == list(range(10)) and len({png for _, png in pairs}) == 10
    ex.controls["y"].value = 7
    assert ex.shown_png() == dict(pairs)[7]
    ex.close()


# ---------------------------------------------------------------------------
# Rules are declared, not hidden: a checker, what None stands for, a maximum that follows
# ---------------------------------------------------------------------------
def test_base_sliders_declare_their_check_and_a_name_alone_changes_nothing():
    from posenc.ui.engine.spec import Control, base_slider, log_slider

    with pytest.raises(ValueError, match=r"base must be > 1"):           # check_base, declared
        base_slider(10000.0, 1, 6).check(0.5)
    with pytest.raises(ValueError, match=r"base must be in \[10, 1e\+06\]"):
        log_slider("base", 10000.0, 1, 6).check(0.5)                   # no checker: a log slider like any other
    with pytest.raises(ValueError, match=r"base must be > 1"):
        pl.ClockExplorer(base=0.5)
    for cls in pl.EXPLORERS.values():
        for c in cls.spec.controls:
            assert isinstance(c, Control) and (c.kind != "log" or c.checker is not None), f"{cls.__name__}.{c.name}"


def test_what_none_stands_for_is_declared():
    from posenc.ui.engine.spec import choice_slider

    with pytest.raises(ValueError, match="k must be one of"):
        choice_slider("k", None, (1, 2, 3)).check(None)                 # a None default means nothing by itself
    assert choice_slider("k", None, (1, 2, 3), when_none="last").check(None) == 3
    with pytest.raises(ValueError, match="when_none"):
        choice_slider("k", None, (1, 2, 3), when_none="first")
    (step,) = pl.LearnedTableExplorer.spec.controls
    assert step.when_none == "last"


def test_the_learned_run_s_check_checks_and_its_default_is_declared_apart():
    """The run's check refuses what is not a run with snapshots, at once (it never trains);
    training the default run is the param's declared ``when_none``."""
    (run,) = pl.LearnedTableExplorer.spec.params
    assert run.default is None and callable(run.when_none)
    for bad in (None, "a run", object()):
        with pytest.raises(ValueError, match="run must be a learned TrainResult"):
            run.check(bad)


def test_a_maximum_that_follows_another_control_is_computed_in_one_place():
    from posenc.ui.engine.spec import int_slider

    head = int_slider("head", 1, 1, 16, max_follows=("num_heads", 0))
    assert head.top({"num_heads": 4}) == 4 and int_slider("n", 1, 1, 16).top({}) == 16
    with pytest.raises(ValueError, match=r"head must be in \[1, 4\]"):
        head.check(5, head.top({"num_heads": 4}))
    spec = pl.AlibiExplorer.spec
    assert spec.resolve(spec.controls, {"num_heads": 4, "seq_len": 8, "head": 7, "causal": False})["head"] == 4
    ex = pl.AlibiExplorer(num_heads=4, head=2)
    assert top_of(ex.controls["head"]) == 4 and ex.control_values("head", 4) == [1, 2, 3, 4]
    ex.controls["num_heads"].value = 12           # head (a grid axis) offers 1 .. 12, each at its own index
    assert [v for _, v in ex.controls["head"].options] == list(range(1, 13)) and ex.controls["head"].value == 2


def top_of(widget):
    """The largest value a slider offers now (its max, or its last option)."""
    return widget.options[-1][1] if hasattr(widget, "options") else widget.max


def test_one_constructor_for_every_explorer_with_the_spec_s_signature():
    assert all(cls.__init__ is Explorer.__init__ for cls in pl.EXPLORERS.values())
    assert str(inspect.signature(pl.RelativeExplorer)) == "(pos=5, k=3, d_model=8, base=10000.0)"
    ex = pl.RelativeExplorer(7, -4)                                    # by position, in that order
    assert (ex.values["pos"], ex.values["k"]) == (7, -4)
    with pytest.raises(TypeError):
        pl.RelativeExplorer(nope=1)


def test_the_readout_text_and_the_values_come_from_the_declared_control():
    """The main slider's options are the declared control's (value, readout) pairs, U+2212 for a minus."""
    ex = pl.RelativeExplorer()
    c = ex.declared["k"]
    assert ex.controls["k"].options == tuple(c.pairs()) and c.pairs()[0] == ("\u221250", -50)
    assert c.text(-3) == "\u22123" and ex.declared["pos"].text(3) == "3"
    assert ex.frames.values == c.values() == list(range(-50, 51))


# ---------------------------------------------------------------------------
# The frame grid and the steps, declared once in the spec
# ---------------------------------------------------------------------------
def test_a_grid_is_checked_where_it_is_declared():
    from posenc.ui.engine.spec import Axis, checkbox, step

    controls = (int_slider("x", 0, 0, 9), int_slider("y", 0, 0, 9), checkbox("on", False))
    view, update = (lambda fig, p: None), (lambda view, v, p: None)
    ok = ExplorerSpec(name="ok", controls=controls, view=view, update=update, main="x", grid=(Axis("on"),))
    assert [a.control for a in ok.axes()] == ["on", "x"], "the main slider is the innermost axis"
    for bad, words in [(dict(main="x", grid=(Axis("nope"),)), "grid axis 'nope' is not a control"),
                       (dict(main=None, grid=(Axis("y"),)), "a grid needs a main slider"),
                       (dict(main="x", grid=(Axis("x"), Axis("y"))), "must be the grid's innermost"),
                       (dict(main="x", grid=(Axis("y"), Axis("y"))), "listed twice"),
                       (dict(main="x", steps=(step(("z", 1)),)), "a step moves 'z'")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            ExplorerSpec(name="bad", controls=controls, view=view, update=update, **bad)


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_every_step_a_page_shows_moves_only_the_grid_to_values_the_page_holds(name):
    """A step a static page shows (``page=True``) moves only the controls of its explorer's
    frame grid, each to a value the page holds; a step a page cannot show moves some other
    control (else it should be shown). The fewest main-slider values a page holds here: 24, the
    browser suite's build (tools/build_site.py starts from 64 and goes lower only for a page over
    its budget; the browser suite performs every step on its pages)."""
    spec = pl.EXPLORERS[name].spec
    assert spec.steps, f"{name}: no steps declared"
    ex = default_explorer(name)
    axes = {a.control: a for a in spec.axes()}
    for k, s in enumerate(spec.steps):
        outside = [c for c in s.controls if c not in axes]
        if not s.page:
            assert outside, f"{name} step {k + 1}: every control is in the grid, so the page can show it"
            continue
        assert not outside, f"{name} step {k + 1} moves {outside}, outside the grid {list(axes)}"
        for control, value in s.moves:
            c = ex.declared[control]
            held = axes[control].page_values(c, c.nearest(ex.values[control]), limit=24)
            assert c.nearest(value) == value and value in held, f"{name} step {k + 1}: {control} = {value} not held"


def _notebook_section_of(cls):
    """The markdown of the notebook section (between its ``##`` headings) whose code makes an
    explorer of class ``cls``, and the notebook's stem."""
    from posenc.course.notebooks import cell_source, notebook_cells

    for stem, cells in notebook_cells().items():
        at = next((i for i, c in enumerate(cells) if c["cell_type"] == "code"
                   and f"pl.{cls.__name__}(" in cell_source(c)), None)
        if at is None:
            continue
        heading = lambda c: c["cell_type"] == "markdown" and re.search(r"^## ", cell_source(c), re.M)
        start = max([i for i in range(at) if heading(cells[i])], default=0)
        end = next((i for i in range(at + 1, len(cells)) if heading(cells[i])), len(cells))
        text = "\n".join(cell_source(c) for c in cells[start:end] if c["cell_type"] == "markdown")
        last = cell_source(cells[start]).split("\n## ")[-1] if start else ""
        return stem, text, last
    return None, "", ""


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_a_step_a_page_cannot_show_says_in_its_notebook_that_it_needs_jupyterlab(name):
    cls = pl.EXPLORERS[name]
    stem, text, _ = _notebook_section_of(cls)
    assert stem, f"{name}: no notebook makes it"
    off = [s for s in cls.spec.steps if not s.page]
    assert text.count("要在 JupyterLab 里运行笔记本才能") >= len(off), (
        f"{stem}: {len(off)} step(s) of {name} need JupyterLab, the text says so "
        f"{text.count('要在 JupyterLab 里运行笔记本才能')} time(s)")
