"""The hand-calculation worksheet (notebook 02), box by box: a right value, each named slip,
a coarse rounding, an empty box, text that is not a number. Expected values come from the
loop reference (tests/reference.py) and from math.sin / math.cos written out here, not from
the module under test."""
import math

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from posenc.exercises.worksheet import (
    DECIMALS,
    WorksheetCase,
    check_cell,
    draw_case,
)

#: The common tutorial's case: 猫咬狗 at 1, 2, 3, plus a second pair (d_model = 4, base = 100:
#: w_1 = 0.1, so every slip of the second pair gives a distinct value).
CASE = WorksheetCase(tuple("猫咬狗"), 1, 4, 100.0, np.array([[0.5, -0.3, 0.2, 0.0],
                                                              [0.1, 0.4, -0.6, 0.9],
                                                              [-0.2, 0.0, 0.7, -0.5]]))


def four(x: float) -> str:
    """A value as a learner types it: rounded to 4 decimals."""
    return f"{x:.4f}"


def truncated(x: float) -> str:
    return f"{math.trunc(x * 10 ** DECIMALS) / 10 ** DECIMALS:.4f}"


def test_the_case_table_is_the_loop_reference():
    assert np.allclose(CASE.encodings, ref.pe_table(3, 4, 100.0, start=1), atol=1e-15)
    assert np.allclose(CASE.inputs, CASE.word_vectors + np.array(ref.pe_table(3, 4, 100.0, start=1)), atol=1e-15)


