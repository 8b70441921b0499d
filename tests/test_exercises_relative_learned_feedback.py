"""Every exercise of notebooks 04 and 05, answered right and wrong, as a learner would.

Each exercise cell is taken from the notebook itself, ``answer = None`` is replaced by an
answer, and the cell is run: the test sees the verdict the learner sees. Wrong answers are
the typical slips, a wrong type and None; each wrong message must name what was entered and
the slip it shows. Expected values come from plain-math references written here (loops
with the math module, the angle-addition identity, chunking a text by hand), not from the
code under test.
"""
import ast
import json
import math
import pathlib
import re

import numpy as np
import pytest

import posenc_lib as pl

ROOT = pathlib.Path(__file__).resolve().parents[1]
NB04 = ROOT / "notebooks" / "04_relative_position.ipynb"
NB05 = ROOT / "notebooks" / "05_learned_embeddings.ipynb"


# ---------------------------------------------------------------------------
# Running an exercise cell with an answer
# ---------------------------------------------------------------------------
def section_code(path, heading="练习"):
    """The code cells after the ``## <heading>`` markdown cell ([] when there is none)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    starts = [i for i, c in enumerate(cells)
              if c["cell_type"] == "markdown" and re.search(rf"^## {heading}", "".join(c["source"]), re.M)]
    if not starts:
        return []
    return ["".join(c["source"]) for c in cells[starts[0]:] if c["cell_type"] == "code"]


def exercise_cells(path):
    """The code cells of the 练习 section that start with ``answer = None``, in order."""
    return [s for s in section_code(path) if s.lstrip().startswith("answer = None")]


def answer_cell(source: str, answer):
    """Run an exercise cell with ``answer`` in place of None; return the last expression's value."""
    code = re.sub(r"^answer = None", f"answer = {answer!r}", source, count=1, flags=re.M)
    tree = ast.parse(code)
    *body, last = tree.body
    assert isinstance(last, ast.Expr), "an exercise cell ends with the check call"
    namespace = {"pl": pl, "np": np}
    exec(compile(ast.Module(body=body, type_ignores=[]), "<exercise>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<exercise>", "eval"), namespace)


def shown(answer) -> str:
    """How a wrong-answer message quotes the learner's entry: ``你填的是 <entry>`` (typed text as
    typed, a list item that is a string in quotes)."""
    if isinstance(answer, str):
        return answer.strip()
    if isinstance(answer, (list, tuple)):
        return "[" + ", ".join(repr(a) if isinstance(a, str) else shown(a) for a in answer) + "]"
    return f"{answer:.6g}" if isinstance(answer, float) else str(answer)


def assert_right(verdict, *words):
    assert verdict, verdict.message
    assert "误差 ≤ 0" not in verdict.message and "允许误差" not in verdict.message, verdict.message
    for w in words:
        assert w in verdict.message, (w, verdict.message)


def assert_wrong(verdict, answer, *words):
    assert not verdict, (answer, verdict.message)
    if answer is None:
        assert "None" in verdict.message, verdict.message
    else:
        echo = repr(answer[0]) if isinstance(answer, list) and len(answer) == 1 and isinstance(answer[0], str) \
            else shown(answer)      # [text]: a choice, echoed in quotes
        assert f"你填的是 {echo}" in verdict.message, (answer, verdict.message)
    for w in words:
        assert w in verdict.message, (answer, w, verdict.message)


@pytest.fixture(scope="module")
def ex04():
    cells = exercise_cells(NB04)
    assert len(cells) == 4
    return cells


@pytest.fixture(scope="module")
def ex05():
    cells = exercise_cells(NB05)
    assert len(cells) == 4
    return cells


# ---------------------------------------------------------------------------
# Plain-math references
# ---------------------------------------------------------------------------
def w(i, d_model, base=10000.0):
    return base ** (-2 * i / d_model)


