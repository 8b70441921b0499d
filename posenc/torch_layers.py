"""Position encodings as torch modules: the sinusoidal table, a learned table, RoPE.

This module imports torch at the top, so ``posenc_lib`` loads it only when one of these
names is first used (``import posenc_lib`` stays torch-free). The classes are ordinary
module-level classes: models that use them pickle with ``torch.save``.
"""
from __future__ import annotations

import torch
from torch import nn

from .encoding import frequencies, sinusoidal_encoding
from .validate import (
    _check_base,
    _check_d_model,
    _check_int,
    _check_position_limit,
    _check_table_size,
)


def _check_input_shape(x, d_model: int) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError("x must be a torch.Tensor / x 必须是 torch.Tensor")
    if x.dim() != 3 or x.shape[-1] != d_model:
        raise ValueError(
            f"x must have shape [batch, seq, {d_model}], got {list(x.shape)} / "
            f"x 的形状必须是 [batch, seq, {d_model}]"
        )


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table to ``[batch, seq, d_model]`` inputs.

    The table is a buffer: zero trainable parameters; any length up to ``max_len``.
    Introduced in notebook 05_learned_embeddings.
    """

    def __init__(self, d_model: int, max_len: int = 5000, base: float = 10000.0):
        super().__init__()
        self.d_model = _check_d_model(d_model)
        self.max_len = _check_int("max_len", max_len, 1)
        self.base = _check_base(base)
        table = sinusoidal_encoding(self.max_len, self.d_model, self.base)
        self.register_buffer("pe", torch.tensor(table, dtype=torch.float32), persistent=False)

    def table(self, seq_len: int) -> torch.Tensor:
        """The first ``seq_len`` rows, ``[seq_len, d_model]``."""
        _check_position_limit(seq_len, self.max_len, learned=False)
        return self.pe[:seq_len]

    def forward(self, x):
        _check_input_shape(x, self.d_model)
        return x + self.table(x.shape[1]).to(x.dtype)


class LearnedPositionalEmbedding(nn.Module):
    """Adds a trainable ``nn.Embedding(max_len, d_model)`` row per position.

    Positions 0 .. max_len-1 only: a longer sequence raises :class:`PositionLimitError`
    naming the limit (GPT-2's is 1024, BERT-base's 512). ``init_std`` (optional) draws the
    rows from N(0, init_std²) instead of nn.Embedding's N(0, 1).
    Introduced in notebook 05_learned_embeddings.
    """

    def __init__(self, max_len: int, d_model: int, init_std: float | None = None):
        super().__init__()
        self.max_len = _check_int("max_len", max_len, 1)
        self.d_model = _check_int("d_model", d_model, 1)
        _check_table_size(self.max_len, self.d_model)
        self.embedding = nn.Embedding(self.max_len, self.d_model)
        if init_std is not None:
            nn.init.normal_(self.embedding.weight, std=init_std)

    @property
    def weight(self) -> nn.Parameter:
        """The table itself, ``[max_len, d_model]``: one trainable row per position."""
        return self.embedding.weight

    def table(self, seq_len: int) -> torch.Tensor:
        """The rows of positions 0 .. seq_len-1 (PositionLimitError past max_len)."""
        _check_position_limit(seq_len, self.max_len, learned=True)
        return self.embedding.weight[:seq_len]

    def forward(self, x):
        _check_input_shape(x, self.d_model)
        return x + self.table(x.shape[1]).to(x.dtype)


def rope_torch(x, positions, base: float = 10000.0):
    """Torch version of :func:`rope` (same convention), differentiable.

    Introduced in notebook 07_rope.
    """
    if not isinstance(x, torch.Tensor) or x.dim() < 2:
        raise TypeError("x must be a torch.Tensor of shape (..., seq_len, d) / x 必须是 torch 张量")
    positions = torch.as_tensor(positions, dtype=torch.float64)
    if positions.dim() != 1 or positions.shape[0] != x.shape[-2]:
        raise ValueError("positions must be 1-D with seq_len entries / positions 必须是长度为 seq_len 的一维序列")
    w = torch.tensor(frequencies(x.shape[-1], base), dtype=torch.float64)
    t = positions[:, None] * w[None, :]  # angles in float64: exact even at large positions
    c, s = torch.cos(t).to(x.dtype), torch.sin(t).to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1).flatten(-2)
