"""Stretching RoPE past its training length: position interpolation (PI), NTK-aware base
scaling and YaRN, as the frequencies ``w'_i`` they give each pair, and the per-pair
diagnostics that show why plain RoPE fails there.

The definitions follow the ``rope_scaling`` types open model configs accept (Hugging Face
transformers, ``modeling_rope_utils``): ``"linear"`` (position interpolation, PI), ``"dynamic"`` (dynamic
NTK: the base grows with the current length), ``"yarn"`` and ``"llama3"`` (Llama 3.1's
wavelength rule). ``"ntk"`` is NTK-aware base scaling in its static form (a fixed factor).
Self-Extend and ReRoPE leave the frequencies alone and remap the offsets instead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .attention import causal_mask, softmax
from .encoding import frequencies
from .validate import (
    bilingual,
    check_array,
    check_base,
    check_betas,
    check_d_model,
    check_factor,
    check_int,
    check_one_of,
    check_real,
)

#: The RoPE scaling types notebook 09 compares (the toy model and the explorer use them), by
#: Hugging Face's ``rope_type`` names: no scaling, position interpolation (PI, ``"linear"``),
#: static NTK-aware scaling and YaRN. :func:`rope_frequencies` also computes ``"dynamic"`` (it
#: needs the current length ``seq_len``) and ``"llama3"`` (``low_freq_factor``,
#: ``high_freq_factor``).
ROPE_TYPES = ("default", "linear", "ntk", "yarn")
#: The course's earlier names, accepted everywhere a ``rope_type`` is: ``"none"`` is
#: ``"default"``, ``"pi"`` (position interpolation) is ``"linear"``.
ROPE_TYPE_ALIASES = {"none": "default", "pi": "linear"}
_ALL_TYPES = ROPE_TYPES + ("dynamic", "llama3")
#: YaRN's defaults (the paper's and Hugging Face's): pairs that turn more than 32 times in the
#: original context are left alone, pairs that turn less than once are interpolated.
YARN_BETA_FAST = 32.0
YARN_BETA_SLOW = 1.0


def rotations_per_context(d_model: int, length, base: float = 10000.0) -> np.ndarray:
    """How many full turns each pair makes over ``length`` positions: ``r_i = length · w_i / 2π``.

    Equal to ``length / wavelength_i``. A pair with ``r_i < 1`` never completes a turn inside
    a context of that length. YaRN's ramp is defined on this number (for the original
    context), not on the pair index i.
    """
    d_model = check_d_model(d_model)
    length = check_real("length", length, greater_than=0.0)
    return length * frequencies(d_model, check_base(base)) / (2 * math.pi)


def yarn_correction_range(d_model: int, train_len: int, base: float = 10000.0,
                          beta_fast: float = YARN_BETA_FAST,
                          beta_slow: float = YARN_BETA_SLOW) -> tuple[int, int]:
    """The pair indices ``(low, high)`` between which YaRN's ramp runs.

    The pair that turns exactly ``r`` times in ``train_len`` positions sits at the
    (fractional) index ``d·ln(L / (2π r)) / (2 ln base)``. ``low`` is that index for
    ``r = beta_fast`` rounded down, ``high`` the one for ``r = beta_slow`` rounded up, and
    both are clipped to ``[0, d_model - 1]``: the rounding and the clipping are those of
    Hugging Face's ``find_correction_range`` (its default ``truncate=True``).
    """
    d_model = check_d_model(d_model)
    length = check_int("train_len", train_len, 1)
    base = check_base(base)
    beta_fast, beta_slow = check_betas(beta_fast, beta_slow)

    def index_of(turns: float) -> float:
        return d_model * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(index_of(beta_fast)), 0)
    high = min(math.ceil(index_of(beta_slow)), d_model - 1)
    return low, high


def yarn_ramp(d_model: int, train_len: int, base: float = 10000.0,
              beta_fast: float = YARN_BETA_FAST, beta_slow: float = YARN_BETA_SLOW) -> np.ndarray:
    """YaRN's blend γ per pair, in the paper's direction (the course's, notebook 04's box):
    1 = keep the original frequency, 0 = interpolate (divide by s); ``w' = γ·w + (1 − γ)·w/s``.

    ``1 - clip((i - low) / (high - low), 0, 1)`` with ``(low, high)`` from
    :func:`yarn_correction_range` (when they coincide, ``high`` is nudged by 0.001 as in the
    reference code). Hugging Face's ``_yarn_linear_ramp_mask`` is the clipped ramp itself, the
    opposite direction (1 = interpolate). Pairs turning more than ``beta_fast`` times in the
    original context get 1, pairs turning fewer than ``beta_slow`` times get 0. The ramp is
    linear in the pair index i, i.e. in log r_i, where the paper's is linear in r_i.
    """
    low, high = yarn_correction_range(d_model, train_len, base, beta_fast, beta_slow)
    if low == high:
        high = high + 0.001
    i = np.arange(d_model // 2, dtype=float)
    return 1.0 - np.clip((i - low) / (high - low), 0.0, 1.0)


def yarn_paper_ramp(d_model: int, train_len: int, base: float = 10000.0,
                    beta_fast: float = YARN_BETA_FAST, beta_slow: float = YARN_BETA_SLOW) -> np.ndarray:
    """YaRN's blend γ per pair as the paper writes it (Peng et al. 2023, eq. 18, α = ``beta_slow``,
    β = ``beta_fast``): ``clip((r_i − beta_slow) / (beta_fast − beta_slow), 0, 1)`` with
    ``r_i = L·w_i / 2π``, linear in r_i; 1 = keep, 0 = interpolate, as :func:`yarn_ramp`.
    """
    beta_fast, beta_slow = check_betas(beta_fast, beta_slow)
    r = rotations_per_context(d_model, train_len, base)
    return np.clip((r - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)


def yarn_attention_factor(factor, mscale: float = 1.0) -> float:
    """YaRN's attention factor ``0.1·mscale·ln(s) + 1`` (1 when s <= 1); ``mscale = 1`` is the paper's.

    It multiplies the cos and sin tables, so both the rotated q and κ grow by it and the
    attention logits by its square: that square is the paper's ``1/t`` (softmax temperature).
    DeepSeek's configs give ``mscale`` and ``mscale_all_dim``; the factor on cos and sin is then
    the ratio of the two (Hugging Face's ``_compute_yarn_parameters``).
    Part of :func:`rope_frequencies`' answer (notebook 09_context_extension).
    """
    factor = check_real("factor", factor, greater_than=0.0)
    mscale = check_real("mscale", mscale, greater_than=0.0)
    return 1.0 if factor <= 1.0 else 0.1 * mscale * math.log(factor) + 1.0


# -- the registry: one function per Hugging Face rope_type --------------------------------------
_REQUIRED = object()


def _scaling_key(scaling: dict, key: str, rope_type: str, default=_REQUIRED):
    """``scaling[key]``, or ``default``; a missing required key is refused with its name."""
    value = scaling.get(key) if scaling else None
    if value is None:
        if default is _REQUIRED:
            raise ValueError(bilingual(f"rope_scaling[{key!r}] is missing: rope_type {rope_type!r} needs it",
                                       f"rope_scaling 缺少 {key!r}：rope_type {rope_type!r} 需要它"))
        return default
    return value


def _scaling_factor(scaling: dict, rope_type: str) -> float:
    return check_factor(_scaling_key(scaling, "factor", rope_type), name="rope_scaling['factor']")


def _scaling_length(scaling: dict, rope_type: str) -> int:
    key = "original_max_position_embeddings"
    return check_int(f"rope_scaling[{key!r}]", _scaling_key(scaling, key, rope_type), 1)


def _default(d_model: int, base: float, scaling: dict | None = None, seq_len: int | None = None):
    """``"default"``: ``w_i = base^(-2i/d)`` unchanged, attention factor 1."""
    return frequencies(check_d_model(d_model), check_base(base)), 1.0


def _linear(d_model: int, base: float, scaling: dict, seq_len: int | None = None):
    """``"linear"`` (position interpolation, PI): every ``w_i / s``."""
    w, _ = _default(d_model, base)
    return w / _scaling_factor(scaling, "linear"), 1.0


def _ntk_base(d_model: int, base: float, effective: float) -> np.ndarray:
    """Frequencies with the NTK-aware base ``base · effective^(d/(d-2))`` (static and dynamic)."""
    d_model = check_d_model(d_model)
    if d_model < 4:
        raise ValueError(bilingual("NTK-aware scaling needs d_model >= 4 (the exponent is d/(d-2))",
                                   "NTK-aware 缩放要求 d_model >= 4（指数是 d/(d−2)）"))
    return frequencies(d_model, check_base(base) * effective ** (d_model / (d_model - 2)))


def _ntk(d_model: int, base: float, scaling: dict, seq_len: int | None = None):
    """``"ntk"`` (the course's static NTK-aware; Hugging Face has no such type): a fixed larger base."""
    return _ntk_base(d_model, base, _scaling_factor(scaling, "ntk")), 1.0


def dynamic_ntk_scale(seq_len: int, train_len: int, factor: float | None = None) -> float:
    """The scale ρ dynamic scaling uses at the current length ``seq_len`` (L′) for a model trained
    on ``train_len`` (L); dynamic NTK puts it into NTK-aware's base, ``base · ρ^(d/(d−2))``.

    ``factor=None``: the YaRN paper's definition (Peng et al. 2023, §3.3, "Dynamic Scaling"):
    ``ρ = max(1, L′/L)``. With a ``factor``: the formula Hugging Face's
    ``_compute_dynamic_ntk_parameters`` uses (as does the community code it came from,
    jquesnelle/yarn ``scaled_rope/LlamaDynamicScaledRotaryEmbedding.py``):
    ``factor · L′/L − (factor − 1)`` once L′ > L, else 1, a line through ρ = 1 at L′ = L that
    rises ``factor`` times faster than L′/L.
    """
    seq_len = check_int("seq_len", seq_len, 1)
    train_len = check_int("train_len", train_len, 1)
    ratio = max(seq_len, train_len) / train_len
    if factor is None:
        return ratio
    factor = check_factor(factor)
    return factor * ratio - (factor - 1.0)


def _dynamic(d_model: int, base: float, scaling: dict, seq_len: int | None = None):
    """``"dynamic"`` (dynamic NTK, Hugging Face's formula): the base grows with the current
    length ``seq_len`` (:func:`dynamic_ntk_scale`)."""
    factor = _scaling_factor(scaling, "dynamic")
    original = _scaling_length(scaling, "dynamic")
    length = original if seq_len is None else check_int("seq_len", seq_len, 1)
    return _ntk_base(d_model, base, dynamic_ntk_scale(length, original, factor)), 1.0


def _yarn(d_model: int, base: float, scaling: dict, seq_len: int | None = None):
    """``"yarn"``: the ramp between keeping and interpolating each pair, and the attention factor."""
    factor = _scaling_factor(scaling, "yarn")
    original = _scaling_length(scaling, "yarn")
    beta_fast = _scaling_key(scaling, "beta_fast", "yarn", YARN_BETA_FAST)
    beta_slow = _scaling_key(scaling, "beta_slow", "yarn", YARN_BETA_SLOW)
    w, _ = _default(d_model, base)
    gamma = yarn_ramp(d_model, original, base, beta_fast, beta_slow)
    attention = scaling.get("attention_factor")
    mscale, mscale_all_dim = scaling.get("mscale"), scaling.get("mscale_all_dim")
    if attention is not None:
        attention = check_real("rope_scaling['attention_factor']", attention, greater_than=0.0)
    elif mscale and mscale_all_dim:
        attention = yarn_attention_factor(factor, mscale) / yarn_attention_factor(factor, mscale_all_dim)
    else:
        attention = yarn_attention_factor(factor)
    return w * gamma + (w / factor) * (1.0 - gamma), attention


def _pair_factors(scaling: dict, key: str, pairs: int) -> np.ndarray:
    """LongRoPE's per-pair divisors ``short_factor`` / ``long_factor``: d/2 numbers > 0."""
    values = _scaling_key(scaling, key, "longrope")
    try:
        factors = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        factors = None
    if factors is None or factors.ndim != 1 or len(factors) != pairs:
        got = len(values) if isinstance(values, (list, tuple, np.ndarray)) else type(values).__name__
        raise ValueError(bilingual(f"rope_scaling[{key!r}] must be a list of {pairs} numbers (one per pair, d/2), "
                                   f"got {got}",
                                   f"rope_scaling[{key!r}] 必须是 {pairs} 个数（每一对一个，d/2），收到的是 {got}"))
    if not np.all(np.isfinite(factors)) or np.any(factors <= 0):
        raise ValueError(bilingual(f"rope_scaling[{key!r}] must hold finite numbers > 0",
                                   f"rope_scaling[{key!r}] 里必须都是大于 0 的有限数"))
    return factors


def _longrope(d_model: int, base: float, scaling: dict, seq_len: int | None = None):
    """``"longrope"`` (Phi-3): pair i turns at ``w_i / λ_i``, the divisors λ searched per pair.

    ``short_factor`` up to the training length ``L = original_max_position_embeddings``,
    ``long_factor`` once ``seq_len > L``; attention factor ``sqrt(1 + ln s / ln L)`` (1 when
    s <= 1) unless the config gives ``attention_factor``.
    """
    d_model = check_d_model(d_model)
    original = _scaling_length(scaling, "longrope")
    factor = _scaling_factor(scaling, "longrope")
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, 1)
    short = _pair_factors(scaling, "short_factor", d_model // 2)
    long = _pair_factors(scaling, "long_factor", d_model // 2)
    divisors = long if seq_len is not None and seq_len > original else short
    w, _ = _default(d_model, base)
    attention = scaling.get("attention_factor")
    if attention is not None:
        attention = check_real("rope_scaling['attention_factor']", attention, greater_than=0.0)
    elif factor <= 1.0:
        attention = 1.0
    else:
        attention = math.sqrt(1.0 + math.log(factor) / math.log(original))
    return w / divisors, attention


def llama3_frequencies(inv_freq, factor: float, low_freq_factor: float, high_freq_factor: float,
                       train_len: int) -> np.ndarray:
    """Llama 3.1's rule applied to the frequencies ``inv_freq``, by wavelength ``λ = 2π / w``:
    ``λ < L / high_freq_factor`` unchanged, ``λ > L / low_freq_factor`` divided by ``factor``,
    in between ``(1 − t)·w/factor + t·w`` with ``t = (L/λ − low_freq_factor) / (high_freq_factor −
    low_freq_factor)``, ``L = train_len`` (meta-llama's ``apply_scaling``).
    """
    w = check_array("inv_freq", inv_freq)
    wavelength = 2 * math.pi / w
    t = (train_len / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1.0 - t) * w / factor + t * w
    out = np.where(wavelength > train_len / low_freq_factor, w / factor, blended)
    return np.where(wavelength < train_len / high_freq_factor, w, out)


def _llama3(d_model: int, base: float, scaling: dict, seq_len: int | None = None):
    """``"llama3"`` (Llama 3.1): by wavelength, keep the fast pairs, divide the slow ones by s,
    blend in between."""
    factor = _scaling_factor(scaling, "llama3")
    original = _scaling_length(scaling, "llama3")
    low = check_real("rope_scaling['low_freq_factor']",
                     _scaling_key(scaling, "low_freq_factor", "llama3"), greater_than=0.0)
    high = check_real("rope_scaling['high_freq_factor']",
                      _scaling_key(scaling, "high_freq_factor", "llama3"), greater_than=low)
    return llama3_frequencies(_default(d_model, base)[0], factor, low, high, original), 1.0


#: RoPE scaling by Hugging Face's ``rope_type`` name (``transformers``' ``ROPE_INIT_FUNCTIONS``):
#: each value is ``fn(d_model, base, scaling, seq_len=None) -> (inv_freq, attention_factor)``,
#: ``scaling`` a config's ``rope_scaling`` dict (``factor``, ``original_max_position_embeddings``
#: and the type's own keys), ``seq_len`` the current length (``dynamic`` and ``longrope`` use it).
#: ``"ntk"`` is the course's static NTK-aware scaling, which Hugging Face has no type for.
#: A new type is one function and one entry here.
ROPE_SCALING = {
    "default": _default,
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "longrope": _longrope,
    "llama3": _llama3,
    "ntk": _ntk,
}


def check_rope_type(rope_type, allowed=_ALL_TYPES) -> str:
    """``rope_type`` as a Hugging Face ``rope_type`` name among ``allowed`` (an alias of
    :data:`ROPE_TYPE_ALIASES` becomes its name), or the course's ValueError naming them."""
    if isinstance(rope_type, str):
        rope_type = ROPE_TYPE_ALIASES.get(rope_type.strip(), rope_type.strip())
    return check_one_of("rope_type", rope_type, allowed)


def rope_frequencies(d_model: int, base: float = 10000.0, rope_type: str = "default", factor: float = 1.0,
                     train_len: int | None = None, beta_fast: float = YARN_BETA_FAST,
                     beta_slow: float = YARN_BETA_SLOW, seq_len: int | None = None,
                     low_freq_factor: float = 1.0, high_freq_factor: float = 4.0) -> tuple[np.ndarray, float]:
    """RoPE's per-pair frequencies ``w'_i`` after context-extension scaling, and the attention factor.

    Returns ``(inv_freq, attention_factor)``, ``inv_freq`` of length d_model/2 (pair i turns by
    ``pos · inv_freq[i]``), ``s = factor``:

    * ``"default"`` (alias ``"none"``): ``w_i = base^(-2i/d)`` unchanged (``factor`` is
      ignored); attention factor 1.
    * ``"linear"`` (position interpolation, PI; alias ``"pi"``): ``w_i / s`` for every pair,
      the same as dividing every position by s.
    * ``"ntk"`` (NTK-aware): a larger base ``base' = base · s^(d/(d-2))``; the fastest pair
      (i = 0) keeps its frequency, the slowest (i = d/2 - 1) is divided by exactly s.
      Needs d_model >= 4.
    * ``"yarn"``: per pair, a blend ``γ_i · w_i + (1 - γ_i) · w_i / s`` with γ from
      :func:`yarn_ramp` (defined on the pair's turns in ``train_len`` positions, the
      context the model was trained on; required), and attention factor ``0.1·ln(s) + 1``.
    * ``"dynamic"`` (dynamic NTK): with ``L = train_len``
      (required) and the current length ``L' = max(seq_len, L)`` (``seq_len=None`` means L),
      the base ``base · ((s·L'/L) - (s - 1))^(d/(d-2))``: nothing changes up to L, and at
      ``L' = 2L`` with s = 4 the effective factor is 5, not 2. Needs d_model >= 4.
    * ``"llama3"`` (Llama 3.1): by wavelength ``λ_i = 2π / w_i``
      against ``L = train_len`` (required): ``λ_i < L / high_freq_factor`` unchanged,
      ``λ_i > L / low_freq_factor`` divided by s, in between ``(1 - t)·w_i/s + t·w_i`` with
      ``t = (L/λ_i - low_freq_factor) / (high_freq_factor - low_freq_factor)``.

    Each type is the :data:`ROPE_SCALING` function of that name; a model's ``config.json`` goes through
    :func:`~posenc.real_models.rope_frequencies_from_config` instead.
    The attention factor multiplies cos and sin (so q and κ), as in the reference code.
    ``factor`` is s = L' / L, the target length over the training length: below 1 (a target
    shorter than training) there is nothing to extend, and it is refused with that message
    (so is ``OrderModel.set_rope_scaling``'s, which comes here).
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    rope_type = check_rope_type(rope_type)
    factor = check_factor(factor)
    beta_fast, beta_slow = check_betas(beta_fast, beta_slow)
    if train_len is not None:
        train_len = check_int("train_len", train_len, 1)
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, 1)
    low_freq_factor = check_real("low_freq_factor", low_freq_factor, greater_than=0.0)
    high_freq_factor = check_real("high_freq_factor", high_freq_factor, greater_than=low_freq_factor)
    if rope_type in ("yarn", "dynamic", "llama3") and train_len is None:
        raise ValueError(bilingual(f"rope_type={rope_type!r} needs train_len (the training context length)",
                                   f"rope_type={rope_type!r} 需要 train_len（训练时的上下文长度）"))
    scaling = {"factor": factor, "original_max_position_embeddings": train_len,
               "beta_fast": beta_fast, "beta_slow": beta_slow,
               "low_freq_factor": low_freq_factor, "high_freq_factor": high_freq_factor}
    return ROPE_SCALING[rope_type](d_model, base, scaling, seq_len)


@dataclass
class AngleCoverage:
    """Per pair i, the largest rotation ``|k|·w_i`` RoPE produces in training and at the target.

    Arrays of length d_model/2: ``wavelength`` (original, 2π/w_i), ``rotations`` (turns in the
    training length, :func:`rotations_per_context`), ``train_angle`` = (L - 1)·w_i (the largest
    offset in training is L - 1), ``target_angle`` = (L' - 1)·w'_i with the scaled frequencies,
    ``slowdown`` = w_i / w'_i (1 = untouched, s = fully interpolated), ``full_turn`` (True where
    training already covered every angle, ``train_angle >= 2π``), ``unseen`` (True where the
    target turns the pair more than a whole position step past anything in training,
    ``target_angle > L·w_i``, and training did not cover a full turn: PI with L' = s·L stays
    inside, its largest angle (sL - 1)·w_i / s is below L·w_i). ``attention_factor`` as in
    :func:`rope_frequencies`.
    """

    wavelength: np.ndarray
    rotations: np.ndarray
    train_angle: np.ndarray
    target_angle: np.ndarray
    slowdown: np.ndarray
    full_turn: np.ndarray
    unseen: np.ndarray
    attention_factor: float


def rope_angle_coverage(d_model: int, train_len: int, target_len: int, base: float = 10000.0,
                        rope_type: str = "default", factor: float = 1.0, beta_fast: float = YARN_BETA_FAST,
                        beta_slow: float = YARN_BETA_SLOW) -> AngleCoverage:
    """Which angles each pair saw in training (length ``train_len``) and which it meets at ``target_len``.

    Training uses the original frequencies; the target uses :func:`rope_frequencies` with
    ``rope_type``, ``factor`` and ``train_len``. A pair whose wavelength
    exceeds the training length never completes a turn in training; past that length plain
    RoPE turns it further than it ever turned, and those angles are ``unseen``. A
    ``target_len`` at or below ``train_len`` needs no extension: every angle was seen in
    training and ``unseen`` is all False (scaling then only slows pairs that did not need it).
    """
    d_model = check_d_model(d_model)
    train_len = check_int("train_len", train_len, 2)
    target_len = check_int("target_len", target_len, 2)
    base = check_base(base)
    w = frequencies(d_model, base)
    scaled, att = rope_frequencies(d_model, base, rope_type, factor, train_len, beta_fast, beta_slow)
    train_angle = (train_len - 1) * w
    target_angle = (target_len - 1) * scaled
    full_turn = train_angle >= 2 * math.pi
    unseen = ~full_turn & (target_angle > train_len * w * (1 + 1e-12))
    return AngleCoverage(wavelength=2 * math.pi / w, rotations=train_len * w / (2 * math.pi),
                         train_angle=train_angle, target_angle=target_angle, slowdown=w / scaled,
                         full_turn=full_turn, unseen=unseen, attention_factor=att)


def rope_scaled_score(d_model: int, offsets, base: float = 10000.0, rope_type: str = "default",
                      factor: float = 1.0, train_len: int | None = None,
                      beta_fast: float = YARN_BETA_FAST, beta_slow: float = YARN_BETA_SLOW,
                      with_attention_factor: bool = False) -> np.ndarray:
    """The score of a query with a key equal to it, against the offset k, after scaling.

    With q = κ and every pair of the same length (normalised to 1 per pair), the RoPE score is
    ``mean_i cos(k·w'_i)`` (notebook 04's curve for ``w' = w``). ``with_attention_factor``
    multiplies it by ``attention_factor²`` (YaRN scales both q and κ by the factor).
    Drawn by :func:`plot_rope_scaling` and ``ContextExplorer`` (notebook 09_context_extension).
    """
    scaled, att = rope_frequencies(d_model, base, rope_type, factor, train_len, beta_fast, beta_slow)
    ks = check_array("offsets", offsets)
    curve = np.cos(np.multiply.outer(ks, scaled)).mean(axis=-1)
    return att ** 2 * curve if with_attention_factor else curve


# -- entropy-invariant scaling, the β-base reading ----------------------------------------------
def softmax_entropy(logits) -> np.ndarray:
    """Entropy ``−Σ p log p`` (nats) of ``softmax(logits)`` along the last axis.

    ``log n`` for uniform weights over n keys, 0 for all weight on one key.
    """
    p = softmax(check_array("logits", logits))
    return -(p * np.log(p, out=np.zeros_like(p), where=p > 0)).sum(axis=-1)     # 0 · log 0 = 0


def entropy_invariant_scale(seq_len, train_len) -> np.ndarray:
    """The logit multiplier ``log(seq_len) / log(train_len)`` of entropy-invariant attention.

    苏剑林's 「从熵不变性看 Attention 的 Scale 操作」 (kexue.fm/archives/8823):
    ``H ≈ log n − λ(s_max − s̄)`` for a softmax over n keys with logits λ·s, so keeping H from
    growing with n asks for λ ∝ log n; relative to training length L, multiply the logits by
    ``log n / log L`` (1 at n = L).
    """
    n = check_array("seq_len", seq_len)
    train_len = check_real("train_len", train_len, greater_than=1.0)
    if np.any(n <= 1):
        raise ValueError(bilingual("seq_len must be > 1", "seq_len 必须大于 1"))
    return np.log(n) / math.log(train_len)


def beta_digits(n: int, beta: float, num_digits: int) -> np.ndarray:
    """The digits of ``n`` in base ``beta``: ``floor(n / beta^i) mod beta``, i = 0 … num_digits − 1.

    苏剑林's reading of RoPE (「Transformer 升级之路：10、RoPE 是一种 β 进制编码」,
    kexue.fm/archives/9675): pair i turns by ``n / β^i`` with ``β = base^(2/d)``, the same
    quantity whose ``floor(·) mod β`` is digit i; cos and sin of it are a smooth digit.
    """
    n = check_int("n", n, 0)
    beta = check_real("beta", beta, greater_than=1.0)
    num_digits = check_int("num_digits", num_digits, 1, 4096)
    return np.mod(np.floor(n / beta ** np.arange(num_digits)), beta)


# ---------------------------------------------------------------------------
# Extending without training: relative offsets remapped (Self-Extend, ReRoPE)
# ---------------------------------------------------------------------------
def _causal_distances(seq_len: int) -> np.ndarray:
    pos = np.arange(seq_len)
    return np.where(causal_mask(seq_len), pos[:, None] - pos[None, :], np.nan)   # query m, key n: m - n


def self_extend_offsets(seq_len: int, group_size: int, window: int) -> np.ndarray:
    """The distance m − n (= −k) Self-Extend rotates query m and key n <= m by, shape
    (seq_len, seq_len), NaN above the diagonal (a causal model never looks there).

    Jin et al. 2024, "LLM Maybe LongLM: Self-Extend LLM Context Window Without Tuning"
    (arXiv 2401.01325), as datamllab/LongLM ``self_extend_patch/Llama.py`` computes it for a
    prompt (``q_len == kv_seq_len``): neighbours (``m - n < window``) keep the plain distance
    ``m - n``; farther keys use grouped positions, query ``m // G + W - W / G`` and key
    ``n // G`` (``group_size`` G = ``group_size_1``, ``window`` W = ``group_size_2``; the shift
    ``W - W / G`` is applied once the longest position reaches W), so their distance is
    ``m // G - n // G + W - W / G``. The largest distance stays near ``W + (seq_len - W) / G``.
    """
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    group_size = check_int("group_size", group_size, 1)
    window = check_int("window", window, 1)
    dist = _causal_distances(seq_len)
    pos = np.arange(seq_len)
    shift = 0.0 if seq_len - 1 < window else window - window / group_size
    grouped = (pos[:, None] // group_size - pos[None, :] // group_size) + shift
    return np.where(dist < window, dist, np.where(np.isnan(dist), np.nan, grouped))


def rerope_offsets(seq_len: int, window: int, leaky_factor: float | None = None) -> np.ndarray:
    """The distance m − n (= −k) ReRoPE rotates query m and key n <= m by, shape
    (seq_len, seq_len), NaN above the diagonal.

    苏剑林's ReRoPE (bojone/rerope ``rerope_patch.py``; kexue.fm/archives/9708): distances below
    the window W are kept, every larger one is clipped to W (the query is rotated by W, the key
    not at all). With ``leaky_factor`` η (``leaky_rerope_patch.py``, ``scaling_factor``) the far
    distances grow again, η times slower: ``W + (m - n - W) / η``, position interpolation
    beyond the window.
    """
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    window = check_int("window", window, 1)
    dist = _causal_distances(seq_len)
    if leaky_factor is None:
        far = np.full_like(dist, float(window))
    else:
        leaky_factor = check_real("leaky_factor", leaky_factor, greater_than=1.0)
        far = window + (dist - window) / leaky_factor
    return np.where(dist < window, dist, np.where(np.isnan(dist), np.nan, far))