def pe(pos, d_model=2):
    out = []
    for i in range(d_model // 2):
        out += [math.sin(pos * w(i, d_model)), math.cos(pos * w(i, d_model))]
    return out


def r4(x):
    return round(x, 4)


# ---------------------------------------------------------------------------
# Notebook 04
# ---------------------------------------------------------------------------
def test_04_exercise_1_dot_product_at_offset_100(ex04):
    cell = ex04[0]
    right = math.cos(100 * w(0, 4)) + math.cos(100 * w(1, 4))         # Σ_i cos(k w_i)
    assert abs(sum(a * b for a, b in zip(pe(7, 4), pe(107, 4))) - right) < 1e-12   # the same for any m
    assert r4(right) == 1.4026
    assert_right(answer_cell(cell, 1.4026), "1.4026")
    assert_right(answer_cell(cell, right), "1.4026")
    assert_right(answer_cell(cell, 1.4027))                          # one unit in the 4th decimal
    slips = {
        r4(math.cos(100)): ("第 0 对", "w_1 = 0.01"),                          # only the fast pair
        r4(math.sin(100) + math.sin(1)): ("sin",),                              # sin instead of cos
        r4(math.cos(math.radians(100)) + math.cos(math.radians(1))): ("角度制",),
        r4(math.cos(100) + math.cos(100 * 10000 ** -0.25)): ("i/d_model",),   # exponent i/d
        2: ("k = 0",),                                                          # d_model / 2
    }
    for answer, words in slips.items():
        assert_wrong(answer_cell(cell, answer), answer, *words)
    assert_wrong(answer_cell(cell, 1.4030), 1.4030, "舍入太粗")   # 3 decimals for 4 asked: the one rounding slip (issue 28)
    assert_right(answer_cell(cell, "1.4026"), "1.4026")          # typed text is read as a number
    assert_wrong(answer_cell(cell, "一点四"), "一点四", "一个数")
    assert_wrong(answer_cell(cell, [1.4026]), [1.4026], "一个数")
    assert_wrong(answer_cell(cell, None), None)


def test_04_exercise_2_rotation_r1(ex04):
    cell = ex04[1]
    c, s = math.cos(1), math.sin(1)
    right = [[r4(c), r4(s)], [r4(-s), r4(c)]]
    # The identity the matrix must satisfy, checked by hand: R_1 (sin pos, cos pos) = (sin(pos+1), cos(pos+1)).
    for pos in range(5):
        assert abs(c * math.sin(pos) + s * math.cos(pos) - math.sin(pos + 1)) < 1e-12
        assert abs(-s * math.sin(pos) + c * math.cos(pos) - math.cos(pos + 1)) < 1e-12
    assert_right(answer_cell(cell, right), "[[0.5403, 0.8415], [-0.8415, 0.5403]]")
    cd, sd = math.cos(math.radians(1)), math.sin(math.radians(1))
    slips = [
        ([[r4(c), r4(-s)], [r4(s), r4(c)]], ("方向反了", "PE(pos−k)")),          # transposed = R_{-1}
        ([[r4(cd), r4(sd)], [r4(-sd), r4(cd)]], ("角度制",)),
        ([[r4(s), r4(c)], [r4(-c), r4(s)]], ("sin 和 cos 放反了",)),
        ([[1, 0], [0, 1]], ("和角公式",)),
    ]
    for answer, words in slips:
        assert_wrong(answer_cell(cell, answer), answer, *words)
    assert_wrong(answer_cell(cell, [r4(c), r4(s)]), [r4(c), r4(s)], "2×2")
    assert_wrong(answer_cell(cell, "R_1"), "R_1", "2×2")
    assert_wrong(answer_cell(cell, None), None)


def test_04_exercise_3_rotation_product(ex04):
    cell = ex04[2]

    def rot(k):   # the 2x2 block of R_k for w = 1, from the angle-addition identity
        return [[math.cos(k), math.sin(k)], [-math.sin(k), math.cos(k)]]

    def matmul(a, b):
        return [[sum(a[r][t] * b[t][c] for t in range(2)) for c in range(2)] for r in range(2)]

    r5t = [list(row) for row in zip(*rot(5))]
    product = matmul(r5t, rot(2))
    right = [k for k in range(-20, 21)
             if all(abs(product[r][c] - rot(k)[r][c]) < 1e-12 for r in range(2) for c in range(2))]
    assert right == [-3]
    assert_right(answer_cell(cell, -3), "R_{−3}", "PE(pos−3)")
    assert_right(answer_cell(cell, -3.0))
    slips = {3: ("方向反了",), 7: ("R_5ᵀ 当成了 R_5",), -7: ("往前走 2 步",),
             10: ("相加，不是相乘",), -10: ("相加，不是相乘",), 1: ("R_kᵀ = R_{−k}",)}
    for answer, words in slips.items():
        assert_wrong(answer_cell(cell, answer), answer, *words)
    assert answer_cell(cell, "-3")                      # typed text is read as a number
    for answer in ("负三", -3.5, [-3]):
        assert_wrong(answer_cell(cell, answer), answer, "整数")
    assert_wrong(answer_cell(cell, None), None)


def test_04_exercise_4_scores_with_a_scale_and_rotate_block(ex04):
    cell = ex04[3]
    block = [[1.0, 1.0], [-1.0, 1.0]]

    def score(m, n):   # PE(m)^T M PE(n) as loops
        a, b = pe(m), pe(n)
        return sum(a[r] * block[r][c] * b[c] for r in range(2) for c in range(2))

    for m in (0, 3, 11):                              # depends on k = n - m only
        assert abs(score(m, m + 1) - score(0, 1)) < 1e-12
        assert abs(score(m, m - 1) - score(0, -1)) < 1e-12
    right = [r4(score(0, 1)), r4(score(0, -1))]
    assert right == [-0.3012, 1.3818]
    assert_right(answer_cell(cell, right), "[-0.3012, 1.3818]", "分得出前后")
    cd, sd = math.cos(math.radians(1)), math.sin(math.radians(1))
    slips = [
        (right[::-1], ("顺序反了", "k = n − m")),
        ([0.5403, 0.5403], ("缩放 a", "分不出前后")),
        ([r4(cd - sd), r4(cd + sd)], ("角度制",)),
        ([1.0, 1.0], ("a·cos k − b·sin k",)),
    ]
    for answer, words in slips:
        assert_wrong(answer_cell(cell, answer), answer, *words)
    assert_wrong(answer_cell(cell, -0.3012), -0.3012, "两个数")
    assert_wrong(answer_cell(cell, ["-0.3012", "1.3818"]), ["-0.3012", "1.3818"], "两个数")
    assert_wrong(answer_cell(cell, None), None)


# ---------------------------------------------------------------------------
# Notebook 05
# ---------------------------------------------------------------------------
def test_05_exercise_1_segments_of_a_long_text(ex05):
    cell = ex05[0]
    # Chunk 1300 tokens into pieces of at most 512, numbering each piece from 0 again.
    pieces, left = [], 1300
    while left > 0:
        pieces.append(min(512, left))
        left -= pieces[-1]
    right = [len(pieces), pieces[-1] - 1]
    assert right == [3, 275]
    assert_right(answer_cell(cell, right), "3 段", "第 0 … 275 行")
    assert_right(answer_cell(cell, (3, 275)))
    slips = [
        ([2, 275], ("向上取整",)),
        ([3, 276], ("从 0 数",)),
        ([3, 1299], ("重新编号",)),
        ([3, 511], ("没有装满",)),
        ([4, 275], ("⌈1300/512⌉",)),
        ([3, 100], ("段数对了",)),
    ]
    for answer, words in slips:
        assert_wrong(answer_cell(cell, answer), answer, *words)
    for answer in (3, ["3", "275"], [3, 275, 0], [3.5, 275]):
        assert_wrong(answer_cell(cell, answer), answer, "两个整数")
    assert_wrong(answer_cell(cell, None), None)


def test_05_exercise_2_order_blind_ceiling(ex05):
    cell = ex05[1]
    assert_right(answer_cell(cell, 0.5), "0.500")
    assert_right(answer_cell(cell, 1 / 2))
    slips = {0.125: ("瞎猜",), 50: ("百分数",), 1: ("同一个答案",), 0.3: ("同一个答案",)}
    for answer, words in slips.items():
        assert_wrong(answer_cell(cell, answer), answer, *words)
    assert_wrong(answer_cell(cell, "一半"), "一半", "同一个答案")
    assert_wrong(answer_cell(cell, None), None)


def test_05_exercise_3_rows_that_get_a_gradient(ex05):
    cell = ex05[2]
    # Training sentences have 4..12 tokens, so positions 0..11 occur and no others:
    longest = int(pl.make_bite_dataset(pl.DEFAULT_N_TRAIN, (4, 12), 0, split="train").lengths.max())
    assert longest == 12
    right = longest                         # rows 0 .. longest-1
    assert_right(answer_cell(cell, right), "12 行", "第 12 … 19 行")
    slips = {20: ("不是每一行都有梯度",), 11: ("从 0 数",), 9: ("种类数",), 8: ("没有梯度的行数",),
             13: ("用不到",), 5: ("最长的训练句子",)}
    for answer, words in slips.items():
        assert_wrong(answer_cell(cell, answer), answer, *words)
    assert answer_cell(cell, "12")
    for answer in ("十二", 12.5):
        assert_wrong(answer_cell(cell, answer), answer, "整数")
    assert_wrong(answer_cell(cell, None), None)


@pytest.mark.slow
def test_05_exercise_4_a_long_sentence_for_the_sinusoidal_model(ex05):
    cell = ex05[3]
    assert_right(answer_cell(cell, "C"), "'C'")
    assert_right(answer_cell(cell, " C "))
    slips = {"A": ("不会让正弦编码报错",), "B": ("16 个词时准确率是",), "D": ("任何位置都能算",)}
    for answer, words in slips.items():     # a choice echoes its option in quotes, as Python writes it
        assert_wrong(answer_cell(cell, answer), [answer], *words)
    assert_wrong(answer_cell(cell, "E"), ["E"], "'A' / 'B' / 'C' / 'D' 之一")
    assert_wrong(answer_cell(cell, 3), 3, "之一")
    verdict = answer_cell(cell, None)
    assert not verdict and "None" in verdict.message


# ---------------------------------------------------------------------------
# The exercises ask something new
# ---------------------------------------------------------------------------
def exercise_calls(path):
    """The exercises the notebook declares, as (check name, its declared arguments)."""
    from posenc.course import catalogue

    return [(e.check.__name__, tuple(sorted(e.params.items()))) for e in catalogue.for_notebook(path.stem)]


def test_no_other_notebook_asks_the_same_exercise_as_04_or_05():
    ours = {p.name: exercise_calls(p) for p in (NB04, NB05)}
    for other in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        if other.name in ours:
            continue
        theirs = set(exercise_calls(other))
        for name, calls in ours.items():
            for call in calls:
                assert call not in theirs, f"{name} and {other.name} both ask {call}"
