"""posenc.context: RoPE frequencies under PI, NTK-aware scaling and YaRN, and the per-pair diagnostics.

The references (tests/reference.py) are written independently, as plain loops with the math
module, after Hugging Face transformers' ``src/transformers/modeling_rope_utils.py``:

* ``_compute_linear_scaling_rope_parameters``: ``inv_freq /= factor``, attention factor 1;
* ``_compute_dynamic_ntk_parameters`` at its static point (and the static NTK-aware rule it
  reduces to): ``base * factor ** (dim / (dim - 2))``;
* ``_compute_yarn_parameters`` (default ``truncate=True``): ``find_correction_dim(r) =
  dim * ln(L / (r * 2π)) / (2 ln base)``, ``low = max(floor(dim(beta_fast)), 0)``,
  ``high = min(ceil(dim(beta_slow)), dim - 1)``, ``ramp_j = clamp((j - low) / (high - low), 0, 1)``
  (``high += 0.001`` when equal), ``inv_freq = interp * ramp + extrap * (1 - ramp)``,
  attention factor ``0.1 ln(factor) + 1`` (1 when factor <= 1);
* ``_compute_dynamic_ntk_parameters``: ``seq_len = seq_len if seq_len > max_pos else max_pos``,
  ``base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))``;
* ``_compute_llama3_parameters``: ``wavelen = 2π / inv_freq``; ``wavelen > L / low_freq_factor``:
  ``inv_freq / factor``; ``wavelen < L / high_freq_factor``: unchanged; otherwise
  ``(1 - smooth) * inv_freq / factor + smooth * inv_freq`` with
  ``smooth = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)``.
"""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pl
import reference as ref
from posenc.context import dynamic_ntk_scale, rope_scaled_score, yarn_attention_factor
from support import assert_refused_clearly


dims = st.sampled_from([4, 8, 16, 32, 64, 128])
bases = st.sampled_from([100.0, 10000.0, 500000.0, 1e6])
factors = st.sampled_from([1.0, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0])
lengths = st.sampled_from([16, 64, 512, 2048, 4096, 8192])


@given(dims, bases, factors)
def test_pi_matches_reference_and_divides_every_angle_by_s(d, base, s):
    got, att = pl.rope_frequencies(d, base, "pi", s)
    want, want_att = ref.linear_inv_freq(d, base, s), 1.0
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert att == want_att == 1.0
    # identity: every pair's angle at position pos equals the unscaled angle at pos / s
    plain, _ = pl.rope_frequencies(d, base)
    for pos in (1, 7, 1000):
        np.testing.assert_allclose(pos * got, (pos / s) * plain, rtol=1e-12)


@given(dims, bases, factors)
def test_ntk_matches_reference(d, base, s):
    got, att = pl.rope_frequencies(d, base, "ntk", s)
    want = ref.ntk_inv_freq(d, base, s)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert att == 1.0


@given(dims, bases, factors, lengths)
def test_ntk_is_dynamic_ntk_at_the_length_where_its_factor_is_s(d, base, s, max_pos):
    """HF's dynamic rule at seq_len with factor·seq_len/L − (factor − 1) = s is the static rule."""
    # choose the dynamic config: factor f = s, seq_len = L * (2s - 1) / s  =>  f*seq/L - (f-1) = s
    seq_len = max_pos * (2 * s - 1) / s
    want = ref.dynamic_inv_freq(d, base, s, max_pos, seq_len)
    got, _ = pl.rope_frequencies(d, base, "ntk", s)
    np.testing.assert_allclose(got, want, rtol=1e-9)


@given(dims, bases, factors)
def test_ntk_keeps_the_fastest_pair_and_slows_the_slowest_by_exactly_s(d, base, s):
    plain, _ = pl.rope_frequencies(d, base)
    got, _ = pl.rope_frequencies(d, base, "ntk", s)
    assert got[0] == plain[0] == 1.0
    assert math.isclose(plain[-1] / got[-1], s, rel_tol=1e-10)
    slowdown = plain / got
    assert np.all(np.diff(slowdown) >= -1e-12) and np.all((slowdown >= 1 - 1e-12) & (slowdown <= s + 1e-9))


@given(dims, bases, factors, lengths)
def test_yarn_matches_reference(d, base, s, max_pos):
    got, att = pl.rope_frequencies(d, base, "yarn", s, train_len=max_pos)
    want, want_att = ref.yarn_inv_freq(d, base, s, max_pos), ref.yarn_attention_factor(s)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert math.isclose(att, want_att, rel_tol=1e-15)


