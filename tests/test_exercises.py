"""posenc/exercises/: ``Verdict`` and the generic checks (``verdict``), then the ``check_*``
helpers of ``encoding`` and ``learned`` (RoPE's and ALiBi's checks: test_exercises_rope_feedback.py,
test_exercises_alibi_feedback.py).

Each check must say 正确 to the right answer in any reasonable form, and 再想想 with a hint
naming the usual slip to a wrong one. Right answers are worked out here by hand or from the
formula (tests/reference.py), never taken from the code under test.
"""
import math

import numpy as np
import pytest

import posenc_lib as pl
from posenc.exercises.rule import check_choice


# ---------------------------------------------------------------------------
# verdict: check_choice
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("answer,correct", [
    (2, 2), (2.0, 2), (np.int64(2), 2), (" 不变 ", "不变"), ((2, 0), (2, 0)), ([2, 0], (2, 0)),
    (np.array([1, 2]), (1, 2)), (True, True), (np.bool_(False), False),
])
def test_check_choice_accepts_equivalent_answers(answer, correct):
    v = check_choice(answer, correct)
    assert isinstance(v, pl.Verdict) and v.ok, v.message
    assert "正确" in repr(v)


@pytest.mark.parametrize("answer,correct", [
    (1, 2), (2.5, 2), ("变", "不变"), ((0, 2), (2, 0)), (True, 1), (1, True), ((2,), (2, 0)),
])
def test_check_choice_rejects_wrong_answers_with_the_hint(answer, correct):
    v = check_choice(answer, correct, hint="看看置换 perm。")
    assert not v.ok
    assert "再想想" in repr(v) and "perm" in v.message


def test_check_choice_placeholder_and_options_never_raise():
    v = check_choice(None, 2, hint="提示")          # unanswered: a neutral prompt, never the hint
    assert not v and v.pending and "None" in v.message and "提示" not in v.message
    assert "再想想" not in repr(v) and "再想想" not in v._repr_html_()
    v = check_choice("也许", "不变", options=["变", "不变"])
    assert not v and "'变'" in v.message and "'不变'" in v.message
    assert check_choice("变", "变", options=["变", "不变"])
    assert "再想想" in v._repr_html_()


def test_check_choice_refuses_a_correct_answer_outside_its_options():
    with pytest.raises(ValueError, match="options"):
        check_choice("变", "也许", options=["变", "不变"])


# ---------------------------------------------------------------------------
# encoding: the table, wavelengths, the binary counter, the rotation
# ---------------------------------------------------------------------------
def test_check_pe_recognises_slips():
    assert pl.check_pe([0.8415, 0.5403], pos=1)
    v = pl.check_pe([math.sin(math.radians(1)), math.cos(math.radians(1))], pos=1)
    assert not v and "弧度" in v.message
    v = pl.check_pe([-0.4161, 0.9093], pos=2)
    assert not v and "写反" in v.message
    assert not pl.check_pe("0.84", pos=1)
    assert "正确" in repr(pl.check_pe([0.1411, -0.99], pos=3))
    assert not pl.check_pe([0.1411, -0.98], pos=3)


def test_check_wavelength():
    assert pl.check_wavelength(6.2832, i=0, d_model=512)
    assert not pl.check_wavelength(2 * math.pi * 10, i=1, d_model=4)
    assert pl.check_wavelength(2 * math.pi * 100, i=1, d_model=4)
    assert pl.check_wavelength(2 * math.pi * 1000, i=3, d_model=8)
    assert not pl.check_wavelength(2 * math.pi * 10000, i=3, d_model=8)


def test_check_dot_product():
    assert pl.check_dot_product(4.0, k=0, d_model=8)
    assert pl.check_dot_product(math.cos(1), k=1, d_model=2)
    assert not pl.check_dot_product(1.0, k=1, d_model=2)


def test_check_flipped_bits():
    assert pl.check_flipped_bits([0, 1, 2, 3], pos=8)
    assert pl.check_flipped_bits({3, 2, 1, 0}, pos=8)
    assert pl.check_flipped_bits([0, 1], pos=6)  # 101 -> 110
    assert pl.check_flipped_bits([0], pos=5)  # 100 -> 101
    partial = pl.check_flipped_bits(3, pos=8)
    assert not partial and "进位" in partial.message
    assert not pl.check_flipped_bits(None, pos=8)
    assert not pl.check_flipped_bits("3", pos=8)


def test_check_nearest_repeat():
    assert pl.check_nearest_repeat(710)
    assert pl.check_nearest_repeat(710.0)
    opposite = pl.check_nearest_repeat(355)
    assert not opposite and "正对面" in opposite.message
    assert not pl.check_nearest_repeat(None)
    assert not pl.check_nearest_repeat(5000)
    assert pl.check_nearest_repeat(1, d_model=64)


def test_check_split_column():
    # split = [sin of pairs 0..d/2-1, cos of pairs 0..d/2-1]; interleaved column of sin_i is 2i, cos_i is 2i+1
    d = 8
    expected = [2 * i for i in range(d // 2)] + [2 * i + 1 for i in range(d // 2)]
    for j in range(d):
        assert pl.check_split_column(expected[j], j=j, d_model=d)
        assert not pl.check_split_column(expected[j] + 1, j=j, d_model=d)
    assert not pl.check_split_column(None, j=5, d_model=8)


def test_check_rotation():
    k = 1
    right = [[math.cos(k), math.sin(k)], [-math.sin(k), math.cos(k)]]
    assert pl.check_rotation(right, k=k, d_model=2)
    wrong_way = pl.check_rotation([[math.cos(k), -math.sin(k)], [math.sin(k), math.cos(k)]], k=k, d_model=2)
    assert not wrong_way and "方向反了" in wrong_way.message
    assert not pl.check_rotation(None, k=k, d_model=2)
    assert not pl.check_rotation([[1, 0], [0, 1]], k=k, d_model=2)
    d4 = np.zeros((4, 4))
    for i, w in enumerate([1.0, 0.01]):
        d4[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[math.cos(3 * w), math.sin(3 * w)],
                                                [-math.sin(3 * w), math.cos(3 * w)]]
    assert pl.check_rotation(d4.tolist(), k=3, d_model=4)


# ---------------------------------------------------------------------------
# learned: the order-blind bound
# ---------------------------------------------------------------------------
def test_check_order_blind_accuracy():
    assert pl.check_order_blind_accuracy(0.5) and pl.check_order_blind_accuracy(1 / 2)
    for wrong, words in ((0.125, "瞎猜"), (50, "百分数"), (None, "None"), (1.0, "同一个答案"), ("a", "同一个答案")):
        v = pl.check_order_blind_accuracy(wrong)
        assert not v and words in v.message, (wrong, v.message)
