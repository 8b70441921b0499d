"""posenc/figures/extrapolation.py: accuracy by test length per encoding, and by the biter's
position. (Drawing contracts: test_figures_style.py.)

Expected values: the rows and dicts handed to the plots.
"""
import pytest

import posenc_lib as pl
from support import EXTRAPOLATION_ROWS, assert_refused_clearly


def test_extrapolation_draws_each_runnable_row_and_lists_the_others():
    fig = pl.plot_extrapolation(EXTRAPOLATION_ROWS)
    ax = fig.axes[0]
    data = [(list(ln.get_xdata()), list(ln.get_ydata())) for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    assert data == [([9, 10], [0.996, 1.0])]            # rope; the too-short learned table has no line
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "rope"
    assert legend[1].startswith("learned (max_len=8): ") and legend[1].split(": ")[1] in ("无法运行", "cannot run")
    assert list(ax.get_xticks()) == [9, 10]


def test_accuracy_by_start_draws_one_line_per_model():
    by_start = {"rope": {1: 0.9, 0: 1.0}, "alibi": {0: 0.6, 1: 1.0}}
    ax = pl.plot_accuracy_by_start(by_start, 8).axes[0]
    lines = {ln.get_label(): (list(ln.get_xdata()), list(ln.get_ydata())) for ln in ax.get_lines()
             if ln.get_label() in by_start}
    assert lines == {"rope": ([0, 1], [1.0, 0.9]), "alibi": ([0, 1], [0.6, 1.0])}
    assert list(ax.get_xticks()) == list(range(8 - 4 + 1))      # every start a length-8 sentence allows


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.plot_accuracy_by_start({}, 16), ValueError, "by_start"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


def test_labels_quote_the_full_stop_as_the_prose_does():
    # the prose writes 「。」; a bare 。 between spaces reads as a stray sentence end
    import re

    figs = [pl.plot_accuracy_by_start({"rope": {0: 1.0, 1: 0.9}}, 16), pl.plot_extrapolation(EXTRAPOLATION_ROWS)]
    texts = []
    for fig in figs:
        for ax in fig.axes:
            texts += [ax.get_xlabel(), ax.get_ylabel(), ax.get_title()] + [t.get_text() for t in ax.texts]
    text = " ".join(texts)
    if re.search(r"[\u4e00-\u9fff]", text):             # the Chinese labels are drawn (CJK font present)
        assert "「。」" in text, text
        assert not re.search(r"(?<!「)。(?!」)", text.replace("。\n", "")), text
