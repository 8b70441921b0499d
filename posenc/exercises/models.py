"""``check_*`` for learned position tables and the 谁咬谁 task (notebook 05).
"""
from __future__ import annotations

from .verdict import PLACEHOLDER, Verdict, _read_answer, _wrong, check_value
from ..task.data import ANIMALS
from ..task.evaluation import order_blind_bound
from ..task.training import position_table_parameters


def check_position_params(max_len: int, d_model: int, answer) -> Verdict:
    """Check the number of trainable parameters of a learned ``max_len x d_model`` table.

    Introduced in notebook 05_learned_embeddings.
    """
    right = position_table_parameters(max_len, d_model)
    got = _read_answer(answer, "int")
    if answer is None:
        return Verdict(False, PLACEHOLDER)
    if got is None:
        return _wrong(answer, "答案应是一个整数（参数个数）。提示：表有 max_len 行，每行 d_model 个数。")
    if got == right:
        return Verdict(True, f"{max_len} 行 × {d_model} 列 = {right:,} 个可训练参数。")
    if got == max_len + d_model:
        return _wrong(answer, "这是 max_len + d_model；表里每个位置（每行）都有 d_model 个数，要相乘。")
    if got == (max_len - 1) * d_model:
        return _wrong(answer, f"少了一行：位置是 0 … {max_len - 1}，一共 {max_len} 行，不是 {max_len - 1} 行。")
    if got == 0:
        return _wrong(answer, "0 是正弦编码的参数量（公式算出，不训练）；可学习的表每个数都是参数。")
    return _wrong(answer, "一张表 = max_len 行 × d_model 列，每个数都是一个可训练参数。")


def check_order_blind_accuracy(answer) -> Verdict:
    """Check the accuracy ceiling of an order-blind model on mirror pairs (a fraction).

    Recognises 1/8 (guessing among all animals) and percentages.
    Introduced in notebook 05_learned_embeddings.
    """
    right = order_blind_bound()
    if answer is None:
        return Verdict(False, PLACEHOLDER + "（一个 0 到 1 之间的小数）")
    verdict = check_value(answer, right, tol=1e-3)
    if verdict:
        return Verdict(True, f"最多 {right:.3f}：镜像的两句对它是同一个输入，只能给同一个答案，一对里最多对一句。")
    got = _read_answer(answer, "array", ())
    if got is not None and abs(float(got) - 100 * right) < 0.1:
        return _wrong(answer, "这是百分数；请用 0 到 1 之间的小数。")
    if got is not None and abs(float(got) - 1 / len(ANIMALS)) < 1e-3:
        return _wrong(answer, f"1/{len(ANIMALS)} 是在 {len(ANIMALS)} 只动物里瞎猜；但不看语序的模型也看得见句子里是哪两只动物。")
    return _wrong(answer, "不看语序的模型分不开 A咬B 和 B咬A（同样的字、同样的填充词）：它对两句给同一个答案。一对里最多对几句？")
