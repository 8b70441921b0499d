"""``check_*`` for stretching RoPE's context: turns per context, NTK-aware base, YaRN's
attention factor, which pairs meet angles training never produced.
"""
from __future__ import annotations

import math

from ..context import rope_angle_coverage, rotations_per_context
from ..encoding import frequencies
from ..validate import bilingual, check_base, check_d_model, check_int, check_real
from .rule import grade, letter_rule
from .verdict import Verdict


def check_rotations(answer, i: int, d_model: int, length: int, base: float = 10000.0) -> Verdict:
    """Check how many full turns pair ``i`` makes over ``length`` positions: ``r_i = L·w_i / 2π``.

    Correct by the precision rule (3 significant digits, :func:`agrees`); a coarser rounding
    is named as such. Recognises the angle in radians (forgot the 2π), the wavelength
    divided by L (inverted), and ``i`` instead of ``2i`` in the exponent.
    """
    d_model = check_d_model(d_model)
    i = check_int("i", i, 0, d_model // 2 - 1)
    length = check_int("length", length, 1)
    base = check_base(base)
    w = float(frequencies(d_model, base)[i])
    right = float(rotations_per_context(d_model, length, base)[i])
    never = "不到一圈：训练中它从没转满一圈，更长的输入会带来没见过的角度。" if right < 1 else \
        "超过一圈：训练中它已经见过所有角度。"
    slips = [
        (length * w, f"这是转过的弧度 L·w_{i}，还要除以一圈的 2π。"),
        ((2 * math.pi / w) / length, f"这是波长除以 L（2π/w_{i} ÷ L），正好倒过来了：圈数 = L ÷ 波长。"),
        (length * base ** (-i / d_model) / (2 * math.pi), "指数是 −2i/d_model，这是用 −i/d_model 算的。"),
    ]
    return grade(answer, right, slips=slips,
                 expected="答案应是一个数（圈数，可以是小数）。",
                 ok=f"r_{i} = L·w_{i}/2π = {length} × {w:.6g} / 2π = {right:.4g} 圈，{never}",
                 wrong=f"w_{i} = base^(−2i/d) = {base:g}^(−{2 * i}/{d_model})，圈数 = L·w_{i} / 2π。")


def check_ntk_base(answer, d_model: int, factor, base: float = 10000.0) -> Verdict:
    """Check the base NTK-aware scaling uses for a factor s: ``base · s^(d/(d-2))``.

    Correct by the precision rule (3 significant digits, :func:`agrees`); a coarser rounding
    is named as such. Recognises ``base·s`` (no exponent), the exponent upside down
    ``(d-2)/d``, and the base raised instead of multiplied.
    """
    d_model = check_d_model(d_model)
    if d_model < 4:
        raise ValueError(bilingual("d_model must be >= 4", "d_model 必须 >= 4"))
    factor = check_real("factor", factor, greater_than=1.0)
    base = check_base(base)
    expo = d_model / (d_model - 2)
    right = base * factor ** expo
    slips = [
        (base * factor, f"这是 base × ρ，少了指数 d/(d−2)：那样最慢的一对只慢 ρ^((d−2)/d) 倍，不到 {factor:g} 倍。"),
        (base * factor ** (1 / expo), "指数倒过来了：是 d/(d−2)（略大于 1），不是 (d−2)/d。"),
        (base ** factor, "这是 base 的 ρ 次方；NTK-aware 是把 base 乘以 ρ^(d/(d−2))。"),
    ]
    return grade(answer, right, slips=slips, expected="答案应是一个数（新的 base）。",
                 ok=f"base' = {base:g} × {factor:g}^({d_model}/{d_model - 2}) = {right:.6g}："
                    f"最慢的一对正好慢 {factor:g} 倍，最快的一对不变。",
                 wrong=f"base' = base · ρ^(d/(d−2))，这里 d/(d−2) = {d_model}/{d_model - 2}。")


def check_yarn_attention_factor(answer, factor) -> Verdict:
    """Check YaRN's attention factor for a scale factor s: ``0.1·ln(s) + 1``.

    Correct by the precision rule (3 significant digits or 4 decimals, :func:`agrees`: 1.208
    and 1.2079 are both right); a coarser rounding is named as such. Recognises log10 and log2 instead of the natural log, the
    square (what the logits are multiplied by) and forgetting the +1.
    """
    factor = check_real("factor", factor, greater_than=1.0)
    right = 0.1 * math.log(factor) + 1.0
    slips = [
        (0.1 * math.log10(factor) + 1.0, "这里用了以 10 为底的对数；公式里是自然对数 ln。"),
        (0.1 * math.log2(factor) + 1.0, "这里用了以 2 为底的对数；公式里是自然对数 ln。"),
        (right ** 2, "这是它的平方，也就是 logits 被放大的倍数；注意力因子本身乘在 cos、sin 上（q 和 κ 各乘一次）。"),
        (0.1 * math.log(factor), "少了 + 1：没有缩放（ρ = 1）时因子应当是 1。"),
    ]
    return grade(answer, right, slips=slips, expected="答案应是一个数，例如 1.1。",
                 ok=f"0.1·ln({factor:g}) + 1 = {right:.4f}；q 和 κ 都乘它，logits 乘它的平方 {right ** 2:.4f}。",
                 wrong="注意力因子 = 0.1·ln(ρ) + 1（自然对数）。")


def check_unseen_pairs(answer, d_model: int, train_len: int, target_len: int,
                       base: float = 10000.0) -> Verdict:
    """Check how many pairs plain RoPE turns past anything they turned in training.

    The right count is ``rope_angle_coverage(...).unseen.sum()``: pairs that never complete a
    turn in ``train_len`` positions and turn further at ``target_len``. Recognises counting
    every pair, counting only the pairs that pass a full turn at the target, and the pairs
    that already completed a turn in training.
    """
    d_model = check_d_model(d_model)
    train_len = check_int("train_len", train_len, 2)
    target_len = check_int("target_len", target_len, train_len + 1)
    cov = rope_angle_coverage(d_model, train_len, target_len, base)
    right = int(cov.unseen.sum())
    pairs = d_model // 2
    slips = [
        (pairs, f"这是全部 {pairs} 对；训练中已经转满一圈的快的对见过所有角度，不会出问题。"),
        (int(cov.full_turn.sum()), f"这是训练中已经转满一圈的对数（{int(cov.full_turn.sum())}）：它们恰恰没问题。"),
        (int((cov.unseen & (cov.target_angle >= 2 * math.pi)).sum()),
         "这只数了到目标长度才转满一圈的对；转不满一圈、但比训练时转得更远的对，也在遇到没见过的角度。"),
    ]
    return grade(answer, right, read="int", slips=slips,
                 expected="答案应是一个整数（有几对）。",
                 ok=f"{right} 对：它们的波长超过训练长度（训练中最大转角 (L−1)·w_i < 2π），"
                    f"到了长度 {target_len} 会转到训练中没到过的角度。",
                 wrong="对每一对比较训练中的最大转角 (L−1)·w_i 和 2π：不到一圈的对，在更长的输入上会转得比训练时更远。")


#: The context-extension choices :func:`fast_pair_slowdowns` compares: letter -> name.
EXTENSION_CHOICES = {"a": "位置插值 PI", "b": "NTK-aware", "c": "YaRN",
                     "d": "不改旧模型，用 base = 500000 从头预训练一个新模型"}


def fast_pair_slowdowns(d_model: int = 128, factor: float = 4.0, train_len: int = 4096) -> dict:
    """How much each choice of :data:`EXTENSION_CHOICES` slows pair 0 (the fastest) and the
    slowest pair: ``{letter: (w_0 / w_0', w_last / w_last')}`` (1.0 = untouched), measured with
    :func:`rope_frequencies`.
    """
    from ..context import rope_frequencies

    plain = rope_frequencies(d_model)[0]
    scaled = {
        "a": rope_frequencies(d_model, rope_type="linear", factor=factor, train_len=train_len)[0],
        "b": rope_frequencies(d_model, rope_type="ntk", factor=factor, train_len=train_len)[0],
        "c": rope_frequencies(d_model, rope_type="yarn", factor=factor, train_len=train_len)[0],
        "d": rope_frequencies(d_model, base=500000.0)[0],
    }
    return {x: (float(plain[0] / f[0]), float(plain[-1] / f[-1])) for x, f in scaled.items()}


def check_fast_pair_kept(answer) -> Verdict:
    """Which choices of :data:`EXTENSION_CHOICES` leave the fastest pair (i = 0) exactly as it
    was? ``answer`` is letters, e.g. ``"ab"``. The right set is measured
    (:func:`fast_pair_slowdowns`); the feedback names each wrong or missed letter with its
    measured slowdown.
    """
    slow = fast_pair_slowdowns()
    right = {x for x, (fast, _) in slow.items() if abs(fast - 1.0) < 1e-12}

    def change(ratio):
        return "不变" if abs(ratio - 1.0) < 1e-9 else f"变成原来的 1/{ratio:.3g}"

    def measured(x):
        fast, last = slow[x]
        return f"({x}) {EXTENSION_CHOICES[x]}：第 0 对的 w {change(fast)}，最慢一对的 w {change(last)}"

    return letter_rule(right, "abcd", {x: measured(x) for x in "abcd"}, example="bd",
                       praise="最快的一对原样保留：" + "、".join(sorted(right)) + "（第 09 篇）。",
                       extra="它连最快的一对也一起放慢了", missing={x: _why_kept(x) for x in "abcd"}).grade(answer)


def _why_kept(x: str) -> str:
    """Why choice ``x`` leaves pair 0 alone (the feedback for a missed letter)."""
    if x == "c":
        turns = 4096 / (2 * math.pi)          # r_0 = L·w_0 / 2π with w_0 = 1
        return (f"YaRN 按每一对在原训练长度内转的圈数分段：第 0 对在 4096 个位置里转了 r_0 = 4096/2π ≈ {turns:.0f} 圈，"
                f"远多于 β_fast = 32 圈，这样的对 YaRN 原样保留（第 09 篇 2.3 节）")
    if x == "b":
        return "NTK-aware 只换 base，而 w_0 = base'⁰ = 1 与 base 无关，这一对没动"
    return "w_0 = base⁰ = 1 与 base 无关：换一个更大的 base 从头训练，这一对的频率也还是 1"


def check_beta_ratio(answer, d_model: int, factor) -> Verdict:
    """β-base reading of NTK-aware: by how much must β = base^(2/d) grow so that the highest
    pair (digit i = d/2 − 1) is ``factor`` times slower? ``factor^(2/(d−2))``.

    Recognises ``factor^(2/d)`` (the highest digit taken as i = d/2), the base's factor
    ``factor^(d/(d−2))``, ``factor`` itself (every digit slowed, PI) and ``1/factor``.
    """
    d_model = check_d_model(d_model)
    if d_model < 4:
        raise ValueError(bilingual(f"d_model must be at least 4, got {d_model}", "d_model 至少是 4"))
    factor = check_real("factor", factor, greater_than=1.0)
    right = factor ** (2 / (d_model - 2))
    top = d_model // 2 - 1
    slips = [
        (factor ** (2 / d_model), f"这是 {factor:g}^(2/{d_model})：最高位是第 d/2 − 1 = {top} 位，不是第 {d_model // 2} 位。"),
        (factor ** (d_model / (d_model - 2)), f"这是 base 的倍数 {factor:g}^(d/(d−2))；β = base^(2/d)，还要开 d/2 次方。"),
        (factor, "这是把每一位都放慢同样的倍数（PI）；NTK-aware 只让最高位慢这么多，个位不变。"),
        (1 / factor, "方向反了：β 要变大，数位才变慢。"),
    ]
    return grade(answer, right, slips=slips,
                 expected="答案应是一个数（β'/β，保留 3 位有效数字或 4 位小数）。",
                 ok=f"最高位 i = {top}：(β'/β)^{top} = {factor:g}，β'/β = {factor:g}^(1/{top}) = {right:.5f}；"
                    f"base'/base = (β'/β)^{d_model // 2} = {factor:g}^({d_model}/{d_model - 2})。",
                 wrong=f"第 i 位的角度是 n/β^i；要让 i = {top} 慢 {factor:g} 倍：(β'/β)^{top} = {factor:g}。")
