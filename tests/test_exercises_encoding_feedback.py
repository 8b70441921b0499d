"""Every exercise of notebooks 01-03, answered wrong (each typical slip, a wrong type, None)
and right, by executing the exercise cell itself with the answer filled in.

Right answers come from independent sources: plain loops with the math module, Python's
bin(), string indices, the definition of the split layout. Wrong answers are the slips a
learner makes, computed the same way. Feedback is checked by keywords: a wrong answer's
message names what was entered (「你填的是 …」) and the slip; a right answer is praised
without an error bound (no 「误差」) and, for 4-decimal answers, shows the 4-decimal values.
"""
import ast
import json
import math
import pathlib

import numpy as np
import pytest

import posenc_lib as pl

ROOT = pathlib.Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"


# ---------------------------------------------------------------------------
# Independent references (math module only)
# ---------------------------------------------------------------------------
def pe_row(pos, d_model, base=10000.0):
    """PE(pos) from the paper's formula, one number at a time."""
    return [math.sin(pos / base ** (2 * (c // 2) / d_model)) if c % 2 == 0
            else math.cos(pos / base ** (2 * (c // 2) / d_model)) for c in range(d_model)]


def row_from_angles(sin_angles, cos_angles):
    out = []
    for a, b in zip(sin_angles, cos_angles):
        out += [math.sin(a), math.cos(b)]
    return out


def r4(values):
    """Rounded to 4 decimals, as a learner types them."""
    return [round(v, 4) for v in values]


def fmt4(values):
    return "[" + ", ".join(f"{v:.4f}" for v in values) + "]"


# ---------------------------------------------------------------------------
# Run an exercise cell with an answer
# ---------------------------------------------------------------------------
def exercise_cell(notebook: str, cell_id: str) -> str:
    nb = json.loads((NB_DIR / notebook).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell.get("id") == cell_id:
            return "".join(cell["source"])
    raise KeyError(cell_id)


def run_exercise(notebook: str, cell_id: str, answer):
    """Execute the cell with its ``answer… = None`` line set to ``answer``; return the Verdict
    its last expression gives."""
    source = exercise_cell(notebook, cell_id)
    tree = ast.parse(source)
    first = tree.body[0]
    assert isinstance(first, ast.Assign) and isinstance(first.value, ast.Constant) \
        and first.value.value is None, "an exercise cell starts with `answer... = None`"
    last = tree.body[-1]
    assert isinstance(last, ast.Expr), "an exercise cell ends with its check"
    tree.body[-1] = ast.Assign(targets=[ast.Name("_verdict", ast.Store())], value=last.value)
    ast.fix_missing_locations(tree)
    namespace = {"np": np, "pl": pl, "math": math, first.targets[0].id: answer}
    body = ast.Module(body=tree.body[1:], type_ignores=[])
    exec(compile(body, f"{notebook}:{cell_id}", "exec"), namespace)
    verdict = namespace["_verdict"]
    assert isinstance(verdict, pl.Verdict)
    return verdict


def assert_right(verdict, *words):
    assert verdict.ok, verdict.message
    assert "误差" not in verdict.message, verdict.message
    for w in words:
        assert w in verdict.message, (w, verdict.message)


def assert_wrong(verdict, shown, *words):
    """Wrong, naming what was entered (``shown``) and the slip (``words``)."""
    assert not verdict.ok, verdict.message
    assert verdict.message.startswith(f"你填的是 {shown}："), verdict.message
    for w in words:
        assert w in verdict.message, (w, verdict.message)


def assert_placeholder(verdict):
    assert not verdict.ok and "None" in verdict.message, verdict.message


NB01, NB02, NB03 = ("01_permutation_invariance.ipynb", "02_sinusoidal_hand_calculation.ipynb",
                    "03_clock_hands_frequencies.ipynb")


# ---------------------------------------------------------------------------
# 01: choices whose feedback reacts to the option picked
# ---------------------------------------------------------------------------
def test_01_exercise_1_row_of_cat():
    right = "咬猫狗".index("猫")        # equivariance: 猫's output sits where 猫 sits
    assert_right(run_exercise(NB01, "01-42", right))
    assert_right(run_exercise(NB01, "01-42", float(right)))
    assert_wrong(run_exercise(NB01, "01-42", 0), "0", "咬 的输出", "猫咬狗 里的行号")
    assert_wrong(run_exercise(NB01, "01-42", 2), "2", "狗 的输出")
    assert_wrong(run_exercise(NB01, "01-42", "1"), "'1'", "之一")
    assert_placeholder(run_exercise(NB01, "01-42", None))


def test_01_exercise_2_pooled_vector():
    assert_right(run_exercise(NB01, "01-44", "不变"))
    assert_right(run_exercise(NB01, "01-44", " 不变 "))
    assert_wrong(run_exercise(NB01, "01-44", "变"), "'变'", "浮点舍入", "不在乎先加谁")
    assert_wrong(run_exercise(NB01, "01-44", True), "True", "之一")
    assert_placeholder(run_exercise(NB01, "01-44", None))


def test_01_exercise_3_input_and_output_of_bite():
    assert_right(run_exercise(NB01, "01-46", ("相同", "不同")))
    assert_right(run_exercise(NB01, "01-46", ["相同", "不同"]))
    assert_wrong(run_exercise(NB01, "01-46", ("相同", "相同")), "['相同', '相同']", "输出那一问不对", "V 行")
    assert_wrong(run_exercise(NB01, "01-46", ("不同", "不同")), "['不同', '不同']", "输入那一问不对", "座位 1")
    assert_wrong(run_exercise(NB01, "01-46", ("不同", "相同")), "['不同', '相同']", "两问都反了")
    assert_wrong(run_exercise(NB01, "01-46", "不同"), "'不同'", "之一")
    assert_placeholder(run_exercise(NB01, "01-46", None))


def test_01_exercise_4_cell_of_the_weights():
    a, b = "猫咬狗", "狗咬猫"
    right = (a.index(b[0]), a.index(b[2]))       # (狗 as query, 猫 as key) in 猫咬狗
    assert right == (2, 0)
    assert_right(run_exercise(NB01, "01-48", right))
    assert_right(run_exercise(NB01, "01-48", list(right)))
    assert_wrong(run_exercise(NB01, "01-48", (0, 2)), "[0, 2]", "猫 看 狗", "还没换回")
    assert_wrong(run_exercise(NB01, "01-48", (2, 2)), "[2, 2]", "狗 看 狗")
    assert_wrong(run_exercise(NB01, "01-48", "2, 0"), "'2, 0'", "之一")
    assert_placeholder(run_exercise(NB01, "01-48", None))


# ---------------------------------------------------------------------------
# 02: hand-calculated rows, compared at 4 decimals
# ---------------------------------------------------------------------------
def test_02_exercise_1_pe_of_4():
    right = pe_row(4, 2)
    assert_right(run_exercise(NB02, "02-46", r4(right)), fmt4(right), "4 位小数")
    assert_right(run_exercise(NB02, "02-46", right), fmt4(right))
    assert_right(run_exercise(NB02, "02-46", [math.trunc(v * 1e4) / 1e4 for v in right]))  # truncated
    degrees = r4(pe_row(math.radians(4), 2))
    assert_wrong(run_exercise(NB02, "02-46", degrees), fmt_shown(degrees), "角度制")
    swapped = r4(right[::-1])
    assert_wrong(run_exercise(NB02, "02-46", swapped), fmt_shown(swapped), "写反")
    unsigned = r4([abs(v) for v in right])
    assert_wrong(run_exercise(NB02, "02-46", unsigned), fmt_shown(unsigned), "符号", "第 3 象限")
    three = [round(v, 3) for v in right]
    assert_wrong(run_exercise(NB02, "02-46", three), fmt_shown(three), "4 位小数")
    assert_wrong(run_exercise(NB02, "02-46", "0.7568"), "0.7568", "2 个数")
    assert_wrong(run_exercise(NB02, "02-46", [1, 2, 3]), "[1, 2, 3]", "2 个数")
    assert_placeholder(run_exercise(NB02, "02-46", None))


def fmt_shown(values):
    """How the verdict echoes a list of numbers (6 significant digits)."""
    return "[" + ", ".join(str(int(v)) if float(v).is_integer() else f"{v:.6g}" for v in values) + "]"


def test_02_exercise_2_pe_of_2_with_six_dims():
    d, pos = 6, 2
    right = pe_row(pos, d)
    assert_right(run_exercise(NB02, "02-48", r4(right)), fmt4(right))
    pairs = range(d // 2)
    slips = {
        "w_0 = 1": row_from_angles([pos] * 3, [pos] * 3),
        "i/d_model": row_from_angles([pos * 10000 ** (-i / d) for i in pairs],
                                     [pos * 10000 ** (-i / d) for i in pairs]),
        "2i+1": row_from_angles([pos * 10000 ** (-2 * i / d) for i in pairs],
                                [pos * 10000 ** (-(2 * i + 1) / d) for i in pairs]),
        "2(i+1)": row_from_angles([pos * 10000 ** (-2 * i / d) for i in pairs],
                                  [pos * 10000 ** (-2 * (i + 1) / d) for i in pairs]),
        "pos ÷ w_i": row_from_angles([pos * 10000 ** (2 * i / d) for i in pairs],
                                     [pos * 10000 ** (2 * i / d) for i in pairs]),
        "角度制": pe_row(math.radians(pos), d),
        "写反": [right[c + 1] if c % 2 == 0 else right[c - 1] for c in range(d)],
    }
    for word, value in slips.items():
        assert_wrong(run_exercise(NB02, "02-48", r4(value)), fmt_shown(r4(value)), word)
    four = r4(pe_row(pos, 4))
    assert_wrong(run_exercise(NB02, "02-48", four), fmt_shown(four), "6 个数")
    other = r4(right[:2] + [0.5] + right[3:])
    assert_wrong(run_exercise(NB02, "02-48", other), fmt_shown(other), "第 2 维", "w_1")
    assert_placeholder(run_exercise(NB02, "02-48", None))


def test_02_exercise_3_word_plus_pe():
    word = [0.2, -0.1]
    right = [w + p for w, p in zip(word, pe_row(5, 2))]
    assert_right(run_exercise(NB02, "02-50", r4(right)), fmt4(right), fmt4(pe_row(5, 2)))
    slips = {
        "本身": pe_row(5, 2),
        "PE(4)": [w + p for w, p in zip(word, pe_row(4, 2))],
        "PE(6)": [w + p for w, p in zip(word, pe_row(6, 2))],
        "角度制": [w + p for w, p in zip(word, pe_row(math.radians(5), 2))],
        "写反": [w + p for w, p in zip(word, pe_row(5, 2)[::-1])],
    }
    for words, value in slips.items():
        assert_wrong(run_exercise(NB02, "02-50", r4(value)), fmt_shown(r4(value)), words)
    assert_wrong(run_exercise(NB02, "02-50", 0.5), "0.5", "2 个数")
    assert_placeholder(run_exercise(NB02, "02-50", None))


def test_02_exercise_4_suspect_row_is_integer_division():
    """The row in the exercise text is what 1 // base**(2i/d) frequencies give, and no other bug."""
    text = exercise_cell(NB02, "02-51")
    suspect = [-0.5440, -0.8391, 0.0000, 1.0000, 0.0000, 1.0000, 0.0000, 1.0000]
    assert "[" + ", ".join(f"{v:.4f}" for v in suspect) + "]" in text
    d, pos = 8, 10
    floor_w = [1 // 10000.0 ** (2 * i / d) for i in range(d // 2)]
    assert r4(row_from_angles([pos * w for w in floor_w], [pos * w for w in floor_w])) == suspect
    others = {
        "right": pe_row(pos, d),
        "divided": row_from_angles([pos * 10000 ** (2 * i / d) for i in range(4)],
                                   [pos * 10000 ** (2 * i / d) for i in range(4)]),
        "cos 2(i+1)": row_from_angles([pos * 10000 ** (-2 * i / d) for i in range(4)],
                                      [pos * 10000 ** (-2 * (i + 1) / d) for i in range(4)]),
        "base 100": pe_row(pos, d, 100.0),
        "degrees": pe_row(math.radians(pos), d),
    }
    for name, row in others.items():
        assert max(abs(a - b) for a, b in zip(r4(row), suspect)) > 0.05, name

    assert_right(run_exercise(NB02, "02-52", "整数除法"))
    expected_words = {
        "没有 bug": f"{math.sin(1):.4f}",
        "除以 div": f"{math.sin(100):.4f}",
        "cos 用 2(i+1)": "sin 列仍然对",
        "base 不对": "得是 0",
        "角度制": f"{math.sin(math.radians(10)):.4f}",
    }
    for option, word in expected_words.items():
        assert_wrong(run_exercise(NB02, "02-52", option), repr(option), word)
    assert_wrong(run_exercise(NB02, "02-52", "整数"), "'整数'", "之一")
    assert_placeholder(run_exercise(NB02, "02-52", None))


# ---------------------------------------------------------------------------
# 03: wavelengths, the binary counter, near repeats, the split layout
# ---------------------------------------------------------------------------
def test_03_exercise_1_first_hand_short_of_a_turn():
    lam = [2 * math.pi * 10000 ** (2 * i / 16) for i in range(8)]
    right = next(i for i, length in enumerate(lam) if 99 * (2 * math.pi / length) < 2 * math.pi)
    assert right == 3
    assert_right(run_exercise(NB03, "c80f3013", right))
    assert_wrong(run_exercise(NB03, "c80f3013", 2), "2", f"{lam[2]:.1f}", "转满了")
    assert_wrong(run_exercise(NB03, "c80f3013", 4), "4", "第一根")
    assert_wrong(run_exercise(NB03, "c80f3013", round(lam[3], 1)), f"{round(lam[3], 1):g}", "之一", "不是波长")
    assert_placeholder(run_exercise(NB03, "c80f3013", None))


def test_03_exercise_2_wavelength_of_the_slowest_pair():
    right = 2 * math.pi * 10000 ** (6 / 8)
    assert_right(run_exercise(NB03, "17fc169e", round(right, 1)), "6283.2", "1/10")
    assert_right(run_exercise(NB03, "17fc169e", 2 * math.pi * 1000), "6283.2")
    slips = {
        "常见教程": 2 * math.pi * 10000,                # the textbook «longest = 10000·2π»
        "少了 2π": 10000 ** (6 / 8),
        "只用了 π": math.pi * 10000 ** (6 / 8),
        "w_3 本身": 10000 ** (-6 / 8),
        "每步转过的圈数": 10000 ** (-6 / 8) / (2 * math.pi),
        "i/d_model": 2 * math.pi * 10000 ** (3 / 8),
        "第 2 对": 2 * math.pi * 10000 ** (4 / 8),
    }
    for word, value in slips.items():
        typed = float(f"{value:.6g}")
        assert_wrong(run_exercise(NB03, "17fc169e", typed), f"{typed:.6g}", word)
    assert_wrong(run_exercise(NB03, "17fc169e", 6280.0), "6280", "方法对了，舍入太粗/位数不够", "π")   # the one rounding message (issue 28)
    assert_wrong(run_exercise(NB03, "17fc169e", 6283), "6283", "整数")
    assert_right(run_exercise(NB03, "17fc169e", "6283.2"), "6283.2")      # typed text is read
    assert_wrong(run_exercise(NB03, "17fc169e", "六千"), "六千", "一个数")
    assert_placeholder(run_exercise(NB03, "17fc169e", None))


def test_03_exercise_3_bits_flipping_from_11_to_12():
    a, b = bin(11)[2:].zfill(8)[::-1], bin(12)[2:].zfill(8)[::-1]
    right = [k for k in range(8) if a[k] != b[k]]
    assert right == [0, 1, 2]
    assert_right(run_exercise(NB03, "6e4c0f9d", right), "1011 → 1100")
    assert_right(run_exercise(NB03, "6e4c0f9d", {2, 1, 0}))
    assert_wrong(run_exercise(NB03, "6e4c0f9d", [2]), "[2]", "进位")
    assert_wrong(run_exercise(NB03, "6e4c0f9d", [0, 1]), "[0, 1]", "漏了 bit 2")
    assert_wrong(run_exercise(NB03, "6e4c0f9d", [2, 3]), "[2, 3]", "12 = 1100 里为 1 的位")
    assert_wrong(run_exercise(NB03, "6e4c0f9d", [0, 1, 3]), "[0, 1, 3]", "11 = 1011 里为 1 的位")
    assert_wrong(run_exercise(NB03, "6e4c0f9d", [1, 2, 3]), "[1, 2, 3]", "多了 1")
    assert_right(run_exercise(NB03, "6e4c0f9d", "0, 1, 2"))              # typed text is read
    assert_wrong(run_exercise(NB03, "6e4c0f9d", "零一二"), "零一二", "列表")
    assert_placeholder(run_exercise(NB03, "6e4c0f9d", None))


def test_03_exercise_4_nearest_repeat_of_two_hands():
    def distance(k):
        return math.sqrt(sum((2 * math.sin(k * 10000 ** (-2 * i / 4) / 2)) ** 2 for i in range(2)))

    right = min(range(1, 101), key=distance)
    one_hand = min(range(1, 101), key=lambda k: abs(math.sin(k / 2)))
    assert (right, one_hand) == (19, 44)
    assert_right(run_exercise(NB03, "96ded8f4", right), f"{distance(right):.3f}")
    assert_wrong(run_exercise(NB03, "96ded8f4", one_hand), "44", "只有第 0 根", f"{distance(44):.3f}")
    half_turns = round(7 * math.pi)                   # 22: the fast hand points the other way
    assert_wrong(run_exercise(NB03, "96ded8f4", half_turns), "22", "正对面")
    assert_wrong(run_exercise(NB03, "96ded8f4", 6), "6", f"{distance(6):.3f}", "平方和")
    assert_wrong(run_exercise(NB03, "96ded8f4", 622), "622", "1 到 100")
    assert_wrong(run_exercise(NB03, "96ded8f4", 19.5), "19.5", "整数")
    assert_placeholder(run_exercise(NB03, "96ded8f4", None))


def test_03_exercise_5_split_column():
    d, j = 8, 5
    split_names = [f"sin_{i}" for i in range(d // 2)] + [f"cos_{i}" for i in range(d // 2)]
    interleaved_names = [f"{'sin' if c % 2 == 0 else 'cos'}_{c // 2}" for c in range(d)]
    right = interleaved_names.index(split_names[j])
    assert right == 3
    assert_right(run_exercise(NB03, "1d1262d2", right), "cos")
    inverse = split_names.index(interleaved_names[j])
    assert_wrong(run_exercise(NB03, "1d1262d2", inverse), str(inverse), "方向反了")
    assert_wrong(run_exercise(NB03, "1d1262d2", j), str(j), "不是同一列")
    assert_wrong(run_exercise(NB03, "1d1262d2", 1), "1", "对的编号")
    assert_wrong(run_exercise(NB03, "1d1262d2", "cos_1"), "cos_1", "整数")
    assert_placeholder(run_exercise(NB03, "1d1262d2", None))


def test_03_reference_answers_agree_with_the_checks():
    text = exercise_cell(NB03, "4dd566e2")
    assert "i = 3" in text and "6283.2" in text and "[0, 1, 2]" in text
    assert "k = 19" in text and "第 3 列" in text


# ---------------------------------------------------------------------------
# The checks called directly: arguments beyond the notebooks' exercises
# ---------------------------------------------------------------------------
def test_check_pe_word_must_match_d_model():
    with pytest.raises(ValueError, match="word"):
        pl.check_pe([0, 0], pos=1, word=[0.1, 0.2, 0.3])


def test_check_wavelength_decimals_and_neighbours():
    right = 2 * math.pi * 100                            # pair 1 of d_model = 4
    assert pl.check_wavelength(round(right), i=1, d_model=4, decimals=0)
    v = pl.check_wavelength(round(2 * math.pi, 1), i=1, d_model=4)
    assert not v and "第 0 对" in v.message


def test_every_wrong_message_of_the_flipped_bits_names_the_answer():
    for answer in ([3], [0, 1, 2], [4], [0, 1, 2, 3, 4]):
        v = pl.check_flipped_bits(answer, pos=8)
        if not v:
            assert v.message.startswith("你填的是 ")
