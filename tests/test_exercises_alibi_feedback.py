"""Feedback of the exercise checks of notebook 08 (ALiBi and extrapolation):
posenc/exercises/alibi.py.

Every exercise is answered right, with each typical slip, with a wrong type and with None;
a wrong answer's message must name what was entered and the slip it shows (keywords).
Expected values come from independent sources: the ALiBi authors' ``get_slopes``
(ofirpress/attention_with_linear_biases, fairseq/models/transformer.py; the same recipe as
Hugging Face's BLOOM ``build_alibi_tensor``) rewritten with the math module, and the 谁咬谁
sentence layout counted by plain loops.
"""
import math

import pytest

import posenc_lib as pl
import reference as ref
from support import assert_placeholder, assert_refused_clearly, assert_wrong


# ---------------------------------------------------------------------------
# 08, 练习 1 and 2: check_alibi_slope
# ---------------------------------------------------------------------------
def test_alibi_slope_right_for_8_and_12_heads():
    s8, s12 = ref.alibi_reference_slopes(8), ref.alibi_reference_slopes(12)
    assert pl.check_alibi_slope(s8[2], h=3, num_heads=8) and pl.check_alibi_slope(2 ** -3, h=3, num_heads=8)
    assert pl.check_alibi_slope(0.125, h=3, num_heads=8)
    assert pl.check_alibi_slope(s12[9], h=10, num_heads=12)
    assert abs(s12[9] - 2 ** -1.5) < 1e-15            # the 2nd head added: 16 heads' 3rd slope
    assert "2^(−1.5)" in pl.check_alibi_slope(s12[9], h=10, num_heads=12).message


@pytest.mark.parametrize("h,H,answer,shown,keywords", [
    # heads counted from 0 (the convention's own example), or one too far
    (3, 8, 0.25, "0.25", ["第 2 个头", "从 0 开始数", "h 从 1 开始数"]),
    (3, 8, 1 / 16, "0.0625", ["第 4 个头", "多数了一个头"]),
    (1, 8, 1.0, "1", ["2^0", "从 0 开始数"]),
    (3, 8, 2 ** (-3 / 8), "0.771105", ["少了 8"]),
    (3, 8, -0.125, "-0.125", ["正数", "偏置"]),
    # H = 12 is not a power of 2: the authors' recipe
    (10, 12, 2 ** (-8 * 10 / 12), "0.00984313", ["2^(−8h/H)", "不是 2 的幂", "隔一个取一个", "8 个头"]),
    (10, 12, 2 ** -10, "0.000976562", ["接着往下延伸", "16 个头"]),
    (10, 12, 2 ** -1, "0.5", ["16 个头那组的第 2 个", "隔一个取一个"]),
    (10, 12, 2 ** -5, "0.03125", ["16 个头那组的第 10 个", "第 3 个"]),
    (10, 12, 2 ** -0.5, "0.707107", ["第 9 个头", "从 0 开始数"]),
    (10, 12, 2 ** -2.5, "0.176777", ["第 11 个头"]),
])
def test_alibi_slope_names_each_slip(h, H, answer, shown, keywords):
    assert_wrong(pl.check_alibi_slope(answer, h=h, num_heads=H), shown, *keywords)


def test_alibi_slope_other_wrong_answers_and_types():
    assert_wrong(pl.check_alibi_slope(0.3, h=10, num_heads=12), "0.3", "不是 2 的幂", "−1.5")
    assert_wrong(pl.check_alibi_slope(0.3, h=3, num_heads=8), "0.3", "2^(−8h/H)", "−3")
    assert pl.check_alibi_slope("1/8", h=3, num_heads=8)        # typed text is read: 1/8 is a number
    assert_wrong(pl.check_alibi_slope("一个八分之一", h=3, num_heads=8), "一个八分之一", "一个数")
    assert_wrong(pl.check_alibi_slope([0.125], h=3, num_heads=8), "[0.125]", "一个数")
    assert_wrong(pl.check_alibi_slope(True, h=3, num_heads=8), "True", "一个数")
    assert_placeholder(pl.check_alibi_slope(None, h=3, num_heads=8))


# ---------------------------------------------------------------------------
# 08, 练习 3: check_alibi_bias
# ---------------------------------------------------------------------------
def test_alibi_bias_right():
    s2 = ref.alibi_reference_slopes(8)[1]
    expected = -s2 * (6 - 2)                            # causal: -s_h (m - n), key in the past
    assert expected == -1.0
    for answer in (-1, -1.0, expected):
        v = pl.check_alibi_bias(answer, h=2, num_heads=8, m=6, n=2)
        assert v and "−0.25 × 4" in v.message
    # a future key is masked in the causal form, but not in the symmetric one
    assert pl.check_alibi_bias(float("-inf"), h=2, num_heads=8, m=2, n=6)
    assert pl.check_alibi_bias(-math.inf, h=2, num_heads=8, m=2, n=6)
    assert pl.check_alibi_bias(-s2 * 4, h=2, num_heads=8, m=2, n=6, causal=False)


