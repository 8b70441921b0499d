"""posenc_lib additions for notebooks 04 (relative position) and 06 (interview quiz).

Expected values come from independent sources: the formula written as plain loops with the
math module, textbook closed forms (least squares, R^2), the angle-addition identity and
hand-made tables.
"""
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import posenc_lib as pl


# ---------------------------------------------------------------------------
# References written independently of posenc_lib
# ---------------------------------------------------------------------------
def pe_row(pos, d_model, base=10000.0):
    """PE(pos) one number at a time."""
    row = []
    for col in range(d_model):
        angle = pos / math.pow(base, 2 * (col // 2) / d_model)
        row.append(math.sin(angle) if col % 2 == 0 else math.cos(angle))
    return row


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def matvec_rows(row, w):
    """row (length n) times matrix w (n x m), as loops."""
    return [sum(row[r] * w[r][c] for r in range(len(row))) for c in range(len(w[0]))]


# ---------------------------------------------------------------------------
# The rotation identity
# ---------------------------------------------------------------------------
@given(k=st.floats(-300, 300, allow_nan=False), d_model=st.sampled_from([2, 4, 16, 64]))
def test_rotation_error_is_rounding_only(k, d_model):
    assert pl.rotation_error(k, d_model) < 1e-11


def test_rotation_error_matches_a_loop_over_pairs():
    # Rotate every pair by hand with the angle-addition formulas, compare with PE(pos+k).
    d_model, k = 8, -7
    worst = 0.0
    for pos in range(0, 200, 7):
        a, b = pe_row(pos, d_model), pe_row(pos + k, d_model)
        for i in range(d_model // 2):
            phi = k / math.pow(10000.0, 2 * i / d_model)
            s = a[2 * i] * math.cos(phi) + a[2 * i + 1] * math.sin(phi)
            c = a[2 * i + 1] * math.cos(phi) - a[2 * i] * math.sin(phi)
            worst = max(worst, abs(s - b[2 * i]), abs(c - b[2 * i + 1]))
    assert worst < 1e-12
    assert abs(pl.rotation_error(k, d_model, positions=range(0, 200, 7)) - worst) < 1e-12


def test_transposed_rotation_goes_the_other_way():
    d_model = 16
    pe = pl.encode_positions(np.arange(50.0), d_model)
    r = pl.relative_rotation(5, d_model)
    np.testing.assert_allclose(pe @ r, pl.encode_positions(np.arange(50.0) - 5, d_model), atol=1e-12)
    assert np.abs(pe @ r - pl.encode_positions(np.arange(50.0) + 5, d_model)).max() > 0.5


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
    mean = sum(y) / len(y)
    ss_res = sum((yi - (slope * xi + icept)) ** 2 for xi, yi in zip(x, y))
    ss_tot = sum((yi - mean) ** 2 for yi in y)
    assert abs(fit.r2 - (1 - ss_res / ss_tot)) < 1e-10


def test_linear_fit_multi_output_matches_lstsq_and_predict():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(50, 3)), rng.normal(size=(50, 2))
    fit = pl.linear_fit(x, y)
    aug = np.hstack([x, np.ones((50, 1))])
    ref = np.linalg.lstsq(aug, y, rcond=None)[0]
    np.testing.assert_allclose(fit.coef, ref[:3], atol=1e-10)
    np.testing.assert_allclose(fit.intercept, ref[3], atol=1e-10)
    np.testing.assert_allclose(fit.predict(x), aug @ ref, atol=1e-10)
    no_b = pl.linear_fit(x, y, intercept=False)
    np.testing.assert_allclose(no_b.coef, np.linalg.lstsq(x, y, rcond=None)[0], atol=1e-10)


def test_ridge_matches_closed_form_for_one_feature():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([1.0, 2.0, 2.0, 5.0])
    xc, yc = x - x.mean(), y - y.mean()
    lam = 2.0
    slope = sum(a * b for a, b in zip(xc, yc)) / (sum(a * a for a in xc) + lam)
    fit = pl.linear_fit(x, y, ridge=lam)
    assert abs(fit.coef[0] - slope) < 1e-12
    assert abs(fit.intercept - (y.mean() - slope * x.mean())) < 1e-12


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
    rows = [pe_row(p, d_model) for p in range(n)]
    plain = [[dot(rows[p], rows[q]) for q in range(n)] for p in range(n)]
    proj = [[dot(matvec_rows(rows[p], w_q.tolist()), matvec_rows(rows[q], w_k.tolist()))
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
            a, b = pe_row(p, d_model), pe_row(p + k, d_model)
            assert abs(plain[p, j] - dot(a, b)) < 1e-12
            assert abs(plain[p, j] - sum(math.cos(k / 10000 ** (2 * i / d_model))
                                         for i in range(d_model // 2))) < 1e-12
            ref = dot(matvec_rows(a, w_q.tolist()), matvec_rows(b, w_k.tolist()))
            assert abs(got[p, j] - ref) < 1e-10


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
    w = [1 / 10000 ** (2 * i / d_model) for i in range(d_model // 2)]
    for j, k in enumerate(range(-10, 11)):
        ref = sum(a[i] * math.cos(k * w[i]) - b[i] * math.sin(k * w[i]) for i in range(d_model // 2))
        np.testing.assert_allclose(scores[:, j], ref, atol=1e-10)
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
            v, e = words[wi].tolist(), pe_row(p, 16)
            ref = dot(v, e) / math.sqrt(dot(v, v) * dot(e, e))
            assert abs(cos[wi, p] - ref) < 1e-12
    for d in (16, 512):
        mean_abs = np.abs(pl.word_pe_cosines(d)).mean()
        # a random direction against a fixed one: E|cos| ~ sqrt(2 / (pi d))
        assert abs(mean_abs / math.sqrt(2 / (math.pi * d)) - 1) < 0.1


def test_probe_reads_both_back_in_high_dimensions_and_degrades_in_low():
    big = pl.word_position_probe(512)
    small = pl.word_position_probe(8)
    assert big["word"] == 1.0 and big["position_within_1"] == 1.0 and big["position"] > 0.9
    assert small["word"] < 0.8 and small["position"] < 0.5
    assert big["chance_word"] == 1 / 64 and big["chance_position"] == 1 / 64
    with pytest.raises(ValueError):
        pl.word_position_probe(16, train_frac=1.0)


# ---------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------
def test_check_rotation():
    k = 1
    right = [[math.cos(k), math.sin(k)], [-math.sin(k), math.cos(k)]]
    assert pl.check_rotation(k, 2, right)
    wrong_way = pl.check_rotation(k, 2, [[math.cos(k), -math.sin(k)], [math.sin(k), math.cos(k)]])
    assert not wrong_way and "方向反了" in wrong_way.message
    assert not pl.check_rotation(k, 2, None)
    assert not pl.check_rotation(k, 2, [[1, 0], [0, 1]])
    d4 = np.zeros((4, 4))
    for i, w in enumerate([1.0, 0.01]):
        d4[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[math.cos(3 * w), math.sin(3 * w)],
                                                [-math.sin(3 * w), math.cos(3 * w)]]
    assert pl.check_rotation(3, 4, d4.tolist())


def test_check_shifted_pe():
    pe1 = [math.sin(1), math.cos(1)]
    assert pl.check_shifted_pe(pe1, 2, [math.sin(3), math.cos(3)])
    assert pl.check_shifted_pe(pe1, 2, [0.1411, -0.9900])  # seed 001's PE(3), 4 decimals
    back = pl.check_shifted_pe(pe1, 2, [math.sin(-1), math.cos(-1)])
    assert not back and "方向反了" in back.message
    added = pl.check_shifted_pe(pe1, 2, [math.sin(1) + math.sin(2), math.cos(1) + math.cos(2)])
    assert not added and "不是" in added.message
    assert not pl.check_shifted_pe(pe1, 2, None)
    with pytest.raises(ValueError):
        pl.check_shifted_pe([0.1, 0.2, 0.3], 1, [0, 0, 0])


# ---------------------------------------------------------------------------
# Figures and explorers
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: pl.plot_shift_regression(k=1),
    lambda: pl.plot_cosine_histograms(),
    lambda: pl.plot_relative_rotation(5, -3, 16),
    lambda: pl.plot_similarity(64, projection=True),
])
def test_plots_draw_without_warnings(make):
    import io

    from matplotlib.figure import Figure

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = make()
        assert isinstance(fig, Figure)
        fig.savefig(io.BytesIO(), format="png")


def test_relative_explorer_reports_rounding_error_only():
    ex = pl.RelativeExplorer()
    for k, pos, d in ((-50, 100, 64), (17, 0, 2), (3, 5, 8)):
        ex.controls["d_model"].value = d
        ex.controls["k"].value = k
        ex.controls["pos"].value = pos
        err = float(re.search(r"= ([0-9.e+-]+)$", ex.view.title.get_text()).group(1))
        assert err < 1e-12
    assert ex.redraws == 1


def test_similarity_explorer_titles_follow_the_projection():
    ex = pl.SimilarityExplorer(d_model=64)
    numbers = lambda: [float(x) for x in re.findall(r"-?\d+\.\d+", ex.view.title_curve.get_text())]
    assert numbers()[:2] == [0.0, 0.0]
    ex.controls["projection"].value = True
    assert min(numbers()[:2]) > 0.0
    ys = ex.view.mean.get_ydata()
    ex.controls["projection"].value = False
    np.testing.assert_allclose(ex.view.mean.get_ydata(), ex.view.mirror.get_ydata(), atol=1e-12)
    assert not np.allclose(ys, ex.view.mean.get_ydata())


# ---------------------------------------------------------------------------
# The quiz
# ---------------------------------------------------------------------------
def test_interview_quiz_bank_is_well_formed():
    assert 8 <= len(pl.INTERVIEW_QUIZ) <= 24   # 01-05, 06 (relative family), 07-09
    answers = {q["answer"] for q in pl.INTERVIEW_QUIZ}
    assert len(answers) >= 3, "the right option should not always sit in the same place"
    text = " ".join(q["question"] + " ".join(q["options"]) + q["explanation"] for q in pl.INTERVIEW_QUIZ)
    for topic in ("等变", "R_k", "1024", "RoPE", "ALiBi", "cos k"):
        assert topic in text, topic


def test_quiz_options_fit_on_one_line():
    # RadioButtons labels do not wrap in JupyterLab: keep each option short
    # (display width, a CJK character counting as two columns).
    import unicodedata

    width = lambda t: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in t)
    for q in pl.INTERVIEW_QUIZ:
        for option in q["options"]:
            assert width(option) <= 64, option


def test_quiz_gives_immediate_feedback():
    quiz = pl.Quiz(pl.INTERVIEW_QUIZ)
    assert "posenc-quiz" in quiz.widget._dom_classes
    assert quiz.score == (0, len(pl.INTERVIEW_QUIZ))
    assert all(fb.value == "" for fb in quiz.feedback)
    for n, q in enumerate(pl.INTERVIEW_QUIZ):
        wrong = (q["answer"] + 1) % len(q["options"])
        quiz.radios[n].value = q["options"][wrong]
        assert "再想想" in quiz.feedback[n].value
        assert not quiz.verdict(n)
        quiz.radios[n].value = q["options"][q["answer"]]
        assert "正确" in quiz.feedback[n].value
        assert q["explanation"][:10] in quiz.feedback[n].value
    assert quiz.score == (len(pl.INTERVIEW_QUIZ), len(pl.INTERVIEW_QUIZ))
    assert f"{len(pl.INTERVIEW_QUIZ)} / {len(pl.INTERVIEW_QUIZ)}" in quiz.score_html.value
    quiz.radios[0].value = None
    assert quiz.feedback[0].value == "" and quiz.verdict(0) is None


def test_quiz_from_plain_data_and_quiz_widget():
    qs = [{"question": "1 + 1 = ?", "options": ["1", "2"], "answer": 1, "explanation": "e<b>", "hint": "h"}]
    quiz = pl.Quiz(qs)
    quiz.radios[0].value = "1"
    assert "再想想" in quiz.feedback[0].value and "h" in quiz.feedback[0].value
    quiz.radios[0].value = "2"
    assert "e&lt;b&gt;" in quiz.feedback[0].value  # explanations are escaped
    box = pl.Quiz(qs).widget
    assert "posenc-quiz" in box._dom_classes
    assert "posenc-quiz" in pl.Quiz(pl.INTERVIEW_QUIZ).widget._dom_classes


@pytest.mark.parametrize("bad,exc", [
    ([], ValueError),
    ([{"question": "q", "options": ["a", "b"], "answer": 2, "explanation": "e"}], ValueError),
    ([{"question": "q", "options": ["a", "a"], "answer": 0, "explanation": "e"}], ValueError),
    ([{"question": "q", "options": ["a", "b"], "answer": 0}], ValueError),
    ([{"question": "q", "options": "ab", "answer": 0, "explanation": "e"}], ValueError),
    (["not a dict"], TypeError),
    (None, TypeError),
])
def test_quiz_refuses_malformed_questions(bad, exc):
    with pytest.raises(exc):
        pl.Quiz(bad)
