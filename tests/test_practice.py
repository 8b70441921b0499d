"""Positions in practice (notebook 11) against independent references: Hugging Face's, flash-attn's,
StreamingLLM's, gpt-oss's, torchscale's, Llama 4's and Qwen's documented behaviour written as plain
loops in tests/reference.py, and identities (a padded row scores like the unpadded sentence when its
ids are right; xPos depends on m − n only; bf16 keeps 8 significant bits)."""
import math
import re

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


# -- left padding -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_position_ids_match_hugging_faces_rule(seed):
    rng = np.random.default_rng(seed)
    mask = np.ones((4, 9), dtype=int)
    for row, pads in enumerate(rng.integers(0, 9, size=4)):
        mask[row, :pads] = 0                                   # left padding
    ids = pl.position_ids_from_mask(mask)
    assert ids.tolist() == [ref.hf_position_ids(r) for r in mask.tolist()]
    assert pl.position_ids_from_mask(mask[0]).tolist() == ids[0].tolist()   # one row works too
    assert pl.position_ids_from_mask(mask.astype(bool)).tolist() == ids.tolist()


def test_first_real_token_is_zero_and_decode_continues_after_the_last_real_one():
    mask = np.array([0, 0, 0, 1, 1, 1, 1])
    ids = pl.position_ids_from_mask(mask)
    assert ids[3] == 0 and ids[-1] == 3 and set(ids[:3]) == {pl.PAD_POSITION_ID}
    step = pl.position_ids_from_mask(np.append(mask, 1))       # generate appends a 1 to the mask
    assert step[-1] == 4 == mask.sum()


def test_a_padded_row_scores_like_the_unpadded_sentence_only_with_the_right_ids():
    """Absolute positions (sinusoidal PE added before W_q, W_k): only the mask's ids reproduce the
    unpadded scores. RoPE: a uniform shift (arange on a left-padded row) leaves every score among
    the real tokens unchanged, the relative property."""
    rng = np.random.default_rng(0)
    d, pads, n = 16, 3, 4
    x = rng.normal(size=(n, d))
    w_q, w_k = rng.normal(size=(2, d, d)) / 4
    ids = pl.position_ids_from_mask([0] * pads + [1] * n)[pads:]
    shifted = np.arange(pads, pads + n)

    def additive(pos):
        h = x + pl.encode_positions(pos, d)
        return (h @ w_q) @ (h @ w_k).T

    def rotary(pos):
        return pl.rope(x @ w_q, pos) @ pl.rope(x @ w_k, pos).T

    np.testing.assert_allclose(additive(ids), additive(np.arange(n)), atol=1e-12)
    assert np.abs(additive(shifted) - additive(np.arange(n))).max() > 0.1
    np.testing.assert_allclose(rotary(ids), rotary(np.arange(n)), atol=1e-12)
    np.testing.assert_allclose(rotary(shifted), rotary(np.arange(n)), atol=1e-12)


def test_without_the_fill_leading_pads_would_get_minus_one():
    mask = np.array([0, 0, 1, 1])
    assert (np.cumsum(mask) - 1).tolist()[:2] == [-1, -1]
    assert pl.position_ids_from_mask(mask).tolist() == [1, 1, 0, 1]


@pytest.mark.parametrize("bad", [[[0, 2, 1]], [], [[0.5, 1.0]], "abc"])
def test_position_ids_refuse_what_is_not_a_mask(bad):
    with pytest.raises(ValueError):
        pl.position_ids_from_mask(bad)


# -- packing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("lengths", [[3, 5, 2], [1], [4, 1, 1, 6], [7, 7]])
def test_packing_matches_the_loops(lengths):
    assert pl.packed_position_ids(lengths).tolist() == ref.packed_positions(lengths)
    cu = pl.cu_seqlens(lengths)
    assert cu.dtype == np.int32 and cu.tolist() == ref.cumulative_lengths(lengths)
    total = sum(lengths)
    mask = pl.packed_causal_mask(lengths)
    assert mask.tolist() == [[ref.block_causal_visible(lengths, m, n) for n in range(total)] for m in range(total)]


@pytest.mark.parametrize("lengths", [[3, 5, 2], [4, 1, 1, 6]])
def test_cu_seqlens_is_where_the_packed_ids_restart(lengths):
    # Hugging Face's _prepare_from_posids: starts are where position_ids == 0, plus the total length
    ids = pl.packed_position_ids(lengths)
    assert pl.cu_seqlens(lengths).tolist() == np.flatnonzero(ids == 0).tolist() + [len(ids)]


