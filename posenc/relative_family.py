"""The relative-position family in numpy: Shaw et al.'s learned relative vectors, the four-term
score of absolute PE and of Transformer-XL, and T5's bucketed scalar bias.

Symbols as in the whole course: m = query position, n = key position, k = n - m the offset;
κ (``key`` in code) is the key vector. Code stores vectors as rows: ``x @ w_q`` is the
formula's ``q = W_q x`` with ``w_q = W_qᵀ``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .attention import attention_weights_for_demo, scaled_dot_product_attention
from .encoding import encode_positions
from .rope import rope_score_by_offset
from .text import aligned_table
from .validate import (
    bilingual,
    check_array,
    check_base,
    check_bool,
    check_d_model,
    check_int,
    check_int_array,
    check_matrix,
    check_one_of,
    check_position_list,
    check_vector,
    is_int,
)


# ---------------------------------------------------------------------------
# T5: a learned scalar per bucket of offsets
# ---------------------------------------------------------------------------
def t5_sizes(bidirectional, num_buckets, max_distance) -> tuple[bool, int, int, int]:
    """Checked (bidirectional, buckets per direction, max_exact, max_distance)."""
    bidirectional = check_bool("bidirectional", bidirectional)
    num_buckets = check_int("num_buckets", num_buckets, 2, 100000)
    max_distance = check_int("max_distance", max_distance, 1, 10**9)
    half = num_buckets // 2 if bidirectional else num_buckets
    max_exact = half // 2
    if max_exact < 1:
        need = 4 if bidirectional else 2
        raise ValueError(bilingual(f"num_buckets must be >= {need} here (no exact bucket left), got {num_buckets}",
                                   f"num_buckets 至少要 {need}（否则连一个精确桶都没有），收到的是 {num_buckets}"))
    if max_distance <= max_exact:
        raise ValueError(bilingual(f"max_distance must be > max_exact = {max_exact} (the log-spaced buckets run from "
                                   f"max_exact to max_distance), got {max_distance}",
                                   "max_distance 必须大于精确桶的个数 "
                                   f"{max_exact}，收到的是 {max_distance}"))
    return bidirectional, half, max_exact, max_distance


def t5_relative_bucket(relative_position, bidirectional: bool = True, num_buckets: int = 32,
                       max_distance: int = 128):
    """T5's bucket for each relative position k = n - m (key position minus query position).

    The same buckets as the reference implementation (Mesh TensorFlow's
    ``_relative_position_bucket``, copied as ``T5Attention._relative_position_bucket`` in
    Hugging Face transformers), step by step:

    * ``bidirectional`` (T5's encoder): half the buckets per direction; a key after the query
      (k > 0) adds ``num_buckets // 2``; then n = |k|. Causal (the decoder): n = max(-k, 0),
      so every k >= 0 (the key itself and the masked future) lands in bucket 0.
    * With B buckets left for one direction, ``max_exact = B // 2``: offsets with
      n < max_exact get a bucket each (bucket n).
    * Further out, ``max_exact + int(log(n / max_exact) / log(max_distance / max_exact) *
      (B - max_exact))``, truncated toward zero, capped at B - 1: log-spaced buckets up to
      ``max_distance``; every n >= max_distance shares the last bucket (and so do some n below it).

    ``relative_position`` is an int or an integer array; the answer has the same shape (an int
    for an int). Computed in float64; the reference computes the logarithm in float32, and the
    two can differ by one bucket only where the real-valued expression above is exactly a whole
    number, which never happens for T5's 32 buckets and max_distance 128.
    """
    scalar = is_int(relative_position)
    rel = check_int_array("relative_position", relative_position)
    bidirectional, half, max_exact, max_distance = t5_sizes(bidirectional, num_buckets, max_distance)
    buckets = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        buckets += (rel > 0) * half
        n = np.abs(rel)
    else:
        n = -np.minimum(rel, 0)
    is_small = n < max_exact
    far = np.maximum(n, max_exact).astype(float)          # log is only read where n >= max_exact
    if_large = max_exact + (np.log(far / max_exact) / math.log(max_distance / max_exact)
                            * (half - max_exact)).astype(np.int64)
    buckets += np.where(is_small, n, np.minimum(if_large, half - 1))
    return int(buckets) if scalar else buckets


def t5_bucket_ranges(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> list:
    """Which offsets k share each bucket: a list of ``(bucket, lowest k, highest k)``.

    Sorted by bucket; ``-inf`` / ``inf`` mark the open ends (the last bucket of each direction
    takes every offset beyond). A bucket no offset reaches is left out: with
    ``bidirectional=True`` that is always bucket ``num_buckets // 2`` (it would need k > 0 with
    |k| = 0).
    """
    _, _, _, max_distance = t5_sizes(bidirectional, num_buckets, max_distance)
    reach = max_distance + 1                    # beyond this the buckets no longer change
    ks = np.arange(-reach, reach + 1)
    buckets = t5_relative_bucket(ks, bidirectional, num_buckets, max_distance)
    out = []
    for b in np.unique(buckets):
        hit = ks[buckets == b]
        lo = -math.inf if hit[0] == -reach else int(hit[0])
        hi = math.inf if hit[-1] == reach else int(hit[-1])
        out.append((int(b), lo, hi))
    return out


def offset_range_text(lo, hi) -> tuple[str, str]:
    """How the course prints the offsets one T5 bucket holds (a row of :func:`t5_bucket_ranges`):
    ``("k = -11 … -8", "4")``, ``("k = 3", "1")``; an open end reads ``("k ≤ -91", "∞")``.
    """
    if lo == -math.inf:
        return f"k ≤ {hi}", "∞"
    if hi == math.inf:
        return f"k ≥ {lo}", "∞"
    return (f"k = {lo}" if lo == hi else f"k = {lo} … {hi}"), str(int(hi) - int(lo) + 1)


def t5_bucket_table(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> str:
    """Which offsets each T5 bucket holds, as aligned text (columns aligned by display width, so
    the Chinese headers sit over their columns).

    Bidirectional: the k ≤ 0 half on the left, the k > 0 half (bucket + num_buckets/2) on the
    right, one line per bucket pair; a bucket no offset reaches shows ``-`` and ``0``.
    Causal: one bucket per line. Rows come from :func:`t5_bucket_ranges`.
    """
    bidirectional, half, _, max_distance = t5_sizes(bidirectional, num_buckets, max_distance)
    ranges = {b: (lo, hi) for b, lo, hi in t5_bucket_ranges(bidirectional, num_buckets, max_distance)}

    def cells(b):
        return (str(b), *offset_range_text(*ranges[b])) if b in ranges else (str(b), "-", "0")

    if bidirectional:
        head = ("桶", "k ≤ 0 一侧的偏移", "个数", "|", "桶", "k > 0 一侧的偏移", "个数")
        rows = [(*cells(b), "|", *cells(b + half)) for b in range(half)]
        right = (0, 2, 4, 6)
    else:
        head, rows, right = ("桶", "偏移", "个数"), [cells(b) for b in range(half)], (0, 2)
    return "\n".join(aligned_table(head, rows, right=right))


def t5_position_bias(bias_table, query_len: int, key_len: int | None = None, bidirectional: bool = True,
                     max_distance: int = 128) -> np.ndarray:
    """The bias T5 adds to the attention logits: ``out[h, m, n] = bias_table[bucket(n - m), h]``.

    ``bias_table`` has shape ``(num_buckets, num_heads)`` (like T5's ``relative_attention_bias``
    embedding): one learned scalar per bucket per head, the same table for every layer.
    Query positions are 0 .. query_len-1, key positions 0 .. key_len-1 (default: query_len).
    Returns ``(num_heads, query_len, key_len)``.
    """
    table = check_array("bias_table", bias_table)
    if table.ndim == 1:
        table = table[:, None]
    if table.ndim != 2 or table.shape[0] < 2:
        raise ValueError(bilingual(f"bias_table must have shape (num_buckets, num_heads), got {np.shape(bias_table)}",
                                   "bias_table 的形状必须是 (num_buckets, num_heads)"))
    query_len = check_int("query_len", query_len, 1, 100000)
    key_len = query_len if key_len is None else check_int("key_len", key_len, 1, 100000)
    rel = np.arange(key_len)[None, :] - np.arange(query_len)[:, None]
    buckets = t5_relative_bucket(rel, bidirectional, table.shape[0], max_distance)
    return np.moveaxis(table[buckets], -1, 0)


def t5_demo_bias_table(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    """An illustrative (NOT learned) bias table for one head, shape ``(num_buckets,)``.

    Each bucket gets ``-0.8 * log2(1 + d)``, d = the smallest |k| in the bucket, plus 0.6 for
    buckets of earlier keys (k < 0): a head that prefers near keys, a little more the earlier
    ones. Buckets no offset reaches get 0. For pictures only: a trained T5 learns its tables.
    """
    table = np.zeros(check_int("num_buckets", num_buckets, 2, 100000))
    for b, lo, hi in t5_bucket_ranges(bidirectional, num_buckets, max_distance):
        d = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        table[b] = -0.8 * math.log2(1.0 + d) + (0.6 if hi < 0 else 0.0)
    return table


# ---------------------------------------------------------------------------
# Shaw et al. 2018: learned vectors a^K, a^V per clipped offset
# ---------------------------------------------------------------------------
def shaw_relative_index(query_len: int, key_len: int, max_relative: int) -> np.ndarray:
    """Row of the relative table each (query m, key n) uses: ``clip(n - m, ±max_relative) + max_relative``.

    Shape ``(query_len, key_len)``, values 0 .. 2*max_relative: row ``max_relative`` is k = 0,
    row 0 is every k <= -max_relative, the last row every k >= max_relative.
    """
    query_len = check_int("query_len", query_len, 1, 100000)
    key_len = check_int("key_len", key_len, 1, 100000)
    max_relative = check_int("max_relative", max_relative, 0, 100000)
    k = np.arange(key_len)[None, :] - np.arange(query_len)[:, None]
    return np.clip(k, -max_relative, max_relative) + max_relative


def _shaw_inputs(q, key, rel_embeddings, max_relative):
    q = check_matrix("q", q)
    key = check_matrix("key", key, cols=q.shape[1])
    max_relative = check_int("max_relative", max_relative, 0, 100000)
    rel = check_matrix("rel_embeddings", rel_embeddings, 2 * max_relative + 1, q.shape[1])
    return q, key, rel, max_relative


def shaw_relative_logits(q, key, rel_embeddings, max_relative: int) -> np.ndarray:
    """Shaw et al. (2018) attention logits ``e[m, n] = q_m · (κ_n + a^K_{clip(n - m)}) / sqrt(d)``.

    ``q`` is ``(query_len, d)`` (query m at position m), ``key`` is ``(key_len, d)`` (κ_n at
    position n), ``rel_embeddings`` is ``(2*max_relative + 1, d)``: row ``max_relative + k``
    is a^K for the offset k, clipped to ±max_relative (:func:`shaw_relative_index`). So
    2*max_relative + 1 learned vectors serve any length. The relative part is computed as
    ``q @ rel_embeddings.T`` and then gathered, never as a (query_len, key_len, d) tensor.
    """
    q, key, rel, max_relative = _shaw_inputs(q, key, rel_embeddings, max_relative)
    return q @ key.T / math.sqrt(q.shape[1]) + _shaw_key_bias(q, len(key), rel, max_relative)


def _shaw_key_bias(q, key_len, rel, max_relative):
    """The relative half of Shaw's logits, ``q_m · a^K_{clip(n - m)} / sqrt(d)``: what the
    attention adds to ``q · κ / sqrt(d)``."""
    idx = shaw_relative_index(len(q), key_len, max_relative)
    return np.take_along_axis(q @ rel.T, idx, axis=1) / math.sqrt(q.shape[1])


def shaw_relative_attention(q, key, value, rel_keys, rel_values, max_relative: int):
    """Shaw et al.'s whole attention: ``(outputs, weights)``.

    ``weights = softmax(shaw_relative_logits(q, key, rel_keys, max_relative))`` and
    ``outputs[m] = sum_n weights[m, n] (v_n + a^V_{clip(n - m)})``: the value side adds a
    learned vector per clipped offset too. ``value`` is ``(key_len, d_v)``, ``rel_values`` is
    ``(2*max_relative + 1, d_v)``.
    """
    q, key, rel_k, max_relative = _shaw_inputs(q, key, rel_keys, max_relative)
    value = check_matrix("value", value, len(key))
    rel_v = check_matrix("rel_values", rel_values, 2 * max_relative + 1, value.shape[1])
    out, weights = scaled_dot_product_attention(q, key, value, bias=_shaw_key_bias(q, len(key), rel_k, max_relative))
    idx = shaw_relative_index(len(q), len(key), max_relative)
    per_offset = np.zeros((len(q), len(rel_v)))       # weight each query puts on each clipped offset
    np.add.at(per_offset, (np.arange(len(q))[:, None], idx), weights)
    return out + per_offset @ rel_v, weights


# ---------------------------------------------------------------------------
# Where position enters: one logit per scheme, on one scale
# ---------------------------------------------------------------------------
#: The schemes :func:`offset_logits` compares: T5's scalar bias, Shaw et al.'s a^K, RoPE.
OFFSET_LOGIT_SCHEMES = ("t5", "shaw", "rope")


def offset_logits(scheme: str, q, key, offsets, *, t5_table=None, shaw_table=None,
                  max_relative: int | None = None, base: float = 10000.0) -> np.ndarray:
    """The attention logit of the query vector q at m = 0 against the key vector κ (``key``) at
    n = k, for each offset k in ``offsets``, in one relative scheme; every scheme on the scale of
    scaled dot-product attention, whose content logit is ``q·κ / sqrt(d)``:

    - ``"t5"``: ``q·κ / sqrt(d) + t5_table[bucket(k)]`` (T5's bidirectional buckets, as many as
      the table has rows, max_distance 128). T5 itself leaves out the 1/sqrt(d) (its W_q
      initialisation absorbs it); the bias is the same either way.
    - ``"shaw"``: ``q·(κ + a^K_clip(k)) / sqrt(d)``, a^K_k in row ``max_relative + clip(k)`` of
      ``shaw_table`` (as in :func:`shaw_relative_logits`).
    - ``"rope"``: ``(𝓡_0 q)·(𝓡_k κ) / sqrt(d)`` (as :func:`~posenc.rope.rope_score_by_offset`,
      divided by sqrt(d)).

    ``q`` and ``key`` are one vector each ``(d,)`` or one pair per row ``(pairs, d)``; returns
    ``(len(offsets),)`` or ``(pairs, len(offsets))``. Each scheme reads only its own table, so one
    call signature serves all three. With one scale for all, the spread of ``logit(k) - logit(-k)``
    over word pairs can be compared between schemes.
    """
    scheme = check_one_of("scheme", scheme, OFFSET_LOGIT_SCHEMES)
    single = np.ndim(q) == 1
    q = check_matrix("q", np.atleast_2d(check_array("q", q)))
    key = check_matrix("key", np.atleast_2d(check_array("key", key)), rows=len(q), cols=q.shape[1])
    ks = check_int_array("offsets", offsets).ravel()
    scale = math.sqrt(q.shape[1])
    content = np.einsum("pd,pd->p", q, key)[:, None] / scale
    if scheme == "t5":
        table = check_array("t5_table", t5_table, ndim=1)
        out = content + table[t5_relative_bucket(ks, True, len(table))][None, :]
    elif scheme == "shaw":
        max_relative = check_int("max_relative", max_relative, 0, 100000)
        rel = check_matrix("shaw_table", shaw_table, 2 * max_relative + 1, q.shape[1])
        rows = np.clip(ks, -max_relative, max_relative) + max_relative
        out = content + (q @ rel.T)[:, rows] / scale
    else:
        out = np.stack([rope_score_by_offset(a, b, ks, base) for a, b in zip(q, key)]) / scale
    return out[0] if single else out


# ---------------------------------------------------------------------------
# The four-term score: absolute PE, and Transformer-XL
# ---------------------------------------------------------------------------
#: The four terms' names in each scheme, by the letters (a)-(d) of the Transformer-XL paper.
TERM_LABELS = {
    "absolute": {"a": "内容–内容 x_m·x_n", "b": "内容–位置 x_m·PE(n)", "c": "位置–内容 PE(m)·x_n",
                 "d": "位置–位置 PE(m)·PE(n)"},
    "transformer_xl": {"a": "内容–内容 x_m·x_n", "b": "内容–位置 x_m·PE(m−n)", "c": "全局内容偏置 u·x_n",
                       "d": "全局位置偏置 v·PE(m−n)"},
}
TERM_LABELS_EN = {
    "absolute": {"a": "content-content x_m·x_n", "b": "content-position x_m·PE(n)",
                 "c": "position-content PE(m)·x_n", "d": "position-position PE(m)·PE(n)"},
    "transformer_xl": {"a": "content-content x_m·x_n", "b": "content-position x_m·PE(m−n)",
                       "c": "global content bias u·x_n", "d": "global position bias v·PE(m−n)"},
}


@dataclass
class ScoreTerms:
    """The four terms of an attention score, each ``(query_len, key_len)``; ``total`` is their sum.

    ``scheme`` is ``"absolute"`` or ``"transformer_xl"``; ``terms["a"]`` … ``terms["d"]``
    follow the letters of the Transformer-XL paper (:data:`TERM_LABELS`).
    """

    scheme: str
    terms: dict

    @property
    def total(self) -> np.ndarray:
        return self.terms["a"] + self.terms["b"] + self.terms["c"] + self.terms["d"]

    def __getitem__(self, letter: str) -> np.ndarray:
        return self.terms[letter]

    @property
    def labels(self) -> dict:
        return TERM_LABELS[self.scheme]


def _content_inputs(x_q, x_key, w_q, w_k):
    x_q = check_matrix("x_q", x_q)
    d_model = x_q.shape[1]
    x_key = check_matrix("x_key", x_key, cols=d_model)
    w_q = check_matrix("w_q", w_q, rows=d_model)
    w_k = check_matrix("w_k", w_k, rows=d_model, cols=w_q.shape[1])
    return x_q, x_key, w_q, w_k


def absolute_score_terms(x_q, x_key, w_q, w_k, query_positions=None, key_positions=None,
                         base: float = 10000.0) -> ScoreTerms:
    """The four terms of ``(W_q (x_m + PE(m))) · (W_k (x_n + PE(n)))`` (sinusoidal PE added to the input).

    (a) ``x_mᵀ A x_n``, (b) ``x_mᵀ A PE(n)``, (c) ``PE(m)ᵀ A x_n``, (d) ``PE(m)ᵀ A PE(n)`` with
    ``A = W_qᵀ W_k``. ``x_q`` is ``(query_len, d_model)`` (content only, no PE), ``x_key`` is
    ``(key_len, d_model)``; ``w_q``, ``w_k`` are ``(d_model, d_head)``; positions default to
    0, 1, ... Their sum is the plain score of notebook 04 (no 1/sqrt(d) scaling).
    """
    x_q, x_key, w_q, w_k = _content_inputs(x_q, x_key, w_q, w_k)
    d_model = check_d_model(x_q.shape[1])
    m = check_position_list("query_positions", query_positions, len(x_q))
    n = check_position_list("key_positions", key_positions, len(x_key))
    q_x, q_p = x_q @ w_q, encode_positions(m, d_model, base) @ w_q
    k_x, k_p = x_key @ w_k, encode_positions(n, d_model, base) @ w_k
    return ScoreTerms("absolute", {"a": q_x @ k_x.T, "b": q_x @ k_p.T, "c": q_p @ k_x.T, "d": q_p @ k_p.T})


def transformer_xl_score_terms(x_q, x_key, w_q, w_k_content, w_k_position, u, v, query_positions=None,
                               key_positions=None, base: float = 10000.0) -> ScoreTerms:
    """Transformer-XL's relative score (Dai et al. 2019), term by term.

    (a) ``x_mᵀ W_qᵀ W_{k,E} x_n`` content–content, (b) ``x_mᵀ W_qᵀ W_{k,R} PE(m - n)``
    content–position, (c) ``uᵀ W_{k,E} x_n`` global content bias, (d) ``vᵀ W_{k,R} PE(m - n)``
    global position bias. The paper writes the sinusoid of the distance as R_{i-j}; here it is
    ``PE(m - n)`` (this course's R_k is notebook 04's rotation). ``w_q``, ``w_k_content`` are
    ``(d_model, d_head)``, ``w_k_position`` is ``(d_r, d_head)`` with d_r even (the width of
    PE(m - n)), ``u``, ``v`` are ``(d_head,)``. No absolute position appears: every term
    depends on positions only through m - n = -k. No 1/sqrt(d) scaling.
    """
    x_q, x_key, w_q, w_k_content = _content_inputs(x_q, x_key, w_q, w_k_content)
    d_head = w_q.shape[1]
    w_k_position = check_matrix("w_k_position", w_k_position, cols=d_head)
    d_r = check_d_model(w_k_position.shape[0])
    u, v = check_vector("u", u, d_head), check_vector("v", v, d_head)
    base = check_base(base)
    m = check_position_list("query_positions", query_positions, len(x_q))
    n = check_position_list("key_positions", key_positions, len(x_key))
    gap = m[:, None] - n[None, :]                                     # m - n = -k
    offsets, where = np.unique(gap, return_inverse=True)
    r = encode_positions(offsets, d_r, base) @ w_k_position          # W_{k,R} PE(m - n), one row per distinct gap
    q, kappa = x_q @ w_q, x_key @ w_k_content
    b = np.take_along_axis(q @ r.T, where.reshape(gap.shape), axis=1)
    d = (r @ v)[where.reshape(gap.shape)]
    c = np.broadcast_to(kappa @ u, gap.shape).copy()
    return ScoreTerms("transformer_xl", {"a": q @ kappa.T, "b": b, "c": c, "d": d})


def transformer_xl_demo_parameters(d_model: int = 64, seed: int = 0) -> dict:
    """Fixed random parameters for the Transformer-XL demos: ``w_q``, ``w_k_content``,
    ``w_k_position`` (all ``(d_model, d_model)``), ``u`` and ``v``.

    ``w_q`` and ``w_k_content`` are notebook 04's W_q, W_k (:func:`attention_weights_for_demo`),
    so term (a) equals term (a) of :func:`absolute_score_terms` with them. Entries N(0, 1/d_model);
    u, v have length about 1. Untrained: they show what each term depends on, not what a
    trained model learns.
    """
    d_model = check_d_model(d_model)
    w_q, w_k, _ = attention_weights_for_demo(d_model, seed)
    rng = np.random.default_rng(check_int("seed", seed, 0) + 2019)
    scale = 1.0 / math.sqrt(d_model)
    return {"w_q": w_q, "w_k_content": w_k, "w_k_position": rng.normal(0.0, scale, (d_model, d_model)),
            "u": rng.normal(0.0, scale, d_model), "v": rng.normal(0.0, scale, d_model)}
