"""``check_*`` for probes and NoPE (notebook 12): the weight uniform causal attention puts on the
first token.

Every wrong answer is answered by naming what the learner entered and the slip it shows.
"""
from __future__ import annotations

from ..validate import check_int
from .rule import grade
from .verdict import Verdict


def check_causal_weight(answer, n: int) -> Verdict:
    """The weight that uniform attention (all scores equal) under a causal mask puts on the
    first token, at query position ``n`` (positions from 0): 1 / (n + 1).

    Recognises 1/n (forgetting that the query sees itself), the count n + 1 itself, and the
    weight without the mask (1 / seq_len is not asked; 1 is the first token's own weight).
    """
    n = check_int("n", n, 1, 4096)
    right = 1.0 / (n + 1)
    slips = [
        (1.0 / n, f"1/{n} 少算了一个：位置 {n} 也看得见它自己，共 {n + 1} 个词。"),
        (float(n + 1), f"{n + 1} 是看得见的词数；权重是它的倒数。"),
        (1.0, "1 是第一个词自己（位置 0）给自己的权重；这里问的是位置 n。"),
        (1.0 / (n + 2), f"1/{n + 2} 多算了一个：看得见的是位置 0 … {n}。"),
    ]
    return grade(answer, right, slips=slips, expected="答案应是一个数（例如 0.2）。",
                 ok=f"位置 {n} 看得见 0 … {n} 共 {n + 1} 个词，分数都一样时每个得 1/{n + 1} = {right:.4f}："
                    f"这个数随 n 变，模型就能从中读出位置。",
                 wrong=f"因果掩码下位置 {n} 能看见几个词？分数相同，softmax 把权重平分给它们。")
