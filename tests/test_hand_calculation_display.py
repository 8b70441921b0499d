"""HandCalculation prints the same Chinese table as its HTML: headers, settings, 4-decimal values."""
import math

import posenc_lib as pl
from posenc.text import _text_width


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
    assert shown in row and shown in html
    # columns stay aligned under CJK headers: every data line as wide as the rule, or narrower
    assert all(_text_width(line) <= _text_width(lines[2]) for line in lines[3:])
