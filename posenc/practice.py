"""Positions in practice: the position ids real code builds, and the layouts newer models use.

Left padding in batched generation (Hugging Face's ``cumsum(attention_mask) - 1``), packing
several documents into one row (position ids that restart, the block-diagonal causal mask,
``cu_seqlens``), the precision of positions and angles (bf16 / fp16 / fp32 against float64),
caches that drop tokens (a sliding window, StreamingLLM's sinks and re-assigned positions,
gpt-oss's learned sink logit, xPos's decay), Llama 4's NoPE layers and attention
temperature, how a fused kernel (flash-attn) takes ALiBi, and layers that mix local and global
attention (Gemma 2, Gemma 3). Phi-3's LongRoPE config is in :mod:`posenc.real_models`,
Qwen2.5-VL's time ids and Qwen3-VL's interleaved M-RoPE in :mod:`posenc.rope_2d`, p-RoPE in
:mod:`posenc.rope`, a tree of draft tokens in :mod:`posenc.decoding`.

Every function follows a public reference implementation its docstring names. Torch is used
only by the precision helpers (loaded on first call): bf16 and fp16 are torch dtypes.
"""
from __future__ import annotations

import numpy as np

from .attention import causal_mask, scaled_dot_product_attention, softmax
from .rope import rope, rope_pair_coefficients
from .validate import (bilingual, check_array, check_base, check_bool, check_int, check_one_of, check_positions,
                       check_qkv, check_real)

#: The position id Hugging Face gives a padding token (``position_ids.masked_fill_(attention_mask == 0, 1)``).
PAD_POSITION_ID = 1
#: The dtypes the precision helpers know, narrowest first.
POSITION_DTYPES = ("bfloat16", "float16", "float32", "float64")

def _mask(attention_mask) -> np.ndarray:
    mask = np.asarray(attention_mask)
    if mask.dtype == bool:
        mask = mask.astype(np.int64)
    if mask.ndim not in (1, 2) or mask.size == 0 or mask.dtype.kind not in "iu" or not np.isin(mask, (0, 1)).all():
        raise ValueError(bilingual("attention_mask must be a non-empty 1-D or 2-D array of 0 and 1",
                                   "attention_mask 必须是由 0 和 1 组成的一维或二维数组"))
    return mask.astype(np.int64)


def position_ids_from_mask(attention_mask) -> np.ndarray:
    """Position ids of a (left-)padded batch, as Hugging Face's generation code builds them:
    ``attention_mask.cumsum(-1) - 1``, then every padding slot (mask 0) set to
    :data:`PAD_POSITION_ID` = 1, a dummy that the mask hides anyway.

    ``attention_mask``: 0/1, shape (seq_len,) or (batch, seq_len). The first real token of each
    row gets 0 however many pads precede it. (``prepare_inputs_for_generation`` in
    ``src/transformers/generation/utils.py``.)
    """
    mask = _mask(attention_mask)
    ids = np.cumsum(mask, axis=-1) - 1
    ids[mask == 0] = PAD_POSITION_ID
    return ids


def _lengths(lengths) -> np.ndarray:
    arr = np.asarray(lengths)
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or (arr < 1).any():
        raise ValueError(bilingual(f"lengths must be a non-empty list of positive integers, got {lengths!r}",
                                   f"lengths 必须是正整数的列表，收到的是 {lengths!r}"))
    return arr.astype(np.int64)


def packed_position_ids(lengths) -> np.ndarray:
    """Position ids of documents of the given ``lengths`` packed into one row: each document
    counts 0, 1, ... from its own start.
    """
    return np.concatenate([np.arange(n) for n in _lengths(lengths)])


def cu_seqlens(lengths) -> np.ndarray:
    """Cumulative sequence lengths ``[0, l0, l0 + l1, ...]`` (int32): where each packed
    document starts in the flat row, plus the total at the end. Variable-length attention
    kernels (flash-attn's ``flash_attn_varlen_func``) take this instead of a mask; document j
    is rows ``cu[j]:cu[j+1]``.
    """
    return np.concatenate([[0], np.cumsum(_lengths(lengths))]).astype(np.int32)


