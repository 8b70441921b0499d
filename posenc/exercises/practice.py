"""``check_*`` for positions in practice (notebook 11): the position id of the next token after a
left-padded prompt, a packed batch's ``cu_seqlens``, what bf16 stores for a position, and the
position StreamingLLM gives the current query.

Every check hands its right answer and a table of typical slips to :func:`verdict.grade`, so a
wrong answer is answered by naming what the learner entered and the slip it shows.
"""
from __future__ import annotations

import numpy as np

from ..practice import cu_seqlens, packed_position_ids, stored_positions, streaming_cache
from ..validate import check_int
from .rule import grade
from .verdict import Verdict


def check_decode_position(answer, n_pad: int, n_real: int) -> Verdict:
    """The position id Hugging Face gives the first generated token after a prompt of ``n_pad``
    left pads and ``n_real`` real tokens: ``n_real`` (the mask's cumsum − 1 after the mask gains a 1).

    Slip table: the padded length (``arange``), the last real position, the last prompt
    position under ``arange``, and the pads' dummy id 1 (the ``arange`` slips and the dummy id
    only when there are pads).
    """
    n_pad = check_int("n_pad", n_pad, 0, 10**6)
    n_real = check_int("n_real", n_real, 1, 10**6)
    slips = [(n_real - 1, f"{n_real - 1} 是提示里最后一个真实词的位置；新生成的词还要再 + 1。")]
    if n_pad:                   # without pads arange gives the mask's ids and no dummy id is written
        slips = [
            (n_pad + n_real, f"{n_pad + n_real} 是把填充也数进去的 arange 编号；cumsum(attention_mask) − 1 只数真实的词。"),
            slips[0],
            (n_pad + n_real - 1, "这是 arange 下提示最后一个词的编号：既数了填充，又少了 + 1。"),
            (1, "1 是填充位置上的占位编号 (dummy id)，被掩码遮住，不是新词的位置。"),
        ]
    return grade(answer, n_real, read="int", slips=slips, expected="答案应是一个整数（位置编号）。",
                 ok=f"真实的词占位置 0 … {n_real - 1}，新词接着是 {n_real}；前面的 {n_pad} 个填充不计数。",
                 wrong="数一数 attention_mask 里有几个 1（真实的词），新词的位置就是这个数。")


def check_cu_seqlens(answer, lengths) -> Verdict:
    """``cu_seqlens`` of documents of these ``lengths`` packed into one row: ``[0, l0, l0 + l1, …]``.

    The answer is an ordered list of whole numbers, compared exactly. Slip table: the lengths
    themselves, the running total without the leading 0, each start without the total, and
    the packed position ids.
    """
    right = cu_seqlens(lengths).tolist()
    lengths = [int(v) for v in np.asarray(lengths).ravel()]
    slips = [
        (lengths, "这是每篇文档的长度；cu_seqlens 是它们的累加（前面再补一个 0）。"),
        (right[1:], "少了开头的 0：cu_seqlens 有文档数 + 1 个数，从 0 开始。"),
        (right[:-1], "少了最后的总长度：最后一篇文档的终点也要写上。"),
        (packed_position_ids(lengths).tolist(), "这是打包后的位置编号（每篇从 0 数），不是 cu_seqlens。"),
    ]
    return grade(answer, right, read="int_list", slips=slips,
                 expected=f"答案应是一串整数，共 {len(right)} 个，例如 [0, …]。",
                 ok=f"cu_seqlens = {right}：第 j 篇文档占扁平序列的 cu[j] 到 cu[j+1] − 1。",
                 wrong="从 0 开始，依次加上每篇文档的长度。")


def check_bf16_position(answer, pos: int) -> Verdict:
    """The value bf16 stores for the integer position ``pos`` (8 significant bits, round to
    nearest even), a whole number compared exactly.

    Slip table: the position itself, the fp16 value, rounding down (truncation), and a
    multiple of half the spacing near ``pos`` (the spacing of the binade below).
    """
    pos = check_int("pos", pos, 0, 2**20)
    right = int(stored_positions([pos], "bfloat16")[0])
    fp16 = float(stored_positions([pos], "float16")[0])       # inf from 65520 on
    spacing = 1 if pos < 256 else 2 ** (int(np.floor(np.log2(pos))) - 7)
    octave = int(np.floor(np.log2(pos))) if pos else 0

    half = [v for v in range(pos - spacing, pos + spacing + 1)
            if spacing > 1 and v % (spacing // 2) == 0 and v % spacing != 0]    # multiples of half the spacing

    slips = [
        (pos, f"bf16 只有 8 位有效数字：256 以上的整数不是都存得下，{pos} 附近间距是 {spacing}。"),
        (int(fp16) if np.isfinite(fp16) else None, f"这是 fp16（11 位有效数字）的结果；bf16 粗得多，间距是 {spacing}。"),
        ((pos // spacing) * spacing, f"这是向下截断；转换用的是舍入到最近（一样近时取偶数），间距 {spacing}。"),
    ] + [(v, f"间距算小了一半：{pos} 在 2^{octave} 到 2^{octave + 1} 之间，间距是 {spacing}。") for v in half]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数。",
                 ok=f"{pos} 附近 bf16 的间距是 {spacing}，{pos} 被舍入成 {right}。",
                 wrong=f"先找出 {pos} 所在的 2 的幂区间，间距 = 区间起点 / 128，再舍入到最近的倍数。")


def check_streaming_position(answer, n_tokens: int, n_sink: int, n_recent: int) -> Verdict:
    """The position StreamingLLM rotates the current query (the ``n_tokens``-th token) by: its place in
    the cache, ``min(n_tokens, n_sink + n_recent) − 1``.

    Slip table: the absolute index, the cache size, and counting the recent tokens only.
    """
    _, positions = streaming_cache(n_tokens, n_sink, n_recent)
    right = int(positions[-1])
    slips = [
        (n_tokens - 1, f"{n_tokens - 1} 是它在整段文本里的绝对编号；StreamingLLM 按缓存里的位置编号，否则偏移会超出训练长度。"),
        (right + 1, f"{right + 1} 是缓存里键的个数；位置从 0 数，最后一个是 {right}。"),
        (n_recent - 1, f"漏了开头的 {n_sink} 个 attention sink：它们也在缓存里，占位置 0 … {n_sink - 1}。"),
    ]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数（位置编号）。",
                 ok=f"缓存里有 {right + 1} 个键，当前词排在最后：位置 {right}，与它已经读过多少词无关。",
                 wrong="缓存 = 开头的 sink + 最近的若干个；位置就是在缓存里的序号（从 0 数）。")
