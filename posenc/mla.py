"""Multi-head latent attention (MLA, DeepSeek-V2/V3) and RoPE, for one head, in numpy: the
cache holds a small latent ``c_n`` per token; the key is ``k_n = c_n W_UK``. Without RoPE,
``q_m · k_n = h_m W_Q W_UKᵀ c_nᵀ``: W_UK can be absorbed into W_Q (one matrix, no key ever
built). With RoPE a rotation by n − m sits between W_Q and W_UK, and no single matrix works;
hence MLA's decoupled part: a few extra rotated dims per head with one shared rotated key.

Rows are vectors (``h @ w_q``), as in :mod:`posenc.rope`.
"""
from __future__ import annotations

import numpy as np

from .context import yarn_attention_factor
from .rope import rope as rotate  # mla_scores has an argument named rope
from .validate import bilingual, check_base, check_matrix


def _positions(n: int) -> np.ndarray:
    return np.arange(n, dtype=float)


def mla_scores(h, c, w_q, w_uk, rope: bool = False, base: float = 10000.0) -> np.ndarray:
    """Scores ``q_m · k_n`` computed the long way: ``q = h W_Q``, ``k = c W_UK`` (the key rebuilt
    from the latent), each rotated by its position (0, 1, …) when ``rope``. ``h`` is
    ``(seq_len, d_model)``, ``c`` the latents ``(seq_len, d_c)``; returns ``(seq_len, seq_len)``.
    """
    h, c = check_matrix("h", h), check_matrix("c", c)
    w_q = check_matrix("w_q", w_q, rows=h.shape[1])
    w_uk = check_matrix("w_uk", w_uk, rows=c.shape[1], cols=w_q.shape[1])
    q, k = h @ w_q, c @ w_uk
    if rope:
        base = check_base(base)
        q, k = rotate(q, _positions(len(q)), base), rotate(k, _positions(len(k)), base)
    return q @ k.T


def mla_absorbed_matrix(w_q, w_uk) -> np.ndarray:
    """The one matrix ``A = W_Q W_UKᵀ`` (``d_model × d_c``) that replaces both projections:
    ``score = h_m A c_nᵀ``. Exact without RoPE; with RoPE the score needs ``W_Q R_{n−m} W_UKᵀ``,
    a different matrix for every offset.
    """
    w_q = check_matrix("w_q", w_q)
    w_uk = check_matrix("w_uk", w_uk, cols=w_q.shape[1])
    return w_q @ w_uk.T


def mla_absorbed_scores(h, c, absorbed) -> np.ndarray:
    """``h A cᵀ``: every score from the latents and one absorbed matrix, no key built.
    """
    h, c = check_matrix("h", h), check_matrix("c", c)
    a = check_matrix("absorbed", absorbed, rows=h.shape[1], cols=c.shape[1])
    return h @ a @ c.T


def mla_decoupled_scores(h, c, w_q, w_uk, w_qr, w_kr, base: float = 10000.0, absorbed: bool = True) -> np.ndarray:
    """MLA's score with decoupled RoPE: ``q_m·k_n`` (no rotation) ``+ rope(h_m W_QR, m)·rope(h_n W_KR, n)``.

    The first part, without RoPE, goes through the absorbed matrix when ``absorbed`` (else the
    long way); the second part is a small rotated query per head (``w_qr``: ``d_model × d_r``)
    against one rotated key per token (``w_kr``, shared by every head, cached next to ``c``).
    Both ways give the same scores.
    """
    h = check_matrix("h", h)
    w_qr = check_matrix("w_qr", w_qr, rows=h.shape[1])
    w_kr = check_matrix("w_kr", w_kr, rows=h.shape[1], cols=w_qr.shape[1])
    if absorbed:
        content = mla_absorbed_scores(h, c, mla_absorbed_matrix(w_q, w_uk))
    else:
        content = mla_scores(h, c, w_q, w_uk)
    base = check_base(base)
    pos = _positions(len(h))
    qr, kr = rotate(h @ w_qr, pos, base), rotate(h @ w_kr, pos, base)
    return content + qr @ kr.T


def mla_cache_per_token(kv_lora_rank: int, qk_rope_head_dim: int) -> int:
    """Numbers MLA caches per token per layer: the latent (``kv_lora_rank``) plus the one shared
    rotated key (``qk_rope_head_dim``). DeepSeek-V3: 512 + 64 = 576.
    """
    return int(kv_lora_rank) + int(qk_rope_head_dim)


def mla_softmax_scale(config: dict) -> float:
    """What an MLA model multiplies its softmax scale ``1/sqrt(qk_nope_head_dim + qk_rope_head_dim)``
    by under YaRN: ``mscale²`` with ``mscale = 0.1·m·ln(factor) + 1`` (1 without scaling). It acts
    on every q·k dimension, the rotated ones and the rest alike, not on cos and sin.

    ``m`` is ``rope_scaling["mscale_all_dim"]`` when the config has it (Hugging Face's
    ``DeepseekV3Attention.__init__``, ``models/deepseek_v3/modular_deepseek_v3.py``: ``self.scaling``
    times ``yarn_get_mscale(factor, mscale_all_dim)`` squared), else ``rope_scaling["mscale"]``
    (DeepSeek's own ``inference/model.py``, ``MLA.__init__``: ``softmax_scale * mscale * mscale``
    with ``mscale = 0.1 * args.mscale * math.log(args.rope_factor) + 1.0``; its cos and sin carry no
    factor). DeepSeek-V3 (factor 40, mscale 1): 1.369² = 1.874.
    """
    if not isinstance(config, dict) or "qk_rope_head_dim" not in config:
        raise ValueError(bilingual("config must be an MLA model's config (it has qk_rope_head_dim)",
                                   "config 必须是 MLA 模型的配置（含 qk_rope_head_dim）"))
    scaling = config.get("rope_scaling") or {}
    if scaling.get("rope_type", scaling.get("type")) != "yarn":
        return 1.0
    m = scaling.get("mscale_all_dim") or scaling.get("mscale") or 0.0
    return yarn_attention_factor(scaling["factor"], m) ** 2 if m else 1.0
