"""The course's declarations (posenc/course/catalogue.py) and the notebooks agree: every declared
exercise is asked by exactly one cell of its notebook, every ``pl.check`` call names a declared id
with the declared arguments, and no exercise cell holds its answer, the hints per option or a slip
table (a cell is the answer line and one ``pl.check`` call with literal arguments, nothing else).
"""
import ast
import json
import pathlib
import re

import pytest

from posenc.course import catalogue
from posenc.exercises.reading import normalise
from test_exercise_solutions import solution_answers

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = {p.stem: p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))}


def _code_cells(stem):
    cells = json.loads(NOTEBOOKS[stem].read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def _check_calls(source):
    """The ``pl.check(...)`` calls of a cell's code."""
    try:
        tree = ast.parse(source)
    except SyntaxError:                     # a cell with IPython syntax (%magic) is no exercise
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "pl" and n.func.attr == "check"]


def test_ids_are_unique_slugs_and_notebooks_exist():
    ids = [e.id for e in catalogue.EXERCISES]
    assert len(ids) == len(set(ids))
    assert all(catalogue.ID.fullmatch(i) and not re.match(r"\d\d", i) for i in ids)
    assert {e.notebook for e in catalogue.EXERCISES} <= set(NOTEBOOKS)
    assert {w.notebook for w in catalogue.WORKSHEETS} <= set(NOTEBOOKS)


def test_the_declarations_follow_the_course_order():
    order = list(NOTEBOOKS)
    positions = [order.index(e.notebook) for e in catalogue.EXERCISES]
    assert positions == sorted(positions)


@pytest.mark.parametrize("stem", [s for s in NOTEBOOKS if not s.startswith("00")])
def test_each_declared_exercise_is_asked_once_in_its_notebook_in_order(stem):
    asked = []
    for source in _code_cells(stem):
        for call in _check_calls(source):
            assert isinstance(call.args[0], ast.Constant), f"{stem}: pl.check's first argument is a literal id"
            asked.append(call.args[0].value)
    declared = [e.id for e in catalogue.for_notebook(stem)]
    assert asked == declared, stem


@pytest.mark.parametrize("stem", [s for s in NOTEBOOKS if not s.startswith("00")])
def test_no_exercise_cell_holds_its_answer(stem):
    """An exercise cell is two statements: ``answer… = None`` and ``pl.check("id", answer…, k=literal, …)``
    whose literals equal the declaration's; the worked solution's answer appears nowhere in it."""
    exercises = {e.id: e for e in catalogue.for_notebook(stem, kind="exercise")}
    cells = [s for s in _code_cells(stem) if any(c.args[0].value in exercises for c in _check_calls(s))]
    answers = solution_answers(NOTEBOOKS[stem]) if cells else []
    assert len(answers) == len(cells)
    for source, answer in zip(cells, answers):
        body = ast.parse(source).body
        assert len(body) == 2, source
        first, last = body
        assert isinstance(first, ast.Assign) and isinstance(first.value, ast.Constant) and first.value.value is None, source
        call = last.value
        assert isinstance(call, ast.Call) and len(call.args) == 2 and isinstance(call.args[1], ast.Name), source
        ex = exercises[call.args[0].value]
        for kw in call.keywords:
            value = ast.literal_eval(kw.value)             # a literal, nothing computed in the cell
            assert kw.arg in ex.params and normalise(value) == normalise(ex.params[kw.arg]), (source, kw.arg)
        shown = repr(answer) if not isinstance(answer, str) else answer
        if not isinstance(answer, (int, float)) or isinstance(answer, bool):
            assert shown not in source.split("\n", 1)[1], (source, answer)


def test_every_declared_check_takes_its_declared_arguments():
    import inspect

    for e in catalogue.EXERCISES:
        params = inspect.signature(e.check).parameters
        assert list(params)[0] == "answer" or e.kind == "drill", e.id
        assert set(e.params) <= set(params), e.id
