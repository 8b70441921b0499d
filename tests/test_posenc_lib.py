"""posenc_lib against independent references: plain loops, the seeds' code and tables, identities."""
import io
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pl
from posenc.figures.style import _CJK_FILES
from support import assert_draws_cleanly, assert_refused_clearly, pixels


# ---------------------------------------------------------------------------
# References written independently of posenc_lib
# ---------------------------------------------------------------------------
def pe_loops(seq_len, d_model, base=10000.0, start=0):
    """The paper's formula, one number at a time with the math module."""
    table = []
    for r in range(seq_len):
        pos = start + r
        row = []
        for col in range(d_model):
            i = col // 2
            angle = pos / math.pow(base, 2 * i / d_model)
            row.append(math.sin(angle) if col % 2 == 0 else math.cos(angle))
        table.append(row)
    return np.array(table)


def seed000_positional_encoding(seq_len, d_model):
    """Seed 000's torch snippet (exp/log form of the frequencies)."""
    import torch

    pe = torch.zeros(seq_len, d_model, dtype=torch.float64)
    pos = torch.arange(seq_len).unsqueeze(1).double()
    div = torch.exp(torch.arange(0, d_model, 2).double() * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe.numpy()


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seq_len,d_model,base,start", [
    (1, 2, 10000.0, 0), (7, 2, 10000.0, 1), (20, 16, 10000.0, 0), (13, 10, 100.0, 5),
    (50, 64, 10000.0, 0), (4, 512, 10000.0, 1000),
])
def test_table_matches_plain_loops(seq_len, d_model, base, start):
    got = pl.sinusoidal_encoding(seq_len, d_model, base, start=start)
    assert got.shape == (seq_len, d_model)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, pe_loops(seq_len, d_model, base, start), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seq_len,d_model", [(4, 8), (50, 128), (3, 2)])
def test_table_matches_seed000_snippet(seq_len, d_model):
    np.testing.assert_allclose(pl.sinusoidal_encoding(seq_len, d_model),
                               seed000_positional_encoding(seq_len, d_model), rtol=0, atol=1e-12)


def test_exp_log_form_equals_power_form():
    d = 512
    i2 = np.arange(0, d, 2)
    np.testing.assert_allclose(np.exp(i2 * (-math.log(10000.0) / d)), pl.frequencies(d), rtol=1e-13)


def test_seed001_hand_table():
    """Seed 001's hand calculation: 猫咬狗 at positions 1, 2, 3, d = 2, word vectors [0.5, 0.5]."""
    calc = pl.hand_calculation()
    assert calc.tokens == ("猫", "咬", "狗")
    assert list(calc.positions) == [1, 2, 3]
    seed_pe = [[0.8415, 0.5403], [0.9093, -0.4161], [0.1411, -0.9900]]
    seed_out = [[1.3415, 1.0403], [1.4093, 0.0839], [0.6411, -0.4900]]
    np.testing.assert_array_equal(np.round(calc.encodings, 4), seed_pe)
    np.testing.assert_array_equal(np.round(calc.outputs, 4), seed_out)
    html = calc._repr_html_()
    for number in ("0.8415", "-0.4161", "1.3415", "0.0839", "-0.4900"):
        assert number in html and number in str(calc)


def test_zero_based_and_d4_values_from_curriculum():
    assert list(np.round(pl.sinusoidal_encoding(1, 2)[0], 4)) == [0.0, 1.0]
    np.testing.assert_array_equal(np.round(pl.sinusoidal_encoding(1, 4, start=1)[0], 4),
                                  [0.8415, 0.5403, 0.0100, 1.0000])
    assert pl.frequencies(4)[1] == pytest.approx(0.01)