@given(dims, bases, factors, lengths, st.sampled_from([(32.0, 1.0), (16.0, 2.0), (0.2, 0.1), (64.0, 0.5)]))
def test_yarn_pairs_by_turns_per_original_context(d, base, s, max_pos, betas):
    """Pairs turning more than beta_fast times in L are untouched, fewer than beta_slow: divided by s."""
    beta_fast, beta_slow = betas
    got, _ = pl.rope_frequencies(d, base, "yarn", s, max_pos, beta_fast=beta_fast, beta_slow=beta_slow)
    want = ref.yarn_inv_freq(d, base, s, max_pos, beta_fast, beta_slow)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for j, w in enumerate(ref.frequencies(d, base)):
        turns = max_pos * w / (2 * math.pi)
        if turns > beta_fast:
            assert got[j] == pytest.approx(w, rel=1e-12), (j, turns)
        if turns < beta_slow:
            assert got[j] == pytest.approx(w / s, rel=1e-12), (j, turns)


def test_yarn_correction_range_rounds_outward_as_the_reference():
    # d = 128, base 10000, L = 4096 (a Llama-2 head): dim(32) = 20.94 -> 20, dim(1) = 45.03 -> 46
    d, base, L = 128, 10000.0, 4096
    exact = [d * math.log(L / (r * 2 * math.pi)) / (2 * math.log(base)) for r in (32.0, 1.0)]
    assert 20 < exact[0] < 21 and 45 < exact[1] < 46
    assert pl.yarn_correction_range(d, L, base) == (20, 46)
    # the toy model of notebook 09: d = 8, L = 16 -> (0, 1): pair 0 kept, pairs 1-3 interpolated
    assert pl.yarn_correction_range(8, 16) == (0, 1)
    np.testing.assert_array_equal(pl.yarn_ramp(8, 16), [1, 0, 0, 0])     # the paper's γ: 1 keeps, 0 interpolates
    # clipping at the top is to dim - 1 (not dim/2 - 1), as in the reference
    assert pl.yarn_correction_range(8, 10**6, 100.0)[1] == 7


def test_attention_factor():
    for s in (1.0, 2.0, 4.0, 16.0, 32.0):
        want = 1.0 if s <= 1 else 0.1 * math.log(s) + 1.0
        assert yarn_attention_factor(s) == pytest.approx(want, rel=1e-15)
    assert round(yarn_attention_factor(4), 4) == 1.1386
    assert round(yarn_attention_factor(16), 4) == 1.2773


@given(dims, bases, lengths)
def test_factor_one_changes_nothing(d, base, L):
    plain, _ = pl.rope_frequencies(d, base)
    np.testing.assert_allclose(plain, ref.frequencies(d, base), rtol=1e-12)
    np.testing.assert_allclose(plain, pl.frequencies(d, base), rtol=0)
    for rope_type in pl.ROPE_TYPES:
        got, att = pl.rope_frequencies(d, base, rope_type, 1.0, L)
        np.testing.assert_allclose(got, plain, rtol=1e-12)
        assert att == 1.0


def test_none_ignores_the_factor():
    got, att = pl.rope_frequencies(16, 10000.0, "none", 8.0)
    np.testing.assert_array_equal(got, pl.frequencies(16))
    assert att == 1.0


@given(dims, bases, lengths)
def test_rotations_per_context_is_length_over_wavelength(d, base, L):
    want = [L / (2 * math.pi / w) for w in ref.frequencies(d, base)]
    np.testing.assert_allclose(pl.rotations_per_context(d, L, base), want, rtol=1e-12)


def test_angle_coverage_by_loops():
    d, L, target = 16, 64, 256
    cov = pl.rope_angle_coverage(d, L, target)
    for j, w in enumerate(ref.frequencies(d, 10000.0)):
        train_max = (L - 1) * w
        assert cov.train_angle[j] == pytest.approx(train_max, rel=1e-12)
        assert cov.target_angle[j] == pytest.approx((target - 1) * w, rel=1e-12)
        assert cov.full_turn[j] == (train_max >= 2 * math.pi)
        # wavelength longer than the training length <=> never a full turn in training (here)
        assert cov.full_turn[j] == (2 * math.pi / w <= L - 1)
        assert cov.unseen[j] == (not cov.full_turn[j])
    # wavelengths 2π·10^(i/2) = 6.3, 19.9, 62.8, 198.7, ...: the first three fit in 63 offsets
    assert cov.unseen.sum() == 5 and cov.attention_factor == 1.0


