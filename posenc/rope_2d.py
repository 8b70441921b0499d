"""Position in two and three dimensions: image patches in raster order, axial 2D RoPE, and
Qwen2-VL's multimodal RoPE (M-RoPE) with its (t, h, w) position ids.

M-RoPE as Hugging Face transformers implements it (``models/qwen2_vl/modeling_qwen2_vl.py``):
``get_rope_index`` gives every token three position ids (t, h, w). Text tokens carry the same
number three times, counting on from the previous chunk; an image (or video) of ``t × h × w``
tokens after patch merging gets ``t_index, h_index, w_index`` (raster order, w fastest) plus
the position the image starts at; the text after it continues at the largest id so far + 1.
``apply_multimodal_rotary_pos_emb`` splits each head's frequencies into ``mrope_section``
(Qwen2-VL-7B: 16, 24, 24 of 64 pairs): pairs 0-15 turn with t, 16-39 with h, 40-63 with w,
each pair keeping its usual frequency ``base^(-2j/head_dim)``. Qwen2.5-VL's video time ids
(:func:`qwen25_vl_time_ids`) and Qwen3-VL's interleaved pairs (:func:`mrope_pair_axes`) are the
same idea's later versions (notebook 11_positions_in_practice). A ViT's learned table instead has
one vector per patch of its training grid: :func:`resize_position_table` interpolates it to a new
grid as Hugging Face's ViT does.
"""
from __future__ import annotations

import math

import numpy as np

from .encoding import frequencies
from .validate import bilingual, check_base, check_int, check_matrix, check_one_of, check_real

#: Qwen2-VL's split of a 128-dim head's 64 pairs between t, h and w (its config's ``mrope_section``).
QWEN2_VL_SECTION = (16, 24, 24)
#: How a grid of image patches gets its rotation angles (see :func:`patch_angles`).
PATCH_LAYOUTS = ("raster", "axial", "mrope")


def check_grid_thw(grid_thw) -> tuple[int, int, int]:
    if not isinstance(grid_thw, (tuple, list, np.ndarray)) or len(grid_thw) != 3:
        raise ValueError(bilingual(f"grid_thw must be three integers (t, h, w), got {grid_thw!r}",
                                   f"grid_thw 必须是三个整数 (t, h, w)，收到的是 {grid_thw!r}"))
    return tuple(check_int(f"grid_thw[{i}]", v, 1, 4096) for i, v in enumerate(grid_thw))


def mrope_position_ids(n_text_before: int, grid_thw, n_text_after: int) -> np.ndarray:
    """M-RoPE position ids (3, L) of ``n_text_before`` text tokens, one image or video of
    ``grid_thw = (t, h, w)`` tokens (after patch merging) and ``n_text_after`` text tokens,
    L = n_text_before + t·h·w + n_text_after.

    Rows are (t, h, w). Text before: 0, 1, ... in all three rows. Image token (ti, hi, wi), in
    raster order (w fastest, then h, then t): (ti, hi, wi) + n_text_before. Text after: the
    largest id so far + 1, + 2, ... in all three rows (``get_rope_index`` in Hugging Face's
    Qwen2-VL code).
    """
    n_before = check_int("n_text_before", n_text_before, 0, 10**6)
    t, h, w = check_grid_thw(grid_thw)
    n_after = check_int("n_text_after", n_text_after, 0, 10**6)
    text = np.arange(n_before)
    ti, hi, wi = np.meshgrid(np.arange(t), np.arange(h), np.arange(w), indexing="ij")
    image = np.stack([ti.ravel(), hi.ravel(), wi.ravel()]) + n_before
    start = int(image.max()) + 1
    after = np.arange(n_after) + start
    return np.concatenate([np.tile(text, (3, 1)), image, np.tile(after, (3, 1))], axis=1).astype(np.int64)


