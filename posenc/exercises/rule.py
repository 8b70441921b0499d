"""An exercise's rule as data (:class:`Rule`) and the one pipeline every check runs on it
(:func:`grade`): read -> refuse -> agree -> slips -> rounding -> wrong.

A check computes the right answer and its table of typical slips and states them as a
:class:`Rule` — numbers, strings and tables only, never a function — then grades the answer
with it. Because the rule is data, the static edition applies the very same rule in the page
(``tools/site/grader.js`` implements this module's pipeline; a test feeds both the same
answers): a verdict on the page is the kernel's verdict.

The pipeline, for an answer that is not ``None`` (``None`` is the neutral prompt):

1. **read** the answer as the rule's ``read`` kind: ``"number"`` (numbers of ``shape``),
   ``"int"``, ``"ints"`` (a set of whole numbers), ``"int_list"`` (an ordered list of whole
   numbers), ``"letters"`` (a set of option letters) or ``"choice"`` (any value, compared after
   :func:`~posenc.exercises.reading.normalise`). Typed text is read by
   :func:`~posenc.exercises.reading.read_text`; a number typed with a decimal comma is refused
   with :data:`~posenc.exercises.reading.COMMA_MESSAGE`. Infinities are answered by
   ``infinite`` when the rule has it.
2. **refuse** what cannot be read, or lies outside ``valid``, with ``expected``.
3. **agree**: numbers by the precision rule (:func:`~posenc.exercises.verdict.agrees` at
   ``decimals``), or modulo ``mod`` (an angle plus whole turns: then ``ok_turns``), everything
   else exactly.
4. **slips**: every entry of ``slips`` the answer matches, then ``sign`` (right magnitudes,
   wrong signs), ``at`` (an element of a list), ``by_value`` (a whole number's own message);
   one named slip is said, several are listed.
5. **rounding**: a number the rule refuses that is the right value rounded too coarsely
   (:func:`~posenc.exercises.verdict.rounding_slip`).
6. **wrong**: ``wrong_at`` (the first element outside the rule), the letters' reasons, or
   ``wrong``.

Every message but the echo is written out when the rule is made; the verdict starts
「你填的是 <echo>：」 for anything not right, unless the rule says ``echo=False`` (a choice whose
every message already names the option, as the quiz's do).
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass

import numpy as np

from ..validate import bilingual
from .reading import COMMA_MESSAGE, has_decimal_comma, normalise, numbers_of, read_letters, read_text, shown, shown_value
from .verdict import Verdict, agrees, asked, prompt, rounding_slip, slip_agrees, tolerance

READS = ("number", "int", "ints", "int_list", "letters", "choice")
#: How several matched slips are said: the marks, the lead-in and the joint.
SLIP_MARKS = "①②③④⑤⑥"
SEVERAL_SLIPS = "可能是两种失误之一。"
OR_SLIP = " 或者："


@dataclass(frozen=True)
class Rule:
    """One exercise, as data: what the answer is, how it is read and every message it can get
    (see the module docstring for the pipeline).

    ``right``: a number or nested lists (``number``), an int (``int``), a sorted list of ints
    (``ints``), a list of ints (``int_list``), a sorted list of letters (``letters``), a tagged
    value (``choice``, :func:`~posenc.exercises.reading.normalise`), or None when no finite
    number is right (``infinite`` answers it).
    ``slips``: dicts ``{"value", "message"}`` (``"match"``: ``"slip"``, the slip rule, by default
    for numbers; ``"agrees"``, the precision rule; exact otherwise) and, for ``int_list``,
    ``{"at": i, "value": v, "message"}`` (element i is v) or ``{"at": i, "not": [v, ...], "message"}``
    (element i is none of them).
    ``valid``: ``{"range": [lo, hi]}`` (ints), ``{"options": [tagged, ...]}`` (choice),
    ``{"length": n}`` / ``{"min_length": n}`` (int_list).
    ``sign``: ``{"center": [...], "pairs": [text per pair], "lead": "...{dims}..."}``.
    ``by_value``: ``{str(int): [message, ...]}``, the slips of one whole number;
    ``wrong_by_value``: ``{str(int): message}``, its wrong message. ``wrong_at``: a message per
    flat element (the first one outside the rule).
    ``letters``: the allowed letters; ``none_words``: answers read as no letter at all
    (``"无"``); ``reasons``: ``{"describe": {x: text}, "extra": text,
    "missing": {x: text}}``. ``infinite``: ``{"neg": [right, message], "pos": [right, message]}``.
    ``mod``: a period; ``ok_turns``: the right message for an answer off by whole periods, with
    ``{turns}`` (signed). ``echo``: False says a not-right verdict's message as written, without
    「你填的是 …：」 (each message names the answer itself).
    """

    read: str
    right: object
    expected: str
    ok: str
    wrong: str = "与计算结果不一致，检查每一步。"
    shape: tuple = ()
    decimals: int | None = None
    slips: tuple = ()
    valid: dict | None = None
    sign: dict | None = None
    by_value: dict | None = None
    wrong_by_value: dict | None = None
    wrong_at: tuple = ()
    letters: str = ""
    none_words: tuple = ()
    reasons: dict | None = None
    infinite: dict | None = None
    mod: float | None = None
    ok_turns: str = ""
    echo: bool = True

    def __post_init__(self):
        if self.read not in READS:
            raise ValueError(bilingual(f"read must be one of {READS}, got {self.read!r}", f"read 只能是 {READS} 之一"))
        for f in dataclasses.fields(self):
            _no_functions(getattr(self, f.name), f.name)

    def to_json(self, compact: bool = False) -> dict:
        """The rule as JSON-ready data (what a static page's script grades with); ``compact``
        leaves out the optional fields that are empty (the script reads them as empty)."""
        out = {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
        if compact:
            out = {k: v for k, v in out.items()
                   if k in _REQUIRED or (v not in (None, (), [], {}, "") and not (k == "echo" and v is True))}
        return out

    def grade(self, answer) -> Verdict:
        return grade_with(self, answer)


_REQUIRED = ("read", "right", "expected", "ok", "wrong", "shape", "decimals")


def _no_functions(x, name):
    if callable(x):
        raise TypeError(bilingual(f"Rule.{name} must be data, not a function", f"Rule.{name} 必须是数据，不能是函数"))
    if isinstance(x, dict):
        for v in x.values():
            _no_functions(v, name)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _no_functions(v, name)


def _jsonable(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


# ---------------------------------------------------------------------------
# Making a rule
# ---------------------------------------------------------------------------
def rule(right, *, read: str = "number", decimals: int | None = None, expected: str = "答案应是一个数。",
         ok: str = "与计算结果一致。", slips=(), wrong: str = "与计算结果不一致，检查每一步。", **extra) -> Rule:
    """A :class:`Rule` from a check's own terms: ``right`` as the check computed it (a number,
    an array, an int, a set, letters, any choice value) and ``slips`` as ``(value, message)``
    pairs or ready dicts; a slip equal to the right answer is dropped (it never fires)."""
    if read == "number" and right is None:
        shape, right_data = tuple(extra.pop("shape", ())), None
    elif read == "number":
        arr = np.asarray(right, dtype=float)
        shape, right_data = tuple(arr.shape), arr.tolist()
    elif read == "ints":
        shape, right_data = (), sorted(int(v) for v in right)
    elif read == "letters":
        shape, right_data = (), sorted(right)
    elif read == "choice":
        shape, right_data = (), normalise(right)
    elif read == "int_list":
        shape, right_data = (), [int(v) for v in right]
    else:
        shape, right_data = (), None if right is None else int(right)
    table = []
    for entry in slips:
        if isinstance(entry, dict):
            table.append(entry)
            continue
        value, message = entry
        if value is None:
            continue
        if read == "number":
            if np.shape(value) != shape or (right_data is not None and agrees(value, right_data, decimals)):
                continue
            table.append({"value": np.asarray(value, dtype=float).tolist(), "message": message})
        elif read == "choice":
            tagged = normalise(value)
            if tagged != right_data:
                table.append({"value": tagged, "message": message})
        elif read in ("ints", "letters"):
            value = sorted(int(v) for v in value) if read == "ints" else sorted(value)
            if value != right_data:
                table.append({"value": value, "message": message})
        elif read == "int_list":
            value = [int(v) for v in value]
            if value != right_data:
                table.append({"value": value, "message": message})
        else:
            if int(value) != right_data:
                table.append({"value": int(value), "message": message})
    return Rule(read=read, right=right_data, expected=expected, ok=ok, wrong=wrong, shape=shape,
                decimals=decimals, slips=tuple(table), **extra)


def one_slip_per_value(slips, keep: str = "first") -> list:
    """``(value, message)`` pairs with one pair per value (values read exactly: ints, tuples), in
    the order the values first appear: of two slips that give the same value, the first message
    is kept (``keep="first"``) or the last (``keep="last"``, the later and more specific one),
    so an answer never gets two messages for one slip."""
    if keep not in ("first", "last"):
        raise ValueError(bilingual(f"keep must be 'first' or 'last', got {keep!r}", "keep 只能是 'first' 或 'last'"))
    table = {}
    for value, message in slips:
        if keep == "last" or value not in table:
            table[value] = message          # a value seen before keeps its place
    return list(table.items())


def grade(answer, right, **kwargs) -> Verdict:
    """``rule(right, **kwargs).grade(answer)``: a check's one call (see :func:`rule`)."""
    return rule(right, **kwargs).grade(answer)


