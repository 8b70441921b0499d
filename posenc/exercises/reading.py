"""Reading a learner's answer: a Python value (what a notebook cell passes to a check) or the
text typed into a box (the worksheet, a static page's exercise input), and echoing it back.

One reader of typed text serves every runtime: the kernel reads a ``str`` answer with
:func:`read_text` and the static page's script (``tools/site/grader.js``) implements the very
same grammar, which a test holds equal on the same strings:

* spaces around the answer are ignored; ``−`` (U+2212) and ``－`` read as ``-``, ``．`` as ``.``,
  ``，`` as ``,``; a number is ``[+-]digits[.digits][e±digits]`` (no hex, no ``_``);
* arithmetic: ``+ - * / **`` (Python's precedence, ``**`` binding tighter than a unary minus),
  brackets ``( )``, ``pi``, ``π`` and ``sin cos tan exp sqrt log log2 log10`` (``log`` is ln),
  optionally written as ``math.sin`` / ``np.sin`` — so ``sin(4)`` or ``2 ** -2`` is a number;
  ``inf``, ``-inf``, ``∞``, ``float('-inf')``, ``math.inf`` are infinities;
* a list is ``[a, b, …]`` (nested for a matrix) or bare ``a, b, …`` (one level);
* a decimal comma (``-0,2794``: a comma between two digits where one number is asked) is
  refused with its own message, never read as a list.

The echo (:func:`shown`) of typed text is the text as typed (stripped); of a Python value, its
numbers at 6 significant digits and strings in quotes.
"""
from __future__ import annotations

import math
import numbers
import re

import numpy as np

#: What a decimal comma is refused with (a comma between digits where one number is asked).
COMMA_MESSAGE = "小数点要用「.」：这里的逗号像是小数点（例如 -0,2794 要写成 -0.2794）。"

_FUNCTIONS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "sqrt": math.sqrt,
              "log": math.log, "log2": math.log2, "log10": math.log10}
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)|(?P<name>[A-Za-z_][A-Za-z_0-9.]*|π|∞)"
                    r"|(?P<op>\*\*|[-+*/(),\[\]])|(?P<str>'[^']*'|\"[^\"]*\"))")


def normalise_text(text: str) -> str:
    """Typed text with the look-alike characters replaced (minus signs, full-width dot and comma)."""
    return (str(text).strip().replace("\u2212", "-").replace("\uff0d", "-").replace("\uff0e", ".")
            .replace("\uff0c", ",").replace("（", "(").replace("）", ")"))


class _Unreadable(Exception):
    pass