def test_coverage_of_the_toy_model_and_a_llama_head():
    toy = pl.rope_angle_coverage(8, 16, 64)            # d = 8 per head, trained on 16 tokens
    assert toy.full_turn.tolist() == [True, False, False, False]
    assert toy.unseen.tolist() == [False, True, True, True]
    head = pl.rope_angle_coverage(128, 4096, 16384)
    # pairs with (L - 1) w_i < 2π are i > 64 ln(4095 / 2π) / ln(10000) = 45.0...: 46 .. 63
    first = 64 * math.log(4095 / (2 * math.pi)) / math.log(10000)
    assert np.flatnonzero(head.unseen).tolist() == list(range(math.floor(first) + 1, 64))


@given(dims, lengths, st.sampled_from([2, 4, 8]))
def test_pi_at_s_times_the_length_meets_no_new_angle(d, L, s):
    cov = pl.rope_angle_coverage(d, L, s * L, rope_type="pi", factor=s)
    assert not cov.unseen.any()
    np.testing.assert_allclose(cov.slowdown, s, rtol=1e-12)
    plain = pl.rope_angle_coverage(d, L, s * L)
    assert plain.unseen.sum() == (~plain.full_turn).sum()


def test_yarn_coverage_keeps_fast_pairs_and_interpolates_slow_ones():
    cov = pl.rope_angle_coverage(128, 4096, 16384, rope_type="yarn", factor=4)
    r = cov.rotations
    assert np.all(cov.slowdown[r > 32] == pytest.approx(1.0))
    assert np.all(cov.slowdown[r < 1] == pytest.approx(4.0))
    assert not cov.unseen.any()
    assert cov.attention_factor == pytest.approx(0.1 * math.log(4) + 1)