# ---------------------------------------------------------------------------
# Applying it
# ---------------------------------------------------------------------------
class _Refused(Exception):
    def __init__(self, message: str):
        self.message = message


def _said(answer, rule_: Rule, message: str, kind: str) -> Verdict:
    if not rule_.echo:
        return Verdict(False, message.strip(), kind=kind, rule=rule_)
    echo = shown_value(normalise(answer)) if rule_.read in ("choice", "letters") else shown(answer)
    return Verdict(False, f"你填的是 {echo}：{message}".strip(), kind=kind, rule=rule_)


def _as_numbers(answer, rule_: Rule):
    """The answer's numbers (nested lists), or raise _Refused; typed text is read."""
    if isinstance(answer, str):
        single = rule_.read == "int" or (rule_.read == "number" and rule_.shape == ())
        if single and has_decimal_comma(answer):
            raise _Refused(COMMA_MESSAGE)
        nums = read_text(answer)
    else:
        nums = numbers_of(normalise(answer))
    if nums is None:
        raise _Refused(rule_.expected)
    return nums


def _whole(x):
    return isinstance(x, float) and math.isfinite(x) and x.is_integer() or isinstance(x, int) and not isinstance(x, bool)


def _read(answer, rule_: Rule):
    """The answer read as the rule's kind (numbers: a float array), or raise _Refused."""
    read = rule_.read
    if read == "choice":
        value = normalise(answer)
        options = (rule_.valid or {}).get("options")
        if options is not None and value not in options:
            raise _Refused(rule_.expected)
        return value
    if read == "letters":
        if isinstance(answer, str) and answer.strip().lower() in rule_.none_words:
            answer = ""
        value = read_letters(answer, rule_.letters)
        if value is None:
            raise _Refused(rule_.expected)
        return sorted(value)
    nums = _as_numbers(answer, rule_)
    if read == "number":
        try:
            arr = np.asarray(nums, dtype=float)
        except ValueError:
            raise _Refused(rule_.expected) from None
        if arr.shape != tuple(rule_.shape) or not np.all(np.isfinite(arr)):
            raise _Refused(rule_.expected)
        return arr
    flat = nums if isinstance(nums, list) else [nums]
    if any(isinstance(x, list) for x in flat) or not all(_whole(x) for x in flat):
        raise _Refused(rule_.expected)
    ints = [int(x) for x in flat]
    valid = rule_.valid or {}
    if read == "int":
        if isinstance(nums, list):
            raise _Refused(rule_.expected)
        lo, hi = valid.get("range", [None, None])
        if (lo is not None and ints[0] < lo) or (hi is not None and ints[0] > hi):
            raise _Refused(rule_.expected)
        return ints[0]
    if read == "ints":
        return sorted(set(ints))
    if not isinstance(nums, list) or len(ints) < valid.get("min_length", 1) or \
            ("length" in valid and len(ints) != valid["length"]):
        raise _Refused(rule_.expected)
    return ints


