"""RoPE and ALiBi in numpy: rotating q and k by their positions, the score as a function of
the offset, content-plus-position scores, and ALiBi's distance bias and the attention it gives.
"""
from __future__ import annotations

import numpy as np

from .attention import softmax
from .distance import _projections, _small_matmul
from .encoding import _block_rotation, encode_positions, frequencies
from .validate import (
    _check_array,
    _check_d_model,
    _check_int,
    _check_positions,
    _check_real,
    _check_table_size,
)


def rope(x, positions, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding: rotate each (even, odd) pair of ``x`` by ``pos * w_i``.

    ``x`` has shape ``(..., seq_len, d)`` with d even; ``positions`` has length seq_len.
    ``[x0, x1] -> [x0 cos a - x1 sin a, x0 sin a + x1 cos a]``, ``a = pos * w_i`` (each pair
    turns counter-clockwise in its plane), so ``rope(q, m) . rope(κ, n)`` depends on the
    offset ``k = n - m`` only.
    Introduced in notebook 07_rope.
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
    angles = pos[:, None] * w[None, :]
    c, s = np.cos(angles), np.sin(angles)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x0 * c - x1 * s
    out[..., 1::2] = x0 * s + x1 * c
    return out


def rope_rotation(pos: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The ``d_model x d_model`` matrix :func:`rope` applies at position ``pos``.

    Block-diagonal, one standard (counter-clockwise) rotation per pair,
    ``[[cos(pos w_i), -sin(pos w_i)], [sin(pos w_i), cos(pos w_i)]]``, so
    ``rope(x[None], [pos])[0] == rope_rotation(pos, d) @ x``. In notebook 04's notation this
    is ``R_{-pos}`` (``relative_rotation(-pos)``): R_k turns the clock hands clockwise, RoPE
    turns each pair counter-clockwise.
    Introduced in notebook 07_rope.
    """
    pos = _check_real("pos", pos)
    return _block_rotation(pos * frequencies(d_model, base))


def _check_vector_pair(q, key, names=("q", "key")):
    q = _check_array(names[0], q, ndim=1)
    key = _check_array(names[1], key, ndim=1)
    if q.shape != key.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have the same length, got {len(q)} and "
                         f"{len(key)} / {names[0]} 与 {names[1]} 的长度必须相同")
    _check_d_model(len(q))
    return q, key


def rope_pair_coefficients(q, key) -> tuple[np.ndarray, np.ndarray]:
    """Per pair i, with κ = ``key``: ``a_i = q_2i κ_2i + q_2i+1 κ_2i+1`` and
    ``b_i = q_2i+1 κ_2i - q_2i κ_2i+1``.

    With them ``rope(q, m) . rope(κ, m + k) = sum_i a_i cos(k w_i) + b_i sin(k w_i)``:
    the ``a`` (cos) part is even in the offset k, the ``b`` (sin) part is odd. ``b = 0``
    (each pair of κ parallel to that of q, e.g. q = κ) makes the score symmetric in ±k.
    Introduced in notebook 07_rope.
    """
    q, key = _check_vector_pair(q, key)
    q0, q1, k0, k1 = q[0::2], q[1::2], key[0::2], key[1::2]
    return q0 * k0 + q1 * k1, q1 * k0 - q0 * k1


def rope_score_by_offset(q, key, offsets, base: float = 10000.0) -> np.ndarray:
    """``rope(q, m) . rope(κ, m + k)`` for each offset k in ``offsets``, by the closed form.

    ``sum_i a_i cos(k w_i) + b_i sin(k w_i)`` with ``a, b`` from
    :func:`rope_pair_coefficients`: no position m appears in it at all.
    Introduced in notebook 07_rope.
    """
    a, b = rope_pair_coefficients(q, key)
    ks = _check_array("offsets", offsets)
    w = frequencies(2 * len(a), base)
    angles = np.multiply.outer(ks, w)
    return np.cos(angles) @ a + np.sin(angles) @ b


SCORE_KINDS = ("additive", "rope")


def content_position_scores(x_q, x_key, w_q=None, w_k=None, *, kind: str = "rope", seq_len: int = 64,
                            k_max: int = 16, start: int = 0, base: float = 10000.0) -> np.ndarray:
    """Attention scores of one query token and one key token, by position and offset.

    ``out[r, k_max + k]`` is the score of the token ``x_q`` at query position
    ``m = start + r`` against the token ``x_key`` at key position ``n = m + k``
    (k = -k_max .. k_max; positions may be negative, the formulas are defined for any
    position). In code vectors are rows: ``x @ w_q`` is the course's ``q = W_q x`` with
    ``w_q = W_qᵀ``.

    * ``kind="additive"``: ``((x_q + PE(m)) @ w_q) . ((x_key + PE(n)) @ w_k)`` -- the PE is
      added before the projection (sinusoidal, notebook 04).
    * ``kind="rope"``: ``rope(x_q @ w_q, m) . rope(x_key @ w_k, n)`` -- the rotation comes
      after the projection.

    ``w_q``, ``w_k`` are ``(d_model, d_k)`` (default: identity). Pass the result to
    :func:`offset_structure` to measure how much it depends on m.
    Introduced in notebook 07_rope.
    """
    if kind not in SCORE_KINDS:
        raise ValueError(f"kind must be one of {SCORE_KINDS}, got {kind!r} / kind 只能是 {SCORE_KINDS} 之一")
    x_q, x_key = _check_vector_pair(x_q, x_key, names=("x_q", "x_key"))
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
        keys = _small_matmul(x_key[None, :] + encode_positions(k_pos, d_model, base), w_k)
    else:
        q = rope(np.tile(x_q @ w_q, (len(q_pos), 1)), q_pos, base)
        keys = rope(np.tile(x_key @ w_k, (len(k_pos), 1)), k_pos, base)
    g = _small_matmul(q, keys.T)                     # column c is key position start - k_max + c
    idx = np.arange(seq_len)[:, None] + np.arange(2 * k_max + 1)[None, :]
    return np.take_along_axis(g, idx, axis=1)


def alibi_slope_exponents(num_heads: int) -> np.ndarray:
    """The exponents e_h with ``s_h = 2 ** -e_h``, h = 1 .. H, by the ALiBi authors' recipe.

    H a power of 2: ``e_h = 8h/H`` (8 heads: 1, 2, ..., 8). Otherwise, with P the largest
    power of 2 below H: the P slopes of P heads (``8h/P``), then every other slope of 2P heads
    (``8h'/(2P)`` for h' = 1, 3, 5, ...) until there are H. The authors' reference code
    (and BLOOM, 112 heads) does this so that every head count keeps the geometric sequence
    of a power of 2 and its in-between values.
    Introduced in notebook 08_alibi_extrapolation.
    """
    num_heads = _check_int("num_heads", num_heads, 1, 1024)
    p = 1 << (num_heads.bit_length() - 1)          # largest power of 2 <= H
    base = 8.0 * np.arange(1, p + 1) / p
    extra = 8.0 * np.arange(1, 2 * (num_heads - p), 2) / (2 * p)
    return np.concatenate([base, extra])


def alibi_slopes(num_heads: int) -> np.ndarray:
    """ALiBi head slopes s_h for h = 1 .. H (the ALiBi paper writes them m; here m is a
    position): ``2 ** -alibi_slope_exponents(H)``.

    For H a power of 2 this is the paper's ``s_h = 2 ** (-8h/H)`` (8 heads: 1/2 ... 1/256);
    for other H, the authors' recipe in :func:`alibi_slope_exponents` (12 heads: 1/2 ... 1/256,
    then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5).
    Introduced in notebook 08_alibi_extrapolation.
    """
    return 2.0 ** -alibi_slope_exponents(num_heads)


def alibi_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi biases ``-s_h * |n - m|`` (query position m = row, key position n = column),
    shape ``(num_heads, seq_len, seq_len)``.

    Added to the attention scores before the softmax; no position vectors at all. The bias
    depends on the offset k = n - m only, through |k|: it cannot tell left from right.
    Introduced in notebook 08_alibi_extrapolation.
    """
    seq_len = _check_int("seq_len", seq_len, 1)
    slopes = alibi_slopes(num_heads)
    _check_table_size(seq_len * seq_len, len(slopes))
    dist = np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])
    return -slopes[:, None, None] * dist[None, :, :]