@pytest.mark.parametrize("bad", [[], [0, 3], [2.5], [[1, 2]]])
def test_packing_refuses_bad_lengths(bad):
    with pytest.raises(ValueError):
        pl.packed_position_ids(bad)


@pytest.mark.parametrize("seq_len,window", [(6, 3), (5, 1), (4, 10)])
def test_sliding_window_mask(seq_len, window):
    mask = pl.sliding_window_mask(seq_len, window)
    expect = [[n <= m and n > m - window for n in range(seq_len)] for m in range(seq_len)]
    assert mask.tolist() == expect


# -- precision ----------------------------------------------------------------------------------
def kept_exactly(pos, bits):
    """An integer is exact in a float with `bits` significant bits iff it is a multiple of
    2^(floor(log2 pos) + 1 - bits) (for pos >= 2^bits)."""
    if pos < 2 ** bits:
        return True
    return pos % 2 ** (math.floor(math.log2(pos)) + 1 - bits) == 0


@pytest.mark.parametrize("dtype,bits", [("bfloat16", 8), ("float16", 11)])
def test_which_integers_survive(dtype, bits):
    pos = np.arange(0, 8192)
    stored = pl.stored_positions(pos, dtype)
    assert [bool(s == p) for s, p in zip(stored, pos)] == [kept_exactly(int(p), bits) for p in pos]
    assert np.all(np.abs(stored - pos) <= np.maximum(1, 2.0 ** (np.floor(np.log2(np.maximum(pos, 1))) - bits)))


def test_bf16_spacing_and_fp16_overflow():
    assert np.unique(np.diff(np.unique(pl.stored_positions(np.arange(2048, 4096), "bfloat16")))).tolist() == [16]
    assert np.unique(np.diff(np.unique(pl.stored_positions(np.arange(4096, 8192), "bfloat16")))).tolist() == [32]
    assert pl.stored_positions([256, 257], "bfloat16").tolist() == [256, 256]
    assert pl.stored_positions([65504, 70000], "float16").tolist() == [65504, np.inf]
    assert pl.stored_positions([131071], "float32").tolist() == [131071]


def test_angles_in_float64_are_the_formula_and_float32_is_close():
    pos = [0, 1, 4095, 131071]
    exact = pl.rope_angles_in(pos, 16, 500000.0, "float64")
    loop = [[p * 500000.0 ** (-2 * i / 16) for i in range(8)] for p in pos]
    np.testing.assert_allclose(exact, loop, rtol=1e-14)
    err32 = pl.angle_error(pl.rope_angles_in(pos, 16, 500000.0, "float32"), exact)
    assert err32[:, 0].max() == 0                              # w_0 = 1 and integers < 2^24 are exact
    assert err32.max() < 131071 * 2.0 ** -22                   # a few float32 ulps of the angle
    err16 = pl.angle_error(pl.rope_angles_in([4095], 16, 500000.0, "bfloat16"), exact[2:3])
    assert err16[0, 0] == pytest.approx(1.0)                   # 4095 is stored as 4096


def test_angle_error_wraps_around_the_circle():
    np.testing.assert_allclose(pl.angle_error([2 * np.pi + 0.1, -0.2, np.pi], [0.0, 0.0, 0.0]),
                               [0.1, 0.2, np.pi], atol=1e-12)


def test_score_from_angles_is_the_rope_score():
    rng = np.random.default_rng(3)
    q, key = rng.normal(size=(2, 16))
    w = pl.frequencies(16)
    for m, n in ((0, 5), (40, 3), (1000, 1007)):
        direct = pl.rope(q[None], [m])[0] @ pl.rope(key[None], [n])[0]
        assert pl.rope_score_from_angles(q, key, m * w, n * w) == pytest.approx(direct, abs=1e-10)


# -- caches that drop tokens --------------------------------------------------------------------
def start_recent_loop(n, start, recent):
    """StartRecentKVCache: nothing dropped up to start + recent tokens, then the first `start`
    and the last `recent`."""
    if n <= start + recent:
        return list(range(n))
    return list(range(start)) + list(range(n - recent, n))


@pytest.mark.parametrize("n", [1, 5, 12, 13, 100])
def test_streaming_cache(n):
    kept, pos = pl.streaming_cache(n, 4, 8)
    assert kept.tolist() == start_recent_loop(n, 4, 8)
    assert pos.tolist() == list(range(len(kept)))
    assert pos.max() <= 11                                     # offsets never exceed the cache


