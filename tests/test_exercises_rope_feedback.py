"""Feedback of the exercise checks of notebook 07 (RoPE): posenc/exercises/rope.py.

Every exercise is answered right, with each typical slip, with a wrong type and with None;
a wrong answer's message must name what was entered and the slip it shows (keywords).
Expected values come from an independent source: RoPE written with complex numbers
(pair i = x_2i + i x_2i+1 times e^{i pos w_i}, as in Meta's LLaMA code), and the sinusoidal
rows of tests/reference.py.
"""
import cmath
import math

import pytest

import posenc_lib as pl
import reference as ref
from support import assert_placeholder, assert_refused_clearly, assert_wrong


# ---------------------------------------------------------------------------
# Independent references
# ---------------------------------------------------------------------------
def rope_pair(x0, x1, pos, w=1.0):
    """One pair rotated by RoPE: (x0 + i x1) e^{i pos w}."""
    return complex(x0, x1) * cmath.exp(1j * pos * w)


def score_d2(q, key, m, n):
    """rope(q, m) . rope(κ, n) for d = 2 (w_0 = 1): Re(conj(z_q) z_κ)."""
    zq, zk = rope_pair(*q, m), rope_pair(*key, n)
    return (zq.conjugate() * zk).real


# ---------------------------------------------------------------------------
# 07, 练习 1: check_rope_angle
# ---------------------------------------------------------------------------
def test_rope_angle_right():
    angle = 100 * 10000 ** (-2 * 1 / 4)          # pos * w_1, d = 4
    assert abs(angle - 1.0) < 1e-12
    assert pl.check_rope_angle(angle, i=1, pos=100, d_model=4)
    v = pl.check_rope_angle(angle + 2 * math.pi, i=1, pos=100, d_model=4)
    assert v and "整圈" in v.message


@pytest.mark.parametrize("answer,shown,keywords", [
    (math.degrees(1.0), "57.2958", ["角度制", "弧度"]),
    (100 / 0.01, "10000", ["÷"]),
    (100 * 10000 ** (-1 / 4), "10", ["−i/d_model"]),
    (100 * 10000 ** (-4 / 4), "0.01", ["维度下标", "2i = 2"]),
    (2.0, "2", ["base^(−2i/d_model)", "pos × w_i"]),
    ("一", "一", ["一个数"]),
])
def test_rope_angle_names_each_slip(answer, shown, keywords):
    assert_wrong(pl.check_rope_angle(answer, i=1, pos=100, d_model=4), shown, *keywords)


def test_rope_angle_none():
    assert_placeholder(pl.check_rope_angle(None, i=1, pos=100, d_model=4))


# ---------------------------------------------------------------------------
# 07, 练习 2: check_rope_score
# ---------------------------------------------------------------------------
Q, KEY, M, N = (1.0, 0.0), (0.0, 1.0), 3, 4


def test_rope_score_right():
    right = score_d2(Q, KEY, M, N)
    assert abs(right - (-math.sin(1))) < 1e-12
    for answer in (right, round(right, 4), -0.8415):
        v = pl.check_rope_score(answer, q=list(Q), key=list(KEY), m=M, n=N)
        assert v and "-0.8415" in v.message


@pytest.mark.parametrize("answer,keywords", [
    (score_d2(Q, KEY, N, M), ["方向反了", "m − n = -1"]),            # +0.8415
    (score_d2(Q, KEY, 0, M + N), ["m + n = 7", "方向不一致"]),        # -0.6570
    (0.0, ["没有旋转"]),
    (score_d2(Q, KEY, 0, N), ["只把 κ 转到位置 n = 4"]),             # 0.7568
    (score_d2(Q, KEY, M, 0), ["只把 q 转到位置 m = 3"]),             # 0.1411
    (-math.sin(math.radians(1)), ["度"]),
    (0.5, ["qᵀ𝓡_(n−m)κ", "n − m = 1"]),
])
def test_rope_score_names_each_slip(answer, keywords):
    rounded = round(answer, 4)
    verdict = pl.check_rope_score(rounded, q=list(Q), key=list(KEY), m=M, n=N)
    assert_wrong(verdict, f"{rounded:.6g}" if rounded else "0", *keywords)


def test_rope_score_wrong_type_and_none():
    assert_wrong(pl.check_rope_score("x"), "x", "一个数")
    assert_wrong(pl.check_rope_score([-0.8415, 0.0]), "[-0.8415, 0]", "一个数")
    assert_placeholder(pl.check_rope_score(None))


