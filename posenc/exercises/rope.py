"""``check_*`` for RoPE (notebook 07): a rotation angle, a RoPE score by hand, which position
a rotated PE row encodes, and whether a shift of both positions changes the score.

Every wrong answer is answered by naming what the learner entered and the slip it shows.
"""
from __future__ import annotations

import math

import numpy as np

from ..encoding import frequencies
from ..rope import rope
from ..validate import check_base, check_d_model, check_int, check_real, check_vector_pair
from .rule import grade
from .verdict import Verdict, asked

#: The precision exercise 2 of notebook 07 asks for (「保留 4 位小数」).
SCORE_DECIMALS = 4


def check_rope_angle(answer, i: int, pos, d_model: int, base: float = 10000.0) -> Verdict:
    """Check the angle (radians) by which RoPE turns pair ``i`` of a vector at position ``pos``.

    The angle is ``pos * w_i`` with ``w_i = base ** (-2i / d_model)``, graded by the precision
    rule; the same angle plus a whole number of turns (2*pi) counts as right. Slip table:
    degrees, dividing by w_i, w_i itself (the × pos forgotten), using i instead of 2i in the
    exponent, and using the dimension 2i as the pair index.
    """
    d_model = check_d_model(d_model)
    i = check_int("i", i, 0, d_model // 2 - 1)
    pos = check_real("pos", pos)
    base = check_base(base)
    w = float(frequencies(d_model, base)[i])
    right = pos * w

    slips = [
        (math.degrees(right), "这是角度制 (degrees)；RoPE 的角度用弧度。"),
        (pos / w, "这是 pos ÷ w_i；角度是 pos × w_i。"),
        (w, f"这是 w_{i} = {base:g}^(−{2 * i}/{d_model}) 本身，忘了乘 pos：角度是 pos × w_{i} = {pos:g} × w_{i}。"),
        (pos * base ** (-i / d_model), "指数是 −2i/d_model（第 i 对对应第 2i、2i+1 维），这是用 −i/d_model 算的。"),
        (pos * base ** (-4.0 * i / d_model), f"这是把维度下标 2i = {2 * i} 当成了对的下标 i：第 i 对的频率是 "
                                             f"base^(−2i/d_model) = base^(−{2 * i}/{d_model})。"),
    ]
    told = f"角度 = pos·w_{i} = {pos:g} × {w:.6g} = {right:.6g} 弧度"
    return grade(answer, right, mod=2 * math.pi, ok=f"{told}。", ok_turns=f"{told}（你的答案多转了 {{turns}} 整圈 2π，是同一个旋转）。",
                 slips=slips, expected="答案应是一个数（弧度）。",
                 wrong=f"和正弦位置编码同一组频率：w_i = base^(−2i/d_model)，这里 2i/d_model = {2 * i}/{d_model}；"
                       f"角度 = pos × w_i。")


def check_rope_score(answer, q=(1.0, 0.0), key=(0.0, 1.0), m: int = 3, n: int = 4,
                     base: float = 10000.0) -> Verdict:
    """Check ``rope(q, m) . rope(κ, n)`` computed by hand (κ = ``key``), graded by the precision
    rule at the 4 decimals notebook 07 asks for (:data:`SCORE_DECIMALS`).

    The right value is ``qᵀ 𝓡_(n-m) κ``. Slip table: the opposite direction (the offset m - n,
    as with notebook 04's R_k on both), rotating by m + n (q and κ turned opposite ways),
    forgetting the rotation, rotating only κ or only q, and degrees.
    """
    q, key = check_vector_pair(q, key)
    m = check_int("m", m, -10**6, 10**6)
    n = check_int("n", n, -10**6, 10**6)
    score = lambda a, b: float(rope(q[None], [a], base)[0] @ rope(key[None], [b], base)[0])
    right = score(m, n)
    k = n - m
    slips = [
        (score(n, m), f"这是偏移 m − n = {-k} 的分数：转的方向反了。RoPE 把每一对逆时针转 pos·w_i，"
                      f"分数 = qᵀ𝓡_(n−m)κ，k = n − m = {k}。"),
        (score(0, m + n), f"这是按 m + n = {m + n} 转出来的分数：q 和 κ 转的方向不一致（一个逆时针、一个顺时针），"
                          f"分数就依赖 m + n。两个都按 RoPE 逆时针转，只剩 n − m。"),
        (float(q @ key), "这是没有旋转时的 q·κ：RoPE 要先把 q 转到位置 m、κ 转到位置 n。"),
        (score(0, n), f"这是只把 κ 转到位置 n = {n}、q 留在原处的结果；q 也要转到位置 m = {m}。"),
        (score(m, 0), f"这是只把 q 转到位置 m = {m}、κ 留在原处的结果；κ 也要转到位置 n = {n}。"),
        (float(rope(q[None], [0.0], base)[0] @ rope(key[None], [math.radians(k)], base)[0]),
         "角度按度 (degrees) 算了；RoPE 的角度 pos·w_i 是弧度。"),
    ]
    return grade(answer, right, decimals=SCORE_DECIMALS, slips=slips,
                 expected=f"答案应是一个数（{asked(SCORE_DECIMALS)}）。",
                 ok=f"rope(q, {m})·rope(κ, {n}) = qᵀ𝓡_{k}κ = {right:.4f}：只有偏移 k = n − m = {k} 进来了。",
                 wrong=f"先把 q 逆时针转 m·w_i、κ 逆时针转 n·w_i，再做点积；等价于 qᵀ𝓡_(n−m)κ，"
                       f"这里 n − m = {k}。")


def check_rope_pe_position(answer, p: int = 20, pos: int = 6) -> Verdict:
    """``rope(PE(p), pos)`` is the sinusoidal encoding of which position? (``p - pos``)

    RoPE turns each pair counter-clockwise by pos·w_i, notebook 04's R_pos turns the clock
    hands clockwise: ``rope(x, pos) = R_(-pos) x``, so ``rope(PE(p), pos) = PE(p - pos)``.
    Slip table: ``p + pos`` (04's direction), ``pos - p`` and answering ``p`` or ``pos``.
    """
    p = check_int("p", p, -10**6, 10**6)
    pos = check_int("pos", pos, -10**6, 10**6)
    right = p - pos
    slips = [
        (p + pos, f"PE({p + pos}) 是第 04 篇的 R_{pos}·PE({p})：R_k 在钟面上顺时针转，把位置往后挪。"
                  f"RoPE 在同一个平面里逆时针转：rope(x, pos) = R_(−pos)·x。"),
        (pos - p, f"减反了：PE({p}) 逆时针转 {pos} 步，是从位置 {p} 往回数 {pos} 步，得 {p} − {pos}，不是 {pos} − {p}。"),
        (p, f"旋转会移动指针：每一对转过 {pos}·w_i，正好是从位置 {p} 挪 {pos} 步的角度。"),
        (pos, f"{pos} 是旋转用的位置；问的是 PE({p}) 转完之后变成了哪个位置的编码。"),
    ]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数：位置的编号。",
                 ok=f"rope(PE({p}), {pos}) = R_(−{pos})·PE({p}) = PE({right})：RoPE 把钟面上的指针逆时针拨回 {pos} 步。",
                 wrong=f"每一对转过 {pos}·w_i，正好是「挪 {pos} 步」的角度；想想 RoPE 的逆时针在钟面上是往前还是往后。")


