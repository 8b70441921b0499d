"""Drill: T5's relative-position bucket, bidirectional and causal (``t5_bucket``)."""
from __future__ import annotations

import numpy as np

from ...relative_family import t5_relative_bucket
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, run_drill
from ..verdict import Verdict


def _variant(rel, bidirectional, num_buckets, max_distance, *, halve=True, cap=True, log=None,
             rounding=np.trunc, causal_abs=False):
    """T5's bucket with one step done wrong (a slip), step by step as the reference does it.
    ``log(n, max_exact, max_distance)`` is the fraction of the log-spaced buckets n reaches."""
    rel = np.asarray(rel, dtype=np.int64)
    buckets = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        half = num_buckets // 2 if halve else num_buckets
        buckets += (rel > 0) * (num_buckets // 2)
        n = np.abs(rel)
    else:
        half = num_buckets
        n = np.abs(rel) if causal_abs else -np.minimum(rel, 0)
    max_exact = half // 2
    log = log or (lambda m, e, top: np.log(m / e) / np.log(top / e))
    with np.errstate(divide="ignore", invalid="ignore"):
        far = max_exact + rounding(log(np.maximum(n, max_exact).astype(float), max_exact, max_distance)
                                   * (half - max_exact)).astype(np.int64)
    if cap:
        far = np.minimum(far, half - 1)
    return buckets + np.where(n < max_exact, n, far)


SLIPS = (
    Slip("direction", lambda k, bi, nb, md: t5_relative_bucket(-np.asarray(k), bi, nb, md),
         "方向反了：relative_position 是 k = n − m（键的位置减查询的位置）。双向时 k > 0（键在查询之后）加上 "
         "num_buckets // 2；因果时只数往回看的距离 max(−k, 0)，k ≥ 0 都进 0 号桶。"),
    Slip("no_halving", lambda k, bi, nb, md: _variant(k, bi, nb, md, halve=False),
         "双向时没有把桶分成两半：每个方向只有 num_buckets // 2 个桶，精确桶和对数桶都在这一半里分，"
         "max_exact = (num_buckets // 2) // 2，最后一个桶是 num_buckets // 2 − 1（再加上方向的偏移）。"),
    Slip("no_cap", lambda k, bi, nb, md: _variant(k, bi, nb, md, cap=False),
         "远处没有封顶：距离到 max_distance 以外的都要进同一个（最后一个）桶，min(…, 桶数 − 1)。"),
    Slip("log_without_ratio",
         lambda k, bi, nb, md: _variant(k, bi, nb, md, log=lambda m, e, top: np.log(m) / np.log(top)),
         "对数里少除了 max_exact：对数桶从 max_exact 开始，比例是 log(n / max_exact) / log(max_distance / max_exact)。"),
    Slip("mixed_log_base",
         lambda k, bi, nb, md: _variant(k, bi, nb, md, log=lambda m, e, top: np.log2(m / e) / np.log(top / e)),
         "分子和分母的对数底不一样（一个 log2，一个自然对数）：两个对数的比值只有底相同时才与底无关。"),
    Slip("rounded", lambda k, bi, nb, md: _variant(k, bi, nb, md, rounding=np.round),
         "对数桶的下标要向下取整（参考实现用 .to(torch.long) 截断），不是四舍五入。"),
    Slip("causal_abs", lambda k, bi, nb, md: None if bi else _variant(k, bi, nb, md, causal_abs=True),
         "因果时用了 |k|：解码器只往回看，k > 0 的键（未来，本来就被掩掉）都进 0 号桶，距离是 max(−k, 0)。"),
)


def _where(case, got, expected) -> str:
    got, expected = got[0], expected[0]
    idx = first_difference(got, expected, case)
    k = int(np.asarray(case["relative_position"])[idx])
    side = "键在查询之后" if k > 0 else ("键就是查询自己" if k == 0 else "键在查询之前")
    return f"偏移 k = {k}（{side}，距离 {abs(k)}）的桶是 {int(got[idx])}，应为 {int(expected[idx])}"


def _cases(rng) -> list[dict]:
    return [
        dict(relative_position=np.arange(-10, 11), bidirectional=True, num_buckets=32, max_distance=128),
        dict(relative_position=np.arange(-200, 201, 9), bidirectional=True, num_buckets=32, max_distance=128),
        dict(relative_position=np.arange(-200, 201, 9), bidirectional=False, num_buckets=32, max_distance=128),
        dict(relative_position=rng.integers(-300, 301, size=15), bidirectional=True, num_buckets=16, max_distance=64),
        dict(relative_position=rng.integers(-60, 61, size=(3, 5)), bidirectional=False, num_buckets=8, max_distance=20),
    ]


T5_BUCKET = Drill(
    name="t5_bucket",
    signature="t5_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128)",
    reference=t5_relative_bucket,
    reference_name="pl.t5_relative_bucket",
    cases=_cases,
    slips=SLIPS,
    where=_where,
    hint="按顺序：方向（双向分两半）→ 距离 n → n < max_exact 一个距离一个桶 → 否则 "
         "max_exact + int(log(n/max_exact)/log(max_distance/max_exact)·(B − max_exact))，封顶 B − 1。",
)


def check_drill_t5_bucket(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``t5_bucket(relative_position, bidirectional, num_buckets, max_distance)``
    against :func:`posenc.relative_family.t5_relative_bucket`, naming the slips of :data:`SLIPS`."""
    return run_drill(T5_BUCKET, fn, time_limit)