@pytest.mark.parametrize("row", range(3))
@pytest.mark.parametrize("dim", range(4))
@pytest.mark.parametrize("part", ["pe", "input"])
def test_every_box_takes_its_value_rounded_or_truncated(part, row, dim):
    pos = 1 + row
    w = 100.0 ** (-2 * (dim // 2) / 4)
    pe = math.sin(pos * w) if dim % 2 == 0 else math.cos(pos * w)
    value = pe + (CASE.word_vectors[row, dim] if part == "input" else 0.0)
    for text in (four(value), truncated(value), f"{value:.8f}", f" {four(value)} ", four(value).replace("-", "−")):
        fb = check_cell(CASE, part, row, dim, text)
        assert fb.state == "right", (text, fb)


# (box, what the learner typed, a word the feedback must contain)
SLIPS = [
    # 猫 at pos 1, dim 0: sin(1)
    (("pe", 0, 0), math.sin(math.radians(1)), "角度制"),
    (("pe", 0, 0), math.cos(1), "sin 和 cos 写反"),
    (("pe", 0, 0), math.sin(2), "位置差了 1"),              # pos 2 instead of 1
    (("pe", 0, 0), math.sin(0), "位置差了 1"),              # counted from 0
    # 咬 at pos 2, dim 1: cos(2)
    (("pe", 1, 1), math.sin(2), "sin 和 cos 写反"),
    (("pe", 1, 1), math.cos(math.radians(2)), "角度制"),
    (("pe", 1, 1), math.cos(2 * 100.0 ** (-2 / 4)), "i 是第几对"),   # dim 1 taken as i = 1
    # 狗 at pos 3, dims 2, 3: pair 1, w_1 = 100^(-2/4) = 0.1
    (("pe", 2, 2), math.sin(3 * 100.0 ** (-4 / 4)), "i 是第几对"),   # i = 2 (the dim) instead of 1
    (("pe", 2, 2), math.sin(3 * 100.0 ** (-1 / 4)), "不是 i/d_model"),  # exponent i/d
    (("pe", 2, 3), math.sin(3 * 0.1), "sin 和 cos 写反"),
    (("pe", 2, 3), math.cos(math.radians(0.3)), "角度制"),
    (("pe", 2, 3), math.cos(4 * 0.1), "位置差了 1"),
    (("pe", 0, 1), math.cos(1) - 0.3, "只填 PE"),        # 猫 dim 1: the input value (word -0.3 + PE)
    # input boxes
    (("input", 0, 0), math.sin(1), "还要加上词向量"),
    (("input", 0, 0), 0.5, "还要加上 PE"),
    (("input", 0, 0), 0.5 - math.sin(1), "相加"),
    (("input", 0, 0), 0.5 + math.cos(1), "sin 和 cos 写反"),
    (("input", 1, 2), -0.6 + math.sin(math.radians(2 * 0.1)), "角度制"),
    (("input", 2, 1), 0.0 + math.cos(2), "位置差了 1"),
]


@pytest.mark.parametrize("box, typed, word", SLIPS, ids=[f"{b[0]}{b[1:]}-{w}" for b, _, w in SLIPS])
def test_each_slip_is_named(box, typed, word):
    fb = check_cell(CASE, *box, four(typed))
    assert fb.state == "wrong" and word in fb.message, (box, four(typed), fb)
    assert fb.message.startswith(f"你填的是 {float(four(typed)):g}")


def test_a_coarse_rounding_is_told_so_and_not_called_a_wrong_formula():
    fb = check_cell(CASE, "pe", 0, 0, "0.84")         # sin 1 = 0.8415
    assert fb.state == "wrong" and "舍入" in fb.message and "方法对了" in fb.message
    fb = check_cell(CASE, "input", 0, 0, f"{0.5 + math.sin(1):.2f}")      # 1.3415 -> 1.34
    assert fb.state == "wrong" and "舍入" in fb.message


def test_an_unrelated_value_gets_a_hint_without_the_answer():
    fb = check_cell(CASE, "pe", 1, 0, "0.3")
    assert fb.state == "wrong" and "pos = 2" in fb.message
    assert four(math.sin(2)) not in fb.message and f"{math.sin(2):.3f}" not in fb.message


def test_an_empty_box_is_neither_right_nor_wrong():
    for text in ("", "   "):
        fb = check_cell(CASE, "pe", 0, 0, text)
        assert fb.state == "empty" and fb.message == "" and fb.mark == ""


def test_text_that_is_not_a_number_is_said_so_and_does_not_count_as_filled():
    for text in ("abc", "1e", "nan", "0x1"):
        fb = check_cell(CASE, "pe", 0, 0, text)
        assert fb.state == "unreadable" and "不是一个数" in fb.message and not fb.filled, text
    assert check_cell(CASE, "pe", 0, 0, "sin(1)").state == "right"           # arithmetic is a number
    assert check_cell(CASE, "pe", 0, 0, "−0.8415".replace("−0", "0")).state == "right"


def test_a_decimal_comma_is_refused_saying_so_and_the_echo_is_as_typed():
    fb = check_cell(CASE, "pe", 0, 0, "0,8415")
    assert fb.state == "unreadable" and "小数点要用「.」" in fb.message and fb.message.startswith("你填的是 0,8415：")
    fb = check_cell(CASE, "pe", 0, 0, "0.0500")
    assert fb.state == "wrong" and fb.message.startswith("你填的是 0.0500：")


def test_the_precision_is_the_courses_one_rule():
    """One unit in the 4th decimal passes, two do not (verdict.tolerance at 4 decimals)."""
    right = math.sin(1)
    assert check_cell(CASE, "pe", 0, 0, f"{right + 0.9e-4:.6f}").state == "right"
    assert check_cell(CASE, "pe", 0, 0, f"{right + 2.2e-4:.6f}").state == "wrong"


def test_a_slip_that_gives_the_right_value_is_not_named():
    """d_model = 2, pair 0: w_0 = 1 whatever the exponent, so a right sin(1) is right, never
    '2i vs i'."""
    case = WorksheetCase(tuple("猫咬狗"), 1, 2, 10000.0, np.zeros((3, 2)))
    assert check_cell(case, "pe", 0, 0, four(math.sin(1))).state == "right"


@pytest.mark.parametrize("seed", range(20))
def test_drawn_cases_are_small_and_every_box_has_a_right_answer(seed):
    case = draw_case(seed)
    assert case.d_model in (2, 4) and len(case.tokens) == 3 and 0 <= case.start <= 5
    assert case.word_vectors.shape == (3, case.d_model)
    assert np.allclose(case.encodings, ref.pe_table(3, case.d_model, case.base, start=case.start), atol=1e-15)
    for part in ("pe", "input"):
        for r in range(3):
            for j in range(case.d_model):
                assert check_cell(case, part, r, j, four(case.expected(part, r, j))).state == "right"


def test_draws_differ_and_a_seed_repeats():
    cases = [draw_case(s) for s in range(30)]
    assert len({(c.tokens, c.start, c.d_model, c.base) for c in cases}) > 10
    assert {c.d_model for c in cases} == {2, 4}
    a, b = draw_case(7), draw_case(7)
    assert a == b and np.array_equal(a.word_vectors, b.word_vectors)


def test_the_widget_checks_each_box_when_it_is_filled():
    ws = pl.HandCalcWorksheet(case=CASE)
    assert set(ws.cells) == {(p, r, j) for p in ("pe", "input") for r in range(3) for j in range(4)}
    assert ws.fill("pe", 0, 0, four(math.cos(1))).state == "wrong"
    assert "sin 和 cos 写反" in ws.messages.value and "✗" in ws.marks[("pe", 0, 0)].value
    assert ws.fill("pe", 0, 0, four(math.sin(1))).state == "right"
    assert "✓" in ws.marks[("pe", 0, 0)].value and "sin 和 cos 写反" not in ws.messages.value
    assert ws.feedback[("pe", 0, 1)].state == "empty"        # the others are untouched
    assert "已填 1 / 24 格，对了 1 格" in ws.messages.value


def test_the_tab_order_is_row_by_row_pe_then_input():
    """The boxes' DOM order (the grid's children) is the order Tab visits them."""
    ws = pl.HandCalcWorksheet(case=CASE)
    boxes = [child.children[0] for child in ws.grid.children if hasattr(child, "children") and child.children]
    order = [next(k for k, b in ws.cells.items() if b is box) for box in boxes]
    assert order == [(p, r, j) for r in range(3) for p in ("pe", "input") for j in range(4)]


def test_a_new_case_empties_every_box():
    ws = pl.HandCalcWorksheet(rng=3)
    first = ws.case
    ws.fill("pe", 0, 0, "0.5")
    ws.new_button.click()
    assert ws.case is not first
    assert all(fb.state == "empty" for fb in ws.feedback.values())
    assert all(box.value == "" for box in ws.cells.values())
    assert len(ws.cells) == 2 * 3 * ws.case.d_model


# ---------------------------------------------------------------------------
# One slip, one message: the exercise of notebook 02 and the worksheet name a slip alike
# ---------------------------------------------------------------------------
def _said(verdict_message: str) -> str:
    return verdict_message.split("：", 1)[1]          # without the echo 「你填的是 …：」


def test_the_per_dimension_exponent_is_named_alike_in_the_exercise_and_the_worksheet():
    """w taken with the dimension j instead of the pair i (exponent 2j/d): sin(pos·10000^(−2j/6))
    on even j, cos on odd j, written out here."""
    pos, d = 2, 6
    row = [(math.sin if j % 2 == 0 else math.cos)(pos * 10000 ** (-2 * j / d)) for j in range(d)]
    said = _said(pl.check_pe([round(x, 4) for x in row], pos=pos, d_model=d).message)
    assert "i 是第几对，不是第几维" in said, said
    box = check_cell(CASE, "pe", 0, 2, four(math.sin(1 * 100.0 ** (-2 * 2 / 4))))   # 猫 at pos 1, dim 2
    assert box.state == "wrong" and _said(box.message) == said


def test_a_word_vector_with_the_wrong_sign_is_named_alike():
    word, pos = [0.2, -0.1], 5
    pe = [math.sin(pos), math.cos(pos)]
    said = _said(pl.check_pe([round(p - w, 4) for p, w in zip(pe, word)], pos=pos, word=word).message)
    assert "词向量的符号反了" in said, said
    w, p = CASE.word_vectors[1, 1], math.cos(2 * 1.0)                                # 咬 at pos 2, dim 1
    box = check_cell(CASE, "input", 1, 1, four(p - w))
    assert box.state == "wrong" and _said(box.message) == said


def test_every_slip_the_worksheet_names_the_exercise_names_with_the_same_words():
    """For each typical slip of a PE row: the message check_pe gives the slipped row is the message
    a worksheet box gives that slip's element (off-by-one: the worksheet adds where the case starts)."""
    from posenc.exercises.encoding import pe_slip_table

    case = WorksheetCase(tuple("猫咬狗"), 3, 4, 100.0, np.zeros((3, 4)))
    pos = 3
    for row, message in pe_slip_table(pos, 4, 100.0):
        verdict = pl.check_pe([round(x, 6) for x in row], pos=pos, d_model=4, base=100.0)
        if verdict.ok or message not in verdict.message:
            continue                                  # equal to the right row, or another slip's value
        hits = [dim for dim in range(4) if abs(row[dim] - case.encodings[0, dim]) > 2e-4]
        box = check_cell(case, "pe", 0, hits[0], f"{row[hits[0]]:.6f}")
        head = message.split("（从 0 数")[0]
        assert head in box.message, (message, box.message)