def alibi_causal_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi as in the paper's decoder: ``-s_h (m - n)`` for keys n <= m, ``-inf`` for n > m.

    Shape ``(num_heads, seq_len, seq_len)``; the ``-inf`` entries are the causal mask
    (softmax gives them weight 0). On the allowed entries it equals :func:`alibi_bias`.
    Introduced in notebook 08_alibi_extrapolation.
    """
    bias = alibi_bias(seq_len, num_heads)
    future = np.triu(np.ones((bias.shape[1], bias.shape[1]), dtype=bool), k=1)
    return np.where(future[None, :, :], -np.inf, bias)


def alibi_attention(seq_len: int, num_heads: int, query: int | None = None,
                    causal: bool = False) -> np.ndarray:
    """Attention weights of one query row from the ALiBi bias alone (all q.k = 0).

    Returns ``(num_heads, seq_len)``: ``softmax_n(-s_h |n - query|)`` (with ``causal``, only
    keys n <= query). ``query`` defaults to the middle, ``seq_len // 2``. The weights fall
    off geometrically, by the factor ``exp(-s_h)`` per step: a discrete Laplace
    (two-sided geometric) shape.
    Introduced in notebook 08_alibi_extrapolation.
    """
    seq_len = _check_int("seq_len", seq_len, 1, 4096)
    query = seq_len // 2 if query is None else _check_int("query", query, 0, seq_len - 1)
    bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
    return softmax(bias[:, query, :])
