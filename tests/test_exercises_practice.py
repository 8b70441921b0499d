"""Feedback of notebook 11's checks (practice): right answers accepted, each typical slip named."""
import pytest

import posenc_lib as pl


@pytest.mark.parametrize("answer,words", [(10, "arange"), (5, "再 + 1"), (9, "既数了填充"), (1, "占位编号"),
                                          (7, "数一数"), ("x", "整数")])
def test_decode_position(answer, words):
    assert pl.check_decode_position(6, n_pad=4, n_real=6)
    v = pl.check_decode_position(answer, n_pad=4, n_real=6)
    assert not v and words in v.message, v.message


@pytest.mark.parametrize("answer,words", [([3, 5, 2], "长度"), ([3, 8, 10], "开头的 0"), ([0, 3, 8], "总长度"),
                                          ([0, 1, 2, 0, 1, 2, 3, 4, 0, 1], "位置编号"), ([0, 3, 9, 11], "依次加上"),
                                          ("abc", "整数")])
def test_cu_seqlens(answer, words):
    assert pl.check_cu_seqlens([0, 3, 8, 10], lengths=[3, 5, 2])
    v = pl.check_cu_seqlens(answer, lengths=[3, 5, 2])
    assert not v and words in v.message, v.message


@pytest.mark.parametrize("answer,words", [(5050, "8 位有效数字"), (5048, "fp16"), (5024, "截断"), (5040, "小了一半"),
                                          (5000, "区间")])
def test_bf16_position(answer, words):
    assert pl.check_bf16_position(5056, pos=5050)
    v = pl.check_bf16_position(answer, pos=5050)
    assert not v and words in v.message, v.message


def test_bf16_small_positions_are_exact():
    assert pl.check_bf16_position(200, pos=200)


@pytest.mark.parametrize("answer,words", [(999, "绝对编号"), (12, "个数"), (7, "attention sink"), (3, "序号")])
def test_streaming_position(answer, words):
    assert pl.check_streaming_position(11, n_tokens=1000, n_sink=4, n_recent=8)
    v = pl.check_streaming_position(answer, n_tokens=1000, n_sink=4, n_recent=8)
    assert not v and words in v.message, v.message


def test_placeholder():
    assert "None" in pl.check_cu_seqlens(None, lengths=[2, 2]).message


def test_cu_seqlens_is_an_ordered_list_of_whole_numbers():
    assert pl.check_cu_seqlens([0.0, 3.0, 8.0, 10.0], lengths=[3, 5, 2])        # 3.0 is 3
    v = pl.check_cu_seqlens([0, 8, 3, 10], lengths=[3, 5, 2])                  # the same numbers, out of order
    assert not v and "依次加上" in v.message, v.message
    v = pl.check_cu_seqlens([0, 3.5, 8, 10], lengths=[3, 5, 2])
    assert not v and "整数" in v.message, v.message


def test_bf16_beyond_the_fp16_range():
    # 2^16 <= 100000 < 2^17: spacing 2^(16 - 7) = 512, 100000 / 512 = 195.3 -> 195 * 512
    assert pl.check_bf16_position(195 * 512, pos=100000)
    v = pl.check_bf16_position(100000, pos=100000)                         # fp16 overflows here: no fp16 slip
    assert not v and "8 位有效数字" in v.message, v.message


def test_decode_position_without_pads_names_no_padding_slip():
    v = pl.check_decode_position(1, n_pad=0, n_real=5)
    assert not v and "占位编号" not in v.message and "arange" not in v.message, v.message
    v = pl.check_decode_position(4, n_pad=0, n_real=5)
    assert not v and "再 + 1" in v.message, v.message


@pytest.mark.parametrize("call", [lambda a: pl.check_decode_position(a, n_pad=4, n_real=6), lambda a: pl.check_cu_seqlens(a, lengths=[3, 5, 2]),
                                  lambda a: pl.check_bf16_position(a, pos=5050),
                                  lambda a: pl.check_streaming_position(a, n_tokens=1000, n_sink=4, n_recent=8)])
def test_an_unanswered_exercise_is_pending(call):
    v = call(None)
    assert v.pending and not v and "再想想" not in repr(v)
