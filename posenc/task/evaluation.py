"""How well a trained model reads order: accuracy overall, by length, by biter position.

Every function runs the model in eval mode without gradients and puts it back as it was
(:func:`_predictions`). torch is imported inside the functions that need it.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..position_limit import PositionLimitError
from ..validate import bilingual, check_int, check_lengths, check_one_of
from .data import ANIMALS, MAX_LENGTH, TASKS, BiteDataset, make_bite_dataset


@contextlib.contextmanager
def deterministic_torch(num_threads: int):
    """Fix the thread count and turn on deterministic algorithms; restore both on exit.
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


def _order_model(model, attention: bool = False):
    """The model itself, given an OrderModel (any torch module called as ``model(tokens, mask)``
    will do; with ``attention``, one with ``attention_weights``) or a :class:`TrainResult`."""
    model = getattr(model, "model", model)
    if not (callable(model) and hasattr(model, "training")) or (attention and not hasattr(model, "attention_weights")):
        raise ValueError(bilingual("model must be an OrderModel or a TrainResult",
                                   "model 必须是 OrderModel 或 TrainResult"))
    return model


def _predictions(model, dataset: BiteDataset):
    """The predicted biter of every row (a LongTensor), with the model in eval mode and no
    gradients; the model's train/eval mode is restored afterwards."""
    if not isinstance(dataset, BiteDataset):
        raise ValueError(bilingual(f"dataset must be a BiteDataset, got {type(dataset).__name__}",
                                   "dataset 必须是 BiteDataset"))
    model = _order_model(model)
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
    """
    return float((_predictions(model, dataset) == dataset.labels).double().mean())


def mirror_agreement(model, dataset: BiteDataset) -> float:
    """Fraction of mirror pairs (rows 2k, 2k+1: A咬B / B咬A) given the same predicted biter.

    1.0 for a permutation-invariant model, which therefore scores at most 1/2; near 0 for a
    model that reads order.
    """
    pred = _predictions(model, dataset)
    return float((pred[0::2] == pred[1::2]).double().mean())


def accuracy_by_start(model, dataset: BiteDataset) -> dict:
    """Accuracy per position of the biter (``dataset.starts``): {start: accuracy}.

    The biter sits at ``start``; the final 。 is ``length - 1 - start`` positions after it.
    """
    correct = (_predictions(model, dataset) == dataset.labels).numpy()
    starts = dataset.starts.numpy()
    return {int(s): float(correct[starts == s].mean()) for s in np.unique(starts)}


def _length_test_set(length: int, *, seed: int = 0, n: int = 512, terminator: bool = True,
                     task: str = "adjacent") -> BiteDataset:
    """The held-out sentences of exactly ``length`` tokens that every length test uses.

    ``make_bite_dataset(n, (length, length), seed + 1000 + length, split="test", task=task)``:
    the same set for :func:`length_accuracy` and :func:`extrapolation_table`.
    """
    n = check_int("n_per_length", n, 2)
    if n % 2:
        raise ValueError(bilingual("n_per_length must be even (mirror pairs)", "n_per_length 必须是偶数"))
    return make_bite_dataset(n, (length, length), seed + 1000 + length, split="test",
                             terminator=terminator, task=task)


def accuracies_at_lengths(model, lengths, *, seed: int = 0, n_per_length: int = 512,
                          terminator: bool = True, task: str = "adjacent") -> tuple[dict, str | None]:
    """``({length: accuracy or None}, first error text or None)`` over ``lengths``.

    None marks a length the model cannot read (its PositionLimitError); the text of the
    first such error comes back too.
    """
    out, error = {}, None
    with deterministic_torch(1):
        for length in lengths:
            ds = _length_test_set(length, seed=seed, n=n_per_length, terminator=terminator, task=task)
            try:
                out[length] = evaluate(model, ds)
            except PositionLimitError as exc:
                out[length] = None
                error = error or str(exc)
    return out, error


def length_accuracy(model, lengths=(4, 16), *, seed: int = 0, n_per_length: int = 512,
                    task: str = "adjacent") -> dict:
    """Held-out accuracy at every sentence length lo .. hi: ``{length: accuracy or None}``.

    Each length gets its own test set of sentences of exactly that length
    (:func:`_length_test_set`, shared with :func:`extrapolation_table`). None marks a length
    the model cannot read: a learned table without a row for its last positions raises
    :class:`PositionLimitError` there. ``task`` picks the variant of the test sentences
    (introduced in notebook 09_context_extension).
    """
    lo, hi = check_lengths("lengths", lengths, 4, MAX_LENGTH)
    seed = check_int("seed", seed, 0)
    task = check_one_of("task", task, TASKS)
    return accuracies_at_lengths(model, range(lo, hi + 1), seed=seed, n_per_length=n_per_length,
                                  task=task)[0]


def order_blind_bound(seed: int = 0, n: int = 1000) -> float:
    """The best accuracy any order-blind model can reach on a mirror-pair dataset.

    Such a model sees A咬B and B咬A (same tokens, same fillers) as the same input, so it
    gives both rows of a mirror pair one answer; per pair the best answer is right once.
    Computed from the data: for every pair, the best single guess, averaged.
    """
    ds = make_bite_dataset(check_int("n", n, 2), seed=check_int("seed", seed, 0), split="test")
    labels = ds.labels.numpy().reshape(-1, 2)                    # rows 2k, 2k+1
    guesses = np.arange(len(ANIMALS))
    hits = (labels[:, :, None] == guesses[None, None, :]).sum(axis=1)   # (pairs, guesses)
    return float(hits.max(axis=1).mean() / 2)


def sentence_tokens(sentence) -> list:
    """The token ids of a sentence written as a string of task tokens, e.g. "嗯猫咬狗啊。".

    Every character must be a token of the task's vocabulary (VOCAB, without the padding).
    Used by :func:`attention_maps` and :func:`plot_trained_attention` (notebooks 05 and 09).
    """
    from .data import PAD, TOKEN_TO_ID, VOCAB

    if not isinstance(sentence, str) or not sentence:
        raise ValueError(bilingual(f"sentence must be a non-empty string of task tokens, got {sentence!r}",
                                   "sentence 必须是由任务词表里的字组成的非空字符串"))
    bad = sorted({c for c in sentence if c not in TOKEN_TO_ID or c == PAD})
    if bad:
        allowed = "".join(t for t in VOCAB if t != PAD)
        raise ValueError(bilingual(f"sentence has tokens outside the vocabulary {bad}; allowed: {allowed}",
                                   f"句子里有词表之外的字 {bad}；只能用 {allowed}"))
    return [TOKEN_TO_ID[c] for c in sentence]


def attention_maps(model, sentence) -> np.ndarray:
    """Attention weights of a trained model on one sentence: array [layers, heads, seq, seq].

    ``weights[l, h, m, n]`` is how much the token at query position m attends to the token at
    key position n in head h of layer l (each row sums to 1). ``model`` is an OrderModel or a
    :class:`TrainResult`; ``sentence`` a string of task tokens (:func:`sentence_tokens`).
    """
    import torch

    model = _order_model(model, attention=True)
    ids = torch.tensor([sentence_tokens(sentence)])
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            weights = model.attention_weights(ids)
    finally:
        model.train(was_training)
    return np.stack([w[0].numpy().astype(float) for w in weights])