def test_wavelength_range():
    lam = pl.wavelengths(512)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert lam[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert lam[-1] < 2 * math.pi * 10000
    assert np.all(np.diff(lam) > 0)


def test_split_layout_is_column_permutation():
    inter = pl.sinusoidal_encoding(30, 12)
    split = pl.sinusoidal_encoding(30, 12, layout="split")
    np.testing.assert_array_equal(split[:, :6], inter[:, 0::2])
    np.testing.assert_array_equal(split[:, 6:], inter[:, 1::2])
    np.testing.assert_array_equal(split, inter[:, pl.split_permutation(12)])


# ---------------------------------------------------------------------------
# Identities, as property tests
# ---------------------------------------------------------------------------
d_models = st.integers(1, 64).map(lambda h: 2 * h)
bases = st.floats(1.5, 1e6)


@given(seq_len=st.integers(1, 40), d_model=d_models, base=bases, start=st.integers(0, 10**6))
def test_row_norm_is_sqrt_half_d(seq_len, d_model, base, start):
    pe = pl.sinusoidal_encoding(seq_len, d_model, base, start=start)
    np.testing.assert_allclose(np.linalg.norm(pe, axis=1), math.sqrt(d_model / 2), rtol=1e-12)


@given(k=st.integers(-500, 500), d_model=d_models, base=bases)
def test_relative_rotation_maps_pos_to_pos_plus_k(k, d_model, base):
    pos = np.arange(0, 300, 7)
    r = pl.relative_rotation(k, d_model, base)
    np.testing.assert_allclose(pl.encode_positions(pos, d_model, base) @ r.T,
                               pl.encode_positions(pos + k, d_model, base), atol=1e-9)
    # R_k is orthogonal and R_{-k} undoes it
    np.testing.assert_allclose(r @ pl.relative_rotation(-k, d_model, base), np.eye(d_model), atol=1e-12)


@given(k=st.integers(0, 300), d_model=d_models, base=bases)
def test_dot_product_depends_on_offset_only_and_is_symmetric(k, d_model, base):
    pos = np.arange(0, 400, 13)
    a = pl.encode_positions(pos, d_model, base)
    plus = np.sum(a * pl.encode_positions(pos + k, d_model, base), axis=1)
    minus = np.sum(a * pl.encode_positions(pos - k, d_model, base), axis=1)
    expected = sum(math.cos(k * w) for w in pl.frequencies(d_model, base))
    np.testing.assert_allclose(plus, expected, atol=1e-9)
    np.testing.assert_allclose(minus, expected, atol=1e-9)
    assert pl.pe_dot_by_offset([k, -k], d_model, base) == pytest.approx([expected, expected], abs=1e-9)


def test_dot_product_is_not_monotone():
    dots = pl.pe_dot_by_offset(np.arange(0, 200), 64)
    assert np.any(np.diff(dots) > 0), "PE.PE should rise again somewhere: it is not a monotone decay"
    np.testing.assert_allclose(pl.pe_dot_by_offset(np.arange(10), 2), np.cos(np.arange(10)))


def test_binary_bits():
    assert list(pl.binary_bits(6, 4)) == [0, 1, 1, 0]
    flips = [np.sum(np.abs(np.diff([pl.binary_bits(p, 5)[k] for p in range(64)]))) for k in range(5)]
    assert flips == [63 // 2 ** k for k in range(5)]


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------
def attention_loops(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    n, dk = q.shape
    out, weights = np.zeros((n, v.shape[1])), np.zeros((n, n))
    for a in range(n):
        scores = [sum(q[a, c] * k[b, c] for c in range(dk)) / math.sqrt(dk) for b in range(n)]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        weights[a] = [v_ / sum(e) for v_ in e]
        out[a] = sum(weights[a, b] * v[b] for b in range(n))
    return out, weights


def test_self_attention_matches_loops():
    rng = np.random.default_rng(3)
    x, wq, wk, wv = rng.normal(size=(5, 6)), rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    out, weights = pl.self_attention(x, wq, wk, wv)
    ref_out, ref_w = attention_loops(x, wq, wk, wv)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    np.testing.assert_allclose(weights, ref_w, atol=1e-12)


def test_self_attention_matches_torch_multihead():
    import torch

    d = 4
    wq, wk, wv = pl.attention_weights_for_demo(d)
    x = pl.token_vectors("猫咬狗", d)
    mha = torch.nn.MultiheadAttention(d, num_heads=1, bias=False, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([wq.T, wk.T, wv.T])))
        mha.out_proj.weight.copy_(torch.eye(d, dtype=torch.float64))
        t = torch.tensor(x)[None]
        out, w = mha(t, t, t)
    ours_out, ours_w = pl.self_attention(x, wq, wk, wv)
    np.testing.assert_allclose(out[0].numpy(), ours_out, atol=1e-12)
    np.testing.assert_allclose(w[0].numpy(), ours_w, atol=1e-12)


@pytest.mark.parametrize("a,b", [("猫咬狗", "狗咬猫"), ("我爱你", "你爱我"), ("我打你", "你打我")])
def test_equivariant_without_pe_and_broken_with_pe(a, b):
    da, db = pl.attention_demo(a), pl.attention_demo(b)
    perm = [da.tokens.index(t) for t in db.tokens]
    np.testing.assert_allclose(db.outputs, da.outputs[perm], atol=1e-12)  # equivariant
    np.testing.assert_allclose(db.weights, da.weights[np.ix_(perm, perm)], atol=1e-12)
    np.testing.assert_allclose(db.pooled, da.pooled, atol=1e-12)  # invariant
    pa, pb = pl.attention_demo(a, use_pe=True), pl.attention_demo(b, use_pe=True)
    assert np.abs(pb.output_of(b[0]) - pa.output_of(b[0])).max() > 1e-3
    assert np.abs(pb.pooled - pa.pooled).max() > 1e-3


# ---------------------------------------------------------------------------
# Torch modules (torch loads only when used)
# ---------------------------------------------------------------------------
def test_import_does_not_load_torch():
    code = "import sys, posenc_lib; posenc_lib.sinusoidal_encoding(3, 4); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_sinusoidal_module_equals_numpy_table():
    import torch

    m = pl.SinusoidalPositionalEncoding(16, max_len=64)
    assert sum(p.numel() for p in m.parameters() if p.requires_grad) == 0
    x = torch.zeros(2, 40, 16)
    np.testing.assert_allclose(m(x)[1].numpy(), pl.sinusoidal_encoding(40, 16), atol=1e-6)
    with pytest.raises(pl.PositionLimitError, match="64"):
        m(torch.zeros(1, 65, 16))


def test_learned_embedding_limit_names_max_len():
    import torch

    m = pl.LearnedPositionalEmbedding(1024, 8)
    assert sum(p.numel() for p in m.parameters()) == 1024 * 8
    x = torch.zeros(1, 1024, 8)
    np.testing.assert_allclose((m(x) - x)[0].detach().numpy(), m.embedding.weight.detach().numpy())
    with pytest.raises(IndexError, match="1024") as info:
        m(torch.zeros(1, 1025, 8))
    assert isinstance(info.value, pl.PositionLimitError)
    with pytest.raises(IndexError):  # what the bare torch table does
        m.embedding(torch.tensor([1024]))


def test_rope_numpy_and_torch_agree_and_are_relative():
    import torch

    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
    dots = {}
    for m in range(0, 30, 3):
        for n in range(0, 30, 4):
            dots.setdefault(m - n, []).append(float((pl.rope(q, [m]) @ pl.rope(k, [n]).T)[0, 0]))
    for values in dots.values():
        assert max(values) - min(values) < 1e-9
    x = rng.normal(size=(2, 5, 8))
    np.testing.assert_allclose(pl.rope_torch(torch.tensor(x), torch.arange(5.0)).numpy(),
                               pl.rope(x, np.arange(5)), atol=1e-12)


def test_alibi_slopes_and_bias():
    np.testing.assert_allclose(pl.alibi_slopes(8), [1 / 2 ** h for h in range(1, 9)])
    b = pl.alibi_bias(4, 2)
    assert b.shape == (2, 4, 4)
    assert b[0, 0, 3] == pytest.approx(-3 * 2 ** -4) and b[1, 2, 0] == pytest.approx(-2 * 2 ** -8)


# ---------------------------------------------------------------------------
# Bad input gets a clear error naming the parameter
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.sinusoidal_encoding(0, 4), ValueError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(-3, 4), ValueError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(2.5, 4), TypeError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(True, 4), TypeError, "seq_len"),
    (lambda: pl.sinusoidal_encoding(4, 5), ValueError, "d_model"),
    (lambda: pl.sinusoidal_encoding(4, 0), ValueError, "d_model"),
    (lambda: pl.sinusoidal_encoding(4, -2), ValueError, "d_model"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=1.0), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=0.5), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=float("nan")), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base=float("inf")), ValueError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, base="10000"), TypeError, "base"),
    (lambda: pl.sinusoidal_encoding(4, 4, start=-1), ValueError, "start"),
    (lambda: pl.sinusoidal_encoding(4, 4, layout="halves"), ValueError, "layout"),
    (lambda: pl.sinusoidal_encoding(10**7, 1024), ValueError, "seq_len * d_model"),
    (lambda: pl.frequencies(7), ValueError, "d_model"),
    (lambda: pl.relative_rotation(float("nan"), 4), ValueError, "k"),
    (lambda: pl.hand_calculation(tokens=()), ValueError, "tokens"),
    (lambda: pl.hand_calculation(tokens=""), ValueError, "tokens"),
    (lambda: pl.hand_calculation(word_vectors=[0.5, 0.5, 0.5]), ValueError, "word_vectors"),
    (lambda: pl.hand_calculation(word_vectors=[[0.5, 0.5]] * 2), ValueError, "word_vectors"),
    (lambda: pl.hand_calculation(word_vectors=[0.5, float("nan")]), ValueError, "word_vectors"),
    (lambda: pl.hand_calculation(start=-1), ValueError, "start"),
    (lambda: pl.self_attention(np.ones((3, 4)), np.ones((5, 2)), np.ones((4, 2)), np.ones((4, 2))), ValueError, "w_q"),
    (lambda: pl.self_attention(np.ones(3), np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2))), ValueError, "x"),
    (lambda: pl.LearnedPositionalEmbedding(0, 8), ValueError, "max_len"),
    (lambda: pl.SinusoidalPositionalEncoding(8, max_len=0), ValueError, "max_len"),
    (lambda: pl.SinusoidalPositionalEncoding(7), ValueError, "d_model"),
    (lambda: pl.alibi_slopes(0), ValueError, "num_heads"),
    (lambda: pl.rope(np.ones((3, 5)), [0, 1, 2]), ValueError, "d_model"),
    (lambda: pl.rope(np.ones((3, 4)), [0, 1]), ValueError, "positions"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)


