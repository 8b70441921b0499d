"""What an explorer is, as data: its controls (name, kind, range or options, default, label,
constraints between them), its main slider and frame grid, the steps its notebook asks for,
its figure size and its view. No widgets here.

Everything else is derived from an :class:`ExplorerSpec` (see
:mod:`posenc.ui.engine.explorer`): the ipywidgets explorer, the frames (the view drawn on a
second figure), the constructor's signature and argument checks, the values a test or a
benchmark sweeps, and the frames a static page shows. What a control can take is derived here
and only here: :meth:`Control.values` (every value, the one grid formula), :meth:`Control.top`
(the one place a maximum follows another control), :meth:`Control.text` (the readout),
:meth:`Control.spread` (the values a sweep sets). A figure family declares

.. code-block:: python

    ROPE = ExplorerSpec(
        name="rope", main="pos", figsize=(7.6, 3.0),
        params=(Param("n", 20, lambda v: check_int("n", v, 0, 40)),),
        controls=(int_slider("pos", 5, lambda p: p["n"] - 30, lambda p: p["n"] + 30,
                             label="q 的位置 m"), ..., base_slider(10000.0, 1, 5, step=0.25)),
        view=lambda fig, params: _RopeView(*fig.subplots(1, 2)),
        update=lambda view, values, params: view.update(...),
        grid=(Axis("i", page=(0, 1, 2, 3, 5, 7)), Axis("pos", count=21)),
        steps=(step(("pos", 16), ("pos", 24), see="..."), step(("base", 10.0), see="...", page=False)),
    )

    class RopeExplorer(Explorer):
        spec = ROPE

and nothing else: no constructor (every explorer has :meth:`Explorer.__init__
<posenc.ui.engine.explorer.Explorer.__init__>`, its signature :meth:`ExplorerSpec.signature`).
``params`` are constructor arguments that are not controls (fixed for the explorer's life);
``controls`` is a tuple of :class:`Control`;
``lo``/``hi``/``options`` of a control may be functions of the params when a range depends on them.
A control's ``label`` is its Chinese gloss: the widget reads ``pos（位置）`` (the parameter's name,
the gloss in brackets) when a CJK font is installed, else ``pos``; option labels are
``(zh, en)`` pairs.

The frame grid is declared once, here, and read by the live explorer (which controls follow the
hand in JupyterLab), the static build (what a page holds and lets a reader move) and the tests
(every step of the notebook is on the page or says it needs JupyterLab): ``grid`` lists the
controls the notebook's steps move (:class:`Axis`, outermost first; the main slider is the
innermost) with the values that teach on a page; ``steps`` lists those steps (:class:`Step`).

Importing this module imports neither ipywidgets nor matplotlib.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from ...validate import bilingual, check_base, check_bool, check_int, check_one_of, check_real, check_slider_value

#: Control kinds: an integer slider, a float slider, a log slider (powers of 10), a slider over
#: a list of options, a dropdown, a checkbox.
KINDS = ("int", "float", "log", "choice", "dropdown", "checkbox")


@dataclass(frozen=True)
class Control:
    """One control of an explorer: what its widget shows and which values it accepts.

    ``int``/``float``: ``lo`` .. ``hi`` in steps of ``step``; ``log``: 10**lo .. 10**hi, the
    exponent in steps of ``step``; ``choice``/``dropdown``: ``options`` (with ``option_labels``
    shown instead of the values when given); ``checkbox``: True/False. ``max_follows`` =
    ``(other, offset)``: this control's maximum is ``other``'s value + ``offset`` (a
    constraint between controls, e.g. ALiBi's ``head <= num_heads``; see :meth:`top`).
    ``active_when(values)``: False while this control cannot change the figure (its widget is
    greyed out then, e.g. 09's factor ρ while no scaling is chosen). ``checker(value, lo,
    hi)``: a declared check used instead of the kind's own (``base``'s slider:
    :func:`~posenc.validate.check_base`, see :func:`base_slider`). ``when_none``: what a
    ``None`` argument stands for (``"last"``: the last option). ``widget`` holds extra
    ipywidgets keyword arguments that only change how the widget looks or reacts
    (``indent``, ``continuous_update``, ``readout_format``) and ``width`` a CSS width.
    ``changes``: the parts of the view (names of its ``parts()``) this control can change;
    a move of it redraws those parts only, every other animated artist comes from a cached
    layer (:meth:`ExplorerSpec.changed_artists`). None: it may change any of them (all are
    redrawn). tests/test_widgets_changes.py holds every declaration to the pixels of a full
    redraw.
    """

    name: str
    kind: str
    default: Any
    label: Any = None           # the Chinese gloss: shown as "name（gloss）" (just the name without a CJK font)
    lo: Any = None
    hi: Any = None
    step: Any = 1
    options: tuple = ()
    option_labels: tuple = ()   # one (zh, en) or str per option
    max_follows: tuple | None = None
    active_when: Callable | None = None
    checker: Callable | None = None
    when_none: str | None = None
    widget: dict = field(default_factory=dict)
    width: str | None = None
    changes: tuple | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(bilingual(f"control {self.name}: kind must be one of {KINDS}, got {self.kind!r}",
                                       f"控件 {self.name} 的 kind 只能是 {KINDS} 之一，收到的是 {self.kind!r}"))
        if self.when_none not in (None, "last") or (self.when_none and self.kind not in ("choice", "dropdown")):
            raise ValueError(bilingual(f"control {self.name}: when_none must be None or 'last' (a control with "
                                       f"options), got {self.when_none!r}",
                                       f"控件 {self.name} 的 when_none 只能是 None 或 'last'（有选项的控件），"
                                       f"收到的是 {self.when_none!r}"))

    def bind(self, params: dict) -> Control:
        """This control for the explorer's params: ``lo``, ``hi`` and ``options`` given as
        functions of the params (e.g. RoPE's ``pos`` range around ``n``) evaluated."""
        from dataclasses import replace

        fields = {k: getattr(self, k)(params) for k in ("lo", "hi", "options", "option_labels")
                  if callable(getattr(self, k))}
        if "options" in fields:
            fields["options"] = tuple(fields["options"])
        return replace(self, **fields) if fields else self

    # -- values -------------------------------------------------------------------
    def top(self, values: dict):
        """The highest value the control can take now: ``hi``, or, for a control whose
        maximum follows another (``max_follows``), that control's value in ``values`` plus the
        offset. The one place the constraint is computed: the argument check, the clamp
        (:meth:`ExplorerSpec.resolve`), the widget's ``max`` and the sweeps read it here."""
        if self.max_follows is None:
            return self.hi
        other, offset = self.max_follows
        return values[other] + offset

    def check(self, value, top=None):
        """``value`` if the control can show it (as its type), else the course's TypeError or
        ValueError naming the control and its range; ``top``: the maximum now (:meth:`top`)."""
        if value is None and self.when_none == "last":
            return self.options[-1]
        hi = self.hi if top is None else top
        if self.checker is not None:
            lo, hi = (10.0 ** self.lo, 10.0 ** hi) if self.kind == "log" else (self.lo, hi)
            return self.checker(value, lo, hi)
        if self.kind == "int":
            if self.step == 1:
                return check_int(self.name, value, self.lo, hi)
            return check_slider_value(self.name, value, self.lo, hi, self.step)
        if self.kind == "float":
            return check_slider_value(self.name, value, self.lo, hi, self.step)
        if self.kind == "log":
            return check_real(self.name, value, minimum=10.0 ** self.lo, maximum=10.0 ** hi)
        if self.kind == "checkbox":
            return check_bool(self.name, value)
        return check_one_of(self.name, value, self.options)

    def values(self) -> list:
        """Every value the control can take, in order (a log slider: the powers of 10 its
        widget steps through, ``10 ** (lo + k * step)``)."""
        if self.kind == "int":
            return list(range(self.lo, self.hi + 1, self.step))
        if self.kind == "float":
            n = int(round((self.hi - self.lo) / self.step))
            return [round(self.lo + k * self.step, 10) for k in range(n + 1)]
        if self.kind == "log":
            n = int(round((self.hi - self.lo) / self.step))
            return [float(10.0 ** round(self.lo + k * self.step, 10)) for k in range(n + 1)]
        if self.kind in ("choice", "dropdown"):
            return list(self.options)
        if self.kind == "checkbox":
            return [False, True]
        return None

    def text(self, value) -> str:
        """How the widget's readout shows ``value``: its option label, a number in the
        widget's ``readout_format`` with the minus sign U+2212 (what the browser's d3-format
        readout writes, not "-"), else ``str(value)``."""
        if self.option_labels:
            return _shown(self.option_labels[list(self.options).index(value)])
        if self.kind == "checkbox":
            return _shown(("是", "on") if value else ("否", "off"))
        if self.kind == "log":
            return format(value, self.widget.get("readout_format", ".3g"))
        if self.kind in ("int", "float"):
            fmt = self.widget.get("readout_format", "d" if self.kind == "int" else ".2f")
            return format(value, fmt).replace("-", "\u2212")
        return str(value)

    def pairs(self) -> list[tuple[str, Any]]:
        """Every ``(readout text, value)`` of the control, in order."""
        return [(self.text(v), v) for v in self.values()]

    def nearest(self, value):
        """The value of :meth:`values` nearest to ``value`` (the value itself for a control
        whose values are not numbers; a log slider's nearest in the exponent)."""
        import math

        values = self.values()
        if value in values or isinstance(value, (str, bool)) or value is None:
            return value
        if self.kind == "log":
            return min(values, key=lambda v: abs(math.log10(v) - math.log10(value)))
        return min(values, key=lambda v: abs(v - value))

    def spread(self, n: int, current, top=None, *, listed=False, max_options: int | None = 24) -> list:
        """Values spread over the control's whole range, from one end to the other: what tests
        and tools set a control to when they sweep it (``current``: its value now; ``top``:
        its maximum now, :meth:`top`).

        ``listed`` (a widget that lists its values: a dropdown, a selection slider; True: the
        control's values, or the list the widget offers): every value, or ``n`` of them end to
        end when there are more than ``max_options`` (None: never fewer than all). A checkbox:
        the other state, then ``current``. A slider: ``n`` values from its minimum to its
        maximum, evenly spaced (in the exponent for a log slider), rounded to its step.
        """
        import numpy as np

        if listed is not False or self.kind in ("choice", "dropdown"):
            values = list(listed) if isinstance(listed, (list, tuple)) else self.values()
            if max_options is not None and len(values) > max_options:
                return [values[round(k * (len(values) - 1) / (n - 1))] for k in range(n)]
            return values
        if self.kind == "checkbox":
            return [not current, current]
        hi = self.hi if top is None else top
        if self.kind == "log":
            return [10.0 ** e for e in np.linspace(self.lo, hi, n)]
        cast = int if self.kind == "int" else float
        return [cast(round(v / self.step) * self.step) for v in np.linspace(self.lo, hi, n)]

    def description(self) -> str:
        """The widget's label: the parameter's name with its Chinese gloss in brackets,
        ``pos（位置）`` (the name alone without a CJK font)."""
        if self.label is None:
            return self.name
        return _shown((f"{self.name}（{self.label}）", self.name))


def _shown(text) -> str:
    """A (zh, en) label as the reader sees it (English without a CJK font), or a str as is."""
    if isinstance(text, tuple):
        from ..look import label  # the course's fonts (not a figure family)

        return label(*text)
    return text


# -- declaring controls: one call per control ------------------------------------------
def int_slider(name, default, lo, hi, step=1, label=None, **kw) -> Control:
    return Control(name, "int", default, label, lo, hi, step, **kw)


def float_slider(name, default, lo, hi, step, label=None, **kw) -> Control:
    return Control(name, "float", default, label, lo, hi, step, **kw)


def log_slider(name, default, lo_exp, hi_exp, step=0.1, label=None, **kw) -> Control:
    """A slider over 10**lo_exp .. 10**hi_exp."""
    return Control(name, "log", default, label, lo_exp, hi_exp, step, **kw)


def base_slider(default, lo_exp, hi_exp, step=0.1, label="底数", **kw) -> Control:
    """``base``'s slider everywhere: a log slider over 10**lo_exp .. 10**hi_exp whose values
    are checked as a frequency base (:func:`~posenc.validate.check_base`: a real number > 1)."""
    return log_slider("base", default, lo_exp, hi_exp, step, label, checker=check_base, **kw)


def choice_slider(name, default, options, label=None, option_labels=(), **kw) -> Control:
    """A slider over ``options`` (a tuple, or a function of the params). ``when_none="last"``
    with default None: the last option unless one is given."""
    return Control(name, "choice", default, label, options=_tuple(options), option_labels=_tuple(option_labels), **kw)


def dropdown(name, default, options, label=None, option_labels=(), **kw) -> Control:
    return Control(name, "dropdown", default, label, options=_tuple(options), option_labels=_tuple(option_labels), **kw)


def _tuple(x):
    return x if callable(x) else tuple(x)


def checkbox(name, default, label=None, **kw) -> Control:
    return Control(name, "checkbox", default, label, **kw)


@dataclass(frozen=True)
class Param:
    """A constructor argument that is not a control (fixed for the explorer's life):
    ``check(value)`` returns the value to use or raises the course's error (it checks, never
    computes); ``when_none()``, if given, makes the value a ``None`` argument stands for (e.g.
    the learned explorer's default run, trained once per session), checked like any other."""

    name: str
    default: Any
    check: Callable = lambda v: v
    when_none: Callable | None = None

    def accept(self, value):
        """``value`` checked (``when_none()`` in place of None when declared)."""
        if value is None and self.when_none is not None:
            value = self.when_none()
        return self.check(value)


@dataclass(frozen=True)
class Axis:
    """A control whose figures are drawn ahead of time (frames), and the values a static page
    holds for it: one axis of an explorer's frame grid (see :attr:`ExplorerSpec.grid`).

    A static page holds only the values that teach (:meth:`page_values`): ``page`` (every value
    when None), or for a long slider at most ``count`` of them, evenly spaced from end to end,
    with ``keep`` always among them (the integers around a carry, a step's target); the value
    a page starts at is always held. In JupyterLab the main slider offers every value, and
    another axis the values in ``live`` (:meth:`live_values`: by default every value of a
    control with at most :data:`LIVE_AXIS_VALUES`, else the page values); every value offered
    can get a frame (the fill draws the positions nearest the handles first, within the memory
    caps), so each of the grid's controls follows the hand once its frames are drawn.
    """

    control: str
    page: tuple | None = None
    count: int | None = None
    keep: tuple = ()
    live: tuple | None = None

    def page_values(self, control: Control, current, limit: int | None = None) -> list:
        """The values of ``control`` (this axis's, bound to the params) a static page holds, in
        order: ``page`` (or every value), thinned to ``min(count, limit)`` values: both ends,
        ``current`` and ``keep`` (those nearest ``current`` when not all fit) and the others
        spread evenly (:func:`spaced`)."""
        values = control.values()
        if self.page is not None:
            wanted = {control.nearest(v) for v in self.page}
            values = [v for v in values if v in wanted or v == current]
        cap = min(x for x in (self.count, limit, len(values)) if x is not None)
        if cap >= len(values):
            return values
        kept = {control.nearest(v) for v in self.keep} | {current}
        at = values.index(current) if current in values else 0
        # more kept than fit: the ones nearest the current value (it first)
        kept = sorted((j for j, v in enumerate(values) if v in kept), key=lambda j: (abs(j - at), j))[:max(1, cap - 2)]
        return [values[j] for j in spaced(len(values), cap, kept)]

    def live_values(self, control: Control, current) -> list:
        """The values an axis other than the main slider offers in JupyterLab, each with its
        frames: ``live``, else every value of a control with at most :data:`LIVE_AXIS_VALUES`,
        else the page values; and the value it starts at."""
        return _live_values(self, control, current)


#: In JupyterLab an axis of the grid (not the main slider) with at most this many values offers
#: every value; one with more, its declared ``live`` values or its page values (each value is a
#: Stack that follows the main slider: one more message from the browser per move of it).
LIVE_AXIS_VALUES = 12


def _live_values(axis, control, current) -> list:
    values = control.values()
    if axis.live is not None:
        wanted = {control.nearest(v) for v in axis.live} | {current}
        return [v for v in values if v in wanted]
    return values if len(values) <= LIVE_AXIS_VALUES else axis.page_values(control, current)


def spaced(n: int, count: int, kept=()) -> list[int]:
    """Indices of ``count`` of ``n`` values: both ends and every index in ``kept``, the others
    spread evenly over the gaps between them (a gap gets picks in proportion to its length;
    within a gap they are evenly spaced). More than ``count`` kept: the ends and all of them.

    >>> spaced(11, 5)
    [0, 2, 5, 8, 10]
    >>> spaced(11, 5, [4])
    [0, 2, 4, 7, 10]
    >>> spaced(40, 8, range(0, 5))
    [0, 1, 2, 3, 4, 16, 28, 39]
    """
    if n <= count:
        return list(range(n))
    fixed = sorted({0, n - 1, *kept})
    gaps = [(a, b) for a, b in zip(fixed, fixed[1:]) if b - a > 1]
    share = [0] * len(gaps)
    for _ in range(max(0, count - len(fixed))):
        open_ = [g for g, (a, b) in enumerate(gaps) if share[g] < b - a - 1]
        if not open_:
            break
        g = max(open_, key=lambda g: ((gaps[g][1] - gaps[g][0]) / (share[g] + 1), -g))
        share[g] += 1
    inner = [a + round(j * (b - a) / (k + 1)) for (a, b), k in zip(gaps, share) for j in range(1, k + 1)]
    return sorted({*fixed, *inner})


@dataclass(frozen=True)
class Step:
    """One step the notebook asks for after an explorer (a line of its 「试一试」 list): the
    controls it moves, in order, each to a value (``moves``: ``(control, value)`` pairs), and
    what the reader should see (``see``, one short phrase: the published list of steps). A
    step with ``page=False`` is one a static page cannot show (its line in the notebook says it
    needs JupyterLab); every other step's values are among its explorer's page values."""

    moves: tuple
    see: str = ""
    page: bool = True

    @property
    def controls(self) -> tuple:
        """The controls the step moves, each once, in order."""
        return tuple(dict.fromkeys(name for name, _ in self.moves))


def step(*moves, see: str = "", page: bool = True) -> Step:
    """A :class:`Step`: ``step(("start", 0), see="...")``."""
    return Step(tuple(moves), see, page)


@dataclass(frozen=True)
class ExplorerSpec:
    """An explorer as data (see the module docstring).

    ``view(fig, params) -> view``: make the axes on ``fig`` and the view object (its
    ``artists()`` are the animated artists unless ``animated`` says otherwise).
    ``update(view, values, params) -> dict | None``: update the artists for the control values
    (after constraints) and return readouts (values a reader may ask for, e.g. the hand
    calculation's table); ``extras`` names readouts shown as HTML under the controls, which
    follow the main slider like the figure. The view's ``parts()`` (``{name: artists}``) name
    groups of its animated artists; each control's ``changes`` names the parts it can change
    (the others are cached while it moves).
    ``main``: the slider whose figures are rendered ahead (frames); ``play``: the interval (ms)
    of a Play button that steps it in the browser. ``grid``: the frame grid, outermost axis
    first (:class:`Axis`; the main slider is the innermost, appended when not listed): each
    axis's figures are drawn ahead and switched in the browser, so the controls the notebook's
    steps use follow the hand in JupyterLab and work on a static page. ``steps``: the steps the
    notebook asks for after the explorer (:class:`Step`), in order.
    """

    name: str
    controls: tuple                         # of Control
    view: Callable
    update: Callable
    main: str | None = None
    figsize: tuple = (7.6, 3.0)
    arguments: tuple | None = None          # the constructor's argument order, when not controls-then-params
    params: tuple = ()
    animated: Callable | None = None
    extras: tuple = ()
    play: int | None = None
    grid: tuple = ()                        # of Axis, outermost first
    steps: tuple = ()                       # of Step

    def __post_init__(self):
        names = [c.name for c in self.controls]
        axes = [a.control for a in self.grid]
        en, zh = [], []       # each problem in both languages

        def problem(english, chinese):
            en.append(english)
            zh.append(chinese)

        for a in axes:
            if a not in names:
                problem(f"grid axis {a!r} is not a control", f"网格的轴 {a!r} 不是控件")
        if len(set(axes)) != len(axes):
            problem(f"a grid axis is listed twice: {axes}", f"网格里有重复的轴：{axes}")
        if axes and self.main is None:
            problem("a grid needs a main slider", "有网格就要有主滑块")
        if self.main in axes and axes[-1] != self.main:
            problem(f"the main slider {self.main!r} must be the grid's innermost (last) axis",
                    f"主滑块 {self.main!r} 必须是网格最里面（最后）的轴")
        for n in (n for s in self.steps for n in s.controls if n not in names):
            problem(f"a step moves {n!r}, which is not a control", f"某一步要动 {n!r}，它不是控件")
        if en:
            raise ValueError(bilingual(f"spec {self.name}: {'; '.join(en)}", f"探索器 {self.name} 的声明有误：{'；'.join(zh)}"))

    # -- declared data ------------------------------------------------------------
    def control_list(self, params: dict) -> tuple:
        """The controls for these (checked) params, in the order they are shown."""
        return tuple(c.bind(params) for c in self.controls)

    def control(self, name: str) -> Control:
        return next(c for c in self.controls if c.name == name)

    def axes(self) -> tuple:
        """The frame grid's axes, outermost first, the main slider last (none without a main);
        each holds on a page the values the steps shown there name (added to its ``keep``, and
        to its ``page`` when it lists one)."""
        from dataclasses import replace

        if self.main is None:
            return ()
        listed = tuple(a for a in self.grid if a.control != self.main)
        main = next((a for a in self.grid if a.control == self.main), Axis(self.main))
        out = []
        for a in (*listed, main):
            named = tuple(dict.fromkeys(v for s in self.steps if s.page for n, v in s.moves if n == a.control))
            out.append(replace(a, keep=(*a.keep, *named), page=None if a.page is None else (*a.page, *named),
                               live=None if a.live is None else (*a.live, *named)))
        return tuple(out)

    def signature(self) -> inspect.Signature:
        """The constructor's signature (what ``inspect.signature`` shows for the explorer
        class): the controls' and params' defaults, in ``arguments`` order (default: the
        controls as shown, then the params)."""
        defaults = {c.name: c.default for c in self.controls} | {p.name: p.default for p in self.params}
        names = self.arguments if self.arguments is not None else tuple(defaults)
        return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=defaults[n])
                                  for n in names])

    # -- derived: argument checks, constraints --------------------------------------
    def check_arguments(self, *args, **kwargs) -> tuple[dict, dict]:
        """The constructor's arguments checked: ``(params, control values)``. The params
        first, then each control's value against its range; a control whose maximum follows
        another is checked against that control's checked value (:meth:`Control.top`)."""
        bound = self.signature().bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        params = {p.name: p.accept(given[p.name]) for p in self.params}
        controls = self.control_list(params)
        checked = {}
        for c in sorted(controls, key=lambda c: c.max_follows is not None):   # the controls followed first
            checked[c.name] = c.check(given[c.name], c.top(checked))
        return params, {c.name: checked[c.name] for c in controls}

    def resolve(self, controls: tuple, values: dict) -> dict:
        """``values`` with every constraint applied (a dependent control clamped to :meth:`Control.top`)."""
        out = dict(values)
        for c in controls:
            if c.max_follows is not None:
                out[c.name] = min(out[c.name], c.top(out))
        return out

    def changed_artists(self, view, name: str):
        """The artists a move of control ``name`` can change: its declared ``changes`` parts of
        ``view`` (None: undeclared, every animated artist may have changed)."""
        parts = self.control(name).changes
        if parts is None:
            return None
        groups = view.parts()
        return [a for p in parts for a in groups[p]]

    def reserved(self) -> set:
        """Names the spec gives the explorer as attributes (params and extras)."""
        return {p.name for p in self.params} | set(self.extras)
