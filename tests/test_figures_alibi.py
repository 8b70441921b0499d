"""posenc/figures/alibi.py: ALiBi's bias per head and the attention it leaves.
(Drawing contracts: test_figures_style.py and test_figures_explorer.py.)"""
import pytest

import posenc_lib as pl
from support import assert_refused_clearly


@pytest.mark.slow
def test_alibi_head_slider_follows_num_heads():
    ex = pl.AlibiExplorer(num_heads=8, head=6)
    head = ex.controls["head"]            # a frame-grid axis: a selection slider over 1 .. num_heads
    top = lambda: head.options[-1][1]
    assert top() == 8
    ex.controls["num_heads"].value = 4
    assert top() == 4 and head.value == 4
    assert "head 4/4" in ex.view.title_heat.get_text()
    ex.controls["num_heads"].value = 16
    assert top() == 16 and head.value == 4
    head.value = 16
    assert "head 16/16" in ex.view.title_heat.get_text()
    assert ex.redraws == 1


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.plot_alibi_bias(heads=(9,)), ValueError, "heads"),
    (lambda: pl.plot_alibi_bias(seq_len=1), ValueError, "seq_len"),
    (lambda: pl.AlibiExplorer(num_heads=4, head=5), ValueError, "head"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