def check_rope_shift(answer, shift: int = 7, m: int = 3, n: int = 10, d_model: int = 16,
                     seed: int = 0) -> Verdict:
    """Does ``rope(q, m) . rope(κ, n)`` change when both positions move by ``shift``?

    ``answer`` is True (it changes) or False (it does not). The verdict is computed: random
    q, κ (``seed``), scores at (m, n) and (m + shift, n + shift). An unanswered exercise shows
    the neutral prompt only (the hint would give the answer away).
    """
    shift = check_int("shift", shift, -10**6, 10**6)
    m = check_int("m", m, -10**6, 10**6)
    n = check_int("n", n, -10**6, 10**6)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    q, key = rng.normal(size=(2, check_d_model(d_model)))
    before = float(rope(q[None], [m])[0] @ rope(key[None], [n])[0])
    after = float(rope(q[None], [m + shift])[0] @ rope(key[None], [n + shift])[0])
    changes = abs(after - before) > 1e-9 * max(1.0, abs(before))
    slips = [(True, f"两个位置一起挪 {shift}，偏移 k = n − m 还是 {n - m}；RoPE 的分数只认 k（和内容 q、κ）。"
                    f"这里算出来：挪动前 {before:+.6f}，挪动后 {after:+.6f}。")]
    return grade(answer, changes, read="choice", valid={"options": [["bool", True], ["bool", False]]},
                 expected="答案应是 True / False 之一：True（会变）或 False（不变）。", slips=slips,
                 ok=(f"不变：挪动前 {before:+.6f}，挪动 {shift} 后 {after:+.6f}（差 {abs(after - before):.1e}），"
                     f"因为 k = n − m 没变。") if not changes else f"会变：挪动前 {before:+.6f}，挪动后 {after:+.6f}。",
                 wrong="R(mθ)ᵀR(nθ) = R((n − m)θ)：分数里只剩 n − m。两个位置一起挪，n − m 变了吗？")


