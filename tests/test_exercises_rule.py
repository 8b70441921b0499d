"""Every ``check_*`` of the course answered right and wrong by rounding gets the one rule's
verdicts (posenc/exercises/verdict.py, stated in notebook 02):

- a number is right within one unit of the last digit the question asks (N decimals when it says
  「保留 N 位小数」, else 3 significant digits): rounded, truncated or more precise, all right;
- one digit fewer is the one rounding slip, 「方法对了，舍入太粗/位数不够」, in every notebook;
- a whole-number answer is exact: 12.0 is 12, 12.4 is refused as not a whole number (never a
  rounding verdict); a choice is exact;
- ``None`` (not answered yet) is a neutral prompt.

The right values are computed here with ``math`` from the exercises' formulas, not by the code
under test.
"""
import math

import numpy as np
import pytest

import posenc_lib as pl
from posenc.exercises.rule import check_choice, check_value

ROUNDING = "方法对了，舍入太粗/位数不够"
E = 10000.0

#: name -> (call with the answer, the right value, the decimals the question asks or None).
NUMERIC = {
    # DeepSeek's inference code: softmax scale times mscale², mscale = 0.1·1.0·ln 40 + 1 (factor 40, mscale 1.0)
    "check_softmax_scale": (lambda a: pl.check_softmax_scale(a, model="DeepSeek-V3"), (0.1 * math.log(40) + 1) ** 2, None),
    "check_pe": (lambda a: pl.check_pe(a, pos=4), [math.sin(4), math.cos(4)], 4),
    "check_wavelength": (lambda a: pl.check_wavelength(a, i=3, d_model=8), 2 * math.pi * E ** (6 / 8), 1),
    "check_dot_product": (lambda a: pl.check_dot_product(a, k=100, d_model=4), math.cos(100) + math.cos(100 * E ** (-2 / 4)), 4),
    "check_rotation": (lambda a: pl.check_rotation(a, k=1, d_model=2),
                       [[math.cos(1), math.sin(1)], [-math.sin(1), math.cos(1)]], 4),
    "check_scaled_rotation_scores": (lambda a: pl.check_scaled_rotation_scores(a, a=1, b=1),
                                     [math.cos(1) - math.sin(1), math.cos(1) + math.sin(1)], 4),
    "check_order_blind_accuracy": (lambda a: pl.check_order_blind_accuracy(a), 0.5, None),
    "check_rope_angle": (lambda a: pl.check_rope_angle(a, i=1, pos=100, d_model=6), 100 * E ** (-2 / 6), None),
    "check_rope_score": (lambda a: pl.check_rope_score(a, q=[1, 0], key=[0, 1], m=3, n=4), -math.sin(1), 4),
    "check_alibi_slope": (lambda a: pl.check_alibi_slope(a, h=10, num_heads=12), 2 ** -1.5, None),
    "check_alibi_bias": (lambda a: pl.check_alibi_bias(a, h=10, num_heads=12, m=7, n=2), -(2 ** -1.5) * 5, None),
    "check_rotations": (lambda a: pl.check_rotations(a, i=40, d_model=128, length=4096), 4096 * E ** (-80 / 128) / (2 * math.pi), None),
    "check_ntk_base": (lambda a: pl.check_ntk_base(a, d_model=128, factor=4), E * 4 ** (128 / 126), None),
    "check_yarn_attention_factor": (lambda a: pl.check_yarn_attention_factor(a, factor=8), 0.1 * math.log(8) + 1, None),
    "check_beta_ratio": (lambda a: pl.check_beta_ratio(a, d_model=16, factor=4), 4 ** (1 / 7), None),
    "check_llama3_slowdown": (lambda a: pl.check_llama3_slowdown(a, wavelength=3000),
                              1 / ((1 - (8192 / 3000 - 1) / 3) / 8 + (8192 / 3000 - 1) / 3), None),
    "check_causal_weight": (lambda a: pl.check_causal_weight(a, n=6), 1 / 7, None),
    "check_value": (lambda a: check_value(a, math.sqrt(2)), math.sqrt(2), None),   # the generic one
}

