"""posenc_lib additions for notebook 05 (learned position embeddings).

Expected values come from independent sources: cosines written as loops with the math
module, parameter counts as plain arithmetic, datasets and models rebuilt through the core
API (make_bite_dataset, evaluate, train_order_model), and the mirror-pair argument counted
by hand.
"""
import io
import math
import re
import time
import warnings

import numpy as np
import pytest

import posenc_lib as pl
from posenc.figures.learned import _training_table_html
from support import assert_draws_cleanly, pixels


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb)


# ---------------------------------------------------------------------------
# Compute
# ---------------------------------------------------------------------------
def test_position_similarity_matches_loops():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(6, 5))
    sim = pl.position_similarity(table)
    for p in range(6):
        for q in range(6):
            assert abs(sim[p, q] - cosine(table[p], table[q])) < 1e-12
    np.testing.assert_allclose(np.diag(sim), 1.0)
    np.testing.assert_allclose(sim, sim.T)


def test_position_similarity_zero_row_and_sinusoidal_toeplitz():
    table = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]])
    sim = pl.position_similarity(table)
    assert np.all(sim[1] == 0) and np.all(sim[:, 1] == 0)
    # A PE table: cos(PE(p), PE(q)) = mean_i cos((p - q) w_i), the same along each diagonal.
    d = 16
    sim = pl.position_similarity(pl.sinusoidal_encoding(10, d))
    for p in range(10):
        for q in range(10):
            want = sum(math.cos((p - q) / 10000 ** (2 * i / d)) for i in range(d // 2)) / (d // 2)
            assert abs(sim[p, q] - want) < 1e-12


def test_similarity_by_offset_matches_loops():
    rng = np.random.default_rng(1)
    s = rng.normal(size=(5, 5))
    got = pl.similarity_by_offset(s)
    for k in range(5):
        vals = [s[p, p + k] for p in range(5 - k)]
        assert abs(got[k] - sum(vals) / len(vals)) < 1e-12
    with pytest.raises(ValueError):
        pl.similarity_by_offset(np.ones((2, 3)))


@pytest.mark.parametrize("max_len,d_model", [(1024, 768), (512, 768), (8, 32), (1, 1)])
def test_position_table_parameters(max_len, d_model):
    assert pl.position_table_parameters(max_len, d_model) == max_len * d_model


def test_parameter_count_matches_the_real_modules():
    learned = pl.LearnedPositionalEmbedding(16, 4)
    assert pl.position_table_parameters(16, 4) == sum(p.numel() for p in learned.parameters())
    fixed = pl.SinusoidalPositionalEncoding(4, max_len=16)
    assert sum(p.numel() for p in fixed.parameters()) == 0


def test_markdown_table():
    text = pl.markdown_table(["a", "b"], [[1, "x|y"], [2.5, None]])
    assert text.splitlines() == ["| a | b |", "|---|---|", "| 1 | x\\|y |", "| 2.5 | None |"]
    with pytest.raises(ValueError):
        pl.markdown_table(["a", "b"], [[1]])
    with pytest.raises(ValueError):
        pl.markdown_table([], [])


def test_order_blind_bound_is_one_half_by_counting_pairs():
    assert pl.order_blind_bound() == 0.5
    # By hand: every mirror pair has two different labels; one guess matches at most one.
    ds = pl.make_bite_dataset(200, seed=3, split="test")
    labels = ds.labels.tolist()
    best = 0
    for k in range(0, len(labels), 2):
        assert labels[k] != labels[k + 1]
        best += max(int(g == labels[k]) + int(g == labels[k + 1]) for g in range(len(pl.ANIMALS)))
    assert best / len(labels) == 0.5 == pl.order_blind_bound(seed=3, n=200)


@pytest.mark.parametrize("train_lengths,max_len", [((4, 8), 16), ((4, 12), 20), ((5, 5), 9)])
def test_rows_with_gradient_are_the_training_positions(train_lengths, max_len):
    # Positions 0 .. hi-1 occur in training sentences (hi = longest length); rows past them do not.
    assert pl.rows_with_gradient(train_lengths, max_len) == train_lengths[1]


# ---------------------------------------------------------------------------
# Training runs (one memoised run per setting, shared by the tests below)
# ---------------------------------------------------------------------------
def test_trained_run_is_memoised_and_equals_a_direct_run():
    a = pl.trained_run("sinusoidal")
    assert pl.trained_run("sinusoidal", seed=0, steps=pl.DEFAULT_STEPS) is a
    direct = pl.train_order_model("sinusoidal", seed=0)
    assert direct.losses == a.losses and direct.test_accuracy == a.test_accuracy
    learned = pl.trained_run("learned")
    assert pl.trained_run("learned", max_len=8) is learned
    steps = [s for s, _ in learned.snapshots]
    assert steps == list(range(0, pl.DEFAULT_STEPS + 1, pl.LEARNED_SNAPSHOT_EVERY))
    np.testing.assert_array_equal(learned.snapshots[-1][1], learned.model.pos_emb.weight.detach().numpy())
    with pytest.raises(ValueError):
        pl.trained_run("learned", max_len=4)   # shorter than the training sentences
    with pytest.raises(ValueError):
        pl.trained_run("bogus")


def test_accuracies_none_at_chance_others_learn():
    none, sin, learned = (pl.trained_run(pe) for pe in ("none", "sinusoidal", "learned"))
    assert none.test_accuracy == 0.5 and none.train_accuracy == 0.5
    assert sin.test_accuracy >= 0.95 and learned.test_accuracy >= 0.95
    test = pl.make_bite_dataset(pl.DEFAULT_N_TEST, seed=1, split="test")
    assert pl.mirror_agreement(none.model, test) == 1.0
    assert pl.mirror_agreement(sin.model, test) < 0.1
    assert abs(none.losses[-1] - math.log(2)) < 0.05
    assert abs(none.losses[0] - math.log(len(pl.ANIMALS))) < 0.5


def test_untrained_rows_of_a_longer_table_never_move():
    run = pl.trained_run("learned", max_len=16)
    first, last = run.snapshots[0][1], run.snapshots[-1][1]
    assert first.shape == (16, pl.DEFAULT_D_MODEL)
    np.testing.assert_array_equal(first[8:], last[8:])
    assert np.all(np.abs(first[:8] - last[:8]).max(axis=1) > 1e-3)


def test_length_accuracy_matches_evaluate_on_rebuilt_sets():
    sin = pl.trained_run("sinusoidal").model
    acc = pl.length_accuracy(sin, (8, 12))
    assert list(acc) == [8, 9, 10, 11, 12]
    for length in (8, 11):
        ds = pl.make_bite_dataset(512, (length, length), 1000 + length, split="test")
        assert acc[length] == pl.evaluate(sin, ds)
    short = pl.length_accuracy(pl.trained_run("learned").model, (6, 10))
    assert short[6] is not None and short[8] is not None
    assert short[9] is None and short[10] is None


def test_length_accuracy_agrees_with_extrapolation_table_for_sinusoidal():
    rows = pl.extrapolation_table(pes=("sinusoidal",), include_none=False, test_lengths=(9, 11),
                                  n_per_length=128)
    mine = pl.length_accuracy(pl.trained_run("sinusoidal").model, (9, 11), n_per_length=128)
    assert rows[0]["by_length"] == mine


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------
def test_check_position_params():
    assert pl.check_position_params(1024, 768, 786432)
    assert pl.check_position_params(1024, 768, 786432.0)
    for wrong, words in ((1024 + 768, "相乘"), (1023 * 768, "1024 行"), (0, "正弦"), (5, "max_len 行"),
                         (None, "None"), ("786432", "整数")):
        v = pl.check_position_params(1024, 768, wrong)
        assert not v and words in v.message, (wrong, v.message)


def test_check_order_blind_accuracy():
    assert pl.check_order_blind_accuracy(0.5) and pl.check_order_blind_accuracy(1 / 2)
    for wrong, words in ((0.125, "瞎猜"), (50, "百分数"), (None, "None"), (1.0, "同一个答案"), ("a", "同一个答案")):
        v = pl.check_order_blind_accuracy(wrong)
        assert not v and words in v.message, (wrong, v.message)


def test_training_table_html_lists_every_pe():
    runs = {"sinusoidal": pl.trained_run("sinusoidal")}
    text = _training_table_html(runs, ["none", "sinusoidal"])
    assert text.count("<tr>") == 3 and "—" in text
    accs = re.findall(r"class='posenc-acc'>([0-9.]+)<", text)
    assert accs == [f"{runs['sinusoidal'].train_accuracy:.3f}", f"{runs['sinusoidal'].test_accuracy:.3f}"]


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: pl.plot_loss_curves({pe: pl.trained_run(pe) for pe in ("none", "sinusoidal", "learned")}),
    lambda: pl.plot_loss_curves({"learned": [2.0, 1.0, 0.5]}),
    lambda: pl.plot_learned_similarity(),
    lambda: pl.plot_learned_similarity(step=0),
    lambda: pl.plot_length_accuracy({"none": {4: 0.5, 9: 0.5}, "learned": {4: 1.0, 9: None},
                                     "learned (16)": {4: 1.0, 9: 0.7}}),
])
def test_plots_return_figures_without_warnings(make):
    assert_draws_cleanly(make)


