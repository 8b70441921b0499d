"""``check_*`` for the relative-position family: T5 buckets, Shaw et al.'s table rows, and which
terms of the four-term score move with a position.
"""
from __future__ import annotations

import math

from ..distance import random_word_vectors
from ..relative_family import (
    TERM_LABELS,
    t5_sizes,
    absolute_score_terms,
    shaw_relative_index,
    t5_bucket_ranges,
    t5_relative_bucket,
    transformer_xl_demo_parameters,
    transformer_xl_score_terms,
)
from ..validate import bilingual, check_int, check_one_of
from .rule import grade, letter_rule, one_slip_per_value
from .verdict import Verdict


def _mode(bidirectional: bool) -> str:
    return "双向" if bidirectional else "因果"


def check_t5_bucket(answer, k: int, bidirectional: bool = True, num_buckets: int = 32,
                    max_distance: int = 128) -> Verdict:
    """Check T5's bucket of the offset ``k = n - m`` (:func:`t5_relative_bucket`).

    Recognises the direction flipped (the bucket of -k), the offset used as a bucket past
    max_exact, rounding instead of truncating, all buckets used for one direction in
    bidirectional mode, and the other mode's bucket.
    """
    k = check_int("k", k, -10**9, 10**9)
    bidirectional, half, max_exact, max_distance = t5_sizes(bidirectional, num_buckets, max_distance)
    right = t5_relative_bucket(k, bidirectional, num_buckets, max_distance)
    after = bidirectional and k > 0
    n = abs(k) if bidirectional else max(-k, 0)
    shift = f"k > 0，先加 {half}；" if after else ""
    if n < max_exact:
        how = f"{shift}δ = {n} < max_exact = {max_exact}，一个偏移一个桶：桶 = {f'{half} + ' if after else ''}{n}"
    elif n >= max_distance:
        how = f"{shift}δ = {n} ≥ max_distance = {max_distance}：这个方向的最后一个桶"
    else:
        x = math.log(n / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
        how = (f"{shift}δ = {n} ≥ max_exact = {max_exact}：{max_exact} + ⌊log({n}/{max_exact}) / "
               f"log({max_distance}/{max_exact}) × {half - max_exact}⌋ = {max_exact} + ⌊{x:.3f}⌋")
    slips = []          # earlier entries win when two slips give the same bucket
    if bidirectional and k != 0:
        slips.append((t5_relative_bucket(-k, True, num_buckets, max_distance),
                      f"这是 k = {-k} 的桶，方向反了：k = n − m（key 位置 − query 位置），k > 0 的 key 在 query 之后，"
                      f"用后一半的桶（编号加 {half}）；k < 0 用前一半。"))
    if n >= max_exact:
        slips += [(value, f"|k| = {n} 已经不小于 max_exact = {max_exact}：只有更近的偏移一个偏移一个桶，"
                          f"再远就按对数分桶，几个偏移共用一个桶。") for value in ({n, n + half} if after else {n})]
        if n < max_distance:
            x = math.log(n / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
            slips += [((half if after else 0) + min(max_exact + value, half - 1),
                       "参考实现把对数那一项截断取整（向 0 取整，.to(torch.long)），不是四舍五入或向上取整。")
                      for value in (round(x), math.ceil(x))]
    if bidirectional:
        alone = t5_relative_bucket(-n, False, num_buckets, max_distance) + (half if after else 0)
        slips.append((alone, f"双向时每个方向只有 num_buckets // 2 = {half} 个桶，max_exact = {max_exact}；"
                             f"这是把全部 {num_buckets} 个桶给一个方向算出来的。"))
    other = t5_relative_bucket(k, not bidirectional, num_buckets, max_distance)
    slips.append((other, f"这是{_mode(not bidirectional)}模式的桶；题目问的是{_mode(bidirectional)}模式。"))
    return grade(answer, right, read="int", slips=one_slip_per_value(slips),
                 expected="答案应是一个整数：桶的编号（从 0 开始）。",
                 ok=f"k = {k}（{_mode(bidirectional)}）落在桶 {right}：{how}"
                    f"{' = ' + str(right) if n < max_distance else f'，即桶 {right}'}。",
                 wrong=f"按参考实现一步步来：{how}（先算完再截断取整）。")


def check_t5_buckets_used(answer, side: str = "after", bidirectional: bool = True, num_buckets: int = 32,
                          max_distance: int = 128) -> Verdict:
    """How many buckets do the offsets on one side actually reach?

    ``side="after"``: keys after the query (k > 0); ``"before"``: k <= 0 (earlier keys and
    the query itself). Counted from :func:`t5_bucket_ranges`. Recognises counting the
    bucket no offset reaches, counting all the buckets, and counting only the exact ones.
    """
    if side not in ("after", "before"):
        raise ValueError(bilingual(f"side must be 'after' or 'before', got {side!r}", "side 只能是 'after' 或 'before'"))
    bidirectional, half, max_exact, max_distance = t5_sizes(bidirectional, num_buckets, max_distance)
    ranges = t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    on_side = [(b, lo, hi) for b, lo, hi in ranges if (hi > 0 if side == "after" else lo <= 0)]
    right = len(on_side)
    where = "k > 0（key 在 query 之后）" if side == "after" else "k ≤ 0（key 在 query 之前或就是它）"
    first, last = on_side[0][0], on_side[-1][0]
    exact = sum(1 for _, lo, hi in on_side if lo == hi and abs(lo) < max_exact)
    slips = [(num_buckets, f"{num_buckets} 是全部的桶；问的是 {where}这一侧。"),
             (exact, f"{exact} 只是一个偏移一个桶的那些（|k| < {max_exact}）；再远还有按对数分的桶。"),
             (len(ranges), f"{len(ranges)} 是两侧一共用到的桶。")]
    if bidirectional and side == "after":
        slips.append((half, f"k > 0 的桶编号从 {half} 起算，可桶 {half} 要 k > 0 且 |k| = 0，没有偏移能落进去："
                            f"实际从桶 {half + 1} 开始。"))
    if not bidirectional and side == "after":
        slips.append((0, "k > 0 虽然被掩码遮住，参考实现仍把它们都放进桶 0：用到 1 个桶。"))
    return grade(answer, right, read="int", slips=one_slip_per_value(slips, keep="last"), expected="答案应是一个整数：桶的个数。",
                 ok=f"{where}用到桶 {first} … {last}，共 {right} 个（{_mode(bidirectional)}，num_buckets = {num_buckets}）。",
                 wrong=f"先找 {where}的最小、最大桶编号，再看中间有没有空着的桶。")


def check_shaw_row(answer, m: int, n: int, max_relative: int) -> Verdict:
    """Which row of Shaw et al.'s ``(2*max_relative + 1, d)`` table does query m use for key n?

    The row is ``clip(n - m, ±max_relative) + max_relative`` (:func:`shaw_relative_index`).
    Recognises m - n instead of n - m, a missing clip, the offset given instead of the row
    (no ``+ max_relative``) and |n - m|.
    """
    m = check_int("m", m, 0, 100000)
    n = check_int("n", n, 0, 100000)
    max_relative = check_int("max_relative", max_relative, 0, 100000)
    size = max(m, n) + 1
    right = int(shaw_relative_index(size, size, max_relative)[m, n])
    k = n - m
    clipped = max(-max_relative, min(max_relative, k))
    extra = f"，裁剪到 {clipped}" if clipped != k else ""
    slips = [       # earlier entries win when two slips give the same number
        (max(-max_relative, min(max_relative, -k)) + max_relative,
         f"这是 m − n 的行：Shaw 等人用 key 位置减 query 位置，k = n − m = {k}。"),
        (k + max_relative, f"k = {k} 要先裁剪到 [−{max_relative}, {max_relative}]，表里只有 {2 * max_relative + 1} 行。"),
        (clipped, f"{clipped} 是裁剪后的偏移本身；行号还要加 {max_relative}（第 0 行是 k = −{max_relative}）。"),
        (abs(clipped), "偏移有正负：key 在 query 之前和之后用的是不同的行（不取绝对值）。"),
    ]
    return grade(answer, right, read="int", slips=one_slip_per_value(slips),
                 expected=f"答案应是一个整数：行号 0 … {2 * max_relative}。",
                 ok=f"k = n − m = {n} − {m} = {k}{extra}；行号 = {clipped} + {max_relative} = {right}。",
                 wrong=f"行号 = clip(n − m, −{max_relative}, {max_relative}) + {max_relative}。")


_POSITIONS_IN = {   # what each term contains, by scheme
    "absolute": {"a": (), "b": ("n",), "c": ("m",), "d": ("m", "n")},
    "transformer_xl": {"a": (), "b": ("m − n",), "c": (), "d": ("m − n",)},
}


def moving_terms(scheme: str = "absolute", vary: str = "m") -> set:
    """The terms (letters) that change when the query position m moves with the offset k fixed
    (``vary="m"``), or when k moves with m fixed (``vary="k"``), measured on the demo words
    and parameters of the figures.
    The answer :func:`check_moving_terms` checks (notebook 06_relative_family).
    """
    check_one_of("scheme", scheme, tuple(TERM_LABELS))
    check_one_of("vary", vary, ("m", "k"))
    x_q, x_key = random_word_vectors(2, 16)[:, None, :]
    p = transformer_xl_demo_parameters(16)
    pairs = [(30, 33), (47, 50)] if vary == "m" else [(30, 33), (30, 41)]   # (m, n)
    values = []
    for m, n in pairs:
        if scheme == "absolute":
            t = absolute_score_terms(x_q, x_key, p["w_q"], p["w_k_content"], [m], [n])
        else:
            t = transformer_xl_score_terms(x_q, x_key, p["w_q"], p["w_k_content"], p["w_k_position"],
                                           p["u"], p["v"], [m], [n])
        values.append({x: float(t[x][0, 0]) for x in "abcd"})
    return {x for x in "abcd" if abs(values[0][x] - values[1][x]) > 1e-9}


def check_moving_terms(answer, scheme: str = "absolute", vary: str = "m") -> Verdict:
    """Which of the four terms (a)-(d) change when ``vary`` moves (``"m"``: the query position,
    the offset k kept; ``"k"``: the offset, m kept)?

    ``answer`` is letters, e.g. ``"bcd"`` or ``["b", "d"]``; ``""`` (or 无, 没有, none) for none.
    An answer that is not letters is told how to write "none". The right set is
    measured (:func:`moving_terms`); the feedback names each letter picked or missed wrongly.
    """
    right = moving_terms(scheme, vary)
    moved = "m 挪动、k 不变（n = m + k 跟着挪）" if vary == "m" else "k 变、m 不变"
    names = TERM_LABELS[scheme]
    shown = "".join(sorted(right)) or "（一项也没有）"

    def described(x):
        pos = _POSITIONS_IN[scheme][x]
        return f"({x}) {names[x]} " + ("只含内容、不含位置" if not pos else "含 " + "、".join(pos))

    return letter_rule(right, "abcd", {x: described(x) for x in "abcd"}, none_words=NO_TERM_WORDS,
                       expected=f"答案应是 a 到 d 中的字母，例如 \"bd\"；{NO_TERM_HINT}",
                       praise=f"{moved}时变的是 {shown}：", extra=f"{moved}时它不变",
                       missing=f"{moved}时它会变").grade(answer)


#: Answers :func:`check_moving_terms` reads as "no term moves" (the empty set of letters).
NO_TERM_WORDS = ("", "无", "没有", "都不变", "一项也没有", "none")
NO_TERM_HINT = "如果你认为一项都不变，填空字符串 \"\"（写 \"无\" 也行）。"


#: The position schemes :func:`shift_invariance` compares: letter -> (name, notebook).
SHIFT_SCHEMES = {
    "a": ("正弦 PE 加到词向量上，再乘 W_q、W_k", "04"),
    "b": ("可学习位置表加到词向量上", "05"),
    "c": ("Shaw 等人的相对位置向量 a^K", "06"),
    "d": ("T5 的相对位置偏置", "06"),
    "e": ("RoPE", "07"),
    "f": ("ALiBi", "08"),
}


def shift_invariance(m: int = 3, n: int = 7, shift: int = 100, d_model: int = 16, seed: int = 0) -> dict:
    """Measure, for each scheme of :data:`SHIFT_SCHEMES`, whether the attention score of a query
    at m and a key at n stays the same when both move by ``shift`` (same contents, same weights).

    Returns ``{letter: (score at (m, n), score at (m + shift, n + shift))}``, from random
    contents, projections, tables (a learned position table, Shaw's a^K rows, T5's bucket
    biases) seeded by ``seed``.
    """
    import numpy as np

    from ..encoding import encode_positions
    from ..relative_family import shaw_relative_logits, t5_position_bias
    from ..alibi import alibi_bias
    from ..rope import rope

    m, n = check_int("m", m, 0, 1000), check_int("n", n, 0, 1000)
    shift = check_int("shift", shift, 1, 1000)
    length = max(m, n) + shift + 1
    rng = np.random.default_rng(check_int("seed", seed, 0))
    x_q, x_key = rng.normal(size=(2, d_model))
    w_q, w_k = rng.normal(size=(2, d_model, d_model)) / math.sqrt(d_model)
    q, key = x_q @ w_q, x_key @ w_k
    pairs = ((m, n), (m + shift, n + shift))

    def added(table):           # position vectors added to the words before the projections
        return [float(((x_q + table[a]) @ w_q) @ ((x_key + table[b]) @ w_k)) for a, b in pairs]

    shaw = shaw_relative_logits(np.tile(q, (length, 1)), np.tile(key, (length, 1)),
                                rng.normal(size=(9, d_model)), 4) * math.sqrt(d_model)
    t5 = t5_position_bias(rng.normal(size=(32, 1)), length)[0]
    alibi = alibi_bias(length, 8)[0]
    rotated = [float(rope(q[None], [a])[0] @ rope(key[None], [b])[0]) for a, b in pairs]
    return {
        "a": tuple(added(encode_positions(np.arange(length), d_model))),
        "b": tuple(added(rng.normal(size=(length, d_model)))),
        "c": tuple(float(shaw[a, b]) for a, b in pairs),
        "d": tuple(float(q @ key + t5[a, b]) for a, b in pairs),
        "e": tuple(rotated),
        "f": tuple(float(q @ key + alibi[a, b]) for a, b in pairs),
    }


def check_shift_invariance(answer) -> Verdict:
    """Which schemes of :data:`SHIFT_SCHEMES` give the same attention score when the query and
    the key both move by the same amount? ``answer`` is letters, e.g. ``"cd"``.

    The right set is measured (:func:`shift_invariance`); the feedback names each letter
    picked or missed wrongly, with its two measured scores and the notebook that shows why.
    """
    scores = shift_invariance()
    right = {x for x, (before, after) in scores.items() if abs(before - after) <= 1e-9 * max(1.0, abs(before))}

    def measured(x):
        name, notebook = SHIFT_SCHEMES[x]
        before, after = scores[x]
        return f"({x}) {name}：挪动前 {before:+.4f}，挪动后 {after:+.4f}（第 {notebook} 篇）"

    return letter_rule(right, "abcdef", {x: measured(x) for x in "abcdef"}, example="ce",
                       praise="分数只随 k = n − m 变的是 " + "、".join(sorted(right)) + "。",
                       extra="位置以绝对的 m、n 进入分数，整体挪动会变",
                       missing="位置只以 k = n − m 进入，整体挪动不变").grade(answer)
