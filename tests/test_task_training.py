"""posenc/task/training.py: deterministic training, memoised runs, snapshots of the learned
table, and counts of what a learned position table trains.

Expected values: accuracy bands and ln 2 / ln 8 (the mirror-pair argument), parameter
counts as plain arithmetic and real torch modules, repeated runs for determinism.
"""
import math

import numpy as np
import pytest
import torch

import posenc_lib as pl
from posenc.task.training import rows_with_gradient
from support import SMALL, assert_refused_clearly


# ---------------------------------------------------------------------------
# Trained models (the memoised default runs, shared with every other test module)
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


@pytest.mark.slow  # trains several models (the README's rule for slow)
def test_accuracy_bands():
    trained = {pe: pl.trained_run(pe) for pe in pl.PE_KINDS}
    acc = {pe: r.test_accuracy for pe, r in trained.items()}
    assert 0.4 <= acc["none"] <= 0.6, acc
    assert acc["none"] <= 0.5                       # provable bound on mirror-pair test sets
    for pe in ("sinusoidal", "learned", "rope", "alibi"):
        assert acc[pe] >= 0.95, acc
    assert abs(trained["none"].losses[-1] - math.log(2)) < 0.05     # stuck at ln 2


def test_accuracies_none_at_chance_others_learn():
    none, sin, learned = (pl.trained_run(pe) for pe in ("none", "sinusoidal", "learned"))
    assert none.test_accuracy == 0.5 and none.train_accuracy == 0.5
    assert sin.test_accuracy >= 0.95 and learned.test_accuracy >= 0.95
    test = pl.make_bite_dataset(pl.DEFAULT_N_TEST, seed=1, split="test")
    assert pl.mirror_agreement(none.model, test) == 1.0
    assert pl.mirror_agreement(sin.model, test) < 0.1
    assert abs(none.losses[-1] - math.log(2)) < 0.05
    assert abs(none.losses[0] - math.log(len(pl.ANIMALS))) < 0.5


def test_training_is_deterministic():
    kw = dict(steps=40, n_train=128, n_test=128, seed=3)
    a, b = pl.train_order_model("learned", **kw), pl.train_order_model("learned", **kw)
    assert a.losses == b.losses
    assert a.test_accuracy == b.test_accuracy
    for pa, pb in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(pa, pb)
    c = pl.train_order_model("learned", **{**kw, "seed": 4})
    assert c.losses != a.losses


def test_training_restores_global_state():
    threads = torch.get_num_threads()
    det = torch.are_deterministic_algorithms_enabled()
    rng = torch.get_rng_state()
    pl.train_order_model("rope", steps=5, n_train=32, n_test=32, num_threads=2)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == det
    assert torch.equal(torch.get_rng_state(), rng)


def test_snapshots_and_callback():
    calls = []
    res = pl.train_order_model("learned", steps=25, n_train=64, n_test=64, snapshot_every=10,
                               callback=lambda step, loss: calls.append((step, loss)), callback_every=10)
    assert [s for s, _ in res.snapshots] == [0, 10, 20, 25]
    assert all(t.shape == (8, 32) and isinstance(t, np.ndarray) for _, t in res.snapshots)
    assert not np.array_equal(res.snapshots[0][1], res.snapshots[-1][1])
    assert [s for s, _ in calls] == [10, 20, 25]
    assert calls[-1][1] == res.losses[-1] and len(res.losses) == 25
    assert res.seconds > 0
    assert pl.train_order_model("rope", **SMALL, snapshot_every=5).snapshots == []


# ---------------------------------------------------------------------------
# What a learned table trains
# ---------------------------------------------------------------------------
def test_learned_rows_past_training_lengths_stay_untrained():
    res = pl.train_order_model("learned", **SMALL, max_len=16, snapshot_every=20)
    first, last = res.snapshots[0][1], res.snapshots[-1][1]
    assert not np.allclose(first[:8], last[:8])
    np.testing.assert_array_equal(first[8:], last[8:])


@pytest.mark.slow
def test_untrained_rows_of_a_longer_table_never_move():
    run = pl.trained_run("learned", max_len=16)
    first, last = run.snapshots[0][1], run.snapshots[-1][1]
    assert first.shape == (16, pl.DEFAULT_D_MODEL)
    np.testing.assert_array_equal(first[8:], last[8:])
    assert np.all(np.abs(first[:8] - last[:8]).max(axis=1) > 1e-3)


@pytest.mark.parametrize("train_lengths,max_len", [((4, 8), 16), ((4, 12), 20), ((5, 5), 9)])
def test_rows_with_gradient_are_the_training_positions(train_lengths, max_len):
    # Positions 0 .. hi-1 occur in training sentences (hi = longest length); rows past them do not.
    assert rows_with_gradient(train_lengths, max_len) == train_lengths[1]


@pytest.mark.parametrize("max_len,d_model", [(1024, 768), (512, 768), (8, 32), (1, 1)])
def test_position_table_parameters(max_len, d_model):
    assert pl.position_table_parameters(max_len, d_model) == max_len * d_model


def test_parameter_count_matches_the_real_modules():
    learned = pl.LearnedPositionalEmbedding(16, 4)
    assert pl.position_table_parameters(16, 4) == sum(p.numel() for p in learned.parameters())
    fixed = pl.SinusoidalPositionalEncoding(4, max_len=16)
    assert sum(p.numel() for p in fixed.parameters()) == 0


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.train_order_model("xpos"), ValueError, "pe 只能是"),
    (lambda: pl.train_order_model("learned", max_len=6), ValueError, "max_len"),
    (lambda: pl.train_order_model("none", steps=0), ValueError, "steps"),
    (lambda: pl.train_order_model("none", lr=5), ValueError, "lr"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
