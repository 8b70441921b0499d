"""Position encodings as torch modules: the sinusoidal table, a learned table, RoPE, ALiBi, and
the one torch attention (the twin of :func:`posenc.attention.scaled_dot_product_attention`).

This module imports torch at the top, so ``posenc_lib`` loads it only when one of these
names is first used (``import posenc_lib`` stays torch-free). The classes are ordinary
module-level classes: models that use them pickle with ``torch.save``.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from .encoding import frequencies, sinusoidal_encoding
from .position_limit import check_position_limit
from .validate import bilingual, check_base, check_d_model, check_int, check_table_size


def _check_input_shape(x, d_model: int) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(bilingual("x must be a torch.Tensor", "x 必须是 torch.Tensor"))
    if x.dim() != 3 or x.shape[-1] != d_model:
        raise ValueError(bilingual(
            f"x must have shape [batch, seq, {d_model}], got {list(x.shape)}",
            f"x 的形状必须是 [batch, seq, {d_model}]"
        ))


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table to ``[batch, seq, d_model]`` inputs.

    The table is a buffer: zero trainable parameters; any length up to ``max_len``.
    """

    def __init__(self, d_model: int, max_len: int = 5000, base: float = 10000.0):
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.max_len = check_int("max_len", max_len, 1)
        self.base = check_base(base)
        table = sinusoidal_encoding(self.max_len, self.d_model, self.base)
        self.register_buffer("pe", torch.tensor(table, dtype=torch.float32), persistent=False)

    def table(self, seq_len: int) -> torch.Tensor:
        """The first ``seq_len`` rows, ``[seq_len, d_model]``."""
        check_position_limit(seq_len, self.max_len, learned=False)
        return self.pe[:seq_len]

    def forward(self, x):
        _check_input_shape(x, self.d_model)
        return x + self.table(x.shape[1]).to(x.dtype)


class LearnedPositionalEmbedding(nn.Module):
    """Adds a trainable ``nn.Embedding(max_len, d_model)`` row per position.

    Positions 0 .. max_len-1 only: a longer sequence raises :class:`PositionLimitError`
    naming the limit (GPT-2's is 1024, BERT-base's 512). ``init_std`` (optional) draws the
    rows from N(0, init_std²) instead of nn.Embedding's N(0, 1).
    """

    def __init__(self, max_len: int, d_model: int, init_std: float | None = None):
        super().__init__()
        self.max_len = check_int("max_len", max_len, 1)
        self.d_model = check_int("d_model", d_model, 1)
        check_table_size(self.max_len, self.d_model)
        self.embedding = nn.Embedding(self.max_len, self.d_model)
        if init_std is not None:
            nn.init.normal_(self.embedding.weight, std=init_std)

    @property
    def weight(self) -> nn.Parameter:
        """The table itself, ``[max_len, d_model]``: one trainable row per position."""
        return self.embedding.weight

    def table(self, seq_len: int) -> torch.Tensor:
        """The rows of positions 0 .. seq_len-1 (PositionLimitError past max_len)."""
        check_position_limit(seq_len, self.max_len, learned=True)
        return self.embedding.weight[:seq_len]

    def forward(self, x):
        _check_input_shape(x, self.d_model)
        return x + self.table(x.shape[1]).to(x.dtype)


