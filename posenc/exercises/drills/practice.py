"""Drills on positions in practice: position ids of a left-padded batch from its attention mask
(``position_ids``), and the position ids and mask of documents packed into one row (``pack``)."""
from __future__ import annotations

import numpy as np

from ...attention import causal_mask
from ...practice import packed_causal_mask, packed_position_ids, position_ids_from_mask
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, run_drill
from ..verdict import Verdict


# ---------------------------------------------------------------------------
# position_ids(attention_mask): a left-padded batch
# ---------------------------------------------------------------------------
POSITION_SLIPS = (
    Slip("arange", lambda mask: np.broadcast_to(np.arange(mask.shape[-1]), mask.shape).copy(),
         "用了 0, 1, 2, … 而没有看 attention_mask：左填充的行里第一个真实的词前面有填充，它的位置仍应是 0"
         "（否则同一句话填充与否，RoPE 的分数不一样）。"),
    Slip("cumsum_from_1", lambda mask: np.cumsum(mask, axis=-1),
         "cumsum 之后少减了 1：attention_mask.cumsum(-1) 在第一个真实的词上是 1，位置要从 0 开始，所以再减 1。"),
    Slip("cumsum_axis_0", lambda mask: np.cumsum(mask, axis=0) - 1,
         "cumsum 沿着批次那一维（axis = 0）累加了：要沿着序列那一维累加，axis = −1。"),
    Slip("cumsum_flattened", lambda mask: np.cumsum(mask) - 1,
         "np.cumsum 没指定 axis，把整个批次拉平成一行累加了：沿着序列那一维累加，cumsum(mask, axis=−1)。"),
)


def _position_cases(rng) -> list[dict]:
    random = np.ones((3, 8), dtype=np.int64)
    for row, pads in enumerate(rng.integers(0, 6, size=3)):
        random[row, :pads] = 0
    return [dict(attention_mask=np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])),
            dict(attention_mask=np.array([[0, 0, 0, 1], [0, 1, 1, 1], [1, 1, 1, 1]])),
            dict(attention_mask=random), dict(attention_mask=np.array([[1, 1, 1]]))]


def _position_where(case, got, expected) -> str:
    mask = case["attention_mask"]
    b, t = first_difference(got[0], expected[0], case, graded=mask == 1)
    first = int(np.argmax(mask[b]))
    nth = f"第 {t - first + 1} 个真实的词" if t > first else "第一个真实的词"
    return (f"第 {b} 行（mask = {mask[b].tolist()}）第 {t} 列（{nth}，前面有 {first} 个填充）的位置是 "
            f"{int(got[0][b, t])}，应为 {int(expected[0][b, t])}")


POSITION_IDS = Drill(
    name="position_ids",
    signature="position_ids(attention_mask)",
    reference=position_ids_from_mask,
    reference_name="pl.position_ids_from_mask",
    cases=_position_cases,
    slips=POSITION_SLIPS,
    where=_position_where,
    graded=lambda case: case["attention_mask"] == 1,
    hint="每一行的第一个真实的词是位置 0，之后逐个加 1；填充位置的值随意（mask 会把它们遮住，检查不看）。",
    ok="填充位置上的值没有检查（mask 把它们遮住了）；Hugging Face 填 1。",
)


def check_drill_position_ids(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``position_ids(attention_mask)`` on the real tokens against
    :func:`posenc.practice.position_ids_from_mask`, naming the slips of :data:`POSITION_SLIPS`."""
    return run_drill(POSITION_IDS, fn, time_limit)


# ---------------------------------------------------------------------------
# pack(lengths): position ids and the block-diagonal causal mask
# ---------------------------------------------------------------------------
def _reference(lengths):
    return packed_position_ids(lengths), packed_causal_mask(lengths)


def _same_document(lengths) -> np.ndarray:
    doc = np.repeat(np.arange(len(lengths)), lengths)
    return doc[:, None] == doc[None, :]


PACK_SLIPS = (
    Slip("ids_continue", lambda n: (np.arange(sum(n)), packed_causal_mask(n)),
         "位置编号没有在每篇文档开头重新从 0 数：打包进一行的每篇文档都从位置 0 开始，和它单独成行时一样。"),
    Slip("ids_from_1", lambda n: (packed_position_ids(n) + 1, packed_causal_mask(n)),
         "每篇文档的位置从 1 开始数了：从 0 开始。"),
    Slip("mask_causal_only", lambda n: (packed_position_ids(n), causal_mask(sum(n))),
         "掩码只有因果的三角形：后面的文档能看见前面的文档。还要把文档隔开，只有同一篇里的、不在后面的词可见"
         "（块对角的因果掩码）。"),
    Slip("mask_not_causal", lambda n: (packed_position_ids(n), _same_document(n)),
         "掩码只把文档隔开了，没有因果：同一篇里的词还能看见它后面的词。可见的是同一篇里 n ≤ m 的键。"),
    Slip("mask_transposed", lambda n: (packed_position_ids(n), packed_causal_mask(n).T),
         "掩码转置了：visible[m, n] 是第 m 个词（查询）能不能看见第 n 个词（键），要 n ≤ m；你的是 n ≥ m，看见的是未来。"),
    Slip("mask_no_diagonal", lambda n: (packed_position_ids(n), packed_causal_mask(n) & ~np.eye(sum(n), dtype=bool)),
         "对角线被遮住了：每个词也能看见它自己（n = m），否则每篇第一个词什么都看不见。"),
)


def _pack_where(case, got, expected) -> str:
    lengths = list(case["lengths"])
    doc = np.repeat(np.arange(len(lengths)), lengths)
    start = np.concatenate([[0], np.cumsum(lengths)])[:-1]
    name = lambda t: f"第 {doc[t] + 1} 篇的第 {t - start[doc[t]] + 1} 个词"
    if not np.array_equal(got[0], expected[0]):
        t = first_difference(got[0], expected[0], case)[0]
        return f"position_ids[{t}]（{name(t)}）是 {int(got[0][t])}，应为 {int(expected[0][t])}"
    m, n = first_difference(got[1], expected[1], case)
    return (f"visible[{m}, {n}]（{name(m)}看{name(n)}）是 {bool(got[1][m, n])}，"
            f"应为 {bool(expected[1][m, n])}")


def _pack_cases(rng) -> list[dict]:
    return [dict(lengths=[3, 2]), dict(lengths=[2, 4, 1]),
            dict(lengths=[int(n) for n in rng.integers(1, 6, size=4)])]


PACK = Drill(
    name="pack",
    signature="pack(lengths)",
    reference=_reference,
    reference_name="pl.packed_position_ids 和 pl.packed_causal_mask",
    cases=_pack_cases,
    slips=PACK_SLIPS,
    outputs=("position_ids", "visible"),
    where=_pack_where,
    hint="position_ids：每篇 0, 1, …, 长度 − 1 接起来；visible[m, n]：m、n 在同一篇，且 n ≤ m。",
)


def check_drill_packed_positions(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``pack(lengths)`` (returning ``(position_ids, visible)``) against
    :func:`posenc.practice.packed_position_ids` and :func:`posenc.practice.packed_causal_mask`,
    naming the slips of :data:`PACK_SLIPS`."""
    return run_drill(PACK, fn, time_limit)
