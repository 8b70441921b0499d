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
    """The answer to a ``check_*`` call: truthy when correct, with a hint when not."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return ("正确 ✓ " if self.ok else "再想想 ✗ ") + self.message

    def _repr_html_(self) -> str:
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
    raise ValueError(f"unknown answer kind {kind!r}")


def check_value(answer, expected, *, tol: float = 5e-4, hint: str = "") -> Verdict:
    """Compare a reader's number (or list of numbers) with the computed one.

    Correct when every entry is within ``tol`` (default: 4-decimal rounding).
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    expected = np.asarray(expected, dtype=float)
    if answer is None:
        return Verdict(False, "先把 None 换成你的答案，再运行这个单元格。")
    arr = _read_answer(answer, "array", expected.shape)
    if arr is None:
        return Verdict(False, f"答案应是形状为 {expected.shape} 的数（或数组）。 {hint}".strip())
    if np.allclose(arr, expected, atol=tol, rtol=0):
        return Verdict(True, f"与计算结果一致（误差 ≤ {tol:g}）。")
    return Verdict(False, hint or "与计算结果不一致，检查每一步。")


def check_choice(answer, correct, *, hint: str = "", options=None) -> Verdict:
    """Compare a reader's choice (a row index, a word, True/False, a tuple) with the computed one.

    Strings are compared without surrounding spaces, whole floats equal ints (``2.0 == 2``),
    lists and tuples element by element; True/False never equal 1/0. ``options`` (optional)
    lists the allowed answers, and an answer outside them gets a message naming them.
    Never raises on a wrong answer: the placeholder ``None`` just gets the hint.
    Introduced in notebook 01_permutation_invariance.
    """
    keys = None if options is None else [_read_answer(o, "choice") for o in options]
    if keys is not None and _read_answer(correct, "choice") not in keys:
        raise ValueError(f"correct = {correct!r} is not among options = {options!r} / "
                         f"correct 必须是 options 之一")
    if answer is None:
        return Verdict(False, f"把 None 换成你的答案。 {hint}".strip())
    if keys is not None and _read_answer(answer, "choice") not in keys:
        shown = " / ".join(repr(o) for o in options)
        return Verdict(False, f"答案应是 {shown} 之一，收到的是 {answer!r}。 {hint}".strip())
    if _read_answer(answer, "choice") == _read_answer(correct, "choice"):
        return Verdict(True, f"答案是 {correct!r}。")
    return Verdict(False, hint or "与计算结果不一致，再推一遍。")
