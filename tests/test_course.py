"""The quiz cites notebooks by title (posenc/course.py): every bare notebook number in a quiz
bank's brackets is shown as 「第 NN 篇《title》」, and numbers that are not notebooks stay."""
import re

import posenc_lib as pl
from posenc.ui import quiz
from posenc.course.notebooks import NOTEBOOK_TITLES, cite_titles

BANKS = [q for name in dir(quiz) if name.isupper() and isinstance(getattr(quiz, name), list)
         for q in getattr(quiz, name) if isinstance(q, dict)]


def texts():
    for q in BANKS:
        yield q["question"]
        yield q["explanation"]
        yield from q.get("wrong", {}).values()


def test_citations_name_the_notebook_by_title():
    assert cite_titles("（10）") == f"（见第 10 篇《{NOTEBOOK_TITLES['10_rope_real_models']}》）"
    assert cite_titles("（07、08）") == f"（见第 07 篇《{NOTEBOOK_TITLES['07_rope']}》、第 08 篇《{NOTEBOOK_TITLES['08_alibi_extrapolation']}》）"
    assert cite_titles("（07 第 7 节）") == f"（第 07 篇《{NOTEBOOK_TITLES['07_rope']}》 第 7 节）"
    for count in ("（12 不是 2 的幂）", "（24 维 = 12 对）", "（位置 1024）", "（Haviv 等 2022）"):
        assert cite_titles(count) == count


def test_no_quiz_text_cites_a_bare_notebook_number():
    bare = re.compile(r"[（、，]\s*(0[1-9]|1[0-3])\s*[）、，]|（(0[1-9]|1[0-3]) (?!不是)(?!维)")
    left = [t for t in texts() if bare.search(cite_titles(t))]
    assert not left, left
    assert sum("篇《" in cite_titles(t) for t in texts()) > 40


def test_the_quiz_shows_titles_in_its_feedback():
    q = pl.Quiz(pl.REAL_MODELS)
    n = next(i for i, x in enumerate(q.questions) if "（10）" in x["explanation"])
    q.radios[n].index = q.questions[n]["answer"]
    assert f"《{NOTEBOOK_TITLES['10_rope_real_models']}》" in q.feedback[n].value
    assert "（10）" not in q.feedback[n].value
