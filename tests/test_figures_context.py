"""posenc.figures.context: plot_rope_scaling and the rope_scaling explorer (the generic explorer
tests in test_posenc_lib.py also run over it: every control moves the figure, widget = render)."""
import io
import math
import warnings

import numpy as np
import pytest

import posenc_lib as pl
from support import assert_draws_cleanly, assert_refused_clearly, pixels


@pytest.mark.parametrize("kwargs", [
    {}, dict(rope_type="linear"), dict(rope_type="ntk", factor=8), dict(rope_type="yarn", factor=32),
    dict(rope_type="yarn", factor=4, train_len=16, target_len=64, d_model=8),
    dict(rope_type="none", train_len=8192, target_len=16, d_model=8),
])
@pytest.mark.slow
def test_plot_rope_scaling_draws_cleanly(kwargs):
    assert_draws_cleanly(lambda: pl.plot_rope_scaling(**kwargs))


def test_plot_into_given_axes():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 3.5))
    ax = fig.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pl.plot_rope_scaling(ax=ax) is fig
        fig.savefig(io.BytesIO(), format="png")
    assert len(fig.axes) == 3


def test_explorer_draws_what_the_compute_functions_say():
    ex = pl.EXPLORERS["context"]()
    ex.controls["d_model"].value = 8
    ex.controls["train_len"].value = 16
    ex.controls["target_len"].value = 64
    view = ex.view
    w = [10000 ** (-2 * i / 8) for i in range(4)]
    # plain RoPE: pairs 1..3 never complete a turn in 16 positions and turn further at 64
    assert np.flatnonzero(ex.coverage.unseen).tolist() == [1, 2, 3]
    x, y = view.unseen_pts.get_data()
    np.testing.assert_allclose(y, [63 * w[i] / (2 * math.pi) for i in (1, 2, 3)])
    np.testing.assert_allclose(x, [16 * w[i] / (2 * math.pi) for i in (1, 2, 3)])
    assert "3" in view.title_turn.get_text()
    for rope_type, want in (("linear", [4, 4, 4, 4]), ("ntk", [4 ** (i / 3) for i in range(4)]), ("yarn", [1, 4, 4, 4])):
        ex.controls["rope_type"].value = rope_type
        np.testing.assert_allclose(view.slow.get_data()[1], want, rtol=1e-12)
        # new angles: no full turn in training (15 w_i < 2π) and turned past 16 w_i at 64
        new = [i for i in range(4) if 15 * w[i] < 2 * math.pi and 63 * w[i] / want[i] > 16 * w[i]]
        assert len(view.unseen_pts.get_data()[0]) == len(new)
        assert new == ([1, 2] if rope_type == "ntk" else [])
    ex.controls["factor"].value = 1
    np.testing.assert_allclose(view.slow.get_data()[1], 1.0)
    # the score curve is the mean cosine at integer offsets 0 .. L'
    xs, ys = view.plain.get_data()
    ks = np.round(np.asarray(xs) * 64)
    np.testing.assert_allclose(ys, [sum(math.cos(k * wi) for wi in w) / 4 for k in ks], atol=1e-12)


def test_yarn_title_shows_the_attention_factor():
    ex = pl.EXPLORERS["context"](rope_type="yarn", factor=16)
    assert f"{0.1 * math.log(16) + 1:.3f}" in ex.view.title_score.get_text()


@pytest.mark.slow
def test_every_rope_type_gives_other_pixels():
    ex = pl.EXPLORERS["context"]()
    seen = []
    for rope_type in pl.ROPE_TYPES:
        ex.controls["rope_type"].value = rope_type
        seen.append(pixels(ex.figure))
    for a in range(len(seen)):
        for b in range(a + 1, len(seen)):
            assert not np.array_equal(seen[a], seen[b])


def test_a_target_shorter_than_training_is_said_in_words_and_needs_no_extension():
    """Decision: L' < L is a shorter context than training, not an error (the sliders reach
    it): no pair meets an unseen angle, and the figure says there is nothing to extend. A
    factor s < 1 (the same request through s = L' / L) is refused with that reason."""
    ex = pl.ContextExplorer(rope_type="yarn", train_len=4096, target_len=16)
    assert not ex.coverage.unseen.any()
    assert "16 < L = 4096" in ex.view.title_turn.get_text()
    assert ("无需扩展" in ex.view.title_turn.get_text()) or ("nothing to extend" in ex.view.title_turn.get_text())
    ex.controls["target_len"].value = 8192
    assert "→" in ex.view.title_turn.get_text() and "<" not in ex.view.title_turn.get_text()
    cov = pl.rope_angle_coverage(8, 64, 16, rope_type="pi", factor=4)
    assert not cov.unseen.any() and np.all(cov.target_angle < 64 * pl.frequencies(8))
    for call in (lambda: pl.rope_frequencies(8, rope_type="pi", factor=0.5),
                 lambda: pl.plot_rope_scaling(rope_type="pi", factor=0.25)):
        assert_refused_clearly(call, ValueError, "a shorter target needs no scaling")
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="rope")
    assert_refused_clearly(lambda: model.set_rope_scaling("pi", 0.5), ValueError, "factor must be >= 1")


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.plot_rope_scaling(rope_type="rope"), ValueError, "rope_type"),
    (lambda: pl.plot_rope_scaling(factor=0.5), ValueError, "factor"),
    (lambda: pl.plot_rope_scaling(d_model=9), ValueError, "d_model"),
    (lambda: pl.plot_rope_scaling(target_len=1), ValueError, "target_len"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


@pytest.mark.slow
def test_no_cjk_font_fallback(without_cjk_font):
    without_cjk_font('''
figs = [pl.plot_rope_scaling(), pl.plot_rope_scaling("yarn", 4, 16, 64, 8), pl.EXPLORERS["context"]().figure]
''')


def test_yarn_ramp_figure_draws_both_ramps_in_the_papers_direction():
    fig = pl.plot_yarn_ramp(128, 4096)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    r = [4096 * w / (2 * math.pi) for w in pl.frequencies(128)]
    assert len(lines) == 2
    for line in lines.values():
        np.testing.assert_allclose(line.get_xdata(), r, rtol=1e-12)
    by_marker = {line.get_marker(): np.asarray(line.get_ydata()) for line in lines.values()}
    np.testing.assert_allclose(by_marker["o"], pl.yarn_ramp(128, 4096))          # implementations: linear in i
    np.testing.assert_allclose(by_marker["s"], pl.yarn_paper_ramp(128, 4096))    # the paper: linear in r
    for y in by_marker.values():
        assert y[0] == 1.0 and y[-1] == 0.0      # the paper's direction: fast pairs kept, slow ones interpolated
    assert_draws_cleanly(lambda: pl.plot_yarn_ramp(64, 2048))
