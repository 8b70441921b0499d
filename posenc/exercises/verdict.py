"""What a ``check_*`` helper returns (:class:`Verdict`), the one precision rule of every numeric
check, and the neutral prompt of an unanswered exercise. Checks are pure: the course's one call
:func:`posenc.course.catalogue.check` records a declared exercise's verdict in the learner's progress.

The rule a check states and the pipeline that grades an answer with it are
:mod:`posenc.exercises.rule`; how an answer is read (typed text included) is
:mod:`posenc.exercises.reading`.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np



@dataclass
class Verdict:
    """The answer to a ``check_*`` call: truthy when correct, with a hint when not.

    ``pending`` is True while the exercise is unanswered (the answer is still ``None``): the
    verdict is falsy but shows a neutral prompt, not 再想想. ``exercise`` is the declared id of
    the exercise it answers (set by :func:`posenc.course.catalogue.check`); a displayed verdict
    carries it in its own MIME type (:data:`MIME`), which is how the static edition's builder
    finds the exercises on a page.
    """

    ok: bool
    message: str
    pending: bool = False
    exercise: str | None = None
    #: "pending", "refused", "right", "slip", "rounding" or "wrong" (what the pipeline decided);
    #: a drill's also "error" (the reader's function raised) or "timeout" (it was stopped).
    kind: str = ""
    #: The :class:`~posenc.exercises.rule.Rule` that graded it (None for a hand-made verdict).
    rule: object = None
    #: True for a drill's verdict (the answer is a function: only a kernel can grade it).
    drill: bool = False

    def __bool__(self) -> bool:
        return self.ok

    @property
    def head(self) -> str:
        """正确 ✓, 再想想 ✗ or 待作答 (not answered yet)."""
        return "待作答" if self.pending else ("正确 ✓" if self.ok else "再想想 ✗")

    def __repr__(self) -> str:
        return f"{self.head} {self.message}"

    def _repr_html_(self) -> str:
        color = "#57606a" if self.pending else ("#1a7f37" if self.ok else "#b35900")
        lines = "; white-space:pre-line" if "\n" in self.message else ""   # a drill's traceback lines
        return (f"<div class='posenc-verdict' style='color:{color}{lines}'><b>{self.head}</b> "
                f"{html.escape(self.message)}</div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self), "text/html": self._repr_html_()}
        if self.exercise is not None:
            bundle[MIME] = {"exercise": self.exercise, "pending": self.pending,
                            "rule": None if self.rule is None else self.rule.to_json()}
            if self.drill:
                bundle[MIME]["drill"] = True
        return bundle


#: The MIME type a displayed verdict of a public check carries: ``{"exercise": key, "pending": bool,
#: "rule": the rule as JSON}``, and ``"drill": true`` for a drill (JupyterLab and nbconvert ignore
#: it; the static edition's builder reads it and grades the page's answers with the rule, or says
#: that a drill needs JupyterLab).
MIME = "application/vnd.posenc.exercise+json"


#: What an unanswered exercise shows (a neutral prompt: no verdict, no hint).
PROMPT = "把 None 换成你的答案，再运行这个单元格。"


def prompt() -> Verdict:
    """The verdict of an exercise not answered yet: falsy, neutral, no hint."""
    return Verdict(False, PROMPT, pending=True, kind="pending")


# ---------------------------------------------------------------------------
# The one precision rule of every numeric check
# ---------------------------------------------------------------------------
#: A numeric answer is right when it differs from the computed value by at most **one unit of
#: the last digit the question asks for**: a question that says 「保留 N 位小数」 asks for N
#: decimals (one unit = 10^−N); a question that says nothing asks for 3 significant digits (or
#: 4 decimals, whichever is looser). So rounding and truncating are both right, and a more
#: precise answer always is. An answer the rule refuses that is the right value rounded more
#: coarsely is told so (:func:`rounding_slip`), never told its formula is wrong. Slips are
#: recognised by the same rule (at the asked precision or 3 significant digits, whichever is
#: looser, since a slip's value may lie far from the right one's scale).
SIGNIFICANT_DIGITS = 3
DECIMALS = 4
#: The rule in one sentence, as the notebooks state it (notebook 02's 练习 section).
PRECISION_RULE = ("数值题的精度规则：与准确值相差不超过题目要求的最后一位的 1 个单位就算对。"
                  "题目写「保留 N 位小数」就看第 N 位小数；没写精度就看 3 位有效数字（或 4 位小数，取宽的那个）。"
                  "四舍五入或截断都算对，多写几位永远算对。")
#: The head of every rounding slip's message, in every notebook the same.
ROUNDING_SLIP = "方法对了，舍入太粗/位数不够"


def asked(decimals: int | None = None) -> str:
    """The precision a question asks for, in words (「保留 4 位小数」 / 「保留 3 位有效数字（或 4 位小数）」)."""
    if decimals is None:
        return f"保留 {SIGNIFICANT_DIGITS} 位有效数字（或 {DECIMALS} 位小数）"
    return f"保留 {decimals} 位小数"


def tolerance(expected, decimals: int | None = None):
    """The largest error the precision rule allows for ``expected`` (elementwise for arrays).

    Without ``decimals``: ``max(10^(E - 2), 10^-4)`` with ``E = floor(log10 |expected|)``, one
    unit in the 3rd significant digit or in the 4th decimal. With ``decimals`` (the question
    asks for that many decimals): ``10^-decimals``, one unit in the last asked-for decimal.
    The rule under every numeric ``check_*`` (stated in notebook 02_sinusoidal_hand_calculation).
    """
    v = np.abs(np.asarray(expected, dtype=float))
    if decimals is not None:
        tol = np.full(v.shape, 10.0 ** -decimals)
    else:
        with np.errstate(divide="ignore"):
            e = np.floor(np.log10(np.where(v > 0, v, 1.0)))
        tol = np.maximum(np.where(v > 0, 10.0 ** (e - (SIGNIFICANT_DIGITS - 1)), 0.0), 10.0 ** -DECIMALS)
    tol = tol * (1 + 1e-9) + 1e-12         # a typed 2.06 is not exactly 2.06 in binary
    return float(tol) if tol.shape == () else tol


def agrees(got, expected, decimals: int | None = None) -> bool:
    """True when ``got`` (a number or array) meets the precision rule for ``expected``
    (see :func:`tolerance`)."""
    got = np.asarray(got, dtype=float)
    expected = np.asarray(expected, dtype=float)
    return bool(got.shape == expected.shape and np.all(np.abs(got - expected) <= tolerance(expected, decimals)))


def slip_agrees(got, value, decimals: int | None = None) -> bool:
    """True when ``got`` is a slip's ``value`` by the rule: at 3 significant digits (or 4
    decimals), or at the asked ``decimals`` when that is looser and the value keeps at least 2
    digits at that precision (a slip's value may lie far from the right one's scale)."""
    got = np.asarray(got, dtype=float)
    value = np.asarray(value, dtype=float)
    if got.shape != value.shape:
        return False
    tol = tolerance(value)
    if decimals is not None:
        tol = np.where(np.abs(value) >= 10.0 ** (1 - decimals), np.maximum(tol, tolerance(value, decimals)), tol)
    return bool(np.all(np.abs(got - value) <= tol))


def _roundings(value: float, decimals: int | None = None):
    """(description, value) for the coarser roundings and truncations of ``value`` a learner
    may type that still keep 2 significant digits: 2 significant digits, 0 … (asked − 1) decimals."""
    out = []
    if value == 0 or not math.isfinite(value):
        return out
    e = math.floor(math.log10(abs(value)))
    units = [("2 位有效数字", 10.0 ** (e - 1))]
    units += [(f"{places} 位小数" if places else "整数", 10.0 ** -places)
              for places in range(DECIMALS if decimals is None else decimals)
              if 10.0 ** -places <= 10.0 ** (e - 1)]          # at least 2 significant digits kept
    for what, unit in units:
        out.append((what, round(value / unit) * unit))
        out.append((what, math.trunc(value / unit) * unit))
    return out


def _rounded_as(got: float, expected: float, decimals: int | None) -> str | None:
    """How ``got`` rounds ``expected`` too coarsely (「2 位有效数字」, 「3 位小数」, …), else None."""
    for what, value in _roundings(expected, decimals):
        if value != 0 and abs(got - value) <= 1e-9 * max(abs(value), 1.0) and not agrees(value, expected, decimals):
            return what
    return None


def rounding_slip(got, expected, decimals: int | None = None) -> str | None:
    """The one message for an answer that is the computed value rounded (or truncated) too
    coarsely, else None. Only for answers the rule refuses: each number the rule refuses
    equals its computed value rounded (or truncated) to 2 significant digits or to fewer
    decimals than asked, or (one number) lies within 2 % of it (a step rounded too early).
    The message starts with :data:`ROUNDING_SLIP` in every notebook."""
    got_arr, exp_arr = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got_arr.shape != exp_arr.shape or agrees(got_arr, exp_arr, decimals):
        return None
    tail = f"这道题要{asked(decimals)}，四舍五入或截断都行；中间步骤不要先舍入。"
    whats = []
    for g, x in zip(got_arr.ravel(), exp_arr.ravel()):
        if agrees(g, x, decimals):
            continue
        what = _rounded_as(float(g), float(x), decimals)
        if what is None:
            whats = None
            break
        whats.append(what)
    if whats:
        return f"{ROUNDING_SLIP}：这像是把结果保留到了{' ' if whats[0][0].isdigit() else ''}{whats[0]}。{tail}"
    if exp_arr.shape == () and float(exp_arr) != 0 and abs(float(got_arr) - float(exp_arr)) <= 0.02 * abs(float(exp_arr)) * (1 + 1e-9):
        gap = abs(float(got_arr) - float(exp_arr)) / abs(float(exp_arr))
        return f"{ROUNDING_SLIP}：很接近（差 {gap:.1%}），像是中间步骤舍入得太早。{tail}"
    return None
