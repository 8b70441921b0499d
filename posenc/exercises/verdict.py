"""What a ``check_*`` helper returns (:class:`Verdict`), the one way answers are read, and
the two generic checks (a number, a choice) the others build on.
"""
from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass

import numpy as np


@dataclass
class Verdict:
    """The answer to a ``check_*`` call: truthy when correct, with a hint when not.

    Introduced in notebook 01_permutation_invariance.
    """

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return ("正确 ✓ " if self.ok else "再想想 ✗ ") + self.message

    def _repr_html_(self) -> str:
        from ..widgets import static

        if not self.ok and self.message.startswith(PLACEHOLDER) and static.active():
            # a static page: nobody can run this cell, so no 再想想 for an answer never given
            return f"<div class='posenc-verdict {static.HINT_CLASS}'>{html.escape(static.EXERCISE_HINT)}</div>"
        color = "#1a7f37" if self.ok else "#b35900"
        head = "正确 ✓" if self.ok else "再想想 ✗"
        return (f"<div class='posenc-verdict' style='color:{color}'><b>{head}</b> "
                f"{html.escape(self.message)}</div>")


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

    ``"array"``: finite numbers of the given ``shape`` (a float array; ``shape=()`` is one
    number); ``"int"``: one whole number; ``"ints"``: a whole number or a list of them (a set);
    ``"choice"``: the normalised value itself, for comparing with the right choice.
    """
    tagged = _normalise(answer)
    if kind == "choice":
        return tagged
    nums = _numbers(tagged)
    if nums is None:
        return None
    if kind == "array":
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


def _wrong(answer, slip: str) -> Verdict:
    """再想想, naming what the learner entered and the slip it shows."""
    return Verdict(False, f"你填的是 {_shown(answer)}：{slip}".strip())


PLACEHOLDER = "先把 None 换成你的答案，再运行这个单元格。"


def _reading(answer, kind: str, shape=(), expected: str = "答案应是一个数。"):
    """``(value, None)`` when the answer reads as ``kind`` (see :func:`_read_answer`); otherwise
    ``(None, verdict)``: the placeholder message for ``None``, or ``expected`` (what the
    answer should look like) after the learner's entry."""
    if answer is None:
        return None, Verdict(False, PLACEHOLDER)
    value = _read_answer(answer, kind, shape)
    if value is None:
        return None, _wrong(answer, expected)
    return value, None


def _letters(answer, allowed: str):
    """A set of option letters from "bd", "b, d", ["b", "d"], {"b"}, "" ...; None when the answer
    is not letters, or holds a letter outside ``allowed``."""
    if isinstance(answer, str):
        letters = [c for c in answer.lower() if c.isalpha()]
    elif isinstance(answer, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in answer):
        letters = [c for x in answer for c in x.lower() if c.isalpha()]
    else:
        return None
    return set(letters) if set(letters) <= set(allowed) else None


def _letter_set_verdict(answer, right: set, allowed: str, describe, *, praise: str, extra: str,
                        missing: str, example: str = "ab") -> Verdict:
    """Check a multiple-answer question answered with option letters.

    ``right`` is the set of right letters, ``describe(x)`` says what option x is (and what was
    measured for it). Right: ``praise`` then every option described. Wrong: each letter picked
    wrongly gets ``describe(x)：extra``, each letter missed ``漏了 describe(x)：missing`` (``missing``
    is a string, or a callable giving each letter its own reason).
    """
    if answer is None:
        return Verdict(False, PLACEHOLDER)
    got = _letters(answer, allowed)
    if got is None:
        return _wrong(answer, f"答案应是 {allowed[0]} 到 {allowed[-1]} 中的字母，例如 \"{example}\"。")
    if got == right:
        return Verdict(True, praise + "；".join(describe(x) for x in allowed) + "。")
    reasons = [f"{describe(x)}：{extra}" for x in sorted(got - right)]
    reasons += [f"漏了 {describe(x)}：{missing(x) if callable(missing) else missing}" for x in sorted(right - got)]
    return _wrong(answer, "；".join(reasons) + "。")


def _first_slip(got, right, slips, close) -> str | None:
    """The message of the first typical slip ``got`` matches: ``slips`` holds (message, value)
    pairs (a dict's items or a list); a slip counts only when its value has the right answer's
    shape, differs from the right answer and is ``close(got, value)``."""
    for message, value in (slips.items() if isinstance(slips, dict) else slips):
        if np.shape(value) == np.shape(right) and not close(right, value) and close(got, value):
            return message
    return None


def _matches(arr, value, tol: float) -> bool:
    return bool(np.allclose(arr, value, atol=tol, rtol=0))


# ---------------------------------------------------------------------------
# The one precision rule of every numeric check
# ---------------------------------------------------------------------------
#: A numeric answer is right when it differs from the computed value by at most one unit in
#: the last digit the question asks for, so that rounding and truncating are both right and a
#: more precise answer always is. A question that says nothing asks for 3 significant digits
#: (or 4 decimals, whichever is looser); a question that says 「保留 N 位小数」 passes
#: ``decimals=N``. An answer rounded more coarsely than that is told so (:func:`rounding_slip`),
#: never told its formula is wrong.
SIGNIFICANT_DIGITS = 3
DECIMALS = 4
#: Said in every verdict that refuses a rounding slip of a question that states no precision.
PRECISION_RULE = "没写精度的数值题都按同一条规则判：保留 3 位有效数字（或 4 位小数）就算对，四舍五入或截断都行"


