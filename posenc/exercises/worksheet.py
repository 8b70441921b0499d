"""The 猫咬狗 table by hand, checked box by box: a case drawn at random, and :func:`check_cell`
reading what a learner typed into one box and naming the slip it shows. Plain Python, no
widgets: the worksheet widget (:mod:`posenc.ui.worksheet`) lays the boxes out and calls
:func:`check_cell` when one is filled.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..encoding import frequencies, sinusoidal_encoding
from ..validate import bilingual
from .encoding import input_slip_table, pe_slip_table, sign_texts
from .rule import Rule, rule

#: Decimals the worksheet asks for in every box.
DECIMALS = 4


# ---------------------------------------------------------------------------------------------
# The case and its answers
# ---------------------------------------------------------------------------------------------
#: Sentences a case is drawn from (three characters each; every character has a gloss).
SENTENCES = ("猫咬狗", "狗咬猫", "我爱你", "鸡追兔", "牛追羊")
START_CHOICES = (0, 1, 2, 3, 4, 5)
D_MODEL_CHOICES = (2, 4)
BASE_CHOICES = (10.0, 100.0, 10000.0)
#: The two parts of a row: the positional encoding, and the model's input = word vector + PE.
PARTS = ("pe", "input")
PART_NAMES = {"pe": "PE", "input": "输入"}


@dataclass(frozen=True)
class WorksheetCase:
    """One worksheet: three tokens from position ``start`` on, ``d_model`` (2 or 4), ``base``,
    and a word vector per token (one decimal each).
    """

    tokens: tuple
    start: int
    d_model: int
    base: float
    word_vectors: np.ndarray = field(compare=False)

    @property
    def positions(self) -> np.ndarray:
        return np.arange(self.start, self.start + len(self.tokens))

    @property
    def encodings(self) -> np.ndarray:
        """The PE table, one row per token (the course's ``sinusoidal_encoding``)."""
        return sinusoidal_encoding(len(self.tokens), self.d_model, self.base, start=self.start)

    @property
    def key(self) -> str:
        """The case's stable name in the learner's record: sentence, start, d_model, base and the
        word vectors (the same case drawn twice has the same key)."""
        words = ";".join(",".join(f"{x:g}" for x in row) for row in self.word_vectors)
        return f"{''.join(self.tokens)}|start={self.start}|d_model={self.d_model}|base={self.base:g}|words={words}"

    @property
    def boxes(self) -> int:
        """How many boxes the case has (a PE and an input box per token and dimension)."""
        return len(PARTS) * len(self.tokens) * self.d_model

    @property
    def inputs(self) -> np.ndarray:
        return self.word_vectors + self.encodings

    def expected(self, part: str, row: int, dim: int) -> float:
        table = self.encodings if part == "pe" else self.inputs
        return float(table[row, dim])

    def cell_name(self, part: str, row: int, dim: int) -> str:
        """``猫（pos 3）PE 第 1 维``: how feedback names a box."""
        return f"{self.tokens[row]}（pos {self.positions[row]}）{PART_NAMES[part]} 第 {dim} 维"

    def slips(self, part: str, row: int, dim: int) -> list[tuple[float, str]]:
        """(value, message) of each typical slip for one box, in the order they are tried: the
        box's element of every row of :func:`~posenc.exercises.encoding.pe_slip_table` (and of
        :func:`~posenc.exercises.encoding.input_slip_table` for an input box), with the same
        messages :func:`~posenc.exercises.encoding.check_pe` gives, and the box's sign flipped."""
        pos = int(self.positions[row])
        table = pe_slip_table(pos, self.d_model, self.base, where=f"；本题第一个字在 pos = {self.start}")
        pe_slips = [(float(value[dim]), message) for value, message in table]
        word, pe = float(self.word_vectors[row, dim]), float(self.encodings[row, dim])
        i, name = dim // 2, "sin" if dim % 2 == 0 else "cos"
        sign = (-pe, f"大小对，符号不对：第 {dim} 维是 {name}，{sign_texts(pos, frequencies(self.d_model, self.base))[i]}")
        if part == "pe":
            return pe_slips + [sign, (word + pe, "这是输入（词向量 + PE）的值：这一格只填 PE。")]
        return [(float(v), m) for v, m in input_slip_table(word, pe, pe_slips + [sign])]


def draw_case(rng=None) -> WorksheetCase:
    """A case drawn at random: a sentence of :data:`SENTENCES`, a start position, ``d_model``
    2 or 4, a base, word vectors in [−0.9, 0.9] with one decimal. ``rng``: a numpy Generator or
    a seed (None: a fresh one).
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    tokens = tuple(SENTENCES[int(rng.integers(len(SENTENCES)))])
    d_model = int(rng.choice(D_MODEL_CHOICES))
    words = rng.integers(-9, 10, size=(len(tokens), d_model)) / 10
    return WorksheetCase(tokens, int(rng.choice(START_CHOICES)), d_model, float(rng.choice(BASE_CHOICES)), words)


# ---------------------------------------------------------------------------------------------
# Checking one box
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellFeedback:
    """What one box says: ``state`` is "empty", "right", "wrong" or "unreadable"; ``message``
    names the slip (empty for an empty box).
    """

    state: str
    message: str = ""

    @property
    def filled(self) -> bool:
        """Does the box hold a number (right or wrong)?"""
        return self.state in ("right", "wrong")

    @property
    def mark(self) -> str:
        return {"empty": "", "right": "✓", "wrong": "✗", "unreadable": "?"}[self.state]


#: What a box that does not hold a number says.
NOT_A_NUMBER = "这不是一个数：请填一个数，例如 0.8415。"
#: What a right box says.
RIGHT = f"对（保留 {DECIMALS} 位小数，四舍五入或截断都行）。"


def box_rule(case: WorksheetCase, part: str, row: int, dim: int) -> Rule:
    """The rule of one box: its value at :data:`DECIMALS` decimals by the course's precision rule,
    its typical slips (:meth:`WorksheetCase.slips`: degrees, sin/cos swapped, 2i vs i, a position
    off by one, and for an input box a missing or subtracted term), then a rounding slip, then a
    hint that gives no number away. The static page grades a box with this same rule.
    """
    if part not in PARTS:
        raise ValueError(bilingual(f"part must be one of {PARTS}, got {part!r}", f"part 必须是 {PARTS} 之一"))
    pos, i = int(case.positions[row]), dim // 2
    what = "PE" if part == "pe" else "词向量 + PE"
    return rule(case.expected(part, row, dim), decimals=DECIMALS, expected=NOT_A_NUMBER, ok=RIGHT,
                slips=case.slips(part, row, dim),
                wrong=f"和 {what} 的这一格不符。再算一遍：pos = {pos}，第 {dim} 维属于第 {i} 对，"
                      f"w_{i} = {case.base:g}^(−{2 * i}/{case.d_model})，第 {dim} 维用 {'sin' if dim % 2 == 0 else 'cos'}。")


#: A verdict's kind -> the box's state.
STATES = {"right": "right", "refused": "unreadable", "slip": "wrong", "rounding": "wrong", "wrong": "wrong"}


def check_cell(case: WorksheetCase, part: str, row: int, dim: int, text: str) -> CellFeedback:
    """Check what was typed into one box of the worksheet with its :func:`box_rule` (the course's
    one grading pipeline: a typed ``0.0500`` is echoed as typed, a decimal comma is refused with
    a message that says so). An empty box is "empty", not wrong; text that is not a number is
    "unreadable" (and does not count as filled).
    """
    r = box_rule(case, part, row, dim)
    if not str(text).strip():
        return CellFeedback("empty")
    verdict = r.grade(str(text))
    return CellFeedback(STATES[verdict.kind], verdict.message)


def case_text(case: WorksheetCase) -> str:
    """The case in words (HTML-safe plain text), as the worksheet states it."""
    rows = "；".join(f"{t}（pos {p}）= [{', '.join(f'{x:g}' for x in w)}]"
                    for t, p, w in zip(case.tokens, case.positions, case.word_vectors))
    return (f"d_model = {case.d_model}，base = {case.base:g}，第一个字在 pos = {case.start}。"
            f"词向量：{rows}")