def test_scaled_score_is_the_mean_cosine():
    ks = np.arange(0, 50)
    for rope_type, s in (("none", 1.0), ("pi", 4.0), ("ntk", 4.0), ("yarn", 4.0)):
        w, att = pl.rope_frequencies(8, 10000.0, rope_type, s, 16)
        want = [sum(math.cos(k * wi) for wi in w) / 4 for k in ks]
        np.testing.assert_allclose(rope_scaled_score(8, ks, rope_type=rope_type, factor=s, train_len=16),
                                   want, atol=1e-12)
        np.testing.assert_allclose(rope_scaled_score(8, ks, rope_type=rope_type, factor=s, train_len=16,
                                                        with_attention_factor=True),
                                   np.array(want) * att ** 2, atol=1e-12)
    # plain RoPE's curve is 04's sum of cosines, divided by the number of pairs
    np.testing.assert_allclose(rope_scaled_score(16, ks), pl.pe_dot_by_offset(ks, 16) / 8, atol=1e-12)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.rope_frequencies(8, rope_type="rope"), ValueError, "rope_type"),
    (lambda: pl.rope_frequencies(8, rope_type="pi", factor=0.5), ValueError, "factor"),
    (lambda: pl.rope_frequencies(8, rope_type="yarn", factor=2), ValueError, "train_len"),
    (lambda: pl.rope_frequencies(2, rope_type="ntk", factor=2), ValueError, "d_model"),
    (lambda: pl.rope_frequencies(7), ValueError, "d_model"),
    (lambda: pl.rope_frequencies(8, base=1.0), ValueError, "base"),
    (lambda: pl.rope_frequencies(8, rope_type="yarn", factor=2, train_len=16, beta_fast=1, beta_slow=2),
     ValueError, "beta_slow"),
    (lambda: pl.rope_angle_coverage(8, 1, 16), ValueError, "train_len"),
    (lambda: pl.yarn_correction_range(8, 0), ValueError, "train_len"),
    (lambda: rope_scaled_score(8, [0, float("nan")]), ValueError, "offsets"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


@given(dims, bases, factors, lengths, st.sampled_from([None, 1, 100, 4096, 8192, 65536]))
def test_dynamic_matches_reference(d, base, s, max_pos, seq_len):
    got, att = pl.rope_frequencies(d, base, "dynamic", s, train_len=max_pos, seq_len=seq_len)
    current = max_pos if seq_len is None or seq_len <= max_pos else seq_len
    np.testing.assert_allclose(got, ref.dynamic_inv_freq(d, base, s, max_pos, current), rtol=1e-9)
    assert att == 1.0


def test_dynamic_changes_nothing_up_to_the_training_length_and_gives_5_at_twice_it():
    plain, _ = pl.rope_frequencies(128)
    for seq_len in (None, 1, 2048, 4096):
        got, _ = pl.rope_frequencies(128, rope_type="dynamic", factor=4, train_len=4096, seq_len=seq_len)
        np.testing.assert_allclose(got, plain, rtol=1e-12)
    # factor 4 at twice the length: (4 * 2 - 3) = 5, the slowest pair slowed exactly 5 times
    got, _ = pl.rope_frequencies(128, rope_type="dynamic", factor=4, train_len=4096, seq_len=8192)
    assert plain[-1] / got[-1] == pytest.approx(5.0, rel=1e-12)
    assert plain[0] / got[0] == pytest.approx(1.0, rel=1e-12)


@given(st.sampled_from([64, 128]), st.sampled_from([10000.0, 500000.0]), st.sampled_from([2.0, 8.0, 32.0]),
       st.sampled_from([(1.0, 4.0), (1.0, 2.0), (0.5, 8.0)]), st.sampled_from([2048, 8192]))
def test_llama3_matches_reference(d, base, s, freq_factors, old_len):
    low, high = freq_factors
    got, att = pl.rope_frequencies(d, base, "llama3", s, train_len=old_len,
                                   low_freq_factor=low, high_freq_factor=high)
    np.testing.assert_allclose(got, ref.llama3_inv_freq(d, base, s, low, high, old_len), rtol=1e-12)
    assert att == 1.0


def test_llama3_at_llama_3_1_settings():
    """Llama 3.1: rope_theta 500000, factor 8, low 1, high 4, original 8192, head_dim 128.
    Wavelengths below 8192 / 4 = 2048 are kept, above 8192 are divided by 8."""
    got, _ = pl.rope_frequencies(128, 500000.0, "llama3", 8, train_len=8192)
    plain = np.array(ref.frequencies(128, 500000.0))
    wavelen = 2 * np.pi / plain
    ratio = plain / got
    np.testing.assert_allclose(ratio[wavelen < 2048], 1.0, rtol=1e-12)
    np.testing.assert_allclose(ratio[wavelen > 8192], 8.0, rtol=1e-12)
    mid = (wavelen >= 2048) & (wavelen <= 8192)
    assert mid.any() and np.all((ratio[mid] >= 1.0) & (ratio[mid] <= 8.0))


@pytest.mark.parametrize("call,words", [
    (lambda: pl.rope_frequencies(64, rope_type="dynamic", factor=2), "train_len"),
    (lambda: pl.rope_frequencies(64, rope_type="llama3", factor=8), "train_len"),
    (lambda: pl.rope_frequencies(64, rope_type="llama3", factor=8, train_len=8192,
                                 low_freq_factor=4.0, high_freq_factor=1.0), "high_freq_factor"),
    (lambda: pl.rope_frequencies(64, rope_type="dynamic", factor=2, train_len=16, seq_len=0), "seq_len"),
])
def test_dynamic_and_llama3_refuse_missing_or_bad_arguments(call, words):
    assert_refused_clearly(call, ValueError, words)


# ---------------------------------------------------------------------------
# How large the base must be (Men et al. 2024), entropy-invariant scaling, β-base digits
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("factor", [2.0, 4.0, 8.0])
@pytest.mark.parametrize("ratio", [0.5, 1.0, 1.25, 2.0, 4.0])
def test_dynamic_scale_is_the_papers_max_or_hugging_faces_line(factor, ratio):
    """YaRN §3.3: s = max(1, L′/L). Hugging Face: factor·L′/L − (factor − 1) past L, 1 before; the
    dynamic frequencies are NTK-aware's base with that scale (reference.dynamic_inv_freq)."""
    L = 1000
    seq_len = int(ratio * L)
    assert dynamic_ntk_scale(seq_len, L) == max(1.0, seq_len / L)
    want = factor * seq_len / L - (factor - 1) if seq_len > L else 1.0
    assert dynamic_ntk_scale(seq_len, L, factor) == pytest.approx(want, rel=1e-12)
    got, _ = pl.rope_frequencies(64, rope_type="dynamic", factor=factor, train_len=L, seq_len=seq_len)
    np.testing.assert_allclose(got, ref.dynamic_inv_freq(64, 10000.0, factor, L, seq_len), rtol=1e-12)
    np.testing.assert_allclose(got, ref.ntk_inv_freq(64, 10000.0, want), rtol=1e-12)


@pytest.mark.parametrize("d,L", [(128, 4096), (64, 2048), (8, 16)])
def test_yarn_paper_ramp_is_eq_18_linear_in_turns(d, L):
    """Peng et al. 2023 eq. 18 with α = 1, β = 32: 0 below one turn, 1 above 32, linear in r between."""
    got = pl.yarn_paper_ramp(d, L)
    for i, w in enumerate(ref.frequencies(d)):
        r = L * w / (2 * math.pi)
        want = 0.0 if r < 1 else 1.0 if r > 32 else (r - 1) / 31
        assert got[i] == pytest.approx(want, abs=1e-12)


def test_softmax_entropy_matches_the_loop():
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [5.0, 5.0, 5.0, 5.0]])
    for row, h in zip(logits, pl.softmax_entropy(logits)):
        assert abs(h - ref.entropy(ref.softmax(list(row)))) < 1e-12
    assert abs(pl.softmax_entropy(logits)[1] - np.log(4)) < 1e-12


