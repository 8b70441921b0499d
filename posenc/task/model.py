"""The small Transformer of the 谁咬谁 (who bites whom) task, as ordinary torch classes.

Imported only when a model is first built (``posenc_lib`` loads it lazily), so that
``import posenc_lib`` stays torch-free; the classes live at module level, so a trained
``OrderModel`` round-trips through ``torch.save`` / ``torch.load``.
"""
from __future__ import annotations

import contextlib

import torch
from torch import nn

from ..attention import causal_mask
from ..context import YARN_BETA_FAST, YARN_BETA_SLOW, check_rope_type, rope_frequencies
from ..alibi import alibi_slopes
from ..torch_layers import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    alibi_torch,
    rope_torch,
    scaled_dot_product_attention_torch,
)
from ..validate import bilingual, check_base, check_bool, check_int, check_one_of
from .data import (
    DEFAULT_D_MODEL,
    DEFAULT_NUM_HEADS,
    DEFAULT_NUM_LAYERS,
    LEARNED_INIT_STD,
    PAD_ID,
    PE_KINDS,
)

#: Rows of the sinusoidal table an OrderModel precomputes (the formula has no limit; the
#: task's sentences are far shorter).
SINUSOIDAL_ROWS = 4096


class _Block(nn.Module):
    """Weights of one layer: self-attention (residual) then a ReLU MLP (residual).
    """

    def __init__(self, d_model: int):
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.ReLU(), nn.Linear(2 * d_model, d_model))


