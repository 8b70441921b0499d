"""``check_*`` for RoPE and ALiBi: rotation angles, shifts, head slopes.
"""
from __future__ import annotations

import math

import numpy as np

from .verdict import Verdict, _read_answer, check_choice
from ..rope_alibi import alibi_slopes, rope
from ..validate import _check_base, _check_d_model, _check_int, _check_real


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
    arr = _read_answer(answer, "array", ())
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
    arr = _read_answer(answer, "array", ())
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
