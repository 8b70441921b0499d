"""posenc/hand_calculation.py: word vector + PE, token by token, for 猫咬狗.

Expected values: the table a tutorial works out by hand (4 decimals) and the formula.
"""
import math

import numpy as np
import pytest

import posenc_lib as pl
from posenc.text import _text_width
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



def test_printed_table_is_chinese_and_matches_the_html():
    calc = pl.hand_calculation(start=0, d_model=4)
    text, html = str(calc), calc._repr_html_()
    lines = text.splitlines()
    assert lines[0] == "d_model = 4，base = 10000"
    for head in ("词 (token)", "位置 pos", "词向量 (word vector)", "位置编码 PE(pos)", "输入 = 词向量 + PE"):
        assert head in lines[1] and head in html
    assert repr(calc) == text
    # row of 咬 (pos 1): PE(1) for d_model = 4 from the formula, to 4 decimals
    pe1 = [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]
    shown = "[" + ", ".join(f"{v:.4f}" for v in pe1) + "]"
    row = next(line for line in lines if line.startswith("咬"))
    assert shown in row
    # the HTML table writes each vector one pair (2i, 2i+1) per line
    assert "[{:.4f}, {:.4f},\n {:.4f}, {:.4f}]".format(*pe1) in html
    # columns stay aligned under CJK headers: every data line as wide as the rule, or narrower
    assert all(_text_width(line) <= _text_width(lines[2]) for line in lines[3:])


def test_html_table_writes_one_pair_per_line_with_the_numbers_aligned():
    """At d_model = 8 every vector cell has 4 lines (pairs i = 0..3) of 2 numbers, PE(pos) from
    the formula; in a cell holding a negative number every number keeps a sign column, so the
    lines stay aligned in monospace."""
    import re

    calc = pl.hand_calculation(d_model=8)
    cells = re.findall(r"<td[^>]*>(\[[^<]*\])</td>", calc._repr_html_())
    assert len(cells) == 3 * 3                      # 3 tokens x (word vector, PE, input)
    for token, pos in enumerate((1, 2, 3)):
        lines = cells[3 * token + 1].split("\n")
        assert len(lines) == 4
        assert len({line.index(",") for line in lines}) == 1, lines      # aligned columns
        assert len({len(line) for line in lines}) == 1, lines
        numbers = [float(x) for line in lines for x in line.strip("[], ").split(",")]
        expected = [f(pos / 10000 ** (2 * i / 8)) for i in range(4) for f in (math.sin, math.cos)]
        assert numbers == pytest.approx(expected, abs=5e-5)
    assert "i = 0 … 3" in calc._repr_html_()
