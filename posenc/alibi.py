"""ALiBi (attention with linear biases) in numpy: the head slopes by the authors' recipe, the
distance bias (symmetric and causal) and the attention the bias alone gives.
"""
from __future__ import annotations

import math

import numpy as np

from .attention import causal_mask, scaled_dot_product_attention
from .validate import bilingual, check_bool, check_int, check_real, check_table_size


def alibi_slope_exponents(num_heads: int) -> np.ndarray:
    """The exponents e_h with ``s_h = 2 ** -e_h``, h = 1 .. H, by the ALiBi authors' recipe.

    H a power of 2: ``e_h = 8h/H`` (8 heads: 1, 2, ..., 8). Otherwise, with P the largest
    power of 2 below H: the P slopes of P heads (``8h/P``), then every other slope of 2P heads
    (``8h'/(2P)`` for h' = 1, 3, 5, ...) until there are H. The authors' reference code
    (and BLOOM, 112 heads) does this so that every head count keeps the geometric sequence
    of a power of 2 and its in-between values.
    """
    num_heads = check_int("num_heads", num_heads, 1, 1024)
    p = 1 << (num_heads.bit_length() - 1)          # largest power of 2 <= H
    base = 8.0 * np.arange(1, p + 1) / p
    extra = 8.0 * np.arange(1, 2 * (num_heads - p), 2) / (2 * p)
    return np.concatenate([base, extra])


def alibi_slopes(num_heads: int) -> np.ndarray:
    """ALiBi head slopes s_h for h = 1 .. H (the ALiBi paper writes them m; here m is a
    position): ``2 ** -alibi_slope_exponents(H)``.

    For H a power of 2 this is the paper's ``s_h = 2 ** (-8h/H)`` (8 heads: 1/2 ... 1/256);
    for other H, the authors' recipe in :func:`alibi_slope_exponents` (12 heads: 1/2 ... 1/256,
    then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5).
    """
    return 2.0 ** -alibi_slope_exponents(num_heads)


