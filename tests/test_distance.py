"""posenc/distance.py: least squares, scores by offset (with and without projections),
add vs concatenate, and the similarity of a position table's rows.

Expected values come from tests/reference.py (the formula as loops), textbook closed forms
(least squares, ridge, R^2), numpy's polyfit / lstsq, the angle-addition identity and
hand-made tables.
"""
import math

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


# ---------------------------------------------------------------------------
# Least squares
# ---------------------------------------------------------------------------
def test_linear_fit_recovers_an_exact_line():
    x = np.arange(10.0)
    fit = pl.linear_fit(x, 3 * x - 2)
    assert fit.coef.shape == (1,)
    assert abs(fit.coef[0] - 3) < 1e-12 and abs(fit.intercept + 2) < 1e-12
    assert abs(fit.r2 - 1) < 1e-12 and fit.max_residual < 1e-12


def test_linear_fit_matches_polyfit_and_textbook_r2():
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    y = 0.7 * x + 0.3 + rng.normal(scale=0.5, size=200)
    fit = pl.linear_fit(x, y)
    slope, icept = np.polyfit(x, y, 1)
    assert abs(fit.coef[0] - slope) < 1e-10 and abs(fit.intercept - icept) < 1e-10
    assert abs(fit.r2 - ref.r_squared(x.tolist(), y.tolist(), slope, icept)) < 1e-10


def test_linear_fit_multi_output_matches_lstsq_and_predict():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(50, 3)), rng.normal(size=(50, 2))
    fit = pl.linear_fit(x, y)
    aug = np.hstack([x, np.ones((50, 1))])
    lstsq = np.linalg.lstsq(aug, y, rcond=None)[0]
    np.testing.assert_allclose(fit.coef, lstsq[:3], atol=1e-10)
    np.testing.assert_allclose(fit.intercept, lstsq[3], atol=1e-10)
    np.testing.assert_allclose(fit.predict(x), aug @ lstsq, atol=1e-10)
    no_b = pl.linear_fit(x, y, intercept=False)
    np.testing.assert_allclose(no_b.coef, np.linalg.lstsq(x, y, rcond=None)[0], atol=1e-10)


def test_ridge_matches_closed_form_for_one_feature():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([1.0, 2.0, 2.0, 5.0])
    lam = 2.0
    slope, intercept = ref.ridge_line(x.tolist(), y.tolist(), lam)
    fit = pl.linear_fit(x, y, ridge=lam)
    assert abs(fit.coef[0] - slope) < 1e-12
    assert abs(fit.intercept - intercept) < 1e-12


@pytest.mark.parametrize("call,exc", [
    (lambda: pl.linear_fit(np.ones((3, 2)), np.ones(4)), ValueError),
    (lambda: pl.linear_fit(np.ones(3), np.ones(3), ridge=-1.0), ValueError),
    (lambda: pl.linear_fit([[1, "a"]], [1]), TypeError),
])
def test_linear_fit_refuses_bad_input(call, exc):
    with pytest.raises(exc):
        call()


@pytest.mark.parametrize("k", [1, 2, 4, 5])
def test_sin_alone_explains_cos_squared_of_the_turn(k):
    # sin(a + kw) = cos(kw) sin a + sin(kw) cos a: sin alone keeps only the first term,
    # so R^2 ~ cos^2(kw) over many turns; the (sin, cos) pair explains everything.
    pos = np.arange(2000.0)
    s, c, y = np.sin(pos), np.cos(pos), np.sin(pos + k)
    assert abs(pl.linear_fit(s, y).r2 - math.cos(k) ** 2) < 0.01
    pair = pl.linear_fit(np.column_stack([s, c]), y)
    assert pair.r2 > 1 - 1e-12
    np.testing.assert_allclose(pair.coef, [math.cos(k), math.sin(k)], atol=1e-10)


# ---------------------------------------------------------------------------
# Scores by offset, with and without projections
# ---------------------------------------------------------------------------
def test_score_matrix_matches_loops():
    rng = np.random.default_rng(3)
    d_model, n = 6, 5
    w_q, w_k = rng.normal(size=(d_model, 4)), rng.normal(size=(d_model, 4))
    rows = ref.pe_table(n, d_model)
    plain = [[ref.dot(rows[p], rows[q]) for q in range(n)] for p in range(n)]
    proj = [[ref.dot(ref.matvec(rows[p], w_q.tolist()), ref.matvec(rows[q], w_k.tolist()))
             for q in range(n)] for p in range(n)]
    np.testing.assert_allclose(pl.score_matrix(n, d_model), plain, atol=1e-12)
    np.testing.assert_allclose(pl.score_matrix(n, d_model, w_q=w_q, w_k=w_k), proj, atol=1e-12)


def test_offset_scores_match_loops_including_negative_positions():
    rng = np.random.default_rng(4)
    d_model, seq_len, k_max = 4, 3, 4
    w_q, w_k = rng.normal(size=(d_model, d_model)), rng.normal(size=(d_model, d_model))
    got = pl.offset_scores(d_model, seq_len=seq_len, k_max=k_max, w_q=w_q, w_k=w_k)
    plain = pl.offset_scores(d_model, seq_len=seq_len, k_max=k_max)
    assert got.shape == plain.shape == (seq_len, 2 * k_max + 1)
    for p in range(seq_len):
        for j, k in enumerate(range(-k_max, k_max + 1)):
            a, b = ref.pe_row(p, d_model), ref.pe_row(p + k, d_model)
            assert abs(plain[p, j] - ref.dot(a, b)) < 1e-12
            assert abs(plain[p, j] - ref.pe_dot_by_offset(k, d_model)) < 1e-12
            expected = ref.dot(ref.matvec(a, w_q.tolist()), ref.matvec(b, w_k.tolist()))
            assert abs(got[p, j] - expected) < 1e-10