# ---------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------
def test_check_pe_recognises_slips():
    assert pl.check_pe(1, [0.8415, 0.5403])
    v = pl.check_pe(1, [math.sin(math.radians(1)), math.cos(math.radians(1))])
    assert not v and "弧度" in v.message
    v = pl.check_pe(2, [-0.4161, 0.9093])
    assert not v and "放反" in v.message
    assert not pl.check_pe(1, "0.84")
    assert "正确" in repr(pl.check_pe(3, [0.1411, -0.99]))
    assert not pl.check_pe(3, [0.1411, -0.98])


def test_check_wavelength_and_dot_product():
    assert pl.check_wavelength(0, 512, 6.2832)
    assert not pl.check_wavelength(1, 4, 2 * math.pi * 10)
    assert pl.check_wavelength(1, 4, 2 * math.pi * 100)
    assert pl.check_dot_product(0, 8, 4.0)
    assert pl.check_dot_product(1, 2, math.cos(1))
    assert not pl.check_dot_product(1, 2, 1.0)


# ---------------------------------------------------------------------------
# Plots and explorers
# ---------------------------------------------------------------------------
def sweep(control):
    """Values across a control's whole range, from one end to the other."""
    if hasattr(control, "options"):
        opts = list(control.options)
        return [o[1] if isinstance(o, tuple) else o for o in opts]
    if isinstance(control.value, bool):
        return [not control.value, control.value]
    lo, hi = control.min, control.max
    if type(control).__name__ == "FloatLogSlider":
        return [control.base ** e for e in np.linspace(lo, hi, 4)]
    values = np.linspace(lo, hi, 4)
    return [type(control.value)(round(v / control.step) * control.step) for v in values]


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_every_control_moves_the_figure(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Glyph missing", no layout warnings
        ex = pl.EXPLORERS[name]()
        assert set(ex.controls) and ex.figure is not None and ex.widget is not None
        for cname, control in ex.controls.items():
            values = sweep(control)
            assert len(values) >= 2, cname
            control.value = values[0]
            before_px, before_png = pixels(ex.figure), ex.image.value
            for v in values[1:]:
                control.value = v
                after_px, after_png = pixels(ex.figure), ex.image.value
                assert not np.array_equal(before_px, after_px), f"{name}.{cname} = {v!r} left the figure unchanged"
                assert after_png != before_png, f"{name}.{cname} = {v!r} left the widget image unchanged"
                before_px, before_png = after_px, after_png
        assert ex.redraws == 1, "updates should blit, not redraw the whole figure"


def rgb(png_bytes):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png_bytes)).convert("RGB"))


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_explorer_image_is_what_the_figure_shows(name):
    """After every move (first and repeated, so cached layers and cached glyphs are used)
    the blitted widget image equals an independent full render: an unpickled copy of the
    figure, drawn on a fresh canvas with no caches. No artist is left stale."""
    import pickle

    ex = pl.EXPLORERS[name]()
    for cname, control in ex.controls.items():
        for v in sweep(control)[-3:]:
            control.value = v
            buf = io.BytesIO()
            with pl.figure_style():
                pickle.loads(pickle.dumps(ex.figure)).savefig(buf, format="png", dpi="figure")
            shown, full = rgb(ex.image.value), rgb(buf.getvalue())
            assert shown.shape == full.shape
            differ = np.mean(np.any(np.abs(shown.astype(int) - full) > 8, axis=-1))
            assert differ < 0.002, f"{name}.{cname}={v!r}: {differ:.2%} of pixels differ from a full render"