#: name -> (call with the answer, the right whole number or list of them).
WHOLE = {
    "check_flipped_bits": (lambda a: pl.check_flipped_bits(a, pos=12), [0, 1, 2]),
    "check_nearest_repeat": (lambda a: pl.check_nearest_repeat(a, d_model=4, max_offset=100), 19),
    "check_split_column": (lambda a: pl.check_split_column(a, j=5, d_model=8), 3),
    "check_rotation_product": (lambda a: pl.check_rotation_product(a, a=5, b=2), -3),
    "check_segments": (lambda a: pl.check_segments(a, n_tokens=1300, max_len=512), [3, 275]),
    "check_rows_with_gradient": (lambda a: pl.check_rows_with_gradient(a, train_lengths=(4, 12), max_len=20), 12),
    "check_t5_bucket": (lambda a: pl.check_t5_bucket(a, k=-20), 8 + math.floor(math.log(20 / 8) / math.log(16) * 8)),
    "check_t5_buckets_used": (lambda a: pl.check_t5_buckets_used(a, side="after", num_buckets=16, max_distance=64), 7),
    "check_shaw_row": (lambda a: pl.check_shaw_row(a, m=10, n=3, max_relative=4), 0),
    "check_rope_pe_position": (lambda a: pl.check_rope_pe_position(a, p=20, pos=6), 14),
    "check_llama_row": (lambda a: pl.check_llama_row(a, r=5, head_dim=8), 3),
    "check_partial_rotary_pairs": (lambda a: pl.check_partial_rotary_pairs(a), 6144 // 64 // 4 // 2),
    "check_alibi_start": (lambda a: pl.check_alibi_start(a, seq_len=20), 12),
    "check_unseen_pairs": (lambda a: pl.check_unseen_pairs(a, d_model=128, train_len=4096, target_len=16384),
                           sum(4095 * E ** (-2 * i / 128) < 2 * math.pi for i in range(64))),
    "check_mla_cache": (lambda a: pl.check_mla_cache(a, model="DeepSeek-V3"), 512 + 64),
    "check_raster_offset": (lambda a: pl.check_raster_offset(a, cols=12), 12),
    "check_mrope_text_start": (lambda a: pl.check_mrope_text_start(a, n_text_before=5, grid_thw=(1, 6, 8)), 5 + 8),
    "check_decode_position": (lambda a: pl.check_decode_position(a, n_pad=4, n_real=6), 6),       # the 6 real tokens are 0 … 5
    "check_cu_seqlens": (lambda a: pl.check_cu_seqlens(a, lengths=[3, 5, 2]), [0, 3, 3 + 5, 3 + 5 + 2]),
    # bf16 keeps 8 significant bits: in [2^12, 2^13) the spacing is 2^(12 − 7) = 32, round to nearest
    "check_bf16_position": (lambda a: pl.check_bf16_position(a, pos=5050), 32 * round(5050 / 32)),
    "check_streaming_position": (lambda a: pl.check_streaming_position(a, n_tokens=1000, n_sink=4, n_recent=8), 4 + 8 - 1),
}

#: name -> (call with the answer, the right choice).
CHOICE = {
    "check_choice": (lambda a: check_choice(a, "不变", options=["变", "不变"]), "不变"),
    "check_rope_shift": (lambda a: pl.check_rope_shift(a, shift=7), False),
    "check_moving_terms": (lambda a: pl.check_moving_terms(a, scheme="absolute", vary="m"), "bcd"),
    "check_shift_invariance": (lambda a: pl.check_shift_invariance(a), "cdef"),
    "check_fast_pair_kept": (lambda a: pl.check_fast_pair_kept(a), "bcd"),
    # 猫 sits in row 1 of 咬猫狗; reordering rows never changes a mean; 咬 keeps seat 1 in both
    # sentences while 猫 and 狗 swap; 狗 看 猫 is row 2, column 0 of 猫咬狗 (A_B = P A_A P^T)
    "check_output_row": (lambda a: pl.check_output_row(a), "咬猫狗".index("猫")),
    "check_pooled_change": (lambda a: pl.check_pooled_change(a), "不变"),
    "check_pe_input_output": (lambda a: pl.check_pe_input_output(a), ("相同", "不同")),
    "check_weight_cell": (lambda a: pl.check_weight_cell(a), ("猫咬狗".index("狗"), "猫咬狗".index("猫"))),
    # every frequency but w_0 truncated to 0 leaves pairs 1.. at [sin 0, cos 0] = [0, 1]
    "check_pe_bug_symptom": (lambda a: pl.check_pe_bug_symptom(a), "整数除法"),
    # the first i with 2π·10000^(2i/16) > 99, by a plain loop
    "check_first_short_hand": (lambda a: pl.check_first_short_hand(a),
                               next(i for i in range(8) if 2 * math.pi * 10000 ** (2 * i / 16) > 99)),
}
#: Choices whose right answer needs a trained model (slow; notebook 05's exercise 4).
TRAINED_CHOICE = {"check_longer_sentence": (lambda a: pl.check_longer_sentence(a), "C")}


def test_every_check_of_the_course_is_in_one_table():
    # a drill's check runs a function (tests/test_drill*.py), it has no numeric rule
    checks = {n for n in pl.__all__ if n.startswith("check_") and not n.startswith("check_drill_")}
    assert checks | {"check_value", "check_choice"} == set(NUMERIC) | set(WHOLE) | set(CHOICE) | set(TRAINED_CHOICE)


def _unit(x: float, decimals) -> float:
    """One unit of the last digit asked: 10^-decimals, or the 3rd significant digit."""
    return 10.0 ** -decimals if decimals is not None else 10.0 ** (math.floor(math.log10(abs(x))) - 2)


def _to(x: float, unit: float, how) -> float:
    return float(f"{how(x / unit) * unit:.12g}")


def answers(right, decimals):
    """(rounded, truncated, one digit fewer) answers, elementwise."""
    arr = np.asarray(right, dtype=float)
    out = []
    for how, coarser in ((round, 1), (math.trunc, 1), (round, 10)):
        out.append(np.vectorize(lambda x: 0.0 if x == 0 else _to(x, coarser * _unit(x, decimals), how))(arr).tolist())
    return out


@pytest.mark.parametrize("name", sorted(NUMERIC))
def test_a_number_is_right_to_the_last_digit_asked_and_one_digit_fewer_is_the_rounding_slip(name):
    call, right, decimals = NUMERIC[name]
    rounded, truncated, coarse = answers(right, decimals)
    for answer in (right, rounded, truncated):
        verdict = call(answer)
        assert verdict.ok, (name, answer, verdict.message)
    verdict = call(coarse)
    units = np.vectorize(lambda x: _unit(x, decimals) if x else 10.0 ** -4)(np.asarray(right, dtype=float))
    if np.all(np.abs(np.asarray(coarse) - np.asarray(right)) <= units * (1 + 1e-9)):
        # one digit fewer still within one unit (1.2 for 1.2079 is 1.20, truncated): right by the rule
        assert verdict.ok, (name, coarse, verdict.message)
    else:
        assert not verdict and verdict.message.startswith("你填的是 "), (name, coarse, verdict.message)
        assert ROUNDING in verdict.message, (name, coarse, verdict.message)
        assert "公式" not in verdict.message and "不符" not in verdict.message, verdict.message
    assert call(None).pending


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_a_whole_number_is_exact(name):
    call, right = WHOLE[name]
    assert call(right), name
    as_float = [float(x) for x in right] if isinstance(right, list) else float(right)
    assert call(as_float), (name, as_float)                      # 12.0 is 12
    off = [x + 0.4 for x in right] if isinstance(right, list) else right + 0.4
    verdict = call(off)
    assert not verdict and "答案应是" in verdict.message and ROUNDING not in verdict.message, (name, verdict.message)
    assert call(None).pending


@pytest.mark.parametrize("name", [*sorted(CHOICE), *(pytest.param(n, marks=pytest.mark.slow) for n in TRAINED_CHOICE)])
def test_a_choice_is_exact(name):
    call, right = {**CHOICE, **TRAINED_CHOICE}[name]
    assert call(right), name
    verdict = call(None)
    assert verdict.pending and not verdict and "再想想" not in repr(verdict)


def test_the_three_slips_issue_28_named():
    # 07 exercise 1: 0.01 is w_1 itself (× pos forgotten) and also the exponent 4i/d
    verdict = pl.check_rope_angle(0.01, i=1, pos=100, d_model=4)
    assert "忘了乘 pos" in verdict.message and "维度下标" in verdict.message, verdict.message
    # 10 exercise 2: γ and 1 − γ swapped gives 1/(γ/8 + 1 − γ) = 24/17 for wavelength 4096 (γ = 1/3)
    assert 24 / 17 == pytest.approx(1.4118, abs=1e-4)
    verdict = pl.check_llama3_slowdown(1.41, wavelength=4096)
    assert "γ 和 1 − γ 放反了" in verdict.message, verdict.message
    # 10 exercise 3: K and V counted twice: 2 × (512 + 64)
    verdict = pl.check_mla_cache(1152, model="DeepSeek-V3")
    assert "K 和 V 各算了一份" in verdict.message, verdict.message


def test_the_issue_28_cases_follow_the_rule():
    # 07 exercise 1 (exact answer 1, 3 significant digits): 1.01 and 0.99 are one unit off, 1.02 two
    assert pl.check_rope_angle(1.01, i=1, pos=100, d_model=4) and pl.check_rope_angle(0.99, i=1, pos=100, d_model=4)
    verdict = pl.check_rope_angle(1.02, i=1, pos=100, d_model=4)
    assert not verdict and ROUNDING in verdict.message
    # 07 exercise 2 asks 4 decimals: −0.841 is a rounding slip, −0.8415 and −0.8414 are right
    assert pl.check_rope_score(-0.8415) and pl.check_rope_score(-0.8414)
    assert ROUNDING in pl.check_rope_score(-0.841).message
    # 02 exercise 1 asks 4 decimals: [−0.757, −0.654] is a rounding slip, not a wrong formula
    verdict = pl.check_pe([-0.757, -0.654], pos=4)
    assert ROUNDING in verdict.message and "不符" not in verdict.message, verdict.message


# ---------------------------------------------------------------------------
# Slip tables: (value, message) pairs, the rule's own orientation
# ---------------------------------------------------------------------------
def test_one_slip_per_value_keeps_the_first_or_the_last_message_at_the_first_place():
    from posenc.exercises.rule import one_slip_per_value

    pairs = [(3, "a"), (5, "b"), (3, "c"), (7, "d"), (5, "e")]
    assert one_slip_per_value(pairs) == [(3, "a"), (5, "b"), (7, "d")]
    assert one_slip_per_value(pairs, keep="last") == [(3, "c"), (5, "e"), (7, "d")]
    # a dict built with setdefault (first) or item assignment (last) gives the same table
    first, last = {}, {}
    for value, message in pairs:
        first.setdefault(value, message)
        last[value] = message
    assert one_slip_per_value(pairs) == list(first.items())
    assert one_slip_per_value(pairs, keep="last") == list(last.items())


def test_two_slips_of_one_value_say_one_message():
    # check_raster_offset(cols=2): the right-hand patch (1) and the lower-left one (cols − 1) are one answer
    verdict = pl.check_raster_offset(1, cols=2)
    assert "左下角" in verdict.message and "右边" not in verdict.message and "①" not in verdict.message, verdict.message


def _slip_tables_built_as_dicts(source: str) -> list:
    """Where ``source`` builds a slip table as a dict or flips one: a dict assigned to ``slips``
    or ``table``, ``slips[...] = ...``, ``slips.setdefault``, ``.items()`` handed to ``slips=``, a
    ``(value, message) for message, value`` comprehension."""
    import ast
    import textwrap

    found = []
    for node in ast.walk(ast.parse(textwrap.dedent(source))):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                name = target.id if isinstance(target, ast.Name) else \
                    target.value.id if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) else ""
                if name in ("slips", "table") and (isinstance(target, ast.Subscript) or
                                                   isinstance(node.value, (ast.Dict, ast.DictComp))):
                    found.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "slips":
            found.append(node.lineno)
        if isinstance(node, ast.keyword) and node.arg == "slips" and \
                any(isinstance(n, ast.Attribute) and n.attr == "items" for n in ast.walk(node.value)):
            found.append(node.value.lineno)
        if isinstance(node, ast.comprehension) and isinstance(node.target, ast.Tuple) and \
                [getattr(e, "id", "") for e in node.target.elts] == ["message", "value"]:
            found.append(node.iter.lineno)
    return found


#: The functions allowed a dict beside a slip table: the helper that keeps one pair per value,
#: check_value reading a caller's older {message: value} mapping, and check_choice's ``hints``
#: (option -> message: already value first).
DICTS_ALLOWED = {("posenc/exercises/rule.py", "one_slip_per_value"), ("posenc/exercises/rule.py", "check_value"),
                 ("posenc/exercises/rule.py", "check_choice")}


def test_every_slip_table_is_a_list_of_value_message_pairs():
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    found = set()
    for path in sorted((root / "posenc" / "exercises").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and _slip_tables_built_as_dicts(ast.get_source_segment(source, node)):
                found.add((str(path.relative_to(root)), node.name))
    assert found == DICTS_ALLOWED


@pytest.mark.parametrize("source", [
    'slips = {"message": 1.0}\ngrade(a, r, slips=[(v, m) for m, v in slips.items()])',
    'slips = {}\nslips.setdefault(3, "message")\ngrade(a, r, slips=list(slips.items()))',
    'slips = {1: "m"}\nslips[2] = "n"',
    'grade(a, r, slips=[(value, message) for message, value in case.slips()])',
])
def test_the_slip_table_scan_flags_a_dict_or_a_flip(source):
    assert _slip_tables_built_as_dicts(source)
