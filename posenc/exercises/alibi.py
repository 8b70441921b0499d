"""``check_*`` for ALiBi and extrapolation (notebook 08): head slopes, a bias entry and the
biter positions whose distance to the final 。 training covered.

Every wrong answer is answered by naming what the learner entered and the slip it shows.
"""
from __future__ import annotations

import math

from ..alibi import alibi_slope_exponents, alibi_slopes
from ..validate import check_int, check_lengths
from .rule import grade, one_slip_per_value
from .verdict import Verdict


def check_alibi_slope(answer, h: int, num_heads: int) -> Verdict:
    """Check the ALiBi slope s_h of head h (1-based) among H heads (:func:`alibi_slopes`).

    Recognises counting heads from 0 (the slope of head h - 1 or h + 1), forgetting the 8,
    a negative slope and, when H is not a power of 2, applying ``2^(-8h/H)`` instead of the
    authors' recipe, continuing the first P slopes' sequence, or taking consecutive instead
    of every other slope of the 2P-head sequence.
    """
    num_heads = check_int("num_heads", num_heads, 1, 1024)
    h = check_int("h", h, 1, num_heads)
    slopes = alibi_slopes(num_heads)
    right = float(slopes[h - 1])
    exponent = float(alibi_slope_exponents(num_heads)[h - 1])
    p = 1 << (num_heads.bit_length() - 1)          # largest power of 2 <= H
    power_of_2 = p == num_heads
    slips = []
    if h > 1:
        e = float(alibi_slope_exponents(num_heads)[h - 2])
        slips.append((float(slopes[h - 2]), f"这是第 {h - 1} 个头的斜率 2^(−{e:g})，像是把头从 0 开始数了；公式里的 h 从 1 开始数，"
                                            f"第 {h} 个头是 2^(−{exponent:g}) = {right:.6g}。"))
    else:
        slips.append((1.0, f"这是 2^0 = 1，像是把头从 0 开始数了；h 从 1 开始数，第 1 个头已经是 2^(−{exponent:g})。"))
    if h < num_heads:
        e = float(alibi_slope_exponents(num_heads)[h])
        slips.append((float(slopes[h]), f"这是第 {h + 1} 个头的斜率 2^(−{e:g})，多数了一个头；h 从 1 开始数，"
                                        f"第 {h} 个头是 2^(−{exponent:g}) = {right:.6g}。"))
    if not power_of_2:
        slips.append((2.0 ** (-8.0 * h / num_heads),
                      f"这是直接套 2^(−8h/H) = 2^(−8·{h}/{num_heads}) 的结果。H = {num_heads} 不是 2 的幂，"
                      f"作者的做法是：先取 {p} 个头的那 {p} 个斜率 2^(−8h/{p})，再从 {2 * p} 个头的斜率里"
                      f"隔一个取一个（第 1、3、5… 个）补足 {num_heads} 个。"))
        if h > p:
            j = h - p                               # the j-th head added
            slips += [
                (2.0 ** (-8.0 * h / p), f"这是把 {p} 个头的等比数列 2^(−8h/{p}) 接着往下延伸到 h = {h}；补上的头不接在末尾，"
                                        f"而是取 {2 * p} 个头那组里的第 1、3、5… 个斜率，夹在前 {p} 个之间。"),
                (2.0 ** (-8.0 * j / (2 * p)), f"这是 {2 * p} 个头那组的第 {j} 个斜率；要隔一个取一个（第 1、3、5… 个），"
                                              f"第 {j} 个补上的头取那组的第 {2 * j - 1} 个：2^(−{exponent:g})。"),
                (2.0 ** (-8.0 * h / (2 * p)), f"这是 {2 * p} 个头那组的第 {h} 个斜率；补上的第 {j} 个头取那组的第 {2 * j - 1} 个"
                                              f"（隔一个取一个），指数是 8·{2 * j - 1}/{2 * p} = {exponent:g}。"),
            ]
    for sign in (-1.0, 1.0):
        slips.append((sign * exponent, f"这是指数 {sign * exponent:g}，不是斜率：斜率是 2 的这个次方，"
                                       f"s_{h} = 2^(−{exponent:g}) = {right:.6g}。"))
    slips.append((2.0 ** (-exponent / 8), f"指数里少了 8：这是 2^(−{exponent / 8:g})。"))
    slips.append((-right, "斜率 s_h 是正数；加到分数上的偏置是 −s_h·|k|，负号在偏置里。"))
    rule = (f"s_h = 2^(−8h/H)，H = {num_heads}" if power_of_2 else
            f"H = {num_heads} 不是 2 的幂：前 {p} 个头用 2^(−8h/{p})，其余从 {2 * p} 个头的斜率里隔一个取一个")
    return grade(answer, right, slips=slips,
                 expected="答案应是一个数，例如 0.25 或 2 ** -2。", ok=f"s_{h} = 2^(−{exponent:g}) = {right:.6g}。",
                 wrong=f"和第 {h} 个头的斜率对不上。{rule}；第 {h} 个头的指数是 −{exponent:g}。")