def test_offset_structure_on_a_hand_made_table():
    info = pl.offset_structure([[0.0, 1.0, 3.0], [0.0, 1.0, 3.0]])  # k = -1, 0, 1
    assert info == {"position_dependence": 0.0, "asymmetry": 1.0, "peak_k": 1}
    info = pl.offset_structure([[1.0, 2.0, 1.0], [1.0, 4.0, 1.0]])
    assert info["position_dependence"] == 0.5 and info["asymmetry"] == 0.0 and info["peak_k"] == 0
    with pytest.raises(ValueError):
        pl.offset_structure(np.ones((2, 4)))


def test_plain_scores_are_relative_and_symmetric_random_projection_is_not():
    plain = pl.offset_structure(pl.offset_scores(64))
    assert plain["position_dependence"] < 1e-12 and plain["asymmetry"] < 1e-12 and plain["peak_k"] == 0
    w_q, w_k, _ = pl.attention_weights_for_demo(64)
    proj = pl.offset_structure(pl.offset_scores(64, w_q=w_q, w_k=w_k))
    assert proj["position_dependence"] > 0.1 and proj["asymmetry"] > 0.05


def test_rotation_like_projection_keeps_relative_but_breaks_symmetry():
    # M made of blocks [[a, b], [-b, a]] commutes with every R_k: scores depend on k only,
    # a cos(kw) - b sin(kw) per pair (identity worked out by hand), so +k and -k differ.
    d_model = 8
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=d_model // 2), rng.normal(size=d_model // 2)
    m = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[a[i], b[i]], [-b[i], a[i]]]
    scores = pl.offset_scores(d_model, seq_len=20, k_max=10, w_q=m, w_k=np.eye(d_model))
    w = ref.frequencies(d_model)
    for j, k in enumerate(range(-10, 11)):
        expected = sum(a[i] * math.cos(k * w[i]) - b[i] * math.sin(k * w[i]) for i in range(d_model // 2))
        np.testing.assert_allclose(scores[:, j], expected, atol=1e-10)
    info = pl.offset_structure(scores)
    assert info["position_dependence"] < 1e-10 and info["asymmetry"] > 0.1


def test_projection_shapes_are_checked():
    with pytest.raises(ValueError):
        pl.score_matrix(4, 4, w_q=np.eye(4))
    with pytest.raises(ValueError):
        pl.offset_scores(4, w_q=np.eye(6), w_k=np.eye(6))


# ---------------------------------------------------------------------------
# Add vs concatenate
# ---------------------------------------------------------------------------
def test_word_vectors_have_pe_length_on_average():
    words = pl.random_word_vectors(2000, 64, seed=1)
    assert abs((words ** 2).sum(axis=1).mean() - 32) < 1.0  # |PE(pos)|^2 = d_model / 2


def test_word_pe_cosines_match_loops_and_shrink_like_one_over_sqrt_d():
    cos = pl.word_pe_cosines(16, n_words=3, seq_len=4, seed=2)
    words = pl.random_word_vectors(3, 16, seed=2)
    for wi in range(3):
        for p in range(4):
            assert abs(cos[wi, p] - ref.cosine(words[wi].tolist(), ref.pe_row(p, 16))) < 1e-12
    for d in (16, 512):
        mean_abs = np.abs(pl.word_pe_cosines(d)).mean()
        # a random direction against a fixed one: E|cos| ~ sqrt(2 / (pi d))
        assert abs(mean_abs / math.sqrt(2 / (math.pi * d)) - 1) < 0.1


@pytest.mark.slow
def test_probe_reads_both_back_in_high_dimensions_and_degrades_in_low():
    big = pl.word_position_probe(512)
    small = pl.word_position_probe(8)
    assert big["word"] == 1.0 and big["position_within_1"] == 1.0 and big["position"] > 0.9
    assert small["word"] < 0.8 and small["position"] < 0.5
    assert big["chance_word"] == 1 / 64 and big["chance_position"] == 1 / 64
    with pytest.raises(ValueError):
        pl.word_position_probe(16, train_frac=1.0)


# ---------------------------------------------------------------------------
# Similarity of a position table's rows
# ---------------------------------------------------------------------------
def test_position_similarity_matches_loops():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(6, 5))
    sim = pl.position_similarity(table)
    rows = table.tolist()
    for p in range(6):
        for q in range(6):
            assert abs(sim[p, q] - ref.cosine(rows[p], rows[q])) < 1e-12
    np.testing.assert_allclose(np.diag(sim), 1.0)
    np.testing.assert_allclose(sim, sim.T)


def test_position_similarity_zero_row_and_sinusoidal_toeplitz():
    table = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]])
    sim = pl.position_similarity(table)
    assert np.all(sim[1] == 0) and np.all(sim[:, 1] == 0)
    # A PE table: cos(PE(p), PE(q)) = mean_i cos((p - q) w_i), the same along each diagonal.
    d = 16
    sim = pl.position_similarity(pl.sinusoidal_encoding(10, d))
    for p in range(10):
        for q in range(10):
            assert abs(sim[p, q] - ref.pe_cosine_by_offset(p - q, d)) < 1e-12


def test_similarity_by_offset_matches_loops():
    rng = np.random.default_rng(1)
    s = rng.normal(size=(5, 5))
    got = pl.similarity_by_offset(s)
    expected = ref.diagonal_means(s.tolist())
    for k in range(5):
        assert abs(got[k] - expected[k]) < 1e-12
    with pytest.raises(ValueError):
        pl.similarity_by_offset(np.ones((2, 3)))
