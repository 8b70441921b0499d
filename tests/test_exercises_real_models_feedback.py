"""Notebook 10's check_* helpers: right answers pass, each typical slip is named."""
import pytest

import posenc_lib as pl
from posenc.ui.quiz import check_question


def test_llama3_slowdown_values_by_the_rule():
    assert pl.llama3_slowdown(1000) == 1.0
    assert pl.llama3_slowdown(10000) == 8.0
    # wavelength 4096: s = (8192/4096 - 1)/3 = 1/3; w' = (2/3)·w/8 + (1/3)·w = w·(1/12 + 1/3) = 5w/12
    assert pl.llama3_slowdown(4096) == pytest.approx(12 / 5)


def test_check_llama3_slowdown_names_the_slips():
    assert pl.check_llama3_slowdown(2.4, wavelength=4096)
    assert "超过 8192" in pl.check_llama3_slowdown(8, wavelength=4096).message
    assert "短于 2048" in pl.check_llama3_slowdown(1, wavelength=4096).message
    assert "频率" in pl.check_llama3_slowdown((2 / 3) * 8 + 1 / 3, wavelength=4096).message
    assert pl.check_llama3_slowdown(8, wavelength=20000)
    assert not pl.check_llama3_slowdown(1, wavelength=20000)


def test_check_mla_cache_names_the_slips():
    assert pl.check_mla_cache(576, model="DeepSeek-V3")
    assert "潜向量" in pl.check_mla_cache(512, model="DeepSeek-V3").message
    assert "共用" in pl.check_mla_cache(512 + 128 * 64, model="DeepSeek-V3").message
    assert "普通多头" in pl.check_mla_cache(128 * (192 + 128), model="DeepSeek-V3").message
    with pytest.raises(ValueError, match="model"):
        pl.check_mla_cache(1, model="Llama-2-7B")


def test_quiz_bank_is_well_formed():
    assert 3 <= len(pl.REAL_MODELS)
    for n, q in enumerate(pl.REAL_MODELS, 1):
        check_question(n, q)
    pl.Quiz(pl.REAL_MODELS)


def test_check_softmax_scale_names_the_slips():
    """The exercise proposed for 10 §1 (id "mla-softmax-scale"): DeepSeek-V3's softmax scale times 1.874."""
    check_softmax_scale = pl.check_softmax_scale
    assert check_softmax_scale(1.87, model="DeepSeek-V3") and check_softmax_scale(1.874, model="DeepSeek-V3")
    assert "平方" in check_softmax_scale(1.369, model="DeepSeek-V3").message
    assert "cos、sin" in check_softmax_scale(1, model="DeepSeek-V3").message
    assert "倒数" in check_softmax_scale(0.534, model="DeepSeek-V3").message
    assert "None" in check_softmax_scale(None, model="DeepSeek-V3").message
    assert check_softmax_scale(1.59, model="DeepSeek-V2-Lite")
    with pytest.raises(ValueError, match="model"):
        check_softmax_scale(1, model="Llama-2-7B")
