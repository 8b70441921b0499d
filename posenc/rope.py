"""RoPE (rotary position embedding) in numpy: rotating q and κ by their positions, the matrix
that does it, the score as a function of the offset alone, and content-plus-position scores
(RoPE against an additive PE).

The torch version is :func:`posenc.torch_layers.rope_torch`; both turn pair i by ``pos · w_i``.
"""
from __future__ import annotations

import numpy as np

from .distance import _by_offset, _small_matmul
from .encoding import _pair_rotation_matrix, encode_positions, frequencies
from .validate import (
    check_array,
    check_int,
    check_one_of,
    check_positions,
    check_projections,
    check_real,
    check_vector_pair,
)


def rope(x, positions, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding: rotate each (even, odd) pair of ``x`` by ``pos * w_i``.

    ``x`` has shape ``(..., seq_len, d)`` with d even; ``positions`` has length seq_len.
    ``[x0, x1] -> [x0 cos a - x1 sin a, x0 sin a + x1 cos a]``, ``a = pos * w_i`` (each pair
    turns counter-clockwise in its plane), so ``rope(q, m) . rope(κ, n)`` depends on the
    offset ``k = n - m`` only.
    Introduced in notebook 07_rope.
    """
    x = check_array("x", x)
    if x.ndim < 2:
        raise ValueError("x must have shape (..., seq_len, d) / x 的形状必须是 (..., seq_len, d)")
    pos = check_positions(positions)
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
    pos = check_real("pos", pos)
    return _pair_rotation_matrix(pos * frequencies(d_model, base))


def rope_pair_coefficients(q, key) -> tuple[np.ndarray, np.ndarray]:
    """Per pair i, with κ = ``key``: ``a_i = q_2i κ_2i + q_2i+1 κ_2i+1`` and
    ``b_i = q_2i+1 κ_2i - q_2i κ_2i+1``.

    With them ``rope(q, m) . rope(κ, m + k) = sum_i a_i cos(k w_i) + b_i sin(k w_i)``:
    the ``a`` (cos) part is even in the offset k, the ``b`` (sin) part is odd. ``b = 0``
    (each pair of κ parallel to that of q, e.g. q = κ) makes the score symmetric in ±k.
    Introduced in notebook 07_rope.
    """
    q, key = check_vector_pair(q, key)
    q0, q1, k0, k1 = q[0::2], q[1::2], key[0::2], key[1::2]
    return q0 * k0 + q1 * k1, q1 * k0 - q0 * k1


def rope_score_by_offset(q, key, offsets, base: float = 10000.0) -> np.ndarray:
    """``rope(q, m) . rope(κ, m + k)`` for each offset k in ``offsets``, by the closed form.

    ``sum_i a_i cos(k w_i) + b_i sin(k w_i)`` with ``a, b`` from
    :func:`rope_pair_coefficients`: no position m appears in it at all.
    Introduced in notebook 07_rope.
    """
    a, b = rope_pair_coefficients(q, key)
    ks = check_array("offsets", offsets)
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
    kind = check_one_of("kind", kind, SCORE_KINDS)
    x_q, x_key = check_vector_pair(x_q, x_key, names=("x_q", "x_key"))
    d_model = len(x_q)
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    k_max = check_int("k_max", k_max, 0, 4096)
    start = check_int("start", start, -10**6, 10**6)
    w_q, w_k = check_projections(d_model, w_q, w_k)
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
    return _by_offset(_small_matmul(q, keys.T), k_max)   # key column c is position start - k_max + c
