"""posenc/validate.py: the argument checks every public function shares.

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
    got = v._check_int("n", value, 1, 5)
    assert got == 3 and type(got) is int


@pytest.mark.parametrize("value", [True, np.bool_(True), 3.0, "3", None])
def test_check_int_refuses_non_integers_with_type_error(value):
    assert_refused_clearly(lambda: v._check_int("n", value, 0), TypeError, "n must be an integer")


@pytest.mark.parametrize("value,words", [(0, "n must be >= 1"), (6, "n must be in [1, 5]")])
def test_check_int_refuses_out_of_range_with_value_error(value, words):
    maximum = 5 if value > 5 else None
    assert_refused_clearly(lambda: v._check_int("n", value, 1, maximum), ValueError, words)


def test_check_real_refuses_bools_nan_inf_and_values_at_the_bound():
    assert v._check_real("x", np.float32(0.5)) == 0.5
    assert_refused_clearly(lambda: v._check_real("x", True), TypeError, "x must be a real number")
    for bad in (math.nan, math.inf, -math.inf):
        assert_refused_clearly(lambda: v._check_real("x", bad), ValueError, "x must be finite")
    assert_refused_clearly(lambda: v._check_real("x", 1.0, greater_than=1.0), ValueError, "x must be > 1")
    assert v._check_base(1.0 + 1e-12) > 1.0


def test_check_d_model_wants_a_positive_even_integer():
    assert v._check_d_model(2) == 2
    for bad in (1, 7):
        assert_refused_clearly(lambda: v._check_d_model(bad), ValueError, "positive even integer")
    assert_refused_clearly(lambda: v._check_d_model(0), ValueError, "d_model must be >= 1")


def test_check_array_masked_allows_minus_inf_only():
    np.testing.assert_array_equal(v._check_array("s", [0.0, -np.inf], masked=True), [0.0, -np.inf])
    assert_refused_clearly(lambda: v._check_array("s", [0.0, -np.inf]), ValueError, "s contains NaN or inf")
    assert_refused_clearly(lambda: v._check_array("s", [0.0, np.inf], masked=True), ValueError, "NaN or +inf")
    assert_refused_clearly(lambda: v._check_array("s", [1.0, 2.0], ndim=2), ValueError, "2-D")
    assert_refused_clearly(lambda: v._check_array("s", ["a"]), TypeError, "s must be an array of numbers")


def test_table_size_limit_is_exactly_max_table_elements():
    assert pl.MAX_TABLE_ELEMENTS == 2**26
    v._check_table_size(2**20, 2**6)          # exactly the limit: allowed
    assert_refused_clearly(lambda: v._check_table_size(2**20 + 1, 2**6), ValueError, "seq_len * d_model")


def test_check_tokens_splits_strings_and_refuses_empty_ones():
    assert v._check_tokens("猫咬狗") == ("猫", "咬", "狗")
    assert v._check_tokens(["猫", "狗"]) == ("猫", "狗")
    assert_refused_clearly(lambda: v._check_tokens(""), ValueError, "tokens must not be empty")
    assert_refused_clearly(lambda: v._check_tokens(["猫", ""]), TypeError, "non-empty string")
    assert_refused_clearly(lambda: v._check_tokens(5), TypeError, "tokens must be a string")


def test_position_limit_error_is_an_index_error_naming_max_len():
    assert issubclass(pl.PositionLimitError, IndexError)
    v._check_position_limit(8, 8, learned=True)        # a table of 8 rows holds positions 0..7
    for learned in (True, False):
        assert_refused_clearly(lambda: v._check_position_limit(9, 8, learned=learned),
                               pl.PositionLimitError, "max_len=8")


def test_layouts():
    assert pl.LAYOUTS == ("interleaved", "split")
    assert_refused_clearly(lambda: v._check_layout("halves"), ValueError, "layout must be one of")
