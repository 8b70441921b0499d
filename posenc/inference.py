"""RoPE at inference: decoding one token at a time with a KV cache whose keys are stored
already rotated, the same step recomputed from scratch, and what a length-dependent scaling
(dynamic NTK) does to the cache. ALiBi's and T5's biases, computed per step instead (nothing
position-dependent is cached).

Vectors are rows (``x @ w_q``), as in :mod:`posenc.rope`; pair i = columns (2i, 2i+1), turned
by ``pos · inv_freq[i]``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .alibi import alibi_slopes
from .attention import causal_mask, scaled_dot_product_attention
from .context import ROPE_SCALING
from .real_models import rope_type
from .relative_family import t5_relative_bucket
from .rope import rope
from .validate import bilingual, check_array, check_int, check_matrix, check_one_of, check_real


def _frequencies(d: int, base: float, rope_scaling: dict | None, seq_len: int | None = None):
    """The frequencies and attention factor a ``rope_scaling`` entry gives ``d`` dims at length
    ``seq_len``: the :data:`~posenc.context.ROPE_SCALING` function of its ``rope_type``."""
    kind = check_one_of("rope_scaling['rope_type']", rope_type({"rope_scaling": rope_scaling}), tuple(ROPE_SCALING))
    return ROPE_SCALING[kind](d, base, rope_scaling or {}, seq_len)


@dataclass
class DecodeResult:
    """What a decoding loop produced: ``outputs`` (one row per step, the attention output of the
    newest token), ``keys`` (the rotated keys the last step attended to, one row per position)
    and ``inv_freq`` (the frequencies of each step, one row per step).
    Returned by :func:`kv_cache_decode` and :func:`recompute_decode`.
    """

    outputs: np.ndarray
    keys: np.ndarray
    inv_freq: np.ndarray


def _check_inputs(x, w_q, w_k, w_v):
    x = check_matrix("x", x)
    d_model = x.shape[1]
    w_q = check_matrix("w_q", w_q, rows=d_model)
    w_k = check_matrix("w_k", w_k, rows=d_model, cols=w_q.shape[1])
    w_v = check_matrix("w_v", w_v, rows=d_model)
    if w_q.shape[1] % 2:
        raise ValueError(bilingual(f"w_q must have an even number of columns, got {w_q.shape[1]}", "w_q 的列数必须是偶数"))
    return x, w_q, w_k, w_v


def kv_cache_decode(x, w_q, w_k, w_v, base: float = 10000.0, rope_scaling: dict | None = None) -> DecodeResult:
    """Decode ``x`` (shape ``(seq_len, d_model)``) one token at a time with a KV cache.

    At step t (position t, the sequence now t + 1 long) the frequencies are those of
    its ``rope_scaling`` (a :data:`~posenc.context.ROPE_SCALING` type) at length t + 1; the new key
    ``k_t = x_t W_k`` is rotated by position t **once** and appended to the cache, the value
    appended as it is; the query, rotated by t, attends over the cache (scaled dot product,
    softmax). Keys already in the cache are never rotated again: with a fixed ``rope_scaling``
    (none, linear, yarn, llama3) this is exactly the full computation; with ``dynamic`` the
    frequencies change once the length passes the original context, and old keys keep the
    rotation they got with the old frequencies.
    """
    x, w_q, w_k, w_v = _check_inputs(x, w_q, w_k, w_v)
    d = w_q.shape[1]
    key_cache, value_cache = np.zeros((1, 0, d)), np.zeros((1, 0, w_v.shape[1]))
    outputs, freqs = [], []
    for t in range(x.shape[0]):
        inv_freq, factor = _frequencies(d, base, rope_scaling, seq_len=t + 1)
        # the attention factor multiplies cos and sin; the rotation is linear, so it may scale q, κ first
        out, key_cache, value_cache = decode_step(factor * (x[t] @ w_q)[None, :], factor * (x[t] @ w_k)[None, :],
                                                  (x[t] @ w_v)[None, :], t, key_cache, value_cache, inv_freq=inv_freq)
        outputs.append(out[0])
        freqs.append(inv_freq)
    return DecodeResult(np.array(outputs), key_cache[0], np.array(freqs))


def decode_step(q, key, value, pos: int, key_cache, value_cache, base: float = 10000.0, inv_freq=None):
    """One decoding step with a KV cache and grouped KV heads: returns ``(outputs, key_cache, value_cache)``.

    ``q``: the new token's queries, ``(num_heads, d)``; ``key``, ``value``: its keys and values,
    ``(num_kv_heads, d)`` and ``(num_kv_heads, d_v)``, none rotated yet; ``key_cache``, ``value_cache``:
    ``(num_kv_heads, T, ·)``, the keys already rotated at their own positions. The new key is
    rotated at ``pos`` once and appended, the value appended as it is, the cached keys are left
    as they are; each query, rotated at ``pos``, attends over the whole cache with KV head
    ``h // (num_heads // num_kv_heads)`` (:func:`repeat_kv`). ``outputs`` is ``(num_heads, d_v)``;
    the caches come back one row longer. ``inv_freq`` (optional): the frequencies to rotate
    with, else ``base``'s.
    """
    q, key, value = check_matrix("q", q), check_matrix("key", key), check_matrix("value", value)
    key_cache, value_cache = _check_heads("key_cache", key_cache), _check_heads("value_cache", value_cache)
    pos = check_int("pos", pos, 0)
    heads, d = q.shape
    kv_heads = key.shape[0]
    if key.shape[1] != d or value.shape[0] != kv_heads or key_cache.shape[::2] != (kv_heads, d) or \
            value_cache.shape[::2] != (kv_heads, value.shape[1]) or key_cache.shape[1] != value_cache.shape[1]:
        raise ValueError(bilingual(
            f"key (num_kv_heads, {d}), value (num_kv_heads, d_v), key_cache (num_kv_heads, T, {d}) and "
            f"value_cache (num_kv_heads, T, d_v) do not fit: {key.shape}, {value.shape}, {key_cache.shape}, {value_cache.shape}",
            "key、value、key_cache、value_cache 的形状不匹配"))
    if heads % kv_heads:
        raise ValueError(bilingual(f"num_heads = {heads} must be a multiple of num_kv_heads = {kv_heads}",
                                   f"查询头数 {heads} 必须是 KV 头数 {kv_heads} 的整数倍"))
    turn = lambda y: rope(y[:, None, :], [pos], base, inv_freq=inv_freq)[:, 0, :]
    key_cache = np.concatenate([key_cache, turn(key)[:, None, :]], axis=1)      # rotated once, at its own position
    value_cache = np.concatenate([value_cache, value[:, None, :]], axis=1)
    group = heads // kv_heads
    out, _ = scaled_dot_product_attention(turn(q)[:, None, :], repeat_kv(key_cache, group), repeat_kv(value_cache, group))
    return out[:, 0, :], key_cache, value_cache


def recompute_decode(x, w_q, w_k, w_v, base: float = 10000.0, rope_scaling: dict | None = None) -> DecodeResult:
    """The same steps as :func:`kv_cache_decode` without a cache: at step t every key 0 .. t is
    projected and rotated again with the frequencies for length t + 1 (what a forward pass over
    the first t + 1 tokens computes for its last token).
    """
    x, w_q, w_k, w_v = _check_inputs(x, w_q, w_k, w_v)
    d = w_q.shape[1]
    outputs, freqs, keys = [], [], None
    for t in range(x.shape[0]):
        inv_freq, factor = _frequencies(d, base, rope_scaling, seq_len=t + 1)
        pos = np.arange(t + 1, dtype=float)
        q = factor * rope((x[t] @ w_q)[None, :], [t], inv_freq=inv_freq)[0]
        keys = factor * rope(x[:t + 1] @ w_k, pos, inv_freq=inv_freq)
        outputs.append(scaled_dot_product_attention(q[None, :], keys, x[:t + 1] @ w_v)[0][0])
        freqs.append(inv_freq)
    return DecodeResult(np.array(outputs), keys, np.array(freqs))


def move_cached_keys(keys, delta: float, base: float = 10000.0, inv_freq=None) -> np.ndarray:
    """Cached keys, already rotated by their own positions (``𝓡_n κ_n``), moved ``delta``
    positions on: ``𝓡_Δ 𝓡_n κ_n = 𝓡_{n+Δ} κ_n`` (rotations of one plane add their angles), the
    keys a recompute at positions ``n + delta`` would have cached. ``keys``: ``(..., seq_len, d)``.

    The position part only: in a layer above the first, a key also depends on what its token
    attended to, which a block moved behind a different prefix would change. Prefix caching
    (vLLM's automatic prefix caching hashes each block with every token before it) reuses a
    block only where its prefix, and so its positions, are the same.
    """
    keys = check_array("keys", keys)
    if keys.ndim < 2:
        raise ValueError(bilingual("keys must be (..., seq_len, d)", "keys 的形状必须是 (..., seq_len, d)"))
    delta = check_real("delta", delta)
    return rope(keys, np.full(keys.shape[-2], delta), base, inv_freq=inv_freq)


def causal_rope_attention(x, w_q, w_k, w_v, base: float = 10000.0) -> np.ndarray:
    """One causal forward pass over the whole sequence (no cache, no scaling): row t is token t's
    attention output over keys 0 .. t. What :func:`kv_cache_decode` must reproduce.
    """
    x, w_q, w_k, w_v = _check_inputs(x, w_q, w_k, w_v)
    inv_freq, _ = _frequencies(w_q.shape[1], base, None)
    pos = np.arange(x.shape[0], dtype=float)
    q, k, v = rope(x @ w_q, pos, inv_freq=inv_freq), rope(x @ w_k, pos, inv_freq=inv_freq), x @ w_v
    return scaled_dot_product_attention(q, k, v, visible=causal_mask(x.shape[0]))[0]


def alibi_step_bias(pos: int, num_heads: int) -> np.ndarray:
    """ALiBi's bias for the query at position ``pos`` over keys 0 .. pos: ``-s_h · (pos − n)``,
    shape ``(num_heads, pos + 1)``. Computed from the two positions at each step: the cache
    holds plain keys and values, nothing about position.
    """
    pos = check_int("pos", pos, 0)
    slopes = alibi_slopes(num_heads)
    return slopes[:, None] * (np.arange(pos + 1, dtype=float) - pos)[None, :]


def t5_step_bias(pos: int, bias_table, max_distance: int = 128) -> np.ndarray:
    """T5's (causal, decoder) bias for the query at ``pos`` over keys 0 .. pos:
    ``bias_table[bucket(n − pos), h]``, shape ``(num_heads, pos + 1)``; like ALiBi, looked up at
    each step from the offsets, never cached.
    """
    pos = check_int("pos", pos, 0)
    table = check_array("bias_table", bias_table)
    if table.ndim == 1:
        table = table[:, None]
    buckets = t5_relative_bucket(np.arange(pos + 1) - pos, bidirectional=False, num_buckets=table.shape[0],
                                 max_distance=max_distance)
    return table[np.asarray(buckets), :].T


# ---------------------------------------------------------------------------
# Grouped-query attention: query heads share KV heads
# ---------------------------------------------------------------------------
def _check_heads(name: str, x) -> np.ndarray:
    return check_array(name, x, ndim=3)


def repeat_kv(x, n_rep: int) -> np.ndarray:
    """KV heads copied for their query heads: ``(num_kv_heads, seq_len, d)`` ->
    ``(num_kv_heads · n_rep, seq_len, d)``, KV head g serving query heads g·n_rep …
    g·n_rep + n_rep − 1 (Hugging Face's ``repeat_kv``, "the equivalent of
    torch.repeat_interleave(x, dim=1, repeats=n_rep)"; flash-attn groups heads the same way:
    6 query heads over 2 KV heads, heads 0, 1, 2 use KV head 0).
    """
    x = _check_heads("x", x)
    n_rep = check_int("n_rep", n_rep, 1)
    return np.repeat(x, n_rep, axis=0)


def gqa_attention(q, key, value, base: float = 10000.0) -> np.ndarray:
    """Causal grouped-query attention with RoPE, shape ``(num_heads, seq_len, d_v)``.

    ``q``: ``(num_heads, seq_len, d)``; ``key``, ``value``: ``(num_kv_heads, seq_len, ·)`` with
    ``num_heads`` a multiple of ``num_kv_heads`` (1 KV head: multi-query attention, MQA; as many
    as query heads: ordinary multi-head attention). Each KV head's keys are rotated **once**
    (positions 0 … seq_len − 1), as Hugging Face rotates ``key_states`` before
    ``past_key_values.update`` and copies them (:func:`repeat_kv`) only inside the attention;
    query head h attends with KV head ``h // (num_heads // num_kv_heads)``.
    """
    q, key, value = _check_heads("q", q), _check_heads("key", key), _check_heads("value", value)
    heads, seq_len, d = q.shape
    kv_heads = key.shape[0]
    if key.shape[1:] != (seq_len, d) or value.shape[:2] != (kv_heads, seq_len):
        raise ValueError(bilingual(
            f"key must be (num_kv_heads, {seq_len}, {d}) and value (num_kv_heads, {seq_len}, d_v), got "
            f"{key.shape} and {value.shape}",
            "key、value 的形状与 q 不匹配"
        ))
    if heads % kv_heads:
        raise ValueError(bilingual(f"num_heads = {heads} must be a multiple of num_kv_heads = {kv_heads}",
                                   f"查询头数 {heads} 必须是 KV 头数 {kv_heads} 的整数倍"))
    pos = np.arange(seq_len, dtype=float)
    inv_freq, _ = _frequencies(d, base, None)
    q_rot = rope(q, pos, inv_freq=inv_freq)
    k_rot = rope(key, pos, inv_freq=inv_freq)                  # once per KV head: what the cache holds
    group = heads // kv_heads                                  # query head h uses KV head h // group
    return scaled_dot_product_attention(q_rot, repeat_kv(k_rot, group), repeat_kv(value, group),
                                        visible=causal_mask(seq_len))[0]


def kv_cache_numbers(num_key_value_heads: int, head_dim: int, num_layers: int = 1) -> int:
    """Numbers a KV cache stores per token: ``2 · num_key_value_heads · head_dim · num_layers``
    (one rotated key and one value per KV head per layer; the query heads sharing a KV head add
    nothing).
    """
    num_key_value_heads = check_int("num_key_value_heads", num_key_value_heads, 1)
    head_dim = check_int("head_dim", head_dim, 1)
    num_layers = check_int("num_layers", num_layers, 1)
    return 2 * num_key_value_heads * head_dim * num_layers
