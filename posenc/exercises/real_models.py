"""``check_*`` for RoPE as real models use it: how many dims of a head rotate, what Llama 3.1's
scaling does to one wavelength, what MLA caches per token (the notebook's quiz bank is ``quiz.REAL_MODELS``).
"""
from __future__ import annotations

import math

from ..context import llama3_frequencies, yarn_attention_factor
from ..mla import mla_softmax_scale
from ..real_models import MODEL_CONFIGS
from ..validate import check_one_of, check_real
from .rule import grade
from .verdict import Verdict


def llama3_slowdown(wavelength, factor: float = 8.0, low_freq_factor: float = 1.0, high_freq_factor: float = 4.0,
                    train_len: int = 8192) -> float:
    """How many times slower Llama 3.1's scaling makes a pair of the given (original) wavelength:
    1 below ``original / high_freq_factor``, ``factor`` above ``original / low_freq_factor``, and
    ``1 / ((1 − s)/factor + s)`` between, ``s = (original/wavelength − low) / (high − low)``.
    """
    lam = check_real("wavelength", wavelength, greater_than=0.0)
    w = 2 * math.pi / lam
    return float(w / llama3_frequencies([w], factor, low_freq_factor, high_freq_factor, train_len)[0])


def check_llama3_slowdown(answer, wavelength) -> Verdict:
    """Check the slowdown ``w / w'`` Llama 3.1's scaling (factor 8, low 1, high 4, original 8192)
    gives a pair of this wavelength, by the precision rule (3 significant digits).

    Slip table: the full factor 8 where the pair is in the blended band (or short enough to be
    kept), 1 where it is divided, γ and 1 − γ swapped, and blending the slowdowns linearly
    instead of the frequencies.
    """
    lam = check_real("wavelength", wavelength, greater_than=0.0)
    right = llama3_slowdown(lam)
    band = "波长短于 8192/4 = 2048：原样保留" if lam < 2048 else (
        "波长长于 8192：频率整个除以 8" if lam > 8192 else "波长在 2048 和 8192 之间：频率在 w 和 w/8 之间平滑混合")
    s = (8192 / lam - 1) / 3
    slips = [
        (8.0, "这一对没有整个除以 8：只有波长超过 8192 的对才除以 8。"),
        (1.0, "这一对并没有原样保留：只有波长短于 2048 的对才不变。"),
        (1 / (s / 8 + (1 - s)) if 0 < s < 1 else 1.0,
         f"γ 和 1 − γ 放反了：γ = (8192/波长 − 1)/3 = {s:.4g} 是保留原频率 w 的比重，"
         f"新频率 = (1 − γ)·w/8 + γ·w；这是 γ·w/8 + (1 − γ)·w 的结果。"),
        ((1 - s) * 8 + s, "这是把「变慢的倍数」线性混合 (1−γ)·8 + γ·1；Llama 3 混合的是频率 (1−γ)·w/8 + γ·w。"),
    ]
    return grade(answer, right, slips=slips, expected="答案应是一个数（变慢的倍数）。",
                 ok=f"{band}，变慢 {right:.4g} 倍。",
                 wrong=f"{band}；混合系数 γ = (8192/波长 − 1)/(4 − 1)。")


def check_mla_cache(answer, model: str) -> Verdict:
    """Check how many numbers an MLA model caches per token per layer: ``kv_lora_rank +
    qk_rope_head_dim`` (one latent, one rotated key shared by every head).

    Slip table: the latent alone, the latent and the rotated key counted twice (once for K,
    once for V), a rotated key per head, and a plain multi-head K and V cache.
    """
    mla_models = tuple(m for m, c in MODEL_CONFIGS.items() if "kv_lora_rank" in c)
    model = check_one_of("model", model, mla_models)
    cfg = MODEL_CONFIGS[model]
    latent, rope_dim, heads = cfg["kv_lora_rank"], cfg["qk_rope_head_dim"], cfg["num_attention_heads"]
    right = latent + rope_dim
    slips = [
        (latent, "只算了潜向量；旋转的那部分键不能从 c 还原（RoPE 挡在中间），要单独缓存。"),
        (2 * right, f"K 和 V 各算了一份：K 和 V 都从同一个潜向量 c 还原（W_UK、W_UV），c 只缓存一份；"
                    f"旋转的键只属于 K。每个词存 {latent} + {rope_dim}。"),
        (2 * latent + rope_dim, "潜向量算了两份（K 一份、V 一份）：K 和 V 都从同一个 c 还原，c 只缓存一份。"),
        (latent + heads * rope_dim, "旋转的键是所有头共用的一个，不是每个头一个。"),
        (heads * (cfg["head_dim"] + cfg["v_head_dim"]), "这是普通多头注意力缓存 K 和 V 的大小；MLA 只缓存潜向量和一个旋转的键。"),
    ]
    return grade(answer, right, read="int", slips=slips, expected="答案应是一个整数。",
                 ok=f"{latent}（潜向量 c）+ {rope_dim}（所有头共用的一个旋转后的键）= {right}。",
                 wrong="每个词缓存 kv_lora_rank + qk_rope_head_dim 个数。")


def check_softmax_scale(answer, model: str) -> Verdict:
    """Check the factor an MLA model's own code multiplies the softmax scale by under YaRN
    (:func:`mla_softmax_scale`: ``mscale²``, ``mscale = 0.1·m·ln(factor) + 1``), by the precision
    rule (3 significant digits).

    Slip table: mscale itself (the square forgotten: q and κ each carry one factor), the factor on
    cos and sin in a Hugging Face config whose mscale equals mscale_all_dim (1), and the
    reciprocal (a temperature t that divides, instead of the factor that multiplies).
    """
    models = tuple(m for m, c in MODEL_CONFIGS.items() if "qk_rope_head_dim" in c)
    model = check_one_of("model", model, models)
    cfg = MODEL_CONFIGS[model]
    scaling = cfg["rope_scaling"]
    m = scaling.get("mscale_all_dim") or scaling["mscale"]
    mscale = yarn_attention_factor(scaling["factor"], m)
    right = mla_softmax_scale(cfg)
    dims = cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]
    slips = [
        (mscale, f"这是 mscale = 0.1·{m:g}·ln {scaling['factor']:g} + 1 本身；softmax 的缩放乘的是 mscale·mscale（q、κ 各一份），"
                 f"是它的平方。"),
        (1.0, "1 是 Hugging Face 格式的配置里乘在 cos、sin 上的那个比值 mscale / mscale_all_dim；"
              "温度不在那里，而在 softmax 的缩放上。"),
        (1 / right, "这是倒数：温度 t 是除在 logits 上的，这里问的是乘在 softmax 缩放上的倍数 1/t。"),
    ]
    return grade(answer, right, slips=slips, expected="答案应是一个数（倍数）。",
                 ok=f"mscale = 0.1·{m:g}·ln {scaling['factor']:g} + 1 = {mscale:.4g}，softmax 的缩放乘 "
                    f"mscale² = {right:.4g}，作用在全部 {dims} 维的 q·k 上。",
                 wrong="mscale = 0.1·mscale·ln(factor) + 1；softmax 的缩放乘它的平方。")
