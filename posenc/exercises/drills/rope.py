"""Drills on RoPE: the interleaved rotation from ``(x, positions, base)``, the split-halves
layout's cos/sin cache and its ``rotate_half`` application, and the weight permutation that
converts one layout into the other."""
from __future__ import annotations

import math

import numpy as np

from ...encoding import frequencies, split_permutation
from ...rope import apply_rope_half, llama_permute_rows, rope, rope_cos_sin, rope_rotate_half, rotate_half
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, fmt, fmt_pair, run_drill
from ..verdict import Verdict


# ---------------------------------------------------------------------------
# Showing a difference pair by pair: the angle the reader turned it by
# ---------------------------------------------------------------------------
def _turned(x0, x1, y0, y1) -> float:
    """The angle that takes (x0, x1) to the direction of (y0, y1), in (−π, π]."""
    return math.atan2(x0 * y1 - x1 * y0, x0 * y0 + x1 * y1)


def pair_where(x, got, expected, case, partner, label) -> str:
    """The first pair that differs: the angle the reader turned it by against the right one (when
    the reader's pair kept its length, i.e. was rotated), else the numbers.

    ``partner(c, d)`` gives the pair (a, b) of column c (of d) and its name (「i = 3」); ``label(r)`` names
    row r (its position)."""
    idx = first_difference(got, expected, case)
    lead, r, c = idx[:-2], idx[-2], idx[-1]
    (a, b), i = partner(c, x.shape[-1])
    at = lambda arr, col: float(arr[lead + (r, col)])
    x0, x1, y0, y1, e0, e1 = at(x, a), at(x, b), at(got, a), at(got, b), at(expected, a), at(expected, b)
    head = (f"x[{', '.join(map(str, lead))}] 里，" if lead else "") + f"{label(r)}、第 {i} 对（第 {a}、{b} 维）"
    norm_x, norm_y = math.hypot(x0, x1), math.hypot(y0, y1)
    if norm_x > 1e-9 and abs(norm_y - norm_x) <= 1e-6 * max(1.0, norm_x):
        mine, right = fmt_pair(_turned(x0, x1, y0, y1), _turned(x0, x1, e0, e1))
        return f"{head}被转了 {mine} 弧度，应转 {right} 弧度（角度折算到 (−π, π]）"
    return (f"{head}是 ({fmt(y0)}, {fmt(y1)})，应为 ({fmt(e0)}, {fmt(e1)})；输入是 ({fmt(x0)}, {fmt(x1)})。"
            f"旋转不改变一对的长度：输入长 {fmt(norm_x)}，你的结果长 {fmt(norm_y)}")


def _interleaved_pair(c, d):
    return (c - c % 2, c - c % 2 + 1), f"i = {c // 2}"


