"""Attention in numpy: the one softmax, the one scaled dot-product attention, the one causal
mask; self-attention and the 猫咬狗 permutation demo built on them.

Every attention in the package (RoPE's, ALiBi's, Shaw et al.'s, the KV-cache steps, grouped-query
attention, packed rows) calls :func:`scaled_dot_product_attention`; the torch models call its
torch twin ``torch_layers.scaled_dot_product_attention_torch``.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from .encoding import sinusoidal_encoding
from .validate import bilingual, check_array, check_bool, check_d_model, check_int, check_tokens


def softmax(scores, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    Entries of ``-inf`` are a mask: they get weight exactly 0 (causal attention, padding).
    Every slice along ``axis`` needs at least one finite entry.
    """
    scores = check_array("scores", scores, masked=True)
    top = scores.max(axis=axis, keepdims=True)
    if not np.all(np.isfinite(top)):
        raise ValueError(bilingual("every row of scores needs a finite entry (a row of -inf has no softmax)",
                                   "scores 的每一行至少要有一个有限值"))
    e = np.exp(scores - top)
    return e / e.sum(axis=axis, keepdims=True)


def causal_mask(seq_len: int, key_len: int | None = None) -> np.ndarray:
    """Which keys each query may see under a causal mask (True = visible), shape
    ``(seq_len, key_len)``: query m sees key n when ``n <= m + key_len − seq_len``.

    With as many keys as queries (the default) that is n <= m, the lower triangle; with more
    keys the queries are the last ``seq_len`` positions (a decoding step over a cache), aligned
    to the bottom-right corner as flash-attn aligns them. The one causal mask: every causal
    attention, bias and count in the package starts from it.
    """
    seq_len = check_int("seq_len", seq_len, 0)
    key_len = seq_len if key_len is None else check_int("key_len", key_len, 0)
    return np.arange(key_len)[None, :] <= np.arange(seq_len)[:, None] + (key_len - seq_len)


