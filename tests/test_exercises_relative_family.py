"""The relative-family exercises: right answers pass, and each typical slip gets a message that
names what was entered and what it shows."""
import math

import pytest

import posenc_lib as pl
from posenc.exercises.relative_family import moving_terms
from test_relative_family import t5_bucket_reference


@pytest.mark.parametrize("k,bidirectional", [(-20, True), (20, True), (-3, True), (5, True), (-200, True),
                                             (-20, False), (7, False), (-50, False)])
def test_t5_bucket_right_answers(k, bidirectional):
    right = t5_bucket_reference(k, bidirectional)
    v = pl.check_t5_bucket(right, k=k, bidirectional=bidirectional)
    assert v and f"桶 {right}" in v.message
    assert pl.check_t5_bucket(float(right), k=k, bidirectional=bidirectional)      # 10.0 is 10


def t5_slip_values():
    """Wrong answers for k = -20 (bidirectional, 32 buckets, 128), each from an independent source."""
    all_for_one_side = t5_bucket_reference(-20, False)            # 32 buckets for the past alone
    x = 8 + round(math.log(20 / 8) / math.log(16) * 8)
    return [(t5_bucket_reference(20), "方向反了"), (20, "max_exact = 8"), (x, "截断取整"),
            (all_for_one_side, "全部 32 个桶"), ("ten", "整数")]


@pytest.mark.parametrize("answer,words", t5_slip_values())
def test_t5_bucket_slips(answer, words):
    assert answer != t5_bucket_reference(-20)
    v = pl.check_t5_bucket(answer, k=-20)
    shown = answer.strip() if isinstance(answer, str) else str(answer)
    assert not v and f"你填的是 {shown}：" in v.message
    assert words in v.message


def test_t5_bucket_other_mode_and_placeholder():
    causal = t5_bucket_reference(-50, False)
    bidir = t5_bucket_reference(-50, True)
    assert causal != bidir
    v = pl.check_t5_bucket(bidir, k=-50, bidirectional=False)
    assert not v and "双向" in v.message
    assert not pl.check_t5_bucket(None, k=-50) and "None" in pl.check_t5_bucket(None, k=-50).message


def test_t5_buckets_used_counts():
    after = {t5_bucket_reference(k) for k in range(1, 2000)}
    before = {t5_bucket_reference(k) for k in range(-2000, 1)}
    assert len(after) == 15 and len(before) == 16
    assert pl.check_t5_buckets_used(len(after))
    assert pl.check_t5_buckets_used(len(before), side="before")
    v = pl.check_t5_buckets_used(16)
    assert not v and "你填的是 16" in v.message and "桶 16" in v.message
    assert "全部的桶" in pl.check_t5_buckets_used(32).message
    assert "一个偏移一个桶" in pl.check_t5_buckets_used(7).message
    causal_after = {t5_bucket_reference(k, False) for k in range(1, 2000)}
    assert pl.check_t5_buckets_used(len(causal_after), bidirectional=False)
    with pytest.raises(ValueError, match="side"):
        pl.check_t5_buckets_used(3, side="left")


@pytest.mark.parametrize("m,n,r", [(10, 3, 4), (3, 10, 4), (5, 6, 4), (0, 0, 2), (7, 2, 16)])
def test_shaw_row_right_and_slips(m, n, r):
    k = n - m
    right = max(-r, min(r, k)) + r
    assert pl.check_shaw_row(right, m=m, n=n, max_relative=r)
    flipped = max(-r, min(r, -k)) + r
    if flipped != right:
        v = pl.check_shaw_row(flipped, m=m, n=n, max_relative=r)
        assert not v and "m − n" in v.message and f"你填的是 {flipped}" in v.message
    if abs(k) > r:
        v = pl.check_shaw_row(k + r, m=m, n=n, max_relative=r)
        assert not v and "裁剪" in v.message
    clipped = max(-r, min(r, k))
    if clipped != right and clipped not in (flipped, k + r):
        assert "加 " in pl.check_shaw_row(clipped, m=m, n=n, max_relative=r).message


@pytest.mark.parametrize("scheme,vary,right", [("absolute", "m", "bcd"), ("transformer_xl", "m", ""),
                                               ("absolute", "k", "bd"), ("transformer_xl", "k", "bd")])
def test_moving_terms(scheme, vary, right):
    assert pl.check_moving_terms(right, scheme=scheme, vary=vary)
    assert pl.check_moving_terms(list(right), scheme=scheme, vary=vary)
    assert pl.check_moving_terms(", ".join(right), scheme=scheme, vary=vary)
    v = pl.check_moving_terms("abcd", scheme=scheme, vary=vary)
    assert not v and "(a)" in v.message and "你填的是 'abcd'" in v.message


def test_moving_terms_names_each_wrong_letter():
    v = pl.check_moving_terms("bd")             # absolute, m moves: (c) PE(m)·x_n was missed
    assert not v and "漏了 (c)" in v.message and "(b)" not in v.message
    v = pl.check_moving_terms("bcd", scheme="transformer_xl")
    assert not v and "(c)" in v.message and "不变" in v.message
    assert not pl.check_moving_terms("xz") and "字母" in pl.check_moving_terms("xz").message
    assert not pl.check_moving_terms(None)


def test_moving_terms_says_how_to_answer_none():
    """Transformer-XL with m moving: no term moves. Typing 无 (or none, 没有) is read as the empty
    answer; an answer that is not letters is told how to write "none"."""
    assert moving_terms("transformer_xl", "m") == set()     # measured: the right answer is "no term"
    for none in ("", "无", "没有", " none ", "都不变"):
        assert pl.check_moving_terms(none, scheme="transformer_xl"), none
    v = pl.check_moving_terms("无", scheme="absolute")              # none is wrong here: (b), (c), (d) move
    assert not v and "漏了 (b)" in v.message
    v = pl.check_moving_terms("全都不变", scheme="transformer_xl")
    assert not v and '""' in v.message and "一项都不变" in v.message