@pytest.mark.parametrize("plot", [
    lambda ax: pl.plot_loss_curves({"none": [2.0, 0.7]}, ax=ax),
    lambda ax: pl.plot_learned_similarity(ax=ax),
    lambda ax: pl.plot_length_accuracy({"sinusoidal": {4: 1.0, 5: 0.9}}, ax=ax),
])
def test_plot_into_given_axes_made_elsewhere(plot):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plot(ax) is fig
        fig.savefig(io.BytesIO(), format="png")


def test_plot_learned_similarity_refuses_bad_input():
    with pytest.raises(ValueError):
        pl.plot_learned_similarity(step=3)          # not a snapshot step
    with pytest.raises(ValueError):
        pl.plot_learned_similarity(run=pl.trained_run("sinusoidal"))
    with pytest.raises(ValueError):
        pl.plot_loss_curves({})


# ---------------------------------------------------------------------------
# The learned explorer
# ---------------------------------------------------------------------------
def test_learned_explorer_shows_the_snapshot_similarity():
    ex = pl.EXPLORERS["learned"]()
    run = pl.trained_run("learned")
    assert list(ex.controls["step"].options) == [s for s, _ in run.snapshots]
    assert ex.controls["step"].value == run.snapshots[-1][0]
    for step, table in (run.snapshots[0], run.snapshots[7]):
        table = table.astype(float).tolist()          # plain Python floats for the loop
        ex.controls["step"].value = step
        shown = np.asarray(ex.view.image.get_array())
        for p in range(len(table)):
            for q in range(len(table)):
                assert abs(shown[p, q] - cosine(table[p], table[q])) < 1e-9
        assert f"{step}" in ex.view.title.get_text()
    ex.play.value = 2                                 # the Play button drives the slider
    assert ex.controls["step"].value == run.snapshots[2][0]
    assert ex.redraws == 1


