"""Every exercise cell of the notebooks, answered by its folded worked solution (完整解答), is right;
before an answer it shows a neutral prompt, never 再想想 or the hint; the precision rule is stated
in the first notebook with a numeric exercise.

The exercise cells are executed as written, with the ``answer… = None`` line replaced by the
solution's 「答案：」 literal, so the worked solution, the cell and the check must agree.
"""
import ast
import json
import math
import pathlib
import re

import numpy as np
import pytest

import posenc_lib as pl
from posenc.exercises.verdict import PRECISION_RULE

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: Notebooks whose exercise cells train a model (seconds to a minute on this machine).
TRAINS = {"05_learned_embeddings"}


def exercise_cells(path) -> list[str]:
    """The code cells of the 练习 section that start with ``answer… = None``, in order."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    start = max((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                 and re.search(r"^## 练习", "".join(c["source"]), re.M)), default=None)
    if start is None:
        return []
    return [src for c in cells[start:] if c["cell_type"] == "code"
            and re.match(r"answer\w* = None", src := "".join(c["source"]))]


def solution_answers(path) -> list:
    """The 「答案：」 literals of the notebook's folded worked solution, in order."""
    text = "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "markdown" and "完整解答" in "".join(c["source"]))
    assert "<details>" in text and "</details>" in text, f"{path.name}: the worked solution is folded"
    return [ast.literal_eval(a) for a in re.findall(r"\*\*答案：\*\* `([^`]+)`", text)]


def run_cell(source: str, answer):
    """Execute an exercise cell with its first line's ``None`` replaced by ``answer``; return the
    Verdict its last expression gives."""
    tree = ast.parse(source)
    first, last = tree.body[0], tree.body[-1]
    assert isinstance(first, ast.Assign) and isinstance(last, ast.Expr)
    tree.body[-1] = ast.Assign(targets=[ast.Name("_verdict", ast.Store())], value=last.value)
    ast.fix_missing_locations(tree)
    namespace = {"np": np, "pl": pl, "math": math, first.targets[0].id: answer}
    exec(compile(ast.Module(body=tree.body[1:], type_ignores=[]), "exercise", "exec"), namespace)
    return namespace["_verdict"]


WITH_EXERCISES = [p for p in NOTEBOOKS if exercise_cells(p)]


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in TRAINS else p
                                  for p in WITH_EXERCISES], ids=lambda p: p.stem[:2])
def test_the_worked_solution_answers_every_exercise_rightly(path):
    cells, answers = exercise_cells(path), solution_answers(path)
    assert len(answers) == len(cells), f"{path.name}: {len(cells)} exercises, {len(answers)} answers"
    for n, (cell, answer) in enumerate(zip(cells, answers), 1):
        verdict = run_cell(cell, answer)
        assert verdict.ok, f"{path.name} exercise {n}: {answer!r} -> {verdict.message}"


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in TRAINS else p
                                  for p in WITH_EXERCISES], ids=lambda p: p.stem[:2])
def test_an_unanswered_exercise_shows_a_neutral_prompt(path):
    for n, cell in enumerate(exercise_cells(path), 1):
        verdict = run_cell(cell, None)
        assert verdict.pending and not verdict, (path.name, n, verdict)
        shown = repr(verdict) + verdict._repr_html_()
        assert "再想想" not in shown and verdict.message == "把 None 换成你的答案，再运行这个单元格。", (path.name, n, shown)


def test_the_rule_is_stated_in_the_first_notebook_with_a_numeric_exercise():
    from posenc.course import catalogue

    numeric = next(e for e in catalogue.for_kind("exercise")
                   if e.notebook not in TRAINS and e.check("0", **e.params).rule.read == "number")
    assert numeric.notebook == "02_sinusoidal_hand_calculation"
    first = ROOT / "notebooks" / f"{numeric.notebook}.ipynb"
    text = "\n".join("".join(c["source"]) for c in json.loads(first.read_text(encoding="utf-8"))["cells"])
    assert PRECISION_RULE.split("：", 1)[1] in text
    assert "方法对了，舍入太粗/位数不够" in text
