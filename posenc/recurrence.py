"""Layers that carry order in a recurrence instead of a position encoding: causal linear
attention with a scalar decay, the simplest member of the family that state-space layers
(Mamba's selective scan) and linear-attention layers (RetNet, GLA) belong to.

    state   S_t = decay · S_{t−1} + κ_t v_tᵀ        (d_k × d_v, the same size at every t)
    output  y_t = S_tᵀ q_t = Σ_{s ≤ t} decay^(t−s) (q_t · κ_s) v_s

With ``decay = 1`` the sum over the prefix is unordered: the last output only sees which tokens
came before, like causal NoPE attention. With ``decay < 1`` every earlier token is weighted by
``decay^(t−s)``: the distance enters the layer itself, multiplicatively, where ALiBi adds
``−s_h·(t − s)`` to a logit. Mamba makes the decay depend on the input (and per channel);
a fixed scalar keeps the point visible. Rows are vectors (``x @ w``), as in :mod:`posenc.rope`.
"""
from __future__ import annotations

import numpy as np

from .attention import causal_mask
from .validate import bilingual, check_matrix, check_real


def linear_attention(q, key, value, decay: float = 1.0, recurrent: bool = False) -> np.ndarray:
    """Causal linear attention with a scalar ``decay`` in (0, 1]: ``y_t = Σ_{s ≤ t} decay^(t−s)
    (q_t · κ_s) v_s``, shape ``(seq_len, d_v)``. ``recurrent=True`` computes it as the state-space
    recurrence ``S_t = decay·S_{t−1} + κ_t v_tᵀ``, ``y_t = S_tᵀ q_t`` (one fixed-size state,
    one token at a time); the default computes the same numbers at once, as a masked,
    decay-weighted score matrix (no softmax).
    """
    q = check_matrix("q", q)
    key = check_matrix("key", key, rows=q.shape[0], cols=q.shape[1])
    value = check_matrix("value", value, rows=q.shape[0])
    decay = check_real("decay", decay, greater_than=0.0, maximum=1.0)
    if not isinstance(recurrent, bool):
        raise TypeError(bilingual("recurrent must be True or False", "recurrent 必须是 True 或 False"))
    if recurrent:
        state = np.zeros((q.shape[1], value.shape[1]))
        out = np.empty((q.shape[0], value.shape[1]))
        for t in range(q.shape[0]):
            state = decay * state + np.outer(key[t], value[t])
            out[t] = q[t] @ state
        return out
    t = np.arange(q.shape[0])
    weights = np.where(causal_mask(q.shape[0]), decay ** np.maximum(t[:, None] - t[None, :], 0), 0.0)
    return (weights * (q @ key.T)) @ value