def check_llama_row(answer, r: int = 5, head_dim: int = 8) -> Verdict:
    """After Hugging Face's Llama conversion, row ``r`` of a head of W_q (or W_k) holds which row
    of Meta's interleaved weights? (``2·(r mod head_dim/2) + r div (head_dim/2)``.)

    Slip table: the inverse direction (where Meta's row r goes), the row left in place, the
    pair index j alone and ``r + head_dim/2``.
    """
    head_dim = check_d_model(head_dim)
    r = check_int("r", r, 0, head_dim - 1)
    half = head_dim // 2
    c, j = divmod(r, half)
    right = 2 * j + c
    slips = [
        ((r + half) % head_dim, f"这是第 {r} 行在 rotate_half 写法里的搭档（相隔 {half} 行），不是它在交错写法里的行号。"),
        ((r % 2) * half + r // 2, f"这是反方向：Meta 的第 {r} 行被挪到了第 {(r % 2) * half + r // 2} 行。问的是换算后第 {r} 行"
                                  f"从哪里来（第 j 对的两个分量在 rotate_half 里是第 j 行和第 j + {half} 行）。"),
        (r, "重排会移动行：交错写法的一对是相邻两行，rotate_half 的一对相隔 head_dim/2 行。"),
        (j, f"{j} 是这一行所属的对 j；交错写法里第 j 对占第 2j、2j+1 两行，还要看它是第几个分量。"),
    ]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数：Meta 权重里的行号（0 起）。",
                 ok=f"第 {r} 行 = c·{half} + j，c = {c}、j = {j}：它是第 j = {j} 对的第 {c} 个分量，"
                    f"在交错写法里是第 2j + c = {right} 行。",
                 wrong=f"把 r 写成 c·{half} + j（c 是第几个分量，j 是第几对），交错写法里它在第 2j + c 行。")


def check_partial_rotary_pairs(answer, hidden_size: int = 6144, num_heads: int = 64,
                               rotary_pct: float = 0.25) -> Verdict:
    """How many pairs of each head does partial rotary turn? ``int(head_dim · rotary_pct) / 2``
    with ``head_dim = hidden_size / num_heads``.

    Slip table: dims instead of pairs, the unrotated dims or pairs, the fraction taken of the
    whole hidden size instead of one head, and the whole head's pairs.
    """
    hidden_size = check_int("hidden_size", hidden_size, 2)
    num_heads = check_int("num_heads", num_heads, 1, hidden_size)
    rotary_pct = check_real("rotary_pct", rotary_pct, minimum=0.0, maximum=1.0)
    head_dim = hidden_size // num_heads
    dims = int(head_dim * rotary_pct)
    right = dims // 2
    slips = [
        (dims, f"{dims} 是被转的维数；一对是两维，问的是对数。"),
        (head_dim - dims, f"{head_dim - dims} 是不转的维数（它们做纯内容匹配）；问的是被转的对数。"),
        ((head_dim - dims) // 2, f"{(head_dim - dims) // 2} 是不转的对数；被转的是前 {rotary_pct:.0%}。"),
        (int(hidden_size * rotary_pct), "比例是按每个头的维数取的，不是按整个 hidden_size：先除以头数。"),
        (int(hidden_size * rotary_pct) // 2, "比例是按每个头的维数取的，不是按整个 hidden_size：先除以头数。"),
        (head_dim // 2, f"{head_dim // 2} 是整个头的对数（全部旋转时）；这里只转 {rotary_pct:.0%}。"),
    ]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数：每个头里被转的对数。",
                 ok=f"每个头 {hidden_size}/{num_heads} = {head_dim} 维，转 {head_dim} × {rotary_pct:g} = {dims} 维，"
                    f"即 {right} 对；其余 {head_dim - dims} 维不转。",
                 wrong=f"先算每个头的维数 hidden_size / 头数，再乘 {rotary_pct:g}，最后换成对数。")
