"""posenc/quiz.py: the interview self-check quiz (notebook 12; notebook 10 has its own bank): its question banks and the
widget's immediate feedback."""
import pytest

import posenc_lib as pl


def test_interview_quiz_bank_is_well_formed():
    assert 8 <= len(pl.INTERVIEW_QUIZ) <= 40   # one bank per concept, 01 to 11
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
    qs = [{"id": "one-plus-one", "question": "1 + 1 = ?", "options": ["1", "2"], "answer": 1, "explanation": "e<b>", "hint": "h"}]
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
    ([{"question": "q", "options": ["a", "b"], "answer": 0, "explanation": "e"}], ValueError),   # no id
    ([{"id": "", "question": "q", "options": ["a", "b"], "answer": 0, "explanation": "e"}], ValueError),
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