def _infinite(answer):
    """+1 / -1 for an infinite answer (a float or typed text), else 0."""
    if isinstance(answer, str):
        v = read_text(answer)
    elif isinstance(answer, (int, float, np.floating)) and not isinstance(answer, bool):
        v = float(answer)
    else:
        return 0
    return int(math.copysign(1, v)) if isinstance(v, float) and math.isinf(v) else 0


def _turns(value: float, rule_: Rule) -> int:
    return round((float(value) - float(rule_.right)) / rule_.mod)


def _agrees(value, rule_: Rule):
    """True, the whole turns an answer is off by (``mod``), or False."""
    if rule_.right is None:
        return False
    if rule_.read == "number":
        if agrees(value, rule_.right, rule_.decimals):
            return True
        if rule_.mod is not None:
            turns = _turns(value, rule_)
            if agrees(float(value) - turns * rule_.mod, rule_.right, rule_.decimals):
                return turns
        return False
    return value == rule_.right


def _slip_hit(value, slip: dict, rule_: Rule) -> bool:
    if "at" in slip:
        i = slip["at"]
        if i >= len(value):
            return False
        return value[i] not in slip["not"] if "not" in slip else value[i] == slip["value"]
    if rule_.read == "number":
        target = slip["value"]
        if np.shape(target) != value.shape:
            return False
        if slip.get("match") == "agrees":
            return agrees(value, target, rule_.decimals)
        return slip_agrees(value, target, rule_.decimals)
    return value == slip["value"]


