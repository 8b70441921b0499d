"""What a ``check_*`` helper returns (:class:`Verdict`), the one precision rule of every numeric
check, and the one pipeline every check runs (:func:`grade`).

A check computes the right answer and a table of typical slips, then hands both to
:func:`grade`, which runs the same five steps for every exercise of the course:

1. **read** the learner's answer as the kind the question asks (a number, numbers of a shape,
   a whole number, a set of whole numbers, a choice);
2. **refuse** what cannot be read: ``None`` (not answered yet) gets a neutral prompt, anything
   else a message saying what the answer should look like;
3. **agree**: a right answer (numbers by :func:`agrees`, the precision rule; whole numbers and
   choices exactly) gets 正确 and the worked result;
4. **slips**: the first entry of the check's slip table the answer matches names the slip; a
   number the rule refuses that is the right value rounded too coarsely gets the one rounding
   message (:func:`rounding_slip`), in every notebook the same;
5. **wrong**: anything else gets the check's generic hint.

Every public ``check_*`` is wrapped by :func:`recorded`, which writes its result to the
learner's progress file (:mod:`posenc.course.progress`).
"""
from __future__ import annotations

import contextvars
import functools
import html
import inspect
import math
import numbers
from dataclasses import dataclass

import numpy as np


@dataclass
class Verdict:
    """The answer to a ``check_*`` call: truthy when correct, with a hint when not.

    ``pending`` is True while the exercise is unanswered (the answer is still ``None``): the
    verdict is falsy but shows a neutral prompt, not 再想想. ``exercise`` is the key a public
    check records it under (:func:`exercise_id`); a displayed verdict carries it in its own
    MIME type (:data:`MIME`), which is how the static edition's builder finds the exercises on
    a page.
    Introduced in notebook 01_permutation_invariance.
    """

    ok: bool
    message: str
    pending: bool = False
    exercise: str | None = None

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
        return (f"<div class='posenc-verdict' style='color:{color}'><b>{self.head}</b> "
                f"{html.escape(self.message)}</div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self), "text/html": self._repr_html_()}
        if self.exercise is not None:
            bundle[MIME] = {"exercise": self.exercise, "pending": self.pending}
        return bundle


#: The MIME type a displayed verdict of a public check carries: ``{"exercise": key, "pending": bool}``
#: (JupyterLab and nbconvert ignore it; the static edition's builder reads it).
MIME = "application/vnd.posenc.exercise+json"


#: What an unanswered exercise shows (a neutral prompt: no verdict, no hint).
PROMPT = "把 None 换成你的答案，再运行这个单元格。"


def prompt() -> Verdict:
    """The verdict of an exercise not answered yet: falsy, neutral, no hint."""
    return Verdict(False, PROMPT, pending=True)


# ---------------------------------------------------------------------------
# Reading an answer
# ---------------------------------------------------------------------------
def _normalise(value):
    """One reading of any answer, tagged so that True never equals 1 and "2" never equals 2.

    Strings lose surrounding spaces, whole numbers become ints (``2.0 -> 2``), lists, tuples
    and arrays become tuples of normalised items.
    """
    if isinstance(value, str):
        return ("str", value.strip())
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        return ("num", int(v) if math.isfinite(v) and v.is_integer() else v)
    if isinstance(value, (list, tuple, np.ndarray)):
        items = value.tolist() if isinstance(value, np.ndarray) else value
        return ("seq", tuple(_normalise(v) for v in items))
    if isinstance(value, (set, frozenset)):   # order does not matter: a canonical order
        return ("seq", tuple(sorted((_normalise(v) for v in value), key=repr)))
    return ("other", repr(value))


def _numbers(tagged):
    """Nested lists of the numbers in a normalised answer, or None if anything is not a number."""
    kind, v = tagged
    if kind == "num":
        return v
    if kind == "seq":
        items = [_numbers(t) for t in v]
        return None if any(i is None for i in items) else items
    return None


def _read_answer(answer, kind: str, shape=()):
    """The reader's ``answer`` read as ``kind``, or None when it cannot be read that way.

    ``"array"`` (or ``"number"``): finite numbers of the given ``shape`` (a float array;
    ``shape=()`` is one number); ``"int"``: one whole number; ``"ints"``: a whole number or a
    list of them (a set); ``"choice"``: the normalised value itself, for comparing with the
    right choice.
    """
    tagged = _normalise(answer)
    if kind == "choice":
        return tagged
    nums = _numbers(tagged)
    if nums is None:
        return None
    if kind in ("array", "number"):
        try:
            arr = np.asarray(nums, dtype=float)
        except ValueError:    # ragged lists
            return None
        return arr if arr.shape == tuple(shape) and np.all(np.isfinite(arr)) else None
    flat = nums if isinstance(nums, list) else [nums]
    if kind == "int":
        return nums if isinstance(nums, int) else None
    if kind == "ints":
        return set(flat) if all(isinstance(x, int) for x in flat) else None
    raise ValueError(f"unknown answer kind {kind!r} / 不认识的答案类型 {kind!r}")


def _shown(answer) -> str:
    """The learner's answer as they typed it, roughly: numbers to 6 significant digits."""
    def fmt(tagged) -> str:
        kind, v = tagged
        if kind == "num":
            return f"{v:.6g}" if isinstance(v, float) else str(v)
        if kind == "seq":
            return "[" + ", ".join(fmt(t) for t in v) + "]"
        if kind == "str":
            return repr(v)
        return str(v)

    return fmt(_normalise(answer))


def wrong_verdict(answer, slip: str) -> Verdict:
    """再想想, naming what the learner entered and the slip it shows."""
    return Verdict(False, f"你填的是 {_shown(answer)}：{slip}".strip())


def _reading(answer, kind: str, shape=(), expected: str = "答案应是一个数。"):
    """``(value, None)`` when the answer reads as ``kind`` (see :func:`_read_answer`); otherwise
    ``(None, verdict)``: the neutral prompt for ``None``, or ``expected`` (what the answer should
    look like) after the learner's entry. Steps 1-2 of :func:`grade`, for checks that need the
    value before grading it."""
    if answer is None:
        return None, prompt()
    value = _read_answer(answer, kind, shape)
    if value is None:
        return None, wrong_verdict(answer, expected)
    return value, None


def read_letters(answer, allowed: str):
    """A set of option letters from "bd", "b, d", ["b", "d"], {"b"}, "" ...; None when the answer
    is not letters, or holds a letter outside ``allowed``."""
    if isinstance(answer, str):
        letters = [c for c in answer.lower() if c.isalpha()]
    elif isinstance(answer, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in answer):
        letters = [c for x in answer for c in x.lower() if c.isalpha()]
    else:
        return None
    return set(letters) if set(letters) <= set(allowed) else None


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


# ---------------------------------------------------------------------------
# The pipeline: read -> refuse -> agree -> slips -> wrong
# ---------------------------------------------------------------------------
_NUMERIC = ("number", "array")


def _said(message, value) -> str:
    return message(value) if callable(message) else message


def grade(answer, right, *, read: str = "number", decimals: int | None = None,
          expected: str = "答案应是一个数。", ok="与计算结果一致。", slips=(),
          wrong="与计算结果不一致，检查每一步。", agree=None, valid=None, letters: str = "") -> Verdict:
    """The one pipeline of every ``check_*``: read -> refuse -> agree -> slips -> wrong.

    ``read`` is what the question asks for: ``"number"`` (numbers of ``right``'s shape, graded
    by the precision rule :func:`agrees` at ``decimals``), ``"int"``, ``"ints"`` (a set of
    whole numbers), ``"letters"`` (a set of the option ``letters``, from "bd", ["b", "d"], …;
    ``right`` is a set) or ``"choice"`` (any value, compared after normalising). ``expected`` says
    what an unreadable answer should look like; ``valid(value)`` (optional) refuses a readable
    answer outside the allowed ones with ``expected`` too. ``agree(value)`` (optional) replaces
    the comparison with ``right`` (e.g. an angle plus whole turns). ``ok`` and ``wrong`` are
    messages, or functions of the value read. ``slips`` is the check's table of typical slips:
    ``(value, message)`` pairs (a number matches by the rule via :func:`slip_agrees`, anything
    else exactly; a slip equal to the right answer never fires) and functions
    ``f(value) -> message | None`` for slips no single value describes; every slip the answer
    matches is named (one number can come from two slips).
    A number no slip explains that is the right value rounded too coarsely gets
    :func:`rounding_slip`. Introduced in notebook 01_permutation_invariance.
    """
    if answer is None:
        return prompt()
    numeric = read in _NUMERIC
    if numeric:
        right = np.asarray(right, dtype=float)
        value = _read_answer(answer, "array", right.shape)
    elif read == "choice":
        value = _read_answer(answer, "choice")
        right = _read_answer(right, "choice")
    elif read == "letters":
        value, right = read_letters(answer, letters), set(right)
    else:
        value = _read_answer(answer, read)
    if value is None or (valid is not None and not valid(value)):
        return wrong_verdict(answer, expected)
    same = agree if agree is not None else \
        (lambda v: agrees(v, right, decimals)) if numeric else (lambda v: v == right)
    if same(value):
        return Verdict(True, _said(ok, value))
    named = []                  # every slip the answer matches: one number can come from two slips
    for entry in slips:
        if callable(entry):
            message = entry(value)
        else:
            slip, message = entry
            if numeric:
                hit = np.shape(slip) == right.shape and not agrees(slip, right, decimals) \
                    and slip_agrees(value, slip, decimals)
            else:
                slip = _read_answer(slip, "choice") if read == "choice" else slip
                hit = slip is not None and slip != right and value == slip
            message = _said(message, value) if hit else None
        if message and message not in named:
            named.append(message)
    if named:
        return wrong_verdict(answer, named[0] if len(named) == 1 else "可能是两种失误之一。" + " 或者：".join(
            f"{k}) {m}" for k, m in zip("①②③④⑤⑥", named)))
    if numeric:
        message = rounding_slip(value, right, decimals)
        if message:
            return wrong_verdict(answer, message)
    return wrong_verdict(answer, _said(wrong, value))


# ---------------------------------------------------------------------------
# Progress: every public check records its result
# ---------------------------------------------------------------------------
_DEPTH = contextvars.ContextVar("posenc_check_depth", default=0)


def exercise_id(name: str, arguments: dict, id_args=None) -> str:
    """The key an exercise is recorded under: the check's name and its arguments except the
    answer (defaults filled in), e.g. ``check_pe(pos=4, d_model=2, base=10000, word=None)``.
    ``id_args`` (optional) names the only arguments that identify it."""
    keep = [(k, v) for k, v in arguments.items() if k != "answer" and (id_args is None or k in id_args)
            and not (id_args is not None and v is None)]
    return f"{name}(" + ", ".join(f"{k}={_shown(v)}" for k, v in keep) + ")"


#: Every public check by name (filled by :func:`recorded`): what the course's notebook reader
#: (:mod:`posenc.course.notebooks`) binds an exercise cell's call to.
CHECKS: dict = {}


def recorded(check=None, *, id_args=None):
    """Decorate a public ``check_*``: its verdict is recorded in the learner's progress
    (:func:`posenc.course.progress.record_check`) under :func:`exercise_id`, unless the exercise is
    unanswered (a pending verdict) or the check runs inside another check. Recording never
    raises. The wrapper's ``exercise_id(*args, **kwargs)`` is the key a call would be recorded
    under. Introduced in notebook 01_permutation_invariance."""
    if check is None:
        return functools.partial(recorded, id_args=id_args)
    signature = inspect.signature(check)

    def key(*args, **kwargs) -> str:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        keys = id_args(bound.arguments) if callable(id_args) else id_args
        return exercise_id(check.__name__, bound.arguments, keys)

    @functools.wraps(check)
    def wrapper(*args, **kwargs):
        token = _DEPTH.set(_DEPTH.get() + 1)
        try:
            verdict = check(*args, **kwargs)
        finally:
            _DEPTH.reset(token)
        if _DEPTH.get() == 0 and isinstance(verdict, Verdict):
            verdict.exercise = key(*args, **kwargs)
            if not verdict.pending:
                from ..course import progress

                progress.record_check(verdict.exercise, verdict)
        return verdict

    wrapper.exercise_id = key
    CHECKS[check.__name__] = wrapper
    return wrapper


# ---------------------------------------------------------------------------
# The generic checks: a number, a choice, a set of letters
# ---------------------------------------------------------------------------
def letter_set_verdict(answer, right: set, allowed: str, describe, *, praise: str, extra: str,
                        missing: str, example: str = "ab") -> Verdict:
    """Check a multiple-answer question answered with option letters (:func:`grade` with
    ``read`` as letters).

    ``right`` is the set of right letters, ``describe(x)`` says what option x is (and what was
    measured for it). Right: ``praise`` then every option described. Wrong: each letter picked
    wrongly gets ``describe(x)：extra``, each letter missed ``漏了 describe(x)：missing`` (``missing``
    is a string, or a callable giving each letter its own reason).
    """
    def reasons(got):
        out = [f"{describe(x)}：{extra}" for x in sorted(got - right)]
        out += [f"漏了 {describe(x)}：{missing(x) if callable(missing) else missing}" for x in sorted(right - got)]
        return "；".join(out) + "。"

    return grade(answer, right, read="letters", letters=allowed,
                 expected=f"答案应是 {allowed[0]} 到 {allowed[-1]} 中的字母，例如 \"{example}\"。",
                 ok=praise + "；".join(describe(x) for x in allowed) + "。", wrong=reasons)


@recorded
def check_value(answer, expected, *, decimals: int | None = None, hint: str = "", slips=None) -> Verdict:
    """Compare a reader's number (or list of numbers) with the computed one, by the precision
    rule (:func:`tolerance`).

    ``slips`` maps a message to a wrong value a typical slip gives; an answer matching one gets
    that message; an answer rounded too coarsely is told so (:func:`rounding_slip`). A wrong
    answer's message names what was entered. The generic numeric check.
    Introduced in notebook 01_permutation_invariance.
    """
    expected = np.asarray(expected, dtype=float)
    what = "一个数" if expected.shape == () else f"形状为 {expected.shape} 的一组数"
    table = [(value, message) for message, value in (slips or {}).items()]
    return grade(answer, expected, decimals=decimals, expected=f"答案应是{what}。{hint}",
                 ok=f"与计算结果一致（{asked(decimals)}即可）。", slips=table,
                 wrong=hint or "与计算结果不一致，检查每一步。")


def _choice_id(arguments: dict):
    return ("exercise",) if arguments.get("exercise") else ("options",)


@recorded(id_args=_choice_id)
def check_choice(answer, correct, *, hint: str = "", options=None, hints=None, exercise: str | None = None) -> Verdict:
    """Compare a reader's choice (a row index, a word, True/False, a tuple) with the computed one.

    Strings are compared without surrounding spaces, whole floats equal ints (``2.0 == 2``),
    lists and tuples element by element; True/False never equal 1/0. ``options`` (optional)
    lists the allowed answers, and an answer outside them gets a message naming them.
    ``hints`` (optional) maps a wrong option to what picking it shows, so the feedback reacts
    to the option picked; other wrong answers get ``hint``. ``exercise`` (optional) names the
    exercise in the learner's progress record (e.g. ``"01.1"``). Never raises on a wrong answer;
    an unanswered one (``None``) gets the neutral prompt, never the hint.
    Introduced in notebook 01_permutation_invariance.
    """
    keys = None if options is None else [_read_answer(o, "choice") for o in options]
    if keys is not None and _read_answer(correct, "choice") not in keys:
        raise ValueError(f"correct = {correct!r} is not among options = {options!r} / "
                         f"correct 必须是 options 之一")
    shown = "" if options is None else " / ".join(repr(o) for o in options)
    return grade(answer, correct, read="choice", expected=f"答案应是 {shown} 之一。{hint}",
                 valid=None if keys is None else (lambda v: v in keys),
                 ok=f"答案是 {correct!r}。", slips=list((hints or {}).items()),
                 wrong=hint or "与计算结果不一致，再推一遍。")
