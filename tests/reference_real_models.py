"""Independent references for notebook 10 (RoPE in real models and at inference).

Like ``reference.py``: plain Python loops with the ``math`` module only (``test_model_configs``
checks the imports), each straight from the definition its docstring names, so a mistake in
posenc cannot leak into the expected values.
"""
import math


def inv_freq(d, base):
    """w_i = base^(-2i/d), i = 0 .. d/2 - 1 (RoFormer eq. 15)."""
    return [base ** (-2 * i / d) for i in range(d // 2)]


def llama3_inv_freq(d, base, factor, low_freq_factor, high_freq_factor, original):
    """Llama 3.1's scaled frequencies as meta-llama/llama-models ``apply_scaling`` states them:
    wavelength 2π/w < original/high: keep; > original/low: w/factor; else
    (1 - s)·w/factor + s·w with s = (original/wavelength - low)/(high - low)."""
    out = []
    for w in inv_freq(d, base):
        lam = 2 * math.pi / w
        if lam < original / high_freq_factor:
            out.append(w)
        elif lam > original / low_freq_factor:
            out.append(w / factor)
        else:
            s = (original / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - s) * w / factor + s * w)
    return out


def dynamic_inv_freq(d, base, factor, original, seq_len):
    """Dynamic NTK (the 2023 community post, as Hugging Face's ``dynamic`` type computes it):
    for seq_len > original, base' = base·((factor·seq_len/original) - (factor - 1))^(d/(d-2))."""
    if seq_len > original:
        base = base * ((factor * seq_len / original) - (factor - 1)) ** (d / (d - 2))
    return inv_freq(d, base)


def deepseek_yarn_inv_freq(d, base, factor, original, beta_fast=32, beta_slow=1):
    """YaRN as deepseek-ai/DeepSeek-V3 ``inference/model.py`` precompute_freqs_cis writes it:
    correction dims floor/ceil of d·ln(original/(2π·beta))/(2 ln base), clamped to [0, d-1];
    ramp (i - low)/(high - low) clamped to [0, 1]; smooth = 1 - ramp;
    freq/factor·(1 - smooth) + freq·smooth."""
    def dim_of(rot):
        return d * math.log(original / (rot * 2 * math.pi)) / (2 * math.log(base))
    low = max(math.floor(dim_of(beta_fast)), 0)
    high = min(math.ceil(dim_of(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    out = []
    for i, w in enumerate(inv_freq(d, base)):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        smooth = 1 - ramp
        out.append(w / factor * (1 - smooth) + w * smooth)
    return out


def rotate(row, pos, freqs):
    """One row rotated pair by pair: [x0 cos a - x1 sin a, x0 sin a + x1 cos a], a = pos·w_i."""
    out = []
    for i, w in enumerate(freqs):
        a = pos * w
        x0, x1 = row[2 * i], row[2 * i + 1]
        out += [x0 * math.cos(a) - x1 * math.sin(a), x0 * math.sin(a) + x1 * math.cos(a)]
    return out


def causal_rope_attention(x, w_q, w_k, w_v, base):
    """Causal self-attention with RoPE on q and k (Su et al. 2021), written out: for each
    query t, softmax over keys n <= t of rope(q_t, t)·rope(k_n, n)/sqrt(d), times v_n."""
    def proj(row, w):
        return [sum(row[r] * w[r][c] for r in range(len(row))) for c in range(len(w[0]))]
    d = len(w_q[0])
    freqs = inv_freq(d, base)
    q = [rotate(proj(x[t], w_q), t, freqs) for t in range(len(x))]
    k = [rotate(proj(x[t], w_k), t, freqs) for t in range(len(x))]
    v = [proj(x[t], w_v) for t in range(len(x))]
    out = []
    for t in range(len(x)):
        s = [sum(a * b for a, b in zip(q[t], k[n])) / math.sqrt(d) for n in range(t + 1)]
        top = max(s)
        e = [math.exp(z - top) for z in s]
        total = sum(e)
        out.append([sum(e[n] / total * v[n][c] for n in range(t + 1)) for c in range(len(v[0]))])
    return out


def alibi_step_bias(pos, slopes):
    """ALiBi (Press et al. 2022): bias -s_h·(pos - n) for the query at pos over keys n = 0 .. pos."""
    return [[-s * (pos - n) for n in range(pos + 1)] for s in slopes]


def longrope_inv_freq(d, base, short_factor, long_factor, original, seq_len=None):
    """LongRoPE (Phi-3) as Hugging Face's ``_compute_longrope_parameters`` states it:
    1 / (ext_i · base^(2i/d)) with ext = long_factor when seq_len > original, else short_factor."""
    ext = long_factor if seq_len is not None and seq_len > original else short_factor
    return [1.0 / (ext[i] * base ** (2 * i / d)) for i in range(d // 2)]


def longrope_attention_factor(factor, original):
    """LongRoPE's default attention factor: sqrt(1 + ln(factor) / ln(original)), 1 when factor <= 1."""
    return 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
