"""The relative-position family (posenc/relative_family.py) against independent references:
T5's reference bucket function rewritten in plain Python, Shaw et al.'s and Transformer-XL's
definitions written as loops, and identities."""
import itertools
import math

import numpy as np
import pytest

import posenc_lib as pl
from posenc.exercises.relative_family import moving_terms
import reference
from support import assert_refused_clearly


# ---------------------------------------------------------------------------
# T5 buckets
# ---------------------------------------------------------------------------
def t5_bucket_reference(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """T5's ``_relative_position_bucket``, one offset at a time, in plain Python.

    Rewritten from Mesh TensorFlow's ``transformer_layers.py`` (``_relative_position_bucket``),
    copied as ``T5Attention._relative_position_bucket`` in Hugging Face transformers
    (src/transformers/models/t5/modeling_t5.py). Their conventions, kept here:
    ``relative_position = memory_position - query_position`` (key minus query); bidirectional:
    half the buckets per direction, a positive offset adds ``num_buckets // 2``, then the
    absolute value; causal: ``n = -min(relative_position, 0)``; ``max_exact = num_buckets // 2``
    exact buckets; beyond, ``max_exact + log(n / max_exact) / log(max_distance / max_exact) *
    (num_buckets - max_exact)`` truncated toward zero (``.to(torch.long)`` / ``tf.to_int32``),
    capped at ``num_buckets - 1``.
    """
    ret = 0
    n = relative_position
    if bidirectional:
        num_buckets //= 2
        if n > 0:
            ret += num_buckets
        n = abs(n)
    else:
        n = -min(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    val_if_large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact)
                                   * (num_buckets - max_exact))
    return ret + min(val_if_large, num_buckets - 1)


def t5_bucket_torch_reference(relative_position, bidirectional, num_buckets, max_distance):
    """The Hugging Face transformers code path itself (torch, float32 logarithm), transcribed."""
    import torch

    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    if_large = max_exact + (torch.log(relative_position.float() / max_exact)
                            / math.log(max_distance / max_exact) * (num_buckets - max_exact)).to(torch.long)
    if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
    return relative_buckets + torch.where(is_small, relative_position, if_large)


OFFSETS = np.arange(-1000, 1001)
#: T5's own setting first, then others (powers of two and not, wide and narrow).
T5_SETTINGS = [(32, 128), (64, 128), (16, 64), (32, 256), (128, 1024), (10, 50), (24, 100), (8, 16)]


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", T5_SETTINGS)
def test_t5_bucket_matches_reference_for_every_offset(num_buckets, max_distance, bidirectional):
    got = pl.t5_relative_bucket(OFFSETS, bidirectional, num_buckets, max_distance)
    want = [t5_bucket_reference(int(k), bidirectional, num_buckets, max_distance) for k in OFFSETS]
    assert got.shape == OFFSETS.shape and got.dtype.kind == "i"
    assert got.tolist() == want
    # and one offset at a time: an int in, an int out
    for k in (-1000, -129, -128, -127, -9, -8, -7, -1, 0, 1, 7, 8, 9, 127, 128, 129, 1000):
        b = pl.t5_relative_bucket(k, bidirectional, num_buckets, max_distance)
        assert type(b) is int and b == t5_bucket_reference(k, bidirectional, num_buckets, max_distance)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", T5_SETTINGS)
def test_t5_bucket_matches_the_torch_code_path(num_buckets, max_distance, bidirectional):
    torch = pytest.importorskip("torch")
    want = t5_bucket_torch_reference(torch.arange(-1000, 1001), bidirectional, num_buckets, max_distance)
    np.testing.assert_array_equal(pl.t5_relative_bucket(OFFSETS, bidirectional, num_buckets, max_distance),
                                  want.numpy())


