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
        if c.name == spec.main:
            values = ([o[1] if isinstance(o, tuple) else o for o in w.options] if hasattr(w, "options")
                      else list(range(w.min, w.max + 1, w.step)))
            assert values == c.values(), c.name
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
    assert ex.controls["head"].value == 4 and ex.controls["head"].max == 4
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
    assert ex.controls["head"].max == 4 and ex.control_values("head", 4) == [1, 2, 3, 4]


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
