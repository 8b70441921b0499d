"""The sinusoidal table and its geometry: frequencies, wavelengths, the table in both
layouts, the shift-by-k rotation, dot products and distances by offset, the binary counter.

Convention (the whole course): ``PE[pos, 2i] = sin(pos * w_i)``, ``PE[pos, 2i+1] =
cos(pos * w_i)``, ``w_i = base ** (-2i / d_model)``; positions start at 0.
"""
from __future__ import annotations

import numpy as np

from .validate import (
    check_array,
    check_base,
    check_d_model,
    check_int,
    check_one_of,
    check_positions,
    check_real,
    check_table_size,
)

#: The two column orders of the table: the paper's interleaved (sin, cos) pairs, or all the
#: sines then all the cosines (tensor2tensor, Marian).
LAYOUTS = ("interleaved", "split")


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``w_i = base ** (-2i / d_model)`` for i = 0 .. d_model/2 - 1.

    Pair i (columns 2i, 2i+1) turns by ``w_i`` radians per position.
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    i = np.arange(d_model // 2, dtype=float)
    return base ** (-2.0 * i / d_model)


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Wavelengths ``2*pi / w_i``: how many positions pair i needs for one full turn.

    They run from 2*pi (i = 0) to ``2*pi * base ** ((d_model - 2) / d_model)``. First used in
    notebook 02 (how many positions pair 1 needs for a turn); notebook 03 plots them all.
    """
    return 2.0 * np.pi / frequencies(d_model, base)


def encode_positions(positions, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The interleaved PE rows for arbitrary (possibly non-integer) ``positions``.

    Returns an array of shape ``(len(positions), d_model)``.
    """
    pos = check_positions(positions)
    w = frequencies(d_model, base)
    check_table_size(len(pos), d_model)
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
    the second half all the cosines, same frequencies. Notebook 01 adds it as each seat's
    number; notebook 02 derives the formula.
    """
    seq_len = check_int("seq_len", seq_len, 1)
    d_model = check_d_model(d_model)
    base = check_base(base)
    start = check_int("start", start, 0)
    layout = check_one_of("layout", layout, LAYOUTS)
    check_table_size(seq_len, d_model)
    pe = encode_positions(np.arange(start, start + seq_len, dtype=float), d_model, base)
    if layout == "split":
        pe = np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)
    return pe


def split_permutation(d_model: int) -> np.ndarray:
    """Column order taking the interleaved table to the split one.

    ``sinusoidal_encoding(..., layout="split") == interleaved[:, split_permutation(d)]``.
    """
    d_model = check_d_model(d_model)
    return np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])


def pair_rotation_matrix(angles) -> np.ndarray:
    """The matrix that turns pair i, (x_2i, x_2i+1), counter-clockwise by ``angles[i]``.

    Block-diagonal, one 2x2 rotation ``[[cos a, -sin a], [sin a, cos a]]`` per angle
    (column-vector convention: ``y = R @ x``). The one rotation builder of the course: the
    shift R_k of notebook 04 (:func:`relative_rotation`, angles ``-k w_i``) and RoPE's matrix
    (:func:`posenc.rope.rope_rotation`, angles ``pos w_i``) differ only in the sign of the angle.
    """
    c, s = np.cos(angles), np.sin(angles)
    r = np.zeros((2 * len(c), 2 * len(c)))
    idx = np.arange(0, 2 * len(c), 2)
    r[idx, idx] = c
    r[idx, idx + 1] = -s
    r[idx + 1, idx] = s
    r[idx + 1, idx + 1] = c
    return r


def relative_rotation(k: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The block-diagonal matrix ``R_k`` with ``PE(pos + k) = R_k @ PE(pos)`` for every pos.

    One 2x2 block per pair: ``[[cos(k w_i), sin(k w_i)], [-sin(k w_i), cos(k w_i)]]``
    (sin-first pair order): on the clock, where a pair is drawn as the point (sin, cos), it
    turns the hand clockwise by ``k w_i``. It depends on the offset ``k`` only; ``k`` may be
    negative.
    """
    k = check_real("k", k)
    return pair_rotation_matrix(-k * frequencies(d_model, base))


def rotation_error(k, d_model: int, positions=None, base: float = 10000.0) -> float:
    """Largest ``|R_k @ PE(pos) - PE(pos + k)|`` over ``positions`` and every dimension.

    ``positions`` defaults to 0 .. 199; ``k`` may be negative or non-integer. The
    answer is rounding error (~1e-15): ``PE(pos + k) = R_k PE(pos)`` is exact.
    """
    k = check_real("k", k)
    pos = np.arange(200, dtype=float) if positions is None else check_positions(positions)
    rotated = encode_positions(pos, d_model, base) @ relative_rotation(k, d_model, base).T
    return float(np.abs(rotated - encode_positions(pos + k, d_model, base)).max())


def pe_dot_by_offset(k, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``PE(pos) . PE(pos + k) = sum_i cos(k * w_i)`` for each offset in ``k``.

    Independent of pos, equal for +k and -k, and not monotone in |k|.
    """
    ks = check_array("k", k)
    w = frequencies(d_model, base)
    return np.cos(np.multiply.outer(ks, w)).sum(axis=-1)


def pe_distance_by_offset(k, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``||PE(pos + k) - PE(pos)||`` for each offset in ``k`` (the same for every pos).

    Each pair contributes the chord between its two hand positions,
    ``2 |sin(k w_i / 2)|``, so the distance is ``sqrt(sum_i 4 sin^2(k w_i / 2))``.
    It is 0 only when every hand is back exactly where it started.
    """
    ks = check_array("k", k)
    w = frequencies(d_model, base)
    return np.sqrt((4.0 * np.sin(np.multiply.outer(ks, w) / 2.0) ** 2).sum(axis=-1))


def nearest_repeat(d_model: int, max_offset: int = 1000, base: float = 10000.0) -> tuple[int, float]:
    """The offset k in 1 .. max_offset at which the PE rows come closest to repeating.

    Returns ``(k, distance)`` with ``distance = ||PE(p + k) - PE(p)||`` (any p); the first
    such k when several tie. With d_model = 2 and max_offset = 1000 this is the near-turn
    710 ~ 113 * 2*pi.
    """
    d_model = check_d_model(d_model)
    max_offset = check_int("max_offset", max_offset, 1, 10**7)
    check_table_size(max_offset, d_model)
    ks = np.arange(1, max_offset + 1, dtype=float)
    dist = pe_distance_by_offset(ks, d_model, base)
    j = int(np.argmin(dist))
    return j + 1, float(dist[j])


def binary_bits(pos: int, n_bits: int = 8) -> np.ndarray:
    """The binary counter of ``pos``: bit k (k = 0 first) flips every 2**k steps.
    """
    pos = check_int("pos", pos, 0)
    n_bits = check_int("n_bits", n_bits, 1, 62)
    return (pos >> np.arange(n_bits)) & 1


def flipped_bits(pos: int) -> np.ndarray:
    """The bits k that change when the binary counter steps from ``pos - 1`` to ``pos``.

    Bit 0 always flips; a carry flips the lower bits back to 0 as the next one turns on,
    so 7 -> 8 flips bits 0, 1, 2 and 3.
    """
    pos = check_int("pos", pos, 1, 2**62 - 1)
    n = pos.bit_length()
    return np.flatnonzero(binary_bits(pos, n) != binary_bits(pos - 1, n))