def _check_section(section, head_dim: int) -> tuple[int, int, int]:
    if not isinstance(section, (tuple, list, np.ndarray)) or len(section) != 3:
        raise ValueError(bilingual(f"section must be three integers (pairs for t, h, w), got {section!r}",
                                   f"section 必须是三个整数（t、h、w 各占几对），收到的是 {section!r}"))
    sec = tuple(check_int(f"section[{i}]", v, 0, head_dim // 2) for i, v in enumerate(section))
    if sum(sec) != head_dim // 2:
        raise ValueError(bilingual(
            f"section must add up to head_dim // 2 = {head_dim // 2}, got {sec} (sum {sum(sec)})",
            f"section 之和必须等于 head_dim // 2 = {head_dim // 2}，收到的是 {sec}"
        ))
    return sec


def mrope_angles(position_ids, head_dim: int = 128, base: float = 10000.0,
                 section=QWEN2_VL_SECTION) -> np.ndarray:
    """The rotation angle of every pair at every token under M-RoPE: (L, head_dim // 2).

    ``position_ids`` (3, L) as from :func:`mrope_position_ids`. Pair j has the usual frequency
    ``w_j = base^(-2j/head_dim)`` and turns with the t id for the first ``section[0]`` pairs, the
    h id for the next ``section[1]`` and the w id for the last ``section[2]``:
    ``angle[l, j] = position_ids[c(j), l] · w_j``. For text (t = h = w) this is plain RoPE.
    """
    ids = np.asarray(position_ids)
    if isinstance(position_ids, (bool, np.bool_)) or ids.dtype.kind not in "iu":
        raise TypeError(bilingual(f"position_ids must be integers (3, L), got {ids.dtype}",
                                  "position_ids 必须是整数，"
                                  f"收到的类型是 {ids.dtype}"))
    ids = ids.astype(np.int64)
    if ids.ndim != 2 or ids.shape[0] != 3:
        raise ValueError(bilingual(f"position_ids must have shape (3, L), got {ids.shape}",
                                   "position_ids 的形状必须是 (3, L)，"
                                   f"收到的是 {ids.shape}"))
    head_dim = check_int("head_dim", head_dim, 2, 4096)
    if head_dim % 2:
        raise ValueError(bilingual(f"head_dim must be even, got {head_dim}", f"head_dim 必须是偶数，收到的是 {head_dim}"))
    base = check_base(base)
    sec = _check_section(section, head_dim)
    freq = frequencies(head_dim, base)
    component = np.repeat(np.arange(3), sec)                  # which row of ids each pair follows
    return ids[component, :].T.astype(np.float64) * freq[None, :]


def patch_angles(rows: int, cols: int, layout: str = "raster", head_dim: int = 128,
                 base: float = 10000.0, section=QWEN2_VL_SECTION) -> np.ndarray:
    """Rotation angles (rows·cols, head_dim // 2) of the patches of a ``rows × cols`` image, in
    raster order (patch (r, c) is token r·cols + c).

    ``layout``: "raster" - 1D RoPE on the token index r·cols + c; "axial" - axial 2D RoPE, the
    first half of the pairs turn with the row r, the second half with the column c, each half
    with the frequencies of a head of head_dim / 2 (``base^(-2i/(head_dim/2))``); "mrope" -
    Qwen2-VL's M-RoPE for an image alone (t = 0, h = r, w = c, ``section``).
    """
    rows = check_int("rows", rows, 1, 256)
    cols = check_int("cols", cols, 1, 256)
    layout = check_one_of("layout", layout, PATCH_LAYOUTS)
    head_dim = check_int("head_dim", head_dim, 4, 4096)
    if head_dim % 4:
        raise ValueError(bilingual(f"head_dim must be a multiple of 4 (two halves of pairs), got {head_dim}",
                                   f"head_dim 必须是 4 的倍数，收到的是 {head_dim}"))
    base = check_base(base)
    r, c = np.divmod(np.arange(rows * cols), cols)
    if layout == "raster":
        return (r * cols + c)[:, None] * frequencies(head_dim, base)[None, :]
    if layout == "axial":
        half = frequencies(head_dim // 2, base)
        return np.hstack([r[:, None] * half[None, :], c[:, None] * half[None, :]])
    return mrope_angles(mrope_position_ids(0, (1, rows, cols), 0), head_dim, base, section)


def patch_scores(rows: int, cols: int, query_row: int, query_col: int, layout: str = "raster",
                 head_dim: int = 128, base: float = 10000.0) -> np.ndarray:
    """The RoPE score of the query patch (query_row, query_col) with every key patch, for one
    fixed content vector (q = κ = all ones, normalised): ``mean_j cos(θ_j(key) − θ_j(query))``,
    shape (rows, cols); 1 at the query itself.
    """
    rows = check_int("rows", rows, 1, 256)
    cols = check_int("cols", cols, 1, 256)
    query_row = check_int("query_row", query_row, 0, rows - 1)
    query_col = check_int("query_col", query_col, 0, cols - 1)
    angles = patch_angles(rows, cols, layout, head_dim, base)
    diff = angles - angles[query_row * cols + query_col]
    return np.cos(diff).mean(axis=1).reshape(rows, cols)


def qwen25_vl_time_ids(grid_t: int, second_per_grid_t: float, tokens_per_second: float) -> np.ndarray:
    """Qwen2.5-VL's temporal position id of each of a video's ``grid_t`` temporal patches:
    ``(arange(grid_t) · second_per_grid_t · tokens_per_second)`` truncated to integers
    (``get_rope_index`` in ``modeling_qwen2_5_vl.py``): the id follows seconds, not frame
    count.
    """
    grid_t = check_int("grid_t", grid_t, 1, 100000)
    sec = check_real("second_per_grid_t", second_per_grid_t, minimum=0.0)
    tps = check_real("tokens_per_second", tokens_per_second, minimum=0.0)
    return (np.arange(grid_t) * sec * tps).astype(np.int64)


def mrope_pair_axes(section, interleaved: bool = False) -> np.ndarray:
    """Which position id (0 = t, 1 = h, 2 = w) each frequency pair of an M-RoPE head follows.

    ``interleaved=False`` (Qwen2-VL): contiguous blocks of ``section[0]``, ``section[1]``,
    ``section[2]`` pairs. ``interleaved=True`` (Qwen3-VL's ``apply_interleaved_mrope``): start
    with t everywhere, then pairs ``1, 4, 7, … < 3·section[1]`` follow h and ``2, 5, 8, … <
    3·section[2]`` follow w.
    """
    if not isinstance(section, (tuple, list, np.ndarray)) or len(section) != 3:
        raise ValueError(bilingual(f"section must be three integers (t, h, w), got {section!r}", "section 必须是三个整数"))
    sec = [check_int(f"section[{i}]", v, 0, 4096) for i, v in enumerate(section)]
    pairs = sum(sec)
    if not interleaved:
        return np.repeat(np.arange(3), sec)
    if 3 * max(sec[1], sec[2]) > pairs + 2:
        raise ValueError(bilingual(f"section {sec} cannot be interleaved: 3·section[1] and 3·section[2] must fit in "
                                   f"{pairs} pairs",
                                   "这个 section 无法交错排列"))
    axes = np.zeros(pairs, dtype=np.int64)
    for dim in (1, 2):
        axes[dim:3 * sec[dim]:3] = dim
    return axes


# ---------------------------------------------------------------------------
# A learned 2-D position table at a new resolution (ViT)
# ---------------------------------------------------------------------------
def resize_position_table(table, new_grid) -> np.ndarray:
    """A ViT's learned position table resized to a new patch grid, as Hugging Face's ViT does
    when asked to interpolate (``ViTEmbeddings.interpolate_pos_encoding`` in
    ``src/transformers/models/vit/modeling_vit.py``).

    ``table``: ``(1 + g·g, dim)``, row 0 the class token's position vector, rows 1 … the g × g
    grid in raster order. The class token's row is kept apart and returned unchanged; the grid is
    resized to ``new_grid`` (an int or ``(rows, cols)``) with
    ``torch.nn.functional.interpolate(..., size=new_grid, mode="bicubic", align_corners=False)``
    (no ``scale_factor``, no antialiasing): PyTorch's bicubic convolution (A = -0.75), source
    coordinate ``(dst + 0.5) · g / new - 0.5``, indices past the border clamped to it. Computed
    in float64 (the model computes in its own dtype). Returns ``(1 + rows·cols, dim)``.
    Torch is imported on first call.
    """
    table = check_matrix("table", table)
    grid = math.isqrt(table.shape[0] - 1)
    if table.shape[0] < 2 or grid * grid != table.shape[0] - 1:
        raise ValueError(bilingual(
            f"table must have 1 + g·g rows (a class token and a square grid), got {table.shape[0]}",
            f"table 的行数必须是 1 + g·g（一个 class token 加一个正方形网格），收到的是 {table.shape[0]}"
        ))
    if isinstance(new_grid, (tuple, list)):
        if len(new_grid) != 2:
            raise ValueError(bilingual(f"new_grid must be an int or (rows, cols), got {new_grid!r}",
                                       "new_grid 必须是整数或 (行, 列)"))
        rows, cols = (check_int(name, v, 1, 256) for name, v in zip(("new_grid[0]", "new_grid[1]"), new_grid))
    else:
        rows = cols = check_int("new_grid", new_grid, 1, 256)
    import torch
    import torch.nn.functional as F

    patch = torch.from_numpy(table[1:]).reshape(1, grid, grid, -1).permute(0, 3, 1, 2)
    resized = F.interpolate(patch, size=(rows, cols), mode="bicubic", align_corners=False)
    resized = resized.permute(0, 2, 3, 1).reshape(rows * cols, -1).numpy()
    return np.concatenate([table[:1], resized], axis=0)
