"""Drill: ALiBi's head slopes for any head count, the authors' recipe for a count that is not a
power of 2 included (``alibi_slopes``)."""
from __future__ import annotations

import math

import numpy as np

from ...alibi import alibi_slopes
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, fmt, run_drill
from ..verdict import Verdict


def _plain(num_heads):
    """``2^(−8h/H)`` for every H (no recipe for a count that is not a power of 2)."""
    return 2.0 ** (-8.0 * np.arange(1, num_heads + 1) / num_heads)


def _consecutive_extras(num_heads):
    p = 1 << (num_heads.bit_length() - 1)
    extra = 2.0 ** (-8.0 * np.arange(1, num_heads - p + 1) / (2 * p))
    return np.concatenate([alibi_slopes(p), extra])


def _next_power(num_heads):
    up = 1 << (num_heads - 1).bit_length()
    return alibi_slopes(up)[:num_heads]


SLIPS = (
    Slip("no_recipe", _plain,
         "头数不是 2 的幂时直接用了 2^(−8h/H)。作者的做法：取不超过 H 的最大的 2 的幂 P，先放 P 个头的斜率 "
         "2^(−8h/P)（h = 1 … P），再从 2P 个头的斜率 2^(−8h/(2P)) 里隔一个取一个（h = 1, 3, 5, …），补够 H 个。"),
    Slip("consecutive_extras", _consecutive_extras,
         "补上的斜率要从 2P 个头的斜率里隔一个取（h = 1, 3, 5, …，正好落在前 P 个斜率之间）；你取的是连续的 "
         "h = 1, 2, 3, …，其中一半和前 P 个重复。"),
    Slip("from_zero", lambda h: 2.0 ** (-8.0 * np.arange(h) / h),
         "头的编号从 0 数了：第一个头的斜率是 2^(−8/H)（8 个头时是 1/2），不是 2^0 = 1。"),
    Slip("next_power", _next_power,
         "用了比 H 大的 2 的幂：作者取的是不超过 H 的最大的 2 的幂 P，多出来的 H − P 个斜率从 2P 个头的斜率里隔一个取。"),
    Slip("sorted", lambda h: np.sort(alibi_slopes(h))[::-1],
         "斜率的值对了，顺序不对：作者的代码先放 P 个头的斜率，再接上补的那几个，不排序（头的编号和斜率一一对应，"
         "BLOOM 等检查点按这个顺序训练）。"),
)


def _where(case, got, expected) -> str:
    got, expected = got[0], expected[0]
    h = first_difference(got, expected, case)[0]
    exponent = lambda s: f"2^(−{fmt(-math.log2(s))})" if s > 0 else fmt(s)
    return (f"第 h = {h + 1} 个头（从 1 数）的斜率是 {fmt(got[h])} = {exponent(float(got[h]))}，"
            f"应为 {fmt(expected[h])} = {exponent(float(expected[h]))}")


ALIBI_SLOPES = Drill(
    name="alibi_slopes",
    signature="alibi_slopes(num_heads)",
    reference=alibi_slopes,
    reference_name="pl.alibi_slopes",
    cases=lambda rng: [dict(num_heads=h) for h in (8, 4, 16, 12, 6, 1, 3, 24)],
    slips=SLIPS,
    where=_where,
    hint="先做 H 是 2 的幂：s_h = 2^(−8h/H)，h = 1 … H；再按作者的做法补齐其他 H。",
)


def check_drill_alibi_slopes(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``alibi_slopes(num_heads)`` against :func:`posenc.alibi.alibi_slopes`,
    naming the slips of :data:`SLIPS`."""
    return run_drill(ALIBI_SLOPES, fn, time_limit)