def check_alibi_bias(answer, h: int, num_heads: int, m: int, n: int, causal: bool = True) -> Verdict:
    """Check one ALiBi bias entry: head h (1-based) of H, query position m, key position n.

    Causal form (the paper's decoder): ``-s_h (m - n)`` for n <= m and ``-inf`` (masked) for
    n > m; symmetric form: ``-s_h |n - m|``. Recognises a positive sign, the slope of the
    neighbouring head, a forgotten slope, a forgotten distance and masking a past key.
    """
    num_heads = check_int("num_heads", num_heads, 1, 1024)
    h = check_int("h", h, 1, num_heads)
    m = check_int("m", m, 0, 10**6)
    n = check_int("n", n, 0, 10**6)
    slopes = alibi_slopes(num_heads)
    s = float(slopes[h - 1])
    dist = abs(n - m)
    masked = bool(causal) and n > m
    right = -math.inf if masked else -s * dist
    form = f"−s_{h}·(m − n)" if causal else f"−s_{h}·|n − m|"
    plus_inf = [False, "偏置不会是 +inf：ALiBi 只扣分（≤ 0），被遮住的位置是 −inf。"]
    if masked:
        ok = f"n = {n} > m = {m}：key 在 query 的未来，被因果掩码挡住，偏置是 −inf（softmax 后权重为 0）。"
        return grade(answer, None, read="number", expected="答案应是一个数，例如 -0.5。",
                     infinite={"neg": [True, ok], "pos": plus_inf}, ok=ok,
                     wrong=f"n = {n} > m = {m}：key 在 query 的未来。因果掩码把未来挡住，偏置是 −inf（写 float('-inf')）。")
    minus_inf = [False, f"−inf 只给被遮住的未来 key（n > m）；这里 n = {n} ≤ m = {m}，key 在过去或就是自己，"
                        f"偏置是有限的数 {form}。"]
    slips = [(s * dist, f"符号反了：ALiBi 是扣分，偏置 = −s_{h}·{dist} = {right:g}，离得越远分数越低。")]
    if h > 1:
        slips.append((-float(slopes[h - 2]) * dist, f"这是用第 {h - 1} 个头的斜率 {slopes[h - 2]:g} 算的（像是把头从 0 开始数了）；"
                                                   f"第 {h} 个头的斜率是 {s:g}。"))
    if h < num_heads:
        slips.append((-float(slopes[h]) * dist,
                      f"这是用第 {h + 1} 个头的斜率 {slopes[h]:g} 算的；h 从 1 开始数，第 {h} 个头的斜率是 {s:g}。"))
    slips += [(-float(dist), f"只算了距离 {dist}，忘了乘斜率 s_{h} = {s:g}。"),
              (-s, f"这是 −s_{h} 本身：忘了乘距离 {dist}（query 在 {m}、key 在 {n}）。"),
              (-s * (m + n), f"这是 −s_{h}·{m + n}：距离是两个位置之差 |n − m| = {dist}，不是和。")]
    return grade(answer, right, slips=slips,
                 infinite={"neg": minus_inf, "pos": plus_inf},
                 expected="答案应是一个数，例如 -0.5。", ok=f"{form} = −{s:g} × {dist} = {right:g}。",
                 wrong=f"偏置 = {form}：第 {h} 个头（H = {num_heads}）的斜率 s_{h} = {s:g}，距离 {dist}。")


def check_alibi_start(answer, seq_len: int, train_lengths=(4, 8)) -> Verdict:
    """The smallest biter position ``start`` in a sentence of ``seq_len`` tokens whose distance
    to the final 。 (``seq_len - 1 - start``) occurred in training sentences of ``train_lengths``.

    In training the biter is at most ``hi - 1`` tokens before the 。 (start 0 in the longest
    sentence), so the answer is ``seq_len - 1 - (hi - 1) = seq_len - hi``. Recognises putting
    the 。 at position seq_len, answering the distance, the training's largest start
    (absolute position), and the test sentence's largest start.
    """
    from ..task.data import MAX_LENGTH

    lo, hi = check_lengths("train_lengths", train_lengths, 4, MAX_LENGTH)
    seq_len = check_int("seq_len", seq_len, hi + 1, 32)
    max_dist = hi - 1                       # start 0 in a sentence of hi tokens
    right = seq_len - 1 - max_dist
    slips = one_slip_per_value([
        (right + 1, f"「。」在最后一个位置 {seq_len - 1}（位置从 0 数），不是 {seq_len}；"
                    f"距离 = {seq_len - 1} − start。"),
        (max_dist, f"{max_dist} 是训练时咬人者到「。」的最大距离；题目问的是长度 {seq_len} 的句子里，"
                   f"距离不超过 {max_dist} 的最小 start。"),
        (hi - 4, f"{hi - 4} 是训练时咬人者最靠后的绝对位置：那是正弦编码的「尺子」。ALiBi 模型看的是到「。」的距离。"),
        (seq_len - 4, f"{seq_len - 4} 是长度 {seq_len} 里咬人者最靠后的位置（最大的 start）；题目问最小的那个。"),
    ], keep="last")
    if seq_len != 16:
        slips.append((16 - hi, f"这是长度 16 的答案；这里句长是 {seq_len}，「。」在位置 {seq_len - 1}。"))
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数（位置从 0 开始数）。",
                 ok=f"start = {right} … {seq_len - 4}：到「。」（位置 {seq_len - 1}）的距离 "
                    f"{max_dist} … 3，训练里都出现过（训练时最远是 {max_dist}）。",
                 wrong=f"到「。」的距离 = {seq_len - 1} − start，训练中最大是 {max_dist}；"
                       f"解 {seq_len - 1} − start ≤ {max_dist}。")