@pytest.mark.parametrize("sink", [-3.0, 0.0, 2.5])
def test_sink_softmax_matches_gpt_oss(sink):
    scores = [0.3, -1.2, 2.0, 0.7]
    w = pl.softmax_with_sink(np.array(scores), sink)
    np.testing.assert_allclose(w, ref.sink_softmax(scores, sink), rtol=1e-12)
    assert w.sum() < 1
    batch = pl.softmax_with_sink(np.array([scores, scores[::-1]]), sink)
    np.testing.assert_allclose(batch[1], ref.sink_softmax(scores[::-1], sink), rtol=1e-12)


def test_a_very_negative_sink_is_plain_softmax():
    s = np.array([0.1, 0.5, -0.3])
    np.testing.assert_allclose(pl.softmax_with_sink(s, -1e9), pl.softmax(s), atol=1e-15)


def test_xpos_matches_torchscale_and_depends_on_the_offset_only():
    pos = np.array([-300, 0, 17, 512, 4000])
    np.testing.assert_allclose(pl.xpos_scale(8, pos),
                               [[ref.xpos_factor(i, 8, p) for i in range(4)] for p in pos], rtol=1e-12)
    rng = np.random.default_rng(1)
    q, key = rng.normal(size=(2, 8))

    def score(m, n):
        qm = pl.rope(q[None], [m])[0] * np.repeat(pl.xpos_scale(8, [m])[0], 2)
        kn = pl.rope(key[None], [n])[0] * np.repeat(pl.xpos_scale(8, [-n])[0], 2)
        return qm @ kn

    assert score(10, 3) == pytest.approx(score(510, 503), rel=1e-9)
    assert score(3, 10) != pytest.approx(score(10, 3))


# -- newer layouts ------------------------------------------------------------------------------
def test_llama4_layers_and_temperature():
    assert pl.llama4_rope_layers(8).tolist() == [1, 1, 1, 0, 1, 1, 1, 0]
    assert pl.llama4_rope_layers(6, 2).tolist() == [1, 0, 1, 0, 1, 0]
    pos = [0, 100, 8190, 8191, 20000, 131071, 10 ** 7]
    np.testing.assert_allclose(pl.llama4_attn_scale(pos), [ref.llama4_scale(p) for p in pos], rtol=1e-14)
    assert pl.llama4_attn_scale([8190])[0] == 1.0 and pl.llama4_attn_scale([8191])[0] > 1.0


def test_qwen25_vl_time_ids_reproduce_the_documented_example():
    # get_rope_index's docstring: tokens_per_second 25, temporal_patch_size 2, fps 1 -> ids 0, 50, 100
    assert pl.qwen25_vl_time_ids(3, 2 / 1, 25).tolist() == [0, 50, 100]
    assert pl.qwen25_vl_time_ids(4, 0.5, 3).tolist() == [0, 1, 3, 4]        # truncated, like .long()


@pytest.mark.parametrize("section", [(16, 24, 24), (24, 20, 20), (2, 1, 1), (4, 2, 2)])
def test_mrope_pair_axes(section):
    contiguous = pl.mrope_pair_axes(section)
    assert contiguous.tolist() == np.repeat(np.arange(3), section).tolist()
    if 3 * max(section[1], section[2]) <= sum(section) + 2:
        inter = pl.mrope_pair_axes(section, interleaved=True)
        assert inter.tolist() == ref.interleaved_axes(section)
        assert np.bincount(inter, minlength=3).tolist() == list(section)


def test_qwen3_vl_layout():
    axes = pl.mrope_pair_axes((24, 20, 20), interleaved=True)
    assert axes[:6].tolist() == [0, 1, 2, 0, 1, 2] and axes[60:].tolist() == [0, 0, 0, 0]


def test_p_rope_keeps_the_fastest_pairs_at_the_heads_frequencies():
    w = pl.p_rope_frequencies(16, 0.25)
    np.testing.assert_array_equal(w[:2], pl.frequencies(16)[:2])
    assert not w[2:].any()
    np.testing.assert_array_equal(pl.p_rope_frequencies(16, 1.0), pl.frequencies(16))


