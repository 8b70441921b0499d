"""The 猫咬狗 hand calculation: word vector + positional encoding, token by token.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .encoding import sinusoidal_encoding
from .text import aligned_table, format_vector
from .validate import (
    bilingual,
    check_array,
    check_base,
    check_d_model,
    check_int,
    check_tokens,
)


@dataclass
class HandCalculation:
    """Word vector + positional encoding = model input, token by token.

    Shown in Jupyter as an HTML table (4 decimals), as plain text elsewhere.
    """

    tokens: tuple
    positions: np.ndarray
    word_vectors: np.ndarray
    encodings: np.ndarray
    outputs: np.ndarray
    d_model: int
    base: float

    def rows(self) -> list[tuple]:
        """(token, pos, word vector, PE, output) per token, vectors as 4-decimal strings."""
        return [
            (t, int(p), format_vector(w), format_vector(e), format_vector(o))
            for t, p, w, e, o in zip(self.tokens, self.positions, self.word_vectors,
                                     self.encodings, self.outputs)
        ]

    #: Column headers, the same in the printed and the HTML table.
    HEAD = ("词 (token)", "位置 pos", "词向量 (word vector)", "位置编码 PE(pos)", "输入 = 词向量 + PE")

    def caption(self) -> str:
        """``d_model = 2，base = 10000``: the settings the table was computed with."""
        return f"d_model = {self.d_model}，base = {self.base:g}"

    def __str__(self) -> str:
        return "\n".join([self.caption(), *aligned_table(self.HEAD, self.rows())])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        # A vector cell holds one pair of dimensions (2i, 2i+1) per line, the pairs the
        # figure draws: the table is as wide at d_model = 8 as at 2 (one line per vector
        # needed 1,577 px at d_model = 8, in a notebook output 968 px wide). The wrapper
        # scrolls sideways only in an output narrower than that.
        pad = "padding:3px 8px;text-align:left;vertical-align:top"
        cells = "".join(f"<th style='{pad};white-space:nowrap;border-bottom:1px solid #ccc'>{html.escape(h)}</th>" for h in self.HEAD)
        mono = f"{pad};white-space:pre;font-family:monospace;font-size:0.9em"
        body = "".join(
            f"<tr style='border-bottom:1px solid #eee'><td style='{pad}'>{html.escape(str(t))}</td><td style='{mono}'>{int(p)}</td>"
            + "".join(f"<td style='{mono}'>{html.escape(_pair_lines(v))}</td>" for v in vectors) + "</tr>"
            for t, p, *vectors in zip(self.tokens, self.positions, self.word_vectors, self.encodings, self.outputs)
        )
        note = ""
        if self.d_model > 2:
            note = f"<br><small>向量每行一对维度 (2i, 2i+1)：i = 0 … {self.d_model // 2 - 1}</small>"
        return (f"<div style='overflow-x:auto'><table class='posenc-hand-calc' style='border-collapse:collapse;line-height:1.35'>"
                f"<caption>{html.escape(self.caption())}{note}</caption>"
                f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div>")


def _pair_lines(v, decimals: int = 4) -> str:
    """``[0.8415, 0.5403,`` / `` 0.0100, 1.0000]``: a vector one pair (2i, 2i+1) per line,
    numbers aligned across lines (a sign column when any is negative)."""
    sign = " " if len(v) > 2 and any(x < 0 for x in v) else ""
    numbers = [f"{x:{sign}.{decimals}f}" for x in v]
    lines = [", ".join(numbers[j:j + 2]) for j in range(0, len(numbers), 2)]
    return "\n".join(("[" if k == 0 else " ") + line + ("]" if k == len(lines) - 1 else ",")
                     for k, line in enumerate(lines))


def hand_calculation(tokens=("猫", "咬", "狗"), word_vectors=None, start: int = 1,
                     d_model: int = 2, base: float = 10000.0) -> HandCalculation:
    """The common 猫咬狗 hand calculation (and variations): word vector + PE for each token.

    With no arguments: 猫, 咬, 狗 at positions 1, 2, 3, d_model = 2, every word vector
    [0.5, 0.5], as a common tutorial writes it. ``word_vectors`` may be one vector (shared by every token) or one row
    per token, each of length ``d_model``.
    """
    tokens = check_tokens(tokens)
    d_model = check_d_model(d_model)
    base = check_base(base)
    start = check_int("start", start, 0)
    n = len(tokens)
    if word_vectors is None:
        wv = np.full((n, d_model), 0.5)
    else:
        wv = check_array("word_vectors", word_vectors)
        if wv.ndim == 1:
            wv = np.tile(wv, (n, 1))
        if wv.shape != (n, d_model):
            raise ValueError(bilingual(
                f"word_vectors must have shape ({d_model},) or ({n}, {d_model}) for {n} tokens "
                f"and d_model = {d_model}, got {np.shape(word_vectors)}",
                "word_vectors 的形状必须是 "
                f"({d_model},) 或 ({n}, {d_model})"
            ))
    pe = sinusoidal_encoding(n, d_model, base, start=start)
    return HandCalculation(tokens, np.arange(start, start + n), wv, pe, wv + pe, d_model, base)
