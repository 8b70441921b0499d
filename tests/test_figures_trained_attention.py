"""posenc.figures.trained_attention: the attention maps of trained 谁咬谁 models."""
import io
import warnings

import numpy as np
import pytest

import posenc_lib as pl
from support import assert_draws_cleanly, assert_refused_clearly


@pytest.fixture(scope="module")
def runs():
    return {pe: pl.trained_run(pe) for pe in ("none", "sinusoidal")}


def test_draws_cleanly(runs):
    assert_draws_cleanly(lambda: pl.plot_trained_attention(runs))
    assert_draws_cleanly(lambda: pl.plot_trained_attention(runs, "猫咬狗。", layer=1, head=2))


def test_images_are_the_attention_maps(runs):
    sentences = ("嗯猫咬狗啊。", "嗯狗咬猫啊。")
    fig = pl.plot_trained_attention(runs, sentences, layer=1)
    images = [ax.images[0].get_array() for ax in fig.axes if ax.images]
    assert len(images) == 4
    k = 0
    for s in sentences:
        for pe in runs:
            np.testing.assert_allclose(images[k], pl.attention_maps(runs[pe], s)[1].mean(axis=0))
            k += 1


def test_without_position_the_mirror_map_is_a_permutation(runs):
    """No PE: swapping the two animals swaps their rows and columns, nothing else."""
    a = pl.attention_maps(runs["none"], "嗯猫咬狗啊。")
    b = pl.attention_maps(runs["none"], "嗯狗咬猫啊。")
    perm = [0, 3, 2, 1, 4, 5]
    np.testing.assert_allclose(a, b[:, :, perm][:, :, :, perm], atol=1e-6)
    s = pl.attention_maps(runs["sinusoidal"], "嗯猫咬狗啊。")
    t = pl.attention_maps(runs["sinusoidal"], "嗯狗咬猫啊。")
    assert np.abs(s - t[:, :, perm][:, :, :, perm]).max() > 0.05


def test_plot_into_given_axes(runs):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pl.plot_trained_attention(runs, ax=ax) is fig
        fig.savefig(io.BytesIO(), format="png")


@pytest.mark.parametrize("call,exc,words", [
    (lambda r: pl.plot_trained_attention({}), ValueError, "models"),
    (lambda r: pl.plot_trained_attention(r, "猫吃鱼"), ValueError, "vocabulary"),
    (lambda r: pl.plot_trained_attention(r, layer=2), ValueError, "layer"),
    (lambda r: pl.plot_trained_attention(r, head=4), ValueError, "head"),
])
def test_bad_input_is_refused_clearly(runs, call, exc, words):
    assert_refused_clearly(lambda: call(runs), exc, words)


@pytest.mark.slow
def test_no_cjk_font_fallback(without_cjk_font):
    without_cjk_font('''
runs = {pe: pl.train_order_model(pe, steps=3, n_train=32, n_test=32) for pe in ("none", "learned")}
figs = [pl.plot_trained_attention(runs)]
''')
