"""Where position goes: linear probes on every layer's residual stream of a trained 谁咬谁 model,
and the counting signal a causal mask gives a model without any position encoding (NoPE).

A probe is closed-form ridge regression (numpy): fitted on the streams of one set of sentences,
scored on the streams of held-out sentences. Two probes per layer:

* absolute position: the stream of each real token -> its position; score R² (1 = exact,
  0 = no better than predicting the mean position);
* relative order: the difference of two tokens' streams in one sentence, h_a − h_b -> +1 if
  a comes first, −1 if b does; score accuracy of the sign (chance 0.5).

torch is imported inside the functions that run a model (``import posenc_lib`` stays torch-free).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import causal_mask, scaled_dot_product_attention
from .distance import linear_fit
from .validate import bilingual, check_array, check_int, check_real

#: The methods of the layer-by-layer comparison: (label, pe, causal).
PROBE_METHODS = (
    ("正弦 (输入处相加)", "sinusoidal", False),
    ("可学习 (输入处相加)", "learned", False),
    ("RoPE (每层)", "rope", False),
    ("ALiBi (每层)", "alibi", False),
    ("NoPE 因果", "none", True),
    ("NoPE 双向", "none", False),
)
#: Ridge penalty of every probe (features are residual streams of d_model = 32 numbers).
PROBE_ALPHA = 1e-2
#: Token pairs per sentence for the order probe.
PAIRS_PER_SENTENCE = 4


def ridge_fit(features, targets, alpha: float = PROBE_ALPHA) -> np.ndarray:
    """Closed-form ridge regression with an intercept: weights ``w`` (last entry: the intercept)
    minimising ``|X w − y|² + alpha |w[:-1]|²`` for ``X = [features, 1]``.

    ``features`` [n, d], ``targets`` [n]. The fit is :func:`~posenc.distance.linear_fit`'s
    (centring leaves the intercept unpenalised), returned in this one-vector layout.
    """
    x = check_array("features", features, 2)
    y = check_array("targets", targets, 1)
    if len(y) != len(x):
        raise ValueError(bilingual(f"targets must have one value per row of features ({len(x)}), got {len(y)}",
                                   f"targets 的个数必须等于 features 的行数 {len(x)}"))
    alpha = check_real("alpha", alpha, minimum=0.0)
    fit = linear_fit(x, y, intercept=True, ridge=alpha)
    return np.append(fit.coef, fit.intercept)


def ridge_predict(weights, features) -> np.ndarray:
    """``[features, 1] @ weights``: what a probe from :func:`ridge_fit` predicts.
    """
    x = check_array("features", features, 2)
    w = check_array("weights", weights, 1)
    if len(w) != x.shape[1] + 1:
        raise ValueError(bilingual(f"weights must have features.shape[1] + 1 = {x.shape[1] + 1} entries, got {len(w)}",
                                   f"weights 的长度必须是特征数 + 1 = {x.shape[1] + 1}"))
    return x @ w[:-1] + w[-1]


def r_squared(predicted, targets) -> float:
    """1 − Σ(y − ŷ)² / Σ(y − ȳ)²: the share of the targets' variance a prediction explains
    (0: no better than the mean; negative: worse)."""
    p = check_array("predicted", predicted, 1)
    y = check_array("targets", targets, 1)
    if len(p) != len(y):
        raise ValueError(bilingual(f"predicted and targets must have the same length, got {len(p)} and {len(y)}",
                                   "predicted 和 targets 长度必须相同"))
    return float(1.0 - ((y - p) ** 2).sum() / ((y - y.mean()) ** 2).sum())


def _filler_mask(dataset) -> np.ndarray:
    """True on the filler tokens (嗯, 啊): their content says nothing about where they sit."""
    from .task.data import FILLERS, TOKEN_TO_ID

    tokens = dataset.tokens.numpy()
    return np.isin(tokens, [TOKEN_TO_ID[f] for f in FILLERS]) & dataset.mask.numpy()


def _streams(model, dataset):
    """Per layer, the filler tokens' streams [n_tokens, d]; their positions and sentence rows."""
    import torch

    model = getattr(model, "model", model)
    with torch.no_grad():
        streams = model.residual_streams(dataset.tokens, dataset.mask)
    keep = _filler_mask(dataset)
    pos = np.broadcast_to(np.arange(keep.shape[1]), keep.shape)[keep]
    rows = np.broadcast_to(np.arange(keep.shape[0])[:, None], keep.shape)[keep]
    return [s.numpy()[keep].astype(np.float64) for s in streams], pos.astype(np.float64), rows


