"""``check_*`` for self-attention without positions (notebook 01): where a token's output goes
when the sentence is reordered, whether the pooled sentence vector changes, what position
encoding changes, and where an attention weight moves. Each right answer and every option's
message is computed from :func:`posenc.attention.attention_demo`, never typed.
"""
from __future__ import annotations

import numpy as np

from ..attention import attention_demo
from .rule import check_choice
from .verdict import Verdict


def check_output_row(answer, sentence: str = "咬猫狗", reference: str = "猫咬狗") -> Verdict:
    """Check in which row of ``sentence``'s outputs the output of ``reference``'s first token
    appears (no position encoding: the outputs are permutation-equivariant). The row is found
    by comparing the outputs; each wrong row names the token whose output it holds.
    """
    ref, moved = attention_demo(reference), attention_demo(sentence)
    token = reference[0]
    row = int(np.argmin(np.abs(moved.outputs - ref.outputs[0]).max(axis=1)))
    hints = {r: f"{sentence} 的第 {r} 行是 {tok} 的输出，不是 {token} 的：输出的行跟着字走。"
             for r, tok in enumerate(sentence) if tok != token}
    if 0 in hints:
        hints[0] += f"0 是 {token} 在 {reference} 里的行号；换了语序，{token} 的输出也跟着 {token} 换了行。"
    return check_choice(answer, row, options=list(range(len(sentence))), hints=hints,
                        hint=f"等变性：输出的行跟着输入的行走。{token} 在 {sentence} 里坐第几个座位？")


def check_pooled_change(answer, first: str = "我打你", second: str = "你打我") -> Verdict:
    """Check whether the mean of the outputs (the pooled sentence vector) of ``first`` and of
    ``second`` differ: ``"变"`` or ``"不变"`` (a gap below 1e-12 is floating-point rounding).
    """
    gap = float(np.abs(attention_demo(first).pooled - attention_demo(second).pooled).max())
    right = "不变" if gap < 1e-12 else "变"
    hints = {"变": f"两个句向量只差 {gap:.1e}，是浮点舍入，不算变：三行输出只是换了顺序（等变），"
                  "求平均不在乎先加谁。"} if right == "不变" else {}
    return check_choice(answer, right, options=["变", "不变"], hints=hints,
                        hint="平均要把三行加起来；加法在乎先加谁吗？（舍入误差 1e-16 不算变）")


def check_pe_input_output(answer, token: str = "咬", first: str = "猫咬狗", second: str = "狗咬猫") -> Verdict:
    """Check, with position encoding (positions 0, 1, 2), whether ``token``'s input vector and
    its output vector are the same (``"相同"``) or not (``"不同"``) in ``first`` and ``second``:
    a pair ``(input, output)``.
    """
    a, b = attention_demo(first, use_pe=True), attention_demo(second, use_pe=True)
    i_a, i_b = a.tokens.index(token), b.tokens.index(token)
    same_in = "相同" if np.allclose(a.x[i_a], b.x[i_b], rtol=0, atol=1e-12) else "不同"
    same_out = "相同" if np.allclose(a.outputs[i_a], b.outputs[i_b], rtol=0, atol=1e-12) else "不同"
    out_gap = float(np.abs(a.outputs[i_a] - b.outputs[i_b]).max())
    seat = (f"{token} 在两句里都坐座位 {i_a}：词向量相同、座位号相同，输入就相同。" if i_a == i_b else
            f"{token} 在两句里坐的座位不同（{i_a} 和 {i_b}）：座位号不同，输入就不同。")
    others = "、".join(t for t in first if t in second and first.index(t) != second.index(t)) or "别的字"
    moved = f"输出要对所有字的 V 行加权平均，{others} 换了座位，它们的 V 行和权重都变了（{token} 的输出差 {out_gap:.2f}）。"
    right = (same_in, same_out)
    options = [("相同", "相同"), ("相同", "不同"), ("不同", "相同"), ("不同", "不同")]
    hints = {}
    for option in options:
        if option == right:
            continue
        wrong_in, wrong_out = option[0] != same_in, option[1] != same_out
        if wrong_in and wrong_out:
            hints[option] = "两问都反了：" + seat + moved
        elif wrong_out:
            hints[option] = "输入那一问对了，输出那一问不对：" + moved
        else:
            hints[option] = "输出那一问对了，输入那一问不对：" + seat
    return check_choice(answer, right, options=options, hints=hints,
                        hint=f"输入 = 词向量 + 座位号：{token} 的座位变了吗？输出要和所有字的 V 行加权平均，别的字的座位变了吗？")


def check_weight_cell(answer, first: str = "猫咬狗", second: str = "狗咬猫", row: int = 0, col: int = 2) -> Verdict:
    """Check which cell ``(row, col)`` of ``first``'s attention weights equals the cell
    ``(row, col)`` of ``second``'s (no position encoding: ``A_B = P A_A P^T``). Found by
    comparing the weights; each wrong cell says which pair of tokens it holds.
    """
    a, b = attention_demo(first), attention_demo(second)
    target = b.weights[row, col]
    cell = tuple(int(c) for c in np.unravel_index(np.argmin(np.abs(a.weights - target)), a.weights.shape))
    n = len(first)
    cells = [(r, c) for r in range(n) for c in range(n)]
    query, key = second[row], second[col]
    hints = {(r, c): f"A_A[{r}, {c}] 是 {first[r]} 看 {first[c]} 的注意力（行 = query，列 = key），"
                     f"要找的是 {query} 看 {key}。" for r, c in cells if (r, c) != cell}
    if (row, col) in hints:
        hints[(row, col)] += f"({row}, {col}) 是这一格在 {second} 里的行列号，还没换回 {first} 的编号。"
    return check_choice(answer, cell, options=cells, hints=hints,
                        hint=f"A_B = P A_A P^T：行跟着 query 的字走，列跟着 key 的字走。在 {first} 里，"
                             f"{query} 是第几行？{key} 是第几列？")