def tolerance(expected, decimals: int | None = None):
    """The largest error the precision rule allows for ``expected`` (elementwise for arrays).

    Without ``decimals``: ``max(10^(E - 2), 10^-4)`` with ``E = floor(log10 |expected|)``, one
    unit in the 3rd significant digit or in the 4th decimal. With ``decimals`` (the question
    asks for that many decimals): ``10^-decimals``, one unit in the last asked-for decimal.
    The rule under every numeric ``check_*`` (notebook 01_permutation_invariance onwards).
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


def _roundings(value: float):
    """(description, value) for the coarser roundings and truncations of ``value`` a learner
    may type that still keep 2 significant digits: 2 significant digits, 0 … 3 decimals."""
    out = []
    if value == 0 or not math.isfinite(value):
        return out
    e = math.floor(math.log10(abs(value)))
    units = [("2 位有效数字", 10.0 ** (e - 1))]
    units += [(f"{places} 位小数" if places else "整数", 10.0 ** -places) for places in range(DECIMALS)
              if 10.0 ** -places <= 10.0 ** (e - 1)]          # at least 2 significant digits kept
    for what, unit in units:
        out.append((what, round(value / unit) * unit))
        out.append((what, math.trunc(value / unit) * unit))
    return out


def rounding_slip(got, expected, decimals: int | None = None) -> str | None:
    """The message for an answer that is the computed value rounded (or truncated) too
    coarsely, else None. Only for answers the rule refuses: ``got`` equals ``expected``
    rounded (or truncated) to 2 significant digits or to 0 … 3 decimals, or lies within 2 % of it."""
    got_arr = np.asarray(got, dtype=float)
    if got_arr.shape != () or agrees(got, expected, decimals):
        return None
    got, expected = float(got_arr), float(expected)
    rule = PRECISION_RULE if decimals is None else f"这道题要保留 {decimals} 位小数（四舍五入或截断都行）"
    for what, value in _roundings(expected):
        if value != 0 and abs(got - value) <= 1e-9 * max(abs(value), 1.0) and not agrees(value, expected, decimals):
            return f"方法对了，只是舍入得太粗：这像是把结果保留到了 {what}。{rule}；中间步骤不要先舍入。"
    if expected != 0 and abs(got - expected) <= 0.02 * abs(expected):
        return (f"很接近（差 {abs(got - expected) / abs(expected):.1%}），方法多半对了：像是中间步骤舍入得太早。"
                f"{rule}。")
    return None


def check_value(answer, expected, *, tol: float | None = None, hint: str = "", slips=None) -> Verdict:
    """Compare a reader's number (or list of numbers) with the computed one.

    Correct by the precision rule (:func:`tolerance`: 3 significant digits or 4 decimals);
    ``tol=0`` for exact answers. ``slips`` maps a message to a wrong value a typical slip
    gives; an answer matching one gets that message; an answer rounded too coarsely is told so
    (:func:`rounding_slip`). A wrong answer's message names what was entered.
    The generic check under the ``check_*`` helpers of the notebooks.
    """
    expected = np.asarray(expected, dtype=float)
    what = "一个数" if expected.shape == () else f"形状为 {expected.shape} 的一组数"
    arr, refusal = _reading(answer, "array", expected.shape, f"答案应是{what}。{hint}")
    if refusal is not None:
        return refusal
    close = (lambda a, b: _matches(a, b, 0.0)) if tol == 0 else \
        (lambda a, b: _matches(a, b, tol)) if tol is not None else agrees
    if close(arr, expected):
        return Verdict(True, "与计算结果一致。" if tol == 0 else "与计算结果一致（保留 3 位有效数字或 4 位小数即可）。")
    message = _first_slip(arr, expected, slips or {}, close)
    if message is None and tol != 0 and expected.shape == ():
        message = rounding_slip(arr, expected)
    return _wrong(answer, message or hint or "与计算结果不一致，检查每一步。")


def check_choice(answer, correct, *, hint: str = "", options=None, hints=None) -> Verdict:
    """Compare a reader's choice (a row index, a word, True/False, a tuple) with the computed one.

    Strings are compared without surrounding spaces, whole floats equal ints (``2.0 == 2``),
    lists and tuples element by element; True/False never equal 1/0. ``options`` (optional)
    lists the allowed answers, and an answer outside them gets a message naming them.
    ``hints`` (optional) maps a wrong option to what picking it shows, so the feedback reacts
    to the option picked; other wrong answers get ``hint``. Never raises on a wrong answer.
    Introduced in notebook 01_permutation_invariance.
    """
    keys = None if options is None else [_read_answer(o, "choice") for o in options]
    if keys is not None and _read_answer(correct, "choice") not in keys:
        raise ValueError(f"correct = {correct!r} is not among options = {options!r} / "
                         f"correct 必须是 options 之一")
    if answer is None:
        return Verdict(False, f"把 None 换成你的答案。{hint}".strip())
    key = _read_answer(answer, "choice")
    if keys is not None and key not in keys:
        shown = " / ".join(repr(o) for o in options)
        return _wrong(answer, f"答案应是 {shown} 之一。{hint}")
    if key == _read_answer(correct, "choice"):
        return Verdict(True, f"答案是 {correct!r}。")
    for option, message in (hints or {}).items():
        if key == _read_answer(option, "choice"):
            return _wrong(answer, message)
    return _wrong(answer, hint or "与计算结果不一致，再推一遍。")
