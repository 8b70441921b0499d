"""``check_*`` for learned position tables and the 谁咬谁 task (notebook 05).
"""
from __future__ import annotations

from ..task.data import ANIMALS, MAX_LENGTH
from ..task.evaluation import order_blind_bound
from ..task.training import rows_with_gradient
from ..validate import check_int, check_lengths
from .rule import check_choice, grade
from .verdict import Verdict


def check_order_blind_accuracy(answer) -> Verdict:
    """Check the accuracy ceiling of an order-blind model on mirror pairs (a fraction), by the
    precision rule.

    Slip table: 1 (full marks), the percentage, 1/8 (guessing among all animals).
    """
    right = order_blind_bound()
    slips = [
        (1.0, "满分要分清 A咬B 和 B咬A；可这两句的字完全相同，不看语序的模型对它们只能给同一个答案。"),
        (100 * right, "这是百分数；请用 0 到 1 之间的小数。"),
        (1 / len(ANIMALS), f"1/{len(ANIMALS)} 是在 {len(ANIMALS)} 只动物里瞎猜；但不看语序的模型也看得见句子里是哪两只动物。"),
    ]
    return grade(answer, right, slips=slips, expected="答案应是一个数（0 到 1 之间的小数）：不看语序的模型对镜像的两句只能给同一个答案，一对里最多对几句？",
                 ok=f"最多 {right:.3f}：镜像的两句对它是同一个输入，只能给同一个答案，一对里最多对一句。",
                 wrong="不看语序的模型分不开 A咬B 和 B咬A（同样的字、同样的填充词）：它对两句给同一个答案。一对里最多对几句？")


def check_segments(answer, n_tokens: int, max_len: int) -> Verdict:
    """Check ``[segments, last row]`` for a text of ``n_tokens`` cut into non-overlapping
    segments of at most ``max_len`` tokens, each numbered from position 0 again.

    ``segments`` = ceil(n_tokens / max_len); ``last row`` is the table row (counted from 0)
    of the last token of the last segment. Recognises rounding down, rows counted from 1,
    the absolute position, and a last segment taken as full.
    """
    n_tokens = check_int("n_tokens", n_tokens, 1)
    max_len = check_int("max_len", max_len, 1)
    segments = -(-n_tokens // max_len)
    last_count = n_tokens - (segments - 1) * max_len
    right = (segments, last_count - 1)
    parts = " + ".join([str(max_len)] * (segments - 1) + [str(last_count)])
    floor = n_tokens // max_len
    slips = []
    if floor != segments:
        slips.append({"at": 0, "value": floor,
                      "message": f"{n_tokens} / {max_len} ≈ {n_tokens / max_len:.2f}：{floor} 段只装得下 "
                                 f"{floor * max_len} 个词，剩下的 {n_tokens - floor * max_len} 个还要一段：向上取整。"})
    slips.append({"at": 0, "not": [segments, floor],
                  "message": f"每段最多 {max_len} 个词（表只有 {max_len} 行），{n_tokens} 个词至少要 ⌈{n_tokens}/{max_len}⌉ 段。"})
    rows = [({last_count}, f"段数对了。行号从 0 数：最后一段的 {last_count} 个词用第 0 … {last_count - 1} 行。"),
            ({n_tokens - 1}, f"段数对了。{n_tokens - 1} 是这个词在整篇文章里的位置；可表只有第 0 … "
                             f"{max_len - 1} 行，每一段都从位置 0 重新编号。"),
            ({max_len - 1, max_len} - {last_count - 1}, f"段数对了。最后一段没有装满：只剩 {n_tokens} − "
                                                        f"{segments - 1}×{max_len} = {last_count} 个词。")]
    slips += [{"value": [segments, row], "message": message} for values, message in rows for row in sorted(values)
              if [segments, row] != list(right)]
    return grade(answer, right, read="int_list", slips=slips, valid={"length": 2},
                 expected="答案应是两个整数 [段数, 行号]，例如 [2, 100]。",
                 ok=f"{n_tokens} = {parts}：{segments} 段。每一段都从位置 0 重新编号，"
                    f"最后一段的 {last_count} 个词用第 0 … {last_count - 1} 行。",
                 wrong=f"段数对了。最后一段有 {n_tokens} − {segments - 1}×{max_len} 个词，从位置 0 开始编号。")


def check_rows_with_gradient(answer, train_lengths, max_len: int) -> Verdict:
    """Check how many rows of a learned ``max_len``-row table get a gradient from training
    sentences of ``train_lengths`` tokens (counted by a real forward and backward pass).

    Recognises every row, rows counted to the longest sentence minus one, the number of
    lengths, and the rows without a gradient.
    """
    lo, hi = check_lengths("train_lengths", train_lengths, 4, MAX_LENGTH)
    max_len = check_int("max_len", max_len, hi)
    right = rows_with_gradient((lo, hi), max_len=max_len)
    slips = [
        (max_len, f"不是每一行都有梯度：最长的训练句子只有 {hi} 个词，位置 {hi} … {max_len - 1} 从没出现过，"
                  f"那些行不参与计算。"),
        (hi - 1, f"位置从 0 数：{hi} 个词占位置 0 … {hi - 1}，一共 {hi} 行。"),
        (hi - lo + 1, f"这是训练长度的种类数（{lo}, …, {hi}）。短句子也用位置 0、1、…：每个出现过的位置都算。"),
        (max_len - hi, "这是没有梯度的行数；问的是有梯度的行。"),
        (hi + 1, f"{hi} 个词占位置 0 … {hi - 1}：第 {hi} 行已经用不到了。"),
    ]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数（行数）。",
                 ok=f"{right} 行：位置 0 … {right - 1} 出现在训练句子里；第 {right} … {max_len - 1} 行"
                    f"从不参与计算，梯度为 0，训练不会改动它们。",
                 wrong="只有训练句子里出现过的位置才参与计算；最长的训练句子占了几个位置？")


def check_longer_sentence(answer, encoding: str = "sinusoidal", length: int = 16) -> Verdict:
    """Check what happens when the model trained with ``encoding`` on 4–8-word sentences reads
    a ``length``-word one: ``"A"`` an error (position never seen), ``"B"`` runs with about the
    same accuracy, ``"C"`` runs with a clearly lower accuracy, ``"D"`` the formula cannot give
    the position. B or C is decided by the trained run (C when the accuracy at ``length`` is more
    than 0.1 below the accuracy within the training lengths). Trains the model on first use.
    """
    from ..task.evaluation import length_accuracy
    from ..task.training import trained_run

    run = trained_run(encoding)
    at_length = length_accuracy(run.model, (length, length))[length]
    right = "C" if at_length < run.test_accuracy - 0.1 else "B"
    last = length - 1
    hints = {"A": f"训练时没见过位置 {last} 不会让正弦编码报错：PE({last}) 由公式算出。报错的是只有 8 行的可学习表。",
             "B": f"第 6 节的表：{length} 个词时准确率是 {at_length:.2f}，训练长度内是 {run.test_accuracy:.3f}。",
             "C": f"第 6 节的表：{length} 个词时准确率是 {at_length:.2f}，训练长度内是 {run.test_accuracy:.3f}，差得不多。",
             "D": f"公式对任何位置都能算：PE({last}) 和 PE(3) 一样好算。"}
    return check_choice(answer, right, options=["A", "B", "C", "D"], hints=hints,
                        hint=f"公式对任何位置都能算，所以不会报错；再看第 6 节的图里 {length} 个词时的准确率。")
