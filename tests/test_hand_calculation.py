"""posenc/hand_calculation.py: word vector + PE, token by token, for 猫咬狗.

Expected values: the table a tutorial works out by hand (4 decimals) and the formula.
"""
import numpy as np
import pytest

import posenc_lib as pl
from support import assert_refused_clearly


def test_hand_table_of_cat_bites_dog():
    """The common hand calculation: 猫咬狗 at positions 1, 2, 3, d = 2, word vectors [0.5, 0.5]."""
    calc = pl.hand_calculation()
    assert calc.tokens == ("猫", "咬", "狗")
    assert list(calc.positions) == [1, 2, 3]
    hand_pe = [[0.8415, 0.5403], [0.9093, -0.4161], [0.1411, -0.9900]]
    hand_out = [[1.3415, 1.0403], [1.4093, 0.0839], [0.6411, -0.4900]]
    np.testing.assert_array_equal(np.round(calc.encodings, 4), hand_pe)
    np.testing.assert_array_equal(np.round(calc.outputs, 4), hand_out)
    html = calc._repr_html_()
    for number in ("0.8415", "-0.4161", "1.3415", "0.0839", "-0.4900"):
        assert number in html and number in str(calc)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.hand_calculation(tokens=()), ValueError, "tokens"),
    (lambda: pl.hand_calculation(tokens=""), ValueError, "tokens"),
    (lambda: pl.hand_calculation(word_vectors=[0.5, 0.5, 0.5]), ValueError, "word_vectors"),
    (lambda: pl.hand_calculation(word_vectors=[[0.5, 0.5]] * 2), ValueError, "word_vectors"),
    (lambda: pl.hand_calculation(word_vectors=[0.5, float("nan")]), ValueError, "word_vectors"),
    (lambda: pl.hand_calculation(start=-1), ValueError, "start"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
