"""``check_*`` for the sinusoidal table: a hand-computed PE row, wavelengths, the binary
counter, the split layout, dot products, and the shift-by-k rotation (notebooks 02-04).
"""
from __future__ import annotations

import math

import numpy as np

from ..encoding import (encode_positions, flipped_bits, frequencies, nearest_repeat,
                        pe_distance_by_offset, pe_dot_by_offset, relative_rotation, split_permutation,
                        wavelengths)
from ..text import _format_vector
from ..validate import _check_array, _check_d_model, _check_int
from .verdict import Verdict, _read_answer, check_value


def check_pe(pos: int, answer, d_model: int = 2, base: float = 10000.0) -> Verdict:
    """Check a hand-calculated PE(pos) vector (4 decimals are enough).

    Recognises the classic slips: degrees instead of radians, sin and cos swapped,
    dividing by the frequency instead of multiplying.
    Introduced in notebook 02_sinusoidal_hand_calculation.
    """
    pos = _check_int("pos", pos, 0)
    right = encode_positions([pos], d_model, base)[0]
    arr = _read_answer(answer, "array", right.shape)
    if arr is None:
        return Verdict(False, f"PE({pos}) 应该是长度为 {d_model} 的列表，例如 [sin, cos, ...]。")
    if np.allclose(arr, right, atol=5e-4):
        return Verdict(True, f"PE({pos}) = {_format_vector(right)}。")
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


def check_flipped_bits(pos: int, answer) -> Verdict:
    """Check which bits flip when the counter steps from ``pos - 1`` to ``pos``.

    ``answer`` is a list (or set) of bit indices, bit 0 being the lowest.
    Introduced in notebook 03_clock_hands_frequencies.
    """
    pos = _check_int("pos", pos, 1, 2**62 - 1)
    right = [int(b) for b in flipped_bits(pos)]
    got = _read_answer(answer, "ints")
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
    got = _read_answer(answer, "int")
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
    got = _read_answer(answer, "int")
    if got == right:
        kind = "sin" if right % 2 == 0 else "cos"
        return Verdict(True, f"split 的第 {j} 列 = interleaved 的第 {right} 列（第 {right // 2} 对的 {kind}）。")
    return Verdict(False, f"split 表的前 {d_model // 2} 列依次是所有 sin 列（interleaved 的 0, 2, 4, …），"
                          f"后 {d_model // 2} 列依次是所有 cos 列（1, 3, 5, …）。")


def check_dot_product(k: int, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check ``PE(p) . PE(p + k)`` (the same for every p).

    Introduced in notebook 04_relative_position.
    """
    right = float(pe_dot_by_offset([k], d_model, base)[0])
    return check_value(answer, right, hint="每一对贡献 sin·sin + cos·cos = cos(k·w_i)，把各对加起来。")


def check_rotation(k, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check a hand-written ``R_k`` (``d_model x d_model``, nested lists are fine).

    Recognises the transposed matrix (that is ``R_{-k}``: it maps PE(pos) to PE(pos - k)).
    Introduced in notebook 04_relative_position.
    """
    right = relative_rotation(k, d_model, base)
    arr = _read_answer(answer, "array", right.shape)
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
    arr = _read_answer(answer, "array", right.shape)
    if arr is None:
        return Verdict(False, f"答案应是长度为 {d_model} 的向量。提示：PE(pos+k) = R_k · PE(pos)。")
    if np.allclose(arr, right, atol=5e-4):
        return Verdict(True, f"R_k · PE(pos) = {_format_vector(right)}：不用知道 pos 是几。")
    if np.allclose(arr, rot.T @ pe, atol=5e-4):
        return Verdict(False, "方向反了：你算的是 R_k 的转置乘 PE(pos) = PE(pos−k)。")
    if np.allclose(arr, pe + encode_positions([k], d_model, base)[0], atol=5e-4):
        return Verdict(False, "PE(pos+k) 不是 PE(pos) + PE(k)：PE(k) 的各项 (sin kw, cos kw) 是旋转矩阵的系数，"
                              "要去乘 PE(pos)，而不是加上去。")
    return Verdict(False, "用 R_k 的每个 2×2 块 [[cos kw, sin kw], [−sin kw, cos kw]] 去乘 PE(pos) 的对应一对。")