class OrderModel(nn.Module):
    """Small Transformer encoder for the X 咬 Y task.

    token embedding (+ sinusoidal / learned PE) -> ``num_layers`` x [multi-head self-attention
    (custom, so RoPE rotates q, k and ALiBi adds -m_h |i-j| to the scores) with residual ->
    ReLU MLP with residual] -> masked mean pool over real tokens -> LayerNorm -> linear.
    With ``pe="none"`` every step is per token or symmetric in the tokens, so the logits
    are invariant to permuting the real tokens. The learned table (``pe="learned"``) has
    ``max_len`` rows; a longer input raises PositionLimitError. Sinusoidal, RoPE and ALiBi are
    computed for any length.

    ``causal=True`` adds a causal mask: the token at position m attends to keys n <= m only
    (a decoder's attention; then even ``pe="none"`` is no longer order-blind, notebook 09).
    A RoPE model's frequencies can be rescaled after training, without retraining:
    :meth:`set_rope_scaling` / :meth:`rope_scaling` (PI, NTK-aware, YaRN; notebook 09).
    """

    def __init__(self, vocab_size: int, num_classes: int, d_model: int = DEFAULT_D_MODEL,
                 num_heads: int = DEFAULT_NUM_HEADS, pe: str = "none", max_len: int = 16,
                 base: float = 10000.0, num_layers: int = DEFAULT_NUM_LAYERS, causal: bool = False):
        super().__init__()
        causal = check_bool("causal", causal)
        vocab_size = check_int("vocab_size", vocab_size, 2)
        num_classes = check_int("num_classes", num_classes, 2)
        d_model = check_int("d_model", d_model, 2)
        num_heads = check_int("num_heads", num_heads, 1)
        num_layers = check_int("num_layers", num_layers, 1, 4)
        self.pe = check_one_of("pe", pe, PE_KINDS)
        max_len = check_int("max_len", max_len, 1)
        if d_model % num_heads:
            raise ValueError(bilingual(f"d_model ({d_model}) must be divisible by num_heads ({num_heads})",
                                       "d_model 必须能被 num_heads 整除"))
        head_dim = d_model // num_heads
        if d_model % 2 or (pe == "rope" and head_dim % 2):
            raise ValueError(bilingual(f"d_model and (for rope) d_model/num_heads must be even, got "
                                       f"d_model={d_model}, num_heads={num_heads}",
                                       "维度必须是偶数"))
        base = check_base(base)
        self.d_model, self.num_heads, self.head_dim = d_model, num_heads, head_dim
        self.max_len, self.base, self.num_layers = max_len, base, num_layers
        self.causal = causal
        # RoPE scaling applied at evaluation time (None: plain RoPE through rope_torch)
        self.rope_scaling_config = None
        self._rope_inv_freq, self._rope_attention_factor = None, 1.0
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        # The additive position modules of notebook 05: ``pos_emb`` is the learned table
        # (None unless pe="learned"), ``pos_enc`` the fixed sinusoidal one.
        self.pos_emb = (LearnedPositionalEmbedding(max_len, d_model, init_std=LEARNED_INIT_STD)
                        if pe == "learned" else None)
        self.pos_enc = (SinusoidalPositionalEncoding(d_model, SINUSOIDAL_ROWS, base)
                        if pe == "sinusoidal" else None)
        if pe == "alibi":
            self.register_buffer("slopes", torch.tensor(alibi_slopes(num_heads), dtype=torch.float32))
        self.blocks = nn.ModuleList(_Block(d_model) for _ in range(num_layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_classes)

    def position_table(self, seq_len: int) -> torch.Tensor | None:
        """Additive position vectors [seq_len, d_model] (None for none / rope / alibi).
        """
        module = self.pos_emb if self.pos_emb is not None else self.pos_enc
        return None if module is None else module.table(seq_len)

    def set_rope_scaling(self, rope_type: str = "default", factor: float = 1.0, train_len: int | None = None,
                         beta_fast: float = YARN_BETA_FAST, beta_slow: float = YARN_BETA_SLOW) -> None:
        """Rescale this RoPE model's frequencies from now on (no retraining): PI, NTK-aware or YaRN.

        The frequencies come from :func:`rope_frequencies` (``d_model`` = the head dimension,
        ``base`` = the model's); with YaRN the rotated q and κ are multiplied by its attention
        factor, so the logits grow by its square, as in the reference code.
        ``rope_type="default"`` restores plain RoPE.
        """
        if self.pe != "rope":
            raise ValueError(bilingual(f"RoPE scaling needs pe='rope', this model has pe={self.pe!r}",
                                       "只有 pe='rope' 的模型才能缩放 RoPE"))
        rope_type = check_rope_type(rope_type)
        inv_freq, att = rope_frequencies(self.head_dim, self.base, rope_type, factor, train_len,
                                         beta_fast, beta_slow)
        if rope_type == "default":
            self.rope_scaling_config = None
            self._rope_inv_freq, self._rope_attention_factor = None, 1.0
            return
        self.rope_scaling_config = dict(rope_type=rope_type, factor=float(factor), train_len=train_len,
                                        beta_fast=float(beta_fast), beta_slow=float(beta_slow))
        self._rope_inv_freq = torch.tensor(inv_freq, dtype=torch.float64)
        self._rope_attention_factor = float(att)

    @contextlib.contextmanager
    def rope_scaling(self, rope_type: str = "default", factor: float = 1.0, train_len: int | None = None,
                     beta_fast: float = YARN_BETA_FAST, beta_slow: float = YARN_BETA_SLOW):
        """``with model.rope_scaling("yarn", 4, 16): ...``: :meth:`set_rope_scaling` for the
        block, then the previous setting again.
        """
        previous = self.rope_scaling_config
        self.set_rope_scaling(rope_type, factor, train_len, beta_fast, beta_slow)
        try:
            yield self
        finally:
            self.set_rope_scaling(**(previous or {}))

    def _attend(self, block, x, mask):
        bsz, seq, _ = x.shape
        q, k, v = block.qkv(x).view(bsz, seq, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        if self.pe == "rope":
            pos = torch.arange(seq)
            rotate = dict(inv_freq=self._rope_inv_freq, attention_factor=self._rope_attention_factor)
            q, k = rope_torch(q, pos, self.base, **rotate), rope_torch(k, pos, self.base, **rotate)
        visible = mask[:, None, None, :]                                 # real keys: [b, 1, 1, seq]
        if self.causal:
            visible = visible & torch.from_numpy(causal_mask(seq))       # and key n <= query m
        bias = alibi_torch(seq, self.slopes) if self.pe == "alibi" else None      # [h, seq, seq]
        out, weights = scaled_dot_product_attention_torch(q, k, v, bias, visible)  # [b, h, seq, head_dim]
        out = out.transpose(1, 2).reshape(bsz, seq, self.d_model)
        return weights, block.proj(out)

    def attention_weights(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> list:
        """Attention weights of every layer, each [batch, heads, seq, seq].
        """
        return self._run(tokens, mask)[1]

    def residual_streams(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> list:
        """The residual stream before the first layer and after each layer: ``num_layers + 1``
        tensors [batch, seq, d_model] (entry 0: token embedding + additive PE, if any).
        """
        streams = []
        self._run(tokens, mask, streams)
        return streams

    def _run(self, tokens, mask, streams=None):
        if mask is None:
            mask = tokens != PAD_ID
        x = self.tok_emb(tokens)
        table = self.position_table(tokens.shape[1])
        if table is not None:
            x = x + table
        if streams is not None:
            streams.append(x.detach())
        all_weights = []
        for block in self.blocks:
            weights, out = self._attend(block, x, mask)
            all_weights.append(weights)
            x = x + out
            x = x + block.mlp(x)
            if streams is not None:
                streams.append(x.detach())
        m = mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * m).sum(1) / m.sum(1)
        return self.head(self.norm(pooled)), all_weights

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Logits [batch, num_classes] for token ids [batch, seq] (mask: True on real tokens).
        """
        return self._run(tokens, mask)[0]
