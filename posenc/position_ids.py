"""Position ids built for length generalization: randomized positions (Ruoss et al. 2023) and
Abacus ids (McLeish et al. 2024) on algorithmic tasks, PoSE's skipped ids (Zhu et al. 2023) for
a long context trained in a short window, and which distances a set of id rows covers.

Randomized positions follow google-deepmind/randomized_positional_encodings
``models/positional_encodings.py`` (``noisy_fixed_positional_encodings``): a training sequence of
length n takes n distinct positions drawn from ``[0, max_len)``, sorted, so positions up to the
longest test length appear in training. Abacus ids follow mcleish7/arithmetic ``abacus.py``: each
digit gets its place inside its own number (1, 2, …; numbers are written least significant digit
first), every other token 0, and during training all digit ids are shifted by one random k.
PoSE follows dwzhu-pku/PoSE ``src/train_pose.py`` (``train_preprocess_function_pose``).
"""
from __future__ import annotations

import numpy as np

from .validate import bilingual, check_int

DIGITS = "0123456789"


def randomized_positions(seq_len: int, max_len: int, rng=None) -> np.ndarray:
    """``seq_len`` distinct positions drawn uniformly from ``0 … max_len − 1`` without
    replacement, in increasing order (``jrandom.choice(..., replace=False)`` then ``jnp.sort``).
    ``rng``: a numpy Generator or a seed.
    """
    max_len = check_int("max_len", max_len, 1, 1_000_000)
    seq_len = check_int("seq_len", seq_len, 1, max_len)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return np.sort(rng.choice(max_len, size=seq_len, replace=False))


def abacus_positions(tokens, offset: int = 0) -> np.ndarray:
    """Abacus ids of a token string (one character per token): a digit's place inside its run of
    consecutive digits, counted from 1, plus ``offset`` (the random shift k of training, 0 at
    test time); every non-digit token 0.
    """
    if not isinstance(tokens, str) or not tokens:
        raise TypeError(bilingual("tokens must be a non-empty string, one character per token",
                                  "tokens 必须是非空字符串，每个字符一个词"))
    offset = check_int("offset", offset, 0)
    ids, run = [], 0
    for ch in tokens:
        run = run + 1 if ch in DIGITS else 0
        ids.append(run + offset if run else 0)
    return np.array(ids, dtype=np.int64)


def pose_position_ids(train_len: int, target_len: int, rng=None, split: int | None = None,
                      skip: int | None = None) -> np.ndarray:
    """PoSE's position ids for one training window of ``train_len`` tokens standing for a context
    of ``target_len`` (Zhu et al. 2023, "PoSE: Efficient Context Window Extension of LLMs via
    Positional Skip-wise Training", arXiv:2309.10400), as ``train_preprocess_function_pose`` in
    dwzhu-pku/PoSE ``src/train_pose.py`` builds them: two chunks; the first, of ``split`` tokens
    (drawn from 1 … (train_len + 1) // 2), keeps positions 0 … split − 1; the second is shifted
    by ``skip`` (drawn from 0 … target_len − train_len): positions split + skip … train_len − 1 + skip.
    ``rng``: a numpy Generator or a seed, for the draws not given. (The code also takes the second
    chunk's text from later in the document; only the ids are computed here.)
    """
    target_len = check_int("target_len", target_len, 2, 10**8)
    train_len = check_int("train_len", train_len, 2, target_len)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    first_max = (train_len + 1) // 2
    split = int(rng.integers(1, first_max + 1)) if split is None else check_int("split", split, 1, first_max)
    top = target_len - train_len
    skip = int(rng.integers(0, top + 1)) if skip is None else check_int("skip", skip, 0, top)
    ids = np.arange(train_len)
    ids[split:] += skip
    return ids


def distances_seen(rows, max_distance: int) -> np.ndarray:
    """How often each distance m − n = 0 … ``max_distance`` occurs between a query at id m and an
    earlier-or-same key at id n ≤ m within the same row, over all ``rows`` (each row a training
    window's position ids, increasing). A distance with count 0 never appeared in training.
    """
    max_distance = check_int("max_distance", max_distance, 0, 10**7)
    counts = np.zeros(max_distance + 1, dtype=np.int64)
    for row in rows:
        ids = np.asarray(row, dtype=np.int64)
        if ids.ndim != 1 or np.any(np.diff(ids) <= 0):
            raise ValueError(bilingual("each row must be increasing position ids", "每一行必须是递增的位置编号"))
        gaps = (ids[:, None] - ids[None, :])[np.tril_indices(len(ids))]
        counts += np.bincount(gaps[gaps <= max_distance], minlength=max_distance + 1)
    return counts
