"""Section 01-02 of posenc_lib (check_choice, plot_pe_curves) against independent references."""
import io
import math
import warnings

import numpy as np
import pytest

import posenc_lib as pl
from posenc.text import _text_width


# ---------------------------------------------------------------------------
# check_choice
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("answer,correct", [
    (2, 2), (2.0, 2), (np.int64(2), 2), (" 不变 ", "不变"), ((2, 0), (2, 0)), ([2, 0], (2, 0)),
    (np.array([1, 2]), (1, 2)), (True, True), (np.bool_(False), False),
])
def test_check_choice_accepts_equivalent_answers(answer, correct):
    v = pl.check_choice(answer, correct)
    assert isinstance(v, pl.Verdict) and v.ok, v.message
    assert "正确" in repr(v)


@pytest.mark.parametrize("answer,correct", [
    (1, 2), (2.5, 2), ("变", "不变"), ((0, 2), (2, 0)), (True, 1), (1, True), ((2,), (2, 0)),
])
def test_check_choice_rejects_wrong_answers_with_the_hint(answer, correct):
    v = pl.check_choice(answer, correct, hint="看看置换 perm。")
    assert not v.ok
    assert "再想想" in repr(v) and "perm" in v.message


def test_check_choice_placeholder_and_options_never_raise():
    v = pl.check_choice(None, 2, hint="提示")
    assert not v and "None" in v.message and "提示" in v.message
    v = pl.check_choice("也许", "不变", options=["变", "不变"])
    assert not v and "'变'" in v.message and "'不变'" in v.message
    assert pl.check_choice("变", "变", options=["变", "不变"])
    assert "再想想" in v._repr_html_()


def test_check_choice_refuses_a_correct_answer_outside_its_options():
    with pytest.raises(ValueError, match="options"):
        pl.check_choice("变", "也许", options=["变", "不变"])


# ---------------------------------------------------------------------------
# plot_pe_curves
# ---------------------------------------------------------------------------
def marker_lines(ax):
    """The dotted (marker-only) lines: one per column drawn, in order."""
    return [ln for ln in ax.get_lines() if ln.get_linestyle() == "None"]


@pytest.mark.parametrize("d_model,max_pos,base,pairs,expected_pairs", [
    (4, 10, 10000.0, None, [0, 1]),
    (2, 3, 10000.0, None, [0]),
    (16, 20, 10000.0, None, [0, 1, 7]),
    (8, 5, 100.0, 2, [2]),
])
def test_pe_curves_dots_are_the_formula(d_model, max_pos, base, pairs, expected_pairs):
    from matplotlib.figure import Figure

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = pl.plot_pe_curves(d_model, max_pos, base, pairs=pairs)
        assert isinstance(fig, Figure)
        fig.savefig(io.BytesIO(), format="png")
    lines = marker_lines(fig.axes[0])
    assert len(lines) == 2 * len(expected_pairs)
    for j, i in enumerate(expected_pairs):
        for k, fn in enumerate((math.sin, math.cos)):
            x, y = lines[2 * j + k].get_data()
            assert list(x) == list(range(max_pos + 1))
            ref = [fn(p / math.pow(base, 2 * i / d_model)) for p in range(max_pos + 1)]
            np.testing.assert_allclose(y, ref, rtol=0, atol=1e-12)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert len(labels) == 2 * len(expected_pairs)


def test_pe_curves_second_pair_of_d4_barely_moves():
    """Curriculum: with d_model = 4, pair 1 turns 0.01 rad per position."""
    lines = marker_lines(pl.plot_pe_curves(4, 10).axes[0])
    _, cos1 = lines[3].get_data()
    assert cos1.min() > 0.995


def test_pe_curves_draws_into_given_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.subplots()
    assert pl.plot_pe_curves(ax=ax) is fig


@pytest.mark.parametrize("kwargs,exc", [
    (dict(d_model=5), ValueError), (dict(max_pos=0), ValueError), (dict(pairs=[2]), ValueError),
    (dict(pairs=[]), ValueError), (dict(base=1.0), ValueError), (dict(pairs=[0.5]), TypeError),
])
def test_pe_curves_refuses_bad_arguments(kwargs, exc):
    with pytest.raises(exc):
        pl.plot_pe_curves(**kwargs)


# ---------------------------------------------------------------------------
# format_matrix
# ---------------------------------------------------------------------------
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


def test_pe_curves_without_cjk_font_has_no_chinese_text(without_cjk_font):
    without_cjk_font('''
figs = [pl.plot_pe_curves(16, 12)]
''')