def rope_torch(x, positions, base: float = 10000.0, *, inv_freq=None, attention_factor: float = 1.0):
    """Torch version of :func:`posenc.rope.rope` (same convention), differentiable.

    ``x`` is ``(..., seq_len, d)``, ``positions`` has seq_len entries; pair i turns by
    ``pos · w_i`` (angles computed in float64, exact even at large positions). A RoPE-scaling
    method (notebook 09) passes its own frequencies ``inv_freq`` (the ``w'_i`` of
    :func:`rope_frequencies`, d/2 of them, instead of ``base``'s) and its ``attention_factor``,
    which multiplies cos and sin as in the reference code. The one torch RoPE: the toy
    :class:`OrderModel` rotates its q and κ with it too.
    """
    if not isinstance(x, torch.Tensor) or x.dim() < 2:
        raise TypeError(bilingual("x must be a torch.Tensor of shape (..., seq_len, d)", "x 必须是 torch 张量"))
    positions = torch.as_tensor(positions, dtype=torch.float64)
    if positions.dim() != 1 or positions.shape[0] != x.shape[-2]:
        raise ValueError(bilingual("positions must be 1-D with seq_len entries", "positions 必须是长度为 seq_len 的一维序列"))
    if inv_freq is None:
        w = torch.tensor(frequencies(x.shape[-1], base), dtype=torch.float64)
    else:
        w = torch.as_tensor(inv_freq, dtype=torch.float64)
        if w.shape != (x.shape[-1] // 2,):
            raise ValueError(bilingual(f"inv_freq must have d/2 = {x.shape[-1] // 2} entries, got {tuple(w.shape)}",
                                       f"inv_freq 必须有 d/2 = {x.shape[-1] // 2} 个频率"))
    t = positions[:, None] * w[None, :]  # angles in float64: exact even at large positions
    c, s = torch.cos(t), torch.sin(t)
    if attention_factor != 1.0:
        c, s = c * attention_factor, s * attention_factor
    c, s = c.to(x.dtype), s.to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1).flatten(-2)


def alibi_torch(seq_len: int, slopes) -> torch.Tensor:
    """Torch version of :func:`posenc.alibi.alibi_bias`: ``-m_h · |i − j|``, shape
    ``(num_heads, seq_len, seq_len)``, one slope per head in ``slopes`` (e.g. the float32 buffer of
    :func:`~posenc.alibi.alibi_slopes`), in the slopes' dtype. The one torch ALiBi: the toy
    :class:`OrderModel` adds it to its attention scores.
    """
    seq_len = check_int("seq_len", seq_len, 1)
    slopes = torch.as_tensor(slopes)
    if slopes.dim() != 1:
        raise ValueError(bilingual("slopes must be 1-D, one per head", "slopes 必须是一维的，每个头一个"))
    pos = torch.arange(seq_len, dtype=slopes.dtype)
    dist = (pos[:, None] - pos[None, :]).abs()                       # |i - j|
    return -(slopes[:, None, None] * dist)


def _softmax(scores):
    """Softmax over the last axis; for rows of length <= 16 this is ~3x faster on CPU than
    torch.softmax (measured, torch 2.13). Every row needs at least one finite entry."""
    e = torch.exp(scores - scores.detach().amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def scaled_dot_product_attention_torch(q, key, value, bias=None, visible=None):
    """Torch version of :func:`posenc.attention.scaled_dot_product_attention` (same contract),
    differentiable: ``(outputs, weights)`` with ``weights = softmax(q κᵀ / sqrt(d) + bias)`` over
    the keys ``visible`` (booleans, True = visible) allows. ``q`` ``(..., query_len, d)``, ``key``
    ``(..., key_len, d)``, ``value`` ``(..., key_len, d_v)``; ``bias`` and ``visible`` broadcast
    to ``(..., query_len, key_len)``. The one torch attention: the toy :class:`OrderModel`'s
    layers call it (padding and the causal mask as ``visible``, ALiBi as ``bias``).
    """
    if not all(isinstance(t, torch.Tensor) for t in (q, key, value)):
        raise TypeError(bilingual("q, key and value must be torch tensors", "q、key、value 必须是 torch 张量"))
    if min(q.dim(), key.dim(), value.dim()) < 2 or q.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ValueError(bilingual(
            f"q (..., query_len, d), key (..., key_len, d) and value (..., key_len, d_v) do not fit: "
            f"{list(q.shape)}, {list(key.shape)}, {list(value.shape)}",
            "q、key、value 的形状不匹配"
        ))
    scores = q @ key.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if bias is not None:
        scores = scores + bias
    if visible is not None:
        scores = scores.masked_fill(~visible, float("-inf"))
    weights = _softmax(scores)
    return weights @ value, weights
