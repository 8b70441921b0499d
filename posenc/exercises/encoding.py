"""``check_*`` for the sinusoidal table: a hand-computed PE row, wavelengths, the binary
counter, the split layout, dot products, and the shift-by-k rotation (notebooks 02-04).
"""
from __future__ import annotations

import math

import numpy as np

from ..encoding import (
    encode_positions,
    flipped_bits,
    frequencies,
    nearest_repeat,
    pe_distance_by_offset,
    pe_dot_by_offset,
    relative_rotation,
    split_permutation,
    wavelengths,
)
from ..text import format_vector
from ..validate import bilingual, check_array, check_d_model, check_int, check_real
from .rule import check_choice, grade
from .verdict import ROUNDING_SLIP, Verdict, asked

#: The precision notebooks 02 and 04 ask for (「保留 4 位小数」): the default ``decimals`` of their checks.
DECIMALS_ASKED = 4


def _pe_row(sin_angles, cos_angles) -> np.ndarray:
    """An interleaved row from the angles of its sin columns and of its cos columns."""
    row = np.empty(2 * len(sin_angles))
    row[0::2], row[1::2] = np.sin(sin_angles), np.cos(cos_angles)
    return row


def pe_slip_table(pos, d_model: int, base: float, where: str = "") -> list:
    """Every typical slip of a hand-computed PE(pos): ``(the row it gives, the one message that
    names it)``, wherever it is made — :func:`check_pe` compares whole rows, the worksheet each box
    with its element of the row (:meth:`posenc.exercises.worksheet.WorksheetCase.slips`), so a slip
    is named the same way in both. ``where`` tells the position's context (the worksheet's first
    position) in the off-by-one messages. Rows equal to the right one never fire (the rule drops
    them)."""
    w = frequencies(d_model, base)
    i = np.arange(len(w))
    angle = pos * w
    by_pair = pos * base ** (-i / d_model)
    per_dim = _pe_row(pos * base ** (-2 * (2 * i) / d_model), pos * base ** (-2 * (2 * i + 1) / d_model))
    table = [
        (encode_positions([math.radians(pos)], d_model, base)[0],
         "像是计算器停在角度制 (DEG)：公式里的角度 pos·w_i 用弧度 (radians)，sin(1) 指 1 弧度，不是 1°。"),
        (_pe_row(np.pi / 2 - angle, np.pi / 2 - angle), "sin 和 cos 写反了：偶数维 2i 放 sin，奇数维 2i+1 放 cos。"),
        (_pe_row(pos / w, pos / w), "角度应是 pos × w_i（w_i = base^(−2i/d_model)），这是 pos ÷ w_i 的结果。"),
        (per_dim, "频率用错了：w_i = base^(−2i/d_model) 里的 i 是第几对，不是第几维（第 2i、2i+1 维同属第 i 对，共用一个角度）。"),
        (_pe_row(by_pair, by_pair), "频率用错了：指数是 2i/d_model，不是 i/d_model（第 i 对占第 2i、2i+1 两维）。"),
        (_pe_row(angle, pos * base ** (-(2 * i + 1) / d_model)),
         "cos 维用了它自己的维号 2i+1 做指数：同一对的 sin 和 cos 共用一个角度 pos × base^(−2i/d_model)。"),
        (_pe_row(angle, pos * base ** (-2 * (i + 1) / d_model)),
         "cos 维用了下一对的指数 2(i+1)/d_model：同一对的 sin 和 cos 共用一个角度。"),
        (_pe_row(np.full(len(w), float(pos)), np.full(len(w), float(pos))),
         "每一对都用了 w_0 = 1：第 i 对的角频率是 w_i = base^(−2i/d_model)，越往后越小。"),
    ]
    for other in (pos - 1, pos + 1):
        if other >= 0:
            table.append((encode_positions([other], d_model, base)[0],
                          f"位置差了 1：pos 是 {pos}（从 0 数{where}），这像是 PE({other})。"))
    return table


