"""Independent references the tests compare posenc against.

Each function is a definition written out as plain Python loops with the ``math`` module
(``cmath`` where the definition uses complex numbers), straight from the formula or paper its
docstring names. Nothing here imports posenc, posenc_lib or numpy (pyproject.toml's ruff rules for this file),
so a mistake in the code under test cannot leak into its expected values. Results are plain
lists; ``np.testing`` compares them with arrays directly.

Conventions (the course's): ``PE[pos, 2i] = sin(pos / base^(2i/d_model))``,
``PE[pos, 2i+1] = cos(pos / base^(2i/d_model))``, positions start at 0.
"""
import cmath
import math


# ---------------------------------------------------------------------------
# Linear algebra on lists
# ---------------------------------------------------------------------------
def dot(a, b):
    """The dot product sum_c a_c b_c."""
    return sum(x * y for x, y in zip(a, b))


def matvec(row, w):
    """``row`` (length n) times the matrix ``w`` (n x m, rows indexable): sum_r row_r w[r][c]."""
    return [sum(row[r] * w[r][c] for r in range(len(row))) for c in range(len(w[0]))]


def cosine(a, b):
    """Cosine similarity a.b / (|a| |b|)."""
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot(a, b) / (na * nb)


# ---------------------------------------------------------------------------
# The sinusoidal encoding (Vaswani et al. 2017, "Attention Is All You Need", section 3.5)
# ---------------------------------------------------------------------------
def frequencies(d_model, base=10000.0):
    """w_i = base^(-2i/d_model), i = 0 .. d_model/2 - 1: the angle pair i turns per position
    (Vaswani et al. 2017, section 3.5; RoFormer's theta_i, eq. 15, is the same)."""
    return [math.pow(base, -2 * i / d_model) for i in range(d_model // 2)]


def pe_row(pos, d_model, base=10000.0):
    """PE(pos), one number at a time: sin(pos / base^(2i/d_model)) in column 2i and cos in
    column 2i+1 (Vaswani et al. 2017, section 3.5)."""
    row = []
    for col in range(d_model):
        angle = pos / math.pow(base, 2 * (col // 2) / d_model)
        row.append(math.sin(angle) if col % 2 == 0 else math.cos(angle))
    return row


def pe_table(seq_len, d_model, base=10000.0, start=0):
    """Rows PE(start) .. PE(start + seq_len - 1) of the paper's table (section 3.5)."""
    return [pe_row(start + r, d_model, base) for r in range(seq_len)]


def pe_distance(p, q, d_model, base=10000.0):
    """Euclidean distance |PE(p) - PE(q)| between two rows of the table."""
    a, b = pe_row(p, d_model, base), pe_row(q, d_model, base)
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def pe_dot_by_offset(k, d_model, base=10000.0):
    """PE(pos) . PE(pos + k) = sum_i cos(k / base^(2i/d_model)): sin a sin b + cos a cos b =
    cos(a - b) for each pair, so the position cancels (Vaswani et al. 2017, section 3.5's
    "relative positions" remark, worked out)."""
    return sum(math.cos(k / math.pow(base, 2 * i / d_model)) for i in range(d_model // 2))


def pe_cosine_by_offset(k, d_model, base=10000.0):
    """cos(PE(pos), PE(pos + k)) = mean_i cos(k / base^(2i/d_model)), since every row has
    |PE|^2 = d_model / 2 (sin^2 + cos^2 = 1 per pair)."""
    return pe_dot_by_offset(k, d_model, base) / (d_model // 2)


def rotate_pairs(row, k, d_model, base=10000.0):
    """Turn each (sin, cos) pair of ``row`` by phi_i = k / base^(2i/d_model) with the
    angle-addition formulas sin(a + phi) = sin a cos phi + cos a sin phi and
    cos(a + phi) = cos a cos phi - sin a sin phi: PE(pos) becomes PE(pos + k)."""
    out = []
    for i in range(d_model // 2):
        phi = k / math.pow(base, 2 * i / d_model)
        s, c = row[2 * i], row[2 * i + 1]
        out += [s * math.cos(phi) + c * math.sin(phi), c * math.cos(phi) - s * math.sin(phi)]
    return out


def flipped_bits(pos):
    """Bits (0 = least significant) that change between pos - 1 and pos, from Python's ``bin``."""
    a, b = bin(pos - 1)[2:].zfill(64)[::-1], bin(pos)[2:].zfill(64)[::-1]
    return [k for k in range(64) if a[k] != b[k]]


# ---------------------------------------------------------------------------
# Attention (Vaswani et al. 2017, section 3.2.1: softmax(Q K^T / sqrt(d_k)) V)
# ---------------------------------------------------------------------------
def softmax(row):
    """exp(v - max) / sum exp(v - max); entries equal to -inf get weight 0 (a mask)."""
    top = max(v for v in row if v != -math.inf)
    e = [0.0 if v == -math.inf else math.exp(v - top) for v in row]
    return [v / sum(e) for v in e]


def self_attention(x, w_q, w_k, w_v):
    """Scaled dot-product self-attention of the rows of ``x``, one score at a time
    (Vaswani et al. 2017, eq. 1). Returns (outputs, weights) as lists of rows."""
    q = [matvec(r, w_q) for r in x]
    k = [matvec(r, w_k) for r in x]
    v = [matvec(r, w_v) for r in x]
    n, d_k = len(q), len(q[0])
    weights, out = [], []
    for a in range(n):
        scores = [sum(q[a][c] * k[b][c] for c in range(d_k)) / math.sqrt(d_k) for b in range(n)]
        w = softmax(scores)
        weights.append(w)
        out.append([sum(w[b] * v[b][c] for b in range(n)) for c in range(len(v[0]))])
    return out, weights


# ---------------------------------------------------------------------------
# Similarity tables and least squares
# ---------------------------------------------------------------------------
def diagonal_means(s):
    """For each offset k >= 0, the mean of s[p][p + k] over every p where it exists."""
    n = len(s)
    return [sum(s[p][p + k] for p in range(n - k)) / (n - k) for k in range(n)]


def r_squared(x, y, slope, intercept):
    """Coefficient of determination 1 - SS_res / SS_tot of the line slope * x + intercept."""
    mean = sum(y) / len(y)
    ss_res = sum((yi - (slope * xi + intercept)) ** 2 for xi, yi in zip(x, y))
    ss_tot = sum((yi - mean) ** 2 for yi in y)
    return 1 - ss_res / ss_tot


def ridge_line(x, y, lam):
    """Ridge regression with one feature and an unpenalised intercept, closed form:
    slope = sum(xc yc) / (sum(xc^2) + lam) on centred data, intercept = mean(y) - slope mean(x)."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    xc, yc = [v - mx for v in x], [v - my for v in y]
    slope = sum(a * b for a, b in zip(xc, yc)) / (sum(a * a for a in xc) + lam)
    return slope, my - slope * mx


# ---------------------------------------------------------------------------
# RoPE (Su et al. 2021, "RoFormer", section 3.2; Meta's LLaMA ``apply_rotary_emb``)
# ---------------------------------------------------------------------------
def rope_vector(x, pos, base=10000.0, freqs=None):
    """RoPE of one vector: pair i as the complex number x_2i + i x_2i+1, times e^{i pos theta_i}
    (RoFormer section 3.2.2; LLaMA multiplies by ``torch.polar``); theta_i = base^(-2i/d), or
    ``freqs[i]`` when given (scaled frequencies turn the pairs the same way)."""
    out = []
    for i, w in enumerate(frequencies(len(x), base) if freqs is None else freqs):
        z = complex(x[2 * i], x[2 * i + 1]) * complex(math.cos(pos * w), math.sin(pos * w))
        out += [z.real, z.imag]
    return out


def rope_score(q, k, offset, base=10000.0):
    """RoPE(q, m) . RoPE(k, n) with n - m = offset, in closed form:
    Re(sum_i conj(q_i) k_i e^{i offset theta_i}) with pairs as complex numbers (RoFormer eq. 16)."""
    ref = 0.0
    for i, w in enumerate(frequencies(len(q), base)):
        zq, zk = complex(q[2 * i], q[2 * i + 1]), complex(k[2 * i], k[2 * i + 1])
        ref += (zq.conjugate() * zk * complex(math.cos(offset * w), math.sin(offset * w))).real
    return ref


def content_position_scores(x_q, x_k, w_q, w_k, kind, seq_len, k_max, start):
    """Score of a query token at pos = start + r against a key token at pos + t, for
    t = -k_max .. k_max: ``additive`` projects word + PE(pos) (Vaswani et al. 2017);
    ``rope`` projects the word, then rotates by its position (RoFormer)."""
    out = []
    for r in range(seq_len):
        p = start + r
        row = []
        for t in range(-k_max, k_max + 1):
            if kind == "additive":
                qv = matvec([a + b for a, b in zip(x_q, pe_row(p, len(x_q)))], w_q)
                kv = matvec([a + b for a, b in zip(x_k, pe_row(p + t, len(x_k)))], w_k)
            else:
                qv = rope_vector(matvec(x_q, w_q), p)
                kv = rope_vector(matvec(x_k, w_k), p + t)
            row.append(dot(qv, kv))
        out.append(row)
    return out


# ---------------------------------------------------------------------------
# ALiBi (Press et al. 2022, "Train Short, Test Long", section 3)
# ---------------------------------------------------------------------------
def alibi_reference_slopes(n):
    """The ALiBi authors' ``get_slopes`` (ofirpress/attention_with_linear_biases, fairseq
    transformer.py), rewritten: for n a power of 2, start = ratio = 2^(-8/n) (Press et al. 2022,
    section 3: s_h = 2^(-8h/n)); otherwise the closest lower power of 2's slopes, then every
    other slope of twice that power."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_reference_slopes(2 * closest)[0::2][:n - closest]


def alibi_slope(h, num_heads):
    """s_h for head h = 1 .. H by the authors' recipe (:func:`alibi_reference_slopes`)."""
    return alibi_reference_slopes(num_heads)[h - 1]


def alibi_bias(seq_len, num_heads, causal=False):
    """bias[h][m][n] = -s_(h+1) |n - m|; with ``causal``, -inf above the diagonal (n > m)."""
    return [[[-math.inf if causal and j > i else -alibi_slope(h, num_heads) * abs(i - j)
              for j in range(seq_len)] for i in range(seq_len)] for h in range(1, num_heads + 1)]



def alibi_reach(seq_len, num_heads, train_len, causal=True, query=None):
    """Per head h = 1 .. H, one query row of the bias alone: (sum of |n - m| * weight, sum of the
    weights on keys with |n - m| >= train_len), the weights a hand softmax of -s_h |n - m|."""
    m = seq_len - 1 if query is None else query
    means, shares = [], []
    for h in range(1, num_heads + 1):
        keys = [n for n in range(seq_len) if not (causal and n > m)]
        weights = softmax([-alibi_slope(h, num_heads) * abs(n - m) for n in keys])
        means.append(sum(abs(n - m) * w for n, w in zip(keys, weights)))
        shares.append(sum(w for n, w in zip(keys, weights) if abs(n - m) >= train_len))
    return means, shares

def alibi_needle_weight(seq_len, num_heads, distance, margin):
    """Per head h = 1 .. H, the causal row of the last query: logits -s_h j for the key j
    positions back (j = 0 .. seq_len - 1), plus ``margin`` for the key at ``distance``; the
    hand softmax's weight on that key."""
    out = []
    for h in range(1, num_heads + 1):
        logits = [-alibi_slope(h, num_heads) * j + (margin if j == distance else 0.0) for j in range(seq_len)]
        out.append(softmax(logits)[distance])
    return out

# ---------------------------------------------------------------------------
# RoPE as real models use it (RoFormer §3.4.3, the split-halves layout, partial rotary)
# ---------------------------------------------------------------------------
def rope_partial_sum(offset, j, d_model, base=10000.0):
    """S_j = sum_{i<j} e^{i offset theta_i}, theta_i = base^(-2i/d) (RoFormer section 3.4.3;
    S_0 = 0), one term at a time."""
    total = 0j
    for i in range(j):
        total += cmath.exp(1j * offset * math.pow(base, -2 * i / d_model))
    return total


def rope_abel_bound(q, k, offset, base=10000.0):
    """RoFormer's bound (section 3.4.3): with h_i = q_i conj(k_i) (pairs as complex numbers) and
    h_{d/2} = 0, |score| <= max_i |h_{i+1} - h_i| * sum_{j=1}^{d/2} |S_j|."""
    d = len(q)
    h = [complex(q[2 * i], q[2 * i + 1]) * complex(k[2 * i], k[2 * i + 1]).conjugate() for i in range(d // 2)]
    h.append(0j)
    step = max(abs(h[i + 1] - h[i]) for i in range(d // 2))
    return step * sum(abs(rope_partial_sum(offset, j, d, base)) for j in range(1, d // 2 + 1))


def rope_vector_half(x, pos, base=10000.0):
    """RoPE in the split-halves layout (GPT-NeoX, Hugging Face Llama's rotate_half): dims j and
    j + d/2 form pair j and turn counter-clockwise by pos * base^(-2j/d)."""
    d = len(x)
    out = list(x)
    for j in range(d // 2):
        a = pos * math.pow(base, -2 * j / d)
        x1, x2 = x[j], x[j + d // 2]
        out[j] = x1 * math.cos(a) - x2 * math.sin(a)
        out[j + d // 2] = x1 * math.sin(a) + x2 * math.cos(a)
    return out


def llama_permuted_row(r, head_dim):
    """The interleaved row that Hugging Face's Llama conversion puts at row r of a head:
    view (head_dim/2, 2) then transpose, so row c * head_dim/2 + j holds old row 2j + c."""
    c, j = divmod(r, head_dim // 2)
    return 2 * j + c


def rope_attention(q, k, v, positions, rotate_values=False, rotate_back=False, base=10000.0):
    """Attention outputs with RoPE on q and k, one query at a time:
    out_m = sum_n softmax_n(rope(q_m, p_m) . rope(k_n, p_n) / sqrt(d)) v'_n, v'_n = v_n or
    rope(v_n, p_n); with rotate_back, out_m is turned by -p_m at the end."""
    d = len(q[0])
    outs = []
    for m, pm in enumerate(positions):
        qm = rope_vector(q[m], pm, base)
        scores = [dot(qm, rope_vector(k[n], pn, base)) / math.sqrt(d) for n, pn in enumerate(positions)]
        weights = softmax(scores)
        out = [0.0] * d
        for n, pn in enumerate(positions):
            vn = rope_vector(v[n], pn, base) if rotate_values else v[n]
            out = [o + weights[n] * x for o, x in zip(out, vn)]
        outs.append(rope_vector(out, -pm, base) if rotate_back else out)
    return outs


def entropy(probabilities):
    """Shannon entropy -sum p log p in nats (terms with p = 0 count 0)."""
    return -sum(p * math.log(p) for p in probabilities if p > 0)


# ---------------------------------------------------------------------------
# RoPE scaling (notebook 09) and RoPE in real models (notebook 10), after Hugging Face
# transformers' ``src/transformers/modeling_rope_utils.py`` and the model authors' own code
# ---------------------------------------------------------------------------
def linear_inv_freq(d, base, factor):
    """``_compute_linear_scaling_rope_parameters``: every w_i / factor (position interpolation)."""
    return [w / factor for w in frequencies(d, base)]


def ntk_inv_freq(d, base, factor):
    """Static NTK-aware scaling (the 2023 community post): base' = base · factor^(d/(d-2))."""
    return frequencies(d, base * factor ** (d / (d - 2)))


def dynamic_inv_freq(d, base, factor, original, seq_len):
    """``_compute_dynamic_ntk_parameters``: L' = max(seq_len, original),
    base' = base·((factor·L'/original) - (factor - 1))^(d/(d-2))."""
    length = max(seq_len, original)
    return frequencies(d, base * ((factor * length / original) - (factor - 1)) ** (d / (d - 2)))


def yarn_inv_freq(d, base, factor, original, beta_fast=32.0, beta_slow=1.0):
    """YaRN (``_compute_yarn_parameters`` with truncate=True; deepseek-ai/DeepSeek-V3
    ``inference/model.py`` precompute_freqs_cis writes the same): correction dims
    floor/ceil of d·ln(original/(2π·beta))/(2 ln base), clamped to [0, d-1] (high += 0.001 when
    equal); ramp_j = clamp((j - low)/(high - low), 0, 1); w_j/factor·ramp_j + w_j·(1 - ramp_j)."""
    def dim_of(rot):
        return d * math.log(original / (rot * 2 * math.pi)) / (2 * math.log(base))
    low = max(math.floor(dim_of(beta_fast)), 0)
    high = min(math.ceil(dim_of(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    out = []
    for j in range(d // 2):
        w = 1.0 / base ** (2 * j / d)
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        out.append(w / factor * ramp + w * (1 - ramp))
    return out


def yarn_attention_factor(factor, mscale=1.0):
    """YaRN's ``get_mscale``: 0.1·mscale·ln(factor) + 1, 1 when factor <= 1."""
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def llama3_inv_freq(d, base, factor, low_freq_factor, high_freq_factor, original):
    """Llama 3.1's scaled frequencies as meta-llama/llama-models ``apply_scaling`` states them:
    wavelength 2π/w < original/high: keep; > original/low: w/factor; else
    (1 - s)·w/factor + s·w with s = (original/wavelength - low)/(high - low)."""
    out = []
    for w in frequencies(d, base):
        lam = 2 * math.pi / w
        if lam < original / high_freq_factor:
            out.append(w)
        elif lam > original / low_freq_factor:
            out.append(w / factor)
        else:
            s = (original / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - s) * w / factor + s * w)
    return out


def longrope_inv_freq(d, base, short_factor, long_factor, original, seq_len=None):
    """LongRoPE (Phi-3) as ``_compute_longrope_parameters`` states it:
    1 / (ext_i · base^(2i/d)) with ext = long_factor when seq_len > original, else short_factor."""
    ext = long_factor if seq_len is not None and seq_len > original else short_factor
    return [1.0 / (ext[i] * base ** (2 * i / d)) for i in range(d // 2)]


def longrope_attention_factor(factor, original):
    """LongRoPE's default attention factor: sqrt(1 + ln(factor) / ln(original)), 1 when factor <= 1."""
    return 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))


def causal_rope_attention(x, w_q, w_k, w_v, base):
    """Causal self-attention with RoPE on q and k (Su et al. 2021), written out: for each
    query t, softmax over keys n <= t of rope(q_t, t)·rope(k_n, n)/sqrt(d), times v_n."""
    d = len(w_q[0])
    q = [rope_vector(matvec(x[t], w_q), t, base) for t in range(len(x))]
    k = [rope_vector(matvec(x[t], w_k), t, base) for t in range(len(x))]
    v = [matvec(x[t], w_v) for t in range(len(x))]
    out = []
    for t in range(len(x)):
        weights = softmax([dot(q[t], k[n]) / math.sqrt(d) for n in range(t + 1)])
        out.append([sum(weights[n] * v[n][c] for n in range(t + 1)) for c in range(len(v[0]))])
    return out


def alibi_step_bias(pos, num_heads):
    """ALiBi (Press et al. 2022) at one decoding step: bias -s_h·(pos - n) for the query at pos
    over keys n = 0 .. pos, s_h by the authors' recipe (:func:`alibi_slope`)."""
    return [[-alibi_slope(h, num_heads) * (pos - n) for n in range(pos + 1)] for h in range(1, num_heads + 1)]


# Positions in practice: documented behaviour of public code, as plain loops
# ---------------------------------------------------------------------------
def hf_position_ids(mask_row):
    """Hugging Face generation (``prepare_inputs_for_generation``): a running count of real
    tokens minus 1, and the dummy id 1 wherever the mask is 0."""
    out, count = [], 0
    for m in mask_row:
        count += m
        out.append(count - 1 if m == 1 else 1)
    return out


def packed_positions(lengths):
    """Each document counts from 0 on its own."""
    out = []
    for n in lengths:
        for p in range(n):
            out.append(p)
    return out


def cumulative_lengths(lengths):
    """flash-attn's cu_seqlens: 0, then the running total of the lengths."""
    out, total = [0], 0
    for n in lengths:
        total += n
        out.append(total)
    return out


def block_causal_visible(lengths, m, n):
    """May query m see key n in a packed row? Same document and n <= m."""
    starts = cumulative_lengths(lengths)
    doc = lambda r: max(j for j in range(len(lengths)) if starts[j] <= r)
    return doc(m) == doc(n) and n <= m


def sink_softmax(scores, sink):
    """gpt-oss: exp(s_n) / (sum_j exp(s_j) + exp(sink)) for each n."""
    denom = sum(math.exp(s) for s in scores) + math.exp(sink)
    return [math.exp(s) / denom for s in scores]


def xpos_factor(i, head_dim, pos, scale_base=512.0):
    """torchscale's xPos scale of pair i: ((2i + 0.4 d) / (1.4 d)) ** (pos / scale_base)."""
    return ((2 * i + 0.4 * head_dim) / (1.4 * head_dim)) ** (pos / scale_base)


def llama4_scale(pos, floor_scale=8192, attn_scale=0.1):
    """Llama 4's NoPE-layer query scale: log(floor((pos + 1) / floor_scale) + 1) * attn_scale + 1."""
    return math.log(math.floor((pos + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0


def interleaved_axes(section):
    """Qwen3-VL's apply_interleaved_mrope, one pair at a time: t by default; pair j follows h
    when j % 3 == 1 and j < 3 * section[1], w when j % 3 == 2 and j < 3 * section[2]."""
    out = []
    for j in range(sum(section)):
        if j % 3 == 1 and j < 3 * section[1]:
            out.append(1)
        elif j % 3 == 2 and j < 3 * section[2]:
            out.append(2)
        else:
            out.append(0)
    return out


# ---------------------------------------------------------------------------
# Shorter and sharper (round 5): GQA, tree decoding, flash-attn's ALiBi, local/global layers,
# Self-Extend / ReRoPE, a ViT table at a new resolution, randomized / Abacus ids, CoPE
# ---------------------------------------------------------------------------
def gqa_attention(q, k, v, base=10000.0):
    """Causal grouped-query attention with RoPE, head by head (Ainslie et al. 2023, GQA): query
    head h uses KV head h // (heads / kv_heads), the keys of a KV head rotated by their positions
    (RoFormer), softmax(q·k/sqrt(d)) over keys n <= t, times v. Lists: q[h][t][c]."""
    heads, kv_heads = len(q), len(k)
    group = heads // kv_heads
    out = []
    for h in range(heads):
        g = h // group
        d = len(q[h][0])
        rows = []
        for t in range(len(q[h])):
            qt = rope_vector(q[h][t], t, base)
            weights = softmax([dot(qt, rope_vector(k[g][n], n, base)) / math.sqrt(d) for n in range(t + 1)])
            rows.append([sum(weights[n] * v[g][n][c] for n in range(t + 1)) for c in range(len(v[g][0]))])
        out.append(rows)
    return out


def medusa_buffers(choices):
    """FasterDecoding/Medusa ``generate_medusa_buffers``, its steps as written there: sort the
    choices by (length, value), count nodes per depth, give the nodes of depth i the position id
    i (the root 0), and mark each node's ancestors (found by index of its prefixes) and itself
    and the root in the attention mask. Returns (position_ids, mask as lists of 0/1)."""
    nodes = sorted([list(c) for c in choices], key=lambda x: (len(x), x))
    n = len(nodes) + 1
    depth_counts, prev = [], 0
    for path in nodes:
        if len(path) != prev:
            depth_counts.append(0)
        depth_counts[len(path) - 1] += 1
        prev = len(path)
    mask = [[1 if r == c or c == 0 else 0 for c in range(n)] for r in range(n)]
    start = 0
    for i in range(len(depth_counts)):
        for j in range(depth_counts[i]):
            cur = nodes[start + j]
            for c in range(len(cur) - 1):
                mask[start + j + 1][nodes.index(cur[:c + 1]) + 1] = 1
        start += depth_counts[i]
    position_ids, start = [0] * n, 0
    for i in range(len(depth_counts)):
        for r in range(start + 1, start + depth_counts[i] + 1):
            position_ids[r] = i + 1
        start += depth_counts[i]
    return position_ids, mask


def flash_alibi_bias(slopes, seqlen_q, seqlen_k, causal):
    """flash-attn's ALiBi, as csrc/flash_attn/src/alibi.h adds it to each score: with causal,
    ``+slope * col``; otherwise ``-slope * |row + seqlen_k - seqlen_q - col|``."""
    out = []
    for s in slopes:
        out.append([[s * j if causal else -s * abs(i + seqlen_k - seqlen_q - j) for j in range(seqlen_k)]
                    for i in range(seqlen_q)])
    return out


def gemma_is_sliding(layer_idx, pattern):
    """Hugging Face: Gemma 2 ``is_sliding = not bool(layer_idx % 2)``; Gemma 3 (and Gemma 2 as
    pattern 2) ``bool((layer_idx + 1) % sliding_window_pattern)``."""
    return bool((layer_idx + 1) % pattern)


def self_extend_offset(i, j, group_size, window, seq_len):
    """datamllab/LongLM Self-Extend for a prompt: neighbour keys (i - j < window) keep i - j;
    the rest use query position i // G + W - W / G (the shift only once the longest position
    reaches W) and key position j // G."""
    if i - j < window:
        return float(i - j)
    shift = 0.0 if seq_len - 1 < window else window - window / group_size
    return float(i // group_size + shift - j // group_size)


def rerope_offset(i, j, window, leaky_factor=None):
    """bojone/rerope: offsets below the window kept; beyond it ``window`` (ReRoPE) or
    ``window + (i - j - window) / k`` (Leaky ReRoPE, the query rotated by its position plus
    ``window * (k - 1)`` at frequencies divided by k)."""
    if i - j < window:
        return float(i - j)
    if leaky_factor is None:
        return float(window)
    return ((i + window * (leaky_factor - 1)) - j) / leaky_factor


def keys_cubic(x, a=-0.75):
    """Keys' cubic convolution kernel with PyTorch's A = -0.75 (aten/src/ATen/native/UpSample.h,
    cubic_convolution1 for |x| <= 1, cubic_convolution2 for 1 < |x| < 2)."""
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def bicubic_resize(grid, rows, cols):
    """One channel of a g x g grid resized to rows x cols as torch's bicubic upsampling with
    align_corners=False and a given size: source coordinate (dst + 0.5) * g / new - 0.5 (not
    clamped), the 4 x 4 neighbours from floor(src) - 1 to floor(src) + 2, each index clamped to
    [0, g - 1] (upsample_get_value_bounded), weights keys_cubic(offset - t) per axis."""
    g = len(grid)
    out = []
    for r in range(rows):
        sy = (r + 0.5) * g / rows - 0.5
        iy = math.floor(sy)
        row = []
        for c in range(cols):
            sx = (c + 0.5) * g / cols - 0.5
            ix = math.floor(sx)
            total = 0.0
            for a in range(-1, 3):
                yy = min(max(iy + a, 0), g - 1)
                for b in range(-1, 3):
                    xx = min(max(ix + b, 0), g - 1)
                    total += keys_cubic(a - (sy - iy)) * keys_cubic(b - (sx - ix)) * grid[yy][xx]
            row.append(total)
        out.append(row)
    return out


def abacus_ids(text, k=0):
    """mcleish7/arithmetic ``abacus.py``: within each maximal run of digit tokens, positions 1, 2,
    … (``index - reset_index + 1`` times the digit mask), 0 elsewhere; in training every
    nonzero id is shifted by k."""
    out, count = [], 0
    for ch in text:
        count = count + 1 if ch in "0123456789" else 0
        out.append(count + k if count else 0)
    return out


def cope_positions(gate_logits):
    """facebookresearch/RAM CoPE: gates sigmoid(z) on keys j <= i (the mask zeroes the rest),
    position of key j for query i = sum of the gates of keys j .. i."""
    n = len(gate_logits)
    out = []
    for i in range(n):
        gates = [1.0 / (1.0 + math.exp(-gate_logits[i][t])) if t <= i else 0.0 for t in range(n)]
        out.append([sum(gates[j:i + 1]) if j <= i else 0.0 for j in range(n)])
    return out


def cope_logit(q, pos_emb, p):
    """CoPE's interpolated position logit: q·e[ceil p] (p - floor p) + q·e[floor p] (1 - (p - floor p))."""
    lo, hi = math.floor(p), math.ceil(p)
    w = p - lo
    return dot(q, pos_emb[hi]) * w + dot(q, pos_emb[lo]) * (1 - w)