@pytest.mark.parametrize("args,answer,shown,keywords", [
    ((2, 8, 6, 2), 1.0, "1", ["符号反了", "扣分"]),
    ((2, 8, 6, 2), -2.0, "-2", ["第 1 个头", "0.5", "从 0 开始数"]),
    ((2, 8, 6, 2), -0.5, "-0.5", ["第 3 个头", "0.125"]),
    ((2, 8, 6, 2), -4.0, "-4", ["忘了乘斜率"]),
    ((2, 8, 6, 2), -0.25, "-0.25", ["忘了乘距离"]),
    ((3, 8, 5, 1), -1 / 8 * 6, "-0.75", ["不是和", "|n − m| = 4"]),
    ((2, 8, 6, 2), float("-inf"), "-inf", ["未来", "n = 2 ≤ m = 6"]),
    ((2, 8, 6, 2), float("inf"), "inf", ["+inf"]),
    ((2, 8, 2, 6), -1.0, "-1", ["未来", "−inf"]),
    ((2, 8, 6, 2), -3.0, "-3", ["s_2 = 0.25", "距离 4"]),
    ((2, 8, 6, 2), "-0.50", "-0.50", ["第 3 个头的斜率"]),    # typed text, echoed as typed
    ((2, 8, 6, 2), "−1,0", "−1,0", ["小数点"]),
])
def test_alibi_bias_names_each_slip(args, answer, shown, keywords):
    assert_wrong(pl.check_alibi_bias(answer, *args), shown, *keywords)


def test_alibi_bias_none():
    assert_placeholder(pl.check_alibi_bias(None, h=2, num_heads=8, m=6, n=2))


# ---------------------------------------------------------------------------
# 08, 练习 4: check_alibi_start
# ---------------------------------------------------------------------------
def smallest_start_seen(seq_len, lo=4, hi=8):
    """Count it: every training sentence [fillers] A 咬 B [fillers] 。 of length lo..hi puts the
    biter at start 0..L-4, so the biter-to-。 distances L-1-start seen in training; then the
    smallest start in a sentence of seq_len tokens whose distance is among them."""
    seen = {L - 1 - s for L in range(lo, hi + 1) for s in range(L - 3)}
    return min(s for s in range(seq_len - 3) if seq_len - 1 - s in seen)


def test_alibi_start_right():
    assert smallest_start_seen(20) == 12 and smallest_start_seen(16) == 8
    for seq_len in (9, 16, 20, 32):
        v = pl.check_alibi_start(smallest_start_seen(seq_len), seq_len=seq_len)
        assert v and "训练" in v.message, (seq_len, v)
    assert pl.check_alibi_start(12.0, seq_len=20)


@pytest.mark.parametrize("answer,shown,keywords", [
    (13, "13", ["19", "不是 20"]),
    (7, "7", ["最大距离"]),
    (4, "4", ["绝对位置", "正弦"]),
    (16, "16", ["最大的 start", "最小"]),
    (8, "8", ["长度 16 的答案"]),
    (10, "10", ["19 − start ≤ 7"]),
    ("12.5", "12.5", ["整数"]),
    (11.5, "11.5", ["整数"]),
])
def test_alibi_start_names_each_slip(answer, shown, keywords):
    assert_wrong(pl.check_alibi_start(answer, seq_len=20), shown, *keywords)


def test_alibi_start_none():
    assert_placeholder(pl.check_alibi_start(None, seq_len=20))


# ---------------------------------------------------------------------------
# The notebooks call these checks with the questions their text asks
# ---------------------------------------------------------------------------
def test_notebook_exercises_use_these_checks():
    from support import declared

    assert declared("08_alibi_extrapolation") == ["check_alibi_slope(h=3, num_heads=8)",
                                                   "check_alibi_slope(h=10, num_heads=12)",
                                                   "check_alibi_bias(h=2, num_heads=8, m=6, n=2)",
                                                   "check_alibi_start(seq_len=20)"]


# ---------------------------------------------------------------------------
# More answers in other forms, and bad arguments refused naming the parameter passed
# ---------------------------------------------------------------------------
def test_check_alibi_slope():
    assert pl.check_alibi_slope(1 / 8, h=3, num_heads=8)
    assert pl.check_alibi_slope(2 ** -3, h=3, num_heads=8)
    v = pl.check_alibi_slope(1 / 4, h=3, num_heads=8)
    assert not v and "从 1 开始" in v.message
    v = pl.check_alibi_slope(2 ** (-3 / 8), h=3, num_heads=8)
    assert not v and "8" in v.message
    v = pl.check_alibi_slope(-1 / 8, h=3, num_heads=8)
    assert not v and "正数" in v.message
    assert not pl.check_alibi_slope(None, h=3, num_heads=8) and not pl.check_alibi_slope("1/4", h=3, num_heads=8)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.check_alibi_slope(0.5, h=9, num_heads=8), ValueError, "h must be"),
    (lambda: pl.check_alibi_bias(-1.0, h=2, num_heads=8, m="6", n=2), TypeError, "m must be an integer"),
    (lambda: pl.check_alibi_start(4, seq_len=20, train_lengths=(4, 80)), ValueError, "train_lengths[1]"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
