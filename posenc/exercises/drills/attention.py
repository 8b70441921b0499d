"""Drill: causal scaled dot-product attention, the mask applied before the softmax
(``causal_attention``)."""
from __future__ import annotations

import math

import numpy as np

from ...attention import causal_mask, scaled_dot_product_attention
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, fmt_pair, run_drill
from ..verdict import Verdict


def _reference(q, key, value):
    return scaled_dot_product_attention(q, key, value, visible=causal_mask(q.shape[-2]))[0]


def _after_softmax(q, key, value):
    """Every key weighted by the softmax over all keys, the future ones then set to 0 (no
    renormalising)."""
    _, weights = scaled_dot_product_attention(q, key, value)
    return (weights * causal_mask(q.shape[-2])) @ value


def _zeros_for_future(q, key, value):
    """The future keys' scores set to 0 (``scores * mask``) instead of −inf."""
    scores = q @ np.swapaxes(key, -1, -2) / math.sqrt(q.shape[-1])
    return scaled_dot_product_attention(q, key, value, bias=np.where(causal_mask(q.shape[-2]), 0.0, -scores))[0]


def _over_queries(q, key, value):
    """The masked scores normalised along the queries (softmax over axis −2)."""
    _, by_key = scaled_dot_product_attention(key, q, key, visible=causal_mask(q.shape[-2]).T)
    return np.swapaxes(by_key, -1, -2) @ value


def _strict(q, key, value):
    """Each query sees only the keys strictly before it (the diagonal masked too): the first row
    has no key left, nan."""
    n = q.shape[-2]
    visible = causal_mask(n) & ~np.eye(n, dtype=bool)
    visible[0, 0] = True
    out = scaled_dot_product_attention(q, key, value, visible=visible)[0]
    out[..., 0, :] = np.nan
    return out


SLIPS = (
    Slip("mask_after_softmax", _after_softmax,
         "掩码放在了 softmax 之后：先对全部键做 softmax，再把未来的权重置 0，剩下的权重加起来不到 1。"
         "掩码要在 softmax 之前：未来的分数设成 −inf，softmax 给它们的权重正好是 0，其余的权重和为 1。"),
    Slip("zeros_for_future", _zeros_for_future,
         "未来的分数被设成了 0（scores * mask），不是 −inf：e^0 = 1，未来的键照样分到权重。要用 −inf"
         "（或者一个很大的负数）。"),
    Slip("future_visible", lambda q, key, value: scaled_dot_product_attention(q, key, value, visible=causal_mask(q.shape[-2]).T)[0],
         "掩码方向反了：查询 m 能看见的是键 n ≤ m（自己和之前的词，下三角）；你的是 n ≥ m，看见的是未来。"),
    Slip("no_mask", lambda q, key, value: scaled_dot_product_attention(q, key, value)[0],
         "没有掩码：每个查询都看见了全部的键。因果注意力里查询 m 只能看见键 n ≤ m。"),
    Slip("no_sqrt_d", lambda q, key, value: _reference(q * math.sqrt(q.shape[-1]), key, value),
         "分数没有除以 √d：scores = q·κ / √d。"),
    Slip("divided_by_d", lambda q, key, value: _reference(q / math.sqrt(q.shape[-1]), key, value),
         "分数除以了 d：要除以 √d（d 是 q、κ 的维数）。"),
    Slip("softmax_over_queries", _over_queries,
         "softmax 沿错了轴：每个查询的权重在它能看见的键上归一（最后一维，axis = −1）；你的是沿查询那一维归一。"),
    Slip("diagonal_masked", _strict,
         "对角线也被遮住了：查询 m 能看见键 n ≤ m，包括它自己。遮住自己后第一个词一个键都看不见，softmax 得 nan。"),
)


def _where(case, got, expected) -> str:
    got, expected = got[0], expected[0]
    idx = first_difference(got, expected, case)
    lead, m, j = idx[:-2], idx[-2], idx[-1]
    mine, right = fmt_pair(got[idx], expected[idx])
    head = f"第 {', '.join(map(str, lead))} 个头里，" if lead else ""
    sees = "只能看见键 0，也就是它自己：输出就是 value 的第 0 行" if m == 0 else f"能看见键 0 … {m}"
    return f"{head}位置 m = {m} 的查询（{sees}）的输出第 {j} 维是 {mine}，应为 {right}"


def _cases(rng) -> list[dict]:
    shapes = (((3, 4), (3, 2), np.float64), ((2, 5, 6), (2, 5, 3), np.float64), ((6, 8), (6, 3), np.float64),
              ((5, 4), (5, 4), np.float32))
    return [dict(q=rng.normal(size=qk).astype(dtype), key=rng.normal(size=qk).astype(dtype),
                 value=rng.normal(size=v).astype(dtype)) for qk, v, dtype in shapes]


CAUSAL_ATTENTION = Drill(
    name="causal_attention",
    signature="causal_attention(q, key, value)",
    reference=_reference,
    reference_name="课程的因果注意力（posenc/attention.py 的 scaled_dot_product_attention 加 causal_mask）",
    cases=_cases,
    slips=SLIPS,
    where=_where,
    hint="scores = q·κᵀ/√d；键 n > m 的分数设成 −inf；沿最后一维 softmax；再乘 v。",
)


def check_drill_causal_attention(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``causal_attention(q, key, value)`` against the library's scaled dot-product
    attention with :func:`posenc.attention.causal_mask`, naming the slips of :data:`SLIPS`."""
    return run_drill(CAUSAL_ATTENTION, fn, time_limit)
