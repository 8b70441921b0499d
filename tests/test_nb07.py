"""posenc_lib additions for notebook 07 (RoPE and ALiBi).

Expected values come from independent sources: RoPE written with complex numbers
(pair i = x_2i + i x_2i+1 multiplied by e^{i pos w_i}, as in Meta's LLaMA code), the ALiBi
formula 2^(-8h/H) and its biases as plain loops with the math module, softmax by hand,
and hand-made tables.
"""
import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pl
from support import assert_draws_cleanly, assert_refused_clearly, pixels


# ---------------------------------------------------------------------------
# References written independently of posenc_lib
# ---------------------------------------------------------------------------
def freqs(d, base=10000.0):
    return [math.pow(base, -2 * i / d) for i in range(d // 2)]


def rope_complex(x, pos, base=10000.0):
    """RoPE of one vector: pair i as a complex number, times e^{i pos w_i}."""
    d = len(x)
    out = []
    for i, w in enumerate(freqs(d, base)):
        z = complex(x[2 * i], x[2 * i + 1]) * complex(math.cos(pos * w), math.sin(pos * w))
        out += [z.real, z.imag]
    return np.array(out)


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def alibi_reference_slopes(n):
    """The ALiBi authors' get_slopes (ofirpress/attention_with_linear_biases, fairseq
    transformer.py), rewritten: a power of 2 gets start = ratio = 2^(-8/n); otherwise the
    closest lower power of 2's slopes, then every other slope of twice that power."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_reference_slopes(2 * closest)[0::2][:n - closest]


def alibi_loops(seq_len, num_heads, causal=False):
    out = np.zeros((num_heads, seq_len, seq_len))
    for h in range(1, num_heads + 1):
        m = alibi_reference_slopes(num_heads)[h - 1]
        for i in range(seq_len):
            for j in range(seq_len):
                out[h - 1, i, j] = -math.inf if causal and j > i else -m * abs(i - j)
    return out


def softmax_loop(row):
    top = max(v for v in row if v != -math.inf)
    e = [0.0 if v == -math.inf else math.exp(v - top) for v in row]
    return [v / sum(e) for v in e]


vectors = st.integers(1, 8).flatmap(
    lambda h: st.lists(st.floats(-3, 3, allow_nan=False), min_size=4 * h, max_size=4 * h))
positions = st.integers(-500, 500)


# ---------------------------------------------------------------------------
# RoPE
# ---------------------------------------------------------------------------
@given(x=vectors, pos=st.floats(-1000, 1000, allow_nan=False), base=st.sampled_from([100.0, 10000.0, 5e5]))
def test_rope_matches_complex_multiplication(x, pos, base):
    x = np.array(x)
    np.testing.assert_allclose(pl.rope(x[None], [pos], base)[0], rope_complex(x, pos, base), atol=1e-9)
    np.testing.assert_allclose(pl.rope_rotation(pos, len(x), base) @ x, rope_complex(x, pos, base), atol=1e-9)


@given(qk=vectors.flatmap(lambda v: st.tuples(st.just(v), st.lists(st.floats(-3, 3, allow_nan=False),
                                                                  min_size=len(v), max_size=len(v)))),
       m=positions, n=positions, shift=positions)
def test_rope_score_depends_on_offset_only(qk, m, n, shift):
    """The relative-only property: shifting both positions leaves the score unchanged, and the
    score equals the complex-number closed form with n - m alone."""
    q, k = np.array(qk[0]), np.array(qk[1])
    score = lambda a, b: float(pl.rope(q[None], [a])[0] @ pl.rope(k[None], [b])[0])
    scale = 1.0 + float(np.abs(q).sum() * np.abs(k).sum())
    assert abs(score(m, n) - score(m + shift, n + shift)) <= 1e-11 * scale
    # Re( sum_i conj(q_i) k_i e^{i (n - m) w_i} ) with pairs as complex numbers
    d = len(q)
    ref = 0.0
    for i, w in enumerate(freqs(d)):
        zq, zk = complex(q[2 * i], q[2 * i + 1]), complex(k[2 * i], k[2 * i + 1])
        ref += (zq.conjugate() * zk * complex(math.cos((n - m) * w), math.sin((n - m) * w))).real
    assert abs(score(m, n) - ref) <= 1e-11 * scale
    assert abs(float(pl.rope_score_by_offset(q, k, [n - m])[0]) - ref) <= 1e-11 * scale


def test_rope_tells_before_from_after_unless_pairs_are_parallel():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=16), rng.normal(size=16)
    f = pl.rope_score_by_offset(q, k, np.arange(-20, 21))
    assert np.abs(f - f[::-1]).max() > 0.1
    g = pl.rope_score_by_offset(q, 2.5 * q, np.arange(-20, 21))   # every pair of k parallel to q's
    np.testing.assert_allclose(g, g[::-1], atol=1e-12)
    a, b = pl.rope_pair_coefficients([1.0, 2.0], [3.0, 5.0])
    assert a.tolist() == [1 * 3 + 2 * 5] and b.tolist() == [2 * 3 - 1 * 5]


@given(m=positions, d=st.sampled_from([2, 4, 8, 32]))
def test_rope_rotation_is_the_inverse_direction_of_04s_R_k(m, d):
    np.testing.assert_allclose(pl.rope_rotation(m, d), pl.relative_rotation(-m, d), atol=1e-12)
    np.testing.assert_allclose(pl.rope_rotation(m, d).T @ pl.rope_rotation(m + 7, d), pl.rope_rotation(7, d),
                               atol=1e-9)


def test_rope_turns_pe_backwards():
    pe = pl.encode_positions([10.0], 8)
    np.testing.assert_allclose(pl.rope(pe, [3]), pl.encode_positions([7.0], 8), atol=1e-12)


def test_rope_torch_equals_numpy():
    import torch

    x = np.random.default_rng(0).normal(size=(2, 3, 5, 8))
    got = pl.rope_torch(torch.tensor(x), torch.arange(5)).numpy()
    np.testing.assert_allclose(got, pl.rope(x, np.arange(5)), atol=1e-12)


# ---------------------------------------------------------------------------
# Content + position scores
# ---------------------------------------------------------------------------
def scores_loops(x_q, x_k, w_q, w_k, kind, seq_len, k_max, start):
    d = len(x_q)
    pe = lambda p: [math.sin(p * w) if c % 2 == 0 else math.cos(p * w)
                    for c, w in ((c, freqs(d)[c // 2]) for c in range(d))]
    proj = lambda v, w: [sum(v[r] * w[r][c] for r in range(len(v))) for c in range(len(w[0]))]
    out = np.zeros((seq_len, 2 * k_max + 1))
    for r in range(seq_len):
        p = start + r
        for t in range(-k_max, k_max + 1):
            if kind == "additive":
                qv = proj([a + b for a, b in zip(x_q, pe(p))], w_q)
                kv = proj([a + b for a, b in zip(x_k, pe(p + t))], w_k)
            else:
                qv = rope_complex(proj(list(x_q), w_q), p)
                kv = rope_complex(proj(list(x_k), w_k), p + t)
            out[r, k_max + t] = dot(qv, kv)
    return out


@pytest.mark.parametrize("kind", ["additive", "rope"])
def test_content_position_scores_match_loops(kind):
    rng = np.random.default_rng(2)
    x_q, x_k = rng.normal(size=4), rng.normal(size=4)
    w_q, w_k = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    got = pl.content_position_scores(x_q, x_k, w_q, w_k, kind=kind, seq_len=5, k_max=3, start=-2)
    np.testing.assert_allclose(got, scores_loops(x_q, x_k, w_q, w_k, kind, 5, 3, -2), atol=1e-10)


def test_rope_scores_ignore_absolute_position_additive_ones_do_not():
    d = 32
    x_q, x_k = pl.token_vectors("猫狗", d)
    w_q, w_k, _ = pl.attention_weights_for_demo(d)
    rope0 = pl.content_position_scores(x_q, x_k, w_q, w_k, kind="rope")
    rope100 = pl.content_position_scores(x_q, x_k, w_q, w_k, kind="rope", start=100)
    np.testing.assert_allclose(rope0, rope100, atol=1e-12)
    assert pl.offset_structure(rope0)["position_dependence"] < 1e-12
    add0 = pl.content_position_scores(x_q, x_k, w_q, w_k, kind="additive")
    assert pl.offset_structure(add0)["position_dependence"] > 0.1


# ---------------------------------------------------------------------------
# ALiBi
# ---------------------------------------------------------------------------
def test_alibi_slopes_for_8_heads_are_halvings():
    expected = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    np.testing.assert_allclose(pl.alibi_slopes(8), expected, rtol=1e-15)
    np.testing.assert_allclose(pl.alibi_slopes(4), [1 / 4, 1 / 16, 1 / 64, 1 / 256], rtol=1e-15)
    # a power of 2 heads: geometric, start = ratio = 2^(-8/H)
    for h in (1, 2, 16, 64):
        s = pl.alibi_slopes(h)
        np.testing.assert_allclose(s[0], 2 ** (-8 / h))
        np.testing.assert_allclose(s[1:] / s[:-1], 2 ** (-8 / h))
    # any other number of heads: the authors' recipe (BLOOM-176B has 112 heads)
    for h in (3, 5, 6, 7, 12, 112):
        np.testing.assert_allclose(pl.alibi_slopes(h), alibi_reference_slopes(h), rtol=1e-14)
    np.testing.assert_allclose(pl.alibi_slopes(12)[8:], 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5]), rtol=1e-14)


@pytest.mark.parametrize("seq_len,num_heads", [(1, 1), (5, 2), (7, 8), (12, 3)])
def test_alibi_bias_matches_loops(seq_len, num_heads):
    np.testing.assert_allclose(pl.alibi_bias(seq_len, num_heads), alibi_loops(seq_len, num_heads), atol=1e-15)
    np.testing.assert_array_equal(pl.alibi_causal_bias(seq_len, num_heads),
                                  alibi_loops(seq_len, num_heads, causal=True))


@pytest.mark.parametrize("causal", [False, True])
def test_alibi_attention_matches_hand_softmax(causal):
    seq_len, num_heads = 9, 4
    bias = alibi_loops(seq_len, num_heads, causal)
    for query in (0, 4, 8):
        got = pl.alibi_attention(seq_len, num_heads, query, causal)
        for h in range(num_heads):
            np.testing.assert_allclose(got[h], softmax_loop(bias[h, query]), atol=1e-15)
    w = pl.alibi_attention(33, 8)      # middle query: each step away multiplies by exp(-m)
    np.testing.assert_allclose(w[:, 17] / w[:, 16], np.exp(-pl.alibi_slopes(8)))
    np.testing.assert_allclose(w[:, 15], w[:, 17])


def test_causal_bias_equals_plus_m_j_after_softmax():
    """The reference implementation adds +m j: a constant per row away from -m (i - j)."""
    seq_len, num_heads = 6, 8
    causal = pl.alibi_causal_bias(seq_len, num_heads)
    for h, m in enumerate(pl.alibi_slopes(num_heads)):
        for i in range(seq_len):
            shifted = [m * j if j <= i else -math.inf for j in range(seq_len)]
            np.testing.assert_allclose(softmax_loop(list(causal[h, i])), softmax_loop(shifted), atol=1e-15)


# ---------------------------------------------------------------------------
# Toy-task helpers
# ---------------------------------------------------------------------------
def test_accuracy_by_start_with_a_model_that_knows_only_even_starts():
    import torch

    data = pl.make_bite_dataset(200, (4, 8), seed=4)

    class Oracle(torch.nn.Module):
        def forward(self, tokens, mask):
            logits = torch.zeros(len(tokens), len(pl.ANIMALS))
            right = data.labels.clone()
            wrong = (right + 1) % len(pl.ANIMALS)
            pick = torch.where(data.starts % 2 == 0, right, wrong)
            logits[torch.arange(len(tokens)), pick] = 1.0
            return logits

    model = Oracle().train()
    acc = pl.accuracy_by_start(model, data)
    assert sorted(acc) == sorted(set(data.starts.tolist()))
    assert all(v == (1.0 if s % 2 == 0 else 0.0) for s, v in acc.items())
    assert model.training, "the model's train/eval mode is restored"


ROWS = [
    {"label": "rope", "pe": "rope", "max_len": 8, "in_distribution": 1.0,
     "by_length": {9: 0.996, 10: 1.0}, "error": None},
    {"label": "learned (max_len=8)", "pe": "learned", "max_len": 8, "in_distribution": 0.999,
     "by_length": {9: None, 10: None}, "error": "sequence length 9 exceeds max_len=8"},
]


def test_format_extrapolation_table():
    text = pl.format_extrapolation_table(ROWS)
    lines = text.splitlines()
    assert lines[0].split() == ["位置编码", "训练长度内", "9", "10"]
    assert lines[2].split() == ["rope", "1.00", "1.00", "1.00"]
    assert lines[3].split() == ["learned", "(max_len=8)", "1.00", "-", "-"]
    assert "sequence length 9 exceeds max_len=8" in text


# ---------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------
def test_check_alibi_slope():
    assert pl.check_alibi_slope(3, 8, 1 / 8)
    assert pl.check_alibi_slope(3, 8, 2 ** -3)
    v = pl.check_alibi_slope(3, 8, 1 / 4)
    assert not v and "从 1 开始" in v.message
    v = pl.check_alibi_slope(3, 8, 2 ** (-3 / 8))
    assert not v and "8" in v.message
    v = pl.check_alibi_slope(3, 8, -1 / 8)
    assert not v and "正数" in v.message
    assert not pl.check_alibi_slope(3, 8, None) and not pl.check_alibi_slope(3, 8, "1/8")


def test_check_rope_angle():
    assert pl.check_rope_angle(1, 100, 4, 1.0)
    assert pl.check_rope_angle(1, 100, 4, 1.0 + 2 * math.pi)          # a whole turn more
    v = pl.check_rope_angle(1, 100, 4, math.degrees(1.0))
    assert not v and "弧度" in v.message
    v = pl.check_rope_angle(1, 100, 4, 100 / 0.01)
    assert not v and "÷" in v.message
    v = pl.check_rope_angle(1, 100, 4, 100 * 10000 ** (-1 / 4))
    assert not v and "2i" in v.message
    assert not pl.check_rope_angle(1, 100, 4, None)


def test_check_rope_shift():
    assert pl.check_rope_shift(False)
    assert "不变" in pl.check_rope_shift(False).message
    assert not pl.check_rope_shift(True)
    assert not pl.check_rope_shift(None)
    assert not pl.check_rope_shift("no")


# ---------------------------------------------------------------------------
# Bad input gets a clear error naming the parameter (English and Chinese)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.rope_rotation(float("nan"), 4), ValueError, "pos"),
    (lambda: pl.rope_rotation(1, 5), ValueError, "d_model"),
    (lambda: pl.rope_pair_coefficients([1, 2], [1, 2, 3, 4]), ValueError, "q and k"),
    (lambda: pl.rope_pair_coefficients([1, 2, 3], [1, 2, 3]), ValueError, "d_model"),
    (lambda: pl.rope_score_by_offset([1, 2], [3, 4], [float("inf")]), ValueError, "offsets"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], kind="concat"), ValueError, "kind"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], seq_len=0), ValueError, "seq_len"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], k_max=-1), ValueError, "k_max"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], np.ones((2, 3)), np.ones((2, 3))), ValueError, "d_k"),
    (lambda: pl.content_position_scores([1, 0], [0, 1], np.ones((3, 2)), np.ones((3, 2))), ValueError, "w_q"),
    (lambda: pl.alibi_causal_bias(0, 2), ValueError, "seq_len"),
    (lambda: pl.alibi_causal_bias(4, 0), ValueError, "num_heads"),
    (lambda: pl.alibi_attention(5, 2, query=5), ValueError, "query"),
    (lambda: pl.alibi_attention(5, 2.0), TypeError, "num_heads"),
    (lambda: pl.accuracy_by_start(None, "data"), ValueError, "dataset"),
    (lambda: pl.format_extrapolation_table([]), ValueError, "rows"),
    (lambda: pl.format_extrapolation_table(5), TypeError, "rows"),
    (lambda: pl.plot_alibi_bias(heads=(9,)), ValueError, "heads"),
    (lambda: pl.plot_alibi_bias(seq_len=1), ValueError, "seq_len"),
    (lambda: pl.plot_rope(pos=0, n=40), ValueError, "n - pos"),
    (lambda: pl.plot_rope(i=8), ValueError, "i"),
    (lambda: pl.plot_accuracy_by_start({}, 16), ValueError, "by_start"),
    (lambda: pl.check_alibi_slope(9, 8, 0.5), ValueError, "h"),
    (lambda: pl.check_rope_angle(2, 5, 4, 1.0), ValueError, "i"),
    (lambda: pl.AlibiExplorer(num_heads=4, head=5), ValueError, "head"),
    (lambda: pl.RopeExplorer(n=99), ValueError, "n"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


# ---------------------------------------------------------------------------
# Plots and explorers (the sweep and full-render checks live in test_posenc_lib.py)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: pl.plot_rope(),
    lambda: pl.plot_rope(pos=16, n=20, i=3, base=100.0),
    lambda: pl.plot_alibi_bias(),
    lambda: pl.plot_alibi_bias(seq_len=30, num_heads=4, heads=2, causal=True),
    lambda: pl.plot_alibi_attention(),
    lambda: pl.plot_alibi_attention(seq_len=20, num_heads=4, causal=True, query=19),
    lambda: pl.plot_extrapolation(ROWS),
    lambda: pl.plot_accuracy_by_start({"rope": {0: 1.0, 1: 0.9}, "alibi": {0: 0.6, 1: 1.0}}, 8),
])
def test_plots_return_figures_without_warnings(make):
    assert_draws_cleanly(make)


@pytest.mark.parametrize("plot", [pl.plot_alibi_attention, pl.plot_extrapolation, pl.plot_accuracy_by_start])
def test_plot_into_given_axes(plot):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    args = {pl.plot_extrapolation: (ROWS,), pl.plot_accuracy_by_start: ({"rope": {0: 1.0}}, 8)}.get(plot, ())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plot(*args, ax=ax) is fig
        fig.savefig(io.BytesIO(), format="png")


def test_rope_marker_lies_on_the_curve():
    """The explorer's dot (score at the actual m, n) sits on the curve computed with m = 0."""
    ex = pl.RopeExplorer()
    v = ex.view
    for pos in (0, 7, 16, 33, 40):
        ex.controls["pos"].value = pos
        (x,), (y,) = v.total_dot.get_data()
        assert x == ex.n - pos
        curve_at = np.interp(x, v.total.get_xdata(), v.total.get_ydata())
        assert abs(curve_at - y) < 1e-3


def test_alibi_head_slider_follows_num_heads():
    ex = pl.AlibiExplorer(num_heads=8, head=6)
    head = ex.controls["head"]
    assert head.max == 8
    ex.controls["num_heads"].value = 4
    assert head.max == 4 and head.value == 4
    assert "head 4/4" in ex.view.title_heat.get_text()
    ex.controls["num_heads"].value = 16
    assert head.max == 16 and head.value == 4
    head.value = 16
    assert "head 16/16" in ex.view.title_heat.get_text()
    assert ex.redraws == 1


def test_no_cjk_font_fallback_for_notebook_07_plots(without_cjk_font):
    without_cjk_font('''
rows = [{"label": "rope", "pe": "rope", "in_distribution": 1.0, "by_length": {9: 1.0}, "error": None}]
figs = [pl.plot_rope(), pl.plot_alibi_bias(causal=True), pl.plot_alibi_attention(), pl.plot_extrapolation(rows),
        pl.plot_accuracy_by_start({"rope": {0: 1.0}}, 8)]
''')