def alibi_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi biases ``-s_h * |n - m|`` (query position m = row, key position n = column),
    shape ``(num_heads, seq_len, seq_len)``.

    Added to the attention scores before the softmax; no position vectors at all. The bias
    depends on the offset k = n - m only, through |k|: it cannot tell left from right.
    """
    seq_len = check_int("seq_len", seq_len, 1)
    slopes = alibi_slopes(num_heads)
    check_table_size(seq_len * seq_len, len(slopes))
    dist = np.abs(np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :])
    return -slopes[:, None, None] * dist[None, :, :]


def alibi_causal_bias(seq_len: int, num_heads: int) -> np.ndarray:
    """ALiBi as in the paper's decoder: ``-s_h (m - n)`` for keys n <= m, ``-inf`` for n > m.

    Shape ``(num_heads, seq_len, seq_len)``; the ``-inf`` entries are the causal mask
    (softmax gives them weight 0). On the allowed entries it equals :func:`alibi_bias`.
    """
    bias = alibi_bias(seq_len, num_heads)
    return np.where(causal_mask(seq_len)[None, :, :], bias, -np.inf)


def alibi_attention(seq_len: int, num_heads: int, query: int | None = None,
                    causal: bool = False) -> np.ndarray:
    """Attention weights of one query row from the ALiBi bias alone (all q.k = 0).

    Returns ``(num_heads, seq_len)``: ``softmax_n(-s_h |n - query|)`` (with ``causal``, only
    keys n <= query). ``query`` defaults to the middle, ``seq_len // 2``. The weights fall
    off geometrically, by the factor ``exp(-s_h)`` per step: a discrete Laplace
    (two-sided geometric) shape.
    """
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    query = seq_len // 2 if query is None else check_int("query", query, 0, seq_len - 1)
    causal = check_bool("causal", causal)
    bias = alibi_causal_bias(seq_len, num_heads) if causal else alibi_bias(seq_len, num_heads)
    return _weights_of_bias_alone(bias[:, query, :])


def _weights_of_bias_alone(bias) -> np.ndarray:
    """The attention weights of one query per head when every q·κ is 0, so that the bias
    ``(num_heads, n_keys)`` alone decides them."""
    heads, n_keys = bias.shape
    zero_q, zero_keys = np.zeros((heads, 1, 1)), np.zeros((heads, n_keys, 1))
    _, weights = scaled_dot_product_attention(zero_q, zero_keys, zero_keys, bias=bias[:, None, :])
    return weights[:, 0, :]


def alibi_reach(seq_len: int, num_heads: int, train_len: int, causal: bool = True,
                query: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """How far each head looks from the bias alone (all q.k = 0), on an input of ``seq_len``.

    For one query row (default: the last position, ``seq_len - 1``; ``causal`` keeps only keys
    n <= query, as in the paper's decoder) returns two arrays of shape ``(num_heads,)``:

    - the mean attention distance ``sum_n |n - query| * weight_n``;
    - the share of the weight on keys at distance ``|n - query| >= train_len``: keys farther
      away than any key a query could see in a training sequence of ``train_len`` tokens.

    Works on one row (``O(num_heads * seq_len)``), so ``seq_len`` can be far beyond the sizes
    :func:`alibi_attention` builds whole.
    """
    seq_len = check_int("seq_len", seq_len, 1, 1 << 22)
    train_len = check_int("train_len", train_len, 1)
    causal = check_bool("causal", causal)
    query = seq_len - 1 if query is None else check_int("query", query, 0, seq_len - 1)
    slopes = alibi_slopes(num_heads)
    keys = np.arange(query + 1) if causal else np.arange(seq_len)
    distance = np.abs(keys - query)
    weights = _weights_of_bias_alone(-slopes[:, None] * distance[None, :])
    mean_distance = weights @ distance
    share_beyond = weights[:, distance >= train_len].sum(axis=1)
    return mean_distance, share_beyond


def _needle_inputs(seq_len, num_heads, distance):
    seq_len = check_int("seq_len", seq_len, 2, 1 << 22)
    distance = check_int("distance", distance, 1, seq_len - 1)
    return seq_len, alibi_slopes(num_heads), distance


def alibi_needle_weight(seq_len: int, num_heads: int, distance: int, margin: float) -> np.ndarray:
    """The weight each head gives a "needle": the key ``distance`` positions before the query
    whose content score q·κ/√d is ``margin`` logits above every other key's (all others equal).

    Causal, the query at the last of ``seq_len`` positions, so keys sit at distances 0 …
    seq_len − 1; the logit of a key at distance j is ``-s_h j``, plus ``margin`` for the needle.
    Returns ``(num_heads,)``. The rest of the weight goes to the haystack, most of it to the
    nearest ~1/s_h keys (:func:`alibi_reach`). With ``margin = 0`` it is the bias-alone weight.
    """
    seq_len, slopes, distance = _needle_inputs(seq_len, num_heads, distance)
    margin = check_real("margin", margin)
    dist = np.arange(seq_len)
    bias = -slopes[:, None] * dist[None, :] + np.where(dist == distance, margin, 0.0)[None, :]
    return _weights_of_bias_alone(bias)[:, distance]


def alibi_needle_margin(seq_len: int, num_heads: int, distance: int, share: float = 0.5) -> np.ndarray:
    """The content margin (logits) each head's needle ``distance`` positions back needs to get
    ``share`` of the weight (:func:`alibi_needle_weight` inverted), in closed form:

    ``margin_h = s_h·D + ln(share / (1 − share)) + ln(Z_h − e^{−s_h D})``,
    ``Z_h = Σ_{j=0}^{seq_len−1} e^{−s_h j}`` the bias-alone weights of all keys before the
    softmax. ``share = 1/2``: the needle must outweigh the whole haystack. The first term grows
    by s_h per token of distance, whatever the input length. Returns ``(num_heads,)``.
    """
    seq_len, slopes, distance = _needle_inputs(seq_len, num_heads, distance)
    share = check_real("share", share)
    if not 0.0 < share < 1.0:
        raise ValueError(bilingual(f"share must be between 0 and 1 (exclusive), got {share}",
                                   f"share 必须在 0 和 1 之间（不含两端），收到的是 {share}"))
    haystack = -np.expm1(-slopes * seq_len) / -np.expm1(-slopes) - np.exp(-slopes * distance)
    return slopes * distance + math.log(share / (1.0 - share)) + np.log(haystack)
