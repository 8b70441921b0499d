"""Drill: scaled RoPE frequencies for context extension, PI (``"linear"``), NTK-aware (``"ntk"``)
and YaRN (``"yarn"``: the ramp and the attention factor), as ``scaled_inv_freq``."""
from __future__ import annotations

import math

import numpy as np

from ...context import YARN_BETA_FAST, YARN_BETA_SLOW, rope_frequencies, yarn_paper_ramp, yarn_ramp
from ...encoding import frequencies
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, fmt, fmt_pair, run_drill
from ..verdict import Verdict


def _reference(d_model, base, rope_type, factor, train_len):
    return rope_frequencies(d_model, base, rope_type, factor, train_len=train_len)


def _only(kind, make):
    """A slip of one ``rope_type``: the other types are not this slip (None)."""
    return lambda d, b, t, s, length: make(d, b, s, length) if t == kind else None


def _blend(d, b, s, gamma):
    w = frequencies(d, b)
    return w * gamma + (w / s) * (1.0 - gamma)


def _yarn_attention(s):
    return 0.1 * math.log(s) + 1.0


def _unrounded_ramp(d, b, s, length):
    """γ with the correction range's ends left fractional (no floor / ceil)."""
    index = lambda turns: d * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(b))
    low, high = max(index(YARN_BETA_FAST), 0.0), min(index(YARN_BETA_SLOW), d - 1.0)
    return 1.0 - np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)


SLIPS = (
    Slip("pi_multiplied", _only("linear", lambda d, b, s, n: (frequencies(d, b) * s, 1.0)),
         "PI 把频率乘上了 s：位置插值是把位置压缩 s 倍（pos/s），即每一对的频率除以 s，转得更慢。"),
    Slip("ntk_without_exponent", _only("ntk", lambda d, b, s, n: (frequencies(d, b * s), 1.0)),
         "NTK-aware 的新 base 少了指数：base' = base·s^(d/(d−2))。只乘 s 时最慢的一对只慢了 "
         "s^((d−2)/d) 倍，不到 s 倍。"),
    Slip("ntk_inverted_exponent", _only("ntk", lambda d, b, s, n: (frequencies(d, b * s ** ((d - 2) / d)), 1.0)),
         "NTK-aware 的指数倒过来了：base' = base·s^(d/(d−2))，这样最慢的一对 (i = d/2 − 1) 正好慢 s 倍。"),
    Slip("yarn_ramp_reversed",
         _only("yarn", lambda d, b, s, n: (_blend(d, b, s, 1.0 - yarn_ramp(d, n, b)), _yarn_attention(s))),
         "YaRN 的斜坡方向反了：转得快的对（在原长度里转了 beta_fast = 32 圈以上，下标小）保持原频率（γ = 1），"
         "转不满 beta_slow = 1 圈的慢对（下标大）整个除以 s（γ = 0）。Hugging Face 代码里的 mask 是 1 − γ，"
         "方向和论文的 γ 相反。"),
    Slip("yarn_no_attention_factor",
         _only("yarn", lambda d, b, s, n: (_blend(d, b, s, yarn_ramp(d, n, b)), 1.0)),
         "YaRN 的注意力因子漏了：attention_factor = 0.1·ln(s) + 1（乘在 cos、sin 上，logits 放大它的平方）。"),
    Slip("yarn_log10",
         _only("yarn", lambda d, b, s, n: (_blend(d, b, s, yarn_ramp(d, n, b)), 0.1 * math.log10(s) + 1.0)),
         "YaRN 的注意力因子用了 log10：是自然对数，0.1·ln(s) + 1。"),
    Slip("yarn_paper_ramp",
         _only("yarn", lambda d, b, s, n: (_blend(d, b, s, yarn_paper_ramp(d, n, b)), _yarn_attention(s))),
         "这是 YaRN 论文的斜坡：γ 对每一对在原长度里转的圈数 r 线性。课程和 Hugging Face 的参考实现对下标 i 线性"
         "（即对 log r 线性），两端的下标 low、high 分别向下、向上取整。"),
    Slip("yarn_unrounded",
         _only("yarn", lambda d, b, s, n: (_blend(d, b, s, _unrounded_ramp(d, b, s, n)), _yarn_attention(s))),
         "斜坡两端的下标没有取整：low = floor(转 beta_fast 圈的那一对的下标)，high = ceil(转 beta_slow 圈的那一对的下标)"
         "（Hugging Face 的 find_correction_range）。"),
)


def _where(case, got, expected) -> str:
    d, b, kind, s, length = case.values()
    w = frequencies(d, b)
    if not np.allclose(got[0], expected[0], rtol=1e-6, atol=1e-12):
        i = first_difference(got[0], expected[0], case)[0]
        mine, right = fmt_pair(got[0][i], expected[0][i])
        text = f'rope_type = "{kind}"：第 i = {i} 对的频率是 {mine}，应为 {right}（原频率 w_{i} = {fmt(w[i])}'
        if kind == "linear":
            return text + f"，PI 把每一对除以 s = {fmt(s)}）"
        if kind == "ntk":
            return text + f"，NTK-aware 的 base' = base·s^(d/(d−2)) = {fmt(b * s ** (d / (d - 2)))}）"
        gamma = lambda v: (v - w[i] / s) / (w[i] - w[i] / s)
        mine_g, right_g = fmt_pair(gamma(got[0][i]), gamma(expected[0][i]))
        return text + f"；合成系数 γ_{i}：你的 {mine_g}，应为 {right_g}，γ = 1 保留原频率，γ = 0 除以 s）"
    mine, right = fmt_pair(got[1], expected[1])
    rule = f"0.1·ln({fmt(s)}) + 1" if kind == "yarn" else "1（只有 YaRN 调注意力的温度）"
    return f'rope_type = "{kind}"：attention_factor 是 {mine}，应为 {rule} = {right}'


def _cases(rng) -> list[dict]:
    rows = [(8, 10000.0, "linear", 4.0, 2048), (8, 10000.0, "ntk", 4.0, 2048), (64, 10000.0, "yarn", 4.0, 2048),
            (16, 10000.0, "linear", 2.5, 512), (32, 500000.0, "ntk", 8.0, 8192), (128, 10000.0, "yarn", 16.0, 4096),
            (32, 500000.0, "yarn", 8.0, 8192)]
    return [dict(zip(("d_model", "base", "rope_type", "factor", "train_len"), row)) for row in rows]


SCALED_FREQUENCIES = Drill(
    name="scaled_inv_freq",
    signature="scaled_inv_freq(d_model, base, rope_type, factor, train_len)",
    reference=_reference,
    reference_name="pl.rope_frequencies",
    cases=_cases,
    slips=SLIPS,
    outputs=("inv_freq", "attention_factor"),
    where=_where,
    hint="三种都从 w_i = base^(−2i/d) 出发：linear 除以 s；ntk 换 base' = base·s^(d/(d−2))；yarn 逐对 "
         "γ·w + (1 − γ)·w/s，γ 由 beta_fast = 32、beta_slow = 1 圈定出的下标斜坡给出，外加 attention_factor。",
)


def check_drill_scaled_frequencies(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``scaled_inv_freq(d_model, base, rope_type, factor, train_len)`` (returning
    ``(inv_freq, attention_factor)``) against :func:`posenc.context.rope_frequencies`, naming the
    slips of :data:`SLIPS`."""
    return run_drill(SCALED_FREQUENCIES, fn, time_limit)