def _order_pairs(rows, seed: int):
    """PAIRS_PER_SENTENCE pairs (a, b) of distinct filler tokens of one sentence (indices into
    the streams of :func:`_streams`; sentences with fewer than two fillers give none)."""
    rng = np.random.default_rng(seed)
    a_list, b_list = [], []
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    for lo, hi in zip(starts, ends):
        if hi - lo < 2:
            continue
        for _ in range(PAIRS_PER_SENTENCE):
            a, b = rng.choice(hi - lo, size=2, replace=False)
            a_list.append(lo + a)
            b_list.append(lo + b)
    return np.array(a_list), np.array(b_list)


@dataclass
class LayerProbes:
    """Probe scores of one trained model, one entry per residual stream (0 = the input to layer 1).

    ``position_r2``: held-out R² of the absolute-position probe; ``order_accuracy``: held-out
    accuracy of the relative-order probe; ``beyond_r2``: R² of the same position probe on tokens
    at positions the model never saw in training (longer sentences), or None.
    """

    position_r2: list
    order_accuracy: list
    beyond_r2: list | None = None


def layer_probes(model, fit_data, test_data, beyond_data=None, alpha: float = PROBE_ALPHA,
                 seed: int = 0) -> LayerProbes:
    """Fit both probes on every residual stream of ``model`` (an OrderModel or TrainResult) on
    ``fit_data`` and score them on ``test_data`` (BiteDatasets); with ``beyond_data``, score the
    position probe also on the tokens of ``beyond_data`` whose position is past every position
    of ``fit_data`` (the learned table cannot run there: use another model kind).
    """
    seed = check_int("seed", seed, 0)
    fit_streams, fit_pos, fit_rows = _streams(model, fit_data)
    test_streams, test_pos, test_rows = _streams(model, test_data)
    fa, fb = _order_pairs(fit_rows, seed)
    ta, tb = _order_pairs(test_rows, seed + 1)
    beyond = None
    if beyond_data is not None:
        beyond_streams, beyond_pos, _ = _streams(model, beyond_data)
        past = beyond_pos > fit_pos.max()
        beyond = []
    r2, acc = [], []
    for layer, (xf, xt) in enumerate(zip(fit_streams, test_streams)):
        w = ridge_fit(xf, fit_pos, alpha)
        r2.append(r_squared(ridge_predict(w, xt), test_pos))
        if beyond is not None:
            beyond.append(r_squared(ridge_predict(w, beyond_streams[layer][past]), beyond_pos[past]))
        wo = ridge_fit(xf[fa] - xf[fb], np.sign(fb - fa).astype(np.float64), alpha)
        guess = np.sign(ridge_predict(wo, xt[ta] - xt[tb]))
        acc.append(float(np.mean(guess == np.sign(tb - ta))))
    return LayerProbes(r2, acc, beyond)


def causal_uniform_weights(seq_len: int) -> np.ndarray:
    """The weight uniform attention under a causal mask gives the first token, at every query
    position n = 0 .. seq_len − 1: ``1 / (n + 1)`` (query n sees the n + 1 keys 0 .. n).

    Computed as a softmax of equal scores over each causal row (no formula typed in), so it is
    what a NoPE model with all scores equal actually produces.
    """
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    zeros = np.zeros((seq_len, 1))                                   # every q·κ = 0: equal scores
    _, weights = scaled_dot_product_attention(zeros, zeros, zeros, visible=causal_mask(seq_len))
    return weights[:, 0]


def position_readout(model, fit_data, test_data, layer: int, alpha: float = PROBE_ALPHA) -> np.ndarray:
    """Mean position the position probe of stream ``layer`` reads, for each true position
    0 .. width − 1 of ``test_data`` (NaN where no filler sits): a probe that reads position
    perfectly gives 0, 1, 2, ...; a flat stretch means the stream no longer tells those
    positions apart. Fitted on ``fit_data`` (use sentences longer than the training ones to
    ask whether the stream still separates positions the model never saw).
    """
    fit_streams, fit_pos, _ = _streams(model, fit_data)
    layer = check_int("layer", layer, 0, len(fit_streams) - 1)
    test_streams, test_pos, _ = _streams(model, test_data)
    guess = ridge_predict(ridge_fit(fit_streams[layer], fit_pos, alpha), test_streams[layer])
    width = int(test_data.tokens.shape[1])
    return np.array([guess[test_pos == p].mean() if np.any(test_pos == p) else np.nan for p in range(width)])


def readout_slope(readout, lo: int, hi: int) -> float:
    """Least-squares slope of a :func:`position_readout` over positions lo .. hi − 1 (1: the
    stream separates those positions as well as it can; 0: not at all).
   """
    r = np.asarray(readout, dtype=float)
    if r.ndim != 1:
        raise ValueError(bilingual(f"readout must be a 1-D array, got shape {r.shape}", "readout 必须是一维数组"))
    lo = check_int("lo", lo, 0, len(r) - 2)
    hi = check_int("hi", hi, lo + 2, len(r))
    part = check_array("readout[lo:hi]", r[lo:hi], 1)
    return float(np.polyfit(np.arange(lo, hi), part, 1)[0])