def test_t5_default_buckets_by_hand():
    """T5's 32 buckets / 128, bidirectional: the numbers the notebook quotes."""
    b = lambda k, bi=True: pl.t5_relative_bucket(k, bi)
    assert [b(k) for k in range(0, -8, -1)] == list(range(8))          # exact, k <= 0
    assert [b(k) for k in range(1, 8)] == list(range(17, 24))          # exact, k > 0: 16 + k
    assert b(-8) == b(-11) == 8 and b(-12) == 9                          # 8 + floor(log(n/8)/log(16) * 8)
    assert b(-20) == 10 and b(20) == 26
    assert b(-90) == 14 and b(-91) == 15 and b(-10**6) == 15 and b(10**6) == 31
    assert b(5, False) == b(0, False) == b(999, False) == 0 and b(-1000, False) == 31
    assert b(-15, False) == 15 and b(-16, False) == 16                   # causal: 16 exact buckets


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", T5_SETTINGS)
def test_t5_bucket_identities(num_buckets, max_distance, bidirectional):
    half = num_buckets // 2 if bidirectional else num_buckets
    max_exact = half // 2
    b = pl.t5_relative_bucket(OFFSETS, bidirectional, num_buckets, max_distance)
    past, future = b[OFFSETS <= 0][::-1], b[OFFSETS > 0]                 # both ordered by |k|
    n_past = -OFFSETS[OFFSETS <= 0][::-1]
    # exact buckets for small distances
    np.testing.assert_array_equal(past[n_past < max_exact], n_past[n_past < max_exact])
    # monotone in |k|, never past the last bucket of the direction
    assert np.all(np.diff(past) >= 0) and past.max() == half - 1
    # everything at or beyond max_distance shares the last bucket
    assert np.all(past[n_past >= max_distance] == half - 1)
    assert len(set(past.tolist())) <= half
    if bidirectional:
        n_future = OFFSETS[OFFSETS > 0]
        np.testing.assert_array_equal(future[n_future < max_exact], half + n_future[n_future < max_exact])
        assert np.all(np.diff(future) >= 0) and future.min() == half + 1 and future.max() == num_buckets - 1
        assert np.all(future[n_future >= max_distance] == num_buckets - 1)
        # the same distance on the two sides: buckets differ by exactly half
        np.testing.assert_array_equal(future, past[1:1001] + half)
    else:
        assert np.all(future == 0)                                         # the future shares bucket 0


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", T5_SETTINGS[:4])
def test_t5_bucket_ranges_partition_the_offsets(num_buckets, max_distance, bidirectional):
    ranges = pl.t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    for k in range(-3 * max_distance, 3 * max_distance):
        want = t5_bucket_reference(k, bidirectional, num_buckets, max_distance)
        hits = [b for b, lo, hi in ranges if lo <= k <= hi]
        assert hits == [want], k
    buckets = [b for b, _, _ in ranges]
    assert buckets == sorted(set(buckets))
    if bidirectional:
        assert num_buckets // 2 not in buckets       # k > 0 with |k| = 0 does not exist
        assert len(buckets) == num_buckets - 1
    else:
        assert buckets == list(range(num_buckets))


def test_t5_position_bias_is_the_table_looked_up_per_head():
    rng = np.random.default_rng(5)
    table = rng.normal(size=(32, 3))
    bias = pl.t5_position_bias(table, 6, 9)
    assert bias.shape == (3, 6, 9)
    for h, m, n in itertools.product(range(3), range(6), range(9)):
        assert bias[h, m, n] == table[t5_bucket_reference(n - m), h]
    causal = pl.t5_position_bias(table[:, :1], 5, bidirectional=False)
    for m, n in itertools.product(range(5), range(5)):
        assert causal[0, m, n] == table[t5_bucket_reference(n - m, False), 0]


def test_t5_demo_bias_table_is_illustrative_and_peaks_at_zero():
    for bidirectional in (True, False):
        table = pl.t5_demo_bias_table(bidirectional)
        assert table.shape == (32,) and table[0] == 0.0
        assert np.all(table <= 0.0 + 1e-12)


# ---------------------------------------------------------------------------
# Shaw et al. 2018
# ---------------------------------------------------------------------------
def shaw_logits_loops(q, key, rel, max_relative):
    """e_mn = q_m · (κ_n + a^K_{clip(n − m)}) / sqrt(d), Shaw et al. (2018) eq. (4), with loops."""
    out = np.zeros((len(q), len(key)))
    d = q.shape[1]
    for m in range(len(q)):
        for n in range(len(key)):
            k = max(-max_relative, min(max_relative, n - m))
            vec = [key[n][j] + rel[k + max_relative][j] for j in range(d)]
            out[m, n] = sum(q[m][j] * vec[j] for j in range(d)) / math.sqrt(d)
    return out


