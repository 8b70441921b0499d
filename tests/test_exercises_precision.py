"""One precision rule for every numeric check (posenc/exercises/verdict.py): 3 significant
digits (or 4 decimals) unless the question asks for N decimals; rounding and truncating are both
right; a coarser rounding is named as a rounding slip, never as a wrong formula.

Expected values are computed here with ``math`` from the exercises' formulas, not by the code
under test.
"""
import math

import posenc_lib as pl
from posenc.exercises.verdict import agrees, rounding_slip, tolerance


def test_tolerance_is_one_unit_in_the_third_significant_digit_or_fourth_decimal():
    assert math.isclose(tolerance(1.20794), 0.01, rel_tol=1e-6)
    assert math.isclose(tolerance(40889.9), 100.0, rel_tol=1e-6)
    assert math.isclose(tolerance(0.8415), 0.001, rel_tol=1e-6)
    assert math.isclose(tolerance(0.0), 1e-4, rel_tol=1e-6)         # nothing to count digits of
    assert math.isclose(tolerance(0.8415, decimals=4), 1e-4, rel_tol=1e-6)
    assert math.isclose(tolerance(6283.2, decimals=1), 0.1, rel_tol=1e-6)


def test_rounded_and_truncated_answers_agree_coarser_ones_do_not():
    x = 0.1 * math.log(8) + 1                                       # 1.20794...
    for answer in (1.21, 1.208, 1.2079, 1.20794, 1.20):            # rounded or truncated
        assert agrees(answer, x), answer
    for answer in (1.22, 1.19, 1.3):
        assert not agrees(answer, x), answer


def test_the_three_checks_of_notebook_09_follow_one_rule():
    r40 = 4096 * 10000 ** (-80 / 128) / (2 * math.pi)             # 2.0615 turns
    base = 10000 * 4 ** (128 / 126)                                 # 40890
    att = 0.1 * math.log(8) + 1                                     # 1.2079
    # three significant digits, rounded, are right in each of them
    assert pl.check_rotations(2.06, i=40, d_model=128, length=4096)
    assert pl.check_ntk_base(40900, d_model=128, factor=4)
    assert pl.check_yarn_attention_factor(1.21, factor=8)
    assert pl.check_yarn_attention_factor(1.208, factor=8)                 # the learner-walk answer
    # two significant digits are a rounding slip in each of them, and said so
    for verdict in (pl.check_rotations(2.1, i=40, d_model=128, length=4096), pl.check_ntk_base(41000, d_model=128, factor=4),
                    pl.check_yarn_attention_factor(1.19, factor=8)):
        assert not verdict
    for verdict in (pl.check_rotations(2.1, i=40, d_model=128, length=4096), pl.check_ntk_base(41000, d_model=128, factor=4)):
        assert "舍入" in verdict.message and "3 位有效数字" in verdict.message, verdict.message
        assert "指数" not in verdict.message and "公式" not in verdict.message, verdict.message
    assert round(r40, 1) == 2.1 and round(base, -3) == 41000
    assert [float(f"{x:.3g}") for x in (r40, base, att)] == [2.06, 40900, 1.21]   # the answers typed above


def test_rounding_slip_names_the_rounding_and_only_it():
    x = 10000 * 4 ** (128 / 126)
    assert "2 位有效数字" in rounding_slip(41000, x)
    assert rounding_slip(40900, x) is None                           # right: no slip
    assert rounding_slip(123, x) is None                             # far off: not a rounding
    near = rounding_slip(x * 1.015, x)                               # 1.5 % off
    assert near is not None and "很接近" in near
    assert "4 位小数" in rounding_slip(0.842, 0.841471, decimals=4)  # a question asking for 4 decimals


def test_rope_score_and_alibi_checks_use_the_rule():
    right = -math.sin(1.0)                                          # q = [1, 0], κ = [0, 1], n - m = 1
    # notebook 07 asks for 4 decimals: 4 decimals rounded or truncated are right, 3 are a rounding slip
    # (issue 28: -0.841 was accepted for a question asking 4 decimals)
    assert pl.check_rope_score(round(right, 4), q=[1, 0], key=[0, 1], m=3, n=4)
    assert pl.check_rope_score(-0.8414, q=[1, 0], key=[0, 1], m=3, n=4)     # truncated
    for coarse in (-0.841, -0.84):
        verdict = pl.check_rope_score(coarse, q=[1, 0], key=[0, 1], m=3, n=4)
        assert not verdict and "方法对了，舍入太粗/位数不够" in verdict.message
    assert pl.check_alibi_slope(0.125, h=3, num_heads=8)
    assert pl.check_alibi_slope(round(2 ** -1.5, 3), h=10, num_heads=12)


def test_alibi_slope_names_an_exponent_given_for_the_slope():
    # H = 8, head 3: slope 2^(-8*3/8) = 2^-3 = 0.125, exponent -3
    for answer in (-3, 3):
        verdict = pl.check_alibi_slope(answer, h=3, num_heads=8)
        assert not verdict
        assert "指数" in verdict.message and "不是斜率" in verdict.message, verdict.message
        assert "0.125" in verdict.message
    verdict = pl.check_alibi_slope(-1.5, h=10, num_heads=12)                     # authors' recipe: exponent 1.5
    assert not verdict and "不是斜率" in verdict.message