def _half_pair(c, d):
    j = c % (d // 2)
    return (j, j + d // 2), f"j = {j}"


# ---------------------------------------------------------------------------
# rope_interleaved(x, positions, base)
# ---------------------------------------------------------------------------
def _slower(x, positions, base):
    """Pair i turned by pos·base^(−i/d) (the exponent i/d instead of 2i/d)."""
    return rope(x, positions, inv_freq=frequencies(2 * x.shape[-1], base)[: x.shape[-1] // 2])


ROPE_SLIPS = (
    Slip("halves", lambda x, p, b: rope_rotate_half(x, p, b),
         "配对方式用了 rotate_half 的写法（第 j 维和第 j + d/2 维一对）。这个函数要交错配对：第 2i 维和第 2i+1 维"
         "是一对，一起转 pos·w_i。"),
    Slip("exponent_i_over_d", _slower,
         "频率的指数用了 −i/d：第 i 对的频率是 w_i = base^(−2i/d)（和正弦位置编码同一组），指数里是 2i。"),
    Slip("clockwise", lambda x, p, b: rope(x, -np.asarray(p), b),
         "sin 的符号反了，每一对顺时针转了：RoPE 把每一对逆时针转 pos·w_i，"
         "[x₀, x₁] → [x₀·cos − x₁·sin, x₀·sin + x₁·cos]。"),
    Slip("positions_from_1", lambda x, p, b: rope(x, np.asarray(p) + 1, b),
         "位置多算了 1：角度是 positions 里给的 pos 乘 w_i，pos = 0 的行不转。"),
    Slip("ignores_positions", lambda x, p, b: rope(x, np.arange(x.shape[-2]), b),
         "用了 0, 1, 2, … 而没有用传进来的 positions：行 r 的位置是 positions[r]，不一定等于 r"
         "（左填充、打包、KV cache 里都不等）。"),
    Slip("angle_without_pos", lambda x, p, b: rope(x, np.ones(x.shape[-2]), b),
         "角度忘了乘 pos：每一行都只转了 w_i。第 i 对的角度是 pos·w_i。"),
)


def _rope_cases(rng) -> list[dict]:
    return [
        dict(x=rng.normal(size=(3, 4)), positions=np.arange(3), base=10000.0),
        dict(x=rng.normal(size=(5, 8)), positions=np.arange(5), base=10000.0),
        dict(x=rng.normal(size=(2, 4, 6)), positions=np.array([3, 7, 8, 20]), base=10000.0),
        dict(x=rng.normal(size=(6, 2)), positions=np.sort(rng.integers(0, 50, 6)), base=100.0),
        dict(x=rng.normal(size=(4, 16)).astype(np.float32), positions=np.arange(100, 104), base=10000.0),
    ]


def _rope_where(case, got, expected) -> str:
    pos = np.asarray(case["positions"])
    return pair_where(case["x"], got[0], expected[0], case, _interleaved_pair, lambda r: f"pos = {pos[r]} 的行")


ROPE_INTERLEAVED = Drill(
    name="rope_interleaved",
    signature="rope_interleaved(x, positions, base=10000.0)",
    reference=rope,
    reference_name="pl.rope",
    cases=_rope_cases,
    slips=ROPE_SLIPS,
    where=_rope_where,
    hint="逐项核对：w_i = base^(−2i/d)；角度 pos·w_i；第 2i、2i+1 维一对；[x₀·cos − x₁·sin, x₀·sin + x₁·cos]。",
)


def check_drill_rope_interleaved(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``rope_interleaved(x, positions, base)`` against :func:`posenc.rope.rope`,
    naming the slips of :data:`ROPE_SLIPS`."""
    return run_drill(ROPE_INTERLEAVED, fn, time_limit)


# ---------------------------------------------------------------------------
# rope_cos_sin(positions, head_dim, base): the split-halves cache
# ---------------------------------------------------------------------------
def _interleaved_cache(positions, head_dim, base):
    angles = np.repeat(np.asarray(positions, float)[:, None] * frequencies(head_dim, base)[None, :], 2, axis=-1)
    return np.cos(angles), np.sin(angles)


def _cache_of(w, positions):
    freqs = np.asarray(positions, float)[:, None] * w[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


COS_SIN_SLIPS = (
    Slip("interleaved_cache", _interleaved_cache,
         "cos/sin 表按交错写法排了（每个频率重复两次、挨着放：w₀, w₀, w₁, w₁, …）。rotate_half 写法让第 j 维和"
         "第 j + d/2 维一对，所以频率表要整张拼两遍：emb = cat(freqs, freqs)，即 w₀, w₁, …, w₀, w₁, …"),
    Slip("half_only", lambda p, d, b: tuple(f(np.asarray(p, float)[:, None] * frequencies(d, b)[None, :])
                                            for f in (np.cos, np.sin)),
         "cos/sin 只有 head_dim/2 列：每个频率对应两维（第 j 维和第 j + head_dim/2 维），"
         "表要拼两遍 emb = cat(freqs, freqs)，才能和 x 逐元素相乘。"),
    Slip("exponent_i_over_d", lambda p, d, b: _cache_of(frequencies(2 * d, b)[: d // 2], p),
         "频率的指数用了 −j/head_dim：第 j 对的频率是 w_j = base^(−2j/head_dim)，指数里是 2j。"),
    Slip("positions_from_1", lambda p, d, b: rope_cos_sin(np.asarray(p) + 1, d, b),
         "位置多算了 1：角度是 positions 里给的 pos 乘 w_j，pos = 0 那一行是 cos = 1、sin = 0。"),
    Slip("swapped", lambda p, d, b: rope_cos_sin(p, d, b)[::-1],
         "返回的顺序反了：先 cos，后 sin。"),
)


def _cos_sin_cases(rng) -> list[dict]:
    return [
        dict(positions=np.arange(3), head_dim=4, base=10000.0),
        dict(positions=np.arange(6), head_dim=8, base=10000.0),
        dict(positions=np.array([2, 5, 11]), head_dim=6, base=100.0),
        dict(positions=np.sort(rng.integers(0, 40, 5)), head_dim=16, base=10000.0),
    ]


def _cos_sin_where(case, got, expected) -> str:
    pos, d = np.asarray(case["positions"]), case["head_dim"]
    for n, name in enumerate(("cos", "sin")):
        if got[n].shape == expected[n].shape and not np.allclose(got[n], expected[n], rtol=1e-6, atol=1e-9):
            r, c = first_difference(got[n], expected[n], case)
            a, b = fmt_pair(got[n][r, c], expected[n][r, c])
            return (f"{name} 的第 {r} 行（pos = {pos[r]}）第 {c} 列是 {a}，应为 {name}({pos[r]}·w_{c % (d // 2)}) = {b}"
                    f"（第 {c} 列属于第 j = {c % (d // 2)} 对）")
    return "结果不同"


ROPE_COS_SIN = Drill(
    name="rope_cos_sin",
    signature="rope_cos_sin(positions, head_dim, base=10000.0)",
    reference=rope_cos_sin,
    reference_name="pl.rope_cos_sin",
    cases=_cos_sin_cases,
    slips=COS_SIN_SLIPS,
    outputs=("cos", "sin"),
    where=_cos_sin_where,
    hint="freqs[r, j] = positions[r]·w_j（j < head_dim/2），emb = cat(freqs, freqs)，返回 (cos(emb), sin(emb))。",
)


def check_drill_rope_cos_sin(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``rope_cos_sin(positions, head_dim, base)`` against
    :func:`posenc.rope.rope_cos_sin`, naming the slips of :data:`COS_SIN_SLIPS`."""
    return run_drill(ROPE_COS_SIN, fn, time_limit)


# ---------------------------------------------------------------------------
# apply_rope_half(x, cos, sin)
# ---------------------------------------------------------------------------
def _every_two(x):
    """GPT-J's rotate_every_two: [−x₁, x₀, −x₃, x₂, …]."""
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


HALF_SLIPS = (
    Slip("rotate_half_sign", lambda x, c, s: x * c - rotate_half(x) * s,
         "rotate_half 的符号放反了：rotate_half(x) = cat(−x₂, x₁)（后一半取负放到前面，前一半放到后面）；"
         "你的相当于 cat(x₂, −x₁)，每一对都转反了方向。"),
    Slip("every_two", lambda x, c, s: x * c + _every_two(x) * s,
         "rotate_half 按相邻两维配了对（GPT-J 的 rotate_every_two：[−x₁, x₀, −x₃, x₂, …]）。这里的 cos/sin 是 "
         "cat(freqs, freqs) 排的，第 j 维和第 j + d/2 维才是一对：rotate_half(x) = cat(−x₂, x₁)。"),
    Slip("cos_sin_swapped", lambda x, c, s: x * s + rotate_half(x) * c,
         "cos 和 sin 用反了：结果是 x·cos + rotate_half(x)·sin。"),
    Slip("no_rotate_half", lambda x, c, s: x * c + x * s,
         "sin 那一项乘的是 x 本身：要乘 rotate_half(x) = cat(−x₂, x₁)，旋转才会把一对里的两维混在一起。"),
)


def _half_cases(rng) -> list[dict]:
    cases = []
    for shape, pos, base in (((3, 4), np.arange(3), 10000.0), ((2, 5, 8), np.arange(5), 10000.0),
                             ((4, 6), np.array([1, 4, 9, 16]), 100.0)):
        cos, sin = rope_cos_sin(pos, shape[-1], base)
        cases.append(dict(x=rng.normal(size=shape), cos=cos, sin=sin))
    return cases


def _half_where(case, got, expected) -> str:
    return pair_where(case["x"], got[0], expected[0], case, _half_pair, lambda r: f"第 {r} 行")


ROPE_ROTATE_HALF = Drill(
    name="apply_rope_half",
    signature="apply_rope_half(x, cos, sin)",
    reference=apply_rope_half,
    reference_name="pl.apply_rope_half",
    cases=_half_cases,
    slips=HALF_SLIPS,
    where=_half_where,
    hint="结果是 x·cos + rotate_half(x)·sin，rotate_half(x) = cat(−x₂, x₁)，x₁、x₂ 是最后一维的前后两半。",
)


def check_drill_rope_rotate_half(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``apply_rope_half(x, cos, sin)`` against :func:`posenc.rope.apply_rope_half`,
    naming the slips of :data:`HALF_SLIPS`."""
    return run_drill(ROPE_ROTATE_HALF, fn, time_limit)


# ---------------------------------------------------------------------------
# permute_to_half(w, n_heads): Meta's interleaved rows to Hugging Face's halves
# ---------------------------------------------------------------------------
def _inverse(w, n_heads):
    rows, cols = w.shape
    return w.reshape(n_heads, 2, rows // n_heads // 2, cols).swapaxes(1, 2).reshape(rows, cols)


PERMUTE_SLIPS = (
    Slip("columns", lambda w, h: w[:, split_permutation(w.shape[1])] if w.shape[1] % 2 == 0 else None,
         "重排的是列（输入维）。要重排的是行：w 的一行是一个输出维（nn.Linear 的 weight 是 (out, in)），"
         "q = W_q x 的第 r 个分量来自第 r 行。"),
    Slip("inverse", _inverse,
         "方向反了：这是把 rotate_half 的行排回交错写法（P 的逆）。交错写法里第 j 对的第 c 个分量在第 2j + c 行，"
         "要挪到第 c·head_dim/2 + j 行：reshape(n_heads, head_dim/2, 2, d_in) 再交换中间两轴。"),
    Slip("ignores_heads", lambda w, h: w[split_permutation(w.shape[0])],
         "把所有头的行当成一个头重排了：每个头各自一组 (head_dim/2) 对，重排要在每个头内部做"
         "（reshape 成 (n_heads, head_dim/2, 2, d_in)）。"),
    Slip("unchanged", lambda w, h: w.copy(),
         "行没有动：交错写法的一对是相邻两行，rotate_half 写法的一对相隔 head_dim/2 行，搬运权重时 W_q、W_k "
         "要按这个排列重排。"),
)


def _permute_cases(rng) -> list[dict]:
    return [dict(w=rng.normal(size=(4, 4)), n_heads=1), dict(w=rng.normal(size=(16, 8)), n_heads=2),
            dict(w=rng.normal(size=(12, 12)), n_heads=2), dict(w=rng.normal(size=(24, 5)), n_heads=3)]


def _permute_where(case, got, expected) -> str:
    w, n_heads = case["w"], case["n_heads"]
    got, expected = got[0], expected[0]
    r = first_difference(got, expected, case)[0]
    head_dim = w.shape[0] // n_heads
    h, k = divmod(r, head_dim)
    c, j = divmod(k, head_dim // 2)
    right = h * head_dim + 2 * j + c
    source = [s for s in range(w.shape[0]) if np.allclose(got[r], w[s])]
    mine = f"是原来的第 {source[0]} 行" if source else "不是原来的任何一行（重排只移动行，不改行里的数）"
    return (f"你的第 {r} 行{mine}，应是原来的第 {right} 行（第 {h} 个头里第 j = {j} 对的第 c = {c} 个分量："
            f"交错写法在头内第 2j + c = {2 * j + c} 行）")


ROPE_PERMUTE = Drill(
    name="permute_to_half",
    signature="permute_to_half(w, n_heads)",
    reference=llama_permute_rows,
    reference_name="pl.llama_permute_rows",
    cases=_permute_cases,
    slips=PERMUTE_SLIPS,
    where=_permute_where,
    hint="每个头内：交错写法的第 2j + c 行挪到第 c·head_dim/2 + j 行（c = 0, 1）。",
)


def check_drill_rope_permute(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``permute_to_half(w, n_heads)`` against
    :func:`posenc.rope.llama_permute_rows`, naming the slips of :data:`PERMUTE_SLIPS`."""
    return run_drill(ROPE_PERMUTE, fn, time_limit)
