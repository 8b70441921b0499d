"""How large RoPE's base must be for a context length (Men et al. 2024, "Base of RoPE Bounds
Context Length", arXiv:2405.14591): the margin ``B(m) = Σ_i cos(m·w_i)`` a key similar to the
query keeps over a random key at offset m, and the bases that keep it ≥ 0 at every offset
m = 0 … seq_len.

The bases that pass are not one interval: B(m) is a sum of cosines whose lowest dip over
m ≤ seq_len moves erratically with the base, so a base slightly above a passing one can fail
again. :func:`rope_base_bounds` therefore reports two numbers: the smallest passing base and
the base above which every base passes, both found on a geometric grid (steps of ``step``)
and refined by bisection, the second checked on the grid up to ``span`` times the first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .encoding import frequencies
from .slow import takes_seconds
from .validate import bilingual, check_d_model, check_int, check_real

_CHUNK = 4096            # offsets per block of rope_base_margin
_MAX_BASE = 1e15


def rope_base_margin(seq_len: int, d_model: int, base: float) -> tuple[float, int]:
    """``(min B(m), argmin m)`` over the offsets m = 0 … seq_len, in float64, with
    ``B(m) = Σ_i cos(m·w_i)`` and ``w_i = base^(−2i/d_model)`` (notebook 04's ``PE·PE`` curve).
    """
    seq_len = check_int("seq_len", seq_len, 1, 1 << 20)
    w = frequencies(check_d_model(d_model), check_real("base", base, greater_than=1.0))
    best, at = math.inf, 0
    for start in range(0, seq_len + 1, _CHUNK):
        m = np.arange(start, min(seq_len + 1, start + _CHUNK), dtype=np.float64)
        b = np.cos(np.multiply.outer(m, w)).sum(axis=1)
        k = int(b.argmin())
        if b[k] < best:
            best, at = float(b[k]), start + k
    return best, at


def _passes(seq_len: int, d_model: int, base: float) -> bool:
    """``B(m) ≥ 0`` for every m = 0 … seq_len, in float64. The first 32 offsets directly (a base
    far too small is refused there at once); all of them by the angle-sum identity
    ``B(m0 + j) = Σ_i cos(m0·w_i) cos(j·w_i) − sin(m0·w_i) sin(j·w_i)`` with m0 on a stride J ≈
    √seq_len and j < J: one product of a (seq_len/J × pairs) and a (pairs × J) matrix, so a base
    costs about 4·√seq_len cosines per pair instead of seq_len."""
    w = frequencies(d_model, base)
    m = np.arange(min(32, seq_len + 1), dtype=np.float64)
    if np.cos(np.multiply.outer(m, w)).sum(axis=1).min() < 0:
        return False
    stride = math.isqrt(seq_len) + 1
    j = np.arange(stride, dtype=np.float64)
    m0 = np.arange(0, seq_len + 1, stride, dtype=np.float64)
    inner, outer = np.multiply.outer(w, j), np.multiply.outer(m0, w)
    # B(m0 + j); einsum, not @: a matrix product this small gains nothing from BLAS threads, and
    # on a busy machine their hand-offs cost ten times the product itself
    margin = (np.einsum("mi,ij->mj", np.cos(outer), np.cos(inner))
              - np.einsum("mi,ij->mj", np.sin(outer), np.sin(inner)))
    return not np.any(margin[(m0[:, None] + j[None, :]) <= seq_len] < 0)


def _first_passing(seq_len: int, d_model: int, start: float, step: float) -> float:
    """The first base ``start · step^k`` (k = 0, 1, …) that passes."""
    base = start
    while not _passes(seq_len, d_model, base):
        base *= step
        if base > _MAX_BASE:
            raise ValueError(bilingual(f"no base up to 1e15 keeps the margin >= 0 for seq_len = {seq_len}",
                                       "1e15 以内没有满足条件的 base"))
    return base


def base_passes(seq_len: int, d_model: int, base: float) -> bool:
    """Whether ``B(m) = Σ_i cos(m·w_i) ≥ 0`` at every offset m = 0 … seq_len for this base.
    """
    seq_len = check_int("seq_len", seq_len, 1, 1 << 20)
    d_model = check_d_model(d_model)
    if d_model < 4:
        raise ValueError(bilingual("d_model must be >= 4 (one pair turns at 1 rad per position whatever the base)",
                                   "d_model 必须 >= 4（只有一对时它每个位置都转 1 弧度，与 base 无关）"))
    return _passes(seq_len, d_model, check_real("base", base, greater_than=1.0))


def _boundary(seq_len: int, d_model: int, failing: float, passing: float, rtol: float) -> float:
    """A passing base within ``rtol`` of a fail → pass transition between the two (bisection)."""
    while passing / failing - 1 > rtol:
        mid = math.sqrt(failing * passing)
        if _passes(seq_len, d_model, mid):
            passing = mid
        else:
            failing = mid
    return passing


@dataclass(frozen=True)
class BaseBounds:
    """The bases that keep ``B(m) ≥ 0`` up to ``seq_len``, found on a grid of ratio ``step``.

    ``smallest``: the smallest passing base (the first passing grid point, its transition refined
    by bisection). ``all_pass``: every grid base from it up to ``checked_to`` passes, and the grid
    base just below it fails (also refined). ``failing``: the runs of failing grid bases between
    the two, as (first, last) pairs. A failing island narrower than one step can hide between grid
    points, so both numbers hold on the grid, not for every real base.
    """
    seq_len: int
    d_model: int
    step: float
    smallest: float
    all_pass: float
    checked_to: float
    failing: tuple


@takes_seconds
def rope_base_bounds(seq_len: int, d_model: int = 128, start: float = 2.0, step: float = 1.001,
                     span: float = 8.0, rtol: float = 1e-4) -> BaseBounds:
    """The smallest base that keeps ``B(m) = Σ_i cos(m·w_i) ≥ 0`` for every m = 0 … seq_len, and
    the base above which every base does (Men et al. 2024's condition; notebook 04's PE·PE curve).

    Walks a geometric grid ``start · step^k`` up to the first passing base, then scans on up to
    ``span`` times it and records every failing grid base; both transitions are refined by
    bisection to relative precision ``rtol``. A bound for a shorter length is a valid ``start``
    (a base that fails at a shorter length fails at every longer one).
    """
    seq_len = check_int("seq_len", seq_len, 1, 1 << 20)
    d_model = check_d_model(d_model)
    if d_model < 4:
        raise ValueError(bilingual("d_model must be >= 4", "d_model 必须 >= 4"))
    start = check_real("start", start, greater_than=1.0)
    step = check_real("step", step, greater_than=1.0, maximum=2.0)
    span = check_real("span", span, greater_than=1.0)
    rtol = check_real("rtol", rtol, greater_than=0.0, maximum=0.5)

    def passes(base: float) -> bool:
        return _passes(seq_len, d_model, base)

    base = _first_passing(seq_len, d_model, start, step)
    smallest = base if base == start else _boundary(seq_len, d_model, base / step, base, rtol)
    grid = base * step ** np.arange(1, math.ceil(math.log(span) / math.log(step)) + 1)
    fails = np.array([not passes(float(b)) for b in grid])
    runs, last_fail = [], None
    for k in np.flatnonzero(fails):
        if runs and runs[-1][1] == k - 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
        last_fail = k
    if last_fail is None:
        all_pass = smallest
    else:
        all_pass = _boundary(seq_len, d_model, float(grid[last_fail]), float(grid[last_fail] * step), rtol)
    failing = tuple((float(grid[a]), float(grid[b])) for a, b in runs)
    return BaseBounds(seq_len, d_model, step, float(smallest), float(all_pass), float(grid[-1]), failing)
