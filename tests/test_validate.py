"""posenc/validate.py: the argument checks every public function shares (and
posenc/position_limit.py: the limit of a position table).

Each check names the parameter and the allowed range, says it again in Chinese, refuses
booleans where a number is meant, NaN and infinities, and tables too large to build. The
public functions' own refusals are tested beside each function (``test_bad_input_*``).
"""
import math

import numpy as np
import pytest

import posenc_lib as pl
from posenc import validate as v
from support import assert_refused_clearly


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_check_int_accepts_integers_of_any_kind(value):
    got = v.check_int("n", value, 1, 5)
    assert got == 3 and type(got) is int


@pytest.mark.parametrize("value", [True, np.bool_(True), 3.0, "3", None])
def test_check_int_refuses_non_integers_with_type_error(value):
    assert_refused_clearly(lambda: v.check_int("n", value, 0), TypeError, "n must be an integer")


@pytest.mark.parametrize("value,words", [(0, "n must be >= 1"), (6, "n must be in [1, 5]")])
def test_check_int_refuses_out_of_range_with_value_error(value, words):
    maximum = 5 if value > 5 else None
    assert_refused_clearly(lambda: v.check_int("n", value, 1, maximum), ValueError, words)


def test_check_real_refuses_bools_nan_inf_and_values_at_the_bound():
    assert v.check_real("x", np.float32(0.5)) == 0.5
    assert_refused_clearly(lambda: v.check_real("x", True), TypeError, "x must be a real number")
    for bad in (math.nan, math.inf, -math.inf):
        assert_refused_clearly(lambda: v.check_real("x", bad), ValueError, "x must be finite")
    assert_refused_clearly(lambda: v.check_real("x", 1.0, greater_than=1.0), ValueError, "x must be > 1")
    assert v.check_base(1.0 + 1e-12) > 1.0


def test_check_d_model_wants_a_positive_even_integer():
    assert v.check_d_model(2) == 2
    for bad in (1, 7):
        assert_refused_clearly(lambda: v.check_d_model(bad), ValueError, "positive even integer")
    assert_refused_clearly(lambda: v.check_d_model(0), ValueError, "d_model must be >= 1")


def test_check_array_masked_allows_minus_inf_only():
    np.testing.assert_array_equal(v.check_array("s", [0.0, -np.inf], masked=True), [0.0, -np.inf])
    assert_refused_clearly(lambda: v.check_array("s", [0.0, -np.inf]), ValueError, "s contains NaN or inf")
    assert_refused_clearly(lambda: v.check_array("s", [0.0, np.inf], masked=True), ValueError, "NaN or +inf")
    assert_refused_clearly(lambda: v.check_array("s", [1.0, 2.0], ndim=2), ValueError, "2-D")
    assert_refused_clearly(lambda: v.check_array("s", ["a"]), TypeError, "s must be an array of numbers")


def test_table_size_limit_is_exactly_max_table_elements():
    assert pl.MAX_TABLE_ELEMENTS == 2**26
    v.check_table_size(2**20, 2**6)          # exactly the limit: allowed
    assert_refused_clearly(lambda: v.check_table_size(2**20 + 1, 2**6), ValueError, "seq_len * d_model")


def test_check_tokens_splits_strings_and_refuses_empty_ones():
    assert v.check_tokens("猫咬狗") == ("猫", "咬", "狗")
    assert v.check_tokens(["猫", "狗"]) == ("猫", "狗")
    assert_refused_clearly(lambda: v.check_tokens(""), ValueError, "tokens must not be empty")
    assert_refused_clearly(lambda: v.check_tokens(["猫", ""]), TypeError, "non-empty string")
    assert_refused_clearly(lambda: v.check_tokens(5), TypeError, "tokens must be a string")


def test_position_limit_error_is_an_index_error_naming_max_len():
    from posenc.position_limit import check_position_limit

    assert issubclass(pl.PositionLimitError, IndexError)
    check_position_limit(8, 8, learned=True)        # a table of 8 rows holds positions 0..7
    for learned in (True, False):
        assert_refused_clearly(lambda: check_position_limit(9, 8, learned=learned),
                               pl.PositionLimitError, "max_len=8")


def test_layouts_live_with_the_encoding():
    from posenc import encoding

    assert pl.LAYOUTS is encoding.LAYOUTS == ("interleaved", "split")
    assert_refused_clearly(lambda: pl.sinusoidal_encoding(4, 4, layout="halves"), ValueError,
                           "layout must be one of")


def test_check_real_and_check_int_name_the_allowed_range_in_both_languages():
    assert_refused_clearly(lambda: v.check_real("base", 5.0, minimum=10, maximum=1e6), ValueError,
                           "base must be in [10, 1e+06], got 5")
    assert "base 必须在 [10, 1e+06] 之间" in message(lambda: v.check_real("base", 5.0, minimum=10, maximum=1e6))
    assert "x 不能大于 2" in message(lambda: v.check_real("x", 3.0, maximum=2))
    assert "x 必须不小于 2" in message(lambda: v.check_real("x", 1.0, minimum=2))
    assert "num_heads 必须在 [1, 1024] 之间" in message(lambda: v.check_int("num_heads", 0, 1, 1024))
    assert "n 必须不小于 1" in message(lambda: v.check_int("n", 0, 1))
    assert v.check_base(100.0, minimum=10, maximum=1e6) == 100.0
    assert_refused_clearly(lambda: v.check_d_model(258, maximum=256), ValueError, "d_model must be in [1, 256]")


def test_check_one_of_and_check_bool():
    assert v.check_one_of("layout", "split", ("interleaved", "split")) == "split"
    assert v.check_one_of("factor", 4, (1, 2, 4)) == 4
    assert_refused_clearly(lambda: v.check_one_of("factor", 3, (1, 2, 4)), ValueError,
                           "factor must be one of (1, 2, 4), got 3")
    assert_refused_clearly(lambda: v.check_one_of("factor", True, (1, 2)), ValueError, "got True")
    assert_refused_clearly(lambda: v.check_one_of("x", np.ones(2), (1, 2)), ValueError, "x must be one of")
    assert v.check_bool("causal", np.bool_(True)) is True
    assert_refused_clearly(lambda: v.check_bool("causal", 1), TypeError, "causal must be True or False")


def test_check_lengths_and_check_factor():
    assert v.check_lengths("lengths", [4, 8], 4, 64) == (4, 8)
    assert_refused_clearly(lambda: v.check_lengths("lengths", (8, 4), 4, 64), ValueError, "lengths[1] must be in [8, 64]")
    assert_refused_clearly(lambda: v.check_lengths("lengths", 8, 4, 64), ValueError, "pair of integers")
    assert v.check_factor(1) == 1.0
    assert_refused_clearly(lambda: v.check_factor(0.5), ValueError, "factor must be >= 1")


def message(call) -> str:
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    return str(info.value)
