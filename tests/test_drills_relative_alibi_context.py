"""Drills on T5's bucket, ALiBi's slopes and the scaled frequencies of context extension: a right
function written as plain loops is 正确; every declared slip, written as plain loops (never
imported from the library), is named by its own message."""
import math

import numpy as np
import pytest

from support import assert_every_slip_tested, assert_names
from posenc.exercises.drills import alibi as A
from posenc.exercises.drills import context as C
from posenc.exercises.drills import relative_family as T


def test_every_slip_of_these_drills_has_a_test():
    assert_every_slip_tested(((T.T5_BUCKET, BUCKET_SLIPS), (A.ALIBI_SLOPES, SLOPE_SLIPS),
                              (C.SCALED_FREQUENCIES, FREQ_SLIPS)))


# ---------------------------------------------------------------------------
# T5's bucket (Mesh TensorFlow's _relative_position_bucket, step by step)
# ---------------------------------------------------------------------------
def bucket_loops(relative_position, bidirectional=True, num_buckets=32, max_distance=128, *, sign=1, halve=True,
                 cap=True, log="ratio", rounding="trunc", causal_abs=False):
    rel = np.asarray(relative_position)
    out = np.zeros(rel.shape, dtype=int)
    for idx in np.ndindex(*rel.shape):
        k = sign * int(rel[idx])
        bucket = 0
        if bidirectional:
            buckets = num_buckets // 2 if halve else num_buckets
            if k > 0:
                bucket += num_buckets // 2
            n = abs(k)
        else:
            buckets = num_buckets
            n = abs(k) if causal_abs else max(-k, 0)
        max_exact = buckets // 2
        if n < max_exact:
            bucket += n
        else:
            if log == "ratio":
                frac = math.log(n / max_exact) / math.log(max_distance / max_exact)
            elif log == "plain":
                frac = math.log(n) / math.log(max_distance)
            else:
                frac = math.log2(n / max_exact) / math.log(max_distance / max_exact)
            step = frac * (buckets - max_exact)
            far = max_exact + (round(step) if rounding == "round" else int(step))
            bucket += min(far, buckets - 1) if cap else far
        out[idx] = bucket
    return out


BUCKET_SLIPS = {
    "direction": dict(sign=-1),
    "no_halving": dict(halve=False),
    "no_cap": dict(cap=False),
    "log_without_ratio": dict(log="plain"),
    "mixed_log_base": dict(log="mixed"),
    "rounded": dict(rounding="round"),
    "causal_abs": dict(causal_abs=True),
}


def test_the_bucket_written_as_loops_is_right():
    assert T.check_drill_t5_bucket(bucket_loops)


@pytest.mark.parametrize("name", BUCKET_SLIPS)
def test_each_bucket_slip_is_named(name):
    knobs = BUCKET_SLIPS[name]
    fn = lambda k, bidirectional=True, num_buckets=32, max_distance=128: bucket_loops(k, bidirectional, num_buckets,
                                                                                     max_distance, **knobs)
    assert_names(T.check_drill_t5_bucket, T.T5_BUCKET, fn, name)


def test_a_bucket_slip_shows_the_offset_and_both_buckets():
    # bidirectional, 32 buckets: k = -10 has n = 10 >= max_exact = 8, bucket 8 + int(ln(10/8)/ln(16)·8) = 8
    fn = lambda k, bidirectional=True, num_buckets=32, max_distance=128: bucket_loops(k, bidirectional, num_buckets,
                                                                                     max_distance, sign=-1)
    message = T.check_drill_t5_bucket(fn).message
    assert "偏移 k = -10（键在查询之前，距离 10）的桶是 24，应为 8" in message


# ---------------------------------------------------------------------------
# ALiBi's slopes (the authors' get_slopes)
# ---------------------------------------------------------------------------
def slopes_loops(num_heads, *, recipe=True, every_other=True, first=1, upward=False, descending=False):
    def of(n):
        return [2 ** (-8 * h / n) for h in range(first, n + first)]

    p = 1
    while p * 2 <= num_heads:
        p *= 2
    if upward:
        up = p if p == num_heads else 2 * p
        slopes = of(up)[:num_heads]
    elif not recipe or p == num_heads:
        slopes = of(num_heads)
    else:
        step = 2 if every_other else 1
        extra = [2 ** (-8 * h / (2 * p)) for h in range(1, 2 * (num_heads - p) + 1, step)][: num_heads - p]
        slopes = of(p) + extra
    return np.array(sorted(slopes, reverse=True) if descending else slopes)


