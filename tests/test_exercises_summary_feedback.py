"""The two synthesis exercises of notebook 12 (the summary): which encodings keep a score when both positions
shift, and which context extensions keep the fastest RoPE pair. Expected sets come from the
schemes' definitions (position enters only through k = n - m, or through m and n themselves;
w_0 = base^0 = 1), the measured values from the check's own measurement function."""
import math

import pytest

import posenc_lib as pl
from posenc.exercises.context import fast_pair_slowdowns
from posenc.exercises.relative_family import shift_invariance


def test_shift_invariance_measures_what_the_definitions_say():
    scores = shift_invariance()
    relative = {"c", "d", "e", "f"}        # Shaw, T5, RoPE, ALiBi: position only through n - m
    for letter, (before, after) in scores.items():
        if letter in relative:
            assert after == pytest.approx(before, rel=1e-9, abs=1e-9), letter
        else:                               # added position vectors: m and n themselves
            assert abs(after - before) > 1e-3, letter


@pytest.mark.parametrize("answer, verdict, words", [
    ("cdef", True, "c、d、e、f"),
    ("CDEF", True, "c、d、e、f"),
    (["c", "d", "e", "f"], True, "c、d、e、f"),
    ("acdef", False, "(a) 正弦 PE"),
    ("bcdef", False, "(b) 可学习位置表"),
    ("def", False, "漏了 (c)"),
    ("cdf", False, "漏了 (e) RoPE"),
    ("cde", False, "漏了 (f) ALiBi"),
    ("xyz", False, "a 到 f"),
    (3, False, "a 到 f"),
    (None, False, "None"),
])
def test_check_shift_invariance_names_each_slip(answer, verdict, words):
    v = pl.check_shift_invariance(answer)
    assert bool(v) is verdict and words in v.message, v.message
    if not verdict and answer is not None:
        assert v.message.startswith("你填的是"), v.message


def test_fast_pair_slowdowns_follow_the_formulas():
    slow = fast_pair_slowdowns(d_model=128, factor=4.0, train_len=4096)
    assert slow["a"] == pytest.approx((4.0, 4.0))                      # PI: every w_i / s
    assert slow["b"] == pytest.approx((1.0, 4.0))                      # NTK-aware: base * s^(d/(d-2))
    assert slow["c"] == pytest.approx((1.0, 4.0))                      # YaRN: fast pairs untouched
    assert slow["d"] == pytest.approx((1.0, 50.0 ** (126 / 128)))      # (500000/10000)^((d-2)/d)
    assert math.isclose(slow["d"][1], 47.035265, rel_tol=1e-6)


@pytest.mark.parametrize("answer, verdict, words", [
    ("bcd", True, "b、c、d"),
    ("dcb", True, "b、c、d"),
    ("abcd", False, "(a) 位置插值 PI"),
    ("bc", False, "漏了 (d)"),
    ("bd", False, "漏了 (c) YaRN"),
    ("e", False, "a 到 d"),
    (None, False, "None"),
])
def test_check_fast_pair_kept_names_each_slip(answer, verdict, words):
    v = pl.check_fast_pair_kept(answer)
    assert bool(v) is verdict and words in v.message, v.message


def test_fast_pair_missed_yarn_is_explained_by_its_turns_not_by_the_base():
    # pair 0 has w_0 = 1: it turns 4096 / 2π ≈ 652 times in 4096 positions, far above β_fast = 32
    turns = 4096 / (2 * math.pi)
    verdict = pl.check_fast_pair_kept("bd")
    assert not verdict
    missed = verdict.message.split("漏了")[1]
    assert "β_fast" in missed and f"{turns:.0f}" in missed, missed
    assert "base⁰" not in missed, missed
    # a missed (b) is the base argument, a missed (d) says it is a new model, not an extension
    assert "base" in pl.check_fast_pair_kept("cd").message.split("漏了")[1]
    assert "从头" in pl.check_fast_pair_kept("bc").message.split("漏了")[1]


def test_interview_quiz_right_answers_are_spread_over_the_positions():
    from collections import Counter

    counts = Counter(q["answer"] for q in pl.INTERVIEW_QUIZ)
    assert max(counts.values()) <= 0.4 * len(pl.INTERVIEW_QUIZ), counts
    assert len(counts) >= 3, counts
