"""Feedback of notebook 12's checks (probes, rope_2d): right answers accepted, each typical slip named."""
import pytest

import posenc_lib as pl


@pytest.mark.parametrize("answer,words", [(1, "右边"), (7, "左下角"), (9, "右下角"), (64, "整张图"), (-8, "正上方"),
                                          (5, "按行展开"), ("x", "整数")])
def test_raster_offset(answer, words):
    assert pl.check_raster_offset(8, cols=8)
    v = pl.check_raster_offset(answer, cols=8)
    assert not v and words in v.message, v.message


@pytest.mark.parametrize("answer,words", [(0.25, "少算了一个"), (5, "词数"), (1, "自己"), (1 / 6, "多算了一个"),
                                          (0.5, "softmax")])
def test_causal_weight(answer, words):
    assert pl.check_causal_weight(0.2, n=4) and pl.check_causal_weight(1 / 5, n=4)
    v = pl.check_causal_weight(answer, n=4)
    assert not v and words in v.message, v.message


@pytest.mark.parametrize("answer,words", [(27, "一个个数"), (8, "最大的编号本身"), (6, "漏了"), (26, "一维编号"),
                                          (10, "加 1")])
def test_mrope_text_start(answer, words):
    assert pl.check_mrope_text_start(9, n_text_before=3, grid_thw=(1, 4, 6))
    v = pl.check_mrope_text_start(answer, n_text_before=3, grid_thw=(1, 4, 6))
    assert not v and words in v.message, v.message


def test_placeholder():
    assert "None" in pl.check_raster_offset(None, cols=8).message
