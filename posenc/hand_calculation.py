"""The 猫咬狗 hand calculation: word vector + positional encoding, token by token.

Introduced in notebook 02_sinusoidal_hand_calculation.
"""
from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .encoding import sinusoidal_encoding
from .text import _aligned_table, _format_vector
from .validate import (
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
    Introduced in notebook 02_sinusoidal_hand_calculation.
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
            (t, int(p), _format_vector(w), _format_vector(e), _format_vector(o))
            for t, p, w, e, o in zip(self.tokens, self.positions, self.word_vectors,
                                     self.encodings, self.outputs)
        ]

    #: Column headers, the same in the printed and the HTML table.
    HEAD = ("词 (token)", "位置 pos", "词向量 (word vector)", "位置编码 PE(pos)", "输入 = 词向量 + PE")

    def caption(self) -> str:
        """``d_model = 2，base = 10000``: the settings the table was computed with."""
        return f"d_model = {self.d_model}，base = {self.base:g}"

    def __str__(self) -> str:
        return "\n".join([self.caption(), *_aligned_table(self.HEAD, self.rows())])

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        # Padded cells that never wrap (a long vector stays on one line); the wrapper scrolls
        # sideways when d_model makes the table wider than the notebook.
        pad = "padding:2px 8px;white-space:nowrap;text-align:left"
        cells = "".join(f"<th style='{pad}'>{html.escape(h)}</th>" for h in self.HEAD)
        body = "".join(
            "<tr>" + "".join(f"<td style='{pad};font-family:monospace;font-size:0.9em'>{html.escape(str(c))}</td>"
                             for c in r) + "</tr>"
            for r in self.rows()
        )
        return (f"<div style='overflow-x:auto'><table class='posenc-hand-calc' style='border-collapse:collapse'>"
                f"<caption>{html.escape(self.caption())}</caption>"
                f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div>")


def hand_calculation(tokens=("猫", "咬", "狗"), word_vectors=None, start: int = 1,
                     d_model: int = 2, base: float = 10000.0) -> HandCalculation:
    """The common 猫咬狗 hand calculation (and variations): word vector + PE for each token.

    With no arguments: 猫, 咬, 狗 at positions 1, 2, 3, d_model = 2, every word vector
    [0.5, 0.5], as a common tutorial writes it. ``word_vectors`` may be one vector (shared by every token) or one row
    per token, each of length ``d_model``.
    Introduced in notebook 02_sinusoidal_hand_calculation.
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
            raise ValueError(
                f"word_vectors must have shape ({d_model},) or ({n}, {d_model}) for {n} tokens "
                f"and d_model = {d_model}, got {np.shape(word_vectors)} / word_vectors 的形状必须是 "
                f"({d_model},) 或 ({n}, {d_model})"
            )
    pe = sinusoidal_encoding(n, d_model, base, start=start)
    return HandCalculation(tokens, np.arange(start, start + n), wv, pe, wv + pe, d_model, base)