def packed_causal_mask(lengths) -> np.ndarray:
    """Which keys each query of a packed row may see (True = visible), shape (L, L): key n is
    visible to query m when both are in the same document and n <= m (block-diagonal causal).
    """
    doc = np.repeat(np.arange(len(_lengths(lengths))), _lengths(lengths))
    return (doc[:, None] == doc[None, :]) & causal_mask(len(doc))


def masked_rope_attention(q, key, value, positions, visible) -> tuple[np.ndarray, np.ndarray]:
    """Attention with RoPE and an explicit mask: ``softmax(rope(Q)·rope(K)ᵀ/√d)`` over the keys
    ``visible[m, n]`` allows (the others get -inf), times V. Returns ``(outputs, weights)``.
    ``q``, ``key``, ``value``: (seq_len, d); ``positions``: one id per row (a packed row's ids,
    a padded row's ids …); ``visible``: (seq_len, seq_len) booleans, e.g. :func:`packed_causal_mask`.
    """
    q, key, value = check_qkv(q, key, value)
    pos = check_positions(positions)
    visible = np.asarray(visible)
    if visible.dtype != bool or visible.shape != (len(q), len(q)):
        raise ValueError(bilingual(f"visible must be booleans of shape {(len(q), len(q))}",
                                   "visible 必须是形状为 "
                                   f"{(len(q), len(q))} 的布尔数组"))
    return scaled_dot_product_attention(rope(q, pos), rope(key, pos), value, visible=visible)


def sliding_window_mask(seq_len: int, window: int) -> np.ndarray:
    """Sliding-window causal mask (True = visible), shape (seq_len, seq_len): key n is visible
    to query m when ``0 <= m - n < window`` (Hugging Face's ``sliding_window_overlay``,
    ``kv_idx > q_idx - sliding_window``, on top of the causal mask; Mistral's ``sliding_window``).
    """
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    window = check_int("window", window, 1)
    k = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]      # m - n
    return causal_mask(seq_len) & (k < window)


# ---------------------------------------------------------------------------
# Precision: positions and angles in bf16 / fp16 / fp32
# ---------------------------------------------------------------------------
def _torch_dtype(dtype: str):
    import torch

    return getattr(torch, check_one_of("dtype", dtype, POSITION_DTYPES))


def stored_positions(positions, dtype: str = "bfloat16") -> np.ndarray:
    """The values ``positions`` become when stored in ``dtype`` (round to nearest even, as torch
    casts), returned as float64: bf16 keeps 8 significant bits, fp16 11, fp32 24.
    """
    import torch

    pos = check_positions(positions)
    return torch.tensor(pos, dtype=torch.float64).to(_torch_dtype(dtype)).double().numpy()


def rope_angles_in(positions, head_dim: int = 128, base: float = 10000.0, dtype: str = "float32") -> np.ndarray:
    """RoPE angles ``pos · w_i`` as a model computes them in ``dtype``, shape (L, head_dim // 2),
    returned as float64 for comparison.

    ``w_i = 1 / base^(2i/head_dim)`` is made in float32 as Hugging Face does; then positions and
    frequencies are cast to ``dtype`` and multiplied there (the product rounded to ``dtype``):
    what ``inv_freq @ position_ids`` gives under bf16 autocast. ``dtype="float32"`` is what
    Hugging Face computes with autocast disabled (``# Force float32``); ``"float64"`` computes
    everything in float64, the reference.
    """
    import torch

    pos = check_positions(positions)
    head_dim = check_int("head_dim", head_dim, 2, 4096)
    if head_dim % 2:
        raise ValueError(bilingual(f"head_dim must be even, got {head_dim}", "head_dim 必须是偶数"))
    base = check_base(base)
    kind = _torch_dtype(dtype)
    exps = torch.arange(0, head_dim, 2, dtype=torch.int64)
    if dtype == "float64":
        inv_freq = 1.0 / (base ** (exps.double() / head_dim))
    else:
        inv_freq = (1.0 / (base ** (exps.float() / head_dim))).to(kind)
    p = torch.tensor(pos, dtype=torch.float64).to(kind)
    return (p[:, None] * inv_freq[None, :]).double().numpy()


