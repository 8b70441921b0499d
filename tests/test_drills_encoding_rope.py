"""Drills on the sinusoidal table and RoPE: a right function, written here as plain loops, is
正确; every declared slip, written here as plain loops too (never imported from the library), is
named by its own message; some messages' numbers are checked against hand values."""
import math

import numpy as np
import pytest

from support import assert_every_slip_tested, assert_names
from posenc.exercises.drills import encoding as E
from posenc.exercises.drills import rope as R


def test_every_slip_of_these_drills_has_a_test():
    assert_every_slip_tested(((E.SINUSOIDAL_TABLE, SINUSOID_SLIPS), (R.ROPE_INTERLEAVED, ROPE_SLIPS),
                              (R.ROPE_COS_SIN, CACHE_SLIPS), (R.ROPE_ROTATE_HALF, HALF_SLIPS),
                              (R.ROPE_PERMUTE, PERMUTE_SLIPS)))


# ---------------------------------------------------------------------------
# The sinusoidal table
# ---------------------------------------------------------------------------
def table_loops(seq_len, d_model, base=10000.0, layout="interleaved", *, exponent=2, cos_shift=0, divide=False,
                start=0, swap=False, force_layout=None, integer_division=False):
    layout = force_layout or layout
    out = np.zeros((seq_len, d_model))
    for r in range(seq_len):
        pos = start + r
        for i in range(d_model // 2):
            e = lambda k: (exponent * k) // d_model if integer_division else exponent * k / d_model
            w, w_cos = base ** -e(i), base ** -e(i + cos_shift)
            s = math.sin(pos / w if divide else pos * w)
            c = math.cos(pos / w_cos if divide else pos * w_cos)
            if swap:
                s, c = c, s
            if layout == "interleaved":
                out[r, 2 * i], out[r, 2 * i + 1] = s, c
            else:
                out[r, i], out[r, d_model // 2 + i] = s, c
    return out


SINUSOID_SLIPS = {
    "interleaved_for_split": dict(force_layout="interleaved"),
    "split_for_interleaved": dict(force_layout="split"),
    "exponent_i_over_d": dict(exponent=1),
    "cos_next_pair": dict(cos_shift=1),
    "divided": dict(divide=True),
    "positions_from_1": dict(start=1),
    "sin_cos_swapped": dict(swap=True),
    "integer_division": dict(integer_division=True),
}


def test_the_sinusoidal_table_written_as_loops_is_right():
    verdict = E.check_drill_sinusoidal_table(table_loops)
    assert verdict and verdict.kind == "right" and "5 组输入" in verdict.message


@pytest.mark.parametrize("name", SINUSOID_SLIPS)
def test_each_sinusoidal_slip_is_named(name):
    knobs = SINUSOID_SLIPS[name]
    fn = lambda seq_len, d_model, base=10000.0, layout="interleaved": table_loops(seq_len, d_model, base, layout, **knobs)
    assert_names(E.check_drill_sinusoidal_table, E.SINUSOIDAL_TABLE, fn, name)


def test_a_sinusoidal_slip_shows_the_cell_and_its_right_value():
    fn = lambda seq_len, d_model, base=10000.0, layout="interleaved": table_loops(seq_len, d_model, base, layout, start=1)
    message = E.check_drill_sinusoidal_table(fn).message
    # first case: seq_len 4, d_model 4; row pos = 0, column 0 holds sin(1) instead of sin(0) = 0
    assert f"pos = 0 这一行的第 0 列（第 i = 0 对的 sin）是 {math.sin(1):.4g}，应为 sin(0·w_0) = 0" in message


# ---------------------------------------------------------------------------
# RoPE, interleaved pairs
# ---------------------------------------------------------------------------
def rope_loops(x, positions, base=10000.0, *, halves=False, exponent=2, sign=1, offset=0, use_positions=True,
               times_pos=True):
    x = np.asarray(x, dtype=float)
    out = x.copy()
    d = x.shape[-1]
    for lead in np.ndindex(*x.shape[:-2]):
        for r in range(x.shape[-2]):
            pos = (positions[r] if use_positions else r) + offset
            for i in range(d // 2):
                w = base ** (-exponent * i / d)
                a = sign * (pos * w if times_pos else w)
                p, q = (i, i + d // 2) if halves else (2 * i, 2 * i + 1)
                x0, x1 = x[lead + (r, p)], x[lead + (r, q)]
                out[lead + (r, p)] = x0 * math.cos(a) - x1 * math.sin(a)
                out[lead + (r, q)] = x0 * math.sin(a) + x1 * math.cos(a)
    return out


ROPE_SLIPS = {
    "halves": dict(halves=True),
    "exponent_i_over_d": dict(exponent=1),
    "clockwise": dict(sign=-1),
    "positions_from_1": dict(offset=1),
    "ignores_positions": dict(use_positions=False),
    "angle_without_pos": dict(times_pos=False),
}


def test_rope_written_as_loops_is_right():
    assert R.check_drill_rope_interleaved(rope_loops)


@pytest.mark.parametrize("name", ROPE_SLIPS)
def test_each_rope_slip_is_named(name):
    knobs = ROPE_SLIPS[name]
    fn = lambda x, positions, base=10000.0: rope_loops(x, positions, base, **knobs)
    assert_names(R.check_drill_rope_interleaved, R.ROPE_INTERLEAVED, fn, name)


@pytest.mark.parametrize("name, numbers", [
    # first case: d = 4, base 10000, the row at pos = 1: pair 0 turns by 1 rad, pair 1 by 0.01
    ("clockwise", "pos = 1 的行、第 i = 0 对（第 0、1 维）被转了 -1 弧度，应转 1 弧度"),
    ("exponent_i_over_d", "pos = 1 的行、第 i = 1 对（第 2、3 维）被转了 0.1 弧度，应转 0.01 弧度"),
    ("positions_from_1", "pos = 0 的行、第 i = 0 对（第 0、1 维）被转了 1 弧度，应转 0 弧度"),
])
def test_a_rope_slip_shows_the_angle_the_reader_turned_by(name, numbers):
    knobs = ROPE_SLIPS[name]
    message = R.check_drill_rope_interleaved(lambda x, positions, base=10000.0: rope_loops(x, positions, base, **knobs)).message
    assert numbers in message


# ---------------------------------------------------------------------------
# The split-halves cos/sin cache
# ---------------------------------------------------------------------------
def cache_loops(positions, head_dim, base=10000.0, *, interleaved=False, half_only=False, exponent=2, offset=0,
                swapped=False):
    cols = head_dim // 2 if half_only else head_dim
    cos, sin = np.zeros((len(positions), cols)), np.zeros((len(positions), cols))
    for r, pos in enumerate(positions):
        for c in range(cols):
            j = c // 2 if interleaved else c % (head_dim // 2)
            a = (pos + offset) * base ** (-exponent * j / head_dim)
            cos[r, c], sin[r, c] = math.cos(a), math.sin(a)
    return (sin, cos) if swapped else (cos, sin)


CACHE_SLIPS = {
    "interleaved_cache": dict(interleaved=True),
    "half_only": dict(half_only=True),
    "exponent_i_over_d": dict(exponent=1),
    "positions_from_1": dict(offset=1),
    "swapped": dict(swapped=True),
}


def test_the_cache_written_as_loops_is_right():
    assert R.check_drill_rope_cos_sin(cache_loops)


@pytest.mark.parametrize("name", CACHE_SLIPS)
def test_each_cache_slip_is_named(name):
    knobs = CACHE_SLIPS[name]
    fn = lambda positions, head_dim, base=10000.0: cache_loops(positions, head_dim, base, **knobs)
    assert_names(R.check_drill_rope_cos_sin, R.ROPE_COS_SIN, fn, name)


def test_half_a_cache_says_the_shape():
    message = R.check_drill_rope_cos_sin(lambda p, d, base=10000.0: cache_loops(p, d, base, half_only=True)).message
    assert "cos 的形状是 (3, 2)，应为 (3, 4)" in message


# ---------------------------------------------------------------------------
# The cache applied with rotate_half
# ---------------------------------------------------------------------------
def apply_loops(x, cos, sin, *, rotation="half", swap=False):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    d, h = x.shape[-1], x.shape[-1] // 2
    for lead in np.ndindex(*x.shape[:-1]):
        r = lead[-1]
        row = x[lead]
        turned = np.zeros(d)
        for j in range(d):
            if rotation == "half":
                turned[j] = -row[j + h] if j < h else row[j - h]
            elif rotation == "reversed":
                turned[j] = row[j + h] if j < h else -row[j - h]
            elif rotation == "every_two":
                turned[j] = -row[j + 1] if j % 2 == 0 else row[j - 1]
            else:
                turned[j] = row[j]
        for j in range(d):
            c, s = (sin[r, j], cos[r, j]) if swap else (cos[r, j], sin[r, j])
            out[lead + (j,)] = row[j] * c + turned[j] * s
    return out


HALF_SLIPS = {
    "rotate_half_sign": dict(rotation="reversed"),
    "every_two": dict(rotation="every_two"),
    "cos_sin_swapped": dict(swap=True),
    "no_rotate_half": dict(rotation="none"),
}


def test_rotate_half_written_as_loops_is_right():
    assert R.check_drill_rope_rotate_half(apply_loops)


@pytest.mark.parametrize("name", HALF_SLIPS)
def test_each_rotate_half_slip_is_named(name):
    knobs = HALF_SLIPS[name]
    assert_names(R.check_drill_rope_rotate_half, R.ROPE_ROTATE_HALF,
                 lambda x, cos, sin: apply_loops(x, cos, sin, **knobs), name)


# ---------------------------------------------------------------------------
# Converting the weights: Meta's interleaved rows to Hugging Face's halves
# ---------------------------------------------------------------------------
def permute_loops(w, n_heads, *, mode="right"):
    w = np.asarray(w, dtype=float)
    rows, cols = w.shape
    out = w.copy()
    if mode == "unchanged":
        return out
    if mode == "columns":
        half = cols // 2
        for c in range(cols):
            out[:, c] = w[:, 2 * (c % half) + c // half]
        return out
    heads = 1 if mode == "ignore_heads" else n_heads
    head_dim = rows // heads
    half = head_dim // 2
    for h in range(heads):
        for c in range(2):
            for j in range(half):
                interleaved, halves = h * head_dim + 2 * j + c, h * head_dim + c * half + j
                if mode == "inverse":
                    out[interleaved] = w[halves]
                else:
                    out[halves] = w[interleaved]
    return out


PERMUTE_SLIPS = {name: dict(mode=name) for name in ("columns", "inverse", "unchanged")}
PERMUTE_SLIPS["ignores_heads"] = dict(mode="ignore_heads")


def test_the_permutation_written_as_loops_is_right():
    assert R.check_drill_rope_permute(permute_loops)


@pytest.mark.parametrize("name", PERMUTE_SLIPS)
def test_each_permutation_slip_is_named(name):
    knobs = PERMUTE_SLIPS[name]
    assert_names(R.check_drill_rope_permute, R.ROPE_PERMUTE, lambda w, n_heads: permute_loops(w, n_heads, **knobs), name)


def test_a_permutation_slip_says_which_row_came_from_where():
    message = R.check_drill_rope_permute(lambda w, n_heads: permute_loops(w, n_heads, mode="unchanged")).message
    # head_dim 4: row 1 of the halves layout is pair 1's first component, interleaved row 2
    assert "你的第 1 行是原来的第 1 行，应是原来的第 2 行" in message
