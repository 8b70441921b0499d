"""RoPE at inference: the KV-cache loop against a full recomputation and plain loops, the
dynamic-NTK inconsistency (zero up to the original length, nonzero past it), per-step
ALiBi / T5 biases against the full matrices."""
import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


def _weights(seed=0, n=24, d_model=12, d=8):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    w_q, w_k, w_v = (rng.normal(size=(d_model, d)) / np.sqrt(d_model) for _ in range(3))
    return x, w_q, w_k, w_v


def test_rope_with_given_frequencies_is_the_loop():
    """rope(x, pos, inv_freq=w) turns pair i by pos·w_i for any w (here dynamic NTK's), as the loop does."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 8))
    pos = [0, 1, 3, 7, 100]
    w = ref.dynamic_inv_freq(8, 10000.0, 4.0, 16, 40)
    got = pl.rope(x, pos, inv_freq=w)
    for r in range(5):
        np.testing.assert_allclose(got[r], ref.rope_vector(list(x[r]), pos[r], freqs=w), atol=1e-13)


def test_causal_attention_matches_the_written_out_definition():
    x, w_q, w_k, w_v = _weights(n=6)
    got = pl.causal_rope_attention(x, w_q, w_k, w_v)
    want = ref.causal_rope_attention(x.tolist(), w_q.tolist(), w_k.tolist(), w_v.tolist(), 10000.0)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_kv_cache_equals_the_full_recomputation():
    x, w_q, w_k, w_v = _weights()
    cached = pl.kv_cache_decode(x, w_q, w_k, w_v)
    np.testing.assert_allclose(cached.outputs, pl.causal_rope_attention(x, w_q, w_k, w_v), atol=1e-12)
    again = pl.recompute_decode(x, w_q, w_k, w_v)
    np.testing.assert_allclose(cached.outputs, again.outputs, atol=1e-12)
    np.testing.assert_allclose(cached.keys, again.keys, atol=1e-12)


@pytest.mark.parametrize("scaling", [{"rope_type": "linear", "factor": 4.0},
                                     {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8,
                                      "low_freq_factor": 1.0, "high_freq_factor": 4.0},
                                     {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8}])
def test_a_fixed_scaling_keeps_the_cache_consistent(scaling):
    x, w_q, w_k, w_v = _weights()
    a, b = pl.kv_cache_decode(x, w_q, w_k, w_v, rope_scaling=scaling), pl.recompute_decode(x, w_q, w_k, w_v, rope_scaling=scaling)
    np.testing.assert_allclose(a.outputs, b.outputs, atol=1e-12)


def test_dynamic_ntk_makes_the_cache_inconsistent_only_past_the_original_length():
    x, w_q, w_k, w_v = _weights(n=32)
    original = 12
    scaling = {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": original}
    a, b = pl.kv_cache_decode(x, w_q, w_k, w_v, rope_scaling=scaling), pl.recompute_decode(x, w_q, w_k, w_v, rope_scaling=scaling)
    err = np.abs(a.outputs - b.outputs).max(axis=1)
    assert err[:original].max() <= 1e-12           # length t + 1 <= original: nothing changes
    assert err[original:].min() > 1e-6              # past it: the cached keys carry old rotations
    # the key at position n was rotated with the frequencies of length n + 1; recomputing uses length 32
    n = 20
    w_then = ref.dynamic_inv_freq(8, 10000.0, 4.0, original, n + 1)
    np.testing.assert_allclose(a.keys[n], ref.rope_vector(list(x[n] @ w_k), n, freqs=w_then), atol=1e-12)
    assert np.abs(a.keys[n] - b.keys[n]).max() > 1e-3
    # keys cached before the switch keep the plain rotation; recomputing at length 32 rotates them anew
    plain = [ref.rope_vector(list(x[n] @ w_k), n) for n in range(original)]
    np.testing.assert_allclose(a.keys[:original], plain, atol=1e-12)
    assert np.abs(b.keys[:original] - plain).max() > 1e-3


def test_alibi_and_t5_step_biases_are_rows_of_the_full_matrices():
    heads = 4
    full = pl.alibi_causal_bias(10, heads)
    table = pl.t5_demo_bias_table(bidirectional=False, num_buckets=8, max_distance=16)
    t5_full = pl.t5_position_bias(table, 10, bidirectional=False, max_distance=16)
    for pos in range(10):
        np.testing.assert_allclose(pl.alibi_step_bias(pos, heads), full[:, pos, :pos + 1], atol=0)
        np.testing.assert_allclose(pl.alibi_step_bias(pos, heads), ref.alibi_step_bias(pos, heads))
        np.testing.assert_allclose(pl.t5_step_bias(pos, table, max_distance=16), t5_full[:, pos, :pos + 1], atol=0)


def test_inputs_are_checked():
    x, w_q, w_k, w_v = _weights()
    with pytest.raises(ValueError, match="w_k"):
        pl.kv_cache_decode(x, w_q, w_k[:, :4], w_v)
    with pytest.raises(ValueError, match="pos"):
        pl.alibi_step_bias(-1, 4)


# -- grouped-query attention ----------------------------------------------------------------------
@pytest.mark.parametrize("heads, kv_heads", [(4, 1), (4, 2), (6, 3), (2, 2)])
def test_gqa_attention_is_the_head_by_head_loop(heads, kv_heads):
    rng = np.random.default_rng(heads * 10 + kv_heads)
    q, k, v = rng.normal(size=(heads, 5, 8)), rng.normal(size=(kv_heads, 5, 8)), rng.normal(size=(kv_heads, 5, 3))
    np.testing.assert_allclose(pl.gqa_attention(q, k, v), ref.gqa_attention(q.tolist(), k.tolist(), v.tolist()),
                               atol=1e-12)


def test_gqa_equals_mha_with_copied_kv_heads_and_rotation_commutes_with_copying():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(8, 7, 6)), rng.normal(size=(2, 7, 6)), rng.normal(size=(2, 7, 6))
    np.testing.assert_allclose(pl.gqa_attention(q, k, v), pl.gqa_attention(q, pl.repeat_kv(k, 4), pl.repeat_kv(v, 4)),
                               atol=1e-14)
    pos = np.arange(7)
    np.testing.assert_array_equal(pl.repeat_kv(pl.rope(k, pos), 4), pl.rope(pl.repeat_kv(k, 4), pos))
    copied = pl.repeat_kv(k, 4)
    for h in range(8):                          # flash-attn's grouping: query head h uses KV head h // 4
        np.testing.assert_array_equal(copied[h], k[h // 4])


def test_kv_cache_numbers_count_one_key_and_one_value_per_kv_head():
    assert pl.kv_cache_numbers(8, 128) == 2048                  # Llama 3.1 8B, one layer: 2 × 8 × 128
    assert pl.kv_cache_numbers(32, 128, num_layers=32) == 2 * 32 * 128 * 32
    cfg = pl.MODEL_CONFIGS["Gemma-2B"]
    assert pl.kv_cache_numbers(cfg["num_key_value_heads"], cfg["head_dim"]) == 512   # MQA: one KV head


@pytest.mark.parametrize("call, name", [
    (lambda: pl.gqa_attention(np.zeros((3, 4, 8)), np.zeros((2, 4, 8)), np.zeros((2, 4, 8))), "multiple"),
    (lambda: pl.gqa_attention(np.zeros((4, 4, 8)), np.zeros((2, 5, 8)), np.zeros((2, 5, 8))), "key"),
    (lambda: pl.repeat_kv(np.zeros((2, 4, 8)), 0), "n_rep"),
    (lambda: pl.kv_cache_numbers(0, 128), "num_key_value_heads"),
])
def test_gqa_arguments_are_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("delta", [0, 3, 250, -2])
def test_moving_cached_keys_is_rotating_them_at_the_new_positions(delta):
    """𝓡_Δ 𝓡_n κ = 𝓡_{n+Δ} κ: keys cached at 0 … 5, moved by Δ, equal the loop reference's
    rotation of the raw keys at Δ … 5 + Δ; scores of a later query then match a recompute."""
    rng = np.random.default_rng(5)
    raw = rng.normal(size=(6, 8))
    cached = pl.rope(raw, np.arange(6))
    moved = pl.move_cached_keys(cached, delta)
    want = [ref.rope_vector(list(raw[n]), n + delta) for n in range(6)]
    np.testing.assert_allclose(moved, want, atol=1e-12)
    q = rng.normal(size=8)
    query = ref.rope_vector(list(q), 6 + delta)
    np.testing.assert_allclose(moved @ np.array(query), [ref.dot(query, w) for w in want], atol=1e-12)
    assert pl.move_cached_keys(cached[None], delta).shape == (1, 6, 8)      # a head axis in front
    with pytest.raises(ValueError, match="keys"):
        pl.move_cached_keys(np.ones(8), 1)


def test_decode_steps_with_grouped_heads_are_causal_gqa_row_by_row():
    """decode_step, step after step from an empty cache, gives each position's row of causal GQA
    (written out head by head in tests/reference.py); the cache holds each key rotated once, at
    its own position, and a step never changes the rows already cached."""
    from posenc.inference import decode_step

    rng = np.random.default_rng(4)
    heads, kv_heads, seq_len, d, d_v = 6, 2, 5, 4, 3
    q, k, v = rng.normal(size=(heads, seq_len, d)), rng.normal(size=(kv_heads, seq_len, d)), rng.normal(size=(kv_heads, seq_len, d_v))
    want = np.array(ref.gqa_attention(q.tolist(), k.tolist(), v.tolist()))
    key_cache, value_cache = np.zeros((kv_heads, 0, d)), np.zeros((kv_heads, 0, d_v))
    for t in range(seq_len):
        before = key_cache.copy()
        out, key_cache, value_cache = decode_step(q[:, t], k[:, t], v[:, t], t, key_cache, value_cache)
        np.testing.assert_allclose(out, want[:, t], atol=1e-12)
        np.testing.assert_array_equal(key_cache[:, :t], before)
        for g in range(kv_heads):
            np.testing.assert_allclose(key_cache[g, t], ref.rope_vector(list(k[g, t]), t), atol=1e-12)
    np.testing.assert_array_equal(value_cache, v)
