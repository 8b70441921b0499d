"""RoPE and ALiBi in numpy: rotating q and k by their positions, the score as a function of
the offset, content-plus-position scores, and ALiBi's distance bias and the attention it gives.
"""
from __future__ import annotations

import numpy as np

from .attention import softmax
from .distance import _projections, _small_matmul
from .encoding import _block_rotation, encode_positions, frequencies
from .validate import _check_array, _check_d_model, _check_int, _check_positions, _check_real, _check_table_size


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


def rope_rotation(pos: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The ``d_model x d_model`` matrix :func:`rope` applies at position ``pos``.

    Block-diagonal, one standard (counter-clockwise) rotation per pair,
    ``[[cos(pos w_i), -sin(pos w_i)], [sin(pos w_i), cos(pos w_i)]]``, so
    ``rope(x[None], [pos])[0] == rope_rotation(pos, d) @ x``. In notebook 04's notation
    (blocks written for the (sin, cos) pair order) this is ``relative_rotation(-pos)``.
    Introduced in notebook 07_rope_alibi.
    """
    pos = _check_real("pos", pos)
    return _block_rotation(pos * frequencies(d_model, base))


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


def alibi_causal_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi as in the paper's decoder: ``-m_h (i - j)`` for keys j <= i, ``-inf`` for j > i.

    Shape ``(num_heads, seq_len, seq_len)``; the ``-inf`` entries are the causal mask
    (softmax gives them weight 0). On the allowed entries it equals :func:`alibi_bias`.
    Introduced in notebook 07_rope_alibi.
    """
    bias = alibi_bias(seq_len, num_heads)
    future = np.triu(np.ones((bias.shape[1], bias.shape[1]), dtype=bool), k=1)
    return np.where(future[None, :, :], -np.inf, bias)


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
    return softmax(bias[:, query, :])