def angle_error(angles, reference) -> np.ndarray:
    """How far ``angles`` are from ``reference`` on the circle: ``|angles − reference|`` wrapped
    into [0, π] (an angle error of 2π is no error; π is the worst).
    """
    diff = check_array("angles", angles) - check_array("reference", reference)
    return np.abs((diff + np.pi) % (2 * np.pi) - np.pi)


def rope_score_from_angles(q, key, angle_q, angle_key) -> float:
    """The RoPE score of ``q`` turned by ``angle_q`` (one angle per pair) and κ = ``key`` turned
    by ``angle_key``: ``Σ_i a_i cos(φ_i) + b_i sin(φ_i)``, ``φ = angle_key − angle_q``, with
    ``a, b`` of :func:`posenc.rope.rope_pair_coefficients`. With exact angles ``pos · w_i`` this is
    ``rope(q, m) · rope(κ, n)``.
    """
    a, b = rope_pair_coefficients(q, key)
    phi = check_array("angle_key", angle_key, 1) - check_array("angle_q", angle_q, 1)
    if phi.shape != a.shape:
        raise ValueError(bilingual(f"angles must have one entry per pair ({len(a)})", f"角度的个数必须等于对数 {len(a)}"))
    return float(a @ np.cos(phi) + b @ np.sin(phi))


