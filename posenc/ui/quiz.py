"""The self-check quiz: multiple choice with feedback on every pick. The questions are in
:mod:`posenc.course.quiz_banks`, one bank per concept (re-exported here). Each question is graded
by the course's one pipeline (:func:`question_rule`: a ``choice`` rule of
:mod:`posenc.exercises.rule`), in the kernel and, with the same rule, on a static page
(:func:`page_html`).
"""
from __future__ import annotations

import functools
import html

from ..course.notebooks import cite_titles
from ..course.quiz_banks import (  # noqa: F401  (the banks, by concept)
    ALIBI, CONTEXT, INTERVIEW_QUIZ, LEARNED, PERMUTATION, PRACTICE, PROBES, QUIZZES, REAL_MODELS, RELATIVE,
    RELATIVE_FAMILY, ROPE, ROPE_2D, ROPE_IMPLEMENTATION, SINUSOIDAL,
)
from ..exercises.reading import normalise
from ..exercises.rule import Rule, rule
from ..exercises.verdict import Verdict
from ..validate import bilingual, check_int


def check_question(n: int, q) -> dict:
    where = f"question {n} / 第 {n} 题"
    if not isinstance(q, dict):
        raise TypeError(bilingual(f"{where}: must be a dict", "必须是 dict"))
    missing = [key for key in ("id", "question", "options", "answer", "explanation") if key not in q]
    if missing:
        raise ValueError(bilingual(f"{where}: missing keys {missing}", f"缺少键 {missing}"))
    options = q["options"]
    if (isinstance(options, str) or len(options) < 2
            or not all(isinstance(o, str) and o.strip() for o in options)
            or len(set(options)) != len(options)):
        raise ValueError(bilingual(f"{where}: options must be at least two different non-empty strings",
                                   "options 至少要有两个互不相同的非空字符串"))
    if not (isinstance(q["id"], str) and q["id"].strip()):
        raise ValueError(bilingual(f"{where}: id must be a non-empty string (the question's stable id)",
                                   "id 必须是非空字符串（题目的固定 id）"))
    answer = check_int(f"answer of {where}", q["answer"], 0, len(options) - 1)
    wrong = q.get("wrong", {})
    if not isinstance(wrong, dict) or any(check_int(f"wrong option of {where}", j, 0, len(options) - 1) == answer
                                          for j in wrong):
        raise ValueError(bilingual(f"{where}: wrong must map wrong option indices to messages",
                                   "wrong 必须把错误选项的序号映射到说明"))
    return {"id": q["id"], "question": str(q["question"]), "options": tuple(options), "answer": answer,
            "explanation": str(q["explanation"]), "hint": str(q.get("hint", "")),
            "wrong": {int(j): str(m) for j, m in wrong.items()}}


#: The score line, today's and the first try's (the static page fills in the same fields).
SCORE_TEXT = ("<b>得分 (score)：{right} / {total}</b>（已作答 {answered} 题）· "
              "<b>首次作答得分 (first try)：{first} / {total}</b>（记录了 {ever} 题的第一次选择）")
#: What a wrong pick says when its question has neither a message for it nor a hint.
NO_HINT = "回到对应的笔记本再看一遍。"


def question_rule(q: dict) -> Rule:
    """A checked question (:func:`check_question`) as a ``choice`` rule of the course's pipeline:
    the options by index, the right index, the explanation as the right pick's message and, for
    each wrong option, 「你选的是「…」：」 and its message (else the hint); notebooks cited by
    number are cited with their titles. Every message names the pick, so the verdict does not
    echo it (``echo=False``)."""
    why = lambda j: q["wrong"].get(j) or q["hint"] or NO_HINT
    n = len(q["options"])
    return rule(q["answer"], read="choice", valid={"options": [normalise(j) for j in range(n)]},
                expected=f"答案应是第 0 到第 {n - 1} 个选项（选项的序号）之一。", ok=cite_titles(q["explanation"]),
                slips=[(j, f"你选的是「{o}」：{cite_titles(why(j))}") for j, o in enumerate(q["options"])],
                wrong=NO_HINT, echo=False)


