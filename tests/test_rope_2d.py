"""M-RoPE position ids and angles against plain-loop references written from the description of
Hugging Face's Qwen2-VL code (get_rope_index, apply_multimodal_rotary_pos_emb), and against the
example in get_rope_index's docstring; patch scores against identities."""
import math

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from posenc.rope_2d import patch_angles
from support import chinese_half


def ids_loop(n_before, grid, n_after):
    t, h, w = grid
    rows = [[], [], []]
    for p in range(n_before):
        for r in rows:
            r.append(p)
    for ti in range(t):
        for hi in range(h):
            for wi in range(w):
                for r, v in zip(rows, (ti, hi, wi)):
                    r.append(v + n_before)
    start = max(max(r) for r in rows) + 1
    for p in range(n_after):
        for r in rows:
            r.append(start + p)
    return rows


def angles_loop(ids, head_dim, base, section):
    out = []
    for t in range(len(ids[0])):
        row = []
        for j in range(head_dim // 2):
            comp = 0 if j < section[0] else (1 if j < section[0] + section[1] else 2)
            row.append(ids[comp][t] * base ** (-2.0 * j / head_dim))
        out.append(row)
    return out


def test_the_documented_example_of_get_rope_index():
    # A video of 3 x 2 x 2 tokens, then 5 text tokens (get_rope_index's docstring).
    ids = pl.mrope_position_ids(0, (3, 2, 2), 5)
    assert ids.tolist() == [[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 6, 7],
                            [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 3, 4, 5, 6, 7],
                            [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 3, 4, 5, 6, 7]]


@pytest.mark.parametrize("n_before,grid,n_after", [(0, (1, 1, 1), 0), (3, (1, 4, 6), 2), (5, (2, 3, 2), 4),
                                                   (1, (1, 7, 3), 0), (0, (4, 1, 1), 3)])
def test_position_ids_match_the_loops(n_before, grid, n_after):
    assert pl.mrope_position_ids(n_before, grid, n_after).tolist() == ids_loop(n_before, grid, n_after)


def test_text_after_an_image_starts_at_its_largest_id_plus_one():
    ids = pl.mrope_position_ids(4, (1, 8, 5), 3)
    assert ids.shape == (3, 4 + 40 + 3)
    assert ids[:, 44].tolist() == [4 + 8] * 3                # max(t, h, w) = 8, not 40
    assert (ids[:, :4] == np.arange(4)).all() and (ids[0] == ids[1]).sum() >= 7


@pytest.mark.parametrize("head_dim,base,section", [(128, 10000.0, (16, 24, 24)), (16, 100.0, (2, 3, 3)),
                                                   (8, 1e6, (0, 2, 2))])
def test_angles_match_the_loops(head_dim, base, section):
    ids = pl.mrope_position_ids(2, (2, 3, 4), 3)
    got = pl.mrope_angles(ids, head_dim, base, section)
    assert got.shape == (ids.shape[1], head_dim // 2)
    assert np.allclose(got, angles_loop(ids.tolist(), head_dim, base, section), rtol=1e-12, atol=0)


def test_text_alone_is_plain_rope():
    ids = pl.mrope_position_ids(6, (1, 1, 1), 0)[:, :6]
    plain = np.array([[p * 10000.0 ** (-2.0 * j / 128) for j in range(64)] for p in range(6)])
    assert np.allclose(pl.mrope_angles(ids), plain, rtol=1e-12)


def test_patch_scores_identities():
    for layout in pl.PATCH_LAYOUTS:
        s = pl.patch_scores(6, 6, 2, 3, layout)
        assert math.isclose(s[2, 3], 1.0) and s.max() <= 1.0 + 1e-12
    raster = pl.patch_scores(8, 8, 3, 3, "raster")
    # raster order: the patch below is offset 8, the patch right offset 1 (score = mean cos(k w_j))
    w = [10000.0 ** (-2.0 * j / 128) for j in range(64)]
    assert math.isclose(raster[4, 3], sum(math.cos(8 * x) for x in w) / 64, rel_tol=1e-12)
    assert math.isclose(raster[3, 4], sum(math.cos(1 * x) for x in w) / 64, rel_tol=1e-12)
    axial = pl.patch_scores(8, 8, 3, 3, "axial")
    assert math.isclose(axial[4, 3], axial[3, 4], rel_tol=1e-12)          # below = right
    assert math.isclose(axial[2, 3], axial[4, 3], rel_tol=1e-12)          # up = down


@pytest.mark.parametrize("call,name", [
    (lambda: pl.mrope_position_ids(-1, (1, 2, 2), 0), "n_text_before"),
    (lambda: pl.mrope_position_ids(0, (1, 2), 0), "grid_thw"),
    (lambda: pl.mrope_position_ids(0, (1, 0, 2), 0), "grid_thw[1]"),
    (lambda: pl.mrope_position_ids(0, (1, 2, 2), 1.5), "n_text_after"),
    (lambda: pl.mrope_angles(np.zeros((2, 3), dtype=int)), "position_ids"),
    (lambda: pl.mrope_angles(np.zeros((3, 3))), "position_ids"),
    (lambda: pl.mrope_angles(np.zeros((3, 3), dtype=int), head_dim=127), "head_dim"),
    (lambda: pl.mrope_angles(np.zeros((3, 3), dtype=int), section=(16, 24, 23)), "section"),
    (lambda: pl.mrope_angles(np.zeros((3, 3), dtype=int), base=0.5), "base"),
    (lambda: pl.patch_scores(4, 4, 4, 0), "query_row"),
    (lambda: patch_angles(4, 4, "diagonal"), "layout"),
])
def test_argument_errors_name_the_parameter(call, name):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{name} ") and name in chinese_half(message), message


# -- a ViT's learned table at a new resolution ---------------------------------------------------
@pytest.mark.parametrize("grid, new", [(5, 8), (5, (3, 7)), (4, (13, 4)), (6, 2), (3, 3)])
def test_resize_position_table_is_bicubic_written_as_loops(grid, new):
    """Hugging Face's ViT: the class token's row apart and unchanged, the grid resized by torch's bicubic
    interpolation (align_corners=False, a given size); here against the kernel and the border rule of
    PyTorch's UpSample.h written out point by point (tests/reference.py) on a random table."""
    rng = np.random.default_rng(grid)
    table = rng.normal(size=(1 + grid * grid, 4))
    got = pl.resize_position_table(table, new)
    rows, cols = (new, new) if isinstance(new, int) else new
    assert got.shape == (1 + rows * cols, 4)
    np.testing.assert_array_equal(got[0], table[0])
    for c in range(4):
        channel = [[table[1 + r * grid + x, c] for x in range(grid)] for r in range(grid)]
        np.testing.assert_allclose(got[1:, c], np.ravel(ref.bicubic_resize(channel, rows, cols)), atol=1e-12)


def test_resizing_to_the_same_grid_returns_the_table_and_constants_stay_constant():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(1 + 49, 3))
    np.testing.assert_array_equal(pl.resize_position_table(table, 7), table)
    flat = np.ones((1 + 16, 2))
    np.testing.assert_allclose(pl.resize_position_table(flat, (9, 5)), 1.0, atol=1e-12)   # the kernel's weights sum to 1


def test_the_cubic_kernel_has_keys_values():
    assert ref.keys_cubic(0.0) == 1.0 and ref.keys_cubic(1.0) == 0.0 and ref.keys_cubic(2.0) == 0.0
    assert ref.keys_cubic(0.5) == pytest.approx(1 - 2.25 * 0.25 + 1.25 * 0.125)       # (A+2)|x|³ − (A+3)|x|² + 1


@pytest.mark.parametrize("table, grid, name", [(np.zeros((11, 4)), 4, "square grid"), (np.zeros((17, 4)), 0, "new_grid"),
                                               (np.zeros((17, 4)), (2, 3, 4), "new_grid")])
def test_resize_arguments_are_checked(table, grid, name):
    with pytest.raises(ValueError, match=name):
        pl.resize_position_table(table, grid)