@pytest.mark.parametrize("make", [
    lambda: pl.plot_pe_heatmap(),
    lambda: pl.plot_clock(5),
    lambda: pl.plot_wavelengths(64, bases=(100.0, 10000.0)),
    lambda: pl.plot_dot_product(),
    lambda: pl.plot_hand_calculation(),
    lambda: pl.plot_attention("狗咬猫", use_pe=True, reference="猫咬狗"),
])
def test_plots_return_figures_without_warnings(make):
    assert_draws_cleanly(make)


@pytest.mark.parametrize("plot", [pl.plot_pe_heatmap, pl.plot_wavelengths, pl.plot_dot_product,
                                  pl.plot_hand_calculation, pl.plot_clock, pl.plot_attention])
def test_plot_into_given_axes_made_elsewhere(plot):
    """Axes the caller made outside figure_style() still draw Chinese without missing glyphs."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plot(ax=ax) is fig
        fig.savefig(io.BytesIO(), format="png")


def test_no_cjk_font_fallback_draws_without_tofu(without_cjk_font):
    without_cjk_font('''
figs = [pl.plot_attention("猫咬狗"), pl.plot_clock(3), pl.plot_hand_calculation(), pl.plot_pe_heatmap()]
figs += [f().figure for f in pl.EXPLORERS.values()]
''')


def test_cjk_font_found_when_installed():
    import os

    if not any(os.path.exists(p) for p in _CJK_FILES):
        pytest.skip("no CJK font on this machine (apt-get install fonts-noto-cjk)")
    assert pl.cjk_font() is not None
