"""posenc/text.py: aligned text matrices (CJK characters count two columns) and markdown tables."""
import numpy as np
import pytest

import posenc_lib as pl
from posenc.text import _text_width


def test_format_matrix_round_trips_and_aligns():
    m = np.array([[0.32481, -1.5], [2.0, 0.00004]])
    text = pl.format_matrix(m, "猫狗", ["猫", "key"], name="A")
    lines = text.splitlines()
    assert lines[0] == "A"
    assert lines[1].split() == ["猫", "key"]
    body = [ln.split() for ln in lines[2:]]
    assert [r[0] for r in body] == ["猫", "狗"]
    np.testing.assert_allclose([[float(v) for v in r[1:]] for r in body], m, atol=5e-5)
    widths = {_text_width(ln) for ln in lines[1:]}
    assert len(widths) == 1, "every row (header included) has the same display width"


def test_format_matrix_vector_decimals_and_no_labels():
    assert pl.format_matrix([1.0, -0.25], decimals=2).split() == ["1.00", "-0.25"]
    assert pl.format_matrix(np.eye(2), decimals=0).splitlines() == ["  1  0", "  0  1"]


@pytest.mark.parametrize("kwargs,exc", [
    (dict(m=np.zeros((2, 2)), row_labels="猫咬狗"), ValueError),
    (dict(m=np.zeros((2, 2)), col_labels=["a"]), ValueError),
    (dict(m=np.zeros((2, 2, 2))), ValueError),
    (dict(m=[[np.nan]]), ValueError),
    (dict(m=np.zeros(2), decimals=1.5), TypeError),
])
def test_format_matrix_refuses_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        pl.format_matrix(**kwargs)


def test_markdown_table():
    text = pl.markdown_table(["a", "b"], [[1, "x|y"], [2.5, None]])
    assert text.splitlines() == ["| a | b |", "|---|---|", "| 1 | x\\|y |", "| 2.5 | None |"]
    with pytest.raises(ValueError):
        pl.markdown_table(["a", "b"], [[1]])
    with pytest.raises(ValueError):
        pl.markdown_table([], [])
