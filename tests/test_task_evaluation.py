"""posenc/task/evaluation.py: accuracy, mirror agreement, accuracy by length and by the
biter's position, and the order-blind bound (1/2, counted by hand over mirror pairs)."""
import pytest
import torch

import posenc_lib as pl
from support import SMALL, assert_refused_clearly

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


def test_mirror_agreement():
    ds = pl.make_bite_dataset(200, seed=9, split="test")
    assert pl.mirror_agreement(pl.trained_run("none").model, ds) == 1.0
    assert pl.mirror_agreement(pl.trained_run("rope").model, ds) < 0.05


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


def test_length_accuracy_has_one_entry_per_length():
    res = pl.train_order_model("sinusoidal", **SMALL)
    by = pl.length_accuracy(res.model, (5, 7), n_per_length=40)
    assert set(by) == {5, 6, 7}


def test_accuracy_by_start_with_a_model_that_knows_only_even_starts():
    data = pl.make_bite_dataset(200, (4, 8), seed=4)

    class Oracle(torch.nn.Module):
        def forward(self, tokens, mask):
            logits = torch.zeros(len(tokens), len(pl.ANIMALS))
            right = data.labels.clone()
            wrong = (right + 1) % len(pl.ANIMALS)
            pick = torch.where(data.starts % 2 == 0, right, wrong)
            logits[torch.arange(len(tokens)), pick] = 1.0
            return logits

    model = Oracle().train()
    acc = pl.accuracy_by_start(model, data)
    assert sorted(acc) == sorted(set(data.starts.tolist()))
    assert all(v == (1.0 if s % 2 == 0 else 0.0) for s, v in acc.items())
    assert model.training, "the model's train/eval mode is restored"


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.evaluate(None, [1, 2]), ValueError, "BiteDataset"),
    (lambda: pl.accuracy_by_start(None, "data"), ValueError, "dataset"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