def test_learned_explorer_updates_fast():
    ex = pl.LearnedTableExplorer()
    opts = list(ex.controls["step"].options)
    times = []
    for j in range(20):
        t = time.perf_counter()
        ex.controls["step"].value = opts[(7 * j + 3) % len(opts)]
        times.append(time.perf_counter() - t)
    # Target < 30 ms (about 12 ms measured); the bound leaves room for a busy machine.
    assert np.median(times) < 0.1, times


# ---------------------------------------------------------------------------
# The training panel
# ---------------------------------------------------------------------------
def test_training_panel_button_trains_three_models():
    panel = pl.TrainingPanel(seed=2, steps=10)
    assert "posenc-training" in panel.widget._dom_classes
    assert panel.controls["steps"].continuous_update is False
    assert panel.controls["seed"].continuous_update is False
    before = panel.image.value
    panel.controls["steps"].value = 15                # moving a control does not train
    panel.controls["seed"].value = 3
    assert panel.progress.value == 0 and panel.image.value == before and panel.runs == {}
    panel.button.click()
    assert panel.progress.value == panel.progress.max == 3 * 15
    assert panel.image.value != before
    accs = re.findall(r"class='posenc-acc'>([0-9.]+)<", panel.table.value)
    assert len(accs) == 6 and all(0.0 <= float(a) <= 1.0 for a in accs)
    assert set(panel.runs) == {"none", "sinusoidal", "learned"}
    assert not panel.button.disabled
    assert "3" in panel.status.value and "15" in panel.status.value
    # Deterministic: the same seed and steps as a direct call give the same losses.
    direct = pl.train_order_model("learned", seed=3, steps=15)
    assert panel.runs["learned"].losses == direct.losses
    lines = panel.monitor.view.lines
    np.testing.assert_array_equal(lines["learned"].get_ydata(), direct.losses)


def test_training_panel_refuses_bad_arguments():
    with pytest.raises(ValueError):
        pl.TrainingPanel(pes=("none", "none"))
    with pytest.raises(ValueError):
        pl.TrainingPanel(pes=("bogus",))
    with pytest.raises(ValueError):
        pl.TrainingPanel(steps=1)


def test_no_cjk_font_fallback_for_notebook05_figures(without_cjk_font):
    without_cjk_font('''
figs = [pl.plot_loss_curves({"none": [2.0, 0.7], "learned": [2.0, 0.1]}),
        pl.plot_length_accuracy({"learned": {4: 1.0, 9: None}}),
        pl.plot_learned_similarity(run=pl.train_order_model("learned", steps=10, snapshot_every=5)),
        pl.TrainingPanel(steps=10).monitor.figure]
''')
