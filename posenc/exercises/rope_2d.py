"""``check_*`` for positions in two and three dimensions (notebook 12): the raster offset of the
patch below, and where text after an image starts under Qwen2-VL's M-RoPE.

Every wrong answer is answered by naming what the learner entered and the slip it shows.
"""
from __future__ import annotations

from ..validate import check_int
from .rule import grade, one_slip_per_value
from .verdict import Verdict


def check_raster_offset(answer, cols: int) -> Verdict:
    """The offset k (in tokens) from a patch to the patch directly below it, when an image of
    ``cols`` columns is read in raster order (row by row): ``cols``.

    Recognises 1 (the patch to the right), cols − 1 and cols + 1 (the diagonal neighbours) and
    cols² (the whole image).
    """
    cols = check_int("cols", cols, 2, 4096)
    slips = one_slip_per_value([
        (1, "1 是右边那一块的偏移；正下方要跳过一整行。"),
        (-1, "−1 是左边那一块；正下方在后面一整行处。"),
        (cols - 1, f"{cols - 1} 是左下角那一块（下一行、左一列）；正下方是 {cols - 1} + 1。"),
        (cols + 1, f"{cols + 1} 是右下角那一块（下一行、右一列）；正下方是 {cols + 1} − 1。"),
        (cols * cols, f"{cols * cols} 是 {cols}×{cols} 整张图的块数，不是一行。"),
        (-cols, f"−{cols} 是正上方那一块；偏移 k = n − m，正下方在后面，是正的。"),
    ], keep="last")
    return grade(answer, cols, read="int", slips=slips, expected="答案应是一个整数（偏移多少个 token）。",
                 ok=f"k = {cols}：按行展开后，正下方的块要隔一整行 {cols} 个 token，一维 RoPE 把它当成 {cols} 步之外的词。",
                 wrong=f"按行展开：块 (r, c) 是第 r·{cols} + c 个 token；算 (r+1, c) 和 (r, c) 之差。")


def check_mrope_text_start(answer, n_text_before: int, grid_thw) -> Verdict:
    """The M-RoPE position id (the same for t, h, w) of the first text token after an image of
    ``grid_thw = (t, h, w)`` tokens that follows ``n_text_before`` text tokens:
    ``n_text_before + max(t, h, w)`` (the image's largest id + 1; Qwen2-VL's get_rope_index).

    Recognises counting the image's tokens (n + t·h·w, what 1D RoPE would give), forgetting
    the + 1, and forgetting the text before.
    """
    from ..rope_2d import check_grid_thw

    n_before = check_int("n_text_before", n_text_before, 0, 10**6)
    t, h, w = check_grid_thw(grid_thw)
    right = n_before + max(t, h, w)
    slips = one_slip_per_value([
        (n_before + t * h * w, f"{n_before + t * h * w} 是把图像的 {t * h * w} 个 token 一个个数过去（一维 RoPE 的编号）；"
                               f"M-RoPE 里文字从图像最大编号 + 1 接着数。"),
        (right - 1, f"{right - 1} 是图像里最大的编号本身；文字从它 + 1 开始。"),
        (max(t, h, w), f"{max(t, h, w)} 漏了图像前面的 {n_before} 个文字 token：图像的编号从 {n_before} 起。"),
        (n_before + t * h * w - 1, "这是一维编号下图像最后一个 token；M-RoPE 不这样数。"),
    ], keep="last")
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数（位置编号）。",
                 ok=f"图像里最大的编号是 {n_before} + {max(t, h, w) - 1} = {right - 1}，"
                    f"后面的文字从 {right} 接着数：比一维顺序的 {n_before + t * h * w} 小得多。",
                 wrong=f"图像 token 的编号是 (t, r, c) + {n_before}；找出三行里最大的那个，再加 1。")
