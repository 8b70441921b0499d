"""posenc_lib: the one helper module behind the positional-encoding notebooks.

Three layers, as in the house style:

* **Compute** -- pure numpy functions (torch only where the lesson is about torch),
  every argument checked up front.
* **Plot** -- ``plot_*(..., ax=None) -> Figure``; never ``plt.show()``, never global
  rcParams.
* **Explore** -- small objects that build one figure and update its artists in place
  when a slider moves (``EXPLORERS`` maps a short name to a factory).

Conventions used everywhere: ``PE[pos, 2i] = sin(pos * w_i)``,
``PE[pos, 2i+1] = cos(pos * w_i)``, ``w_i = base ** (-2i / d_model)``, ``base = 10000``,
positions start at 0 unless ``start`` says otherwise.

``import posenc_lib`` does not import torch: the torch parts
(``SinusoidalPositionalEncoding``, ``LearnedPositionalEmbedding``, ...) load it the
first time they are used.
"""
from __future__ import annotations

import contextlib
import functools
import html
import io
import math
import numbers
import os
import time
import zlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

__version__ = "1.0.0"

#: Largest table (seq_len * d_model numbers) a function will build: 2**26 float64
#: values = 512 MiB. Anything larger is refused instead of killing the kernel.
MAX_TABLE_ELEMENTS = 2**26

LAYOUTS = ("interleaved", "split")


# ---------------------------------------------------------------------------
# Argument checks (shared by every public function)
# ---------------------------------------------------------------------------
def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    if not _is_int(value):
        raise TypeError(
            f"{name} must be an integer, got {value!r} ({type(value).__name__}) / "
            f"{name} 必须是整数，收到的是 {value!r}"
        )
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        allowed = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(
            f"{name} must be {allowed}, got {value} / {name} 必须 {allowed}，收到的是 {value}"
        )
    return value


def _check_d_model(d_model) -> int:
    d_model = _check_int("d_model", d_model, 1)
    if d_model % 2:
        raise ValueError(
            f"d_model must be a positive even integer (each sin/cos pair needs two columns), "
            f"got {d_model} / d_model 必须是正偶数（每对 sin/cos 占两列），收到的是 {d_model}"
        )
    return d_model


def _check_real(name: str, value, *, greater_than: float | None = None) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} / {name} 必须是实数，收到的是 {value!r}"
        )
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value} / {name} 必须是有限数，收到的是 {value}")
    if greater_than is not None and value <= greater_than:
        raise ValueError(
            f"{name} must be > {greater_than:g}, got {value:g} / {name} 必须大于 {greater_than:g}，"
            f"收到的是 {value:g}"
        )
    return value


def _check_base(base) -> float:
    return _check_real("base", base, greater_than=1.0)


def _check_layout(layout) -> str:
    if layout not in LAYOUTS:
        raise ValueError(
            f"layout must be one of {LAYOUTS}, got {layout!r} / layout 只能是 {LAYOUTS} 之一，"
            f"收到的是 {layout!r}"
        )
    return layout


def _check_array(name: str, value, ndim: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers / {name} 必须是数值数组: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(
            f"{name} must be a {ndim}-D array, got shape {arr.shape} / {name} 必须是 {ndim} 维数组，"
            f"收到的形状是 {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf / {name} 含有 NaN 或 inf")
    return arr


def _check_table_size(seq_len: int, d_model: int) -> None:
    if seq_len * d_model > MAX_TABLE_ELEMENTS:
        raise ValueError(
            f"seq_len * d_model = {seq_len} * {d_model} = {seq_len * d_model:,} numbers is too "
            f"large (limit {MAX_TABLE_ELEMENTS:,}, about 512 MiB) / 表太大：seq_len × d_model = "
            f"{seq_len * d_model:,}，超过上限 {MAX_TABLE_ELEMENTS:,}（约 512 MiB）"
        )


# ---------------------------------------------------------------------------
# Compute: the sinusoidal table and its properties
# ---------------------------------------------------------------------------
def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``w_i = base ** (-2i / d_model)`` for i = 0 .. d_model/2 - 1.

    Pair i (columns 2i, 2i+1) turns by ``w_i`` radians per position.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    d_model = _check_d_model(d_model)
    base = _check_base(base)
    i = np.arange(d_model // 2, dtype=float)
    return base ** (-2.0 * i / d_model)


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Wavelengths ``2*pi / w_i``: how many positions pair i needs for one full turn.

    They run from 2*pi (i = 0) to ``2*pi * base ** ((d_model - 2) / d_model)``.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    return 2.0 * np.pi / frequencies(d_model, base)


def _check_positions(positions) -> np.ndarray:
    arr = _check_array("positions", positions)
    if arr.ndim != 1:
        raise ValueError(
            f"positions must be a 1-D sequence, got shape {arr.shape} / positions 必须是一维序列"
        )
    return arr


def encode_positions(positions, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The interleaved PE rows for arbitrary (possibly non-integer) ``positions``.

    Returns an array of shape ``(len(positions), d_model)``.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    pos = _check_positions(positions)
    w = frequencies(d_model, base)
    _check_table_size(len(pos), d_model)
    angles = pos[:, None] * w[None, :]
    out = np.empty((len(pos), len(w) * 2))
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles)
    return out


def sinusoidal_encoding(
    seq_len: int,
    d_model: int,
    base: float = 10000.0,
    start: int = 0,
    layout: str = "interleaved",
) -> np.ndarray:
    """The sinusoidal positional-encoding table of shape ``(seq_len, d_model)``.

    Row r is position ``start + r``. With ``layout="interleaved"`` (the paper's order)
    column 2i holds ``sin(pos * w_i)`` and column 2i+1 holds ``cos(pos * w_i)``; with
    ``layout="split"`` (tensor2tensor / Marian) the first half holds all the sines and
    the second half all the cosines, same frequencies.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    seq_len = _check_int("seq_len", seq_len, 1)
    d_model = _check_d_model(d_model)
    base = _check_base(base)
    start = _check_int("start", start, 0)
    layout = _check_layout(layout)
    _check_table_size(seq_len, d_model)
    pe = encode_positions(np.arange(start, start + seq_len, dtype=float), d_model, base)
    if layout == "split":
        pe = np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)
    return pe


def split_permutation(d_model: int) -> np.ndarray:
    """Column order taking the interleaved table to the split one.

    ``sinusoidal_encoding(..., layout="split") == interleaved[:, split_permutation(d)]``.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    d_model = _check_d_model(d_model)
    return np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])


def relative_rotation(k: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The block-diagonal matrix ``R_k`` with ``PE(pos + k) = R_k @ PE(pos)`` for every pos.

    One 2x2 block per pair: ``[[cos(k w_i), sin(k w_i)], [-sin(k w_i), cos(k w_i)]]``
    (sin-first pair order). It depends on the offset ``k`` only; ``k`` may be negative.
    Introduced in notebook 04_relative_position.
    """
    k = _check_real("k", k)
    w = frequencies(d_model, base)
    c, s = np.cos(k * w), np.sin(k * w)
    r = np.zeros((d_model, d_model))
    idx = np.arange(0, d_model, 2)
    r[idx, idx] = c
    r[idx, idx + 1] = s
    r[idx + 1, idx] = -s
    r[idx + 1, idx + 1] = c
    return r


def pe_dot_by_offset(k, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``PE(p) . PE(p + k) = sum_i cos(k * w_i)`` for each offset in ``k``.

    Independent of p, equal for +k and -k, and not monotone in |k|.
    Introduced in notebook 04_relative_position.
    """
    ks = _check_array("k", k)
    w = frequencies(d_model, base)
    return np.cos(np.multiply.outer(ks, w)).sum(axis=-1)


def binary_bits(pos: int, n_bits: int = 8) -> np.ndarray:
    """The binary counter of ``pos``: bit k (k = 0 first) flips every 2**k steps.

    Introduced in notebook 03_clock_hands_frequencies.
    """
    pos = _check_int("pos", pos, 0)
    n_bits = _check_int("n_bits", n_bits, 1, 62)
    return (pos >> np.arange(n_bits)) & 1


def softmax(scores, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Introduced in notebook 01_permutation_invariance.
    """
    scores = _check_array("scores", scores)
    shifted = scores - scores.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def self_attention(x, w_q, w_k, w_v):
    """Plain scaled dot-product self-attention, no mask.

    ``x`` is ``(seq_len, d_in)``; ``w_q``, ``w_k`` are ``(d_in, d_k)``, ``w_v`` is
    ``(d_in, d_v)``. Returns ``(outputs, weights)`` with
    ``weights = softmax(Q K^T / sqrt(d_k))`` of shape ``(seq_len, seq_len)`` and
    ``outputs = weights @ V`` of shape ``(seq_len, d_v)``.
    Introduced in notebook 01_permutation_invariance.
    """
    x = _check_array("x", x, ndim=2)
    if x.shape[0] < 1:
        raise ValueError("x must hold at least one token (row) / x 至少要有一个词（一行）")
    mats = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        w = _check_array(name, w, ndim=2)
        if w.shape[0] != x.shape[1]:
            raise ValueError(
                f"{name} must have {x.shape[1]} rows to match x's width, got shape {w.shape} / "
                f"{name} 的行数必须等于 x 的列数 {x.shape[1]}，收到的形状是 {w.shape}"
            )
        mats[name] = w
    if mats["w_q"].shape[1] != mats["w_k"].shape[1]:
        raise ValueError(
            "w_q and w_k must have the same number of columns (d_k) / w_q 与 w_k 的列数 (d_k) 必须相同"
        )
    q, k, v = x @ mats["w_q"], x @ mats["w_k"], x @ mats["w_v"]
    weights = softmax(q @ k.T / math.sqrt(q.shape[1]), axis=-1)
    return weights @ v, weights


# ---------------------------------------------------------------------------
# Compute: the permutation demo (notebook 01)
# ---------------------------------------------------------------------------
#: English glosses, used in figures when no CJK font is installed.
GLOSS = {
    "猫": "cat", "狗": "dog", "咬": "bites", "我": "I", "你": "you", "爱": "love",
    "打": "hit", "鼠": "mouse", "鸡": "hen", "牛": "ox", "羊": "sheep", "兔": "rabbit",
    "马": "horse", "追": "chases", "。": ".",
}


def _check_tokens(tokens) -> tuple[str, ...]:
    if isinstance(tokens, str):
        tokens = tuple(tokens)
    try:
        tokens = tuple(tokens)
    except TypeError:
        raise TypeError("tokens must be a string or a sequence of strings / tokens 必须是字符串或字符串序列") from None
    if not tokens:
        raise ValueError("tokens must not be empty / tokens 不能为空")
    for t in tokens:
        if not isinstance(t, str) or not t:
            raise TypeError(f"every token must be a non-empty string, got {t!r} / 每个词必须是非空字符串")
    return tokens


def token_vectors(tokens, d_model: int, seed: int = 0) -> np.ndarray:
    """A fixed pseudo-random word vector per token (same token -> same vector, any run).

    Each vector is drawn from N(0, 1/d_model) seeded by the token's text and ``seed``,
    so 猫 has the same vector in 猫咬狗 and in 狗咬猫. Shape ``(len(tokens), d_model)``.
    Introduced in notebook 01_permutation_invariance.
    """
    tokens = _check_tokens(tokens)
    d_model = _check_int("d_model", d_model, 1)
    seed = _check_int("seed", seed, 0)
    rows = []
    for t in tokens:
        rng = np.random.default_rng([zlib.crc32(t.encode("utf-8")), seed])
        rows.append(rng.normal(0.0, 1.0 / math.sqrt(d_model), d_model))
    return np.array(rows)


@dataclass
class AttentionDemo:
    """Result of :func:`attention_demo`: everything the permutation figures show."""

    tokens: tuple
    x: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray
    use_pe: bool

    @property
    def pooled(self) -> np.ndarray:
        """The sentence vector: the mean of the per-token outputs."""
        return self.outputs.mean(axis=0)

    def output_of(self, token: str) -> np.ndarray:
        """The output row of the first occurrence of ``token``."""
        return self.outputs[self.tokens.index(token)]


def attention_weights_for_demo(d_model: int, seed: int = 0):
    """The fixed random ``(w_q, w_k, w_v)`` used by :func:`attention_demo`.

    Introduced in notebook 01_permutation_invariance.
    """
    d_model = _check_d_model(d_model)
    rng = np.random.default_rng(_check_int("seed", seed, 0) + 1000)
    return tuple(rng.normal(0.0, 1.0 / math.sqrt(d_model), (d_model, d_model)) for _ in range(3))


def attention_demo(tokens="猫咬狗", d_model: int = 4, use_pe: bool = False, seed: int = 0,
                   base: float = 10000.0) -> AttentionDemo:
    """Self-attention on a short sentence, with or without sinusoidal PE added.

    Word vectors come from :func:`token_vectors`, projections from
    :func:`attention_weights_for_demo`; with ``use_pe`` the PE of positions 0, 1, ...
    is added to the word vectors first.
    Introduced in notebook 01_permutation_invariance.
    """
    tokens = _check_tokens(tokens)
    d_model = _check_d_model(d_model)
    x = token_vectors(tokens, d_model, seed)
    if use_pe:
        x = x + sinusoidal_encoding(len(tokens), d_model, base)
    outputs, weights = self_attention(x, *attention_weights_for_demo(d_model, seed))
    return AttentionDemo(tokens, x, weights, outputs, bool(use_pe))


# ---------------------------------------------------------------------------
# Compute: the hand calculation (notebook 02)
# ---------------------------------------------------------------------------
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

    @staticmethod
    def _fmt(v) -> str:
        return "[" + ", ".join(f"{x:.4f}" for x in v) + "]"

    def rows(self) -> list[tuple]:
        """(token, pos, word vector, PE, output) per token, vectors as 4-decimal strings."""
        return [
            (t, int(p), self._fmt(w), self._fmt(e), self._fmt(o))
            for t, p, w, e, o in zip(self.tokens, self.positions, self.word_vectors,
                                     self.encodings, self.outputs)
        ]

    def __str__(self) -> str:
        head = ("token", "pos", "word vector", "PE(pos)", "word vector + PE")
        rows = [head] + [tuple(str(c) for c in r) for r in self.rows()]
        widths = [max(len(r[j]) for r in rows) for j in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"HandCalculation(d_model={self.d_model}, base={self.base:g})\n{self}"

    def _repr_html_(self) -> str:
        head = ("词 (token)", "位置 pos", "词向量 (word vector)", "位置编码 PE(pos)",
                "输入 = 词向量 + PE")
        cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
        body = "".join(
            "<tr>" + "".join(f"<td style='text-align:left;font-family:monospace'>"
                             f"{html.escape(str(c))}</td>" for c in r) + "</tr>"
            for r in self.rows()
        )
        caption = f"d_model = {self.d_model}, base = {self.base:g}"
        return (f"<table class='posenc-hand-calc'><caption>{html.escape(caption)}</caption>"
                f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>")


def hand_calculation(tokens=("猫", "咬", "狗"), word_vectors=None, start: int = 1,
                     d_model: int = 2, base: float = 10000.0) -> HandCalculation:
    """Reproduce (and vary) seed 001's table: word vector + PE for each token.

    With no arguments: 猫, 咬, 狗 at positions 1, 2, 3, d_model = 2, every word vector
    [0.5, 0.5]. ``word_vectors`` may be one vector (shared by every token) or one row
    per token, each of length ``d_model``.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    tokens = _check_tokens(tokens)
    d_model = _check_d_model(d_model)
    base = _check_base(base)
    start = _check_int("start", start, 0)
    n = len(tokens)
    if word_vectors is None:
        wv = np.full((n, d_model), 0.5)
    else:
        wv = _check_array("word_vectors", word_vectors)
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


# ---------------------------------------------------------------------------
# Compute: RoPE and ALiBi (notebook 07)
# ---------------------------------------------------------------------------
def rope(x, positions, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding: rotate each (even, odd) pair of ``x`` by ``pos * w_i``.

    ``x`` has shape ``(..., seq_len, d)`` with d even; ``positions`` has length seq_len.
    ``[x0, x1] -> [x0 cos t - x1 sin t, x0 sin t + x1 cos t]``, ``t = pos * w_i``, so
    ``rope(q, m) . rope(k, n)`` depends on ``n - m`` only.
    Introduced in notebook 07_rope_alibi.
    """
    x = _check_array("x", x)
    if x.ndim < 2:
        raise ValueError("x must have shape (..., seq_len, d) / x 的形状必须是 (..., seq_len, d)")
    pos = _check_positions(positions)
    if len(pos) != x.shape[-2]:
        raise ValueError(
            f"positions has {len(pos)} entries but x has seq_len = {x.shape[-2]} / positions 的长度"
            f"必须等于 x 的 seq_len"
        )
    w = frequencies(x.shape[-1], base)
    t = pos[:, None] * w[None, :]
    c, s = np.cos(t), np.sin(t)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x0 * c - x1 * s
    out[..., 1::2] = x0 * s + x1 * c
    return out


def alibi_slopes(num_heads: int) -> np.ndarray:
    """ALiBi head slopes ``m_h = 2 ** (-8 h / H)`` for h = 1 .. H.

    This is the paper's rule for H a power of 2 (8 heads: 1/2 ... 1/256). For other H the
    reference code interleaves slopes from the two neighbouring powers of 2; here the
    formula is applied as written for every H.
    Introduced in notebook 07_rope_alibi.
    """
    num_heads = _check_int("num_heads", num_heads, 1, 1024)
    return 2.0 ** (-8.0 * np.arange(1, num_heads + 1) / num_heads)


def alibi_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi biases ``-m_h * |i - j|`` of shape ``(num_heads, seq_len, seq_len)``.

    Added to the attention scores before the softmax; no position vectors at all.
    Introduced in notebook 07_rope_alibi.
    """
    seq_len = _check_int("seq_len", seq_len, 1)
    slopes = alibi_slopes(num_heads)
    _check_table_size(seq_len * seq_len, len(slopes))
    dist = np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])
    return -slopes[:, None, None] * dist[None, :, :]


# ---------------------------------------------------------------------------
# Exercises: check_* helpers answer 正确 / 再想想 with a hint
# ---------------------------------------------------------------------------
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


def _answer_array(answer, shape) -> np.ndarray | None:
    try:
        arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return None
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        return None
    return arr


def check_value(answer, expected, *, tol: float = 5e-4, hint: str = "") -> Verdict:
    """Compare a reader's number (or list of numbers) with the computed one.

    Correct when every entry is within ``tol`` (default: 4-decimal rounding).
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    expected = np.asarray(expected, dtype=float)
    if answer is None:
        return Verdict(False, "先把 None 换成你的答案，再运行这个单元格。")
    arr = _answer_array(answer, expected.shape)
    if arr is None:
        return Verdict(False, f"答案应是形状为 {expected.shape} 的数（或数组）。 {hint}".strip())
    if np.allclose(arr, expected, atol=tol, rtol=0):
        return Verdict(True, f"与计算结果一致（误差 ≤ {tol:g}）。")
    return Verdict(False, hint or "与计算结果不一致，检查每一步。")


def check_pe(pos: int, answer, d_model: int = 2, base: float = 10000.0) -> Verdict:
    """Check a hand-calculated PE(pos) vector (4 decimals are enough).

    Recognises the classic slips: degrees instead of radians, sin and cos swapped,
    dividing by the frequency instead of multiplying.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    pos = _check_int("pos", pos, 0)
    right = encode_positions([pos], d_model, base)[0]
    arr = _answer_array(answer, right.shape)
    if arr is None:
        return Verdict(False, f"PE({pos}) 应该是长度为 {d_model} 的列表，例如 [sin, cos, ...]。")
    if np.allclose(arr, right, atol=5e-4):
        return Verdict(True, f"PE({pos}) = {HandCalculation._fmt(right)}。")
    w = frequencies(d_model, base)
    slips = {
        "你用的是角度制 (degrees)；numpy 的 sin/cos 用弧度制 (radians)：sin(1) 指 1 弧度。":
            encode_positions([math.radians(pos)], d_model, base)[0],
        "sin 与 cos 放反了：偶数列 2i 放 sin，奇数列 2i+1 放 cos。":
            np.roll(right.reshape(-1, 2), 1, axis=1).ravel(),
    }
    wrong_angles = pos / w
    divided = np.empty_like(right)
    divided[0::2], divided[1::2] = np.sin(wrong_angles), np.cos(wrong_angles)
    slips["角度应是 pos × w_i（w_i = base^(-2i/d_model)），你用了 pos ÷ w_i。"] = divided
    for msg, value in slips.items():
        if np.allclose(arr, value, atol=5e-4):
            return Verdict(False, msg)
    bad = int(np.argmax(np.abs(arr - right) > 5e-4))
    return Verdict(False, f"第 {bad} 维不对：它是第 {bad // 2} 对，角度 = pos × w_{bad // 2}，"
                          f"偶数维用 sin、奇数维用 cos。")


def check_wavelength(i: int, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check the wavelength (positions per full turn) of pair ``i``.

    Introduced in notebook 03_clock_hands_frequencies.
    """
    d_model = _check_d_model(d_model)
    i = _check_int("i", i, 0, d_model // 2 - 1)
    right = wavelengths(d_model, base)[i]
    return check_value(answer, right, tol=max(5e-4, 1e-3 * right),
                       hint=f"波长 = 2π / w_i，w_i = base^(-2i/d_model)；这里 2i/d_model = {2 * i}/{d_model}。")


def check_dot_product(k: int, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check ``PE(p) . PE(p + k)`` (the same for every p).

    Introduced in notebook 04_relative_position.
    """
    right = float(pe_dot_by_offset([k], d_model, base)[0])
    return check_value(answer, right, hint="每一对贡献 sin·sin + cos·cos = cos(k·w_i)，把各对加起来。")


# ---------------------------------------------------------------------------
# Fonts: Chinese in figures
# ---------------------------------------------------------------------------
_CJK_FAMILIES = (
    "Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "PingFang SC",
    "Hiragino Sans GB", "Microsoft YaHei", "SimHei", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
    "Noto Sans CJK JP", "Arial Unicode MS",
)
_CJK_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/Hiragino Sans GB.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/simhei.ttf",
)
CJK_INSTALL_HINT = (
    "No Chinese (CJK) font found: figures use English glosses. To see Chinese labels, "
    "install one and restart the kernel — Debian/Ubuntu: `sudo apt-get install fonts-noto-cjk`; "
    "macOS and Windows ship PingFang / Microsoft YaHei. / 未找到中文字体，图中改用英文标注；"
    "安装 fonts-noto-cjk 后重启内核即可显示中文。"
)


@functools.lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The CJK font family figures use, or None when the machine has none.

    Registers the font file with matplotlib when its font cache predates the install.
    Set the environment variable ``POSENC_NO_CJK=1`` to test the fallback.
    Introduced in notebook 01_permutation_invariance.
    """
    if os.environ.get("POSENC_NO_CJK"):
        return None
    from matplotlib import font_manager

    def known() -> set:
        return {f.name for f in font_manager.fontManager.ttflist}

    names = known()
    for fam in _CJK_FAMILIES:
        if fam in names:
            return fam
    for path in _CJK_FILES:
        if os.path.exists(path):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue
            names = known()
            for fam in _CJK_FAMILIES:
                if fam in names:
                    return fam
    return None


def label(zh: str, en: str) -> str:
    """``zh`` when a CJK font is available, else the English ``en`` (no tofu boxes).

    Introduced in notebook 01_permutation_invariance.
    """
    return zh if cjk_font() else en


def token_label(token: str) -> str:
    """A token as figures show it: itself with a CJK font, its English gloss without.

    Introduced in notebook 01_permutation_invariance.
    """
    if cjk_font():
        return token
    return GLOSS.get(token, token.encode("ascii", "replace").decode())


@contextlib.contextmanager
def figure_style():
    """Temporary matplotlib settings for this course's figures (never global).

    ``font.family`` lists DejaVu Sans first and the CJK font second, which gives
    per-character fallback for mixed Chinese/English labels.
    Introduced in notebook 01_permutation_invariance.
    """
    import matplotlib

    fam = ["DejaVu Sans"] + ([cjk_font()] if cjk_font() else [])
    with matplotlib.rc_context({"font.family": fam, "font.size": 9, "axes.titlesize": 10,
                                "axes.unicode_minus": False, "figure.dpi": 100,
                                "savefig.dpi": 100}):
        yield


def notebook_setup(seed: int = 0) -> np.random.Generator:
    """The setup cell's helper: print versions and the font status, return an RNG.

    Introduced in notebook 01_permutation_invariance.
    """
    import matplotlib

    print(f"posenc_lib {__version__} | numpy {np.__version__} | matplotlib {matplotlib.__version__}")
    font = cjk_font()
    print(f"中文字体 (CJK font): {font}" if font else CJK_INSTALL_HINT)
    np.set_printoptions(precision=4, suppress=True)
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------
# Plot: plot_*(..., ax=None) -> Figure
# ---------------------------------------------------------------------------
def _adopt_axes(ax):
    """Give axes made outside figure_style() the course's fonts; return their figure.

    Their title and axis labels exist already, so only the font list is changed, or
    Chinese text in them would have no glyphs. Call inside figure_style().
    """
    import matplotlib

    family = matplotlib.rcParams["font.family"]
    for text in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label):
        text.set_fontfamily(family)
    return ax.get_figure()


def _new_axes(ax, figsize, ncols: int = 1):
    from matplotlib.figure import Figure

    if ax is not None:
        return _adopt_axes(ax), ax
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


class _PEHeatmapView:
    """Artists for the PE-table heatmap; ``update`` changes them in place."""

    def __init__(self, ax, cax=None):
        self.ax = ax
        self.image = ax.imshow(np.zeros((2, 2)), cmap="RdBu_r", vmin=-1, vmax=1,
                               aspect="auto", interpolation="nearest", extent=(0, 1, 1, 0))
        ax.set_xlim(0, 1)
        ax.set_ylim(1, 0)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(label("维度 (dimension) →", "dimension →"), labelpad=14)
        ax.set_ylabel(label("← 位置 pos", "← position pos"), labelpad=22)
        self.title = ax.set_title(" ")
        self.xticks = [ax.text(0, 1.0, "", transform=ax.transAxes, ha="center", va="top",
                               fontsize=8) for _ in range(6)]
        self.yticks = [ax.text(0, 0, "", transform=ax.transAxes, ha="right", va="center",
                               fontsize=8) for _ in range(6)]
        if cax is not None:
            ax.get_figure().colorbar(self.image, cax=cax)

    def artists(self):
        return [self.image, self.title, *self.xticks, *self.yticks]

    @staticmethod
    def _place(texts, n, along_x):
        from matplotlib.ticker import MaxNLocator

        values = [v for v in MaxNLocator(nbins=5, integer=True).tick_values(0, n - 1) if 0 <= v <= n - 1]
        for j, t in enumerate(texts):
            if j < len(values):
                frac = (values[j] + 0.5) / n
                t.set_position((frac, -0.02) if along_x else (-0.01, 1 - frac))
                t.set_text(f"{int(values[j])}")
                t.set_visible(True)
            else:
                t.set_visible(False)

    def update(self, seq_len, d_model, base, layout):
        pe = sinusoidal_encoding(seq_len, d_model, base, layout=layout)
        self.image.set_data(pe)
        self._place(self.xticks, d_model, True)
        self._place(self.yticks, seq_len, False)
        self.title.set_text(f"PE: seq_len={seq_len}, d_model={d_model}, base={base:g}, {layout}")


def plot_pe_heatmap(seq_len: int = 50, d_model: int = 64, base: float = 10000.0,
                    layout: str = "interleaved", ax=None):
    """Heatmap of the full PE table (rows = positions, columns = dimensions).

    Introduced in notebook 03_clock_hands_frequencies.
    """
    sinusoidal_encoding(seq_len, d_model, base, layout=layout)  # validate first
    with figure_style():
        fig, ax = _new_axes(ax, (6.5, 3.4))
        view = _PEHeatmapView(ax)
        fig.colorbar(view.image, ax=ax, shrink=0.9)
        view.update(seq_len, d_model, base, layout)
    return fig


class _ClockView:
    """One clock face per (sin, cos) pair plus the binary counter of pos."""

    MAX_PAIRS = 8

    def __init__(self, ax_clock, ax_bits):
        from matplotlib.patches import Circle, Rectangle

        self.ax, self.axb = ax_clock, ax_bits
        n = self.MAX_PAIRS
        self.centers = [(2.5 * i, 0.0) for i in range(n)]
        self.faces, self.hands, self.tips, self.captions = [], [], [], []
        for cx, cy in self.centers:
            face = Circle((cx, cy), 1.0, fill=False, lw=1.2, color="0.4")
            ax_clock.add_patch(face)
            for a in range(12):
                t = 2 * np.pi * a / 12
                ax_clock.plot([cx + 0.88 * np.sin(t), cx + np.sin(t)],
                              [cy + 0.88 * np.cos(t), cy + np.cos(t)], color="0.6", lw=0.8)
            self.faces.append(face)
            (hand,) = ax_clock.plot([cx, cx], [cy, cy + 0.9], lw=2.5, color="C3",
                                    solid_capstyle="round")
            (tip,) = ax_clock.plot([cx], [cy + 0.9], "o", color="C3", ms=4)
            self.hands.append(hand)
            self.tips.append(tip)
            self.captions.append([ax_clock.text(cx, cy - 1.2 - 0.38 * r, "", ha="center", va="top",
                                                fontsize=7.5) for r in range(3)])
        for r, name in enumerate(("i", "w_i", label("波长", "λ"))):
            ax_clock.text(-1.35, -1.2 - 0.38 * r, name, ha="right", va="top", fontsize=7.5, color="0.35")
        ax_clock.set_xlim(-2.3, 2.5 * (n - 1) + 1.3)
        ax_clock.set_ylim(-2.35, 1.35)
        ax_clock.set_aspect("equal")
        ax_clock.axis("off")
        ax_clock.set_title(label("每个钟 = 一对 (sin, cos)，指针尖 = (PE[2i], PE[2i+1])",
                                 "one clock per (sin, cos) pair; tip = (PE[2i], PE[2i+1])"))
        self.pos_text = ax_clock.text(-1.3, 1.35, " ", ha="left", va="bottom", fontsize=11,
                                      fontweight="bold")
        self.bits, self.bit_text = [], []
        for k in range(n):
            cx = 2.5 * k
            rect = Rectangle((cx - 0.45, 0.05), 0.9, 0.9, facecolor="white", edgecolor="0.3")
            ax_bits.add_patch(rect)
            self.bits.append(rect)
            self.bit_text.append(ax_bits.text(cx, 0.5, "0", ha="center", va="center", fontsize=10))
            ax_bits.text(cx, -0.05, label(f"bit {k}\n每 {2 ** k} 步翻转", f"bit {k}\nflips every {2 ** k}"),
                         ha="center", va="top", fontsize=7)
        ax_bits.set_xlim(-2.3, 2.5 * (n - 1) + 1.3)
        ax_bits.set_ylim(-0.9, 1.0)
        ax_bits.set_aspect("equal")
        ax_bits.axis("off")
        ax_bits.text(-1.3, 1.0, label("二进制计数器 (binary counter)：pos 的低 8 位，bit 0 在最左",
                                      "binary counter: low 8 bits of pos, bit 0 on the left"),
                     ha="left", va="bottom", fontsize=9)

    def artists(self):
        return [*self.faces, *self.hands, *self.tips, *sum(self.captions, []), self.pos_text,
                *self.bits, *self.bit_text]

    def pos_artists(self):
        """What a change of pos alone can change."""
        return [*self.hands, *self.tips, self.pos_text, *self.bits, *self.bit_text]

    def update(self, pos, d_model, base):
        w = frequencies(d_model, base)
        n_pairs = len(w)
        shown = min(n_pairs, self.MAX_PAIRS)
        # With more pairs than faces, show evenly spaced pairs from the fastest to the slowest.
        idx = np.unique(np.round(np.linspace(0, n_pairs - 1, shown)).astype(int))
        for j in range(self.MAX_PAIRS):
            cx, cy = self.centers[j]
            on = j < len(idx)
            self.faces[j].set_alpha(1.0 if on else 0.15)
            self.hands[j].set_visible(on)
            self.tips[j].set_visible(on)
            for t in self.captions[j]:
                t.set_visible(on)
            if not on:
                continue
            i = idx[j]
            theta = pos * w[i]
            x, y = np.sin(theta), np.cos(theta)  # tip = (PE[2i], PE[2i+1])
            self.hands[j].set_data([cx, cx + 0.9 * x], [cy, cy + 0.9 * y])
            self.tips[j].set_data([cx + 0.9 * x], [cy + 0.9 * y])
            for t, text in zip(self.captions[j], (f"{i}", f"{w[i]:.3g}", f"{2 * np.pi / w[i]:.3g}")):
                t.set_text(text)
        self.pos_text.set_text(f"pos = {pos}")
        bits = binary_bits(pos, self.MAX_PAIRS)
        for rect, txt, b in zip(self.bits, self.bit_text, bits):
            rect.set_facecolor("C0" if b else "white")
            txt.set_text(str(int(b)))
            txt.set_color("white" if b else "0.2")


def plot_clock(pos: int = 3, d_model: int = 16, base: float = 10000.0, ax=None):
    """Clock faces for every pair at position ``pos`` and its binary counter.

    With ``ax`` given, only the clocks are drawn into it.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    pos = _check_int("pos", pos, 0)
    frequencies(d_model, base)
    with figure_style():
        if ax is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(9, 3.2), layout="constrained")
            ax, axb = fig.subplots(2, 1, height_ratios=[2.2, 1])
        else:
            fig = _adopt_axes(ax)
            axb = ax.inset_axes([0, -0.5, 1, 0.45])
        view = _ClockView(ax, axb)
        view.update(pos, d_model, base)
    return fig


