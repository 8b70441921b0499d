"""Figures of the relative-position family (posenc/figures/relative_family.py): what the
explorers draw is the computed thing. (Every control moving the pixels, and the widget image
equalling a full render, are checked for every explorer in test_posenc_lib.py.)"""
import io
import warnings

import numpy as np
import pytest

import posenc_lib as pl
from support import assert_draws_cleanly, pixels
from test_relative_family import t5_bucket_reference


def test_t5_explorer_draws_the_reference_buckets_in_both_modes():
    ex = pl.EXPLORERS["t5_buckets"]()
    v = ex.view
    for num_buckets, max_distance, bidirectional in [(32, 128, True), (16, 64, False), (64, 500, True)]:
        ex.controls["num_buckets"].value = num_buckets
        ex.controls["max_distance"].value = max_distance
        ex.controls["bidirectional"].value = bidirectional
        for line in (v.bucket_past, v.bucket_future):
            ks, buckets = line.get_data()
            assert list(buckets) == [t5_bucket_reference(int(k), bidirectional, num_buckets, max_distance)
                                     for k in ks]
        ks, bias = v.bias_past.get_data()
        table = pl.t5_demo_bias_table(bidirectional, num_buckets, max_distance)
        np.testing.assert_array_equal(bias, [table[t5_bucket_reference(int(k), bidirectional, num_buckets,
                                                                       max_distance)] for k in ks])
    assert ex.redraws == 1


def test_t5_explorer_text_states_the_computed_numbers():
    ex = pl.EXPLORERS["t5_buckets"]()
    text = ex.view.info_text()
    # the last bucket of the earlier side starts at the smallest distance that reaches bucket 15
    last_start = min(n for n in range(1, 200) if t5_bucket_reference(-n) == 15)
    assert last_start == 91
    if pl.cjk_font():
        assert "每个方向 16 个桶" in text and "|k| < 8" in text and f"|k| ≥ {last_start}" in text
        assert "桶 16 没有偏移用到" in text
    ex.controls["bidirectional"].value = False
    causal_start = min(n for n in range(1, 300) if t5_bucket_reference(-n, False) == 31)
    assert f"|k| ≥ {causal_start}" in ex.view.info_text()


def test_score_terms_explorer_right_panel_never_moves_with_m():
    ex = pl.EXPLORERS["score_terms"]()
    v = ex.view
    ys = lambda scheme: [line.get_ydata().copy() for line in [*v.lines[scheme].values(), v.totals[scheme]]]
    left, right = ys("absolute"), ys("transformer_xl")
    ex.controls["m"].value = 180
    for before, after in zip(right, ys("transformer_xl")):
        np.testing.assert_array_equal(before, after)
    changed = [np.abs(b - a).max() for b, a in zip(left, ys("absolute"))]
    assert changed[0] == 0                      # (a) content-content has no position in it
    assert min(changed[1:]) > 1e-3              # (b), (c), (d) and the sum move
    assert "0.00" in v.titles["transformer_xl"].get_text()


def test_score_terms_explorer_sums_the_ticked_terms():
    ex = pl.EXPLORERS["score_terms"]()
    v = ex.view
    ex.controls["a"].value = False
    ex.controls["c"].value = False
    for scheme in ("absolute", "transformer_xl"):
        t = v.terms(scheme, ex.controls["m"].value)
        np.testing.assert_allclose(v.totals[scheme].get_ydata(), t["b"] + t["d"], atol=1e-12)
        assert v.lines[scheme]["a"].get_linestyle() == ":" and v.lines[scheme]["b"].get_linestyle() == "-"
    # the terms the explorer draws are the library's, for one word pair at m and m + k
    m = ex.controls["m"].value
    p = pl.transformer_xl_demo_parameters(64)
    x_q, x_key = pl.random_word_vectors(2, 64)
    ref = pl.transformer_xl_score_terms(x_q[None], x_key[None], p["w_q"], p["w_k_content"], p["w_k_position"],
                                        p["u"], p["v"], [m], [m + 5])
    k_index = list(v.ks).index(5)
    assert v.lines["transformer_xl"]["d"].get_ydata()[k_index] == pytest.approx(ref["d"][0, 0], abs=1e-12)


@pytest.mark.parametrize("make", [
    lambda: pl.plot_t5_buckets(),
    lambda: pl.plot_t5_buckets(16, 40, bidirectional=False),
    lambda: pl.plot_score_terms(),
    lambda: pl.plot_score_terms(100, "bd"),
    lambda: pl.plot_shaw_index(),
    lambda: pl.plot_shaw_index(4, 9, 2),
])
def test_plots_draw_cleanly(make):
    assert_draws_cleanly(make)


@pytest.mark.parametrize("plot", [pl.plot_t5_buckets, pl.plot_score_terms, pl.plot_shaw_index])
def test_plots_into_given_axes_made_elsewhere(plot):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 5))
    ax = fig.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plot(ax=ax) is fig
        fig.savefig(io.BytesIO(), format="png")


def test_plot_equals_explorer_view():
    """A static plot and an explorer at the same settings draw the same curves."""
    fig = pl.plot_score_terms(80, "abd")
    ex = pl.ScoreTermsExplorer(m=80, c=False)
    lines = [ln for ln in fig.axes[1].lines if len(ln.get_xdata()) == len(ex.view.ks)]
    np.testing.assert_allclose(lines[4].get_ydata(), ex.view.totals["transformer_xl"].get_ydata())
    assert pixels(fig).std() > 0


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.plot_score_terms(m=3), ValueError, "m"),
    (lambda: pl.plot_score_terms(terms="xyz"), ValueError, "terms"),
    (lambda: pl.plot_t5_buckets(128), ValueError, "num_buckets"),
    (lambda: pl.plot_shaw_index(max_relative=-1), ValueError, "max_relative"),
])
def test_plots_refuse_bad_input(call, exc, words):
    from support import assert_refused_clearly

    assert_refused_clearly(call, exc, words)


@pytest.mark.slow
def test_no_cjk_font_fallback(without_cjk_font):
    without_cjk_font('''
figs = [pl.plot_t5_buckets(), pl.plot_t5_buckets(bidirectional=False), pl.plot_score_terms(), pl.plot_shaw_index()]
figs += [pl.EXPLORERS["t5_buckets"]().figure, pl.EXPLORERS["score_terms"]().figure]
''')