# ---------------------------------------------------------------------------
# Caches that drop tokens
# ---------------------------------------------------------------------------
def streaming_cache(n_tokens: int, n_sink: int = 4, n_recent: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """The keys StreamingLLM attends to when the ``n_tokens``-th token (counting from 1, the
    current one included) is processed, and the positions they are rotated to.

    Returns ``(kept, positions)``: ``kept`` are the original token indices, the first
    ``n_sink`` (the attention sinks) and the last ``n_recent`` (``StartRecentKVCache`` in
    mit-han-lab/streaming-llm); ``positions`` is ``0 … len(kept) − 1``: keys are rotated by their
    place in the cache and the current query by the last one (``pos_shift/modify_llama.py``).
    """
    n = check_int("n_tokens", n_tokens, 1)
    n_sink = check_int("n_sink", n_sink, 0)
    n_recent = check_int("n_recent", n_recent, 1)
    if n <= n_sink + n_recent:
        kept = np.arange(n)
    else:
        kept = np.concatenate([np.arange(n_sink), np.arange(n - n_recent, n)])
    return kept, np.arange(len(kept))


def softmax_with_sink(scores, sink_logit: float) -> np.ndarray:
    """Attention weights with a learned sink logit, as gpt-oss does (``eager_attention_forward``
    in Hugging Face's ``modeling_gpt_oss.py``): the sink joins the softmax as one more logit and
    is dropped afterwards, so each row's weights add up to less than 1:
    ``w_n = e^{s_n} / (Σ_j e^{s_j} + e^{sink})``. ``scores``: (..., n_keys), -inf masks a key.
    """
    scores = check_array("scores", scores, masked=True)
    sink = check_real("sink_logit", sink_logit)
    column = np.full(scores.shape[:-1] + (1,), sink)
    return softmax(np.concatenate([scores, column], axis=-1))[..., :-1]


def xpos_scale(head_dim: int, positions, scale_base: float = 512.0) -> np.ndarray:
    """xPos's per-pair factors ``ζ_i^(pos / scale_base)``, shape (L, head_dim // 2), with
    ``ζ_i = (2i + 0.4·head_dim) / (1.4·head_dim)`` (microsoft/torchscale,
    ``torchscale/component/xpos_relative_position.py``). xPos multiplies pair i of q at position m
    by ``ζ_i^(m/B)`` and of κ at position n by ``ζ_i^(−n/B)`` on top of RoPE's rotation, so the
    score of pair i is scaled by ``ζ_i^((m − n)/B)``.
    """
    head_dim = check_int("head_dim", head_dim, 2, 4096)
    if head_dim % 2:
        raise ValueError(bilingual(f"head_dim must be even, got {head_dim}", "head_dim 必须是偶数"))
    pos = check_positions(positions)
    scale_base = check_real("scale_base", scale_base, greater_than=0.0)
    zeta = (np.arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
    return zeta[None, :] ** (pos[:, None] / scale_base)


# ---------------------------------------------------------------------------
# Newer layouts
# ---------------------------------------------------------------------------
def llama4_rope_layers(num_hidden_layers: int, no_rope_layer_interval: int = 4) -> np.ndarray:
    """Llama 4's ``no_rope_layers``: 1 where a layer applies RoPE, 0 for the NoPE layers, by
    default ``int((layer_idx + 1) % no_rope_layer_interval != 0)`` (every 4th layer is NoPE;
    ``configuration_llama4.py`` in Hugging Face transformers).
    """
    layers = check_int("num_hidden_layers", num_hidden_layers, 1, 1024)
    interval = check_int("no_rope_layer_interval", no_rope_layer_interval, 1)
    return np.array([int((i + 1) % interval != 0) for i in range(layers)])


def llama4_attn_scale(positions, floor_scale: float = 8192, attn_scale: float = 0.1) -> np.ndarray:
    """The factor Llama 4 multiplies the query by in its NoPE layers (``attn_temperature_tuning``):
    ``log(floor((pos + 1) / floor_scale) + 1) · attn_scale + 1`` (``modeling_llama4.py``; defaults
    of ``configuration_llama4.py``): exactly 1 below ``floor_scale − 1``, then growing like a log.
    """
    pos = check_positions(positions)
    floor_scale = check_real("floor_scale", floor_scale, greater_than=0.0)
    attn_scale = check_real("attn_scale", attn_scale)
    return np.log(np.floor((pos + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0


# ---------------------------------------------------------------------------
# Fused attention kernels: how flash-attn takes ALiBi and RoPE
# ---------------------------------------------------------------------------
def flash_alibi_bias(slopes, seqlen_q: int, seqlen_k: int, causal: bool = False) -> np.ndarray:
    """The ALiBi bias flash-attn adds inside its kernel, shape (heads, seqlen_q, seqlen_k).

    flash-attn takes only ``alibi_slopes`` (one fp32 slope per head) and builds the bias tile by
    tile (Dao-AILab/flash-attention ``csrc/flash_attn/src/alibi.h``): without a causal mask
    ``-slope · |i + seqlen_k - seqlen_q - j|`` for query i and key j (the docstring of
    ``flash_attn_func``: queries aligned to the bottom-right of the score matrix, so a single
    decoding query sits at position seqlen_k - 1); with ``causal`` it adds ``+slope · j`` to
    every row instead, which differs from ``-slope · (i' - j)`` by ``slope · i'`` per row, a
    constant the softmax ignores. The causal mask itself is applied apart from this bias.
    """
    slopes = check_array("slopes", slopes, ndim=1)
    seqlen_q = check_int("seqlen_q", seqlen_q, 1, 4096)
    seqlen_k = check_int("seqlen_k", seqlen_k, 1, 4096)
    causal = check_bool("causal", causal)
    i = np.arange(seqlen_q)[:, None] + seqlen_k - seqlen_q
    j = np.arange(seqlen_k)[None, :]
    if causal:
        return slopes[:, None, None] * np.broadcast_to(j, (seqlen_q, seqlen_k))[None, :, :]
    return -slopes[:, None, None] * np.abs(i - j)[None, :, :]


def flash_causal_mask(seqlen_q: int, seqlen_k: int) -> np.ndarray:
    """flash-attn's causal mask (True = visible), aligned to the bottom-right corner: query i
    sees key j when ``j <= i + seqlen_k - seqlen_q`` (the ``flash_attn_func`` docstring's
    examples: 2 queries over 5 keys keep ``1 1 1 1 0`` / ``1 1 1 1 1``).
    """
    seqlen_q = check_int("seqlen_q", seqlen_q, 1, 4096)
    seqlen_k = check_int("seqlen_k", seqlen_k, 1, 4096)
    return causal_mask(seqlen_q, seqlen_k)


# ---------------------------------------------------------------------------
# Local and global layers (Gemma 2, Gemma 3)
# ---------------------------------------------------------------------------
#: Layer patterns of two models that mix sliding-window ("local") and full ("global") layers,
#: each from a public config and the transformers code that reads it (see ``source``).
LOCAL_GLOBAL_CONFIGS = {
    "Gemma-2-9B": {
        "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
        "sliding_window": 4096, "sliding_window_pattern": 2, "rope_theta": 10000.0,
        "rope_local_base_freq": 10000.0, "max_position_embeddings": 8192,
        "source": ("mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py 'gemma2_9b' (config.json: num_hidden_layers "
                   "42, num_attention_heads 16, num_key_value_heads 8, head_dim 256, sliding_window 4096, rope_theta "
                   "10000.0, max_position_embeddings 8192); huggingface/transformers "
                   "src/transformers/models/gemma2/modular_gemma2.py (Gemma2DecoderLayer.is_sliding = "
                   "not bool(layer_idx % 2): layers 0, 2, 4, … slide; one rotary embedding for all layers)"),
    },
    "Gemma-3-1B": {
        "num_hidden_layers": 26, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
        "sliding_window": 512, "sliding_window_pattern": 6, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "max_position_embeddings": 32768,
        "source": ("mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py 'gemma3_1b_it' (config.json: "
                   "num_hidden_layers 26, num_attention_heads 4, num_key_value_heads 1, head_dim 256, sliding_window "
                   "512, sliding_window_pattern 6, rope_theta 1000000, rope_local_base_freq 10000, "
                   "max_position_embeddings 32768); huggingface/transformers "
                   "src/transformers/models/gemma3/modular_gemma3.py (Gemma3TextConfig: layer_types "
                   "'sliding_attention' if bool((i + 1) % sliding_window_pattern) else 'full_attention'; "
                   "rope_local_base_freq is 'the base period of the RoPE embeddings for local attention')"),
    },
}


def layer_types(num_hidden_layers: int, sliding_window_pattern: int) -> tuple[str, ...]:
    """Each layer's attention: ``"sliding_attention"`` unless ``(i + 1)`` is a multiple of
    ``sliding_window_pattern``, then ``"full_attention"`` (transformers' ``Gemma3TextConfig``;
    pattern 2 is Gemma 2's alternation, layer 0 sliding).
    """
    num_hidden_layers = check_int("num_hidden_layers", num_hidden_layers, 1, 1024)
    pattern = check_int("sliding_window_pattern", sliding_window_pattern, 1)
    return tuple("sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(num_hidden_layers))


def layer_cache_tokens(types, seq_len: int, sliding_window: int) -> int:
    """Keys (and values) a KV cache holds over all layers at ``seq_len`` tokens: ``seq_len`` per
    full layer, at most ``sliding_window`` per sliding layer (its ring buffer).
    """
    types = tuple(check_one_of("layer type", t, ("sliding_attention", "full_attention")) for t in types)
    seq_len = check_int("seq_len", seq_len, 1)
    sliding_window = check_int("sliding_window", sliding_window, 1)
    return sum(seq_len if t == "full_attention" else min(seq_len, sliding_window) for t in types)