def test_masked_rope_attention_is_the_loop_with_a_mask():
    rng = np.random.default_rng(5)
    q, key, value = rng.normal(size=(3, 5, 4))
    pos = [0, 1, 2, 0, 1]
    visible = pl.packed_causal_mask([3, 2])
    out, weights = pl.masked_rope_attention(q, key, value, pos, visible)
    for m in range(5):
        qm = ref.rope_vector(list(q[m]), pos[m])
        scores = [ref.dot(qm, ref.rope_vector(list(key[n]), pos[n])) / 2.0 if visible[m, n] else None
                  for n in range(5)]
        seen = [n for n in range(5) if scores[n] is not None]
        w = ref.softmax([scores[n] for n in seen])
        np.testing.assert_allclose(weights[m, seen], w, rtol=1e-12)
        assert weights[m, [n for n in range(5) if n not in seen]].sum() == 0
        np.testing.assert_allclose(out[m], sum(wi * value[n] for wi, n in zip(w, seen)), rtol=1e-12)


def test_phi3_config_is_the_one_the_longrope_tests_use():
    from test_real_models import PHI3_LONG, PHI3_SHORT

    scaling = pl.PHI3_LONGROPE_CONFIG["rope_scaling"]
    assert scaling["long_factor"] == PHI3_LONG and scaling["short_factor"] == PHI3_SHORT
    short, att = pl.rope_frequencies_from_config(pl.PHI3_LONGROPE_CONFIG, seq_len=4096)
    long, _ = pl.rope_frequencies_from_config(pl.PHI3_LONGROPE_CONFIG, seq_len=131072)
    np.testing.assert_allclose(pl.frequencies(96) / short, PHI3_SHORT, rtol=1e-12)
    np.testing.assert_allclose(pl.frequencies(96) / long, PHI3_LONG, rtol=1e-12)
    assert att == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))


# -- flash-attn's ALiBi ----------------------------------------------------------------------------
@pytest.mark.parametrize("sq, sk, causal", [(6, 6, False), (6, 6, True), (1, 9, False), (3, 7, True)])
def test_flash_alibi_bias_is_the_kernels_rule(sq, sk, causal):
    slopes = pl.alibi_slopes(4)
    np.testing.assert_allclose(pl.flash_alibi_bias(slopes, sq, sk, causal),
                               ref.flash_alibi_bias(slopes.tolist(), sq, sk, causal), atol=1e-15)


def test_the_kernels_causal_bias_gives_alibis_attention_and_a_decoding_row_is_the_step_bias():
    rng = np.random.default_rng(0)
    n, heads = 7, 4
    scores = rng.normal(size=(heads, n, n))
    visible = pl.flash_causal_mask(n, n)
    np.testing.assert_array_equal(visible, np.tril(np.ones((n, n), dtype=bool)))
    kernel = pl.softmax(np.where(visible, scores + pl.flash_alibi_bias(pl.alibi_slopes(heads), n, n, True), -np.inf))
    textbook = pl.softmax(np.where(visible, scores + pl.alibi_causal_bias(n, heads), -np.inf))
    np.testing.assert_allclose(kernel, textbook, atol=1e-12)
    step = pl.flash_alibi_bias(pl.alibi_slopes(heads), 1, n, causal=False)[:, 0]
    np.testing.assert_allclose(step, pl.alibi_step_bias(n - 1, heads), atol=1e-15)
    assert pl.flash_causal_mask(2, 5).astype(int).tolist() == [[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]   # docstring's example


# -- local and global layers ------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(pl.LOCAL_GLOBAL_CONFIGS))
def test_layer_types_follow_transformers_rules(name):
    cfg = pl.LOCAL_GLOBAL_CONFIGS[name]
    types = pl.layer_types(cfg["num_hidden_layers"], cfg["sliding_window_pattern"])
    assert [t == "sliding_attention" for t in types] == [
        ref.gemma_is_sliding(i, cfg["sliding_window_pattern"]) for i in range(cfg["num_hidden_layers"])]
    assert re.search(r"\b[\w.-]+/[\w.-]+ [\w./-]+\.py\b", cfg["source"])


def test_gemma_patterns_and_cache():
    assert pl.layer_types(4, 2) == ("sliding_attention", "full_attention") * 2                 # Gemma 2: layer 0 slides
    g3 = pl.layer_types(26, 6)
    assert [i for i, t in enumerate(g3) if t == "full_attention"] == [5, 11, 17, 23]
    assert pl.layer_cache_tokens(g3, 32768, 512) == 4 * 32768 + 22 * 512
    assert pl.layer_cache_tokens(g3, 100, 512) == 26 * 100                                     # shorter than the window


def test_gemma_3_local_layers_use_the_smaller_base():
    cfg = pl.LOCAL_GLOBAL_CONFIGS["Gemma-3-1B"]
    assert cfg["rope_local_base_freq"] == 10000.0 < cfg["rope_theta"] == 1000000.0