def scaled_dot_product_attention(q, key, value, bias=None, visible=None) -> tuple[np.ndarray, np.ndarray]:
    """``softmax(q κᵀ / sqrt(d) + bias)`` over the keys ``visible`` allows, times the values:
    returns ``(outputs, weights)``.

    ``q`` is ``(..., query_len, d)``, ``key`` ``(..., key_len, d)``, ``value``
    ``(..., key_len, d_v)``; leading axes (heads) broadcast. ``bias`` (optional) is added to the
    scaled scores: ALiBi's distances, a relative term; ``-inf`` masks a key. ``visible``
    (optional booleans, e.g. :func:`causal_mask`) keeps a key where True and gives it weight 0
    where False. Both broadcast to ``(..., query_len, key_len)``; every query needs a key it
    may see. The one numpy attention: self-attention, RoPE's, ALiBi's, Shaw et al.'s, packed
    rows, the KV-cache steps and grouped-query attention all call it.
    """
    q, key, value = check_array("q", q), check_array("key", key), check_array("value", value)
    if min(q.ndim, key.ndim, value.ndim) < 2 or q.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ValueError(bilingual(
            f"q (..., query_len, d), key (..., key_len, d) and value (..., key_len, d_v) do not fit: "
            f"{q.shape}, {key.shape}, {value.shape}",
            f"q、key、value 的形状不匹配：{q.shape}、"
            f"{key.shape}、{value.shape}"
        ))
    scores = q @ np.swapaxes(key, -1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        scores = scores + check_array("bias", bias, masked=True)
    if visible is not None:
        visible = np.asarray(visible)
        if visible.dtype != bool:
            raise TypeError(bilingual(f"visible must be booleans (True = the key is visible), got {visible.dtype}",
                                      f"visible 必须是布尔数组（True 表示看得见），收到的是 {visible.dtype}"))
        scores = np.where(visible, scores, -np.inf)
    weights = softmax(scores)
    return weights @ value, weights


def self_attention(x, w_q, w_k, w_v):
    """Plain scaled dot-product self-attention, no mask.

    ``x`` is ``(seq_len, d_in)``; ``w_q``, ``w_k`` are ``(d_in, d_k)``, ``w_v`` is
    ``(d_in, d_v)``. Returns ``(outputs, weights)`` with
    ``weights = softmax(Q K^T / sqrt(d_k))`` of shape ``(seq_len, seq_len)`` and
    ``outputs = weights @ V`` of shape ``(seq_len, d_v)``.
    """
    x = check_array("x", x, ndim=2)
    if x.shape[0] < 1:
        raise ValueError(bilingual("x must hold at least one token (row)", "x 至少要有一个词（一行）"))
    mats = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        w = check_array(name, w, ndim=2)
        if w.shape[0] != x.shape[1]:
            raise ValueError(bilingual(
                f"{name} must have {x.shape[1]} rows to match x's width, got shape {w.shape}",
                f"{name} 的行数必须等于 x 的列数 {x.shape[1]}，收到的形状是 {w.shape}"
            ))
        mats[name] = w
    if mats["w_q"].shape[1] != mats["w_k"].shape[1]:
        raise ValueError(bilingual(
            "w_q and w_k must have the same number of columns (d_k)", "w_q 与 w_k 的列数 (d_k) 必须相同"
        ))
    return scaled_dot_product_attention(x @ mats["w_q"], x @ mats["w_k"], x @ mats["w_v"])


def token_vectors(tokens, d_model: int, seed: int = 0) -> np.ndarray:
    """A fixed pseudo-random word vector per token (same token -> same vector, any run).

    Each vector is drawn from N(0, 1/d_model) seeded by the token's text and ``seed``,
    so 猫 has the same vector in 猫咬狗 and in 狗咬猫. Shape ``(len(tokens), d_model)``.
    """
    tokens = check_tokens(tokens)
    d_model = check_int("d_model", d_model, 1)
    seed = check_int("seed", seed, 0)
    rows = []
    for t in tokens:
        rng = np.random.default_rng([zlib.crc32(t.encode("utf-8")), seed])
        rows.append(rng.normal(0.0, 1.0 / math.sqrt(d_model), d_model))
    return np.array(rows)


@dataclass
class AttentionDemo:
    """Result of :func:`attention_demo`: everything the permutation figures show.
    """

    tokens: tuple
    x: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray
    use_pe: bool

    @property
    def pooled(self) -> np.ndarray:
        """The sentence vector: the mean of the per-token outputs."""
        return self.outputs.mean(axis=0)

    def output_of(self, token: str) -> np.ndarray:
        """The output row of the first occurrence of ``token``."""
        return self.outputs[self.tokens.index(token)]


def attention_weights_for_demo(d_model: int, seed: int = 0):
    """The fixed random ``(w_q, w_k, w_v)`` used by :func:`attention_demo`.
    """
    d_model = check_d_model(d_model)
    rng = np.random.default_rng(check_int("seed", seed, 0) + 1000)
    return tuple(rng.normal(0.0, 1.0 / math.sqrt(d_model), (d_model, d_model)) for _ in range(3))


def attention_demo(tokens="猫咬狗", d_model: int = 4, use_pe: bool = False, seed: int = 0,
                   base: float = 10000.0) -> AttentionDemo:
    """Self-attention on a short sentence, with or without sinusoidal PE added.

    Word vectors come from :func:`token_vectors`, projections from
    :func:`attention_weights_for_demo`; with ``use_pe`` the PE of positions 0, 1, ...
    is added to the word vectors first.
    """
    tokens = check_tokens(tokens)
    d_model = check_d_model(d_model)
    use_pe = check_bool("use_pe", use_pe)
    x = token_vectors(tokens, d_model, seed)
    if use_pe:
        x = x + sinusoidal_encoding(len(tokens), d_model, base)
    outputs, weights = self_attention(x, *attention_weights_for_demo(d_model, seed))
    return AttentionDemo(tokens, x, weights, outputs, use_pe)
