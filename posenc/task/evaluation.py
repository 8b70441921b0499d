"""How well a trained model reads order: accuracy overall, by length, by biter position.

Every function runs the model in eval mode without gradients and puts it back as it was
(:func:`_predictions`). torch is imported inside the functions that need it.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..validate import PositionLimitError, _check_int
from .data import ANIMALS, BiteDataset, _check_lengths, make_bite_dataset


@contextlib.contextmanager
def _deterministic_torch(num_threads: int):
    """Fix the thread count and turn on deterministic algorithms; restore both on exit.

    Introduced in notebook 05_learned_embeddings.
    """
    import torch

    old_threads = torch.get_num_threads()
    old_det = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(num_threads)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_det)


def _predictions(model, dataset: BiteDataset):
    """The predicted biter of every row (a LongTensor), with the model in eval mode and no
    gradients; the model's train/eval mode is restored afterwards."""
    if not isinstance(dataset, BiteDataset):
        raise ValueError(f"dataset must be a BiteDataset, got {type(dataset).__name__} / "
                         f"dataset 必须是 BiteDataset")
    import torch

    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            return model(dataset.tokens, dataset.mask).argmax(-1)
    finally:
        model.train(was_training)


def evaluate(model, dataset: BiteDataset) -> float:
    """Accuracy of ``model`` on ``dataset`` (fraction of rows whose argmax is the biter).

    Introduced in notebook 05_learned_embeddings.
    """
    return float((_predictions(model, dataset) == dataset.labels).double().mean())


def mirror_agreement(model, dataset: BiteDataset) -> float:
    """Fraction of mirror pairs (rows 2k, 2k+1: A咬B / B咬A) given the same predicted biter.

    1.0 for a permutation-invariant model, which therefore scores at most 1/2; near 0 for a
    model that reads order. Introduced in notebook 05_learned_embeddings.
    """
    pred = _predictions(model, dataset)
    return float((pred[0::2] == pred[1::2]).double().mean())


def accuracy_by_start(model, dataset: BiteDataset) -> dict:
    """Accuracy per position of the biter (``dataset.starts``): {start: accuracy}.

    The biter sits at ``start``; the final 。 is ``length - 1 - start`` positions after it.
    Introduced in notebook 08_alibi_extrapolation.
    """
    correct = (_predictions(model, dataset) == dataset.labels).numpy()
    starts = dataset.starts.numpy()
    return {int(s): float(correct[starts == s].mean()) for s in np.unique(starts)}


def _length_test_set(length: int, *, seed: int = 0, n: int = 512, terminator: bool = True) -> BiteDataset:
    """The held-out sentences of exactly ``length`` tokens that every length test uses.

    ``make_bite_dataset(n, (length, length), seed + 1000 + length, split="test")``: the same
    set for :func:`length_accuracy` and :func:`extrapolation_table`.
    Introduced in notebook 05_learned_embeddings.
    """
    n = _check_int("n_per_length", n, 2)
    if n % 2:
        raise ValueError("n_per_length must be even (mirror pairs) / n_per_length 必须是偶数")
    return make_bite_dataset(n, (length, length), seed + 1000 + length, split="test",
                             terminator=terminator)


def _accuracies_at_lengths(model, lengths, *, seed: int = 0, n_per_length: int = 512,
                          terminator: bool = True) -> tuple[dict, str | None]:
    """``({length: accuracy or None}, first error text or None)`` over ``lengths``.

    None marks a length the model cannot read (its PositionLimitError); the text of the
    first such error comes back too.
    """
    out, error = {}, None
    with _deterministic_torch(1):
        for length in lengths:
            ds = _length_test_set(length, seed=seed, n=n_per_length, terminator=terminator)
            try:
                out[length] = evaluate(model, ds)
            except PositionLimitError as exc:
                out[length] = None
                error = error or str(exc)
    return out, error


def length_accuracy(model, lengths=(4, 16), *, seed: int = 0, n_per_length: int = 512) -> dict:
    """Held-out accuracy at every sentence length lo .. hi: ``{length: accuracy or None}``.

    Each length gets its own test set of sentences of exactly that length
    (:func:`_length_test_set`, shared with :func:`extrapolation_table`). None marks a length
    the model cannot read: a learned table without a row for its last positions raises
    :class:`PositionLimitError` there.
    Introduced in notebook 05_learned_embeddings.
    """
    lo, hi = _check_lengths("lengths", lengths, 4)
    seed = _check_int("seed", seed, 0)
    return _accuracies_at_lengths(model, range(lo, hi + 1), seed=seed, n_per_length=n_per_length)[0]


def order_blind_bound(seed: int = 0, n: int = 1000) -> float:
    """The best accuracy any order-blind model can reach on a mirror-pair dataset.

    Such a model sees A咬B and B咬A (same tokens, same fillers) as the same input, so it
    gives both rows of a mirror pair one answer; per pair the best answer is right once.
    Computed from the data: for every pair, the best single guess, averaged.
    Introduced in notebook 05_learned_embeddings.
    """
    ds = make_bite_dataset(_check_int("n", n, 2), seed=_check_int("seed", seed, 0), split="test")
    labels = ds.labels.numpy().reshape(-1, 2)                    # rows 2k, 2k+1
    guesses = np.arange(len(ANIMALS))
    hits = (labels[:, :, None] == guesses[None, None, :]).sum(axis=1)   # (pairs, guesses)
    return float(hits.max(axis=1).mean() / 2)