def test_entropy_invariant_scale_is_a_log_ratio():
    np.testing.assert_allclose(pl.entropy_invariant_scale([512, 4096, 512 ** 2], 512), [1.0, 12 / 9, 2.0])


def test_beta_digits_are_the_positional_digits():
    np.testing.assert_array_equal(pl.beta_digits(1234, 10, 5), [4, 3, 2, 1, 0])
    assert int("".join(str(int(b)) for b in pl.beta_digits(45, 2, 6)[::-1]), 2) == 45


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.entropy_invariant_scale([1], 512), ValueError, "seq_len"),
    (lambda: pl.beta_digits(10, 1.0, 3), ValueError, "beta"),
])
def test_new_helpers_refuse_bad_input_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


# -- Self-Extend and ReRoPE: offsets remapped ----------------------------------------------------
@pytest.mark.parametrize("seq_len, g, w", [(12, 2, 4), (20, 3, 5), (9, 4, 16), (33, 8, 8)])
def test_self_extend_offsets_are_longlms_rule(seq_len, g, w):
    got = pl.self_extend_offsets(seq_len, g, w)
    for i in range(seq_len):
        for j in range(seq_len):
            if j > i:
                assert np.isnan(got[i, j])
            else:
                assert got[i, j] == pytest.approx(ref.self_extend_offset(i, j, g, w, seq_len))


@pytest.mark.parametrize("leaky", [None, 2.0, 16.0])
def test_rerope_offsets_are_the_patchs_rule(leaky):
    got = pl.rerope_offsets(15, 4, leaky_factor=leaky)
    for i in range(15):
        for j in range(i + 1):
            assert got[i, j] == pytest.approx(ref.rerope_offset(i, j, 4, leaky))


def test_offset_maps_keep_neighbours_and_stay_inside_training_offsets():
    """Inside the window every map is the plain offset; beyond it Self-Extend grows about G times
    slower, ReRoPE stops at the window and Leaky ReRoPE grows k times slower."""
    plain = np.arange(64)[:, None] - np.arange(64)[None, :]
    near = (plain >= 0) & (plain < 8)
    for k in (pl.self_extend_offsets(64, 4, 8), pl.rerope_offsets(64, 8), pl.rerope_offsets(64, 8, leaky_factor=4)):
        np.testing.assert_array_equal(k[near], plain[near])
    assert np.nanmax(pl.self_extend_offsets(64, 4, 8)) == 63 // 4 + 8 - 2
    assert np.nanmax(pl.rerope_offsets(64, 8)) == 8
    assert np.nanmax(pl.rerope_offsets(64, 8, leaky_factor=4)) == 8 + (63 - 8) / 4
    np.testing.assert_array_equal(pl.self_extend_offsets(10, 2, 16), pl.rerope_offsets(10, 16))   # short: no change


def test_offset_map_arguments_are_checked():
    for call, name in ((lambda: pl.self_extend_offsets(0, 2, 4), "seq_len"), (lambda: pl.self_extend_offsets(8, 0, 4), "group_size"),
                       (lambda: pl.rerope_offsets(8, 0), "window"), (lambda: pl.rerope_offsets(8, 4, leaky_factor=1.0), "leaky_factor")):
        with pytest.raises(ValueError, match=name):
            call()