def _tokens(text: str) -> list:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise _Unreadable
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
    unary := ('-'|'+') unary | power; power := atom ('**' unary)?;
    atom := number | name | name '(' expr ')' | '(' expr ')' | list."""

    def __init__(self, tokens):
        self.t, self.i = tokens, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, value=None):
        tok = self.peek()
        if tok[0] is None or (value is not None and tok[1] != value):
            raise _Unreadable
        self.i += 1
        return tok

    def done(self) -> bool:
        return self.i == len(self.t)

    def value(self):
        """A number, or a list of values (``[...]``)."""
        if self.peek()[1] == "[":
            self.take("[")
            items = []
            if self.peek()[1] != "]":
                items.append(self.value())
                while self.peek()[1] == ",":
                    self.take(",")
                    if self.peek()[1] == "]":     # a trailing comma
                        break
                    items.append(self.value())
            self.take("]")
            return items
        return self.expr()

    def expr(self):
        v = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            w = self.term()
            v = v + w if op == "+" else v - w
        return v

    def term(self):
        v = self.unary()
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            w = self.unary()
            if op == "/":
                if w == 0:
                    raise _Unreadable
                v = v / w
            else:
                v = v * w
        return v

    def unary(self):
        if self.peek()[1] in ("-", "+"):
            op = self.take()[1]
            v = self.unary()
            return -v if op == "-" else v
        return self.power()

    def power(self):
        v = self.atom()
        if self.peek()[1] == "**":
            self.take("**")
            w = self.unary()
            try:
                v = float(v) ** float(w)
            except (OverflowError, ZeroDivisionError):
                raise _Unreadable from None
            if isinstance(v, complex):
                raise _Unreadable
        return v

    def atom(self):
        kind, tok = self.take()
        if kind == "num":
            return float(tok)
        if kind == "op" and tok == "(":
            v = self.expr()
            self.take(")")
            return v
        if kind == "name":
            name = re.sub(r"^(math|np|numpy)\.", "", tok)
            if name in ("pi", "π"):
                return math.pi
            if name in ("inf", "∞"):
                return math.inf
            if name == "float":
                self.take("(")
                k, s = self.take()
                self.take(")")
                if k != "str":
                    raise _Unreadable
                inner = s[1:-1].strip().lower()
                sign = -1.0 if inner.startswith("-") else 1.0
                if inner.lstrip("+-") not in ("inf", "infinity"):
                    raise _Unreadable
                return sign * math.inf
            if name in _FUNCTIONS:
                self.take("(")
                v = self.expr()
                self.take(")")
                try:
                    return _FUNCTIONS[name](v)
                except (ValueError, OverflowError):
                    raise _Unreadable from None
        raise _Unreadable


def read_text(text: str):
    """Typed text as a number (float) or nested lists of numbers, or None when it is neither
    (see the module docstring for the grammar). ``"1, 2"`` is a list of two numbers."""
    text = normalise_text(text)
    if not text:
        return None
    try:
        toks = _tokens(text)
        if not toks:
            return None
        parser = _Parser(toks)
        first = parser.value()
        if parser.done():
            return first
        items = [first]                 # a bare list: a, b, c
        while not parser.done():
            parser.take(",")
            if parser.done():
                break
            items.append(parser.value())
        return items
    except (_Unreadable, RecursionError):
        return None


def has_decimal_comma(text: str) -> bool:
    """Does typed text look like one number written with a decimal comma (``-0,2794``)?"""
    return re.fullmatch(r"[+-]?[0-9]+,[0-9]+", normalise_text(text)) is not None


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


def normalise(value):
    """One reading of any Python value, tagged so that True never equals 1 and "2" never equals
    2: strings lose surrounding spaces, whole numbers become ints (``2.0 -> 2``), lists, tuples
    and arrays become lists of tagged items, a set a sorted list. JSON-ready (lists, not tuples)."""
    if isinstance(value, str):
        return ["str", value.strip()]
    if isinstance(value, (bool, np.bool_)):
        return ["bool", bool(value)]
    if isinstance(value, numbers.Real):
        v = float(value)
        return ["num", int(v) if math.isfinite(v) and v.is_integer() else v]
    if isinstance(value, (list, tuple, np.ndarray)):
        items = value.tolist() if isinstance(value, np.ndarray) else value
        return ["seq", [normalise(v) for v in items]]
    if isinstance(value, (set, frozenset)):   # order does not matter: a canonical order
        return ["seq", sorted((normalise(v) for v in value), key=repr)]
    return ["other", repr(value)]


def numbers_of(tagged):
    """Nested lists of the numbers in a tagged value, or None if anything is not a number."""
    kind, v = tagged
    if kind == "num":
        return v
    if kind == "seq":
        items = [numbers_of(t) for t in v]
        return None if any(i is None for i in items) else items
    return None


def format_g6(v: float) -> str:
    """``f"{v:.6g}"`` (the echo of a float)."""
    return f"{v:.6g}"


def shown(answer) -> str:
    """The learner's answer as the verdict echoes it: typed text as typed (stripped); a Python
    value with its numbers to 6 significant digits and its strings in quotes."""
    if isinstance(answer, str):
        return answer.strip()
    return shown_value(normalise(answer))


def shown_value(tagged) -> str:
    """A tagged value (:func:`normalise`) as the verdict writes it."""
    kind, v = tagged
    if kind == "num":
        return format_g6(v) if isinstance(v, float) else str(v)
    if kind == "seq":
        return "[" + ", ".join(shown_value(t) for t in v) + "]"
    if kind == "str":
        return repr(v)
    return str(v)