def plot_wavelengths(d_model: int = 512, bases=(10000.0,), ax=None):
    """Wavelength of every pair on a log axis, for one or more ``base`` values.

    Introduced in notebook 03_clock_hands_frequencies.
    """
    if isinstance(bases, numbers.Real):
        bases = (bases,)
    lams = [wavelengths(d_model, b) for b in bases]
    with figure_style():
        fig, ax = _new_axes(ax, (6, 3.2))
        i = np.arange(d_model // 2)
        for b, lam in zip(bases, lams):
            ax.plot(i, lam, label=f"base = {b:g}: {lam[0]:.3g} … {lam[-1]:.3g}")
        ax.set_yscale("log")
        ax.axhline(2 * np.pi, color="0.6", lw=0.8, ls="--")
        ax.set_xlabel(label("对的编号 i (pair index)", "pair index i"))
        ax.set_ylabel(label("波长 2π/w_i（位置数，对数轴）", "wavelength 2π/w_i (log)"))
        ax.set_title(f"d_model = {d_model}")
        ax.legend(fontsize=8)
    return fig


def plot_dot_product(d_model: int = 64, base: float = 10000.0, k_max: int = 100, ax=None):
    """``PE(p) . PE(p + k)`` against the offset k in [-k_max, k_max].

    Introduced in notebook 04_relative_position.
    """
    k_max = _check_int("k_max", k_max, 1, 100000)
    ks = np.arange(-k_max, k_max + 1)
    dots = pe_dot_by_offset(ks, d_model, base)
    with figure_style():
        fig, ax = _new_axes(ax, (6, 3))
        ax.plot(ks, dots, lw=1.2)
        ax.axvline(0, color="0.6", lw=0.8)
        ax.set_xlabel(label("偏移 k (offset)", "offset k"))
        ax.set_ylabel("PE(p)·PE(p+k)")
        ax.set_title(f"d_model = {d_model}, base = {base:g}")
    return fig


class _HandCalcView:
    """Arrows in one pair's plane: word vector, + PE, = input, per token."""

    LIM = 2.3

    def __init__(self, ax, pair_name):
        from matplotlib.patches import Circle

        self.ax = ax
        ax.set_xlim(-self.LIM, self.LIM)
        ax.set_ylim(-self.LIM, self.LIM)
        ax.set_aspect("equal")
        ax.grid(True, lw=0.4, alpha=0.5)
        ax.axhline(0, color="0.5", lw=0.6)
        ax.axvline(0, color="0.5", lw=0.6)
        ax.add_patch(Circle((0, 0), 1.0, fill=False, ls=":", color="0.6"))
        self.pair_name = pair_name
        kw = dict(angles="xy", scale_units="xy", scale=1, width=0.012)
        z = np.zeros(3)
        self.word = ax.quiver(z, z, z, z, color="0.55", **kw)
        self.pe = ax.quiver(z, z, z, z, color=["C0", "C1", "C2"], **kw)
        self.labels = [ax.text(0, 0, "", fontsize=10, ha="left", va="bottom") for _ in range(3)]
        self.title = ax.set_title(" ")

    def artists(self):
        return [self.word, self.pe, *self.labels, self.title]

    def update(self, calc: HandCalculation, i: int, pair_name: str | None = None):
        cols = [2 * i, 2 * i + 1]
        w, p, o = calc.word_vectors[:, cols], calc.encodings[:, cols], calc.outputs[:, cols]
        zero = np.zeros((len(w), 2))
        self.word.set_offsets(zero)
        self.word.set_UVC(w[:, 0], w[:, 1])
        self.pe.set_offsets(w)
        self.pe.set_UVC(p[:, 0], p[:, 1])
        for n, (t, tok, pos, xy) in enumerate(zip(self.labels, calc.tokens, calc.positions, o)):
            # Stagger the labels so they stay readable when the arrows nearly coincide.
            t.set_position(np.clip(xy, -self.LIM, self.LIM - 0.4) + (0.05, 0.05 - 0.24 * n))
            t.set_text(f"{token_label(tok)} (pos {pos})")
        name = pair_name or self.pair_name
        self.title.set_text(label(f"{name}：第 {2 * i}、{2 * i + 1} 维（i={i}）",
                                  f"{name}: dims {2 * i}, {2 * i + 1} (i={i})"))


def plot_hand_calculation(calc: HandCalculation | None = None, ax=None):
    """Word vector (grey) + PE (colour) = input, in the plane of pair 0.

    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    calc = hand_calculation() if calc is None else calc
    if not isinstance(calc, HandCalculation):
        raise TypeError("calc must be a HandCalculation from hand_calculation() / calc 必须来自 hand_calculation()")
    if len(calc.tokens) > 3:
        raise ValueError("plot_hand_calculation draws at most 3 tokens / 最多画 3 个词")
    with figure_style():
        fig, ax = _new_axes(ax, (4, 4))
        view = _HandCalcView(ax, label("第 0 对", "pair 0"))
        view.update(calc, 0)
    return fig


class _PermutationView:
    """Attention weights (left) and per-token outputs + pooled vector (right)."""

    def __init__(self, ax_w, ax_o, d_model):
        self.ax_w, self.ax_o = ax_w, ax_o
        self.img_w = ax_w.imshow(np.zeros((3, 3)), cmap="Blues", vmin=0, vmax=1,
                                 extent=(0, 3, 3, 0))
        self.cell_text = [[ax_w.text(j + 0.5, r + 0.5, "", ha="center", va="center", fontsize=8)
                           for j in range(3)] for r in range(3)]
        self.img_o = ax_o.imshow(np.zeros((4, d_model)), cmap="RdBu_r", vmin=-1, vmax=1,
                                 extent=(0, d_model, 4, 0), aspect="auto")
        for ax in (ax_w, ax_o):
            ax.set_xticks([])
            ax.set_yticks([])
        ax_o.axhline(3, color="k", lw=1.5)
        ax_w.set_xlabel(label("被关注的词 (key)", "key token"))
        ax_o.set_xlabel(label("输出向量的维度", "output dimension"))
        self.w_rows = [ax_w.text(-0.1, r + 0.5, "", ha="right", va="center", fontsize=10) for r in range(3)]
        self.w_cols = [ax_w.text(j + 0.5, -0.1, "", ha="center", va="bottom", fontsize=10) for j in range(3)]
        self.o_rows = [ax_o.text(-0.1, r + 0.5, "", ha="right", va="center", fontsize=10) for r in range(4)]
        self.title_w = ax_w.set_title(" ", pad=26)
        self.title_o = ax_o.set_title(" ")

    def artists(self):
        return [self.img_w, self.img_o, *sum(self.cell_text, []), *self.w_rows, *self.w_cols,
                *self.o_rows, self.title_w, self.title_o]

    def update(self, demo: AttentionDemo, reference: AttentionDemo):
        self.img_w.set_data(demo.weights)
        for r in range(3):
            for j in range(3):
                v = demo.weights[r, j]
                self.cell_text[r][j].set_text(f"{v:.2f}")
                self.cell_text[r][j].set_color("white" if v > 0.6 else "black")
        names = [token_label(t) for t in demo.tokens]
        for t, n in zip(self.w_rows, names):
            t.set_text(n)
        for t, n in zip(self.w_cols, names):
            t.set_text(n)
        scale = max(1e-9, np.abs(demo.outputs).max())
        self.img_o.set_data(np.vstack([demo.outputs, demo.pooled]) / scale)
        for t, n in zip(self.o_rows, names + [label("句向量(均值)", "mean")]):
            t.set_text(n)
        same_tok = max(np.abs(demo.output_of(t) - reference.output_of(t)).max() for t in demo.tokens)
        same_pool = np.abs(demo.pooled - reference.pooled).max()
        pe = label("加 PE", "with PE") if demo.use_pe else label("不加 PE", "no PE")
        self.title_w.set_text(label(f"{''.join(demo.tokens)}（{pe}）的注意力权重",
                                    f"{' '.join(names)} ({pe}): attention weights"))
        self.title_o.set_text(label(
            f"与 {''.join(reference.tokens)} 比：同一词输出差 {same_tok:.1e}，句向量差 {same_pool:.1e}",
            f"vs {' '.join(token_label(t) for t in reference.tokens)}: same-token diff {same_tok:.1e}, "
            f"pooled diff {same_pool:.1e}"))


def plot_attention(tokens="猫咬狗", use_pe: bool = False, d_model: int = 4, reference=None, ax=None):
    """Attention weights and outputs for a 3-token sentence, compared with ``reference``.

    ``reference`` (default: the tokens sorted as in the first sentence seen) is the word
    order the difference numbers in the right-hand title refer to.
    Introduced in notebook 01_permutation_invariance.
    """
    demo = attention_demo(tokens, d_model, use_pe)
    if len(demo.tokens) != 3:
        raise ValueError("plot_attention draws 3-token sentences / 只画三个词的句子")
    ref = attention_demo(reference or tokens, d_model, use_pe)
    if sorted(ref.tokens) != sorted(demo.tokens):
        raise ValueError("reference must hold the same tokens / reference 必须由相同的词组成")
    with figure_style():
        if ax is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(8, 2.8), layout="constrained")
            ax_w, ax_o = fig.subplots(1, 2, width_ratios=[1, 1.6])
        else:
            fig = _adopt_axes(ax)
            ax_w, ax_o = ax, ax.inset_axes([1.25, 0, 1.4, 1])
        view = _PermutationView(ax_w, ax_o, d_model)
        view.update(demo, ref)
    return fig


# ---------------------------------------------------------------------------
# Explore: one figure per explorer, artists updated in place, blitted, PNG encoded
# ---------------------------------------------------------------------------
def _slider_style():
    return {"description_width": "initial"}


class Explorer:
    """Base class: controls -> update artists in place -> blit -> PNG in an Image widget.

    Subclasses create ``self.figure`` and their views in ``_build()``, list the
    artists that change in ``_animated()``, and update them in ``_update(**values)``,
    returning True when something outside those artists changed (then the whole
    figure is redrawn once). ``.controls`` maps each parameter name to its widget;
    setting ``explorer.controls[name].value`` redraws before the assignment returns.
    """

    name = "explorer"

    def __init__(self, controls: dict, extras=()):
        import ipywidgets as widgets
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.controls = controls
        with figure_style():
            self.figure = self._build()
            self._canvas = FigureCanvasAgg(self.figure)
            for a in self._animated():
                a.set_animated(True)
        self.image = widgets.Image(format="png")
        self.image.add_class("posenc-figure")
        box = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        self.widget = widgets.VBox([box, *extras, self.image])
        self.widget.add_class("posenc-explorer")
        self.widget.add_class(f"posenc-explorer-{self.name}")
        self._background = None
        self._layer_key, self._layer = None, None  # cached layer of artists the moving control can't change
        self.redraws = 0  # full redraws, for tests and benchmarks
        for c in controls.values():
            c.observe(self._on_change, names="value")
        self.refresh(full=True)

    # -- subclass API -----------------------------------------------------
    #: Figure size in inches (at 90 dpi): small figures blit and encode fast.
    FIGSIZE = (7.6, 3.0)

    def _make_view(self, fig) -> None:  # pragma: no cover - abstract
        """Create the axes and the view object(s) holding the artists, e.g. ``self.view``."""
        raise NotImplementedError

    def _build(self):
        """Build the figure once: axes and artists, first values, then a frozen layout."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = _figure(self.FIGSIZE)
        self._make_view(fig)
        FigureCanvasAgg(fig)
        self._update(**self.values)
        _freeze_layout(fig)
        return fig

    def _animated(self) -> list:
        """The artists an update may change (drawn on top of the cached background)."""
        return self.view.artists()

    def _update(self, **values) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- machinery ----------------------------------------------------------
    @property
    def values(self) -> dict:
        """Current control values, by parameter name."""
        return {k: c.value for k, c in self.controls.items()}

    def _on_change(self, change) -> None:
        name = next((k for k, c in self.controls.items() if c is change["owner"]), None)
        self.refresh(changed=name)

    def _depends(self) -> dict:
        """Control name -> the animated artists that control can change.

        Artists missing from a control's list are drawn once into a cached layer while
        that control is being dragged. Default: every animated artist, for every control.
        """
        return {}

    def refresh(self, full: bool = False, changed: str | None = None) -> None:
        """Update artists from the controls, redraw, and push new PNG bytes to the widget.

        ``changed`` names the control that moved. Artists it cannot change are drawn into a
        cached layer the first time, so repeated moves of one slider redraw only what moves.
        """
        with figure_style():
            full = bool(self._update(**self.values)) or full or self._background is None
            if full:
                self._canvas.draw()
                self._background = self._canvas.copy_from_bbox(self.figure.bbox)
                self._layer_key, self._layer = None, None
                self.redraws += 1
            renderer = self._canvas.get_renderer()
            _GlyphCache.install(renderer)
            animated = self._animated()
            deps = self._depends().get(changed) if changed is not None else None
            if deps is None:
                self._layer_key, self._layer = None, None
                self._canvas.restore_region(self._background)
                dirty = animated
            else:
                moving = {id(a) for a in deps}
                dirty = [a for a in animated if id(a) in moving]
                if self._layer_key != changed:
                    self._canvas.restore_region(self._background)
                    for a in animated:
                        if id(a) not in moving:
                            a.draw(renderer)
                    self._layer = self._canvas.copy_from_bbox(self.figure.bbox)
                    self._layer_key = changed
                self._canvas.restore_region(self._layer)
            for a in dirty:
                a.draw(renderer)
            for ax in {id(a.axes): a.axes for a in dirty if _is_image(a)}.values():
                # An image blitted last would cover its axes' frame and lines drawn above it.
                over = [*ax.spines.values(), *(ln for ln in ax.lines if not ln.get_animated())]
                for artist in over:
                    if artist.get_visible():
                        artist.draw(renderer)
        self.image.value = self.png()

    def png(self) -> bytes:
        """The canvas as PNG bytes (fast zlib level; what the widget shows)."""
        from PIL import Image

        w, h = self._canvas.get_width_height(physical=True)
        img = Image.frombuffer("RGBA", (w, h), self._canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        out = io.BytesIO()
        img.convert("RGB").save(out, format="png", compress_level=1)
        return out.getvalue()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


class _GlyphCache:
    """Replay the glyph bitmaps of strings an explorer has drawn before.

    Matplotlib's Agg renderer lays out and rasterises every glyph of every text on every
    draw (about 0.4 ms for one Chinese character, 4 ms for a title). Explorers redraw the
    same strings again and again (token labels, titles, 0/1 digits), so each canvas gets
    one of these: the first draw of a string records the ``draw_text_image`` calls the
    renderer makes, keyed by string, font, size, angle and sub-pixel phase; later draws
    replay them (same pixels, no layout, no FreeType). Anything unusual (mathtext, no
    antialiasing, a renderer without the expected internals) takes the normal path.
    """

    MAX_ENTRIES = 4096

    def __init__(self, renderer):
        self.renderer = renderer
        self.original = renderer.draw_text
        self.entries: dict = {}

    @classmethod
    def install(cls, renderer) -> None:
        if getattr(renderer, "_posenc_glyph_cache", None) is not None:
            return
        if not (hasattr(renderer, "_renderer") and hasattr(renderer, "_draw_text_glyphs_and_boxes")):
            return  # another matplotlib: draw texts the normal way
        cache = cls(renderer)
        renderer._posenc_glyph_cache = cache
        renderer.draw_text = cache.draw_text

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if ismath or not gc.get_antialiased():
            return self.original(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
        ix, iy = math.floor(x), math.floor(y)
        key = (s, hash(prop), prop.get_size_in_points(), angle, round((x - ix) * 64),
               round((y - iy) * 64), self.renderer.dpi,
               mtext.get_fontfeatures() if mtext is not None else None,
               mtext.get_language() if mtext is not None else None)
        glyphs = self.entries.get(key)
        if glyphs is None:
            glyphs = self._record(gc, x, y, s, prop, angle, mtext, ix, iy)
            if glyphs is None:
                return None
            if len(self.entries) >= self.MAX_ENTRIES:
                self.entries.clear()
            self.entries[key] = glyphs
            return None
        draw = self.renderer._renderer.draw_text_image
        for buffer, dx, dy in glyphs:
            draw(buffer, ix + dx, iy + dy, 0, gc)
        return None

    def _record(self, gc, x, y, s, prop, angle, mtext, ix, iy):
        real = self.renderer._renderer
        glyphs = []
        ok = True

        class Recorder:
            def draw_text_image(self, buffer, left, bottom, angle_, gc_):
                nonlocal ok
                ok = ok and angle_ == 0
                glyphs.append((np.array(buffer, copy=True), left - ix, bottom - iy))
                real.draw_text_image(buffer, left, bottom, angle_, gc_)

            def __getattr__(self, name):  # e.g. draw_path for mathtext boxes
                nonlocal ok
                ok = False
                return getattr(real, name)

        self.renderer._renderer = Recorder()
        try:
            self.original(gc, x, y, s, prop, angle, mtext=mtext)
        finally:
            self.renderer._renderer = real
        return glyphs if ok else None


def _is_image(artist) -> bool:
    from matplotlib.image import AxesImage

    return isinstance(artist, AxesImage)


def _figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, dpi=90, layout="constrained")


def _freeze_layout(fig):
    """Run the constrained layout once, then keep the axes where they are.

    Later redraws then never move an axes, so the blitted background stays valid.
    """
    fig.canvas.draw()
    fig.set_layout_engine("none")


class HeatmapExplorer(Explorer):
    """Sliders for seq_len, d_model, base and layout over the full PE table.

    Introduced in notebook 03_clock_hands_frequencies.
    """

    name = "heatmap"

    def __init__(self, seq_len=50, d_model=64, base=10000.0, layout="interleaved"):
        import ipywidgets as w

        st = _slider_style()
        controls = {
            "seq_len": w.IntSlider(seq_len, min=2, max=200, description="seq_len", style=st),
            "d_model": w.IntSlider(d_model, min=2, max=256, step=2, description="d_model", style=st),
            "base": w.FloatLogSlider(base, base=10, min=1, max=6, step=0.1, description="base", style=st),
            "layout": w.Dropdown(options=list(LAYOUTS), value=layout, description="layout", style=st),
        }
        super().__init__(controls)

    FIGSIZE = (7.2, 3.4)

    def _make_view(self, fig):
        ax = fig.add_subplot(1, 1, 1)
        self.view = _PEHeatmapView(ax)
        fig.colorbar(self.view.image, ax=ax, shrink=0.9, label="PE")

    def _depends(self):
        v = self.view
        return {"seq_len": [v.image, v.title, *v.yticks], "d_model": [v.image, v.title, *v.xticks],
                "base": [v.image, v.title], "layout": [v.image, v.title]}

    def _update(self, seq_len, d_model, base, layout):
        self.view.update(seq_len, d_model, base, layout)
        return False


class ClockExplorer(Explorer):
    """Clock hands for every pair at ``pos`` (with a Play button) and the binary counter.

    Introduced in notebook 03_clock_hands_frequencies.
    """

    name = "clock"

    def __init__(self, pos=3, d_model=16, base=10000.0):
        import ipywidgets as w

        st = _slider_style()
        controls = {
            "pos": w.IntSlider(pos, min=0, max=255, description="pos", style=st),
            "d_model": w.SelectionSlider(options=list(range(2, 17, 2)), value=d_model,
                                         description="d_model", style=st),
            "base": w.FloatLogSlider(base, base=10, min=1, max=6, step=0.1, description="base", style=st),
        }
        self.play = w.Play(value=pos, min=0, max=255, step=1, interval=250, description="play")
        w.link((self.play, "value"), (controls["pos"], "value"))
        super().__init__(controls, extras=[self.play])

    FIGSIZE = (9, 3.3)

    def _make_view(self, fig):
        ax, axb = fig.subplots(2, 1, height_ratios=[2.2, 1])
        self.view = _ClockView(ax, axb)

    def _depends(self):
        return {"pos": self.view.pos_artists()}

    def _update(self, pos, d_model, base):
        self.view.update(pos, d_model, base)
        return False


#: Sentences the permutation explorer offers; each group shares its tokens.
PERMUTATION_SENTENCES = ("猫咬狗", "狗咬猫", "咬猫狗", "我爱你", "你爱我", "我打你", "你打我")


class PermutationExplorer(Explorer):
    """Pick a word order, toggle PE: attention weights and outputs side by side.

    The right-hand title compares with the first listed sentence made of the same
    characters (猫咬狗, 我爱你 or 我打你): without PE the same token's output and the
    pooled sentence vector match to ~1e-16; with PE they do not.
    Introduced in notebook 01_permutation_invariance.
    """

    name = "permutation"
    D_MODEL = 4

    def __init__(self, sentence="狗咬猫", use_pe=False):
        import ipywidgets as w

        st = _slider_style()
        controls = {
            "sentence": w.Dropdown(options=list(PERMUTATION_SENTENCES), value=sentence,
                                   description=label("语序 sentence", "sentence"), style=st),
            "use_pe": w.Checkbox(value=use_pe, description=label("加位置编码 use_pe", "use_pe")),
        }
        super().__init__(controls)

    FIGSIZE = (8.4, 2.9)

    def _make_view(self, fig):
        ax_w, ax_o = fig.subplots(1, 2, width_ratios=[1, 1.6])
        self.view = _PermutationView(ax_w, ax_o, self.D_MODEL)

    def _depends(self):
        v = self.view
        return {"use_pe": [v.img_w, v.img_o, *sum(v.cell_text, []), v.title_w, v.title_o]}

    @staticmethod
    def reference_for(sentence: str) -> str:
        """The first listed sentence with the same characters as ``sentence``."""
        return next(s for s in PERMUTATION_SENTENCES if sorted(s) == sorted(sentence))

    def _update(self, sentence, use_pe):
        demo = attention_demo(sentence, self.D_MODEL, use_pe)
        ref = attention_demo(self.reference_for(sentence), self.D_MODEL, use_pe)
        self.view.update(demo, ref)
        return False


class HandCalcExplorer(Explorer):
    """The 猫咬狗 hand calculation with sliders: word vector, start, d_model, base.

    Every token's word vector is ``[word_0, word_1, word_0, word_1, ...]`` (length
    d_model). The HTML table and the arrows in the planes of the first and last pair
    update together.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """

    name = "hand_calc"

    def __init__(self, word_0=0.5, word_1=0.5, start=1, d_model=2, base=10000.0):
        import ipywidgets as w

        st = _slider_style()
        controls = {
            "word_0": w.FloatSlider(word_0, min=-1, max=1, step=0.05, description="word_0", style=st),
            "word_1": w.FloatSlider(word_1, min=-1, max=1, step=0.05, description="word_1", style=st),
            "start": w.SelectionSlider(options=[0, 1], value=start, description="start", style=st),
            "d_model": w.SelectionSlider(options=[2, 4, 6, 8], value=d_model, description="d_model", style=st),
            "base": w.FloatLogSlider(base, base=10, min=1, max=6, step=0.1, description="base", style=st),
        }
        self.table = w.HTML()
        super().__init__(controls, extras=[self.table])

    def calculation(self) -> HandCalculation:
        """The HandCalculation for the current slider values."""
        v = self.values
        word = np.resize([v["word_0"], v["word_1"]], v["d_model"])
        return hand_calculation(word_vectors=word, start=v["start"], d_model=v["d_model"], base=v["base"])

    FIGSIZE = (7.6, 3.7)

    def _make_view(self, fig):
        ax0, ax1 = fig.subplots(1, 2)
        self.views = [_HandCalcView(ax0, label("第一对 (快)", "first pair (fast)")),
                      _HandCalcView(ax1, label("最后一对 (慢)", "last pair (slow)"))]

    def _animated(self):
        return [a for v in self.views for a in v.artists()]

    def _depends(self):
        moving = [a for v in self.views for a in (v.word, v.pe, *v.labels)]
        return {name: moving for name in ("word_0", "word_1", "start", "base")}

    def _update(self, **values):
        calc = self.calculation()
        self.views[0].update(calc, 0)
        only = label("唯一的一对 (d_model = 2)", "the only pair (d_model = 2)")
        self.views[1].update(calc, calc.d_model // 2 - 1, only if calc.d_model == 2 else None)
        self.table.value = calc._repr_html_()
        return False


#: Name -> zero-argument factory for every explorer the notebooks use.
EXPLORERS = {
    "permutation": PermutationExplorer,
    "hand_calc": HandCalcExplorer,
    "clock": ClockExplorer,
    "heatmap": HeatmapExplorer,
}


# === section 01-02: notebooks 01 and 02 additions ===
def _choice_key(value):
    """Normalise a choice for comparison: stripped strings, ints for whole numbers, tuples."""
    if isinstance(value, str):
        return ("str", value.strip())
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        return ("num", int(v) if v.is_integer() else v)
    if isinstance(value, (list, tuple, np.ndarray)):
        return ("seq", tuple(_choice_key(v) for v in np.asarray(value, dtype=object).ravel()))
    return ("other", repr(value))


def check_choice(answer, correct, *, hint: str = "", options=None) -> Verdict:
    """Compare a reader's choice (a row index, a word, True/False, a tuple) with the computed one.

    Strings are compared without surrounding spaces, whole floats equal ints (``2.0 == 2``),
    lists and tuples element by element; True/False never equal 1/0. ``options`` (optional)
    lists the allowed answers, and an answer outside them gets a message naming them.
    Never raises on a wrong answer: the placeholder ``None`` just gets the hint.
    Introduced in notebook 01_permutation_invariance.
    """
    keys = None if options is None else [_choice_key(o) for o in options]
    if keys is not None and _choice_key(correct) not in keys:
        raise ValueError(f"correct = {correct!r} is not among options = {options!r} / "
                         f"correct 必须是 options 之一")
    if answer is None:
        return Verdict(False, f"把 None 换成你的答案。 {hint}".strip())
    if keys is not None and _choice_key(answer) not in keys:
        shown = " / ".join(repr(o) for o in options)
        return Verdict(False, f"答案应是 {shown} 之一，收到的是 {answer!r}。 {hint}".strip())
    if _choice_key(answer) == _choice_key(correct):
        return Verdict(True, f"答案是 {correct!r}。")
    return Verdict(False, hint or "与计算结果不一致，再推一遍。")


def _text_width(text: str) -> int:
    """Columns a string takes in a monospace font (CJK characters take two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return " " * (width - _text_width(text)) + text


def format_matrix(m, row_labels=None, col_labels=None, *, decimals: int = 4, name: str = "") -> str:
    """A small matrix as aligned text, rows (and columns) labelled, e.g. by tokens.

    ``row_labels`` / ``col_labels`` may be a string (one label per character, so
    ``"猫咬狗"`` works) or a sequence of labels; a 1-D ``m`` is shown as one row.
    Returns the text; show it with ``print(pl.format_matrix(...))``.
    Introduced in notebook 01_permutation_invariance.
    """
    m = _check_array("m", m)
    if m.ndim == 1:
        m = m[None, :]
    if m.ndim != 2:
        raise ValueError(f"m must be 1-D or 2-D, got shape {m.shape} / m 必须是一维或二维数组")
    decimals = _check_int("decimals", decimals, 0, 12)
    labels = {}
    for which, given, n in (("row_labels", row_labels, m.shape[0]), ("col_labels", col_labels, m.shape[1])):
        if given is None:
            labels[which] = None
            continue
        given = [str(t) for t in (tuple(given) if isinstance(given, str) else given)]
        if len(given) != n:
            raise ValueError(f"{which} has {len(given)} labels for {n} entries / {which} 的个数"
                             f"（{len(given)}）必须等于 {n}")
        labels[which] = given
    cells = [[f"{v:.{decimals}f}" for v in row] for row in m]
    rows, cols = labels["row_labels"], labels["col_labels"]
    width = max(_text_width(c) for row in cells for c in row)
    if cols:
        width = max(width, *(_text_width(c) for c in cols))
    lead = max((_text_width(r) for r in rows), default=0) if rows else 0
    lines = [name] if name else []
    if cols:
        lines.append(" " * lead + "".join("  " + _pad(c, width) for c in cols))
    for r, row in enumerate(cells):
        head = _pad(rows[r], lead) if rows else ""
        lines.append(head + "".join("  " + _pad(c, width) for c in row))
    return "\n".join(lines)


def plot_pe_curves(d_model: int = 4, max_pos: int = 10, base: float = 10000.0, pairs=None,
                   ax=None):
    """sin (solid) and cos (dashed) of each pair against pos; dots mark whole positions.

    Pair i turns by ``w_i`` radians per position: the first pair swings through its whole
    range within a few positions, a slow pair hardly leaves (sin, cos) = (0, 1).
    ``pairs`` picks the pairs to draw (default: all when there are at most 4, else the
    first, second and last).
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    w = frequencies(d_model, base)
    max_pos = _check_int("max_pos", max_pos, 1, 100000)
    n_pairs = len(w)
    if pairs is None:
        pairs = list(range(n_pairs)) if n_pairs <= 4 else sorted({0, 1, n_pairs - 1})
    elif _is_int(pairs):
        pairs = [pairs]
    pairs = [_check_int("pairs", p, 0, n_pairs - 1) for p in pairs]
    if not pairs:
        raise ValueError("pairs must name at least one pair / pairs 至少要有一对")
    grid = np.linspace(0.0, max_pos, 60 * max_pos + 1 if max_pos <= 50 else 3001)
    whole = np.arange(max_pos + 1, dtype=float)
    with figure_style():
        from matplotlib.lines import Line2D

        fig, ax = _new_axes(ax, (7.2, 3.2))
        handles = []
        for j, i in enumerate(pairs):
            color = f"C{j % 10}"
            per_step = label(f"每步转 {w[i]:.3g} 弧度", f"{w[i]:.3g} rad per step")
            for col, fn, ls, marker in ((2 * i, np.sin, "-", "o"), (2 * i + 1, np.cos, "--", "s")):
                name = "sin" if col % 2 == 0 else "cos"
                ax.plot(grid, fn(grid * w[i]), ls=ls, lw=1.0, color=color, alpha=0.6)
                ax.plot(whole, fn(whole * w[i]), marker, ms=4, color=color, ls="none")
                handles.append(Line2D([], [], color=color, ls=ls, lw=1.0, marker=marker, ms=4,
                                      label=f"i={i}, {name} ({label(f'第 {col} 维', f'dim {col}')}), "
                                            f"{per_step}"))
        ax.axhline(0, color="0.6", lw=0.6)
        ax.set_xlim(-0.2, max_pos + 0.2)
        ax.set_ylim(-1.12, 1.12)
        ax.set_xlabel(label("位置 pos", "position pos"))
        ax.set_ylabel("PE[pos, dim]")
        ax.set_title(f"d_model = {d_model}, base = {base:g}")
        ax.legend(handles=handles, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False)
    return fig
# === end section 01-02 ===


# === section 03: notebook 03 additions ===
def pe_distance_by_offset(k, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``||PE(p + k) - PE(p)||`` for each offset in ``k`` (the same for every p).

    Each pair contributes the chord between its two hand positions,
    ``2 |sin(k w_i / 2)|``, so the distance is ``sqrt(sum_i 4 sin^2(k w_i / 2))``.
    It is 0 only when every hand is back exactly where it started.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    ks = _check_array("k", k)
    w = frequencies(d_model, base)
    return np.sqrt((4.0 * np.sin(np.multiply.outer(ks, w) / 2.0) ** 2).sum(axis=-1))


def nearest_repeat(d_model: int, max_offset: int = 1000, base: float = 10000.0) -> tuple[int, float]:
    """The offset k in 1 .. max_offset at which the PE rows come closest to repeating.

    Returns ``(k, distance)`` with ``distance = ||PE(p + k) - PE(p)||`` (any p); the first
    such k when several tie. With d_model = 2 and max_offset = 1000 this is the near-turn
    710 ~ 113 * 2*pi.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    d_model = _check_d_model(d_model)
    max_offset = _check_int("max_offset", max_offset, 1, 10**7)
    _check_table_size(max_offset, d_model)
    ks = np.arange(1, max_offset + 1, dtype=float)
    dist = pe_distance_by_offset(ks, d_model, base)
    j = int(np.argmin(dist))
    return j + 1, float(dist[j])


def flipped_bits(pos: int) -> np.ndarray:
    """The bits k that change when the binary counter steps from ``pos - 1`` to ``pos``.

    Bit 0 always flips; a carry flips the lower bits back to 0 as the next one turns on,
    so 7 -> 8 flips bits 0, 1, 2 and 3.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    pos = _check_int("pos", pos, 1, 2**62 - 1)
    n = pos.bit_length()
    return np.flatnonzero(binary_bits(pos, n) != binary_bits(pos - 1, n))


def plot_binary_vs_sinusoid(ks=(0, 1, 2, 3), n_pos: int = 32, ax=None):
    """Bit k of the binary counter next to the sinusoid with the same period, per k.

    Bit k is a square wave of period ``2**(k+1)`` that exists at integer pos only
    (drawn as steps with dots); the sinusoid ``-sin(pi * pos / 2**k)`` has the same period,
    is defined for every real pos and changes sign exactly where bit k flips.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    if _is_int(ks):
        ks = (ks,)
    ks = [_check_int("k", k, 0, 20) for k in ks]
    if not ks:
        raise ValueError("ks must hold at least one bit index / ks 至少要有一个 bit 编号")
    n_pos = _check_int("n_pos", n_pos, 2, 4096)
    pos = np.arange(n_pos + 1)
    x = np.linspace(0, n_pos, 40 * n_pos + 1)
    gap = 1.5
    with figure_style():
        fig, ax = _new_axes(ax, (8, 0.85 * len(ks) + 1.3))
        for row, k in enumerate(ks):
            y0 = -gap * row
            bits = np.array([binary_bits(int(p), k + 1)[k] for p in pos])
            ax.axhline(y0, color="0.85", lw=0.6, zorder=0)
            ax.step(pos, y0 - 0.5 + bits, where="post", color="C0", lw=1.6,
                    label=label("bit k：方波（只在整数 pos 有值）", "bit k: square wave (integer pos only)")
                    if row == 0 else None)
            ax.plot(pos[:-1], y0 - 0.5 + bits[:-1], "o", color="C0", ms=2.5)
            ax.plot(x, y0 - 0.5 * np.sin(np.pi * x / 2 ** k), color="C3", lw=1.3,
                    label=label("−sin(π·pos/2^k)：同周期的正弦（任意实数 pos）",
                                "-sin(pi*pos/2^k): same period (any real pos)") if row == 0 else None)
        ax.set_yticks([])
        for row, k in enumerate(ks):  # text artists, not tick labels: fonts fixed at creation
            ax.text(-0.012, -gap * row, label(f"bit {k}\n周期 {2 ** (k + 1)}", f"bit {k}\nperiod {2 ** (k + 1)}"),
                    transform=ax.get_yaxis_transform(), ha="right", va="center")
        ax.set_ylim(-gap * (len(ks) - 1) - 0.8, 1.35)
        ax.set_xlim(0, n_pos)
        step = max(1, n_pos // 8)
        ax.set_xticks(np.arange(0, n_pos + 1, step))
        ax.grid(True, axis="x", lw=0.4, alpha=0.5)
        ax.set_xlabel(label("位置 pos", "position pos"))  # _new_axes gave a foreign ax the fonts
        ax.set_title(label("二进制计数器的每一位 vs 同周期的正弦波",
                           "binary counter bits vs sinusoids of the same period"))
        ax.legend(loc="upper right", fontsize=8, ncols=2, framealpha=0.9)
    return fig


def _answer_int_set(answer) -> set | None:
    if _is_int(answer):
        return {int(answer)}
    if isinstance(answer, (str, bytes)) or answer is None:
        return None
    try:
        items = list(answer)
    except TypeError:
        return None
    out = set()
    for a in items:
        if _is_int(a):
            out.add(int(a))
        elif isinstance(a, numbers.Real) and float(a).is_integer():
            out.add(int(a))
        else:
            return None
    return out


def _answer_int(answer) -> int | None:
    if _is_int(answer):
        return int(answer)
    if isinstance(answer, numbers.Real) and not isinstance(answer, (bool, np.bool_)) \
            and math.isfinite(answer) and float(answer).is_integer():
        return int(answer)
    return None


def check_flipped_bits(pos: int, answer) -> Verdict:
    """Check which bits flip when the counter steps from ``pos - 1`` to ``pos``.

    ``answer`` is a list (or set) of bit indices, bit 0 being the lowest.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    pos = _check_int("pos", pos, 1, 2**62 - 1)
    right = [int(b) for b in flipped_bits(pos)]
    got = _answer_int_set(answer)
    n = pos.bit_length()
    change = f"{pos - 1:0{n}b} → {pos:0{n}b}"
    if got is None:
        return Verdict(False, "答案应是 bit 编号的列表，例如 [0, 2]（bit 0 是最低位）。")
    if got == set(right):
        return Verdict(True, f"{pos - 1} → {pos}：{change}，翻转的是 bit {right}。")
    if got == {right[-1]} and len(right) > 1:
        return Verdict(False, f"bit {right[-1]} 确实从 0 变成 1，但进位 (carry) 同时把更低的位从 1 变回 0："
                              f"把所有变化的位都列出来。")
    return Verdict(False, f"把 {pos - 1} 和 {pos} 写成二进制，逐位比较；bit 0 是最右边的一位。")


def check_nearest_repeat(answer, d_model: int = 2, max_offset: int = 1000,
                         base: float = 10000.0) -> Verdict:
    """Check the position q in 1 .. max_offset whose PE row is closest to PE(0).

    Introduced in notebook 03_clock_hands_frequencies.
    """
    k, dist = nearest_repeat(d_model, max_offset, base)
    got = _answer_int(answer)
    if got is None or not 1 <= got <= max_offset:
        return Verdict(False, f"答案应是 1 到 {max_offset} 之间的一个整数位置。")
    if got == k:
        return Verdict(True, f"PE({k}) 与 PE(0) 的距离只有 {dist:.2e}：几乎转回原处，但不是 0。")
    mine = float(pe_distance_by_offset([got], d_model, base)[0])
    if d_model == 2 and 2 * got == k:
        return Verdict(False, f"位置 {got} 让唯一的指针差不多转到正对面（距离 {mine:.3f}，接近最大值），"
                              f"要找的是转回原处。")
    return Verdict(False, f"PE({got}) 与 PE(0) 的距离是 {mine:.3f}。距离只取决于偏移 k，每一对贡献 "
                          f"2·|sin(k·w_i/2)|；对 k = 1..{max_offset} 逐个算，取最小的那个。")


def check_split_column(j: int, d_model: int, answer) -> Verdict:
    """Check which interleaved column the split layout puts at column ``j``.

    Introduced in notebook 03_clock_hands_frequencies.
    """
    d_model = _check_d_model(d_model)
    j = _check_int("j", j, 0, d_model - 1)
    right = int(split_permutation(d_model)[j])
    got = _answer_int(answer)
    if got == right:
        kind = "sin" if right % 2 == 0 else "cos"
        return Verdict(True, f"split 的第 {j} 列 = interleaved 的第 {right} 列（第 {right // 2} 对的 {kind}）。")
    return Verdict(False, f"split 表的前 {d_model // 2} 列依次是所有 sin 列（interleaved 的 0, 2, 4, …），"
                          f"后 {d_model // 2} 列依次是所有 cos 列（1, 3, 5, …）。")


# === end section 03 ===


# === section 04-06: notebooks 04 and 06 additions ===
# ---------------------------------------------------------------------------
# Compute (notebook 04): the rotation identity, least-squares fits, scores by offset,
# and the add-vs-concatenate probe
# ---------------------------------------------------------------------------
def rotation_error(k, d_model: int, positions=None, base: float = 10000.0) -> float:
    """Largest ``|R_k @ PE(pos) - PE(pos + k)|`` over ``positions`` and every dimension.

    ``positions`` defaults to 0 .. 199; ``k`` may be negative or non-integer. The
    answer is rounding error (~1e-15): ``PE(pos + k) = R_k PE(pos)`` is exact.
    Introduced in notebook 04_relative_position.
    """
    k = _check_real("k", k)
    pos = np.arange(200, dtype=float) if positions is None else _check_positions(positions)
    rotated = encode_positions(pos, d_model, base) @ relative_rotation(k, d_model, base).T
    return float(np.abs(rotated - encode_positions(pos + k, d_model, base)).max())


@dataclass
class LinearFit:
    """Result of :func:`linear_fit`: ``targets ~ features @ coef + intercept``.

    ``r2`` is the coefficient of determination ``1 - SS_res / SS_tot``, pooled over the
    target columns (1 = perfect, 0 = no better than each column's mean).
    Introduced in notebook 04_relative_position.
    """

    coef: np.ndarray
    intercept: np.ndarray | float
    r2: float
    max_residual: float

    def predict(self, features) -> np.ndarray:
        """The fitted map applied to new ``features`` (same column layout as the fit)."""
        x = _check_array("features", features)
        x = x[:, None] if x.ndim == 1 else x
        return x @ self.coef + self.intercept


def linear_fit(features, targets, intercept: bool = True, ridge: float = 0.0) -> LinearFit:
    """Least-squares fit of ``targets`` (n, m) or (n,) on ``features`` (n, p) or (n,).

    With ``intercept`` a constant term is fitted (and never penalised); ``ridge`` > 0
    adds ``ridge * |coef|^2`` to the squared error (numpy only, no sklearn).
    Introduced in notebook 04_relative_position.
    """
    x = _check_array("features", features)
    y = _check_array("targets", targets)
    x = x[:, None] if x.ndim == 1 else x
    if x.ndim != 2 or y.ndim not in (1, 2) or len(x) != len(y) or len(x) < 1:
        raise ValueError(
            f"features must be (n, p) and targets (n,) or (n, m) with the same n, got "
            f"{np.shape(features)} and {np.shape(targets)} / features 与 targets 的行数必须相同"
        )
    ridge = _check_real("ridge", ridge)
    if ridge < 0:
        raise ValueError(f"ridge must be >= 0, got {ridge:g} / ridge 不能为负")
    y2 = y[:, None] if y.ndim == 1 else y
    x_mean = x.mean(axis=0) if intercept else np.zeros(x.shape[1])
    y_mean = y2.mean(axis=0) if intercept else np.zeros(y2.shape[1])
    xc, yc = x - x_mean, y2 - y_mean
    if ridge > 0:
        coef = np.linalg.solve(xc.T @ xc + ridge * np.eye(x.shape[1]), xc.T @ yc)
    else:
        coef = np.linalg.lstsq(xc, yc, rcond=None)[0]
    b = y_mean - x_mean @ coef
    resid = y2 - (x @ coef + b)
    ss_res = float((resid ** 2).sum())
    ss_tot = float(((y2 - y2.mean(axis=0)) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res < 1e-24 else 0.0)
    if y.ndim == 1:
        coef, b = coef[:, 0], float(b[0])
    return LinearFit(coef, b, r2, float(np.abs(resid).max()))


def _small_matmul(a, b) -> np.ndarray:
    """``a @ b`` through einsum's own loop, not BLAS.

    The slider callbacks multiply small matrices; OpenBLAS would wake its worker threads for
    each product, which costs tens of milliseconds on a busy 2-core machine.
    """
    return np.einsum("ij,jk->ik", a, b)


def _check_projection(name: str, w, d_model: int):
    if w is None:
        return None
    w = _check_array(name, w, ndim=2)
    if w.shape[0] != d_model:
        raise ValueError(
            f"{name} must have d_model = {d_model} rows, got shape {w.shape} / {name} 的行数必须是 "
            f"d_model = {d_model}"
        )
    return w


def _projections(d_model, w_q, w_k):
    w_q, w_k = _check_projection("w_q", w_q, d_model), _check_projection("w_k", w_k, d_model)
    if (w_q is None) != (w_k is None) or (w_q is not None and w_q.shape != w_k.shape):
        raise ValueError("give both w_q and w_k with the same shape, or neither / "
                         "w_q 与 w_k 要么都给（形状相同），要么都不给")
    return w_q, w_k


def score_matrix(seq_len: int, d_model: int, base: float = 10000.0, w_q=None, w_k=None) -> np.ndarray:
    """``S[p, q] = (PE(p) W_q) . (PE(q) W_k)`` for p, q in 0 .. seq_len-1.

    Without ``w_q`` / ``w_k`` this is the plain ``PE @ PE.T`` (symmetric, constant along
    each diagonal). ``w_q``, ``w_k`` are ``(d_model, d_k)`` matrices.
    Introduced in notebook 04_relative_position.
    """
    pe = sinusoidal_encoding(seq_len, d_model, base)
    w_q, w_k = _projections(d_model, w_q, w_k)
    if w_q is None:
        return _small_matmul(pe, pe.T)
    return _small_matmul(_small_matmul(pe, w_q), _small_matmul(pe, w_k).T)


def offset_scores(d_model: int, base: float = 10000.0, seq_len: int = 64, k_max: int = 64,
                  w_q=None, w_k=None) -> np.ndarray:
    """Scores by position and offset: ``out[p, k_max + k] = (PE(p) W_q) . (PE(p + k) W_k)``.

    Rows p = 0 .. seq_len-1, columns k = -k_max .. k_max (positions p + k may be negative:
    the formula is defined for any position). Without ``w_q`` / ``w_k`` every row equals
    :func:`pe_dot_by_offset`.
    Introduced in notebook 04_relative_position.
    """
    seq_len = _check_int("seq_len", seq_len, 1, 4096)
    k_max = _check_int("k_max", k_max, 0, 4096)
    d_model = _check_d_model(d_model)
    w_q, w_k = _projections(d_model, w_q, w_k)
    q = encode_positions(np.arange(seq_len, dtype=float), d_model, base)
    keys = encode_positions(np.arange(-k_max, seq_len + k_max, dtype=float), d_model, base)
    if w_q is not None:
        # (PE W_q)·(PE' W_k) = PE (W_q W_k^T) PE'^T: one d x d product instead of projecting every key
        q = _small_matmul(q, _small_matmul(w_q, w_k.T))
    g = _small_matmul(q, keys.T)  # column c is position c - k_max
    idx = np.arange(seq_len)[:, None] + np.arange(2 * k_max + 1)[None, :]
    return np.take_along_axis(g, idx, axis=1)


def offset_structure(scores) -> dict:
    """How much a ``(positions, 2*k_max + 1)`` table from :func:`offset_scores` departs from
    "depends on k only, the same for +k and -k".

    Returns ``p_dependence`` (largest spread over p at one offset), ``asymmetry`` (largest
    ``|mean(k) - mean(-k)|``), both divided by the table's largest ``|score|``, and
    ``peak_k`` (the offset where the mean over p is largest).
    Introduced in notebook 04_relative_position.
    """
    s = _check_array("scores", scores, ndim=2)
    if s.shape[1] % 2 == 0:
        raise ValueError("scores needs an odd number of columns (k = -k_max .. k_max) / "
                         "scores 的列数必须是奇数（k 从 -k_max 到 k_max）")
    scale = max(float(np.abs(s).max()), 1e-300)
    profile = s.mean(axis=0)
    k_max = s.shape[1] // 2
    return {
        "p_dependence": float((s.max(axis=0) - s.min(axis=0)).max() / scale),
        "asymmetry": float(np.abs(profile - profile[::-1]).max() / scale),
        "peak_k": int(np.argmax(profile)) - k_max,
    }


def random_word_vectors(n_words: int, d_model: int, seed: int = 0) -> np.ndarray:
    """``n_words`` random word vectors with entries N(0, 1/2), shape ``(n_words, d_model)``.

    Variance 1/2 gives them the same expected length as a PE row, sqrt(d_model / 2).
    Introduced in notebook 04_relative_position.
    """
    n_words = _check_int("n_words", n_words, 1, 100000)
    d_model = _check_int("d_model", d_model, 1)
    _check_table_size(n_words, d_model)
    rng = np.random.default_rng(_check_int("seed", seed, 0))
    return rng.normal(0.0, math.sqrt(0.5), (n_words, d_model))


def word_pe_cosines(d_model: int, n_words: int = 200, seq_len: int = 200, base: float = 10000.0,
                    seed: int = 0) -> np.ndarray:
    """Cosine similarity of every random word vector with every PE row, shape (n_words, seq_len).

    Introduced in notebook 04_relative_position.
    """
    words = random_word_vectors(n_words, d_model, seed)
    pe = sinusoidal_encoding(seq_len, d_model, base)
    words = words / np.linalg.norm(words, axis=1, keepdims=True)
    return words @ (pe / np.linalg.norm(pe, axis=1, keepdims=True)).T


def word_position_probe(d_model: int, n_words: int = 64, seq_len: int = 64, base: float = 10000.0,
                        seed: int = 0, train_frac: float = 0.75, ridge: float = 1e-3) -> dict:
    """Add word vectors and PE, then read both back out of the sum with linear probes.

    Every (word, pos) pair gives one input ``x = word_vector + PE(pos)`` (word vectors from
    :func:`random_word_vectors`). Two least-squares probes map x to a one-hot word and to a
    one-hot position; the prediction is the argmax. They are fitted on a random
    ``train_frac`` of the pairs and scored on the others. Returns the accuracies ``word``,
    ``position``, ``position_within_1`` (off by at most one) and the chance levels.
    Introduced in notebook 04_relative_position.
    """
    seq_len = _check_int("seq_len", seq_len, 2, 4096)
    train_frac = _check_real("train_frac", train_frac)
    if not 0.0 < train_frac < 1.0:
        raise ValueError(f"train_frac must be in (0, 1), got {train_frac:g} / train_frac 必须在 0 与 1 之间")
    words = random_word_vectors(n_words, d_model, seed)
    pe = sinusoidal_encoding(seq_len, d_model, base)
    w_id, p_id = np.divmod(np.arange(n_words * seq_len), seq_len)
    x = words[w_id] + pe[p_id]
    order = np.random.default_rng(seed + 1).permutation(len(x))
    n_train = max(1, min(len(x) - 1, int(round(train_frac * len(x)))))
    train, test = order[:n_train], order[n_train:]
    out = {}
    for name, ids, n in (("word", w_id, n_words), ("position", p_id, seq_len)):
        fit = linear_fit(x[train], np.eye(n)[ids[train]], ridge=ridge)
        pred = np.argmax(fit.predict(x[test]), axis=1)
        out[name] = float(np.mean(pred == ids[test]))
        if name == "position":
            out["position_within_1"] = float(np.mean(np.abs(pred - ids[test]) <= 1))
    out["chance_word"], out["chance_position"] = 1.0 / n_words, 1.0 / seq_len
    return out


# ---------------------------------------------------------------------------
# Exercises (notebook 04)
# ---------------------------------------------------------------------------
def check_rotation(k, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check a hand-written ``R_k`` (``d_model x d_model``, nested lists are fine).

    Recognises the transposed matrix (that is ``R_{-k}``: it maps PE(pos) to PE(pos - k)).
    Introduced in notebook 04_relative_position.
    """
    right = relative_rotation(k, d_model, base)
    arr = _answer_array(answer, right.shape)
    if arr is None:
        return Verdict(False, f"R_k 应是 {d_model}×{d_model} 的矩阵，例如 [[a, b], [c, d]]。")
    if np.allclose(arr, right, atol=5e-4):
        return Verdict(True, "每个 2×2 块都是 [[cos(k·w_i), sin(k·w_i)], [−sin(k·w_i), cos(k·w_i)]]。")
    if np.allclose(arr, right.T, atol=5e-4):
        return Verdict(False, "方向反了：这是 R_k 的转置 = R_{−k}，它把 PE(pos) 变成 PE(pos−k)。"
                              "对照 sin(a+b) = sin a·cos b + cos a·sin b：新 sin 行里 cos(pos·w) 的系数是 +sin(k·w)。")
    return Verdict(False, "从和角公式逐项对照：第一行给出 sin((pos+k)w)，第二行给出 cos((pos+k)w)，"
                          "每个块是 [[cos(k·w_i), sin(k·w_i)], [−sin(k·w_i), cos(k·w_i)]]。")


def check_shifted_pe(pe, k, answer, base: float = 10000.0) -> Verdict:
    """Check ``PE(pos + k)`` computed from the vector ``pe = PE(pos)`` alone (pos unknown).

    The right answer is ``R_k @ pe``. Recognises the wrong direction (``R_k.T @ pe`` =
    PE(pos - k)) and seed 002's additive guess ``pe + PE(k)``.
    Introduced in notebook 04_relative_position.
    """
    pe = _check_array("pe", pe, ndim=1)
    d_model = _check_d_model(len(pe))
    rot = relative_rotation(k, d_model, base)
    right = rot @ pe
    arr = _answer_array(answer, right.shape)
    if arr is None:
        return Verdict(False, f"答案应是长度为 {d_model} 的向量。提示：PE(pos+k) = R_k · PE(pos)。")
    if np.allclose(arr, right, atol=5e-4):
        return Verdict(True, f"R_k · PE(pos) = {HandCalculation._fmt(right)}：不用知道 pos 是几。")
    if np.allclose(arr, rot.T @ pe, atol=5e-4):
        return Verdict(False, "方向反了：你算的是 R_k 的转置乘 PE(pos) = PE(pos−k)。")
    if np.allclose(arr, pe + encode_positions([k], d_model, base)[0], atol=5e-4):
        return Verdict(False, "PE(pos+k) 不是 PE(pos) + PE(k)：PE(k) 的各项 (sin kw, cos kw) 是旋转矩阵的系数，"
                              "要去乘 PE(pos)，而不是加上去。")
    return Verdict(False, "用 R_k 的每个 2×2 块 [[cos kw, sin kw], [−sin kw, cos kw]] 去乘 PE(pos) 的对应一对。")


# ---------------------------------------------------------------------------
# Plot (notebook 04)
# ---------------------------------------------------------------------------
def plot_shift_regression(k: int = 1, d_model: int = 2, i: int = 0, base: float = 10000.0,
                          seq_len: int = 200, ax=None):
    """Predict ``sin((pos+k) w_i)`` from ``sin(pos w_i)`` alone (left) and from the pair (right).

    Left: the target against sin(pos w_i), coloured by the sign of cos(pos w_i): two
    branches over the same x, so no function of sin alone fits. Right: the least-squares
    prediction from (sin, cos) against the target: the diagonal, R^2 = 1.
    With ``ax`` given, only the left panel is drawn into it.
    Introduced in notebook 04_relative_position.
    """
    d_model = _check_d_model(d_model)
    i = _check_int("i", i, 0, d_model // 2 - 1)
    k = _check_real("k", k)
    seq_len = _check_int("seq_len", seq_len, 3, 100000)
    w = frequencies(d_model, base)[i]
    pos = np.arange(seq_len, dtype=float)
    s, c, y = np.sin(pos * w), np.cos(pos * w), np.sin((pos + k) * w)
    fit_sin = linear_fit(s, y)
    fit_pair = linear_fit(np.column_stack([s, c]), y)
    with figure_style():
        if ax is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(8, 3.3), layout="constrained")
            ax, ax2 = fig.subplots(1, 2)
        else:
            fig, ax2 = ax.get_figure(), None
        up = c >= 0
        ax.scatter(s[up], y[up], s=8, color="C0", label=label("cos(pos·w) ≥ 0", "cos(pos·w) >= 0"))
        ax.scatter(s[~up], y[~up], s=8, color="C1", label="cos(pos·w) < 0")
        grid = np.linspace(-1, 1, 3)
        ax.plot(grid, fit_sin.predict(grid), color="k", lw=1.2,
                label=label(f"只用 sin 的最佳直线，R² = {fit_sin.r2:.3f}", f"best line from sin alone, R² = {fit_sin.r2:.3f}"))
        ax.set_xlabel("sin(pos·w)")
        ax.set_ylabel("sin((pos+k)·w)")
        ax.set_title(label(f"只用 sin：k = {k:g}, w = {w:.3g}", f"sin alone: k = {k:g}, w = {w:.3g}"))
        ax.legend(fontsize=7.5, loc="lower right")
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.6, 1.15)
        if ax2 is not None:
            pred = fit_pair.predict(np.column_stack([s, c]))
            ax2.plot([-1, 1], [-1, 1], color="0.7", lw=3)
            ax2.scatter(y, pred, s=8, color="C2")
            ax2.set_xlabel(label("真实值 sin((pos+k)·w)", "true sin((pos+k)·w)"))
            ax2.set_ylabel(label("用 (sin, cos) 的线性预测", "linear prediction from (sin, cos)"))
            ax2.set_title(label(f"用 (sin, cos) 一对：R² = {fit_pair.r2:.6f}",
                                f"from the (sin, cos) pair: R² = {fit_pair.r2:.6f}"))
            ax2.set_aspect("equal")
    return fig


def plot_cosine_histograms(d_models=(16, 64, 512), n_words: int = 200, seq_len: int = 200,
                           base: float = 10000.0, seed: int = 0, ax=None):
    """Histograms of cos(word vector, PE(pos)) for several ``d_model``: near 0 when d is large.

    The dashed lines mark ``±1/sqrt(d_model)``, the spread of the cosine between random
    directions.
    Introduced in notebook 04_relative_position.
    """
    if _is_int(d_models):
        d_models = (d_models,)
    cosines = [word_pe_cosines(d, n_words, seq_len, base, seed) for d in d_models]
    with figure_style():
        fig, ax = _new_axes(ax, (6.4, 3.0))
        bins = np.linspace(-1, 1, 81)
        for j, (d, cs) in enumerate(zip(d_models, cosines)):
            color = f"C{j % 10}"
            ax.hist(cs.ravel(), bins=bins, histtype="step", lw=1.5, color=color, density=True,
                    label=label(f"d_model = {d}：平均 |cos| = {np.abs(cs).mean():.3f}",
                                f"d_model = {d}: mean |cos| = {np.abs(cs).mean():.3f}"))
            for sign in (-1, 1):
                ax.axvline(sign / math.sqrt(d), color=color, lw=0.8, ls="--")
        ax.set_xlim(-1, 1)
        ax.set_xlabel(label("cos(词向量, PE(pos))", "cos(word vector, PE(pos))"))
        ax.set_ylabel(label("密度", "density"))
        ax.set_title(label(f"{n_words} 个随机词 × {seq_len} 个位置；虚线 = ±1/√d_model",
                           f"{n_words} random words × {seq_len} positions; dashed = ±1/√d_model"))
        ax.legend(fontsize=8)
    return fig


class _RelativeView:
    """A few pairs as arrows on unit circles: PE(pos) (blue), PE(pos+k) (orange), the turn
    R_k makes (green arc), and R_k itself as a small heatmap."""

    MAX_PAIRS = 4
    GAP = 2.7
    ARC_POINTS = 120

    def __init__(self, ax_r, ax_c):
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle

        self.ax_r, self.ax_c = ax_r, ax_c
        self.r_image = ax_r.imshow(np.eye(2), cmap="RdBu_r", vmin=-1, vmax=1, aspect="equal",
                                   interpolation="nearest", extent=(0, 1, 1, 0))
        ax_r.set_xlim(0, 1)
        ax_r.set_ylim(1, 0)
        ax_r.set_xticks([])
        ax_r.set_yticks([])
        ax_r.set_title(label("R_k：块对角，只依赖 k", "R_k: block diagonal, k only"), fontsize=9)
        n = self.MAX_PAIRS
        self.centers = np.array([(self.GAP * j, 0.0) for j in range(n)])
        self.faces = []
        for cx, cy in self.centers:
            face = Circle((cx, cy), 1.0, fill=False, lw=1.0, color="0.55")
            ax_c.add_patch(face)
            ax_c.plot([cx, cx], [cy + 0.9, cy + 1.0], color="0.55", lw=1.0)  # 12 o'clock = pos 0
            self.faces.append(face)
        kw = dict(angles="xy", scale_units="xy", scale=1, headaxislength=3.5)
        far = np.full((n, 2), -100.0)
        # PE(pos) drawn wide, PE(pos+k) narrow on top: both stay visible when they coincide.
        self.arcs = [ax_c.plot([], [], color="C2", lw=1.3, zorder=1)[0] for _ in range(n)]
        self.q_from = ax_c.quiver(far[:, 0], far[:, 1], np.zeros(n), np.zeros(n), color="C0",
                                  width=0.016, headwidth=3, headlength=3.5, zorder=3, **kw)
        self.q_to = ax_c.quiver(far[:, 0], far[:, 1], np.zeros(n), np.zeros(n), color="C1",
                                width=0.007, headwidth=4, headlength=5, zorder=4, **kw)
        self.captions = [ax_c.text(cx, -1.12, " ", ha="center", va="top", fontsize=8)
                         for cx, _ in self.centers]  # one line each: text is the costly artist
        ax_c.set_xlim(-1.25, self.GAP * (n - 1) + 1.25)
        ax_c.set_ylim(-1.95, 1.12)
        ax_c.set_aspect("equal")
        ax_c.axis("off")
        self.title = ax_c.set_title(" ", fontsize=9)
        handles = [Line2D([], [], color="C0", lw=2, label=label("PE(pos) 的一对 (sin, cos)", "pair of PE(pos)")),
                   Line2D([], [], color="C1", lw=2, label=label("PE(pos+k) 的一对", "pair of PE(pos+k)")),
                   Line2D([], [], color="C2", lw=1.3,
                          label=label("R_k 转过 k·w_i 弧度（k>0 顺时针）", "R_k turns by k·w_i rad (k>0: clockwise)"))]
        ax_c.legend(handles=handles, loc="lower center", ncols=3, fontsize=7.5, frameon=False,
                    bbox_to_anchor=(0.5, -0.04), handlelength=1.5, columnspacing=1.0)

    def artists(self):
        # drawing order when blitting = zorder order of a full draw: arcs under the arrows
        return [self.r_image, *self.faces, *self.arcs, self.q_from, self.q_to, *self.captions,
                self.title]

    def pos_artists(self):
        """What a change of pos alone can change."""
        return [*self.arcs, self.q_from, self.q_to, self.title]

    def update(self, pos, k, d_model, base):
        w = frequencies(d_model, base)
        shown = min(len(w), self.MAX_PAIRS)
        idx = np.unique(np.round(np.linspace(0, len(w) - 1, shown)).astype(int))
        rot = relative_rotation(k, d_model, base)
        self.r_image.set_data(rot)
        a = encode_positions([pos], d_model, base)[0]
        b = encode_positions([pos + k], d_model, base)[0]
        n = self.MAX_PAIRS
        off = np.full((n, 2), -100.0)
        ua, va, ub, vb = (np.zeros(n) for _ in range(4))
        for j in range(n):
            on = j < len(idx)
            self.faces[j].set_alpha(1.0 if on else 0.15)
            self.captions[j].set_visible(on)
            if not on:
                self.arcs[j].set_data([], [])
                continue
            i = idx[j]
            cx, cy = self.centers[j]
            off[j] = (cx, cy)
            ua[j], va[j] = 0.92 * a[2 * i], 0.92 * a[2 * i + 1]  # x = sin, y = cos: the clock of 03
            ub[j], vb[j] = 0.92 * b[2 * i], 0.92 * b[2 * i + 1]
            t0, turn = pos * w[i], k * w[i]
            t = t0 + np.linspace(0.0, turn, self.ARC_POINTS)
            r = 0.42 + 0.3 * np.abs(t - t0) / max(abs(turn), 2 * np.pi)  # a spiral once |turn| > 2π
            self.arcs[j].set_data(cx + r * np.sin(t), cy + r * np.cos(t))
            self.captions[j].set_text(f"i = {i}: k·w_i = {turn:.3g}")  # radians
        self.q_from.set_offsets(off)
        self.q_from.set_UVC(ua, va)
        self.q_to.set_offsets(off)
        self.q_to.set_UVC(ub, vb)
        err = float(np.abs(rot @ a - b).max())
        self.title.set_text(label(f"pos = {pos:g}, k = {k:g}：max|R_k·PE(pos) − PE(pos+k)| = {err:.1e}",
                                  f"pos = {pos:g}, k = {k:g}: max|R_k·PE(pos) − PE(pos+k)| = {err:.1e}"))


def plot_relative_rotation(pos: int = 5, k: int = 3, d_model: int = 8, base: float = 10000.0):
    """R_k as a heatmap and a few pairs of PE(pos) and PE(pos + k) as arrows on unit circles.

    Introduced in notebook 04_relative_position.
    """
    pos = _check_real("pos", pos)
    k = _check_real("k", k)
    relative_rotation(k, d_model, base)  # validate first
    with figure_style():
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8.2, 2.9), layout="constrained")
        ax_r, ax_c = fig.subplots(1, 2, width_ratios=[1, 4.2])
        _RelativeView(ax_r, ax_c).update(pos, k, d_model, base)
    return fig


class _SimilarityView:
    """Scores against the offset k (left) and the full score matrix (right)."""

    SEQ_LEN = 64
    K_MAX = 64

    def __init__(self, ax_curve, ax_heat):
        ks = np.arange(-self.K_MAX, self.K_MAX + 1)
        zeros = np.zeros_like(ks, dtype=float)
        (self.band_lo,) = ax_curve.plot(ks, zeros, color="C0", lw=0.7, alpha=0.6, ls="--")
        (self.band_hi,) = ax_curve.plot(ks, zeros, color="C0", lw=0.7, alpha=0.6, ls="--",
                                        label=label("p 取 0..63 的最小/最大", "min / max over p = 0..63"))
        (self.mirror,) = ax_curve.plot(ks, zeros, color="C3", lw=1.1, ls=":",
                                       label=label("镜像：把 k 换成 −k", "mirrored: k → −k"))
        (self.mean,) = ax_curve.plot(ks, zeros, color="C0", lw=1.6,
                                     label=label("对 p 取平均", "mean over p"))
        ax_curve.axvline(0, color="0.6", lw=0.8, zorder=0.5)  # under the (blitted) curves
        ax_curve.axhline(0, color="0.6", lw=0.8, zorder=0.5)
        ax_curve.set_xlim(-self.K_MAX, self.K_MAX)
        # The curves stay within ±1; the legend lives above them (it is not redrawn on top).
        ax_curve.set_ylim(-1.1, 1.75)
        ax_curve.set_yticks([-1, -0.5, 0, 0.5, 1])
        ax_curve.set_xlabel(label("偏移 k (offset)", "offset k"))
        ax_curve.set_ylabel(label("分数 / 最大|分数|", "score / max|score|"))
        ax_curve.legend(fontsize=7, loc="upper center", ncols=3, frameon=False, handlelength=1.6,
                        columnspacing=0.8, borderaxespad=0.2)
        self.title_curve = ax_curve.set_title(" ", fontsize=8.5)
        n = self.SEQ_LEN
        self.image = ax_heat.imshow(np.zeros((n, n)), cmap="RdBu_r", vmin=-1, vmax=1,
                                    interpolation="nearest", extent=(-0.5, n - 0.5, n - 0.5, -0.5))
        ticks = [0, 16, 32, 48, 63]
        ax_heat.set_xticks(ticks)
        ax_heat.set_yticks(ticks)
        ax_heat.set_xlabel(label("key 位置 q", "key position q"))
        ax_heat.set_ylabel(label("query 位置 p", "query position p"))
        self.title_heat = ax_heat.set_title(" ", fontsize=8.5)

    def artists(self):
        return [self.band_lo, self.band_hi, self.mirror, self.mean, self.title_curve, self.image,
                self.title_heat]

    def update(self, d_model, base, projection):
        w_q = w_k = None
        if projection:
            w_q, w_k, _ = attention_weights_for_demo(d_model, seed=0)
        scores = offset_scores(d_model, base, self.SEQ_LEN, self.K_MAX, w_q, w_k)
        info = offset_structure(scores)
        scale = max(float(np.abs(scores).max()), 1e-300)
        profile = scores.mean(axis=0) / scale
        self.mean.set_ydata(profile)
        self.mirror.set_ydata(profile[::-1])
        self.band_lo.set_ydata(scores.min(axis=0) / scale)
        self.band_hi.set_ydata(scores.max(axis=0) / scale)
        s = score_matrix(self.SEQ_LEN, d_model, base, w_q, w_k)
        self.image.set_data(s / max(float(np.abs(s).max()), 1e-300))
        self.title_curve.set_text(label(
            f"±k 不对称 {info['asymmetry']:.2f}，随 p 变化 {info['p_dependence']:.2f}，峰在 k = {info['peak_k']}",
            f"±k asymmetry {info['asymmetry']:.2f}, p-dependence {info['p_dependence']:.2f}, "
            f"peak at k = {info['peak_k']}"))
        what = (label("随机投影 (W_q PE(p))·(W_k PE(q))", "random projection (W_q PE(p))·(W_k PE(q))")
                if projection else label("PE(p)·PE(q)（无投影）", "PE(p)·PE(q) (no projection)"))
        self.title_heat.set_text(f"{what}\nd_model = {d_model}, base = {base:g}")


def plot_similarity(d_model: int = 64, base: float = 10000.0, projection: bool = False):
    """PE(p)·PE(p+k) against k (mean, min and max over p, and mirrored) and the full matrix.

    With ``projection`` the scores are ``(W_q PE(p))·(W_k PE(q))`` for the fixed random
    matrices of :func:`attention_weights_for_demo`.
    Introduced in notebook 04_relative_position.
    """
    frequencies(d_model, base)  # validate first
    with figure_style():
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8, 3.2), layout="constrained")
        ax_curve, ax_heat = fig.subplots(1, 2, width_ratios=[1.5, 1])
        _SimilarityView(ax_curve, ax_heat).update(d_model, base, bool(projection))
    return fig


# ---------------------------------------------------------------------------
# Explore (notebook 04)
# ---------------------------------------------------------------------------
class RelativeExplorer(Explorer):
    """Move k and pos: each pair of PE(pos) turns by k·w_i into the pair of PE(pos + k).

    The title shows ``max|R_k·PE(pos) − PE(pos+k)|`` (rounding error only).
    Introduced in notebook 04_relative_position.
    """

    name = "relative"

    def __init__(self, pos=5, k=3, d_model=8, base=10000.0):
        import ipywidgets as w

        st = _slider_style()
        controls = {
            "k": w.IntSlider(k, min=-50, max=50, description="k", style=st),
            "pos": w.IntSlider(pos, min=0, max=100, description="pos", style=st),
            "d_model": w.SelectionSlider(options=[2, 4, 8, 16, 32, 64], value=d_model,
                                         description="d_model", style=st),
        }
        self.base = _check_base(base)
        super().__init__(controls)

    FIGSIZE = (7.6, 2.75)

    def _make_view(self, fig):
        ax_r, ax_c = fig.subplots(1, 2, width_ratios=[1, 4.2])
        self.view = _RelativeView(ax_r, ax_c)

    def _depends(self):
        return {"pos": self.view.pos_artists()}

    def _update(self, k, pos, d_model):
        self.view.update(pos, k, d_model, self.base)
        return False


class SimilarityExplorer(Explorer):
    """PE·PE against the offset k and as a matrix; the checkbox adds random W_q, W_k.

    Introduced in notebook 04_relative_position.
    """

    name = "similarity"

    def __init__(self, d_model=64, base=10000.0, projection=False):
        import ipywidgets as w

        st = _slider_style()
        controls = {
            "d_model": w.IntSlider(d_model, min=2, max=256, step=2, description="d_model", style=st),
            "base": w.FloatLogSlider(base, base=10, min=1, max=6, step=0.1, description="base", style=st),
            "projection": w.Checkbox(value=projection,
                                     description=label("随机投影 W_q, W_k (projection)", "random W_q, W_k (projection)")),
        }
        super().__init__(controls)

    FIGSIZE = (7.6, 2.9)

    def _make_view(self, fig):
        ax_curve, ax_heat = fig.subplots(1, 2, width_ratios=[1.55, 1])
        self.view = _SimilarityView(ax_curve, ax_heat)

    def _update(self, d_model, base, projection):
        self.view.update(d_model, base, projection)
        return False


EXPLORERS["relative"] = RelativeExplorer
EXPLORERS["similarity"] = SimilarityExplorer


# ---------------------------------------------------------------------------
# Self-check quiz (notebook 06)
# ---------------------------------------------------------------------------
def _check_question(n: int, q) -> dict:
    where = f"question {n} / 第 {n} 题"
    if not isinstance(q, dict):
        raise TypeError(f"{where}: must be a dict / 必须是 dict")
    missing = [key for key in ("question", "options", "answer", "explanation") if key not in q]
    if missing:
        raise ValueError(f"{where}: missing keys {missing} / 缺少键 {missing}")
    options = q["options"]
    if (isinstance(options, str) or len(options) < 2
            or not all(isinstance(o, str) and o.strip() for o in options)
            or len(set(options)) != len(options)):
        raise ValueError(f"{where}: options must be at least two different non-empty strings / "
                         f"options 至少要有两个互不相同的非空字符串")
    answer = _check_int(f"answer of {where}", q["answer"], 0, len(options) - 1)
    return {"question": str(q["question"]), "options": tuple(options), "answer": answer,
            "explanation": str(q["explanation"]), "hint": str(q.get("hint", ""))}


class Quiz:
    """Multiple-choice self-check: one RadioButtons per question, feedback as soon as one is picked.

    ``questions`` is data: a list of dicts with ``question``, ``options`` (strings),
    ``answer`` (index into options), ``explanation`` and an optional ``hint``. A right pick
    shows 正确 and the explanation, a wrong one 再想想 and the hint. ``.radios[n].value``
    can be set from code (that is how the tests answer); ``.widget`` is what to display.
    Introduced in notebook 06_summary_interview.
    """

    def __init__(self, questions):
        import ipywidgets as widgets

        try:
            questions = list(questions)
        except TypeError:
            raise TypeError("questions must be a list of dicts / questions 必须是 dict 的列表") from None
        if not questions:
            raise ValueError("questions must not be empty / questions 不能为空")
        self.questions = [_check_question(n, q) for n, q in enumerate(questions, 1)]
        self.radios, self.feedback, boxes = [], [], []
        for n, q in enumerate(self.questions):
            head = widgets.HTML(f"<b>{n + 1}. {html.escape(q['question'])}</b>")
            radio = widgets.RadioButtons(options=list(q["options"]), value=None,
                                         layout=widgets.Layout(width="auto"))
            fb = widgets.HTML("")
            radio.observe(functools.partial(self._on_pick, n), names="value")
            self.radios.append(radio)
            self.feedback.append(fb)
            boxes.append(widgets.VBox([head, radio, fb], layout=widgets.Layout(margin="0 0 10px 0")))
        self.score_html = widgets.HTML()
        self.widget = widgets.VBox([*boxes, self.score_html])
        self.widget.add_class("posenc-quiz")
        self._show_score()

    def verdict(self, n: int) -> Verdict | None:
        """The Verdict for question ``n`` (0-based), or None while it is unanswered."""
        q, radio = self.questions[n], self.radios[n]
        if radio.index is None:
            return None
        if radio.index == q["answer"]:
            return Verdict(True, q["explanation"])
        return Verdict(False, q["hint"] or "回到对应的笔记本再看一遍。")

    @property
    def score(self) -> tuple[int, int]:
        """(right answers, questions)."""
        return sum(bool(self.verdict(n)) for n in range(len(self.questions))), len(self.questions)

    def _on_pick(self, n: int, change) -> None:
        v = self.verdict(n)
        self.feedback[n].value = "" if v is None else v._repr_html_()
        self._show_score()

    def _show_score(self) -> None:
        right, total = self.score
        answered = sum(r.index is not None for r in self.radios)
        self.score_html.value = (f"<div class='posenc-quiz-score'><b>得分 (score)：{right} / {total}</b>"
                                 f"（已作答 {answered} 题）</div>")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def quiz_widget(questions=None):
    """The quiz as a displayable widget (default: :data:`INTERVIEW_QUIZ`).

    Use :class:`Quiz` directly to reach the radio buttons and the feedback from code.
    Introduced in notebook 06_summary_interview.
    """
    return Quiz(INTERVIEW_QUIZ if questions is None else questions).widget


#: The interview self-check of notebook 06: 01 to 07, with the usual pitfalls.
INTERVIEW_QUIZ = [
    {
        "question": "不加位置编码、不加掩码时，把「猫咬狗」改成「狗咬猫」，自注意力给「猫」这个词的输出向量会怎样？",
        "options": [
            "变了：猫换了位置，注意力权重就变了",
            "完全不变：猫的输出和原来逐位相同，只是换到了另一行",
            "变成了原来「狗」的输出",
            "所有词的输出都变成同一个向量",
        ],
        "answer": 1,
        "explanation": "自注意力对每个词的输出是置换等变 (permutation equivariant) 的：输入行怎么换，输出行就怎么换，"
                       "猫的输出本身不变（01 里两者只差浮点舍入）。对所有词取平均得到的句向量才是置换不变 (invariant) 的。",
        "hint": "注意力权重只由词向量决定；不加位置编码时，「猫」的词向量和它看到的词的集合都没变。",
    },
    {
        "question": "下面哪种说法最准确？（无位置编码的自注意力）",
        "options": [
            "每个词的输出置换不变，句向量置换等变",
            "每个词的输出和句向量都置换不变",
            "每个词的输出置换等变，对词取平均的句向量置换不变",
            "自注意力对顺序敏感，只是不够敏感",
        ],
        "answer": 2,
        "explanation": "等变：打乱输入，输出跟着同样打乱；不变：打乱输入，结果不变。逐词输出是前者，"
                       "平均/求和池化后的句向量是后者（01）。面试里说「置换不变」时最好补上这一句。",
        "hint": "把输入的行换个顺序，逐词输出的行会怎样？再对它们取平均又会怎样？",
    },
    {
        "question": "d_model = 2、位置从 0 开始时，第一个词的位置编码 PE(0) 是？",
        "options": ["[0.8415, 0.5403]", "[1, 0]", "[0, 1]", "[0, 0]"],
        "answer": 2,
        "explanation": "PE(0) = [sin 0, cos 0] = [0, 1]。种子文章把猫放在位置 1，所以它得到 PE(1) = [0.8415, 0.5403]（02）。",
        "hint": "偶数维放 sin(pos·w)，奇数维放 cos(pos·w)，pos = 0 时角度是 0。",
    },
    {
        "question": "d_model = 512、base = 10000 时，哪一对 (sin, cos)「转得最快」，它的波长是多少个位置？",
        "options": [
            "最后一对 i = 255，波长约 10000·2π",
            "第一对 i = 0，波长 2π",
            "所有对转得一样快，波长都是 2π",
            "第一对 i = 0，波长 10000",
        ],
        "answer": 1,
        "explanation": "w_i = base^(−2i/d_model)，i = 0 时 w = 1，波长 2π：像秒针，分辨相邻位置；"
                       "最后一对 w 最小、转得最慢，波长 2π·10000^(510/512)，略小于 10000·2π（03）。",
        "hint": "w_i = base^(−2i/d_model) 随 i 增大而变小，波长 = 2π / w_i。",
    },
    {
        "question": "关于 PE(pos+k) 和 PE(pos) 的关系，哪一个是对的？",
        "options": [
            "PE(pos+k) = PE(pos) + PE(k)",
            "PE(pos+k) = PE(pos)·W + PE(k)·W'（W、W' 固定）",
            "PE(pos+k) = R_k·PE(pos)，R_k 是只依赖 k 的旋转",
            "两者之间没有固定关系，只能查表",
        ],
        "answer": 2,
        "explanation": "由和角公式，每一对都被转过 k·w_i：PE(pos+k) = R_k·PE(pos)，每个 2×2 块是 "
                       "[[cos kw, sin kw], [−sin kw, cos kw]]。PE(k) 的各项正是这些系数：它去乘 PE(pos)，"
                       "不是额外加上一项（04 逐个位置验证过，误差只是舍入）。",
        "hint": "写出 sin((pos+k)w) 和 cos((pos+k)w) 的和角公式，看 PE(k) 的 sin kw、cos kw 出现在哪里。",
    },
    {
        "question": "PE(p)·PE(p+5) 和 PE(p)·PE(p−5) 哪个大？",
        "options": [
            "一样大：点积 = Σ cos(k·w_i)，cos 是偶函数，分不出前后",
            "PE(p)·PE(p+5) 大，因为后面的词更重要",
            "PE(p)·PE(p−5) 大，因为前面的词更近",
            "取决于 p",
        ],
        "answer": 0,
        "explanation": "PE(p)·PE(p+k) = Σ cos(k·w_i)：只依赖 k，与 p 无关，且 +k 与 −k 相同。"
                       "所以单靠点积，模型分不出一个词在前还是在后（04）；方向信息要靠 W_q、W_k 或 RoPE 这类设计。",
        "hint": "把每一对的 sin·sin + cos·cos 合并成一个 cos。",
    },
    {
        "question": "PE(p)·PE(p+k) 随着距离 |k| 增大会怎样？",
        "options": [
            "严格单调下降：越远越不相似",
            "不单调：大体下降但有起伏（d_model = 2 时就是 cos k）",
            "保持不变",
            "严格单调上升",
        ],
        "answer": 1,
        "explanation": "「近则相似、远则不同」只是大致成立。d_model = 2 时点积是 cos k，k = 6 比 k = 1 还像；"
                       "d_model = 512 时曲线在几十个位置后就开始小幅回升（04 里算出了第一个回升点）。",
        "hint": "先看最简单的 d_model = 2：点积就是 cos k。",
    },
    {
        "question": "GPT-2 用可学习位置嵌入 (learned position embedding)，n_positions = 1024。给它第 1025 个 token（位置 1024）会怎样？",
        "options": [
            "自动用公式算出位置 1024 的编码",
            "位置表里没有这一行：直接报索引错误（或者只能截断输入）",
            "复用位置 0 的编码，结果完全正确",
            "没影响，位置编码对 GPT-2 可有可无",
        ],
        "answer": 1,
        "explanation": "可学习位置表就是 nn.Embedding(1024, 768) 这样的查找表：只有位置 0..1023 这 1024 行，"
                       "GPT-2 small 的这张表有 1024 × 768 个参数；BERT-base 的表是 512 行（05）。",
        "hint": "可学习位置嵌入是一张表，表有多少行？",
    },
    {
        "question": "「正弦编码能算出任意位置的向量，所以模型能很好地泛化到比训练更长的序列」——这句话对吗？",
        "options": [
            "对：能算出来就等于能泛化",
            "不对：能算出任意位置 ≠ 在更长的序列上表现好",
            "不对：正弦编码也只能算到位置 512",
            "对，而且可学习编码也一样",
        ],
        "answer": 1,
        "explanation": "公式对任何 pos 都有定义（它不会像查表那样报错），但模型在训练中没见过那些位置组合，"
                       "外推时效果常常下降。「能算」是编码的性质，「泛化好」是训练后模型的性质（05、07）。",
        "hint": "区分「编码存在」与「模型用得好」。",
    },
    {
        "question": "RoPE 和 ALiBi 分别怎样引入位置？",
        "options": [
            "RoPE：把位置向量加到词向量上；ALiBi：学一张位置表",
            "RoPE：按位置旋转 q 和 k；ALiBi：分数减去随距离线性增长的惩罚",
            "两者都只是换了一个 base",
            "RoPE：旋转 v；ALiBi：把注意力分数乘以距离",
        ],
        "answer": 1,
        "explanation": "RoPE：位置 m 的 q、位置 n 的 k 的每一对各自按 m·w_i、n·w_i 旋转（就是 04 的旋转），"
                       "旋转后的点积只依赖 n − m，而且分得出前后（07）。"
                       "ALiBi：不用位置向量，给分数加上 −m_h·|i − j|，每个头一个斜率 m_h（07）。",
        "hint": "一个作用在 q、k 上，一个作用在注意力分数上。",
    },
]
# === end section 04-06 ===


# === section 05: notebook 05 additions ===
# ---------------------------------------------------------------------------
# Compute (notebook 05): row similarity, accuracy by length,
# parameter counts, small tables
# ---------------------------------------------------------------------------
#: Colour of each position encoding in the figures of notebook 05.
PE_COLORS = {"none": "0.45", "sinusoidal": "C0", "learned": "C1", "rope": "C2", "alibi": "C3"}

#: y range of every loss plot (log axis): from below the final losses up past ln 8.
LOSS_YLIM = (1e-4, 10.0)


def position_similarity(table) -> np.ndarray:
    """Cosine similarity of every pair of rows: ``S[p, q] = cos(row p, row q)``.

    ``table`` is ``(positions, d_model)`` (a learned table, or a PE table). A row of zeros
    has similarity 0 with every row, itself included.
    Introduced in notebook 05_learned_embeddings.
    """
    t = _check_array("table", table, ndim=2)
    norms = np.linalg.norm(t, axis=1)
    unit = t / np.where(norms > 0, norms, 1.0)[:, None]
    return np.einsum("pd,qd->pq", unit, unit)


def similarity_by_offset(similarity) -> np.ndarray:
    """Mean of ``S[p, p + k]`` over p, for k = 0 .. n-1 (k = 1: neighbouring positions).

    Introduced in notebook 05_learned_embeddings.
    """
    s = _check_array("similarity", similarity, ndim=2)
    if s.shape[0] != s.shape[1] or s.shape[0] < 1:
        raise ValueError(f"similarity must be a square matrix, got shape {s.shape} / "
                         f"similarity 必须是方阵")
    return np.array([np.diagonal(s, k).mean() for k in range(s.shape[0])])


def length_accuracy(model, lengths=(4, 16), *, seed: int = 0, n_per_length: int = 512) -> dict:
    """Held-out accuracy at every sentence length lo .. hi: ``{length: accuracy or None}``.

    Each length gets its own test set of sentences of exactly that length (the same sets
    as :func:`extrapolation_table`: ``make_bite_dataset(n_per_length, (L, L), seed + 1000 + L,
    split="test")``). None marks a length the model cannot read: a learned table without a
    row for its last positions raises :class:`PositionLimitError` there.
    Introduced in notebook 05_learned_embeddings.
    """
    lo, hi = _check_lengths("lengths", lengths, 4)
    seed = _check_int("seed", seed, 0)
    n_per_length = _check_int("n_per_length", n_per_length, 2)
    if n_per_length % 2:
        raise ValueError("n_per_length must be even (mirror pairs) / n_per_length 必须是偶数")
    out = {}
    with _deterministic_torch(1):
        for length in range(lo, hi + 1):
            ds = make_bite_dataset(n_per_length, (length, length), seed + 1000 + length, split="test")
            try:
                out[length] = evaluate(model, ds)
            except PositionLimitError:
                out[length] = None
    return out


def rows_with_gradient(train_lengths=(4, 8), max_len: int = 16, *, seed: int = 0) -> int:
    """How many rows of a learned position table get a nonzero gradient from training data.

    Builds an ``OrderModel(pe="learned", max_len=max_len)``, runs one forward and backward
    pass on a batch of training sentences with ``train_lengths`` and counts the rows of the
    table whose gradient is not all zero. Rows for positions no training sentence reaches
    get none: training never moves them.
    Introduced in notebook 05_learned_embeddings.
    """
    lo, hi = _check_lengths("train_lengths", train_lengths, 4)
    max_len = _check_int("max_len", max_len, hi, 4096)
    seed = _check_int("seed", seed, 0)
    import torch

    data = make_bite_dataset(DEFAULT_N_TRAIN, (lo, hi), seed, split="train")
    with _deterministic_torch(1), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = _model_classes()["OrderModel"](len(VOCAB), len(ANIMALS), pe="learned", max_len=max_len)
        loss = torch.nn.functional.cross_entropy(model(data.tokens, data.mask), data.labels)
        loss.backward()
    grad = model.pos_emb.weight.grad
    return int((grad.abs().sum(dim=1) > 0).sum())


def position_table_parameters(max_len: int, d_model: int) -> int:
    """Trainable parameters of a learned position table ``nn.Embedding(max_len, d_model)``.

    Counted from a real torch module built on the "meta" device (no memory allocated), so
    GPT-2's 1024 x 768 table costs nothing to count.
    Introduced in notebook 05_learned_embeddings.
    """
    max_len = _check_int("max_len", max_len, 1, 10**9)
    d_model = _check_int("d_model", d_model, 1, 10**6)
    import torch

    table = torch.nn.Embedding(max_len, d_model, device="meta")
    return int(sum(p.numel() for p in table.parameters() if p.requires_grad))


def markdown_table(header, rows) -> str:
    """A markdown table (GitHub style) from a header and rows; cells go through ``str``.

    Display it with ``IPython.display.Markdown(pl.markdown_table(...))``. ``|`` inside a
    cell is escaped; every row must have as many cells as the header.
    Introduced in notebook 05_learned_embeddings.
    """
    header = [str(h) for h in header]
    if not header:
        raise ValueError("header must not be empty / header 不能为空")
    lines = []
    for n, row in enumerate([header, *rows]):
        cells = [str(c).replace("|", "\\|").replace("\n", " ") for c in row]
        if len(cells) != len(header):
            raise ValueError(f"row {n} has {len(cells)} cells, the header has {len(header)} / "
                             f"第 {n} 行有 {len(cells)} 格，表头有 {len(header)} 格")
        lines.append("| " + " | ".join(cells) + " |")
        if n == 0:
            lines.append("|" + "---|" * len(header))
    return "\n".join(lines)


def training_table_html(runs: dict, pes=None) -> str:
    """An HTML table of training results: accuracy per model and seconds.

    ``runs`` maps a pe name to its :class:`TrainResult`; names in ``pes`` without a run yet
    get a row of dashes (the training panel fills it in as each model finishes).
    Introduced in notebook 05_learned_embeddings.
    """
    pes = list(runs) if pes is None else list(pes)
    head = ("位置编码 (pe)", "训练集准确率 (train)", "留出集准确率 (held-out)", "最后的损失 (loss)", "用时 (s)")
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = []
    for pe in pes:
        r = runs.get(pe)
        if r is None:
            row = [html.escape(pe), "—", "—", "—", "—"]
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
            continue
        body.append(
            f"<tr><td>{html.escape(pe)}</td><td class='posenc-acc'>{r.train_accuracy:.3f}</td>"
            f"<td class='posenc-acc'>{r.test_accuracy:.3f}</td><td>{r.losses[-1]:.4f}</td>"
            f"<td>{r.seconds:.1f}</td></tr>")
    return (f"<table class='posenc-training-table'><thead><tr>{cells}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


# ---------------------------------------------------------------------------
# Exercises (notebook 05)
# ---------------------------------------------------------------------------
def check_position_params(max_len: int, d_model: int, answer) -> Verdict:
    """Check the number of trainable parameters of a learned ``max_len x d_model`` table.

    Introduced in notebook 05_learned_embeddings.
    """
    right = position_table_parameters(max_len, d_model)
    got = _answer_int(answer)
    if got is None:
        return Verdict(False, "答案应是一个整数（参数个数）。提示：表有 max_len 行，每行 d_model 个数。")
    if got == right:
        return Verdict(True, f"{max_len} 行 × {d_model} 列 = {right:,} 个可训练参数。")
    if got == max_len + d_model:
        return Verdict(False, "不是相加：表里每个位置（每行）都有 d_model 个数，要相乘。")
    if got == (max_len - 1) * d_model:
        return Verdict(False, f"位置是 0 … {max_len - 1}，一共 {max_len} 行，不是 {max_len - 1} 行。")
    if got == 0:
        return Verdict(False, "0 是正弦编码的参数量（公式算出，不训练）；可学习的表每个数都是参数。")
    return Verdict(False, "一张表 = max_len 行 × d_model 列，每个数都是一个可训练参数。")


def order_blind_bound(seed: int = 0, n: int = 1000) -> float:
    """The best accuracy any order-blind model can reach on a mirror-pair dataset.

    Such a model sees A咬B and B咬A (same tokens, same fillers) as the same input, so it
    gives both rows of a mirror pair one answer; per pair the best answer is right once.
    Computed from the data: for every pair, the best single guess, averaged.
    Introduced in notebook 05_learned_embeddings.
    """
    ds = make_bite_dataset(_check_int("n", n, 2), seed=_check_int("seed", seed, 0), split="test")
    labels = ds.labels.numpy().reshape(-1, 2)                    # rows 2k, 2k+1
    guesses = np.arange(len(ANIMALS))
    hits = (labels[:, :, None] == guesses[None, None, :]).sum(axis=1)   # (pairs, guesses)
    return float(hits.max(axis=1).mean() / 2)


def check_order_blind_accuracy(answer) -> Verdict:
    """Check the accuracy ceiling of an order-blind model on mirror pairs (a fraction).

    Recognises 1/8 (guessing among all animals) and percentages.
    Introduced in notebook 05_learned_embeddings.
    """
    right = order_blind_bound()
    if answer is None:
        return Verdict(False, "把 None 换成一个 0 到 1 之间的小数。")
    verdict = check_value(answer, right, tol=1e-3)
    if verdict:
        return Verdict(True, f"最多 {right:.3f}：镜像的两句对它是同一个输入，只能给同一个答案，一对里最多对一句。")
    got = _answer_array(answer, ())
    if got is not None and abs(float(got) - 100 * right) < 0.1:
        return Verdict(False, "请用 0 到 1 之间的小数，不是百分数。")
    if got is not None and abs(float(got) - 1 / len(ANIMALS)) < 1e-3:
        return Verdict(False, f"1/{len(ANIMALS)} 是在 {len(ANIMALS)} 只动物里瞎猜；但不看语序的模型也看得见句子里是哪两只动物。")
    return Verdict(False, "不看语序的模型分不开 A咬B 和 B咬A（同样的字、同样的填充词）：它对两句给同一个答案。一对里最多对几句？")


# ---------------------------------------------------------------------------
# Plot (notebook 05)
# ---------------------------------------------------------------------------
class _LossView:
    """Training loss against the step, one line per encoding, on a log axis.

    ln 8 (guessing among 8 animals) and ln 2 (guessing between the two in the sentence)
    are marked: an order-blind model goes from the first to the second and stays there.
    """

    def __init__(self, ax, pes, steps):
        self.ax = ax
        self.lines = {}
        for pe in pes:
            (self.lines[pe],) = ax.plot([], [], color=PE_COLORS.get(pe, "k"), lw=1.6, label=pe)
        for value, zh, en in ((math.log(len(ANIMALS)), f"ln {len(ANIMALS)}：{len(ANIMALS)} 只动物里瞎猜",
                               f"ln {len(ANIMALS)}: guess among {len(ANIMALS)} animals"),
                              (math.log(2), "ln 2：两只动物里猜一只", "ln 2: guess one of the two")):
            ax.axhline(value, color="0.35", lw=0.8, ls="--", zorder=0.5)
            ax.text(0.99, value * 1.12, label(f"{zh} ({value:.3f})", f"{en} ({value:.3f})"),
                    transform=ax.get_yaxis_transform(), ha="right", va="bottom", fontsize=7.5, color="0.3")
        ax.set_yscale("log")
        ax.set_ylim(*LOSS_YLIM)
        ax.set_xlim(0, steps)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(label("训练步 (step)", "training step"))
        ax.set_ylabel(label("交叉熵损失（对数轴）", "cross-entropy loss (log)"))
        ax.legend(loc="lower left", fontsize=8, ncols=len(pes), frameon=False)

    def artists(self):
        return list(self.lines.values())

    def set_losses(self, pe, losses):
        losses = np.asarray(losses, dtype=float)
        self.lines[pe].set_data(np.arange(1, len(losses) + 1), losses)


def _runs_losses(runs) -> dict:
    if not isinstance(runs, dict) or not runs:
        raise ValueError("runs must be a non-empty dict {pe: TrainResult or list of losses} / "
                         "runs 必须是非空字典 {pe: TrainResult 或损失列表}")
    out = {}
    for pe, r in runs.items():
        losses = getattr(r, "losses", r)
        out[_check_pe(pe)] = _check_array(f"losses of {pe}", losses, ndim=1)
    return out


def plot_loss_curves(runs, ax=None):
    """Loss curves of several runs (``{pe: TrainResult}`` or ``{pe: losses}``) on a log axis.

    Introduced in notebook 05_learned_embeddings.
    """
    losses = _runs_losses(runs)
    with figure_style():
        fig, ax = _new_axes(ax, (6.4, 3.0))
        view = _LossView(ax, list(losses), max(len(v) for v in losses.values()))
        for pe, v in losses.items():
            view.set_losses(pe, v)
        ax.set_title(label("三个模型的训练损失", "training loss of each model"))
    return fig


def _check_run(run):
    if run is None:
        return trained_run("learned")
    snaps = getattr(run, "snapshots", None)
    if not snaps or getattr(run, "config", {}).get("pe") != "learned":
        raise ValueError("run must be a learned TrainResult with snapshots (train_order_model('learned', "
                         "snapshot_every=5)) / run 必须是带快照的 learned 训练结果")
    return run


def _snapshot_at(run, step):
    steps = [s for s, _ in run.snapshots]
    if step is None:
        return run.snapshots[-1]
    if step not in steps:
        raise ValueError(f"step must be one of the snapshot steps {steps}, got {step!r} / "
                         f"step 必须是快照的步数之一")
    return run.snapshots[steps.index(step)]


class _LearnedSimilarityView:
    """Learned table's row similarity (changes with the step), the sinusoidal table's
    (fixed), and the learned run's loss with a marker at the step."""

    def __init__(self, ax_learned, ax_sin, ax_loss, run):
        self.run = run
        n, d_model = run.snapshots[0][1].shape
        kw = dict(cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest",
                  extent=(-0.5, n - 0.5, n - 0.5, -0.5))
        self.image = ax_learned.imshow(np.eye(n), **kw)
        heatmaps = [ax_learned]
        if ax_sin is not None:
            sin_table = sinusoidal_encoding(n, d_model, run.config.get("base", 10000.0))
            ax_sin.imshow(position_similarity(sin_table), **kw)
            adj = similarity_by_offset(position_similarity(sin_table))[1]
            ax_sin.set_title(label(f"正弦表（固定，不训练）\n相邻位置的平均 cos = {adj:.2f}",
                                   f"sinusoidal (fixed)\nneighbours: mean cos = {adj:.2f}"), fontsize=9)
            heatmaps.append(ax_sin)
        ticks = list(range(0, n, max(1, n // 8)))
        for ax in heatmaps:
            ax.set_xticks(ticks)
            ax.set_yticks(ticks)
            ax.set_xlabel(label("位置 q", "position q"))
        ax_learned.set_ylabel(label("位置 p", "position p"))
        self.title = ax_learned.set_title(" \n ", fontsize=9)
        ax_learned.get_figure().colorbar(self.image, ax=heatmaps, shrink=0.85, pad=0.02,
                                         label=label("cos(第 p 行, 第 q 行)", "cos(row p, row q)"))
        self.marker = None
        if ax_loss is not None:
            losses = np.asarray(run.losses)
            ax_loss.plot(np.arange(1, len(losses) + 1), losses, color=PE_COLORS["learned"], lw=1.4)
            ax_loss.axhline(math.log(2), color="0.35", lw=0.8, ls="--", zorder=0.5)
            ax_loss.text(0.5, math.log(2) * 1.15, "ln 2", transform=ax_loss.get_yaxis_transform(),
                         ha="center", va="bottom", fontsize=7.5, color="0.3")
            ax_loss.set_yscale("log")
            ax_loss.set_ylim(*LOSS_YLIM)
            ax_loss.set_xlim(-0.03 * len(losses), 1.03 * len(losses))
            ax_loss.set_xlabel(label("训练步 (step)", "training step"))
            ax_loss.set_title(label("learned 模型的训练损失\n竖线 = 当前快照", "loss of the learned model\nline = this snapshot"), fontsize=9)
            self.marker = ax_loss.axvline(0, color="k", lw=1.2)

    def artists(self):
        return [self.image, self.title] + ([self.marker] if self.marker is not None else [])

    def update(self, step):
        step, table = _snapshot_at(self.run, step)
        sim = position_similarity(table)
        self.image.set_data(sim)
        adj = similarity_by_offset(sim)[1]
        self.title.set_text(label(f"可学习表，第 {step} 步\n相邻位置的平均 cos = {adj:.2f}",
                                  f"learned, step {step}\nneighbours: mean cos = {adj:.2f}"))
        if self.marker is not None:
            self.marker.set_xdata([step, step])


def plot_learned_similarity(run=None, step=None, ax=None):
    """Row similarity of the learned table at ``step`` next to the sinusoidal table's, and
    the learned run's loss.

    ``run`` defaults to :func:`trained_run` ("learned"), ``step`` to its last snapshot. With
    ``ax`` given, only the learned heatmap is drawn into it.
    Introduced in notebook 05_learned_embeddings.
    """
    run = _check_run(run)
    _snapshot_at(run, step)  # validate first
    with figure_style():
        if ax is None:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(9.4, 3.0), layout="constrained")
            axes = fig.subplots(1, 3, width_ratios=[1, 1, 1.25])
            view = _LearnedSimilarityView(*axes, run)
        else:
            fig = _adopt_axes(ax)
            view = _LearnedSimilarityView(ax, None, None, run)
        view.update(step)
    return fig


def plot_length_accuracy(curves: dict, train_lengths=(4, 8), ax=None):
    """Accuracy against sentence length for several models, training lengths shaded.

    ``curves`` maps a label to ``{length: accuracy or None}`` (from :func:`length_accuracy`);
    the label's first word picks the colour (a pe name), a second curve of the same pe is
    dashed. None (the model cannot read that length) is marked with a cross at the bottom.
    Introduced in notebook 05_learned_embeddings.
    """
    if not isinstance(curves, dict) or not curves:
        raise ValueError("curves must be a non-empty dict {label: {length: accuracy}} / "
                         "curves 必须是非空字典")
    lo, hi = _check_lengths("train_lengths", train_lengths, 3)
    with figure_style():
        fig, ax = _new_axes(ax, (6.8, 3.2))
        ax.axvspan(lo - 0.5, hi + 0.5, color="0.92", zorder=0)
        ax.text((lo + hi) / 2, 1.04, label("训练时的长度", "training lengths"), ha="center",
                va="bottom", fontsize=8, color="0.3")
        ax.axhline(0.5, color="0.35", lw=0.8, ls="--")
        seen = {}
        all_lengths = set()
        for name, by_length in curves.items():
            pe = str(name).split()[0]
            color = PE_COLORS.get(pe, "k")
            style = "--" if pe in seen else "-"
            seen[pe] = True
            xs = sorted(int(k) for k in by_length)
            all_lengths.update(xs)
            ys = np.array([np.nan if by_length[x] is None else float(by_length[x]) for x in xs])
            ax.plot(xs, ys, style, marker="o", ms=3.5, color=color, lw=1.5, label=str(name))
            missing = [x for x, y in zip(xs, ys) if np.isnan(y)]
            if missing:
                ax.plot(missing, [0.02] * len(missing), "x", color=color, ms=6, mew=1.6, clip_on=False,
                        label=label(f"{name}：没有这一行，报错", f"{name}: no row, raises"))
        ax.set_ylim(0, 1.1)
        ax.set_xticks(sorted(all_lengths))
        ax.set_xlabel(label("句子长度（词数，含「。」）", "sentence length (tokens)"))
        ax.set_ylabel(label("留出集准确率", "held-out accuracy"))
        ax.text(lo - 0.4, 0.52, label("0.5：不看语序的上限", "0.5: order-blind ceiling"),
                ha="left", va="bottom", fontsize=7.5, color="0.3")
        ax.legend(fontsize=7.5, loc="lower left", framealpha=0.9)
    return fig


# ---------------------------------------------------------------------------
# Explore (notebook 05): the learned table forming, and the training panel
# ---------------------------------------------------------------------------
class LearnedTableExplorer(Explorer):
    """Slide through saved training snapshots: the learned table's row similarity takes
    shape (left) next to the fixed sinusoidal table's (middle); the loss (right) marks the step.

    No training happens on a slider move: the default run (:func:`trained_run` "learned",
    a snapshot every 5 steps) is trained once per session and cached.
    Introduced in notebook 05_learned_embeddings.
    """

    name = "learned"

    def __init__(self, step=None, run=None):
        import ipywidgets as w

        self.run = _check_run(run)
        steps = [s for s, _ in self.run.snapshots]
        step = steps[-1] if step is None else _snapshot_at(self.run, step)[0]
        st = _slider_style()
        controls = {"step": w.SelectionSlider(options=steps, value=step,
                                              description=label("训练步 step", "step"), style=st)}
        self.play = w.Play(value=steps.index(step), min=0, max=len(steps) - 1, step=1, interval=300,
                           description="play")
        w.link((self.play, "value"), (controls["step"], "index"))
        super().__init__(controls, extras=[self.play])

    FIGSIZE = (8.6, 2.9)

    def _make_view(self, fig):
        axes = fig.subplots(1, 3, width_ratios=[1, 1, 1.25])
        self.view = _LearnedSimilarityView(*axes, self.run)

    def _depends(self):
        return {"step": self.view.artists()}

    def _update(self, step):
        self.view.update(step)
        return False


class _LossMonitor(Explorer):
    """The training panel's live loss figure: an Explorer without controls, whose lines
    are updated in place (``set_losses``) and blitted by :meth:`refresh`."""

    name = "loss-monitor"
    FIGSIZE = (8.6, 2.9)

    def __init__(self, pes, steps):
        self.pes, self.steps = tuple(pes), int(steps)
        self._xlim = None
        super().__init__({})

    def _make_view(self, fig):
        ax = fig.add_subplot(1, 1, 1)
        self.view = _LossView(ax, self.pes, self.steps)
        self.hint = ax.text(0.5, 0.5, label("点「训练」开始", "press train to start"), transform=ax.transAxes,
                            ha="center", va="center", fontsize=11, color="0.4")

    def _animated(self):
        return [*self.view.artists(), self.hint]

    def _update(self):
        if self._xlim != self.steps:  # a new number of steps: new x axis, one full redraw
            self.view.ax.set_xlim(0, self.steps)
            changed = self._xlim is not None
            self._xlim = self.steps
            return changed
        return False

    def reset(self, steps: int) -> None:
        """Empty every line and set the x axis to ``steps``."""
        self.steps = int(steps)
        for pe in self.pes:
            self.view.set_losses(pe, [])
        self.hint.set_visible(False)
        self.refresh()

    def set_losses(self, pe, losses) -> None:
        self.view.set_losses(pe, losses)


class TrainingPanel:
    """Train several encodings with one button: progress bar, live loss curve, results table.

    Nothing trains until the button is pressed (``panel.button.click()`` from code); seed
    and steps are read at that moment and never trigger training themselves. Each model
    is :func:`train_order_model` with that seed and number of steps, so the same seed gives
    the same numbers as the notebook's code cells.
    Introduced in notebook 05_learned_embeddings.
    """

    def __init__(self, seed: int = 0, steps: int | None = None, pes=("none", "sinusoidal", "learned")):
        import ipywidgets as w

        pes = tuple(_check_pe(p) for p in pes)
        if not pes or len(set(pes)) != len(pes):
            raise ValueError(f"pes must name distinct encodings, got {pes!r} / pes 必须是互不相同的编码名")
        self.pes = pes
        seed = _check_int("seed", seed, 0, 10**6)
        steps = DEFAULT_STEPS if steps is None else _check_int("steps", steps, 5, 300)
        st = _slider_style()
        self.controls = {
            "seed": w.BoundedIntText(seed, min=0, max=10**6, description="seed", style=st,
                                     continuous_update=False, layout=w.Layout(width="130px")),
            "steps": w.IntSlider(steps, min=5, max=300, step=5, description="steps", style=st,
                                 continuous_update=False),
        }
        self.button = w.Button(description="训练 (train)", button_style="primary", icon="play",
                               tooltip="train one model per position encoding / 每种位置编码训练一个模型")
        self.progress = w.IntProgress(value=0, min=0, max=len(pes) * steps, description="进度",
                                      style=st)
        self.status = w.HTML("<span class='posenc-training-status'>还没有训练 (not trained yet)</span>")
        self.table = w.HTML(training_table_html({}, pes))
        self.monitor = _LossMonitor(pes, steps)
        self.image = self.monitor.image
        self.runs: dict = {}
        self.button.on_click(self._on_click)
        row = w.HBox([self.controls["seed"], self.controls["steps"], self.button],
                     layout=w.Layout(flex_flow="row wrap", align_items="center"))
        self.widget = w.VBox([row, self.progress, self.status, self.image, self.table])
        self.widget.add_class("posenc-training")

    def _set_status(self, text: str) -> None:
        self.status.value = f"<span class='posenc-training-status'>{html.escape(text)}</span>"

    def _on_click(self, _button) -> None:
        self.train()

    def train(self) -> dict:
        """Train every encoding with the current seed and steps; returns ``{pe: TrainResult}``."""
        seed, steps = int(self.controls["seed"].value), int(self.controls["steps"].value)
        n = len(self.pes)
        refresh_every = max(1, steps // 20)
        self.button.disabled = True
        self.runs = {}
        self.table.value = training_table_html(self.runs, self.pes)
        self.progress.max, self.progress.value = n * steps, 0
        self.monitor.reset(steps)
        start = time.perf_counter()
        try:
            for i, pe in enumerate(self.pes):
                self._set_status(f"正在训练 {pe}（{i + 1}/{n}），seed = {seed}，{steps} 步 …")
                seen: list = []

                def on_step(step, loss, pe=pe, i=i, seen=seen):
                    seen.append(loss)
                    self.progress.value = i * steps + step
                    if step % refresh_every == 0 or step == steps:
                        self.monitor.set_losses(pe, seen)
                        self.monitor.refresh()

                result = train_order_model(pe, seed=seed, steps=steps, callback=on_step, callback_every=1)
                self.runs[pe] = result
                self.monitor.set_losses(pe, result.losses)
                self.monitor.refresh()
                self.table.value = training_table_html(self.runs, self.pes)
            self._set_status(f"完成 (done)：{n} 个模型，seed = {seed}，{steps} 步，共 "
                             f"{time.perf_counter() - start:.1f} s")
        finally:
            self.button.disabled = False
        return self.runs

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


EXPLORERS["learned"] = LearnedTableExplorer
# === end section 05 ===


# === section 07: notebook 07 additions ===
# ---------------------------------------------------------------------------
# Compute (notebook 07): RoPE as a matrix, scores by offset, content + position
# scores, ALiBi's causal form and its attention, the extrapolation diagnostics
# ---------------------------------------------------------------------------
def rope_rotation(pos: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The ``d_model x d_model`` matrix :func:`rope` applies at position ``pos``.

    Block-diagonal, one standard (counter-clockwise) rotation per pair,
    ``[[cos(pos w_i), -sin(pos w_i)], [sin(pos w_i), cos(pos w_i)]]``, so
    ``rope(x[None], [pos])[0] == rope_rotation(pos, d) @ x``. In notebook 04's notation
    (blocks written for the (sin, cos) pair order) this is ``relative_rotation(-pos)``.
    Introduced in notebook 07_rope_alibi.
    """
    pos = _check_real("pos", pos)
    w = frequencies(d_model, base)
    c, s = np.cos(pos * w), np.sin(pos * w)
    r = np.zeros((d_model, d_model))
    idx = np.arange(0, d_model, 2)
    r[idx, idx] = c
    r[idx, idx + 1] = -s
    r[idx + 1, idx] = s
    r[idx + 1, idx + 1] = c
    return r


def _check_vector_pair(q, k):
    q = _check_array("q", q, ndim=1)
    k = _check_array("k", k, ndim=1)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same length, got {len(q)} and {len(k)} / "
                         f"q 与 k 的长度必须相同")
    _check_d_model(len(q))
    return q, k


def rope_pair_coefficients(q, k) -> tuple[np.ndarray, np.ndarray]:
    """Per pair i: ``a_i = q_2i k_2i + q_2i+1 k_2i+1`` and ``b_i = q_2i+1 k_2i - q_2i k_2i+1``.

    With them ``rope(q, m) . rope(k, m + t) = sum_i a_i cos(t w_i) + b_i sin(t w_i)``:
    the ``a`` (cos) part is even in the offset t, the ``b`` (sin) part is odd. ``b = 0``
    (each pair of k parallel to that of q, e.g. q = k) makes the score symmetric in +-t.
    Introduced in notebook 07_rope_alibi.
    """
    q, k = _check_vector_pair(q, k)
    q0, q1, k0, k1 = q[0::2], q[1::2], k[0::2], k[1::2]
    return q0 * k0 + q1 * k1, q1 * k0 - q0 * k1


def rope_score_by_offset(q, k, offsets, base: float = 10000.0) -> np.ndarray:
    """``rope(q, m) . rope(k, m + t)`` for each offset t in ``offsets``, by the closed form.

    ``sum_i a_i cos(t w_i) + b_i sin(t w_i)`` with ``a, b`` from
    :func:`rope_pair_coefficients`: no position m appears in it at all.
    Introduced in notebook 07_rope_alibi.
    """
    a, b = rope_pair_coefficients(q, k)
    t = _check_array("offsets", offsets)
    w = frequencies(2 * len(a), base)
    angles = np.multiply.outer(t, w)
    return np.cos(angles) @ a + np.sin(angles) @ b


SCORE_KINDS = ("additive", "rope")


def content_position_scores(x_q, x_k, w_q=None, w_k=None, *, kind: str = "rope", seq_len: int = 64,
                            k_max: int = 16, start: int = 0, base: float = 10000.0) -> np.ndarray:
    """Attention scores of one query token and one key token, by position and offset.

    ``out[r, k_max + t]`` is the score of the token ``x_q`` at position ``p = start + r``
    against the token ``x_k`` at position ``p + t`` (t = -k_max .. k_max; positions may be
    negative, the formulas are defined for any position). Row-vector convention, as in
    notebook 04: ``q = x W_q``.

    * ``kind="additive"``: ``((x_q + PE(p)) W_q) . ((x_k + PE(p + t)) W_k)`` -- the PE is
      added before the projection (sinusoidal, notebook 04).
    * ``kind="rope"``: ``rope(x_q W_q, p) . rope(x_k W_k, p + t)`` -- the rotation comes
      after the projection.

    ``w_q``, ``w_k`` are ``(d_model, d_k)`` (default: identity). Pass the result to
    :func:`offset_structure` to measure how much it depends on p.
    Introduced in notebook 07_rope_alibi.
    """
    if kind not in SCORE_KINDS:
        raise ValueError(f"kind must be one of {SCORE_KINDS}, got {kind!r} / kind 只能是 {SCORE_KINDS} 之一")
    x_q, x_k = _check_vector_pair(x_q, x_k)
    d_model = len(x_q)
    seq_len = _check_int("seq_len", seq_len, 1, 4096)
    k_max = _check_int("k_max", k_max, 0, 4096)
    start = _check_int("start", start, -10**6, 10**6)
    w_q, w_k = _projections(d_model, w_q, w_k)
    if w_q is None:
        w_q = w_k = np.eye(d_model)
    if kind == "rope" and w_q.shape[1] % 2:
        raise ValueError(f"for kind='rope' the projected width d_k must be even, got {w_q.shape[1]} / "
                         f"RoPE 要求投影后的维度 d_k 是偶数")
    q_pos = np.arange(start, start + seq_len, dtype=float)
    k_pos = np.arange(start - k_max, start + seq_len + k_max, dtype=float)
    if kind == "additive":
        q = _small_matmul(x_q[None, :] + encode_positions(q_pos, d_model, base), w_q)
        keys = _small_matmul(x_k[None, :] + encode_positions(k_pos, d_model, base), w_k)
    else:
        q = rope(np.tile(x_q @ w_q, (len(q_pos), 1)), q_pos, base)
        keys = rope(np.tile(x_k @ w_k, (len(k_pos), 1)), k_pos, base)
    g = _small_matmul(q, keys.T)                     # column c is key position start - k_max + c
    idx = np.arange(seq_len)[:, None] + np.arange(2 * k_max + 1)[None, :]
    return np.take_along_axis(g, idx, axis=1)


def alibi_causal_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi as in the paper's decoder: ``-m_h (i - j)`` for keys j <= i, ``-inf`` for j > i.

    Shape ``(num_heads, seq_len, seq_len)``; the ``-inf`` entries are the causal mask
    (softmax gives them weight 0). On the allowed entries it equals :func:`alibi_bias`.
    Introduced in notebook 07_rope_alibi.
    """
    bias = alibi_bias(seq_len, num_heads)
    future = np.triu(np.ones((bias.shape[1], bias.shape[1]), dtype=bool), k=1)
    return np.where(future[None, :, :], -np.inf, bias)


def _masked_softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; ``-inf`` entries get weight 0 (each row has a finite one)."""
    top = np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores - top)
    return e / e.sum(axis=-1, keepdims=True)


def alibi_attention(seq_len: int, num_heads: int, query: int | None = None,
                    causal: bool = False) -> np.ndarray:
    """Attention weights of one query row from the ALiBi bias alone (all q.k = 0).

    Returns ``(num_heads, seq_len)``: ``softmax_j(-m_h |query - j|)`` (with ``causal``, only
    keys j <= query). ``query`` defaults to the middle, ``seq_len // 2``. The weights fall
    off geometrically, by the factor ``exp(-m_h)`` per step: a discrete Laplace
    (two-sided geometric) shape.
    Introduced in notebook 07_rope_alibi.
    """
    seq_len = _check_int("seq_len", seq_len, 1, 4096)
    query = seq_len // 2 if query is None else _check_int("query", query, 0, seq_len - 1)
    bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
    return _masked_softmax(bias[:, query, :])


def accuracy_by_start(model, dataset) -> dict:
    """Accuracy per position of the biter (``dataset.starts``): {start: accuracy}.

    The biter sits at ``start``; the final 。 is ``length - 1 - start`` positions after it.
    Introduced in notebook 07_rope_alibi.
    """
    if not isinstance(dataset, BiteDataset):
        raise ValueError("dataset must be a BiteDataset / dataset 必须是 BiteDataset")
    import torch

    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = (model(dataset.tokens, dataset.mask).argmax(-1) == dataset.labels).numpy()
    model.train(was_training)
    starts = dataset.starts.numpy()
    return {int(s): float(correct[starts == s].mean()) for s in np.unique(starts)}


def format_extrapolation_table(rows, decimals: int = 2) -> str:
    """The rows of :func:`extrapolation_table` as an aligned text table.

    One line per model: accuracy on held-out sentences of the training lengths, then one
    column per test length; ``-`` where the model cannot run (its error is listed below).
    Introduced in notebook 07_rope_alibi.
    """
    try:
        rows = list(rows)
    except TypeError:
        raise TypeError("rows must be the list returned by extrapolation_table / rows 必须是 "
                        "extrapolation_table 返回的列表") from None
    if not rows or not all(isinstance(r, dict) and {"label", "in_distribution", "by_length"} <= set(r)
                           for r in rows):
        raise ValueError("rows must be the non-empty list returned by extrapolation_table / rows 必须是 "
                         "extrapolation_table 返回的非空列表")
    decimals = _check_int("decimals", decimals, 0, 6)
    lengths = sorted({L for r in rows for L in r["by_length"]})
    head = ["model", "train lengths"] + [str(L) for L in lengths]
    body = []
    for r in rows:
        cells = [r["label"], f"{r['in_distribution']:.{decimals}f}"]
        cells += ["-" if r["by_length"].get(L) is None else f"{r['by_length'][L]:.{decimals}f}"
                  for L in lengths]
        body.append(cells)
    widths = [max(len(row[c]) for row in [head] + body) for c in range(len(head))]
    fmt = lambda cells: "  ".join(c.ljust(widths[0]) if j == 0 else c.rjust(widths[j])
                                  for j, c in enumerate(cells))
    lines = [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(c) for c in body]
    notes = [f"- {r['label']}: {r['error']}" for r in rows if r.get("error")]
    if notes:
        lines += ["", "'-' = the model cannot run at that length:"] + notes
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Plot (notebook 07)
# ---------------------------------------------------------------------------
class _RopeView:
    """Pair i's plane (q at m, k at n as arrows) and the score against the offset n - m."""

    OFFSET_MAX = 30
    GRID = 601

    def __init__(self, ax_pair, ax_curve):
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle

        self.ax_pair, self.ax_curve = ax_pair, ax_curve
        ax_pair.add_patch(Circle((0, 0), 1.0, fill=False, lw=1.0, color="0.6"))
        ax_pair.axhline(0, color="0.85", lw=0.6, zorder=0)
        ax_pair.axvline(0, color="0.85", lw=0.6, zorder=0)
        (self.ghost,) = ax_pair.plot([0, 0], [0, 0], color="C0", lw=1.0, ls=":", alpha=0.8)
        kw = dict(angles="xy", scale_units="xy", scale=1, width=0.02, headwidth=3.2, headlength=3.8,
                  headaxislength=3.4)
        self.arrows = ax_pair.quiver([0, 0], [0, 0], [0, 0], [0, 0], color=["C0", "C1"], zorder=3, **kw)
        (self.arc,) = ax_pair.plot([], [], color="C2", lw=1.4, zorder=2)
        self.q_text = ax_pair.text(0, 0, "", color="C0", fontsize=9, ha="center", va="center")
        self.k_text = ax_pair.text(0, 0, "", color="C1", fontsize=9, ha="center", va="center")
        ax_pair.set_xlim(-1.3, 1.3)
        ax_pair.set_ylim(-1.3, 1.3)
        ax_pair.set_aspect("equal")
        ax_pair.set_xticks([])
        ax_pair.set_yticks([])
        ax_pair.set_xlabel(label("第 2i 维", "dim 2i"), labelpad=2)
        ax_pair.set_ylabel(label("第 2i+1 维", "dim 2i+1"), labelpad=2)
        self.title_pair = ax_pair.set_title(" ", fontsize=8.5)
        self.angle_text = ax_pair.text(0.03, 0.03, " ", transform=ax_pair.transAxes, fontsize=8, color="C2")

        t = np.linspace(-self.OFFSET_MAX, self.OFFSET_MAX, self.GRID)
        zeros = np.zeros_like(t)
        (self.pair_curve,) = ax_curve.plot(t, zeros, color="C2", lw=0.8, alpha=0.55)
        (self.mirror,) = ax_curve.plot(t, zeros, color="C3", lw=1.1, ls=":")
        (self.total,) = ax_curve.plot(t, zeros, color="C0", lw=1.6)
        (self.vline,) = ax_curve.plot([0, 0], [-1.1, 1.1], color="0.5", lw=0.8, ls="--")
        (self.pair_dot,) = ax_curve.plot([0], [0], "o", color="C2", ms=5)
        (self.total_dot,) = ax_curve.plot([0], [0], "o", color="C0", ms=7, mec="k", mew=0.8)
        ax_curve.axhline(0, color="0.8", lw=0.6, zorder=0.5)
        ax_curve.set_xlim(-self.OFFSET_MAX, self.OFFSET_MAX)
        ax_curve.set_ylim(-1.1, 2.05)   # room for the legend above the curves (it is not redrawn on top)
        ax_curve.set_yticks([-1, -0.5, 0, 0.5, 1])
        ax_curve.set_xlabel(label("偏移 n − m (offset)", "offset n − m"))
        ax_curve.set_ylabel(label("分数 / (|q||k|)", "score / (|q||k|)"))
        handles = [Line2D([], [], color="C0", lw=1.6, label=label("全部对：cos(q_m, k_n)", "all pairs: cos(q_m, k_n)")),
                   Line2D([], [], color="C3", lw=1.1, ls=":", label=label("镜像 n−m → m−n", "mirrored: n−m → m−n")),
                   Line2D([], [], color="C2", lw=0.9, label=label("只看第 i 对", "pair i alone")),
                   Line2D([], [], color="C0", marker="o", ms=6, mec="k", mew=0.8, ls="none",
                          label=label("在实际的 (m, n) 上算出的分数", "score computed at the actual (m, n)"))]
        ax_curve.legend(handles=handles, fontsize=7, loc="upper center", ncols=2, frameon=False,
                        handlelength=1.6, columnspacing=0.8, borderaxespad=0.2)
        self.title_curve = ax_curve.set_title(" ", fontsize=8.5)

    def artists(self):
        return [self.ghost, self.arc, self.arrows, self.q_text, self.k_text, self.title_pair,
                self.angle_text, self.pair_curve, self.mirror, self.total, self.vline, self.pair_dot, self.total_dot,
                self.title_curve]

    def pos_artists(self):
        """What a change of the query position m alone can change."""
        return [self.arc, self.arrows, self.q_text, self.k_text, self.angle_text, self.vline,
                self.pair_dot, self.total_dot, self.title_curve]

    def pair_artists(self):
        """What a change of the pair index i alone can change (the total curve stays)."""
        return [a for a in self.artists() if a is not self.total and a is not self.mirror]

    def update(self, q, k, pos, n, i, base):
        d = len(q)
        w = frequencies(d, base)
        norm = float(np.linalg.norm(q) * np.linalg.norm(k))   # rotations keep lengths: score / norm = cosine
        # the curves: q at position 0, k at position t (the relative claim: nothing else is needed)
        t = self.total.get_xdata()
        qs, ks = rope(q[None, :], [0.0], base)[0], rope(np.tile(k, (len(t), 1)), t, base)
        curve = ks @ qs / norm
        self.total.set_ydata(curve)
        self.mirror.set_ydata(curve[::-1])
        qi, ki = q[2 * i:2 * i + 2], k[2 * i:2 * i + 2]
        ni = float(np.linalg.norm(qi) * np.linalg.norm(ki))
        phase = math.atan2(qi[0] * ki[1] - qi[1] * ki[0], qi @ ki)   # angle from q_i to k_i
        self.pair_curve.set_ydata(np.cos(phase + t * w[i]))
        # the marker: the score actually computed with q at m = pos and k at n
        qm = rope(q[None, :], [float(pos)], base)[0]
        kn = rope(k[None, :], [float(n)], base)[0]
        off = n - pos
        score = float(qm @ kn) / norm
        pair_score = float(qm[2 * i:2 * i + 2] @ kn[2 * i:2 * i + 2]) / ni
        self.vline.set_xdata([off, off])
        self.total_dot.set_data([off], [score])
        self.pair_dot.set_data([off], [pair_score])
        # the plane of pair i: directions only (lengths differ from pair to pair)
        uq = qm[2 * i:2 * i + 2] / np.linalg.norm(qi)
        uk = kn[2 * i:2 * i + 2] / np.linalg.norm(ki)
        u0 = qi / np.linalg.norm(qi)
        self.ghost.set_data([0, 0.95 * u0[0]], [0, 0.95 * u0[1]])
        self.arrows.set_UVC([0.95 * uq[0], 0.95 * uk[0]], [0.95 * uq[1], 0.95 * uk[1]])
        self.q_text.set_position(tuple(1.13 * uq))
        self.q_text.set_text(f"q_{pos}")
        self.k_text.set_position(tuple(1.13 * uk))
        self.k_text.set_text(f"k_{n}")
        a0 = math.atan2(uq[1], uq[0])
        turn = (math.atan2(uk[1], uk[0]) - a0 + math.pi) % (2 * math.pi) - math.pi
        arc = a0 + np.linspace(0.0, turn, 40)
        self.arc.set_data(0.3 * np.cos(arc), 0.3 * np.sin(arc))
        self.title_pair.set_text(label(f"第 {i} 对：w_{i} = {w[i]:.3g}\n(d = {d}, base = {base:g})",
                                       f"pair {i}: w_{i} = {w[i]:.3g}\n(d = {d}, base = {base:g})"))
        self.angle_text.set_text(f"q→k: {turn:+.2f} rad")
        self.title_curve.set_text(f"m = {pos}, n = {n}, n − m = {off:+d}: cos(q_m, k_n) = {score:+.3f}")


def _rope_demo_vectors(d: int = 16, seed: int = 7, peak: float = 4.0):
    """The fixed q and k of the RoPE figures (d = 16: 8 pairs).

    q is random; k = rope_rotation(-peak) q + noise, so the score peaks near n - m = +peak
    ("look 4 tokens ahead") and the curve is visibly not symmetric.
    """
    rng = np.random.default_rng(seed)
    q = rng.normal(size=d)
    return q, rope_rotation(-peak, d) @ q + 0.6 * rng.normal(size=d)


def plot_rope(pos: int = 5, n: int = 20, i: int = 0, base: float = 10000.0):
    """RoPE for one fixed random q, k (d = 16): pair i's plane and the score against n - m.

    Left: pair i of q rotated to position m = ``pos`` (blue; dotted: at position 0) and of
    k rotated to n (orange). Right: ``rope(q, m).rope(k, n) / (|q||k|)`` for m = 0 and every
    offset (solid), the same curve mirrored (dotted) and pair i's own cosine (green); the
    dots are the score computed at the actual (m, n).
    Introduced in notebook 07_rope_alibi.
    """
    q, k = _rope_demo_vectors()
    pos = _check_int("pos", pos, -10**6, 10**6)
    n = _check_int("n", n, -10**6, 10**6)
    i = _check_int("i", i, 0, len(q) // 2 - 1)
    base = _check_base(base)
    if abs(n - pos) > _RopeView.OFFSET_MAX:
        raise ValueError(f"|n - pos| must be <= {_RopeView.OFFSET_MAX}, got {n - pos} / |n − pos| 不能超过 "
                         f"{_RopeView.OFFSET_MAX}")
    with figure_style():
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8, 3.2), layout="constrained")
        ax_pair, ax_curve = fig.subplots(1, 2, width_ratios=[1, 2.1])
        _RopeView(ax_pair, ax_curve).update(q, k, pos, n, i, base)
    return fig


def _alibi_cmap():
    import matplotlib

    return matplotlib.colormaps["viridis"].with_extremes(bad="0.9")


ALIBI_VMIN = -6.0   # bias colour scale: -6 and below share the darkest colour (exp(-6) ~ 0.0025)


def plot_alibi_bias(seq_len: int = 12, num_heads: int = 8, heads=(1, 4, 8), causal: bool = False,
                    annotate: bool = True):
    """ALiBi bias matrices for a few heads (1-based), side by side, one colour scale.

    ``causal=True`` draws the paper's decoder form (grey = masked future keys). With
    ``annotate`` and seq_len <= 12 every cell shows its value.
    Introduced in notebook 07_rope_alibi.
    """
    seq_len = _check_int("seq_len", seq_len, 2, 64)
    num_heads = _check_int("num_heads", num_heads, 1, 1024)
    if _is_int(heads):
        heads = (heads,)
    heads = [_check_int("heads", h, 1, num_heads) for h in heads]
    if not heads or len(heads) > 4:
        raise ValueError("heads must name 1 to 4 heads / heads 要给 1 到 4 个头")
    bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
    slopes = alibi_slopes(num_heads)
    with figure_style():
        from matplotlib.figure import Figure

        fig = Figure(figsize=(2.55 * len(heads) + 0.8, 3.0), layout="constrained")
        axes = np.atleast_1d(fig.subplots(1, len(heads)))
        for ax, h in zip(axes, heads):
            img = ax.imshow(np.ma.masked_invalid(bias[h - 1]), cmap=_alibi_cmap(), vmin=ALIBI_VMIN, vmax=0,
                            interpolation="nearest")
            if annotate and seq_len <= 12:
                for r in range(seq_len):
                    for c in range(seq_len):
                        if np.isfinite(bias[h - 1, r, c]):
                            ax.text(c, r, f"{-abs(r - c)}" if r != c else "0", ha="center", va="center",
                                    fontsize=6.5, color="white" if bias[h - 1, r, c] < 0.5 * ALIBI_VMIN else "black")
            step = max(1, seq_len // 6)
            ax.set_xticks(range(0, seq_len, step))
            ax.set_yticks(range(0, seq_len, step))
            ax.set_xlabel(label("key 位置 j", "key position j"))
            ax.set_title(f"head {h}: m = 2^(-{8 * h / num_heads:g}) = {slopes[h - 1]:.4g}")
        axes[0].set_ylabel(label("query 位置 i", "query position i"))
        form = (label("因果形式 −m·(i−j)，j ≤ i（灰 = 被遮住的未来）", "causal −m·(i−j), j ≤ i (grey = masked future)")
                if causal else label("对称形式 −m·|i−j|", "symmetric −m·|i−j|"))
        note = (label("；格中数字 = −|i−j|（偏置 = m × 它）", "; cell numbers = −|i−j| (bias = m × number)")
                if annotate and seq_len <= 12 else "")
        fig.suptitle(f"ALiBi bias, H = {num_heads}: {form}{note}", fontsize=10)
        fig.colorbar(img, ax=list(axes), shrink=0.85,
                     label=label(f"偏置（≤ {ALIBI_VMIN:g} 画成最深色）", f"bias (≤ {ALIBI_VMIN:g}: darkest)"))
    return fig


def plot_alibi_attention(seq_len: int = 33, num_heads: int = 8, causal: bool = False, query=None, ax=None):
    """Attention of one query from the ALiBi bias alone (q.k = 0), one curve per head.

    x = key position minus query position. Steep heads (small h) look only nearby; flat
    heads spread their weight over the whole sequence.
    Introduced in notebook 07_rope_alibi.
    """
    weights = alibi_attention(seq_len, num_heads, query, causal)
    query = seq_len // 2 if query is None else query
    slopes = alibi_slopes(num_heads)
    rel = np.arange(seq_len) - query
    with figure_style():
        import matplotlib

        fig, ax = _new_axes(ax, (6.6, 3.0))
        cmap = matplotlib.colormaps["viridis"]
        for h in range(num_heads):
            keep = np.isfinite(weights[h]) & (weights[h] > 0)
            color = cmap(h / max(1, num_heads - 1) * 0.9)
            ax.plot(rel[keep], weights[h, keep], "o-", ms=2.5, lw=1.1, color=color,
                    label=f"h = {h + 1}: m = {slopes[h]:.3g}")
        ax.set_xlabel(label("key 位置 − query 位置 (j − i)", "key position − query position (j − i)"))
        ax.set_ylabel(label("注意力权重", "attention weight"))
        form = label("因果", "causal") if causal else label("对称", "symmetric")
        ax.set_title(label(f"只有 ALiBi 偏置（q·k = 0）：query i = {query}，seq_len = {seq_len}，{form}",
                           f"ALiBi bias alone (q·k = 0): query i = {query}, seq_len = {seq_len}, {form}"))
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7, ncols=2, loc="upper left", frameon=False)
    return fig


#: Colour and marker per position encoding, shared by the notebook-07 plots.
_PE_STYLES = {"none": ("0.5", "x"), "sinusoidal": ("C0", "o"), "learned": ("C1", "s"),
              "rope": ("C2", "^"), "alibi": ("C3", "D")}


def plot_extrapolation(rows, ax=None):
    """Accuracy against test length, one line per row of :func:`extrapolation_table`.

    A row whose model cannot run (learned table too short) appears in the legend only.
    The dashed line is chance (1/2: the mirror-pair argument).
    Introduced in notebook 07_rope_alibi.
    """
    format_extrapolation_table(rows)   # validate
    styles = _PE_STYLES
    with figure_style():
        from matplotlib.lines import Line2D

        fig, ax = _new_axes(ax, (7.2, 3.2))
        handles = []
        for r in rows:
            color, marker = styles.get(r.get("pe"), ("k", "o"))
            ls = "-"
            pts = sorted((L, a) for L, a in r["by_length"].items() if a is not None)
            name = r["label"]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, ls=ls, marker=marker, ms=4, lw=1.4, color=color)
                handles.append(Line2D([], [], color=color, marker=marker, ms=4, ls=ls, label=name))
            else:
                handles.append(Line2D([], [], color=color, marker="x", ms=6, ls="none",
                                      label=f"{name}: {label('无法运行', 'cannot run')}"))
        ax.axhline(0.5, color="0.5", lw=0.9, ls="--")
        ax.text(1.0, 0.5, label(" 随机 (chance)", " chance"), transform=ax.get_yaxis_transform(),
                va="center", ha="left", fontsize=8, color="0.4")
        lengths = sorted({L for r in rows for L in r["by_length"]})
        ax.set_xticks(lengths)
        lowest = min([0.45] + [a for r in rows for a in r["by_length"].values() if a is not None])
        ax.set_ylim(max(0.0, lowest - 0.05), 1.03)
        ax.set_xlabel(label("测试句子长度（词数，含 。）", "test sentence length (tokens)"))
        ax.set_ylabel(label("准确率", "accuracy"))
        ax.set_title(label("在短句上训练，在更长的句子上测试", "trained on short sentences, tested on longer ones"))
        ax.legend(handles=handles, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.06, 1.0), frameon=False)
    return fig


def plot_accuracy_by_start(by_start: dict, seq_len: int, train_lengths=(4, 8), ax=None):
    """Accuracy at one test length against the biter's position, one line per model.

    ``by_start`` maps a model name to ``{start: accuracy}`` (from :func:`accuracy_by_start`).
    Shaded: positions the biter occupied in training (``start <= hi - 4``) and the positions
    whose distance to the final 。 (``seq_len - 1 - start``) occurred in training.
    Introduced in notebook 07_rope_alibi.
    """
    seq_len = _check_int("seq_len", seq_len, 4, 32)
    lo, hi = _check_lengths("train_lengths", train_lengths, 4)
    if not isinstance(by_start, dict) or not by_start:
        raise ValueError("by_start must be a non-empty dict {model name: {start: accuracy}} / "
                         "by_start 必须是非空 dict")
    with figure_style():
        fig, ax = _new_axes(ax, (7.2, 3.2))
        last = seq_len - 4
        ax.axvspan(-0.5, hi - 4 + 0.5, color="C0", alpha=0.1, lw=0)
        ax.axvspan(seq_len - hi - 0.5, last + 0.5, color="C3", alpha=0.1, lw=0)
        ax.text(-0.4, 0.02, label("训练中见过的\n施事位置", "biter positions\nseen in training"),
                color="C0", fontsize=7.5, va="bottom")
        ax.text(last + 0.4, 0.02, label("到 。 的距离\n训练中见过", "distance to the end\nseen in training"),
                color="C3", fontsize=7.5, va="bottom", ha="right")
        for j, (name, acc) in enumerate(by_start.items()):
            pts = sorted(acc.items())
            color, marker = _PE_STYLES.get(name, (f"C{(j + 4) % 10}", "v"))
            ax.plot([p for p, _ in pts], [a for _, a in pts], marker=marker, ms=4, lw=1.3,
                    color=color, label=str(name))
        ax.axhline(0.5, color="0.5", lw=0.8, ls="--")
        ax.set_xlim(-0.5, last + 0.5)
        ax.set_ylim(0, 1.05)
        ax.set_xticks(range(0, last + 1))
        ax.set_xlabel(label(f"施事（咬人者）的位置 start（句长 {seq_len}，。 在位置 {seq_len - 1}）",
                            f"position of the biter (length {seq_len}, the end mark at {seq_len - 1})"))
        ax.set_ylabel(label("准确率", "accuracy"))
        ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.38, 0.03), frameon=True, framealpha=0.9)
    return fig


# ---------------------------------------------------------------------------
# Explore (notebook 07)
# ---------------------------------------------------------------------------
class RopeExplorer(Explorer):
    """Move the query position m (``pos``), the pair ``i`` and ``base``: q and k as arrows in
    pair i's plane, and the score against the offset n - m with the current (m, n) marked.

    k stays at position ``n`` (constructor argument). The curve is computed once with q at
    position 0; the marker is the score computed at the actual m and n and always lands on it.
    Introduced in notebook 07_rope_alibi.
    """

    name = "rope"

    def __init__(self, pos=5, i=0, base=10000.0, n=20):
        import ipywidgets as w

        self.q, self.k = _rope_demo_vectors()
        self.n = _check_int("n", n, 0, 40)
        st = _slider_style()
        controls = {
            "pos": w.IntSlider(pos, min=self.n - _RopeView.OFFSET_MAX + 10, max=self.n + _RopeView.OFFSET_MAX - 10,
                               description=label("pos (q 的位置 m)", "pos (m, position of q)"), style=st),
            "i": w.IntSlider(i, min=0, max=len(self.q) // 2 - 1, description=label("i (第几对)", "i (pair)"),
                             style=st),
            "base": w.FloatLogSlider(base, base=10, min=1, max=5, step=0.25, description="base", style=st),
        }
        super().__init__(controls)

    FIGSIZE = (7.6, 3.0)

    def _make_view(self, fig):
        ax_pair, ax_curve = fig.subplots(1, 2, width_ratios=[1, 2.1])
        self.view = _RopeView(ax_pair, ax_curve)

    def _depends(self):
        return {"pos": self.view.pos_artists(), "i": self.view.pair_artists()}

    def _update(self, pos, i, base):
        self.view.update(self.q, self.k, pos, self.n, i, base)
        return False


class _AlibiView:
    """The bias matrix of one head (left) and the attention row it gives a query (right)."""

    MAX_LEN = 64

    def __init__(self, ax_heat, ax_bar, cax):
        from matplotlib.collections import LineCollection

        self.ax_heat, self.ax_bar = ax_heat, ax_bar
        self.image = ax_heat.imshow(np.zeros((2, 2)), cmap=_alibi_cmap(), vmin=ALIBI_VMIN, vmax=0,
                                    aspect="auto", interpolation="nearest", extent=(0, 1, 1, 0))
        ax_heat.set_xlim(0, 1)
        ax_heat.set_ylim(1, 0)
        ax_heat.set_xticks([])
        ax_heat.set_yticks([])
        ax_heat.set_xlabel(label("key 位置 j", "key position j"), labelpad=12)
        ax_heat.set_ylabel(label("query 位置 i", "query position i"), labelpad=16)
        (self.row,) = ax_heat.plot([0, 1, 1, 0, 0], [0, 0, 1, 1, 0], color="C1", lw=1.4)
        self.xticks = [ax_heat.text(0, 1.0, "", transform=ax_heat.transAxes, ha="center", va="top",
                                    fontsize=7.5) for _ in range(6)]
        self.yticks = [ax_heat.text(0, 0, "", transform=ax_heat.transAxes, ha="right", va="center",
                                    fontsize=7.5) for _ in range(6)]
        self.title_heat = ax_heat.set_title(" ", fontsize=8.5)
        ax_heat.get_figure().colorbar(self.image, cax=cax)
        cax.set_ylabel(label(f"偏置（≤ {ALIBI_VMIN:g} 最深）", f"bias (≤ {ALIBI_VMIN:g} darkest)"), fontsize=7.5)
        cax.tick_params(labelsize=7)
        half = self.MAX_LEN // 2
        self.bars = LineCollection([], colors="C1", linewidths=3.0)
        ax_bar.add_collection(self.bars)
        (self.tops,) = ax_bar.plot([], [], "o", color="C1", ms=2.5)
        ax_bar.axvline(0, color="0.8", lw=0.6, zorder=0.5)
        ax_bar.set_xlim(-half - 0.5, half - 0.5)
        ax_bar.set_ylim(0, 0.62)
        ax_bar.set_xlabel(label("key 位置 − query 位置 (j − i)", "key − query position (j − i)"))
        ax_bar.set_ylabel(label("注意力权重（q·k = 0）", "attention weight (q·k = 0)"))
        self.title_bar = ax_bar.set_title(" ", fontsize=8.5)

    def artists(self):
        # the orange row frame is drawn over the image: it comes after it
        return [self.image, self.row, *self.xticks, *self.yticks, self.title_heat, self.bars, self.tops,
                self.title_bar]

    def update(self, num_heads, seq_len, head, causal):
        bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
        slope = alibi_slopes(num_heads)[head - 1]
        self.image.set_data(np.ma.masked_invalid(bias[head - 1]))
        query = seq_len // 2
        y0, y1 = query / seq_len, (query + 1) / seq_len
        self.row.set_data([0.002, 0.998, 0.998, 0.002, 0.002], [y0, y0, y1, y1, y0])
        _PEHeatmapView._place(self.xticks, seq_len, True)
        _PEHeatmapView._place(self.yticks, seq_len, False)
        weights = alibi_attention(seq_len, num_heads, query, causal)[head - 1]
        rel = np.arange(seq_len) - query
        keep = weights > 0
        self.bars.set_segments([[(x, 0.0), (x, y)] for x, y in zip(rel[keep], weights[keep])])
        self.tops.set_data(rel[keep], weights[keep])
        mean_dist = float(np.abs(rel) @ weights)
        form = label("因果", "causal") if causal else label("对称", "symmetric")
        self.title_heat.set_text(f"head {head}/{num_heads}: m = 2^(-{8 * head / num_heads:.3g}) = {slope:.3g} ({form})")
        self.title_bar.set_text(label(
            f"query i = {query}：给自己 {weights[query]:.2f}，平均看 {mean_dist:.1f} 步远",
            f"query i = {query}: {weights[query]:.2f} on itself, mean distance {mean_dist:.1f}"))


class AlibiExplorer(Explorer):
    """ALiBi: pick the number of heads, the sequence length, one head and the causal form.

    Left: that head's bias ``-m_h |i - j|`` (or the causal ``-m_h (i - j)``, future masked);
    right: the attention the bias alone gives the middle query. The ``head`` slider's
    maximum follows ``num_heads``.
    Introduced in notebook 07_rope_alibi.
    """

    name = "alibi"

    def __init__(self, num_heads=8, seq_len=24, head=1, causal=False):
        import ipywidgets as w

        st = _slider_style()
        num_heads = _check_int("num_heads", num_heads, 1, 16)
        head = _check_int("head", head, 1, num_heads)
        controls = {
            "num_heads": w.IntSlider(num_heads, min=1, max=16, description="num_heads", style=st),
            "seq_len": w.IntSlider(_check_int("seq_len", seq_len, 4, _AlibiView.MAX_LEN), min=4,
                                   max=_AlibiView.MAX_LEN, description="seq_len", style=st),
            "head": w.IntSlider(head, min=1, max=num_heads, description=label("head (第几个头)", "head"), style=st),
            "causal": w.Checkbox(value=bool(causal), description=label("因果形式 causal", "causal")),
        }
        self._syncing = False
        super().__init__(controls)

    FIGSIZE = (7.6, 3.0)

    def _make_view(self, fig):
        ax_heat, cax, ax_bar = fig.subplots(1, 3, width_ratios=[1, 0.05, 1.25])
        self.view = _AlibiView(ax_heat, ax_bar, cax)

    def _on_change(self, change):
        if not self._syncing:   # the head slider being clamped from _update: already drawn
            super()._on_change(change)

    def _update(self, num_heads, seq_len, head, causal):
        head_slider = self.controls["head"]
        head = min(head, num_heads)
        if head_slider.max != num_heads or head_slider.value != head:
            self._syncing = True
            try:
                if head_slider.value > num_heads:
                    head_slider.value = num_heads
                head_slider.max = num_heads
            finally:
                self._syncing = False
        self.view.update(num_heads, seq_len, head, bool(causal))
        return False


EXPLORERS["rope"] = RopeExplorer
EXPLORERS["alibi"] = AlibiExplorer


# ---------------------------------------------------------------------------
# Exercises (notebook 07)
# ---------------------------------------------------------------------------
def check_alibi_slope(h: int, num_heads: int, answer) -> Verdict:
    """Check the ALiBi slope ``m_h = 2 ** (-8 h / H)`` of head h (1-based) among H heads.

    Recognises counting heads from 0, forgetting the 8, and a negative slope.
    Introduced in notebook 07_rope_alibi.
    """
    num_heads = _check_int("num_heads", num_heads, 1, 1024)
    h = _check_int("h", h, 1, num_heads)
    right = float(alibi_slopes(num_heads)[h - 1])
    tol = 1e-3 * right
    if answer is None:
        return Verdict(False, "把 None 换成你的答案（一个数，例如 0.25 或 2 ** -2）。")
    arr = _answer_array(answer, ())
    if arr is None:
        return Verdict(False, "答案应是一个数，例如 0.25 或 2 ** -2。")
    got = float(arr)
    if abs(got - right) <= tol:
        return Verdict(True, f"m_{h} = 2^(−8·{h}/{num_heads}) = {right:.6g}。")
    slips = {
        "头从 1 开始数：第 1 个头的斜率是 2^(−8/H)，不是 2^0 = 1。": 2.0 ** (-8.0 * (h - 1) / num_heads),
        "指数里少了 8：m_h = 2^(−8h/H)。": 2.0 ** (-h / num_heads),
        "斜率 m_h 是正数；加到分数上的是 −m_h·|i − j|，负号在偏置里。": -right,
    }
    for msg, value in slips.items():
        if abs(got - value) <= 1e-3 * abs(value):
            return Verdict(False, msg)
    return Verdict(False, f"m_h = 2^(−8h/H)：这里指数是 −8·{h}/{num_heads}。")


def check_rope_angle(i: int, pos, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check the angle (radians) by which RoPE turns pair ``i`` of a vector at position ``pos``.

    The angle is ``pos * w_i`` with ``w_i = base ** (-2i / d_model)``; the same angle plus a
    whole number of turns (2*pi) counts as right. Recognises degrees, dividing by w_i
    and using i instead of 2i in the exponent.
    Introduced in notebook 07_rope_alibi.
    """
    d_model = _check_d_model(d_model)
    i = _check_int("i", i, 0, d_model // 2 - 1)
    pos = _check_real("pos", pos)
    base = _check_base(base)
    w = base ** (-2.0 * i / d_model)
    right = pos * w
    if answer is None:
        return Verdict(False, "把 None 换成你的答案（弧度）。")
    arr = _answer_array(answer, ())
    if arr is None:
        return Verdict(False, "答案应是一个数（弧度）。")
    got = float(arr)
    turns = (got - right) / (2 * math.pi)
    if abs(got - right) <= 5e-4 or (abs(turns - round(turns)) * 2 * math.pi <= 5e-4):
        extra = "" if abs(got - right) <= 5e-4 else "（差了整数圈 2π，是同一个旋转）"
        return Verdict(True, f"角度 = pos·w_{i} = {pos:g} × {w:.6g} = {right:.6g} 弧度{extra}。")
    slips = {
        "你给的是角度制 (degrees)；RoPE 的角度用弧度。": math.degrees(right),
        "角度是 pos × w_i，不是 pos ÷ w_i。": pos / w,
        "指数是 −2i/d_model（第 i 对对应第 2i、2i+1 维），不是 −i/d_model。": pos * base ** (-i / d_model),
    }
    for msg, value in slips.items():
        if abs(got - value) <= max(5e-4, 1e-4 * abs(value)):
            return Verdict(False, msg)
    return Verdict(False, f"和正弦位置编码同一组频率：w_i = base^(−2i/d_model)，这里 2i/d_model = {2 * i}/{d_model}；"
                          f"角度 = pos × w_i。")


def check_rope_shift(answer, shift: int = 7, m: int = 3, n: int = 10, d_model: int = 16, seed: int = 0) -> Verdict:
    """Does ``rope(q, m) . rope(k, n)`` change when both positions move by ``shift``?

    ``answer`` is True (it changes) or False (it does not). The verdict is computed: random
    q, k (``seed``), scores at (m, n) and (m + shift, n + shift).
    Introduced in notebook 07_rope_alibi.
    """
    shift = _check_int("shift", shift, -10**6, 10**6)
    rng = np.random.default_rng(_check_int("seed", seed, 0))
    q, k = rng.normal(size=(2, _check_d_model(d_model)))
    before = float(rope(q[None], [m])[0] @ rope(k[None], [n])[0])
    after = float(rope(q[None], [m + shift])[0] @ rope(k[None], [n + shift])[0])
    changes = abs(after - before) > 1e-9 * max(1.0, abs(before))
    hint = "R(mθ)ᵀR(nθ) = R((n − m)θ)：分数里只剩 n − m。两个位置一起挪，n − m 变了吗？"
    verdict = check_choice(answer, changes, options=(True, False), hint=hint)
    if verdict:
        return Verdict(True, f"不变：挪动前 {before:+.6f}，挪动 {shift} 后 {after:+.6f}（差 {abs(after - before):.0e}），"
                             f"因为 n − m 没变。")
    return verdict


# === end section 07 ===


# ---------------------------------------------------------------------------
# Torch parts (loaded on first use: `import posenc_lib` stays torch-free)
# ---------------------------------------------------------------------------
class PositionLimitError(IndexError):
    """A learned position table was asked for a position it has no row for."""


@functools.lru_cache(maxsize=1)
def _torch_parts() -> dict:
    import torch
    from torch import nn

    class SinusoidalPositionalEncoding(nn.Module):
        """Adds the fixed sinusoidal table to ``[batch, seq, d_model]`` inputs.

        The table is a buffer: zero trainable parameters; any length up to ``max_len``.
        Introduced in notebook 05_learned_embeddings.
        """

        def __init__(self, d_model: int, max_len: int = 5000, base: float = 10000.0):
            super().__init__()
            self.d_model = _check_d_model(d_model)
            self.max_len = _check_int("max_len", max_len, 1)
            self.base = _check_base(base)
            table = sinusoidal_encoding(self.max_len, self.d_model, self.base)
            self.register_buffer("pe", torch.tensor(table, dtype=torch.float32), persistent=False)

        def forward(self, x):
            _check_input_shape(x, self.d_model)
            n = x.shape[1]
            if n > self.max_len:
                raise PositionLimitError(
                    f"sequence length {n} exceeds max_len={self.max_len}; build the module with a "
                    f"larger max_len (the formula itself has no limit) / 序列长度 {n} 超过 max_len = "
                    f"{self.max_len}"
                )
            return x + self.pe[:n].to(x.dtype)

    class LearnedPositionalEmbedding(nn.Module):
        """Adds a trainable ``nn.Embedding(max_len, d_model)`` row per position.

        Positions 0 .. max_len-1 only: a longer sequence raises :class:`PositionLimitError`
        naming the limit (GPT-2's is 1024, BERT-base's 512).
        Introduced in notebook 05_learned_embeddings.
        """

        def __init__(self, max_len: int, d_model: int):
            super().__init__()
            self.max_len = _check_int("max_len", max_len, 1)
            self.d_model = _check_int("d_model", d_model, 1)
            _check_table_size(self.max_len, self.d_model)
            self.embedding = nn.Embedding(self.max_len, self.d_model)

        def forward(self, x):
            _check_input_shape(x, self.d_model)
            n = x.shape[1]
            if n > self.max_len:
                raise PositionLimitError(
                    f"sequence length {n} exceeds max_len={self.max_len}: the learned table has rows "
                    f"for positions 0..{self.max_len - 1} only (like GPT-2's n_positions = 1024) / "
                    f"序列长度 {n} 超过 max_len = {self.max_len}：可学习位置表只有位置 0..{self.max_len - 1}"
                )
            positions = torch.arange(n, device=x.device)
            return x + self.embedding(positions).to(x.dtype)

    def _check_input_shape(x, d_model):
        if not isinstance(x, torch.Tensor):
            raise TypeError("x must be a torch.Tensor / x 必须是 torch.Tensor")
        if x.dim() != 3 or x.shape[-1] != d_model:
            raise ValueError(
                f"x must have shape [batch, seq, {d_model}], got {list(x.shape)} / "
                f"x 的形状必须是 [batch, seq, {d_model}]"
            )

    def rope_torch(x, positions, base: float = 10000.0):
        """Torch version of :func:`rope` (same convention), differentiable.

        Introduced in notebook 07_rope_alibi.
        """
        if not isinstance(x, torch.Tensor) or x.dim() < 2:
            raise TypeError("x must be a torch.Tensor of shape (..., seq_len, d) / x 必须是 torch 张量")
        positions = torch.as_tensor(positions, dtype=torch.float64)
        if positions.dim() != 1 or positions.shape[0] != x.shape[-2]:
            raise ValueError("positions must be 1-D with seq_len entries / positions 必须是长度为 seq_len 的一维序列")
        w = torch.tensor(frequencies(x.shape[-1], base), dtype=torch.float64)
        t = positions[:, None] * w[None, :]  # angles in float64: exact even at large positions
        c, s = torch.cos(t).to(x.dtype), torch.sin(t).to(x.dtype)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1).flatten(-2)

    return {
        "SinusoidalPositionalEncoding": SinusoidalPositionalEncoding,
        "LearnedPositionalEmbedding": LearnedPositionalEmbedding,
        "rope_torch": rope_torch,
    }


# ---------------------------------------------------------------------------
# Toy task and training: who bites whom (X 咬 Y), notebooks 05 and 07
# ---------------------------------------------------------------------------
# A sentence is ``[fillers] A 咬 B [fillers] 。``: two different animals with 咬 between
# them, fillers (嗯, 啊) elsewhere, 。 last. The label is the biter A. Datasets come in
# mirror pairs (A咬B / B咬A with the same fillers: the same multiset of tokens), so a
# permutation-invariant model scores at most exactly 1/2. The final 。 anchors the
# sentence: ALiBi's bias -m|i-j| is symmetric, so without an anchor a bidirectional ALiBi
# model cannot tell a sentence from its reversal (``terminator=False`` shows that).
# Model: embedding (+ additive PE) -> 2 x [4-head attention + ReLU MLP, residual] ->
# masked mean -> LayerNorm -> linear, d_model 32. Training: full batch of 256, Adam lr
# 1e-2, 100 steps, one thread, deterministic (about 1 s per model on this machine).
ANIMALS = ("猫", "狗", "鼠", "鸡", "牛", "羊", "兔", "马")
VERB = "咬"
FILLERS = ("嗯", "啊")
END = "。"
PAD = "<pad>"
VOCAB = (PAD, VERB, END) + FILLERS + ANIMALS
TOKEN_TO_ID = {tok: idx for idx, tok in enumerate(VOCAB)}
PAD_ID = TOKEN_TO_ID[PAD]
PE_KINDS = ("none", "sinusoidal", "learned", "rope", "alibi")

_ANIMAL_IDS = np.array([TOKEN_TO_ID[a] for a in ANIMALS])
_FILLER_IDS = np.array([TOKEN_TO_ID[f] for f in FILLERS])
_HOLDOUT_FRACTION = 0.2
_SPLITS = ("train", "test", "all")

# Defaults shared by train_order_model and extrapolation_table (measured in the report).
DEFAULT_TRAIN_LENGTHS = (4, 8)
DEFAULT_TEST_LENGTHS = (9, 16)
DEFAULT_STEPS = 100
DEFAULT_LR = 1e-2
DEFAULT_D_MODEL = 32
DEFAULT_NUM_HEADS = 4
DEFAULT_NUM_LAYERS = 2
DEFAULT_N_TRAIN = 256   # 512 gives the same accuracies (measured, seeds 0-2) at twice the time
DEFAULT_N_TEST = 1000
LEARNED_INIT_STD = 0.02   # like BERT; GPT-2 uses 0.01. Rows start near 0, so the heatmap shows what was learned


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------

def _check_lengths(name: str, lengths, min_length: int) -> tuple[int, int]:
    if (not isinstance(lengths, (tuple, list)) or len(lengths) != 2
            or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                       for x in lengths)):
        raise ValueError(f"{name} must be a pair of integers (lo, hi), got {lengths!r} / "
                         f"{name} 必须是整数对 (lo, hi)")
    lo, hi = int(lengths[0]), int(lengths[1])
    if lo < min_length or hi < lo:
        raise ValueError(f"{name} must satisfy {min_length} <= lo <= hi, got {lengths!r} "
                         f"(shortest sentence 'A咬B' + 。 has {min_length} tokens) / "
                         f"{name} 必须满足 {min_length} <= lo <= hi")
    if hi > 32:
        raise ValueError(f"{name} upper bound must be <= 32, got {hi} / {name} 上限不能超过 32")
    return lo, hi


def _check_pe(pe) -> str:
    if pe not in PE_KINDS:
        raise ValueError(f"pe must be one of {PE_KINDS}, got {pe!r} / pe 只能是 {PE_KINDS} 之一")
    return pe


# ---------------------------------------------------------------------------
# Dataset
# ---------------------------------------------------------------------------

@dataclass
class BiteDataset:
    """A batch of "A 咬 B" sentences as padded token ids.

    Attributes: ``tokens`` LongTensor [n, width] (PAD id 0 after the sentence),
    ``mask`` BoolTensor [n, width] (True on real tokens), ``labels`` LongTensor [n]
    (biter as an index into ANIMALS), ``lengths`` LongTensor [n], ``starts`` LongTensor [n]
    (position of the biter), ``sentences`` list of Chinese strings for display.
    Rows 2k and 2k+1 are mirrors (A and B swapped, same fillers).
    Introduced in notebook 05_learned_embeddings.
    """

    tokens: torch.Tensor
    mask: torch.Tensor
    labels: torch.Tensor
    lengths: torch.Tensor
    starts: torch.Tensor
    sentences: list = field(repr=False)

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    @property
    def width(self) -> int:
        """Padded sequence length (number of columns).

        Introduced in notebook 05_learned_embeddings.
        """
        return int(self.tokens.shape[1])


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays (wrapping arithmetic).

    Introduced in notebook 05_learned_embeddings.
    """
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return x


def _key_is_test(a, b, length, start, filler_code, terminator: bool) -> np.ndarray:
    """Fixed (seed-independent) assignment of an unordered key to the test split.

    Introduced in notebook 05_learned_embeddings.
    """
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = (((lo * 8 + hi) * 64 + length) * 64 + start) * 2 + int(terminator)
    key = key.astype(np.uint64) * np.uint64(1 << 32) + filler_code.astype(np.uint64)
    h = _mix64(key + np.uint64(0x9E3779B97F4A7C15))
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53) < _HOLDOUT_FRACTION


def make_bite_dataset(n: int, lengths=DEFAULT_TRAIN_LENGTHS, seed: int = 0, animals=None, *,
                      split: str = "all", terminator: bool = True) -> BiteDataset:
    """Generate ``n`` sentences ``[fillers] A 咬 B [fillers] 。`` deterministically from ``seed``.

    ``n`` must be even: sentences come in mirror pairs (rows 2k, 2k+1 = A咬B / B咬A with the
    same fillers). Lengths (all tokens, including 咬 and the final 。) are drawn uniformly
    from ``lengths = (lo, hi)``; the position of "A咬B", the filler tokens and the unordered
    animal pair are drawn uniformly too. ``animals`` restricts the animals used (default: all
    of ANIMALS); labels are always indices into ANIMALS. ``split`` = "train" / "test" keeps
    only keys of that fixed hash split (so train and test never share a sentence or its
    mirror); "all" keeps every key. ``terminator=False`` drops the final 。 (anchor-free
    variant, see the module docstring). Introduced in notebook 05_learned_embeddings.
    """
    n = _check_int("n", n, 2)
    if n % 2:
        raise ValueError(f"n must be even (sentences come in mirror pairs), got {n} / "
                         f"n 必须是偶数（句子成对出现：A咬B 与 B咬A）")
    if not isinstance(terminator, bool):
        raise ValueError(f"terminator must be True or False, got {terminator!r} / "
                         f"terminator 只能是 True 或 False")
    lo, hi = _check_lengths("lengths", lengths, 4 if terminator else 3)
    seed = _check_int("seed", seed, 0)
    if split not in _SPLITS:
        raise ValueError(f"split must be one of {_SPLITS}, got {split!r} / split 只能是 {_SPLITS} 之一")
    if animals is None:
        animals = ANIMALS
    if isinstance(animals, str):
        animals = tuple(animals)
    animals = tuple(animals)
    if len(animals) < 2 or len(set(animals)) != len(animals) or any(a not in ANIMALS for a in animals):
        raise ValueError(f"animals must be at least 2 distinct animals from {ANIMALS}, got {animals!r} / "
                         f"animals 必须是 {ANIMALS} 中至少两个不同的动物")
    animal_idx = np.array([ANIMALS.index(a) for a in animals])

    rng = np.random.default_rng(seed)
    n_pairs = n // 2
    end_extra = 1 if terminator else 0
    width = hi
    max_fill = hi - 3 - end_extra
    chosen = {k: [] for k in ("a", "b", "length", "start", "fill", "flip")}
    total = 0
    for _ in range(1000):
        m = max(64, 2 * (n_pairs - total) + 16)
        length = rng.integers(lo, hi + 1, size=m)
        body = length - end_extra                     # tokens before the final 。
        start = np.floor(rng.random(m) * (body - 2)).astype(np.int64)   # 0 .. body-3
        ia = rng.integers(0, len(animals), size=m)
        ib = rng.integers(0, len(animals) - 1, size=m)
        ib = ib + (ib >= ia)
        a, b = animal_idx[ia], animal_idx[ib]
        fill = rng.integers(0, len(FILLERS), size=(m, max(max_fill, 1)))
        n_fill = body - 3
        fill = np.where(np.arange(fill.shape[1])[None, :] < n_fill[:, None], fill, 0)
        filler_code = (fill * (len(FILLERS) ** np.arange(fill.shape[1]))[None, :]).sum(1)
        flip = rng.random(m) < 0.5                    # which orientation comes first
        if split == "all":
            keep = np.ones(m, dtype=bool)
        else:
            is_test = _key_is_test(a, b, length, start, filler_code, terminator)
            keep = is_test if split == "test" else ~is_test
        idx = np.flatnonzero(keep)[: n_pairs - total]
        for k, v in (("a", a), ("b", b), ("length", length), ("start", start),
                     ("fill", fill), ("flip", flip)):
            chosen[k].append(v[idx])
        total += len(idx)
        if total == n_pairs:
            break
    else:  # only when the split has (almost) no keys, e.g. 2 animals at one short length
        raise ValueError(f"could not draw {n_pairs} sentence pairs for split={split!r}, lengths={lengths!r}, "
                         f"animals={animals!r}: too few possible sentences; widen lengths or use split='all' / "
                         f"可用句子太少，请放宽 lengths 或使用 split='all'")
    c = {k: np.concatenate(v) for k, v in chosen.items()}

    tokens = np.full((n, width), PAD_ID, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    starts = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    for p in range(n_pairs):
        length, start = int(c["length"][p]), int(c["start"][p])
        body = length - end_extra
        row = []
        fill_iter = iter(c["fill"][p])
        for pos in range(body):
            if pos == start + 1:
                row.append(TOKEN_TO_ID[VERB])
            elif pos in (start, start + 2):
                row.append(-1)                        # animal slot, filled below
            else:
                row.append(int(_FILLER_IDS[next(fill_iter)]))
        if terminator:
            row.append(TOKEN_TO_ID[END])
        a, b = int(c["a"][p]), int(c["b"][p])
        orders = ((a, b), (b, a)) if not c["flip"][p] else ((b, a), (a, b))
        for r, (biter, bitten) in enumerate(orders):
            i = 2 * p + r
            full = list(row)
            full[start] = int(_ANIMAL_IDS[biter])
            full[start + 2] = int(_ANIMAL_IDS[bitten])
            tokens[i, :length] = full
            labels[i], starts[i], lens[i] = biter, start, length
    import torch

    sentences = ["".join(VOCAB[t] for t in row if t != PAD_ID) for row in tokens]
    tokens_t = torch.from_numpy(tokens)
    return BiteDataset(tokens=tokens_t, mask=tokens_t != PAD_ID,
                       labels=torch.from_numpy(labels), lengths=torch.from_numpy(lens),
                       starts=torch.from_numpy(starts), sentences=sentences)


def _softmax(scores):
    """Softmax over the last axis; for rows of length <= 16 this is ~3x faster on CPU than
    torch.softmax (measured, torch 2.13). Every row has at least one finite entry.

    Introduced in notebook 05_learned_embeddings.
    """
    import torch

    e = torch.exp(scores - scores.detach().amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


@functools.lru_cache(maxsize=1)
def _model_classes() -> dict:
    """Build the torch model classes on first use (keeps ``import posenc_lib`` torch-free)."""
    import torch
    from torch import nn

    rope_torch = _torch_parts()["rope_torch"]

    class _Block(nn.Module):
        """Weights of one layer: self-attention (residual) then a ReLU MLP (residual).

        Introduced in notebook 05_learned_embeddings.
        """

        def __init__(self, d_model: int):
            super().__init__()
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.proj = nn.Linear(d_model, d_model)
            self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.ReLU(), nn.Linear(2 * d_model, d_model))


    class OrderModel(nn.Module):
        """Small Transformer encoder for the X 咬 Y task.

        token embedding (+ sinusoidal / learned PE) -> ``num_layers`` x [multi-head self-attention
        (custom, so RoPE rotates q, k and ALiBi adds -m_h |i-j| to the scores) with residual ->
        ReLU MLP with residual] -> masked mean pool over real tokens -> LayerNorm -> linear.
        With ``pe="none"`` every step is per token or symmetric in the tokens, so the logits
        are invariant to permuting the real tokens. The learned table (``pe="learned"``) has
        ``max_len`` rows; a longer input raises PositionLimitError. Sinusoidal, RoPE and ALiBi are
        computed for any length. Introduced in notebook 05_learned_embeddings.
        """

        def __init__(self, vocab_size: int, num_classes: int, d_model: int = DEFAULT_D_MODEL,
                     num_heads: int = DEFAULT_NUM_HEADS, pe: str = "none", max_len: int = 16,
                     base: float = 10000.0, num_layers: int = DEFAULT_NUM_LAYERS):
            super().__init__()
            vocab_size = _check_int("vocab_size", vocab_size, 2)
            num_classes = _check_int("num_classes", num_classes, 2)
            d_model = _check_int("d_model", d_model, 2)
            num_heads = _check_int("num_heads", num_heads, 1)
            num_layers = _check_int("num_layers", num_layers, 1, 4)
            self.pe = _check_pe(pe)
            max_len = _check_int("max_len", max_len, 1)
            if d_model % num_heads:
                raise ValueError(f"d_model ({d_model}) must be divisible by num_heads ({num_heads}) / "
                                 f"d_model 必须能被 num_heads 整除")
            head_dim = d_model // num_heads
            if d_model % 2 or (pe == "rope" and head_dim % 2):
                raise ValueError(f"d_model and (for rope) d_model/num_heads must be even, got "
                                 f"d_model={d_model}, num_heads={num_heads} / 维度必须是偶数")
            if not (isinstance(base, (int, float)) and base > 1):
                raise ValueError(f"base must be a number > 1, got {base!r} / base 必须大于 1")
            self.d_model, self.num_heads, self.head_dim = d_model, num_heads, head_dim
            self.max_len, self.base, self.num_layers = max_len, float(base), num_layers
            self.tok_emb = nn.Embedding(vocab_size, d_model)
            self.pos_emb = None
            if pe == "learned":
                self.pos_emb = nn.Embedding(max_len, d_model)
                nn.init.normal_(self.pos_emb.weight, std=LEARNED_INIT_STD)
            if pe == "alibi":
                self.register_buffer("slopes", torch.tensor(alibi_slopes(num_heads), dtype=torch.float32))
            self.blocks = nn.ModuleList(_Block(d_model) for _ in range(num_layers))
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, num_classes)

        def position_table(self, seq_len: int) -> torch.Tensor | None:
            """Additive position vectors [seq_len, d_model] (None for none / rope / alibi).

            Introduced in notebook 05_learned_embeddings.
            """
            if self.pe == "sinusoidal":
                return torch.tensor(sinusoidal_encoding(seq_len, self.d_model, self.base), dtype=torch.float32)
            if self.pe == "learned":
                if seq_len > self.max_len:
                    raise PositionLimitError(
                        f"sequence length {seq_len} exceeds max_len={self.max_len}: the learned position "
                        f"table has no row for positions >= {self.max_len} / 序列长度 {seq_len} 超过了 "
                        f"max_len={self.max_len}，可学习位置表没有第 {self.max_len} 行及之后的位置")
                return self.pos_emb.weight[:seq_len]
            return None

        def _attend(self, block, x, mask):
            bsz, seq, _ = x.shape
            q, k, v = block.qkv(x).view(bsz, seq, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
            if self.pe == "rope":
                pos = torch.arange(seq)
                q, k = rope_torch(q, pos, self.base), rope_torch(k, pos, self.base)
            bias = torch.zeros(bsz, 1, 1, seq).masked_fill(~mask[:, None, None, :], float("-inf"))
            if self.pe == "alibi":
                pos = torch.arange(seq, dtype=torch.float32)
                dist = (pos[:, None] - pos[None, :]).abs()                   # |i - j|
                bias = bias - self.slopes[:, None, None] * dist              # [b, h, seq, seq]
            weights = _softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + bias)
            out = weights @ v                                                # [b, h, seq, head_dim]
            out = out.transpose(1, 2).reshape(bsz, seq, self.d_model)
            return weights, block.proj(out)

        def attention_weights(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> list:
            """Attention weights of every layer, each [batch, heads, seq, seq].

            Introduced in notebook 07_rope_alibi.
            """
            return self._run(tokens, mask)[1]

        def _run(self, tokens, mask):
            if mask is None:
                mask = tokens != PAD_ID
            x = self.tok_emb(tokens)
            table = self.position_table(tokens.shape[1])
            if table is not None:
                x = x + table
            all_weights = []
            for block in self.blocks:
                weights, out = self._attend(block, x, mask)
                all_weights.append(weights)
                x = x + out
                x = x + block.mlp(x)
            m = mask.unsqueeze(-1).to(x.dtype)
            pooled = (x * m).sum(1) / m.sum(1)
            return self.head(self.norm(pooled)), all_weights

        def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            """Logits [batch, num_classes] for token ids [batch, seq] (mask: True on real tokens).

            Introduced in notebook 05_learned_embeddings.
            """
            return self._run(tokens, mask)[0]

    return {"OrderModel": OrderModel}


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------

@dataclass
class TrainResult:
    """Outcome of :func:`train_order_model`.

    ``model`` (eval mode), ``losses`` (one float per step), ``train_accuracy``,
    ``test_accuracy`` (held-out keys, train lengths), ``seconds`` (wall time of the
    optimisation loop), ``snapshots`` (list of (step, learned table as numpy array),
    only for pe="learned" with snapshot_every), ``config`` (the arguments used).
    Introduced in notebook 05_learned_embeddings.
    """

    model: object  # an OrderModel
    losses: list
    train_accuracy: float
    test_accuracy: float
    seconds: float
    snapshots: list
    config: dict


def evaluate(model, dataset: BiteDataset) -> float:
    """Accuracy of ``model`` on ``dataset`` (fraction of rows whose argmax is the biter).

    Introduced in notebook 05_learned_embeddings.
    """
    if not isinstance(dataset, BiteDataset):
        raise ValueError(f"dataset must be a BiteDataset, got {type(dataset).__name__} / "
                         f"dataset 必须是 BiteDataset")
    import torch

    was_training = model.training
    model.eval()
    with torch.no_grad():
        pred = model(dataset.tokens, dataset.mask).argmax(-1)
    model.train(was_training)
    return float((pred == dataset.labels).double().mean())


def accuracy_by_length(model, dataset: BiteDataset) -> dict:
    """Accuracy per sentence length: {length: accuracy}.

    Introduced in notebook 07_rope_alibi.
    """
    if not isinstance(dataset, BiteDataset):
        raise ValueError("dataset must be a BiteDataset / dataset 必须是 BiteDataset")
    import torch

    was_training = model.training
    model.eval()
    with torch.no_grad():
        correct = model(dataset.tokens, dataset.mask).argmax(-1) == dataset.labels
    model.train(was_training)
    return {int(L): float(correct[dataset.lengths == L].double().mean())
            for L in torch.unique(dataset.lengths)}


def mirror_agreement(model, dataset: BiteDataset) -> float:
    """Fraction of mirror pairs (rows 2k, 2k+1: A咬B / B咬A) given the same predicted biter.

    1.0 for a permutation-invariant model, which therefore scores at most 1/2; near 0 for a
    model that reads order. Introduced in notebook 05_learned_embeddings.
    """
    if not isinstance(dataset, BiteDataset):
        raise ValueError("dataset must be a BiteDataset / dataset 必须是 BiteDataset")
    import torch

    was_training = model.training
    model.eval()
    with torch.no_grad():
        pred = model(dataset.tokens, dataset.mask).argmax(-1)
    model.train(was_training)
    return float((pred[0::2] == pred[1::2]).double().mean())


@contextlib.contextmanager
def _deterministic_torch(num_threads: int):
    """Fix the thread count and turn on deterministic algorithms; restore both on exit.

    Introduced in notebook 05_learned_embeddings.
    """
    import torch

    old_threads = torch.get_num_threads()
    old_det = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(num_threads)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_det)


def train_order_model(pe: str, *, steps: int = DEFAULT_STEPS, seed: int = 0,
                      d_model: int = DEFAULT_D_MODEL, num_heads: int = DEFAULT_NUM_HEADS,
                      train_lengths=DEFAULT_TRAIN_LENGTHS, max_len: int | None = None,
                      lr: float = DEFAULT_LR, n_train: int = DEFAULT_N_TRAIN,
                      n_test: int = DEFAULT_N_TEST, base: float = 10000.0,
                      terminator: bool = True, num_threads: int = 1, num_layers: int = DEFAULT_NUM_LAYERS,
                      snapshot_every: int | None = None,
                      callback: Callable[[int, float], None] | None = None,
                      callback_every: int = 10) -> TrainResult:
    """Train an :class:`OrderModel` on the X 咬 Y task, full batch, Adam, deterministic.

    Train / test sets: ``make_bite_dataset`` with ``split="train"`` / ``"test"`` (disjoint
    keys) at ``train_lengths``. ``max_len`` (rows of the learned table) defaults to the
    longest training sentence. The global torch RNG, thread count and determinism flag are
    restored afterwards. ``callback(step, loss)`` is called every ``callback_every`` steps
    and after the last step (step counts from 1). With ``pe="learned"`` and
    ``snapshot_every``, the table is copied at step 0, every ``snapshot_every`` steps and
    at the end. Introduced in notebook 05_learned_embeddings.
    """
    pe = _check_pe(pe)
    steps = _check_int("steps", steps, 1)
    seed = _check_int("seed", seed, 0)
    lo, hi = _check_lengths("train_lengths", train_lengths, 4 if terminator else 3)
    max_len = hi if max_len is None else _check_int("max_len", max_len, 1)
    if pe == "learned" and max_len < hi:
        raise ValueError(f"max_len ({max_len}) must be >= the longest training sentence ({hi}) / "
                         f"max_len 不能小于最长训练句子长度 {hi}")
    if not (isinstance(lr, (int, float)) and 0 < lr < 1):
        raise ValueError(f"lr must be in (0, 1), got {lr!r} / lr 必须在 (0, 1) 之间")
    num_threads = _check_int("num_threads", num_threads, 1)
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        if _check_int(name, value, 2) % 2:
            raise ValueError(f"{name} must be even (mirror pairs), got {value} / {name} 必须是偶数")
    callback_every = _check_int("callback_every", callback_every, 1)
    if snapshot_every is not None:
        snapshot_every = _check_int("snapshot_every", snapshot_every, 1)
    if callback is not None and not callable(callback):
        raise ValueError("callback must be callable(step, loss) / callback 必须是可调用对象")
    config = dict(pe=pe, steps=steps, seed=seed, d_model=d_model, num_heads=num_heads,
                  train_lengths=(lo, hi), max_len=max_len, lr=lr, n_train=n_train,
                  n_test=n_test, base=base, terminator=terminator, num_threads=num_threads,
                  num_layers=num_layers)

    import torch
    from torch import nn

    OrderModel = _model_classes()["OrderModel"]
    train = make_bite_dataset(n_train, (lo, hi), seed, split="train", terminator=terminator)
    test = make_bite_dataset(n_test, (lo, hi), seed + 1, split="test", terminator=terminator)

    with _deterministic_torch(num_threads), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = OrderModel(len(VOCAB), len(ANIMALS), d_model=d_model, num_heads=num_heads,
                           pe=pe, max_len=max_len, base=base,
                           num_layers=num_layers)
        opt = torch.optim.Adam(model.parameters(), lr=lr)     # no weight decay: unused rows stay put
        loss_fn = nn.CrossEntropyLoss()
        snapshots, losses = [], []
        take_snapshots = pe == "learned" and snapshot_every is not None
        if take_snapshots:
            snapshots.append((0, model.pos_emb.weight.detach().numpy().copy()))
        model.train()
        t0 = time.perf_counter()
        for step in range(1, steps + 1):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(train.tokens, train.mask), train.labels)
            loss.backward()
            opt.step()
            value = float(loss.detach())
            losses.append(value)
            if take_snapshots and (step % snapshot_every == 0 or step == steps):
                snapshots.append((step, model.pos_emb.weight.detach().numpy().copy()))
            if callback is not None and (step % callback_every == 0 or step == steps):
                callback(step, value)
        seconds = time.perf_counter() - t0
        model.eval()
        train_acc, test_acc = evaluate(model, train), evaluate(model, test)
    return TrainResult(model=model, losses=losses, train_accuracy=train_acc, test_accuracy=test_acc,
                       seconds=seconds, snapshots=snapshots, config=config)


#: Steps between the table snapshots of a memoised learned run (the ``learned`` slider's step).
LEARNED_SNAPSHOT_EVERY = 5

@functools.lru_cache(maxsize=32)
def _trained_run(pe: str, seed: int, steps: int, max_len):
    every = LEARNED_SNAPSHOT_EVERY if pe == "learned" else None
    return train_order_model(pe, seed=seed, steps=steps, max_len=max_len, snapshot_every=every)


def trained_run(pe: str, *, seed: int = 0, steps: int | None = None, max_len: int | None = None):
    """Memoised :func:`train_order_model` on the default task (train lengths 4-8).

    The first call with given arguments trains (about a second); later calls return the
    same :class:`TrainResult`, so every section of a notebook (and the ``learned`` explorer)
    can ask for a run without carrying notebook state around. A learned run keeps a
    snapshot of its table every ``LEARNED_SNAPSHOT_EVERY`` steps. ``steps`` defaults to
    ``DEFAULT_STEPS``; ``max_len`` (rows of the learned table) only matters for
    ``pe="learned"`` and defaults to the longest training sentence. Treat the result as
    read-only. ``extrapolation_table`` uses it too, so its default runs are shared.
    Introduced in notebook 05_learned_embeddings.
    """
    pe = _check_pe(pe)
    seed = _check_int("seed", seed, 0)
    steps = DEFAULT_STEPS if steps is None else _check_int("steps", steps, 1, 10000)
    if pe != "learned" or max_len is None:
        max_len = DEFAULT_TRAIN_LENGTHS[1] if pe == "learned" else None
    else:
        max_len = _check_int("max_len", max_len, DEFAULT_TRAIN_LENGTHS[1], 4096)
    return _trained_run(pe, seed, steps, max_len)


def extrapolation_table(pes: Sequence[str] = ("sinusoidal", "learned", "rope", "alibi"),
                        train_lengths=DEFAULT_TRAIN_LENGTHS, test_lengths=DEFAULT_TEST_LENGTHS, *,
                        seed: int = 0, n_per_length: int = 512, include_none: bool = True,
                        learned_max_lens: Sequence[int] | None = None,
                        callback: Callable[[str, int], None] | None = None, **train_kwargs) -> list:
    """Train on ``train_lengths``, test at each length in ``test_lengths``.

    Returns a list of row dicts ``{"label", "pe", "max_len", "in_distribution", "by_length",
    "error"}``; ``by_length`` maps each test length to an accuracy (None where the model
    cannot run). "learned" gives two rows: max_len = longest training sentence (cannot index
    longer inputs: ``error`` holds the PositionLimitError text) and max_len = longest test sentence
    (rows past the training lengths exist but were never trained). ``include_none`` adds
    the pe="none" reference. ``callback(label, index)`` is called before each model trains.
    Introduced in notebook 07_rope_alibi.
    """
    pes = tuple(pes)
    for p in pes:
        _check_pe(p)
    terminator = train_kwargs.get("terminator", True)
    lo, hi = _check_lengths("train_lengths", train_lengths, 4 if terminator else 3)
    tlo, thi = _check_lengths("test_lengths", test_lengths, 4 if terminator else 3)
    n_per_length = _check_int("n_per_length", n_per_length, 2)
    if n_per_length % 2:
        raise ValueError("n_per_length must be even / n_per_length 必须是偶数")
    if learned_max_lens is None:
        learned_max_lens = (hi, max(hi, thi))
    plan = [("none", None)] if include_none and "none" not in pes else []
    for p in pes:
        if p == "learned":
            plan += [("learned", int(m)) for m in learned_max_lens]
        else:
            plan.append((p, None))
    test_sets = {L: make_bite_dataset(n_per_length, (L, L), seed + 1000 + L, split="test",
                                      terminator=terminator)
                 for L in range(tlo, thi + 1)}
    rows = []
    for index, (p, max_len) in enumerate(plan):
        label = p if max_len is None else f"learned (max_len={max_len})"
        if callback is not None:
            callback(label, index)
        if not train_kwargs and (lo, hi) == tuple(DEFAULT_TRAIN_LENGTHS):
            res = trained_run(p, seed=seed, max_len=max_len)  # memoised, identical to training anew
        else:
            res = train_order_model(p, seed=seed, train_lengths=(lo, hi), max_len=max_len, **train_kwargs)
        by_length, error = {}, None
        with _deterministic_torch(res.config["num_threads"]):
            for L, ds in test_sets.items():
                try:
                    by_length[L] = evaluate(res.model, ds)
                except PositionLimitError as exc:
                    by_length[L] = None
                    error = error or str(exc)  # the first length that failed
        rows.append(dict(label=label, pe=p, max_len=res.config["max_len"],
                         in_distribution=res.test_accuracy, by_length=by_length, error=error))
    return rows


_TORCH_NAMES = ("SinusoidalPositionalEncoding", "LearnedPositionalEmbedding", "rope_torch")
_MODEL_NAMES = ("OrderModel",)


def __getattr__(name: str):
    if name in _TORCH_NAMES:
        return _torch_parts()[name]
    if name in _MODEL_NAMES:
        return _model_classes()[name]
    raise AttributeError(f"module 'posenc_lib' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_TORCH_NAMES) + list(_MODEL_NAMES))