SLOPE_SLIPS = {
    "no_recipe": dict(recipe=False),
    "consecutive_extras": dict(every_other=False),
    "from_zero": dict(first=0),
    "next_power": dict(upward=True),
    "sorted": dict(descending=True),
}


def test_the_slopes_written_as_loops_are_right():
    assert A.check_drill_alibi_slopes(slopes_loops)


@pytest.mark.parametrize("name", SLOPE_SLIPS)
def test_each_slope_slip_is_named(name):
    knobs = SLOPE_SLIPS[name]
    assert_names(A.check_drill_alibi_slopes, A.ALIBI_SLOPES, lambda h: slopes_loops(h, **knobs), name)


def test_a_slope_slip_shows_the_head_and_both_exponents():
    message = A.check_drill_alibi_slopes(lambda h: slopes_loops(h, every_other=False)).message
    # 12 heads: P = 8; head 10 is the second extra, 2^(-8·3/16) = 2^-1.5, not 2^(-8·2/16) = 2^-1
    assert "第 h = 10 个头（从 1 数）的斜率是 0.5 = 2^(−1)，应为 0.3536 = 2^(−1.5)" in message


# ---------------------------------------------------------------------------
# Scaled frequencies: PI, NTK-aware, YaRN
# ---------------------------------------------------------------------------
def inv_freq_loops(d_model, base, rope_type, factor, train_len, *, pi_times=False, ntk="right", ramp="index",
                   attention="ln"):
    s, pairs = factor, d_model // 2
    w = [base ** (-2 * i / d_model) for i in range(pairs)]
    if rope_type == "linear":
        return np.array([x * s if pi_times else x / s for x in w]), 1.0
    if rope_type == "ntk":
        exponent = {"right": d_model / (d_model - 2), "none": 1.0, "inverted": (d_model - 2) / d_model}[ntk]
        new_base = base * s ** exponent
        return np.array([new_base ** (-2 * i / d_model) for i in range(pairs)]), 1.0
    index = lambda turns: d_model * math.log(train_len / (turns * 2 * math.pi)) / (2 * math.log(base))
    low, high = index(32.0), index(1.0)
    if ramp != "unrounded":
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d_model - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(pairs):
        if ramp == "paper":
            r = train_len * w[i] / (2 * math.pi)
            gamma = min(max((r - 1.0) / (32.0 - 1.0), 0.0), 1.0)
        else:
            gamma = 1.0 - min(max((i - low) / (high - low), 0.0), 1.0)
            if ramp == "reversed":
                gamma = 1.0 - gamma
        out.append(gamma * w[i] + (1 - gamma) * w[i] / s)
    factor_of = {"ln": 0.1 * math.log(s) + 1, "none": 1.0, "log10": 0.1 * math.log10(s) + 1}[attention]
    return np.array(out), factor_of


FREQ_SLIPS = {
    "pi_multiplied": dict(pi_times=True),
    "ntk_without_exponent": dict(ntk="none"),
    "ntk_inverted_exponent": dict(ntk="inverted"),
    "yarn_ramp_reversed": dict(ramp="reversed"),
    "yarn_no_attention_factor": dict(attention="none"),
    "yarn_log10": dict(attention="log10"),
    "yarn_paper_ramp": dict(ramp="paper"),
    "yarn_unrounded": dict(ramp="unrounded"),
}


def test_the_frequencies_written_as_loops_are_right():
    assert C.check_drill_scaled_frequencies(inv_freq_loops)


@pytest.mark.parametrize("name", FREQ_SLIPS)
def test_each_frequency_slip_is_named(name):
    knobs = FREQ_SLIPS[name]
    assert_names(C.check_drill_scaled_frequencies, C.SCALED_FREQUENCIES,
                 lambda d, b, t, s, n: inv_freq_loops(d, b, t, s, n, **knobs), name)


def test_a_yarn_slip_shows_the_pairs_blend():
    message = C.check_drill_scaled_frequencies(lambda d, b, t, s, n: inv_freq_loops(d, b, t, s, n, ramp="reversed")).message
    # d = 64, L = 2048, base 1e4: low = floor(8.06) = 8, pair 0 keeps its frequency (γ = 1)
    assert 'rope_type = "yarn"：第 i = 0 对的频率是 0.25，应为 1' in message and "γ_0：你的 0，应为 1" in message


def test_a_missing_attention_factor_says_the_rule():
    message = C.check_drill_scaled_frequencies(lambda d, b, t, s, n: inv_freq_loops(d, b, t, s, n, attention="none")).message
    assert f"attention_factor 是 1，应为 0.1·ln(4) + 1 = {0.1 * math.log(4) + 1:.4g}" in message