def input_slip_table(word, pe, pe_slips) -> list:
    """Every typical slip of the model input word + PE: ``(the value it gives, the one message)``;
    ``word`` and ``pe`` are rows (or one element of each, for a worksheet box) and ``pe_slips`` the
    matching entries of :func:`pe_slip_table` (a slip in the PE step, then the sum done right)."""
    word, pe = np.asarray(word, dtype=float), np.asarray(pe, dtype=float)
    return [(pe, "这是 PE 本身：输入 = 词向量 + PE，还要加上词向量。"),
            (word, "这是词向量本身：输入 = 词向量 + PE，还要加上 PE。"),
            (word - pe, "这是 词向量 − PE：输入是两者相加。"),
            (pe - word, "词向量的符号反了：这是 PE − 词向量，输入是 词向量 + PE。")] + \
        [(word + np.asarray(value, dtype=float), f"PE 那一步：{message}") for value, message in pe_slips]


def sign_texts(pos, w) -> list[str]:
    """For each pair: where its angle lies, for the slip «right magnitudes, wrong signs» (in a
    row, :func:`check_pe`; in one box, the worksheet)."""
    out = []
    for pair, wi in enumerate(w):
        angle = pos * wi
        turned = angle % (2 * math.pi)
        quadrant = int(turned // (math.pi / 2)) + 1
        s, c = ("正" if math.sin(angle) > 0 else "负"), ("正" if math.cos(angle) > 0 else "负")
        left = f"（除去整圈后是 {turned:.4f} 弧度）" if angle >= 2 * math.pi else ""
        out.append(f"第 {pair} 对的角度是 {pos:g} × {wi:g} = {angle:.4f} 弧度{left}，落在第 {quadrant} 象限，"
                   f"那里 sin 为{s}、cos 为{c}。")
    return out


def check_pe(answer, pos, d_model: int = 2, base: float = 10000.0, word=None) -> Verdict:
    """Check a hand-calculated PE(pos), or with ``word`` the model input word + PE(pos).

    Graded by the precision rule at the 4 decimals notebook 02 asks for (:func:`agrees` with
    ``decimals=4``: within one unit of the 4th decimal, rounded or truncated); the verdict shows
    the 4-decimal values. Slip table: degrees instead of radians, sin and cos swapped,
    pos ÷ w_i, the exponent i/d_model, a cos column with the exponent (2i+1)/d_model or
    2(i+1)/d_model, every pair with w_0 = 1, right magnitudes with wrong signs, PE(pos ± 1) (a
    position counted off by one); with ``word`` the input's slips (PE alone, the word alone, a
    term subtracted or the word's sign flipped, a PE slip then the sum) — one table with the
    worksheet's boxes (:func:`pe_slip_table`, :func:`input_slip_table`), so a slip gets the same
    message wherever it is made. A coarser rounding is a rounding slip.
    """
    pos = check_int("pos", pos, 0)
    d_model = check_d_model(d_model)
    decimals = DECIMALS_ASKED
    pe = encode_positions([pos], d_model, base)[0]
    if word is not None:
        word = check_array("word", word, ndim=1)
        if len(word) != d_model:
            raise ValueError(bilingual(f"word must have d_model = {d_model} entries, got {len(word)}",
                                       f"word 的长度必须等于 d_model = {d_model}"))
    shift = np.zeros(d_model) if word is None else word
    right = shift + pe
    what = f"PE({pos})" if word is None else f"词向量 + PE({pos})"
    if word is None:
        ok = f"PE({pos}) = {format_vector(pe)}（4 位小数）。"
    else:
        ok = (f"{format_vector(word)} + PE({pos}) = {format_vector(word)} + "
              f"{format_vector(pe)} = {format_vector(right)}（4 位小数）。")
    pe_slips = pe_slip_table(pos, d_model, base)
    slips = pe_slips if word is None else input_slip_table(word, pe, pe_slips)
    w = frequencies(d_model, base)
    sign = {"center": shift.tolist(), "pairs": sign_texts(pos, w), "lead": "每个数的大小都对，第 {dims} 维的符号不对："}
    plus = "" if word is None else "，再加上词向量的第 {} 个数"
    wrong_at = [f"第 {bad} 维（第 {bad // 2} 对的 {'sin' if bad % 2 == 0 else 'cos'}）和计算结果不符（按 4 位小数比较）："
                f"这一维是 {'sin' if bad % 2 == 0 else 'cos'}(pos × w_{bad // 2})，w_{bad // 2} = "
                f"{base:g}^(−{2 * (bad // 2)}/{d_model}) = {w[bad // 2]:.6g}{plus.format(bad)}。" for bad in range(d_model)]
    return grade(answer, right, decimals=decimals, ok=ok, slips=slips, sign=sign, wrong_at=tuple(wrong_at),
                 expected=f"{what} 应该是 {d_model} 个数的列表，例如 [{', '.join(['…'] * min(d_model, 2))}"
                          f"{', …' if d_model > 2 else ''}]。")


def check_wavelength(answer, i: int, d_model: int, base: float = 10000.0, decimals: int = 1) -> Verdict:
    """Check the wavelength 2π / w_i (positions per full turn) of pair ``i``, to ``decimals``
    decimals (the precision rule at that many decimals).

    Slip table: the textbook «longest wavelength = base·2π» (right only in the limit of large
    d_model), a forgotten 2π, π instead of 2π, w_i itself or the turns per step w_i / 2π
    instead of the wavelength, the exponent i/d_model instead of 2i/d_model, a neighbouring
    pair's wavelength; π taken as 3.14 or a coarser rounding is a rounding slip.
    """
    d_model = check_d_model(d_model)
    i = check_int("i", i, 0, d_model // 2 - 1)
    decimals = check_int("decimals", decimals, 0, 6)
    lams = wavelengths(d_model, base)
    right = float(lams[i])
    w = float(frequencies(d_model, base)[i])
    exponent = f"{2 * i}/{d_model}"
    formula = f"2π·{base:g}^({exponent})"
    note = ""
    if i == d_model // 2 - 1 and i > 0:
        note = (f"这是最慢的一对，只有常说的「{base:g}·2π」的 1/{2 * math.pi * base / right:.4g}："
                f"指数最大只到 {exponent}，到不了 1。")
    slips = [
        (2 * math.pi * base, f"这是常见教程写的「最长波长 = {base:g}·2π」。那要 2i/d_model = 1，可 i 最大只到 "
                             f"d_model/2 − 1：这里指数是 {exponent}，波长 = {formula}。"),
        (1 / w, "少了 2π：w_i 是每步转过的弧度，转一整圈要 2π / w_i 步。"),
        (math.pi / w, "只用了 π：转一整圈是 2π 弧度，所以波长是 2π / w_i。"),
        (w, f"这是 w_{i} 本身（每步转过的弧度）；波长是转一整圈要的步数 2π / w_{i}。"),
        (w / (2 * math.pi), f"这是每步转过的圈数 w_{i}/2π；波长是它的倒数 2π / w_{i}。"),
        (2 * math.pi * base ** (i / d_model),
         f"指数用了 i/d_model：第 i 对占第 2i、2i+1 两列，指数是 2i/d_model = {exponent}。"),
    ]
    coarse_pi = 2 * 3.14 / w
    slips.append({"value": coarse_pi, "match": "agrees",
                  "message": f"{ROUNDING_SLIP}：π 取成了 3.14，差了 {abs(coarse_pi - right):.2g}；用 math.pi 算 "
                             f"2π / w_{i}，{asked(decimals)}。"})
    for j in (i - 1, i + 1):
        if 0 <= j < len(lams):
            slips.append((float(lams[j]), f"这是第 {j} 对的波长：i 从 0 数，第 {i} 对是第 {2 * i}、{2 * i + 1} 列。"))
    return grade(answer, right, decimals=decimals, slips=slips,
                 expected=f"答案应是一个数：第 {i} 对转一整圈要多少个位置。",
                 ok=f"第 {i} 对的波长 = 2π / w_{i} = {formula} = {right:.{decimals}f} 个位置。{note}",
                 wrong=f"波长 = 2π / w_i，w_i = {base:g}^(−2i/d_model)；这里 2i/d_model = {exponent}。")


def check_flipped_bits(answer, pos: int) -> Verdict:
    """Check which bits flip when the counter steps from ``pos - 1`` to ``pos``.

    ``answer`` is a list (or set) of bit indices, bit 0 being the lowest. Slip table: only the
    bit that turns on (the carry forgotten), the bits that are 1 in ``pos`` or in ``pos - 1``,
    bits counted from 1 or from the left.
    """
    pos = check_int("pos", pos, 1, 2**62 - 1)
    right = [int(b) for b in flipped_bits(pos)]
    n = pos.bit_length()
    change = f"{pos - 1:0{n}b} → {pos:0{n}b}"
    ones = lambda v: {k for k in range(n) if (v >> k) & 1}
    top = right[-1]
    slips = [
        ({top}, f"bit {top} 确实从 0 变成 1，但进位 (carry) 同时把更低的位从 1 变回 0：把所有变化的位都列出来。"),
        (set(right) - {top}, f"漏了 bit {top}：进位最后把它从 0 变成了 1。"),
        (ones(pos), f"这是 {pos} = {pos:0{n}b} 里为 1 的位，不是翻转的位：逐位比较 {change}。"),
        (ones(pos - 1), f"这是 {pos - 1} = {pos - 1:0{n}b} 里为 1 的位，不是翻转的位：逐位比较 {change}。"),
        ({b + 1 for b in right}, "编号整体多了 1：bit 从 0 数，bit 0 是最低位（最右边一位）。"),
        ({n - 1 - b for b in right}, f"你是从左边数的：bit 0 是最右边的一位（最低位）。{change}"),
    ]
    return grade(answer, set(right), read="ints", slips=[(v, m) for v, m in slips if v],
                 expected="答案应是 bit 编号的列表，例如 [0, 2]（bit 0 是最低位）。",
                 ok=f"{pos - 1} → {pos}：{change}，翻转的是 bit {right}。",
                 wrong=f"把 {pos - 1} 和 {pos} 写成二进制，逐位比较；bit 0 是最右边的一位。")


def _leftover_angles(k: int, d_model: int, base: float) -> np.ndarray:
    """For each hand: how far (radians, 0 .. π) k steps leave it from a whole number of turns."""
    turned = np.mod(k * frequencies(d_model, base), 2 * np.pi)
    return np.minimum(turned, 2 * np.pi - turned)


def _fmt_distance(d: float) -> str:
    return f"{d:.3f}" if d >= 1e-3 else f"{d:.2e}"


def _fmt_angle(a: float) -> str:
    return f"{a:.3f}" if a >= 1e-3 else f"{a:.1e}"


def check_nearest_repeat(answer, d_model: int = 2, max_offset: int = 1000,
                         base: float = 10000.0) -> Verdict:
    """Check the offset k in 1 .. max_offset at which PE(k) comes closest to PE(0).

    A wrong answer gets its own distance and how far each hand is from a whole turn after
    that many steps; slip table: the one-hand answer when there are several hands, a hand
    turned half way (opposite), the slowest hand's wavelength alone.
    """
    d_model = check_d_model(d_model)
    k, dist = nearest_repeat(d_model, max_offset, base)

    def hands(kk):
        left = _leftover_angles(kk, d_model, base)
        if d_model == 2:
            return f"指针离整圈差 {_fmt_angle(left[0])}"
        return "各指针离整圈：" + "、".join(f"第 {i} 根差 {_fmt_angle(a)}" for i, a in enumerate(left))

    ks = np.arange(1, max_offset + 1)
    distances = pe_distance_by_offset(ks, d_model, base)
    where = {int(kk): f"k = {kk} 时 PE({kk}) 与 PE(0) 的距离是 {_fmt_distance(float(d))}（{hands(kk)} 弧度）。"
             for kk, d in zip(ks, distances)}
    slowest = wavelengths(d_model, base)[-1]
    one_hand = nearest_repeat(2, max_offset, base)[0] if d_model > 2 else None
    by_value = {}
    for kk in map(int, ks):
        named = []
        if kk == one_hand:
            named.append(f"这是只有第 0 根指针时的答案。{where[kk]}"
                         f"其余指针也得同时接近整圈：距离² 是各指针弦长 2·sin(差角/2) 的平方和。")
        if _leftover_angles(kk, d_model, base)[0] > 2.5:
            named.append(f"{where[kk]}第 0 根指针差不多转到了正对面（差角接近 π，弦长接近最大值 2），要找的是转回原处。")
        if d_model > 2 and abs(kk - slowest) < 1:
            named.append(f"{kk} 是最慢指针的波长：它转回了原处，可快指针没有。{where[kk]}")
        if named and kk != k:
            by_value[str(kk)] = named
    per_pair = ("只有一根指针，距离就是弦长 2·|sin(差角/2)|" if d_model == 2 else
                "每根指针贡献弦长 2·|sin(差角/2)|，总距离是各弦长平方和的平方根")
    return grade(answer, k, read="int", valid={"range": [1, max_offset]}, by_value=by_value,
                 wrong_by_value={str(kk): f"{where[kk]}{per_pair}；找各指针同时最接近整圈的 k。" for kk in where if kk != k},
                 expected=f"答案应是 1 到 {max_offset} 之间的一个整数（偏移 k）。",
                 ok=f"k = {k}：PE({k}) 与 PE(0) 的距离 {_fmt_distance(dist)}，是 1 … {max_offset} 里最小的"
                    f"（{hands(k)} 弧度）。几乎转回原处，但不是 0。")


def check_split_column(answer, j: int, d_model: int) -> Verdict:
    """Check which interleaved column the split layout (前后分半) puts at column ``j``.

    Slip table: the direction reversed (the split column of interleaved column j), the same
    column number in both layouts, the pair index i instead of a column.
    """
    d_model = check_d_model(d_model)
    j = check_int("j", j, 0, d_model - 1)
    perm = split_permutation(d_model)
    right = int(perm[j])
    kind = "sin" if right % 2 == 0 else "cos"
    inverse = int(np.argsort(perm)[j])
    slips = [
        (inverse, f"方向反了：{inverse} 是交错表的第 {j} 列在前后分半表里的列号；"
                  f"问的是前后分半表的第 {j} 列来自交错表的哪一列。"),
        (j, f"两种布局的第 {j} 列不是同一列：前后分半表先放完所有 sin，再放所有 cos。"),
        (right // 2, f"{right // 2} 是对的编号 i；要的是交错表里的列号：第 i 对的 sin 在第 2i 列，cos 在第 2i+1 列。"),
    ]
    return grade(answer, right, read="int", valid={"range": [0, d_model - 1]}, slips=slips,
                 expected=f"答案应是交错表里的一个列号：0 到 {d_model - 1} 之间的整数。",
                 ok=f"前后分半 (split) 的第 {j} 列 = 交错 (interleaved) 的第 {right} 列（第 {right // 2} 对的 {kind}）。",
                 wrong=f"前后分半表的前 {d_model // 2} 列依次是所有 sin 列（交错表的 0, 2, 4, …），"
                       f"后 {d_model // 2} 列依次是所有 cos 列（1, 3, 5, …）。")


def _matrix4(m) -> str:
    """``[[0.5403, 0.8415], [-0.8415, 0.5403]]``: a small matrix at 4 decimals."""
    return "[" + ", ".join(format_vector(row) for row in np.asarray(m)) + "]"


def check_dot_product(answer, k, d_model: int, base: float = 10000.0) -> Verdict:
    """Check ``PE(m) . PE(m + k)`` (the same for every query position m), to the 4 decimals
    notebook 04 asks for.

    Slip table: only pair 0 summed, sin instead of cos, degrees instead of radians, the
    exponent ``i/d_model`` instead of ``2i/d_model``, and ``d_model/2`` (the value at k = 0 only).
    """
    d_model = check_d_model(d_model)
    k = check_real("k", k)
    w = frequencies(d_model, base)
    right = float(pe_dot_by_offset([k], d_model, base)[0])
    pairs = d_model // 2
    w_text = "，".join(f"w_{i} = {wi:.4g}" for i, wi in enumerate(w[:4])) + ("，…" if pairs > 4 else "")
    slips = [
        (math.cos(k * w[0]), f"只算了第 0 对 cos({k:g}·w_0)。一共 {pairs} 对，每一对都贡献一项 cos(k·w_i)，"
                             f"慢的那几对也要加上（{w_text}）。"),
        (float(np.sum(np.sin(k * w))), "把 cos 换成了 sin：每一对贡献 sin·sin + cos·cos = cos(k·w_i)，不是 sin(k·w_i)。"),
        (float(np.sum(np.cos(np.radians(k * w)))), "这是角度制 (degrees) 的结果：k·w_i 是弧度，cos(1) 指 1 弧度。"),
        (float(np.sum(np.cos(k * base ** (-np.arange(pairs) / d_model)))),
         f"频率的指数是 2i/d_model（第 i 对占第 2i、2i+1 两列），这是用 i/d_model 算的。正确的是 {w_text}。"),
        (float(pairs), f"{pairs} = d_model/2 是 k = 0 时的点积（每一对都是 cos 0 = 1）；k = {k:g} 时每一对只贡献 "
                       f"cos(k·w_i)。"),
    ]
    return grade(answer, right, decimals=DECIMALS_ASKED, slips=slips,
                 expected="答案应是一个数：点积 PE(m)·PE(m+k) 是一个标量。",
                 ok=f"PE(m)·PE(m{k:+g}) = Σ cos({k:g}·w_i) = {right:.4f}，与 m 无关。",
                 wrong=f"每一对贡献 sin·sin + cos·cos = cos(k·w_i)，把 {pairs} 对加起来（{w_text}），"
                       f"{asked(DECIMALS_ASKED)}。")


def _rotation_blocks(angles, swap: bool = False) -> np.ndarray:
    """Block-diagonal [[cos, sin], [-sin, cos]] per angle (``swap``: sin and cos swapped)."""
    out = np.zeros((2 * len(angles), 2 * len(angles)))
    for i, a in enumerate(angles):
        c, s = math.cos(a), math.sin(a)
        if swap:
            c, s = s, c
        out[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    return out


def check_rotation(answer, k, d_model: int, base: float = 10000.0) -> Verdict:
    """Check a hand-written ``R_k`` (``d_model x d_model``, nested lists are fine), to the 4
    decimals notebook 04 asks for.

    Slip table: the transposed matrix (that is ``R_{-k}``: it maps PE(pos) to PE(pos - k)),
    degrees instead of radians, and sin and cos swapped inside the blocks.
    """
    d_model = check_d_model(d_model)
    right = relative_rotation(k, d_model, base)
    shown = f"R_{k:g} = {_matrix4(right)}：" if d_model == 2 else ""
    angles = k * frequencies(d_model, base)
    slips = [
        (right.T, "方向反了：这是 R_k 的转置 = R_{−k}，它把 PE(pos) 变成 PE(pos−k)。对照 sin(a+b) = "
                  "sin a·cos b + cos a·sin b：新 sin 行里 cos(pos·w) 的系数是 +sin(k·w)，所以右上角是 +sin。"),
        (_rotation_blocks(np.radians(angles)), "这是角度制 (degrees) 的结果：k·w_i 是弧度。"),
        (_rotation_blocks(angles, swap=True), "块里的 sin 和 cos 放反了：对角线上是 cos(k·w_i)（k = 0 时 R_0 "
                                              "必须是单位矩阵），对角线外是 ±sin(k·w_i)。"),
    ]
    return grade(answer, right, decimals=DECIMALS_ASKED, slips=slips,
                 expected=f"R_k 应是 {d_model}×{d_model} 的矩阵，写成嵌套列表，例如 [[a, b], [c, d]]。",
                 ok=f"{shown}每个 2×2 块都是 [[cos(k·w_i), sin(k·w_i)], [−sin(k·w_i), cos(k·w_i)]]。",
                 wrong="从和角公式逐项对照：第一行给出 sin((pos+k)w)，第二行给出 cos((pos+k)w)，"
                       "每个块是 [[cos(k·w_i), sin(k·w_i)], [−sin(k·w_i), cos(k·w_i)]]。")


def check_rotation_product(answer, a: int, b: int) -> Verdict:
    """Check the offset k with ``R_a^T · R_b = R_k`` (the answer is ``b - a``).

    Slip table: the wrong direction (``a - b``), a transpose taken for R_a itself
    (``a + b``), R_b taken backwards (``-(a + b)``) and multiplied offsets (``±a·b``).
    """
    a, b = check_int("a", a, -10**6, 10**6), check_int("b", b, -10**6, 10**6)
    right = b - a
    shift = f"{right:+d}".replace("-", "−")
    slips = [
        (a - b, f"方向反了：R_{a}ᵀ 往回走 {a} 步，R_{b} 往前走 {b} 步，合起来是 {b} − {a}，不是 {a} − {b}。"),
        (a + b, f"把 R_{a}ᵀ 当成了 R_{a}：转置是往回转，R_kᵀ = R_{{−k}}。"),
        (-(a + b), f"R_{b} 是往前走 {b} 步（偏移 +{b}），只有 R_{a}ᵀ 是往回走。"),
        (a * b, "旋转合在一起是角度相加，不是相乘：R_x·R_y = R_{x+y}。"),
        (-a * b, "旋转合在一起是角度相加，不是相乘：R_x·R_y = R_{x+y}，R_kᵀ = R_{−k}。"),
    ]
    return grade(answer, right, read="int", slips=slips,
                 expected="答案应是一个整数偏移 k（可以是负数）。",
                 ok=f"R_{a}ᵀ = R_{{−{a}}}（往回走 {a} 步），再乘 R_{b}（往前走 {b} 步）："
                    f"R_{{−{a}}}·R_{b} = R_{{{shift.lstrip('+')}}}，它把 PE(pos) 变成 PE(pos{shift})。",
                 wrong="用两条规则：R_kᵀ = R_{−k}，R_x·R_y = R_{x+y}。")


def _scaled_rotation_scores(a: float, b: float, k: float = 1.0) -> np.ndarray:
    """``[S(+k), S(-k)]`` for d_model = 2, where ``S(k) = PE(m)^T M PE(m + k)`` with the
    scale-and-rotate block ``M = [[a, b], [-b, a]]`` (the same for every m; computed at m = 0).
    """
    a, b, k = check_real("a", a), check_real("b", b), check_real("k", k)
    m_block = np.array([[a, b], [-b, a]])
    pe = encode_positions([0.0, k, -k], 2)
    return np.array([pe[0] @ m_block @ pe[1], pe[0] @ m_block @ pe[2]])


def check_scaled_rotation_scores(answer, a: float, b: float, k: float = 1.0) -> Verdict:
    """Check ``[S(+k), S(-k)]`` (d_model = 2, ``M = [[a, b], [-b, a]]``), to the 4 decimals
    notebook 04 asks for.

    Slip table: the two scores swapped (offset taken as m - n, or M transposed), the plain dot
    product (b forgotten: the same for +k and -k), the scale a alone, and degrees instead of
    radians.
    """
    right = _scaled_rotation_scores(a, b, k)
    ck = math.cos(k)
    kd = math.radians(k)
    slips = [
        (right[::-1], "两个数的顺序反了（或者把 k 当成了 m − n、把 M 转置了）：k = n − m 是 key 的位置减 query 的位置，"
                      "第一个数是 key 在 query 后面一位（k = +1）。"),
        ([a * ck, a * ck], "这是只有缩放 a 的部分 a·cos k（也就是 a 倍的点积 PE(m)·PE(n)）：两个数一样，分不出前后。"
                           "旋转部分 b 还贡献 −b·sin k，对 ±k 符号相反。"),
        ([ck, ck], "这是不带 M 的点积 PE(m)·PE(n) = cos k：对 ±k 一样。分数要夹上 M：PE(m)ᵀ M PE(n)。"),
        ([a * math.cos(kd) - b * math.sin(kd), a * math.cos(kd) + b * math.sin(kd)],
         "这是角度制 (degrees) 的结果：w_0 = 1 弧度/位置。"),
    ]
    return grade(answer, right, decimals=DECIMALS_ASKED, slips=slips,
                 expected="答案应是两个数 [S(k = +1), S(k = −1)]。",
                 ok=f"[S(+{k:g}), S(−{k:g})] = {format_vector(right)}：a·cos k ∓ b·sin k，"
                    f"只依赖 k，而且 +k 与 −k 不同，分得出前后。",
                 wrong="d_model = 2 时只有一对，w_0 = 1：S(k) = a·cos k − b·sin k（第 5 节的公式）。"
                       "取 m = 0，分别算 n = +1 和 n = −1。")


#: The bugs of notebook 02's table of common mistakes, as its exercise names them.
BUG_OPTIONS = ("除以 div", "cos 用 2(i+1)", "整数除法", "base 不对", "角度制", "没有 bug")


def check_pe_bug_symptom(answer, pos: int = 10, d_model: int = 8) -> Verdict:
    """Check which bug of notebook 02's table (:data:`BUG_OPTIONS`) makes an implementation
    give, for ``PE(pos)``, the right first pair and every later pair stuck at [0, 1]: integer
    division (every frequency 0 except w_0 = 1). Each other option's message is computed from
    what that bug would give instead.
    """
    w = frequencies(d_model)
    right_row = encode_positions([pos], d_model)[0]
    hints = {
        "没有 bug": f"正确的 PE({pos}) 第 1 对是 [sin({pos} × {w[1]:g}), cos({pos} × {w[1]:g})] = "
                  f"[{right_row[2]:.4f}, {right_row[3]:.4f}]，不是 [0, 1]。",
        "除以 div": f"除以 div 时第 1 对的角度是 {pos} / {w[1]:g} = {pos / w[1]:g} 弧度，"
                  f"得到 [{math.sin(pos / w[1]):.4f}, {math.cos(pos / w[1]):.4f}]，不会停在 [0, 1]。",
        "cos 用 2(i+1)": f"那个 bug 只改 cos 列，sin 列仍然对；可这里第 1 对的 sin 是 0，正确值是 {right_row[2]:.4f}。",
        "base 不对": f"换一个 base（> 1）只会让后面几对转得快些或慢些；要在 pos = {pos} 时恰好停在 [0, 1]，"
                   "它们每步转的角度得是 0。",
        "角度制": f"角度制下第 0 对会是 [sin {pos}°, cos {pos}°] = [{math.sin(math.radians(pos)):.4f}, "
                f"{math.cos(math.radians(pos)):.4f}]；这里的第 0 对是 [sin {pos}, cos {pos}]（弧度），是对的。",
    }
    return check_choice(answer, "整数除法", options=list(BUG_OPTIONS), hints=hints,
                        hint=f"先算出正确的 PE({pos}) 的前两对，再对照第 7 节末尾的症状表：哪种错误会让后面几对一动不动？")


def check_first_short_hand(answer, d_model: int = 16, last_pos: int = 99, base: float = 10000.0) -> Verdict:
    """Check the first hand (pair index i) whose wavelength exceeds ``last_pos`` steps, i.e. the
    first that does not complete a full turn over positions 0 .. ``last_pos``. Each wrong hand
    says how many turns it makes, or that an earlier hand already falls short.
    """
    d_model = check_d_model(d_model)
    lam = wavelengths(d_model, base)
    first_short = int(np.argmax(lam > last_pos))
    hints = {}
    for i, length in enumerate(lam):
        if length <= last_pos:
            hints[i] = f"第 {i} 根的波长是 {length:.1f} 个位置，{last_pos} 步里已经转了 {last_pos / length:.2f} 圈：它转满了。"
        elif i > first_short:
            hints[i] = f"第 {i} 根（波长 {length:.1f}）确实转不满，但它前面已经有转不满的：要找的是第一根。"
    return check_choice(answer, first_short, options=list(range(len(lam))), hints=hints,
                        hint=f"填指针编号 i（0 到 {len(lam) - 1}），不是波长。第 i 根的波长是 "
                             f"2π·{base:g}^(2i/{d_model})，和 {last_pos} 比一比。")