class Quiz:
    """Multiple-choice self-check: one RadioButtons per question, feedback as soon as one is picked.

    ``questions`` is data: a list of dicts with ``id`` (the question's stable id, what its first
    pick is recorded under), ``question``, ``options`` (strings),
    ``answer`` (index into options), ``explanation``, an optional ``hint`` and an optional
    ``wrong`` ({option index: what picking it shows}). A right pick shows 正确 and the
    explanation, a wrong one 再想想, the option picked and its message (else the hint); a
    notebook cited by number is cited with its title (:func:`cite_titles`). The first pick of
    each question is recorded in the learner's progress (:mod:`posenc.course.progress`) under the
    question's id, and the score line shows the first-try score next to today's. ``name``
    (default: the notebook whose bank in :data:`QUIZZES` the questions are, else ``"quiz"``)
    names the quiz on a static page.
    ``.radios[n].value`` can be set from code (that is how the tests answer); ``.widget`` is
    what to display.
    """

    def __init__(self, questions, name: str | None = None):
        import ipywidgets as widgets

        try:
            questions = list(questions)
        except TypeError:
            raise TypeError(bilingual("questions must be a list of dicts", "questions 必须是 dict 的列表")) from None
        if not questions:
            raise ValueError(bilingual("questions must not be empty", "questions 不能为空"))
        self.questions = [check_question(n, q) for n, q in enumerate(questions, 1)]
        self.rules = [question_rule(q) for q in self.questions]
        self.name = str(name) if name is not None else next(
            (nb for nb, bank in QUIZZES.items() if [q["id"] for q in bank] == [q["id"] for q in self.questions]), "quiz")
        self.radios, self.feedback, boxes = [], [], []
        for n, q in enumerate(self.questions):
            head = widgets.HTML(f"<b>{n + 1}. {html.escape(cite_titles(q['question']))}</b>")
            radio = widgets.RadioButtons(options=list(q["options"]), value=None,
                                         layout=widgets.Layout(width="auto"))
            fb = widgets.HTML("")
            radio.observe(functools.partial(self._on_pick, n), names="value")
            self.radios.append(radio)
            self.feedback.append(fb)
            boxes.append(widgets.VBox([head, radio, fb], layout=widgets.Layout(margin="0 0 10px 0")))
        from .declare import QUIZ, declared_box

        self.score_html = widgets.HTML()
        self.widget = declared_box([*boxes, self.score_html], QUIZ, self.declaration)
        self.widget.add_class("posenc-quiz")
        self._show_score()

    def verdict(self, n: int) -> Verdict | None:
        """The Verdict for question ``n`` (0-based): its pick graded by its rule
        (:func:`question_rule`), or None while it is unanswered."""
        index = self.radios[n].index
        return None if index is None else self.rules[n].grade(index)

    def declaration(self) -> dict:
        """The quiz as a static page needs it (:mod:`posenc.ui.declare`, :func:`page_html`): its name
        and per question its id (the progress record's key), its text as shown (citations written
        out), its options and its rule (:func:`question_rule`), with which the page grades a pick."""
        return {"name": self.name,
                "questions": [{"id": q["id"], "shown": cite_titles(q["question"]), "options": list(q["options"]),
                               "rule": r.to_json(compact=True)} for q, r in zip(self.questions, self.rules)]}

    @property
    def score(self) -> tuple[int, int]:
        """(right answers, questions)."""
        return sum(bool(self.verdict(n)) for n in range(len(self.questions))), len(self.questions)

    @property
    def first_try_score(self) -> tuple[int, int, int]:
        """(first picks that were right, questions, questions ever answered), from the
        learner's progress file: it survives a kernel restart."""
        from ..course.progress import quiz_first_tries

        right, answered = quiz_first_tries([q["id"] for q in self.questions])
        return right, len(self.questions), answered

    def _on_pick(self, n: int, change) -> None:
        v = self.verdict(n)
        self.feedback[n].value = "" if v is None else v._repr_html_()
        if v is not None:
            from ..course.progress import record_quiz

            record_quiz(self.questions[n]["id"], self.radios[n].index, bool(v))
        self._show_score()

    def _show_score(self) -> None:
        right, total = self.score
        answered = sum(r.index is not None for r in self.radios)
        first, _, ever = self.first_try_score
        self.score_html.value = "<div class='posenc-quiz-score'>" + SCORE_TEXT.format(
            right=right, total=total, answered=answered, first=first, ever=ever) + "</div>"

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def page_html(decl: dict) -> str:
    """The quiz on a static page, from its :meth:`Quiz.declaration`: per question its text, its
    options as radio buttons (each carries its option as the rule reads it) and a place for the
    verdict; the score line with the reader's numbers left to the page's script
    (:class:`~posenc.ui.declare.Slot`). The script grades a pick with the question's rule
    (tools/site/grader.js) and shows it through :func:`~posenc.ui.declare.verdict_looks`."""
    from .declare import Slot, data_attr, verdict_looks

    name = html.escape(decl["name"])
    questions = []
    for n, q in enumerate(decl["questions"]):
        options = "".join(f'<label class="posenc-option"><input type="radio" name="{name}-{n}" '
                          f'{data_attr("option", normalise(j))}> {html.escape(o)}</label>' for j, o in enumerate(q["options"]))
        questions.append(f'<div class="posenc-quiz-question" data-question="{html.escape(q["id"])}" {data_attr("rule", q["rule"])}>'
                         f'<b>{n + 1}. {html.escape(q["shown"])}</b><div class="posenc-options" role="radiogroup">{options}</div>'
                         f'<div class="posenc-quiz-feedback" aria-live="polite"></div></div>')
    slots = {k: Slot(k) for k in ("right", "answered", "first", "ever")}
    score = SCORE_TEXT.format(total=len(decl["questions"]), **slots)
    return (f'<div class="posenc-quiz posenc-page-quiz" data-quiz="{name}" {data_attr("verdicts", verdict_looks())}>'
            f'{"".join(questions)}<div class="posenc-quiz-score">{score}</div></div>')
