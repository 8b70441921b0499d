"""Contextual position encoding (CoPE, Golovneva et al. 2024, "Contextual Position Encoding:
Learning to Count What's Important", arXiv 2405.18719): a key's position relative to the query is
the number of tokens between them that the query's gates count, not the number of tokens.

As facebookresearch/RAM ``projects/cope/src/cope/context_position.py`` (``ContextPosSelfAttn``)
computes it, in the course's symbols (query position m, key position n, key vector κ; the paper's
gate g is τ here, g_i being notebook 07's q_i·κ̄_i): gates ``τ_mn = sigmoid(q_m · κ_n / sqrt(d))``
times the causal mask; position ``p_mn = τ_mn + τ_m,n+1 + … + τ_mm``
(``gates.flip(-1).cumsum(-1).flip(-1)``), clamped to ``npos − 1``; a learned vector e[p] per
integer position gives the logit ``q_m · e[p]``, interpolated linearly between floor(p) and
ceil(p) for a fractional p, and added to the attention logit.
"""
from __future__ import annotations

import numpy as np

from .attention import causal_mask
from .validate import bilingual, check_array, check_int, check_matrix


def cope_positions(gate_logits, npos: int | None = None) -> np.ndarray:
    """CoPE's fractional positions, shape (seq_len, seq_len): ``p_mn`` = the sum of
    ``sigmoid(z_mu)`` over u = n … m, for keys n <= m (0 above the diagonal, where the causal mask
    zeroes the gates), clamped to ``npos − 1`` when ``npos`` is given. ``gate_logits`` z:
    (seq_len, seq_len), already divided by sqrt(d). With every gate 1, ``p_mn = m − n + 1``:
    counting tokens again.
    """
    z = check_matrix("gate_logits", gate_logits)
    if z.shape[0] != z.shape[1]:
        raise ValueError(bilingual(f"gate_logits must be square (queries × keys), got {z.shape}",
                                   "gate_logits 必须是方阵"))
    visible = causal_mask(len(z))
    gates = np.where(visible, 1.0 / (1.0 + np.exp(-z)), 0.0)
    positions = np.where(visible, np.flip(np.cumsum(np.flip(gates, axis=-1), axis=-1), axis=-1), 0.0)
    if npos is not None:
        positions = np.minimum(positions, float(check_int("npos", npos, 1) - 1))
    return positions


def cope_position_logits(query, pos_emb, positions) -> np.ndarray:
    """The logit CoPE adds for each (query m, key n): ``q_m · e[p_mn]`` with e interpolated,
    ``(p − floor p) · q_m·e[ceil p] + (1 − (p − floor p)) · q_m·e[floor p]``.
    ``query``: (seq_len, d); ``pos_emb``: (npos, d), one learned vector per integer position;
    ``positions``: (seq_len, seq_len) from :func:`cope_positions` (below npos).
    """
    q = check_matrix("query", query)
    e = check_matrix("pos_emb", pos_emb, cols=q.shape[1])
    p = check_array("positions", positions, ndim=2)
    if p.shape != (len(q), len(q)) or np.any(p < 0) or np.any(p > len(e) - 1):
        raise ValueError(bilingual(f"positions must be ({len(q)}, {len(q)}) with values in [0, {len(e) - 1}]",
                                   f"positions 的形状必须是 ({len(q)}, {len(q)})，取值在 [0, {len(e) - 1}] 之间"))
    fixed = q @ e.T                                           # (seq_len, npos): q_i · e[p] for integer p
    lo, hi = np.floor(p).astype(int), np.ceil(p).astype(int)
    w = p - lo
    rows = np.arange(len(q))[:, None]
    return fixed[rows, hi] * w + fixed[rows, lo] * (1 - w)
