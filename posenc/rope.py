"""RoPE (rotary position embedding) in numpy: rotating q and κ by their positions, the matrix
that does it, the score as a function of the offset alone, and content-plus-position scores
(RoPE against an additive PE).

The torch version is :func:`posenc.torch_layers.rope_torch`; both turn pair i by ``pos · w_i``.
"""
from __future__ import annotations

import numpy as np

from .attention import scaled_dot_product_attention
from .distance import by_offset, small_matmul
from .encoding import pair_rotation_matrix, encode_positions, frequencies
from .validate import (
    bilingual,
    check_array,
    check_d_model,
    check_int,
    check_one_of,
    check_positions,
    check_projections,
    check_qkv,
    check_real,
    check_vector_pair,
)


def _sequence(x, positions):
    """``x`` of shape ``(..., seq_len, d)`` and one position per row: both checked, as arrays."""
    x = check_array("x", x)
    if x.ndim < 2:
        raise ValueError(bilingual("x must have shape (..., seq_len, d)", "x 的形状必须是 (..., seq_len, d)"))
    pos = check_positions(positions)
    if len(pos) != x.shape[-2]:
        raise ValueError(bilingual(f"positions has {len(pos)} entries but x has seq_len = {x.shape[-2]}",
                                   "positions 的长度"
                                   "必须等于 x 的 seq_len"))
    return x, pos


def rope(x, positions, base: float = 10000.0, inv_freq=None) -> np.ndarray:
    """Rotary position embedding: rotate each (even, odd) pair of ``x`` by ``pos * w_i``.

    ``x`` has shape ``(..., seq_len, d)`` with d even; ``positions`` has length seq_len.
    ``[x0, x1] -> [x0 cos a - x1 sin a, x0 sin a + x1 cos a]``, ``a = pos * w_i`` (each pair
    turns counter-clockwise in its plane), so ``rope(q, m) . rope(κ, n)`` depends on the
    offset ``k = n - m`` only. ``w_i = base^(-2i/d)``, or the d/2 frequencies ``inv_freq``
    when given (scaled ones: notebook 09's :func:`~posenc.context.rope_frequencies`, a real
    model's in notebook 10).
    """
    x, pos = _sequence(x, positions)
    if inv_freq is None:
        w = frequencies(x.shape[-1], base)
    else:
        w = check_array("inv_freq", inv_freq, ndim=1)
        if x.shape[-1] != 2 * len(w):
            raise ValueError(bilingual(f"x has {x.shape[-1]} columns but inv_freq has {len(w)} pairs",
                                       "x 的列数必须是 inv_freq 长度的 2 倍"))
    angles = pos[:, None] * w[None, :]
    c, s = np.cos(angles), np.sin(angles)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x0 * c - x1 * s
    out[..., 1::2] = x0 * s + x1 * c
    return out


