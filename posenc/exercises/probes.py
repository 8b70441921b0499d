"""``check_*`` for probes and NoPE (notebook 12): the weight uniform causal attention puts on the
first token.

Every wrong answer is answered by naming what the learner entered and the slip it shows.
"""
from __future__ import annotations

from ..validate import check_int
from .verdict import Verdict, _first_slip, _reading, _wrong, agrees


def check_causal_weight(n: int, answer) -> Verdict:
    """The weight that uniform attention (all scores equal) under a causal mask puts on the
    first token, at query position ``n`` (positions from 0): 1 / (n + 1).

    Recognises 1/n (forgetting that the query sees itself), the count n + 1 itself, and the
    weight without the mask (1 / seq_len is not asked; 1 is the first token's own weight).
    Introduced in notebook 12_where_position_goes.
    """
    n = check_int("n", n, 1, 4096)
    right = 1.0 / (n + 1)
    value, refusal = _reading(answer, "array", (), expected="答案应是一个数（例如 0.2）。")
    if refusal is not None:
        return refusal
    got = float(value)
    if agrees(got, right):
        return Verdict(True, f"位置 {n} 看得见 0 … {n} 共 {n + 1} 个词，分数都一样时每个得 1/{n + 1} = {right:.4f}："
                             f"这个数随 n 变，模型就能从中读出位置。")
    slips = {
        f"1/{n} 少算了一个：位置 {n} 也看得见它自己，共 {n + 1} 个词。": 1.0 / n,
        f"{n + 1} 是看得见的词数；权重是它的倒数。": float(n + 1),
        "1 是第一个词自己（位置 0）给自己的权重；这里问的是位置 n。": 1.0,
        f"1/{n + 2} 多算了一个：看得见的是位置 0 … {n}。": 1.0 / (n + 2),
    }
    message = _first_slip(got, right, slips, agrees)
    if message:
        return _wrong(answer, message)
    return _wrong(answer, f"因果掩码下位置 {n} 能看见几个词？分数相同，softmax 把权重平分给它们。")