# ---------------------------------------------------------------------------
# 07, 练习 3: check_rope_pe_position
# ---------------------------------------------------------------------------
def test_rope_pe_position_right():
    d = 8
    turned = []
    for i in range(d // 2):                      # RoPE on each (sin, cos) pair of PE(20), pos = 6
        z = rope_pair(*ref.pe_row(20, d)[2 * i:2 * i + 2], 6, 10000 ** (-2 * i / d))
        turned += [z.real, z.imag]
    matches = [p for p in range(-50, 51) if max(abs(a - b) for a, b in zip(turned, ref.pe_row(p, d))) < 1e-9]
    assert matches == [14]
    assert pl.check_rope_pe_position(14, p=20, pos=6)
    assert pl.check_rope_pe_position(14.0, p=20, pos=6)


@pytest.mark.parametrize("answer,shown,keywords", [
    (26, "26", ["第 04 篇", "R_6", "顺时针", "R_(−pos)"]),
    (-14, "-14", ["减反了"]),
    (20, "20", ["移动指针"]),
    (6, "6", ["旋转用的位置"]),
    (13, "13", ["往前还是往后"]),
    ("14.0x", "14.0x", ["整数"]),
    (14.5, "14.5", ["整数"]),
])
def test_rope_pe_position_names_each_slip(answer, shown, keywords):
    assert_wrong(pl.check_rope_pe_position(answer, p=20, pos=6), shown, *keywords)


def test_rope_pe_position_none():
    assert_placeholder(pl.check_rope_pe_position(None, p=20, pos=6))


# ---------------------------------------------------------------------------
# 07, 练习 4: check_rope_shift
# ---------------------------------------------------------------------------
def test_rope_shift():
    v = pl.check_rope_shift(False, shift=7)
    assert v and "不变" in v.message and "k = n − m 没变" in v.message
    assert_wrong(pl.check_rope_shift(True, shift=7), "True", "偏移 k = n − m 还是 7", "挪动前")
    assert_wrong(pl.check_rope_shift("no", shift=7), "'no'", "True / False")
    assert_wrong(pl.check_rope_shift(0, shift=7), "0", "True / False")
    assert_placeholder(pl.check_rope_shift(None, shift=7))


# ---------------------------------------------------------------------------
# The notebooks call these checks with the questions their text asks
# ---------------------------------------------------------------------------
def test_notebook_exercises_use_these_checks():
    from support import declared

    assert declared("07_rope")[:4] == ["check_rope_angle(i=1, pos=100, d_model=4)",
                                        "check_rope_score(q=(1, 0), key=(0, 1), m=3, n=4)",
                                        "check_rope_pe_position(p=20, pos=6)", "check_rope_shift(shift=7)"]


# ---------------------------------------------------------------------------
# More answers in other forms, and bad arguments refused naming the parameter passed
# ---------------------------------------------------------------------------
def test_check_rope_angle():
    assert pl.check_rope_angle(1.0, i=1, pos=100, d_model=4)
    assert pl.check_rope_angle(1.0 + 2 * math.pi, i=1, pos=100, d_model=4)          # a whole turn more
    v = pl.check_rope_angle(math.degrees(1.0), i=1, pos=100, d_model=4)
    assert not v and "弧度" in v.message
    v = pl.check_rope_angle(100 / 0.01, i=1, pos=100, d_model=4)
    assert not v and "÷" in v.message
    v = pl.check_rope_angle(100 * 10000 ** (-1 / 4), i=1, pos=100, d_model=4)
    assert not v and "2i" in v.message
    assert not pl.check_rope_angle(None, i=1, pos=100, d_model=4)


def test_check_rope_shift():
    assert pl.check_rope_shift(False)
    assert "不变" in pl.check_rope_shift(False).message
    assert not pl.check_rope_shift(True)
    assert not pl.check_rope_shift(None)
    assert not pl.check_rope_shift("no")


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.check_rope_angle(1.0, i=2, pos=5, d_model=4), ValueError, "i must be"),
    (lambda: pl.check_rope_shift(False, m="a"), TypeError, "m must be an integer"),
    (lambda: pl.check_rope_shift(False, n=1.5), TypeError, "n must be an integer"),
    (lambda: pl.check_rope_shift(False, d_model=3), ValueError, "d_model"),
    (lambda: pl.check_rope_score(0.5, q=[1, 0], key=[1, 0, 0, 1]), ValueError, "q and key"),
    (lambda: pl.check_rope_score(0.5, m="3"), TypeError, "m must be an integer"),
    (lambda: pl.check_rope_pe_position(0, p=2.5), TypeError, "p must be an integer"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


# ---------------------------------------------------------------------------
# 07, 练习 5: check_llama_row (expected row from reference.llama_permuted_row)
# ---------------------------------------------------------------------------
def test_llama_row_right_for_every_row():
    for r in range(8):
        expected = ref.llama_permuted_row(r, 8)
        assert pl.check_llama_row(expected, r=r, head_dim=8), r
    assert ref.llama_permuted_row(5, 8) == 3


@pytest.mark.parametrize("answer,keywords", [
    (6, ["反方向", "第 6 行"]),
    (5, ["重排会移动行"]),
    (1, ["所属的对"]),
    (2, ["c·4 + j"]),
    ("三", ["整数"]),            # not a number (typed "3" would be read as 3)
])
def test_llama_row_names_each_slip(answer, keywords):
    assert_wrong(pl.check_llama_row(answer, r=5, head_dim=8), str(answer),
                 *keywords)


def test_llama_row_partner_and_none():
    assert_wrong(pl.check_llama_row(4, r=0, head_dim=8), "4", "搭档")
    assert_placeholder(pl.check_llama_row(None))


# ---------------------------------------------------------------------------
# 07, 练习 6: check_partial_rotary_pairs (GPT-NeoX-20B: 6144 / 64 = 96 dims per head, 25 %)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("answer,keywords", [
    (24, ["被转的维数", "对数"]),
    (72, ["不转的维数"]),
    (36, ["不转的对数"]),
    (1536, ["每个头"]),
    (768, ["每个头"]),
    (48, ["整个头的对数"]),
    (13, ["hidden_size / 头数"]),
    (12.5, ["整数"]),
])
def test_partial_rotary_pairs_names_each_slip(answer, keywords):
    assert_wrong(pl.check_partial_rotary_pairs(answer), str(answer), *keywords)


def test_partial_rotary_pairs_right_and_none():
    assert 6144 // 64 * 0.25 / 2 == 12
    v = pl.check_partial_rotary_pairs(12)
    assert v and "72 维不转" in v.message
    assert pl.check_partial_rotary_pairs(8, hidden_size=1024, num_heads=16, rotary_pct=0.25)   # 64 · 0.25 / 2
    assert_placeholder(pl.check_partial_rotary_pairs(None))


def test_notebook_calls_the_new_checks():
    from support import declared

    for call in ("check_llama_row(r=5, head_dim=8)", "check_partial_rotary_pairs()"):
        assert call in declared("07_rope"), call
