"""Drill: the sinusoidal table in both column layouts (``sinusoidal_table``)."""
from __future__ import annotations

import numpy as np

from ...encoding import frequencies, sinusoidal_encoding
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, fmt_pair, run_drill
from ..verdict import Verdict


def _reference(seq_len, d_model, base, layout):
    return sinusoidal_encoding(seq_len, d_model, base, layout=layout)


def _table(sin_angles, cos_angles, layout) -> np.ndarray:
    """A table from the angles of its sine and cosine columns (a slip's angles), in ``layout``."""
    if layout == "split":
        return np.concatenate([np.sin(sin_angles), np.cos(cos_angles)], axis=1)
    out = np.empty((sin_angles.shape[0], 2 * sin_angles.shape[1]))
    out[:, 0::2], out[:, 1::2] = np.sin(sin_angles), np.cos(cos_angles)
    return out


def _with(w, layout, seq_len, start=0, w_cos=None):
    pos = np.arange(start, start + seq_len, dtype=float)[:, None]
    return _table(pos * w, pos * (w if w_cos is None else w_cos), layout)


def _other_layout(seq_len, d_model, base, layout):
    return sinusoidal_encoding(seq_len, d_model, base, layout="split" if layout == "interleaved" else "interleaved")


def _swapped(seq_len, d_model, base, layout):
    table = sinusoidal_encoding(seq_len, d_model, base, layout=layout)
    cols = np.r_[d_model // 2:d_model, 0:d_model // 2] if layout == "split" else np.arange(d_model) ^ 1
    return table[:, cols]


SLIPS = (
    Slip("interleaved_for_split",
         lambda n, d, b, layout: _other_layout(n, d, b, layout) if layout == "split" else None,
         'layout="split" 时列还是交错排的（sin、cos、sin、cos…）。split 是前 d_model/2 列放全部的 sin、'
         "后 d_model/2 列放全部的 cos，频率顺序相同：第 i 列是 sin(pos·w_i)，第 d_model/2 + i 列是 cos(pos·w_i)。"),
    Slip("split_for_interleaved",
         lambda n, d, b, layout: _other_layout(n, d, b, layout) if layout == "interleaved" else None,
         'layout="interleaved" 时列按前后两半排了。交错排列是第 2i 列 sin(pos·w_i)、第 2i+1 列 cos(pos·w_i)，'
         "sin 和 cos 一列一列交替。"),
    Slip("exponent_i_over_d",
         lambda n, d, b, layout: _with(frequencies(2 * d, b)[: d // 2], layout, n),
         "频率的指数用了 −i/d_model：第 i 对的频率是 w_i = base^(−2i/d_model)。i 是对的下标，2i 是这一对的第一列，"
         "所以指数里是 2i。"),
    Slip("cos_next_pair",
         lambda n, d, b, layout: _with(frequencies(d, b), layout, n, w_cos=frequencies(d, b) * b ** (-2.0 / d)),
         "cos 列用了下一对的指数 2(i+1)/d_model：同一对的 sin 和 cos 用同一个频率 w_i = base^(−2i/d_model)，"
         "它们是同一根指针的两个坐标。"),
    Slip("divided",
         lambda n, d, b, layout: _with(1.0 / frequencies(d, b), layout, n),
         "角度是 pos 除以 w_i 算的：角度是 pos·w_i（乘）。常见的写法 div_term = exp(arange(0, d, 2)·(−ln base/d)) "
         "就是 w_i 本身，要乘上去。"),
    Slip("positions_from_1",
         lambda n, d, b, layout: sinusoidal_encoding(n, d, b, start=1, layout=layout),
         "位置从 1 开始数了：第一行是位置 0（PE(0) 的 sin 列全是 0，cos 列全是 1）。"),
    Slip("sin_cos_swapped", lambda n, d, b, layout: _swapped(n, d, b, layout),
         "sin 和 cos 放反了：每一对先放 sin(pos·w_i)，再放 cos(pos·w_i)（split 布局也是先放全部的 sin）。"),
    Slip("integer_division",
         lambda n, d, b, layout: _with(np.ones(d // 2), layout, n),
         "每一对的频率都成了 1：指数 2i/d_model 用了整数除法 (//)，小于 1 的商都变成了 0，base^0 = 1。"
         "用 / 做浮点除法。"),
)


def _where(case, got, expected) -> str:
    got, expected = got[0], expected[0]
    r, c = first_difference(got, expected, case)
    d = case["d_model"]
    if case["layout"] == "split":
        i, fn = (c, "sin") if c < d // 2 else (c - d // 2, "cos")
    else:
        i, fn = c // 2, ("sin", "cos")[c % 2]
    a, b = fmt_pair(got[r, c], expected[r, c])
    return f"pos = {r} 这一行的第 {c} 列（第 i = {i} 对的 {fn}）是 {a}，应为 {fn}({r}·w_{i}) = {b}"


def _cases(rng) -> list[dict]:
    cases = [dict(seq_len=4, d_model=4, base=10000.0, layout="interleaved"),
             dict(seq_len=5, d_model=6, base=10000.0, layout="split")]
    for layout, base in (("interleaved", 100.0), ("split", 500.0)):
        cases.append(dict(seq_len=int(rng.integers(3, 9)), d_model=2 * int(rng.integers(2, 7)), base=base, layout=layout))
    cases.append(dict(seq_len=3, d_model=2, base=10000.0, layout="interleaved"))
    return cases


SINUSOIDAL_TABLE = Drill(
    name="sinusoidal_table",
    signature='sinusoidal_table(seq_len, d_model, base=10000.0, layout="interleaved")',
    reference=_reference,
    reference_name="pl.sinusoidal_encoding",
    cases=_cases,
    slips=SLIPS,
    where=_where,
    hint="先对一行：pos = 1、d_model = 4 时应是 [sin 1, cos 1, sin 0.01, cos 0.01]（交错）。",
)


def check_drill_sinusoidal_table(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``sinusoidal_table(seq_len, d_model, base, layout)`` against
    :func:`posenc.encoding.sinusoidal_encoding`, naming the slips of :data:`SLIPS`."""
    return run_drill(SINUSOIDAL_TABLE, fn, time_limit)