def shaw_outputs_loops(weights, value, rel_v, max_relative):
    """z_m = Σ_n α_mn (v_n + a^V_{clip(n − m)}), Shaw et al. (2018) eq. (3), with loops."""
    out = np.zeros((weights.shape[0], value.shape[1]))
    for m in range(weights.shape[0]):
        for n in range(weights.shape[1]):
            k = max(-max_relative, min(max_relative, n - m))
            out[m] += weights[m, n] * (value[n] + rel_v[k + max_relative])
    return out


@pytest.mark.parametrize("query_len,key_len,d,max_relative", [(5, 5, 4, 2), (7, 3, 6, 1), (4, 9, 8, 0),
                                                              (6, 6, 2, 10)])
def test_shaw_logits_and_outputs_match_loops(query_len, key_len, d, max_relative):
    rng = np.random.default_rng(query_len * 100 + key_len)
    q, key = rng.normal(size=(query_len, d)), rng.normal(size=(key_len, d))
    rel_k, rel_v = rng.normal(size=(2, 2 * max_relative + 1, d))
    value = rng.normal(size=(key_len, d))
    logits = pl.shaw_relative_logits(q, key, rel_k, max_relative)
    np.testing.assert_allclose(logits, shaw_logits_loops(q, key, rel_k, max_relative), atol=1e-12)
    out, weights = pl.shaw_relative_attention(q, key, value, rel_k, rel_v, max_relative)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(weights, e / e.sum(axis=1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(out, shaw_outputs_loops(weights, value, rel_v, max_relative), atol=1e-12)


def test_shaw_relative_part_depends_on_the_clipped_offset_only():
    rng = np.random.default_rng(1)
    d, r = 8, 3
    q = np.tile(rng.normal(size=d), (40, 1))                # the same query vector at every position
    key = np.zeros((40, d))                                  # no content: only a^K is left
    rel = rng.normal(size=(2 * r + 1, d))
    logits = pl.shaw_relative_logits(q, key, rel, r)
    idx = pl.shaw_relative_index(40, 40, r)
    for row in range(2 * r + 1):
        vals = logits[idx == row]
        assert np.ptp(vals) < 1e-12                          # one value per clipped offset
    np.testing.assert_array_equal(idx[0, 10:], 2 * r)        # k >= r all use the last row
    np.testing.assert_array_equal(np.diag(idx), r)           # k = 0 uses row r


# ---------------------------------------------------------------------------
# The four terms: absolute PE and Transformer-XL
# ---------------------------------------------------------------------------
def pe_math(pos, d):
    return [math.sin(pos / 10000 ** (2 * (c // 2) / d)) if c % 2 == 0 else
            math.cos(pos / 10000 ** (2 * (c // 2) / d)) for c in range(d)]


def matvec_t(w, x):
    """Wᵀ-free row convention: the row vector x @ w, with loops."""
    return [sum(x[i] * w[i][j] for i in range(len(x))) for j in range(len(w[0]))]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def xl_terms_loops(x_q, x_key, p, m_pos, n_pos):
    """Transformer-XL's A^rel_{i,j} (Dai et al. 2019, eq. in §3.3) term by term, i = m, j = n,
    R_{i−j} the sinusoid of m − n."""
    out = {x: np.zeros((len(m_pos), len(n_pos))) for x in "abcd"}
    for r, m in enumerate(m_pos):
        q = matvec_t(p["w_q"], x_q[r])
        for c, n in enumerate(n_pos):
            kappa = matvec_t(p["w_k_content"], x_key[c])
            rel = matvec_t(p["w_k_position"], pe_math(m - n, len(p["w_k_position"])))
            out["a"][r, c] = dot(q, kappa)
            out["b"][r, c] = dot(q, rel)
            out["c"][r, c] = dot(p["u"], kappa)
            out["d"][r, c] = dot(p["v"], rel)
    return out


def test_transformer_xl_terms_match_loops():
    d = 8
    rng = np.random.default_rng(3)
    p = pl.transformer_xl_demo_parameters(d)
    x_q, x_key = rng.normal(size=(3, d)), rng.normal(size=(5, d))
    m_pos, n_pos = [4, 9, 2], [0, 3, 7, 9, 11]
    got = pl.transformer_xl_score_terms(x_q, x_key, p["w_q"], p["w_k_content"], p["w_k_position"], p["u"],
                                        p["v"], m_pos, n_pos)
    want = xl_terms_loops(x_q, x_key, p, m_pos, n_pos)
    for x in "abcd":
        np.testing.assert_allclose(got[x], want[x], atol=1e-12)
    np.testing.assert_allclose(got.total, sum(want.values()), atol=1e-12)
    # the code's grouping: (q + u)·κ + (q + v)·W_{k,R} PE(m − n)
    q, kappa = x_q @ p["w_q"], x_key @ p["w_k_content"]
    np.testing.assert_allclose(got["a"] + got["c"], (q + p["u"]) @ kappa.T, atol=1e-12)


def test_absolute_terms_sum_to_the_plain_score_and_match_loops():
    d = 8
    rng = np.random.default_rng(4)
    w_q, w_k = rng.normal(size=(2, d, d))
    x_q, x_key = rng.normal(size=(4, d)), rng.normal(size=(6, d))
    m_pos, n_pos = [0, 3, 5, 8], [1, 2, 3, 4, 10, 20]
    t = pl.absolute_score_terms(x_q, x_key, w_q, w_k, m_pos, n_pos)
    plain = np.zeros((4, 6))
    for r, m in enumerate(m_pos):
        qv = matvec_t(w_q, [a + b for a, b in zip(x_q[r], pe_math(m, d))])
        for c, n in enumerate(n_pos):
            plain[r, c] = dot(qv, matvec_t(w_k, [a + b for a, b in zip(x_key[c], pe_math(n, d))]))
            assert t["d"][r, c] == pytest.approx(dot(matvec_t(w_q, pe_math(m, d)), matvec_t(w_k, pe_math(n, d))),
                                                 abs=1e-12)
    np.testing.assert_allclose(t.total, plain, atol=1e-11)


def test_transformer_xl_depends_on_the_offset_only_absolute_does_not():
    d = 16
    p = pl.transformer_xl_demo_parameters(d)
    x_q, x_key = pl.random_word_vectors(2, d)[:, None, :]
    ks = np.arange(-10, 11)
    keys = np.repeat(x_key, len(ks), axis=0)
    xl = [pl.transformer_xl_score_terms(x_q, keys, p["w_q"], p["w_k_content"], p["w_k_position"], p["u"],
                                        p["v"], [m], m + ks) for m in (20, 57, 300)]
    ab = [pl.absolute_score_terms(x_q, keys, p["w_q"], p["w_k_content"], [m], m + ks) for m in (20, 57, 300)]
    for x in "abcd":
        assert np.array_equal(xl[0][x], xl[1][x]) and np.array_equal(xl[0][x], xl[2][x])
    np.testing.assert_array_equal(xl[0]["a"], ab[0]["a"])          # content-content is the same term
    for x in "bcd":
        assert np.abs(ab[0][x] - ab[1][x]).max() > 1e-3, x           # absolute terms move with m
    # (c) is a constant over keys of the same content, (b) and (d) vary with k
    assert np.ptp(xl[0]["c"]) < 1e-12 and np.ptp(xl[0]["b"]) > 1e-3 and np.ptp(xl[0]["d"]) > 1e-3
    assert moving_terms("absolute", "m") == {"b", "c", "d"} and moving_terms("transformer_xl", "m") == set()
    assert moving_terms("absolute", "k") == {"b", "d"} == moving_terms("transformer_xl", "k")


def display_width(text):
    """Terminal columns of a string: East Asian wide / fullwidth characters take two (UAX #11)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


@pytest.mark.parametrize("bidirectional, num_buckets, max_distance", [(True, 32, 128), (False, 32, 128),
                                                                      (True, 16, 64)])
def test_t5_bucket_table_columns_line_up_by_display_width(bidirectional, num_buckets, max_distance):
    """The printed bucket table of notebook 06: every right-aligned column (桶, 个数) ends at the
    display column where its header ends, and every offset column starts where its header
    starts, counting a Chinese character as two columns; its rows are t5_bucket_ranges's."""
    lines = pl.t5_bucket_table(bidirectional, num_buckets, max_distance).splitlines()
    head, body = lines[0], lines[2:]
    halves = lambda line: line.split(" | ") if bidirectional else [line]
    for side, head_half in enumerate(halves(head)):
        offsets_at = display_width(head_half[:head_half.index("k ≤" if side == 0 and bidirectional else
                                                              "k >" if bidirectional else "偏移")])
        for line in body:
            half = halves(line)[side].rstrip()
            assert display_width(half) == display_width(head_half.rstrip()), (head_half, half)   # 个数 column
            bucket = half.split()[0]
            bucket_end = display_width(head_half[:head_half.index("桶") + 1])
            assert display_width(half[:half.index(bucket) + len(bucket)]) == bucket_end, (head_half, half)
            start = len(half) - len(half[len(half.split()[0]) + half.index(half.split()[0]):].lstrip())
            assert display_width(half[:start]) == offsets_at, (head_half, half)
    ranges = pl.t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    shown = {int(cell.split()[0]): cell.split()[1:] for line in body for cell in halves(line)}
    for b, lo, hi in ranges:
        count = "∞" if math.inf in (abs(lo), abs(hi)) else str(hi - lo + 1)
        assert shown[b][-1] == count, (b, shown[b])
    assert len(body) == (num_buckets // 2 if bidirectional else num_buckets)


def test_offset_range_text():
    assert pl.offset_range_text(-11, -8) == ("k = -11 … -8", "4")
    assert pl.offset_range_text(3, 3) == ("k = 3", "1")
    assert pl.offset_range_text(-math.inf, -91) == ("k ≤ -91", "∞")
    assert pl.offset_range_text(91, math.inf) == ("k ≥ 91", "∞")


# ---------------------------------------------------------------------------
# One logit per scheme, on one scale (notebook 06 §6)
# ---------------------------------------------------------------------------
def offset_logit_loops(scheme, q, key, k, t5_table, shaw_table, max_relative):
    """The logit of q at m = 0 against κ at n = k, from each paper's definition with loops, every
    scheme divided by sqrt(d) like scaled dot-product attention: T5 (Raffel et al. 2020, §2.1)
    adds the bucket's scalar; Shaw et al. (2018) eq. (5) adds a^K_clip(k) to the key; RoPE
    (RoFormer eq. 16) is the closed form of reference.rope_score."""
    d = len(q)
    content = sum(a * b for a, b in zip(q, key))
    if scheme == "t5":
        return content / math.sqrt(d) + t5_table[t5_bucket_reference(k, True, len(t5_table))]
    if scheme == "shaw":
        row = shaw_table[max(-max_relative, min(max_relative, k)) + max_relative]
        return sum(a * (b + c) for a, b, c in zip(q, key, row)) / math.sqrt(d)
    return reference.rope_score(list(q), list(key), k) / math.sqrt(d)


@pytest.mark.parametrize("scheme", ["t5", "shaw", "rope"])
def test_offset_logits_match_each_definition_written_as_loops(scheme):
    rng = np.random.default_rng(3)
    d, max_relative, ks = 8, 3, [-200, -9, -3, -1, 0, 1, 2, 5, 130]
    q, key = rng.normal(size=(2, 5, d))
    t5_table, shaw_table = rng.normal(size=32), rng.normal(size=(2 * max_relative + 1, d))
    got = pl.offset_logits(scheme, q, key, ks, t5_table=t5_table, shaw_table=shaw_table, max_relative=max_relative)
    want = [[offset_logit_loops(scheme, a, b, k, t5_table, shaw_table, max_relative) for k in ks]
            for a, b in zip(q, key)]
    np.testing.assert_allclose(got, want, atol=1e-12)
    one = pl.offset_logits(scheme, q[0], key[0], ks, t5_table=t5_table, shaw_table=shaw_table,
                           max_relative=max_relative)
    np.testing.assert_allclose(one, want[0], atol=1e-12)


def test_offset_logits_are_each_schemes_attention_logits_at_any_query_position():
    """The logit at (m, m + k) of each scheme's own attention, for m far from 0, equals the one
    offset_logits gives at (0, k); T5's position effect logit(k) − logit(−k) is one number for
    every word pair, Shaw's and RoPE's are not."""
    rng = np.random.default_rng(4)
    d, r, m = 16, 3, 37
    q, key = rng.normal(size=(2, 40, d))
    t5_table, shaw_table = pl.t5_demo_bias_table(), rng.normal(size=(2 * r + 1, d))
    tables = dict(t5_table=t5_table, shaw_table=shaw_table, max_relative=r)
    ks = np.arange(-6, 7)
    for a, b in zip(q[:3], key[:3]):
        keys = np.tile(b, (m + 7, 1))
        shaw = pl.shaw_relative_logits(np.tile(a, (m + 1, 1)), keys, shaw_table, r)[m, m + ks]
        t5 = a @ b / math.sqrt(d) + pl.t5_position_bias(t5_table, m + 1, m + 7)[0, m, m + ks]
        rope = np.array([pl.rope(a[None], [m])[0] @ pl.rope(b[None], [m + k])[0] for k in ks]) / math.sqrt(d)
        for scheme, direct in (("shaw", shaw), ("t5", t5), ("rope", rope)):
            np.testing.assert_allclose(pl.offset_logits(scheme, a, b, ks, **tables), direct, atol=1e-12)
    for scheme, spread in (("t5", 0.0), ("shaw", None), ("rope", None)):
        plus, minus = pl.offset_logits(scheme, q, key, [2, -2], **tables).T
        if spread == 0.0:
            assert np.ptp(plus - minus) < 1e-12
        else:
            assert np.std(plus - minus) > 0.1


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.t5_relative_bucket(1.5), TypeError, "relative_position"),
    (lambda: pl.t5_relative_bucket([0.0, 1.0]), TypeError, "relative_position"),
    (lambda: pl.t5_relative_bucket(True), TypeError, "relative_position"),
    (lambda: pl.t5_relative_bucket(3, bidirectional="yes"), TypeError, "bidirectional"),
    (lambda: pl.t5_relative_bucket(3, num_buckets=3), ValueError, "num_buckets"),
    (lambda: pl.t5_relative_bucket(3, num_buckets=1, bidirectional=False), ValueError, "num_buckets"),
    (lambda: pl.t5_relative_bucket(3, max_distance=8), ValueError, "max_distance"),
    (lambda: pl.t5_relative_bucket(3, max_distance=0), ValueError, "max_distance"),
    (lambda: pl.t5_position_bias(np.zeros((1, 2)), 4), ValueError, "bias_table"),
    (lambda: pl.shaw_relative_logits(np.ones((3, 4)), np.ones((3, 5)), np.ones((3, 4)), 1), ValueError, "key"),
    (lambda: pl.shaw_relative_logits(np.ones((3, 4)), np.ones((3, 4)), np.ones((5, 4)), 1), ValueError,
     "rel_embeddings"),
    (lambda: pl.shaw_relative_logits(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4)), -1), ValueError,
     "max_relative"),
    (lambda: pl.shaw_relative_attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((2, 4)), np.ones((3, 4)),
                                        np.ones((3, 4)), 1), ValueError, "value"),
    (lambda: pl.transformer_xl_score_terms(np.ones((2, 4)), np.ones((2, 4)), np.ones((4, 4)), np.ones((4, 4)),
                                           np.ones((3, 4)), np.ones(4), np.ones(4)), ValueError, "d_model"),
    (lambda: pl.transformer_xl_score_terms(np.ones((2, 4)), np.ones((2, 4)), np.ones((4, 4)), np.ones((4, 4)),
                                           np.ones((4, 4)), np.ones(3), np.ones(4)), ValueError, "u"),
    (lambda: pl.absolute_score_terms(np.ones((2, 4)), np.ones((2, 4)), np.ones((4, 4)), np.ones((4, 3))),
     ValueError, "w_k"),
    (lambda: pl.absolute_score_terms(np.ones((2, 4)), np.ones((2, 4)), np.ones((4, 4)), np.ones((4, 4)),
                                     [0.5, 1]), TypeError, "query_positions"),    (lambda: pl.offset_logits("alibi", np.ones(4), np.ones(4), [1]), ValueError, "scheme"),
    (lambda: pl.offset_logits("shaw", np.ones(4), np.ones(4), [1], shaw_table=np.ones((3, 4))), TypeError,
     "max_relative"),
    (lambda: pl.offset_logits("shaw", np.ones(4), np.ones(4), [1], shaw_table=np.ones((5, 4)), max_relative=1),
     ValueError, "shaw_table"),
    (lambda: pl.offset_logits("t5", np.ones(4), np.ones(5), [1], t5_table=np.ones(32)), ValueError, "key"),
    (lambda: pl.offset_logits("rope", np.ones(4), np.ones(4), [0.5]), TypeError, "offsets"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
