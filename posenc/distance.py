"""Relative position and distance in numpy: least-squares fits, attention scores by offset
(with and without projections), the similarity of position rows, and the add-vs-concatenate
probe.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .encoding import encode_positions, sinusoidal_encoding
from .validate import (
    bilingual,
    check_array,
    check_d_model,
    check_int,
    check_projections,
    check_real,
    check_table_size,
)


@dataclass
class LinearFit:
    """Result of :func:`linear_fit`: ``targets ~ features @ coef + intercept``.

    ``r2`` is the coefficient of determination ``1 - SS_res / SS_tot``, pooled over the
    target columns (1 = perfect, 0 = no better than each column's mean).
    """

    coef: np.ndarray
    intercept: np.ndarray | float
    r2: float
    max_residual: float

    def predict(self, features) -> np.ndarray:
        """The fitted map applied to new ``features`` (same column layout as the fit)."""
        x = check_array("features", features)
        x = x[:, None] if x.ndim == 1 else x
        return x @ self.coef + self.intercept


def linear_fit(features, targets, intercept: bool = True, ridge: float = 0.0) -> LinearFit:
    """Least-squares fit of ``targets`` (n, m) or (n,) on ``features`` (n, p) or (n,).

    With ``intercept`` a constant term is fitted (and never penalised); ``ridge`` > 0
    adds ``ridge * |coef|^2`` to the squared error (numpy only, no sklearn).
    """
    x = check_array("features", features)
    y = check_array("targets", targets)
    x = x[:, None] if x.ndim == 1 else x
    if x.ndim != 2 or y.ndim not in (1, 2) or len(x) != len(y) or len(x) < 1:
        raise ValueError(bilingual(
            f"features must be (n, p) and targets (n,) or (n, m) with the same n, got "
            f"{np.shape(features)} and {np.shape(targets)}",
            "features 与 targets 的行数必须相同"
        ))
    ridge = check_real("ridge", ridge)
    if ridge < 0:
        raise ValueError(bilingual(f"ridge must be >= 0, got {ridge:g}", "ridge 不能为负"))
    y2 = y[:, None] if y.ndim == 1 else y
    x_mean = x.mean(axis=0) if intercept else np.zeros(x.shape[1])
    y_mean = y2.mean(axis=0) if intercept else np.zeros(y2.shape[1])
    xc, yc = x - x_mean, y2 - y_mean
    if ridge > 0:
        coef = np.linalg.solve(xc.T @ xc + ridge * np.eye(x.shape[1]), xc.T @ yc)
    else:
        coef = np.linalg.lstsq(xc, yc, rcond=None)[0]
    b = y_mean - x_mean @ coef
    resid = y2 - (x @ coef + b)
    ss_res = float((resid ** 2).sum())
    ss_tot = float(((y2 - y2.mean(axis=0)) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res < 1e-24 else 0.0)
    if y.ndim == 1:
        coef, b = coef[:, 0], float(b[0])
    return LinearFit(coef, b, r2, float(np.abs(resid).max()))


def small_matmul(a, b) -> np.ndarray:
    """``a @ b`` through einsum's own loop, not BLAS.

    The slider callbacks multiply small matrices; OpenBLAS would wake its worker threads for
    each product, which costs tens of milliseconds on a busy 2-core machine.
    """
    return np.einsum("ij,jk->ik", a, b)


def by_offset(g, k_max: int) -> np.ndarray:
    """Scores by query position and offset from scores by query and key position.

    ``g[r, c]`` is the score of query row r against the key at column c, where column c sits
    at offset ``c - r - k_max`` from row r (the keys run from ``k_max`` before the first query
    to ``k_max`` after the last). Returns ``out[r, k_max + k] = g[r, r + k_max + k]`` for
    k = -k_max .. k_max.
    """
    idx = np.arange(g.shape[0])[:, None] + np.arange(2 * k_max + 1)[None, :]
    return np.take_along_axis(g, idx, axis=1)


def score_matrix(seq_len: int, d_model: int, base: float = 10000.0, w_q=None, w_k=None) -> np.ndarray:
    """``S[m, n] = (W_q PE(m)) . (W_k PE(n))`` for query positions m and key positions n in
    0 .. seq_len-1.

    Without ``w_q`` / ``w_k`` this is the plain ``PE @ PE.T`` (symmetric, constant along
    each diagonal). ``w_q``, ``w_k`` are ``(d_model, d_k)`` arrays (code multiplies rows:
    ``pe @ w_q`` is ``W_q PE`` with ``w_q = W_qᵀ``).
    """
    pe = sinusoidal_encoding(seq_len, d_model, base)
    w_q, w_k = check_projections(d_model, w_q, w_k)
    if w_q is None:
        return small_matmul(pe, pe.T)
    return small_matmul(small_matmul(pe, w_q), small_matmul(pe, w_k).T)


def offset_scores(d_model: int, base: float = 10000.0, seq_len: int = 64, k_max: int = 64,
                  w_q=None, w_k=None) -> np.ndarray:
    """Scores by query position and offset: ``out[m, k_max + k] = (W_q PE(m)) . (W_k PE(m + k))``.

    Rows m = 0 .. seq_len-1, columns k = -k_max .. k_max (key positions m + k may be
    negative: the formula is defined for any position). Without ``w_q`` / ``w_k`` every row
    equals :func:`pe_dot_by_offset`.
    """
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    k_max = check_int("k_max", k_max, 0, 4096)
    d_model = check_d_model(d_model)
    w_q, w_k = check_projections(d_model, w_q, w_k)
    q = encode_positions(np.arange(seq_len, dtype=float), d_model, base)
    keys = encode_positions(np.arange(-k_max, seq_len + k_max, dtype=float), d_model, base)
    if w_q is not None:
        # (PE W_q)·(PE' W_k) = PE (W_q W_k^T) PE'^T: one d x d product instead of projecting every key
        q = small_matmul(q, small_matmul(w_q, w_k.T))
    return by_offset(small_matmul(q, keys.T), k_max)  # key column c is position c - k_max


def offset_structure(scores) -> dict:
    """How much a ``(positions, 2*k_max + 1)`` table from :func:`offset_scores` departs from
    "depends on k only, the same for +k and -k".

    Returns ``position_dependence`` (the largest spread, over the query positions m, of the
    scores at one offset k: 0 when the score depends on k alone), ``asymmetry`` (largest
    ``|mean(k) - mean(-k)|``: 0 when +k and -k score the same), both divided by the table's
    largest ``|score|``, and ``peak_k`` (the offset where the mean over m is largest).
    """
    s = check_array("scores", scores, ndim=2)
    if s.shape[1] % 2 == 0:
        raise ValueError(bilingual("scores needs an odd number of columns (k = -k_max .. k_max)",
                                   "scores 的列数必须是奇数（k 从 -k_max 到 k_max）"))
    scale = max(float(np.abs(s).max()), 1e-300)
    profile = s.mean(axis=0)
    k_max = s.shape[1] // 2
    return {
        "position_dependence": float((s.max(axis=0) - s.min(axis=0)).max() / scale),
        "asymmetry": float(np.abs(profile - profile[::-1]).max() / scale),
        "peak_k": int(np.argmax(profile)) - k_max,
    }


def random_word_vectors(n_words: int, d_model: int, seed: int = 0) -> np.ndarray:
    """``n_words`` random word vectors with entries N(0, 1/2), shape ``(n_words, d_model)``.

    Variance 1/2 gives them the same expected length as a PE row, sqrt(d_model / 2).
    """
    n_words = check_int("n_words", n_words, 1, 100000)
    d_model = check_int("d_model", d_model, 1)
    check_table_size(n_words, d_model)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    return rng.normal(0.0, math.sqrt(0.5), (n_words, d_model))


def word_pe_cosines(d_model: int, n_words: int = 200, seq_len: int = 200, base: float = 10000.0,
                    seed: int = 0) -> np.ndarray:
    """Cosine similarity of every random word vector with every PE row, shape (n_words, seq_len).
    """
    words = random_word_vectors(n_words, d_model, seed)
    pe = sinusoidal_encoding(seq_len, d_model, base)
    words = words / np.linalg.norm(words, axis=1, keepdims=True)
    return words @ (pe / np.linalg.norm(pe, axis=1, keepdims=True)).T


def word_position_probe(d_model: int, n_words: int = 64, seq_len: int = 64, base: float = 10000.0,
                        seed: int = 0, train_frac: float = 0.75, ridge: float = 1e-3) -> dict:
    """Add word vectors and PE, then read both back out of the sum with linear probes.

    Every (word, pos) pair gives one input ``x = word_vector + PE(pos)`` (word vectors from
    :func:`random_word_vectors`). Two least-squares probes map x to a one-hot word and to a
    one-hot position; the prediction is the argmax. They are fitted on a random
    ``train_frac`` of the pairs and scored on the others. Returns the accuracies ``word``,
    ``position``, ``position_within_1`` (off by at most one) and the chance levels.
    """
    seq_len = check_int("seq_len", seq_len, 2, 4096)
    train_frac = check_real("train_frac", train_frac)
    if not 0.0 < train_frac < 1.0:
        raise ValueError(bilingual(f"train_frac must be in (0, 1), got {train_frac:g}", "train_frac 必须在 0 与 1 之间"))
    words = random_word_vectors(n_words, d_model, seed)
    pe = sinusoidal_encoding(seq_len, d_model, base)
    w_id, p_id = np.divmod(np.arange(n_words * seq_len), seq_len)
    x = words[w_id] + pe[p_id]
    order = np.random.default_rng(seed + 1).permutation(len(x))
    n_train = max(1, min(len(x) - 1, int(round(train_frac * len(x)))))
    train, test = order[:n_train], order[n_train:]
    out = {}
    for name, ids, n in (("word", w_id, n_words), ("position", p_id, seq_len)):
        fit = linear_fit(x[train], np.eye(n)[ids[train]], ridge=ridge)
        pred = np.argmax(fit.predict(x[test]), axis=1)
        out[name] = float(np.mean(pred == ids[test]))
        if name == "position":
            out["position_within_1"] = float(np.mean(np.abs(pred - ids[test]) <= 1))
    out["chance_word"], out["chance_position"] = 1.0 / n_words, 1.0 / seq_len
    return out


def position_similarity(table) -> np.ndarray:
    """Cosine similarity of every pair of rows: ``S[p, q] = cos(row p, row q)``.

    ``table`` is ``(positions, d_model)`` (a learned table, or a PE table). A row of zeros
    has similarity 0 with every row, itself included.
    """
    t = check_array("table", table, ndim=2)
    norms = np.linalg.norm(t, axis=1)
    unit = t / np.where(norms > 0, norms, 1.0)[:, None]
    return np.einsum("pd,qd->pq", unit, unit)


def similarity_by_offset(similarity) -> np.ndarray:
    """Mean of ``S[m, m + k]`` over m, for k = 0 .. n-1 (k = 1: neighbouring positions).
    """
    s = check_array("similarity", similarity, ndim=2)
    if s.shape[0] != s.shape[1] or s.shape[0] < 1:
        raise ValueError(bilingual(f"similarity must be a square matrix, got shape {s.shape}",
                                   "similarity 必须是方阵"))
    return np.array([np.diagonal(s, k).mean() for k in range(s.shape[0])])
