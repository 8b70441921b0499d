"""The 猫咬狗 table by hand, checked box by box: a case drawn at random, and :func:`check_cell`
reading what a learner typed into one box and naming the slip it shows. Plain Python, no
widgets: the worksheet widget (:mod:`posenc.ui.worksheet`) lays the boxes out and calls
:func:`check_cell` when one is filled.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..encoding import frequencies, sinusoidal_encoding
from ..validate import bilingual
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
        """(value, message) of each typical slip for one box, in the order they are tried."""
        pe_slips = _pe_slips(int(self.positions[row]), dim, self.d_model, self.base, self.start)
        word, pe = float(self.word_vectors[row, dim]), float(self.encodings[row, dim])
        if part == "pe":
            return pe_slips + [(word + pe, "这是输入（词向量 + PE）的值：这一格只填 PE。")]
        out = [(pe, f"这是 PE 的值：输入 = 词向量 + PE，还要加上词向量的这一维 {word:g}。"),
               (word, "这是词向量的值：输入 = 词向量 + PE，还要加上 PE。"),
               (word - pe, "这是 词向量 − PE：输入是两者相加。")]
        return out + [(word + value, f"PE 那一步：{message}") for value, message in pe_slips]


def _pe_slips(pos: int, dim: int, d_model: int, base: float, start: int) -> list[tuple[float, str]]:
    i = dim // 2
    f, g = (math.sin, math.cos) if dim % 2 == 0 else (math.cos, math.sin)
    w = float(frequencies(d_model, base)[i])
    name = "sin" if dim % 2 == 0 else "cos"
    return [
        (f(math.radians(pos * w)), "像是计算器停在角度制 (DEG)：sin、cos 里的角度 pos·w_i 是弧度 (radians)。"),
        (g(pos * w), f"sin 和 cos 写反了：偶数维 2i 放 sin，奇数维 2i+1 放 cos；第 {dim} 维是 {name}。"),
        (f(pos * base ** (-2 * dim / d_model)),
         f"频率用错了：w_i = base^(−2i/d_model) 里的 i 是第几对，不是第几维；第 {dim} 维属于第 {i} 对，"
         f"指数是 2i/d_model = {2 * i}/{d_model}。"),
        (f(pos * base ** (-i / d_model)), f"频率用错了：指数是 2i/d_model，不是 i/d_model（第 {dim} 维属于第 {i} 对）。"),
        (f((pos - 1) * w), f"位置差了 1：这个字的 pos 是 {pos}（本题第一个字在 pos = {start}），你像是用了 {pos - 1}。"),
        (f((pos + 1) * w), f"位置差了 1：这个字的 pos 是 {pos}（本题第一个字在 pos = {start}），你像是用了 {pos + 1}。"),
    ]


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