def _sign_slip(arr, rule_: Rule):
    """The message for an answer whose magnitudes are right and some signs are not."""
    s = rule_.sign
    center = np.asarray(s["center"], dtype=float)
    right = np.asarray(rule_.right, dtype=float) - center
    got = arr - center
    if not (agrees(np.abs(got), np.abs(right), rule_.decimals) and np.any(np.sign(got) != np.sign(right))):
        return None
    tol = tolerance(right, rule_.decimals)
    bad = [int(c) for c in np.flatnonzero((np.sign(got) != np.sign(right)) & (np.abs(right) > tol))]
    if not bad:
        return None
    return s["lead"].replace("{dims}", ", ".join(map(str, bad))) + s["pairs"][bad[0] // 2]


def grade_with(rule_: Rule, answer) -> Verdict:
    """The pipeline (module docstring) of ``rule_`` on ``answer``; the verdict carries the rule."""
    if answer is None:
        v = prompt()
        return dataclasses.replace(v, rule=rule_)
    if rule_.infinite is not None:
        sign = _infinite(answer)
        if sign:
            ok, message = rule_.infinite["neg" if sign < 0 else "pos"]
            if ok:
                return Verdict(True, message, kind="right", rule=rule_)
            return _said(answer, rule_, message, "slip")
    try:
        value = _read(answer, rule_)
    except _Refused as refused:
        return _said(answer, rule_, refused.message, "refused")
    same = _agrees(value, rule_)
    if same is True:
        return Verdict(True, rule_.ok, kind="right", rule=rule_)
    if same:
        return Verdict(True, rule_.ok_turns.replace("{turns}", f"{same:+d}"), kind="right", rule=rule_)
    named = [s["message"] for s in rule_.slips if _slip_hit(value, s, rule_)]
    if rule_.sign is not None:
        named.append(_sign_slip(value, rule_))
    if rule_.by_value is not None and rule_.read == "int":
        named.extend(rule_.by_value.get(str(value), []))
    named = list(dict.fromkeys(m for m in named if m))   # each message once, in order
    if named:
        message = named[0] if len(named) == 1 else SEVERAL_SLIPS + OR_SLIP.join(
            f"{k}) {m}" for k, m in zip(SLIP_MARKS, named))
        return _said(answer, rule_, message, "slip")
    if rule_.read == "number" and rule_.right is not None:
        message = rounding_slip(value, rule_.right, rule_.decimals)
        if message:
            return _said(answer, rule_, message, "rounding")
    return _said(answer, rule_, _wrong_message(value, rule_), "wrong")


def _wrong_message(value, rule_: Rule) -> str:
    if rule_.wrong_by_value is not None and str(value) in rule_.wrong_by_value:
        return rule_.wrong_by_value[str(value)]
    if rule_.wrong_at and rule_.read == "number" and rule_.right is not None:
        right = np.asarray(rule_.right, dtype=float)
        bad = np.abs(value - right) > tolerance(right, rule_.decimals)
        return rule_.wrong_at[int(np.argmax(bad.ravel()))]
    if rule_.reasons is not None:
        r, got, right = rule_.reasons, set(value), set(rule_.right)
        out = [f"{r['describe'][x]}：{r['extra']}" for x in sorted(got - right)]
        out += [f"漏了 {r['describe'][x]}：{r['missing'][x]}" for x in sorted(right - got)]
        return "；".join(out) + "。"
    return rule_.wrong


def rule_json(rule_: Rule) -> str:
    """The rule as a JSON string (compact, Chinese kept)."""
    return json.dumps(rule_.to_json(), ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------
# Rules of a common shape
# ---------------------------------------------------------------------------
def letter_rule(right: set, allowed: str, describe: dict, *, praise: str, extra: str, missing,
                example: str = "ab", expected: str | None = None, none_words=()) -> Rule:
    """A multiple-answer question answered with option letters: ``describe[x]`` says what option
    x is (and what was measured for it). Right: ``praise`` then every option described. Wrong:
    each letter picked wrongly gets ``describe[x]：extra``, each letter missed
    ``漏了 describe[x]：missing`` (``missing``: one text, or one per letter)."""
    missing = {x: missing for x in allowed} if isinstance(missing, str) else dict(missing)
    return rule(set(right), read="letters", letters=allowed,
                expected=expected or f"答案应是 {allowed[0]} 到 {allowed[-1]} 中的字母，例如 \"{example}\"。",
                ok=praise + "；".join(describe[x] for x in allowed) + "。",
                none_words=tuple(none_words),
                reasons={"describe": {x: describe[x] for x in allowed}, "extra": extra,
                         "missing": {x: missing[x] for x in allowed}})


# ---------------------------------------------------------------------------
# The generic checks: a number, a choice
# ---------------------------------------------------------------------------
def check_value(answer, expected, *, decimals: int | None = None, hint: str = "", slips=None) -> Verdict:
    """Compare a reader's number (or list of numbers) with the computed one, by the precision
    rule (:func:`~posenc.exercises.verdict.tolerance`).

    ``slips`` lists ``(value, message)`` pairs, the wrong value a typical slip gives and what to
    say (a mapping message -> value is read as those pairs too); an answer matching one gets
    that message; an answer rounded too coarsely is told so
    (:func:`~posenc.exercises.verdict.rounding_slip`). A wrong answer's message names what was
    entered. The generic numeric check.
    """
    expected = np.asarray(expected, dtype=float)
    what = "一个数" if expected.shape == () else f"形状为 {expected.shape} 的一组数"
    if isinstance(slips, dict):                 # the older form, message -> value
        slips = [(value, message) for message, value in slips.items()]
    return grade(answer, expected, decimals=decimals, expected=f"答案应是{what}。{hint}",
                 ok=f"与计算结果一致（{asked(decimals)}即可）。", slips=list(slips or ()),
                 wrong=hint or "与计算结果不一致，检查每一步。")


def check_choice(answer, correct, *, hint: str = "", options=None, hints=None) -> Verdict:
    """Compare a reader's choice (a row index, a word, True/False, a tuple) with the computed one.

    Strings are compared without surrounding spaces, whole floats equal ints (``2.0 == 2``),
    lists and tuples element by element; True/False never equal 1/0. ``options`` (optional)
    lists the allowed answers, and an answer outside them gets a message naming them.
    ``hints`` (optional) maps a wrong option to what picking it shows, so the feedback reacts
    to the option picked; other wrong answers get ``hint``. Never raises on a wrong answer;
    an unanswered one (``None``) gets the neutral prompt, never the hint.
    """
    keys = None if options is None else [normalise(o) for o in options]
    if keys is not None and normalise(correct) not in keys:
        raise ValueError(bilingual(f"correct = {correct!r} is not among options = {options!r}",
                                   "correct 必须是 options 之一"))
    listed = "" if options is None else " / ".join(repr(o) for o in options)
    return grade(answer, correct, read="choice", expected=f"答案应是 {listed} 之一。{hint}",
                 valid=None if keys is None else {"options": keys},
                 ok=f"答案是 {correct!r}。", slips=list((hints or {}).items()),
                 wrong=hint or "与计算结果不一致，再推一遍。")
