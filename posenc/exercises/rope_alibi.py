"""``check_*`` for RoPE and ALiBi: rotation angles, shifts, head slopes.
"""
from __future__ import annotations

import math

import numpy as np

from ..rope_alibi import alibi_slope_exponents, alibi_slopes, rope
from ..validate import _check_base, _check_d_model, _check_int, _check_real
from .verdict import PLACEHOLDER, Verdict, _read_answer, _wrong, check_choice


def check_alibi_slope(h: int, num_heads: int, answer) -> Verdict:
    """Check the ALiBi slope s_h of head h (1-based) among H heads (:func:`alibi_slopes`).

    Recognises counting heads from 0, forgetting the 8, a negative slope and, when H is
    not a power of 2, applying ``2^(-8h/H)`` instead of the authors' recipe.
    Introduced in notebook 08_alibi_extrapolation.
    """
    num_heads = _check_int("num_heads", num_heads, 1, 1024)
    h = _check_int("h", h, 1, num_heads)
    right = float(alibi_slopes(num_heads)[h - 1])
    exponent = float(alibi_slope_exponents(num_heads)[h - 1])
    if answer is None:
        return Verdict(False, PLACEHOLDER)
    arr = _read_answer(answer, "array", ())
    if arr is None:
        return _wrong(answer, "答案应是一个数，例如 0.25 或 2 ** -2。")
    got = float(arr)
    if abs(got - right) <= 1e-3 * right:
        return Verdict(True, f"s_{h} = 2^(−{exponent:g}) = {right:.6g}。")
    power_of_2 = num_heads & (num_heads - 1) == 0
    slips = {}
    if h > 1:
        slips[f"这是第 {h - 1} 个头的斜率：头从 1 开始数，第 {h} 个头是 2^(−{exponent:g})。"] = \
            float(alibi_slopes(num_heads)[h - 2])
    else:
        slips["这是 2^0：头从 1 开始数，第 1 个头的斜率已经是 2^(−8/H) 这一档。"] = 1.0
    if not power_of_2:
        p = 1 << (num_heads.bit_length() - 1)
        slips[f"这是直接套 2^(−8h/H) 的结果；H = {num_heads} 不是 2 的幂，作者的做法是先取 {p} 个头的 {p} 个斜率，"
              f"再从 {2 * p} 个头的斜率里隔一个取一个补足。"] = 2.0 ** (-8.0 * h / num_heads)
    slips[f"指数里少了 8：这是 2^(−{exponent / 8:g})。"] = 2.0 ** (-exponent / 8)
    slips["斜率 s_h 是正数；加到分数上的偏置是 −s_h·|k|，负号在偏置里。"] = -right
    for message, value in slips.items():
        if abs(got - value) <= 1e-3 * abs(value) and abs(value - right) > 1e-3 * right:
            return _wrong(answer, message)
    rule = ("s_h = 2^(−8h/H)" if power_of_2 else
            "H 不是 2 的幂：前几个头用最近的 2 的幂的斜率，其余从两倍头数的斜率里隔一个取一个")
    return _wrong(answer, f"{rule}；第 {h} 个头的指数是 −{exponent:g}。")


def check_rope_angle(i: int, pos, d_model: int, answer, base: float = 10000.0) -> Verdict:
    """Check the angle (radians) by which RoPE turns pair ``i`` of a vector at position ``pos``.

    The angle is ``pos * w_i`` with ``w_i = base ** (-2i / d_model)``; the same angle plus a
    whole number of turns (2*pi) counts as right. Recognises degrees, dividing by w_i
    and using i instead of 2i in the exponent.
    Introduced in notebook 07_rope.
    """
    d_model = _check_d_model(d_model)
    i = _check_int("i", i, 0, d_model // 2 - 1)
    pos = _check_real("pos", pos)
    base = _check_base(base)
    w = base ** (-2.0 * i / d_model)
    right = pos * w
    if answer is None:
        return Verdict(False, PLACEHOLDER)
    arr = _read_answer(answer, "array", ())
    if arr is None:
        return _wrong(answer, "答案应是一个数（弧度）。")
    got = float(arr)
    turns = (got - right) / (2 * math.pi)
    if abs(got - right) <= 5e-4 or (abs(turns - round(turns)) * 2 * math.pi <= 5e-4):
        extra = "" if abs(got - right) <= 5e-4 else f"（你的答案多转了 {round(turns):+d} 整圈 2π，是同一个旋转）"
        return Verdict(True, f"角度 = pos·w_{i} = {pos:g} × {w:.6g} = {right:.6g} 弧度{extra}。")
    slips = {
        "这是角度制 (degrees)；RoPE 的角度用弧度。": math.degrees(right),
        "这是 pos ÷ w_i；角度是 pos × w_i。": pos / w,
        "指数是 −2i/d_model（第 i 对对应第 2i、2i+1 维），这是用 −i/d_model 算的。": pos * base ** (-i / d_model),
    }
    for message, value in slips.items():
        if abs(got - value) <= max(5e-4, 1e-4 * abs(value)) and abs(value - right) > 5e-4:
            return _wrong(answer, message)
    return _wrong(answer, f"和正弦位置编码同一组频率：w_i = base^(−2i/d_model)，这里 2i/d_model = {2 * i}/{d_model}；"
                          f"角度 = pos × w_i。")


def check_rope_shift(answer, shift: int = 7, m: int = 3, n: int = 10, d_model: int = 16,
                     seed: int = 0) -> Verdict:
    """Does ``rope(q, m) . rope(κ, n)`` change when both positions move by ``shift``?

    ``answer`` is True (it changes) or False (it does not). The verdict is computed: random
    q, κ (``seed``), scores at (m, n) and (m + shift, n + shift).
    Introduced in notebook 07_rope.
    """
    shift = _check_int("shift", shift, -10**6, 10**6)
    rng = np.random.default_rng(_check_int("seed", seed, 0))
    q, key = rng.normal(size=(2, _check_d_model(d_model)))
    before = float(rope(q[None], [m])[0] @ rope(key[None], [n])[0])
    after = float(rope(q[None], [m + shift])[0] @ rope(key[None], [n + shift])[0])
    changes = abs(after - before) > 1e-9 * max(1.0, abs(before))
    hint = "R(mθ)ᵀR(nθ) = R((n − m)θ)：分数里只剩 n − m。两个位置一起挪，n − m 变了吗？"
    hints = {True: f"两个位置一起挪 {shift}，偏移 k = n − m 还是 {n - m}；RoPE 的分数只认 k。" + hint}
    verdict = check_choice(answer, changes, options=(True, False), hint=hint, hints=hints)
    if verdict:
        return Verdict(True, f"不变：挪动前 {before:+.6f}，挪动 {shift} 后 {after:+.6f}（差 {abs(after - before):.0e}），"
                             f"因为 k = n − m 没变。")
    return verdict
