"""Position ids built for length generalization on algorithmic tasks: randomized positions
(Ruoss et al. 2023) and Abacus ids (McLeish et al. 2024).

Randomized positions follow google-deepmind/randomized_positional_encodings
``models/positional_encodings.py`` (``noisy_fixed_positional_encodings``): a training sequence of
length n takes n distinct positions drawn from ``[0, max_len)``, sorted, so positions up to the
longest test length appear in training. Abacus ids follow mcleish7/arithmetic ``abacus.py``: each
digit gets its place inside its own number (1, 2, …; numbers are written least significant digit
first), every other token 0, and during training all digit ids are shifted by one random k.
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