def rope_rotation(pos: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The ``d_model x d_model`` matrix :func:`rope` applies at position ``pos``.

    Block-diagonal, one standard (counter-clockwise) rotation per pair,
    ``[[cos(pos w_i), -sin(pos w_i)], [sin(pos w_i), cos(pos w_i)]]``, so
    ``rope(x[None], [pos])[0] == rope_rotation(pos, d) @ x``. In notebook 04's notation this
    is ``R_{-pos}`` (``relative_rotation(-pos)``): R_k turns the clock hands clockwise, RoPE
    turns each pair counter-clockwise.
    """
    pos = check_real("pos", pos)
    return pair_rotation_matrix(pos * frequencies(d_model, base))


def rope_pair_coefficients(q, key) -> tuple[np.ndarray, np.ndarray]:
    """Per pair i, with κ = ``key``: ``a_i = q_2i κ_2i + q_2i+1 κ_2i+1`` and
    ``b_i = q_2i+1 κ_2i - q_2i κ_2i+1``.

    With them ``rope(q, m) . rope(κ, m + k) = sum_i a_i cos(k w_i) + b_i sin(k w_i)``:
    the ``a`` (cos) part is even in the offset k, the ``b`` (sin) part is odd. ``b = 0``
    (each pair of κ parallel to that of q, e.g. q = κ) makes the score symmetric in ±k.
    """
    q, key = check_vector_pair(q, key)
    q0, q1, k0, k1 = q[0::2], q[1::2], key[0::2], key[1::2]
    return q0 * k0 + q1 * k1, q1 * k0 - q0 * k1


def rope_score_by_offset(q, key, offsets, base: float = 10000.0) -> np.ndarray:
    """``rope(q, m) . rope(κ, m + k)`` for each offset k in ``offsets``, by the closed form.

    ``sum_i a_i cos(k w_i) + b_i sin(k w_i)`` with ``a, b`` from
    :func:`rope_pair_coefficients`: no position m appears in it at all.
    """
    a, b = rope_pair_coefficients(q, key)
    ks = check_array("offsets", offsets)
    w = frequencies(2 * len(a), base)
    angles = np.multiply.outer(ks, w)
    return np.cos(angles) @ a + np.sin(angles) @ b


SCORE_KINDS = ("additive", "rope")


def content_position_scores(x_q, x_key, w_q=None, w_k=None, *, kind: str = "rope", seq_len: int = 64,
                            k_max: int = 16, start: int = 0, base: float = 10000.0) -> np.ndarray:
    """Attention scores of one query token and one key token, by position and offset.

    ``out[r, k_max + k]`` is the score of the token ``x_q`` at query position
    ``m = start + r`` against the token ``x_key`` at key position ``n = m + k``
    (k = -k_max .. k_max; positions may be negative, the formulas are defined for any
    position). In code vectors are rows: ``x @ w_q`` is the course's ``q = W_q x`` with
    ``w_q = W_qᵀ``.

    * ``kind="additive"``: ``((x_q + PE(m)) @ w_q) . ((x_key + PE(n)) @ w_k)`` -- the PE is
      added before the projection (sinusoidal, notebook 04).
    * ``kind="rope"``: ``rope(x_q @ w_q, m) . rope(x_key @ w_k, n)`` -- the rotation comes
      after the projection.

    ``w_q``, ``w_k`` are ``(d_model, d_k)`` (default: identity). Pass the result to
    :func:`offset_structure` to measure how much it depends on m.
    """
    kind = check_one_of("kind", kind, SCORE_KINDS)
    x_q, x_key = check_vector_pair(x_q, x_key, names=("x_q", "x_key"))
    d_model = len(x_q)
    seq_len = check_int("seq_len", seq_len, 1, 4096)
    k_max = check_int("k_max", k_max, 0, 4096)
    start = check_int("start", start, -10**6, 10**6)
    w_q, w_k = check_projections(d_model, w_q, w_k)
    if w_q is None:
        w_q = w_k = np.eye(d_model)
    if kind == "rope" and w_q.shape[1] % 2:
        raise ValueError(bilingual(f"for kind='rope' the projected width d_k must be even, got {w_q.shape[1]}",
                                   "RoPE 要求投影后的维度 d_k 是偶数"))
    q_pos = np.arange(start, start + seq_len, dtype=float)
    k_pos = np.arange(start - k_max, start + seq_len + k_max, dtype=float)
    if kind == "additive":
        q = small_matmul(x_q[None, :] + encode_positions(q_pos, d_model, base), w_q)
        keys = small_matmul(x_key[None, :] + encode_positions(k_pos, d_model, base), w_k)
    else:
        q = rope(np.tile(x_q @ w_q, (len(q_pos), 1)), q_pos, base)
        keys = rope(np.tile(x_key @ w_k, (len(k_pos), 1)), k_pos, base)
    return by_offset(small_matmul(q, keys.T), k_max)   # key column c is position start - k_max + c


# -- the complex form: pair i as one complex number -------------------------------------------
def rope_complex(x, positions, base: float = 10000.0) -> np.ndarray:
    """RoPE in complex form: pair i of ``x`` as ``z_i = x_2i + i·x_2i+1``, times ``e^{i·pos·w_i}``.

    Returns a complex array of shape ``(..., seq_len, d/2)``; its real and imaginary parts,
    interleaved, are :func:`rope` of ``x`` (multiplying by ``e^{iα}`` is the counter-clockwise
    rotation by α).
    """
    x, pos = _sequence(x, positions)
    z = x[..., 0::2] + 1j * x[..., 1::2]
    return z * np.exp(1j * pos[:, None] * frequencies(x.shape[-1], base)[None, :])


def rope_complex_score(q, key, m, n, base: float = 10000.0) -> float:
    """``Re[Σ_i q_i · conj(κ_i) · e^{i(m−n)w_i}]`` with pairs as complex numbers (κ = ``key``).

    The RoFormer paper's form of the rotated score ``rope(q, m) · rope(κ, n)``: the positions
    enter only through ``m − n``; the rest, ``h_i = q_i · conj(κ_i)``, is content.
    """
    q, key = check_vector_pair(q, key)
    m, n = check_real("m", m), check_real("n", n)
    h = (q[0::2] + 1j * q[1::2]) * np.conj(key[0::2] + 1j * key[1::2])
    return float(np.real(np.sum(h * np.exp(1j * (m - n) * frequencies(len(q), base)))))


# -- long-term decay: RoFormer's bound by Abel summation --------------------------------------
def rope_partial_sums(offsets, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``S_j(k) = Σ_{i<j} e^{i·k·w_i}`` for j = 0 … d/2, one row per offset k in ``offsets``.

    ``S_0 = 0``. RoFormer writes the sum with ``e^{i(m−n)w_i}``, i.e. offset −k; ``|S_j|`` is
    the same for ±k (complex conjugates).
    """
    ks = check_array("offsets", offsets, ndim=1)
    w = frequencies(check_d_model(d_model), base)
    terms = np.exp(1j * np.multiply.outer(ks, w))
    return np.concatenate([np.zeros((len(ks), 1), complex), np.cumsum(terms, axis=1)], axis=1)


def rope_decay_bound(offsets, d_model: int, base: float = 10000.0) -> np.ndarray:
    """RoFormer's decaying quantity ``(1/(d/2)) Σ_{j=1}^{d/2} |S_j(k)|`` for each offset k.

    Multiplied by ``d/2 · max_i |g_{i+1} − g_i|`` it bounds the score (:func:`rope_abel_bound`).
    It is ``(d/2 + 1)/2`` at k = 0 and falls, on average, as |k| grows, but not monotonically.
    """
    s = rope_partial_sums(offsets, d_model, base)
    return np.abs(s[:, 1:]).mean(axis=1)


def rope_abel_bound(q, key, offsets, base: float = 10000.0) -> np.ndarray:
    """The bound on ``|rope(q, m) · rope(κ, m + k)|`` from Abel summation (RoFormer §3.4.3).

    With ``g_i = q_i · conj(κ_i)`` (pairs as complex numbers; RoFormer writes h_i, the course's h
    is a head), ``g_{d/2} = 0`` and :func:`rope_partial_sums`:
    ``Σ_i g_i e^{…} = −Σ_i (g_{i+1} − g_i) S_{i+1}``, so
    ``|score| ≤ (max_i |g_{i+1} − g_i|) · Σ_{j=1}^{d/2} |S_j|``, one value per offset k.
    """
    q, key = check_vector_pair(q, key)
    g = (q[0::2] + 1j * q[1::2]) * np.conj(key[0::2] + 1j * key[1::2])
    step = np.abs(np.diff(np.append(g, 0.0))).max()
    return step * np.abs(rope_partial_sums(offsets, len(q), base)[:, 1:]).sum(axis=1)


# -- attention with RoPE, and what happens if v is rotated too -------------------------------
def rope_attention(q, key, value, positions, *, rotate_values: bool = False, rotate_back: bool = False,
                   base: float = 10000.0) -> np.ndarray:
    """Attention outputs ``softmax(rope(Q)·rope(K)ᵀ/√d) · V'`` (rows = queries, no mask).

    ``q``, ``key``, ``value`` have shape ``(seq_len, d)``, one row per token at ``positions``.
    ``V' = V`` normally (RoPE turns only q and κ). With ``rotate_values`` each value row is
    rotated by its own position first, ``V' = rope(V, positions)``; with ``rotate_back`` as well,
    each output row is then turned back by its query's position (``rope(out, −positions)``),
    which leaves ``Σ_n α_mn 𝓡_{n−m} v_n``: relative again.
    """
    q, key, value = check_qkv(q, key, value)
    if rotate_back and not rotate_values:
        raise ValueError(bilingual("rotate_back=True needs rotate_values=True", "只有先转了 v 才需要转回去"))
    pos = check_positions(positions)
    out, _ = scaled_dot_product_attention(rope(q, pos, base), rope(key, pos, base),
                                          rope(value, pos, base) if rotate_values else value)
    return rope(out, -pos, base) if rotate_back else out


# -- two layouts of the pairs: interleaved (the paper, Meta's LLaMA) and rotate_half ----------
def rotate_half(x) -> np.ndarray:
    """``cat(−x2, x1)`` with ``x1, x2`` the first and second half of the last axis.

    The helper of the split-halves layout (GPT-NeoX, Hugging Face's Llama): dim j is paired
    with dim j + d/2.
    """
    x = check_array("x", x)
    check_d_model(x.shape[-1])
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rope_cos_sin(positions, head_dim: int, base: float = 10000.0) -> tuple[np.ndarray, np.ndarray]:
    """The cos/sin cache of the split-halves layout: ``cos(e)``, ``sin(e)`` with
    ``e = cat(freqs, freqs)``, ``freqs[r, j] = positions[r]·w_j`` (j < head_dim/2); each of shape
    ``(len(positions), head_dim)``. Column j and column j + head_dim/2 hold pair j's angle: what
    Hugging Face's rotary embedding returns (``emb = torch.cat((freqs, freqs), dim=-1)``).
    """
    pos = check_positions(positions)
    freqs = pos[:, None] * frequencies(check_d_model(head_dim), base)[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def apply_rope_half(x, cos, sin) -> np.ndarray:
    """``x·cos + rotate_half(x)·sin``: a cos/sin cache (:func:`rope_cos_sin`, shape
    ``(seq_len, d)``) applied to ``x`` of shape ``(..., seq_len, d)`` (Hugging Face's
    ``apply_rotary_pos_emb`` for one tensor)."""
    x = check_array("x", x)
    cos, sin = check_array("cos", cos), check_array("sin", sin)
    if cos.shape != sin.shape or cos.shape[-1] != x.shape[-1] or x.ndim < 2 or cos.shape[-2] != x.shape[-2]:
        raise ValueError(bilingual(f"cos and sin must be (seq_len, d) = {x.shape[-2:]}, got {cos.shape} and {sin.shape}",
                                   f"cos、sin 的形状必须是 (seq_len, d) = {x.shape[-2:]}"))
    return x * cos + rotate_half(x) * sin


def rope_rotate_half(x, positions, base: float = 10000.0) -> np.ndarray:
    """RoPE in the split-halves layout: ``x·cos(e) + rotate_half(x)·sin(e)``, ``e = cat(freqs, freqs)``.

    ``freqs[pos, j] = pos·w_j`` (j < d/2): dims j and j + d/2 form pair j and turn together
    (the cache :func:`rope_cos_sin`, applied by :func:`apply_rope_half`).
    The same rotation as :func:`rope` on permuted dims:
    ``rope_rotate_half(x[..., P]) == rope(x)[..., P]`` with ``P = split_permutation(d)``.
    """
    x, pos = _sequence(x, positions)
    return apply_rope_half(x, *rope_cos_sin(pos, x.shape[-1], base))


def llama_permute_rows(w, n_heads: int) -> np.ndarray:
    """Reorder the output rows of a q or k projection from interleaved pairs to split halves.

    ``w`` is ``(n_heads · head_dim, d_in)`` (rows = output dims, as in ``nn.Linear``). Within
    each head, row ``2j + c`` (pair j, component c) moves to row ``c · head_dim/2 + j``: the
    reshape ``(n_heads, head_dim/2, 2, d_in)`` → swap the two middle axes → back, as the
    ``permute`` step of Hugging Face's Llama conversion script does for ``wq`` and ``wk``.
    Per head this is ``w[split_permutation(head_dim)]``.
    """
    w = check_array("w", w, ndim=2)
    n_heads = check_int("n_heads", n_heads, 1)
    rows, cols = w.shape
    if rows % n_heads or (rows // n_heads) % 2:
        raise ValueError(bilingual(f"w has {rows} rows, not n_heads = {n_heads} heads of an even head_dim",
                                   f"w 的行数 {rows} 必须是 n_heads = {n_heads} 个偶数维的头"))
    head_dim = rows // n_heads
    return w.reshape(n_heads, head_dim // 2, 2, cols).swapaxes(1, 2).reshape(rows, cols)


# -- partial rotary: only the first rotary_dims dims of each head turn ------------------------
def partial_rope(x, positions, rotary_dims: int, base: float = 10000.0, layout: str = "half") -> np.ndarray:
    """Rotate only the first ``rotary_dims`` dims of each head; the others pass unchanged.

    The frequencies are those of a ``rotary_dims``-dim head, ``w_i = base^(−2i/rotary_dims)``
    (GPT-NeoX's ``rotary_pct``, Hugging Face's ``partial_rotary_factor``:
    ``rotary_dims = int(head_dim · factor)``). ``layout="half"`` rotates with
    :func:`rope_rotate_half` (GPT-NeoX), ``"interleaved"`` with :func:`rope`.
    """
    x = check_array("x", x)
    d = x.shape[-1]
    rotary_dims = check_int("rotary_dims", rotary_dims, 0, d)
    if rotary_dims % 2:
        raise ValueError(bilingual(f"rotary_dims must be even, got {rotary_dims}", "rotary_dims 必须是偶数"))
    layout = check_one_of("layout", layout, ("half", "interleaved"))
    if rotary_dims == 0:
        return x.copy()
    turn = rope_rotate_half if layout == "half" else rope
    return np.concatenate([turn(x[..., :rotary_dims], positions, base), x[..., rotary_dims:]], axis=-1)


def p_rope_frequencies(head_dim: int, p: float, base: float = 10000.0) -> np.ndarray:
    """p-RoPE (Barbero et al. 2024, "Round and Round We Go!"): keep the fastest fraction ``p``
    of a head's RoPE frequencies and set the slowest ``1 − p`` to 0 (those pairs are not
    rotated), shape (head_dim // 2,). Unlike GPT-NeoX's partial rotary, the kept pairs keep the
    frequencies of the full head.
    """
    head_dim = check_int("head_dim", head_dim, 2, 4096)
    p = check_real("p", p, minimum=0.0, maximum=1.0)
    w = frequencies(head_dim, base)
    keep = int(round(p * len(w)))
    w[keep:] = 0.0
    return w
