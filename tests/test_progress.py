"""The learner's progress (posenc/progress.py): every check and the quiz record to
``$POSENC_PROGRESS`` (conftest.py points it at a temporary file for the whole suite), the record
survives a kernel restart and a corrupt file, an unwritable place never breaks a check, the
quiz shows its first-try score, and ``show_progress`` / ``reset_progress`` do what they say.
"""
import ast
import inspect
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import posenc_lib as pl
from posenc import progress
from posenc.course import NOTEBOOK_TITLES
from posenc.exercises.verdict import exercise_id
from posenc.quiz import QUIZZES

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = [p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) if not p.stem.startswith("00")]


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "progress.json"
    monkeypatch.setenv("POSENC_PROGRESS", str(path))
    progress._WARNED.clear()
    return path


def test_the_suite_never_writes_to_the_real_home():
    assert os.environ.get("POSENC_PROGRESS")
    assert not pathlib.Path(os.environ["POSENC_PROGRESS"]).resolve().is_relative_to(pathlib.Path.home().resolve())


def test_the_default_file_is_in_the_home_folder(monkeypatch):
    monkeypatch.delenv("POSENC_PROGRESS")
    assert progress.progress_path() == pathlib.Path.home() / ".posenc" / "progress.json"


def test_a_check_records_solved_first_verdict_and_attempts(progress_file):
    key = "check_pe(pos=4, d_model=2, base=10000, word=None)"
    assert not pl.check_pe(4, None)                               # unanswered: not an attempt
    assert not progress_file.exists()
    assert not pl.check_pe(4, [-0.76, -0.65])
    assert pl.check_pe(4, [-0.7568, -0.6536])
    assert not pl.check_pe(4, [0, 0])                              # solved stays solved
    entry = json.loads(progress_file.read_text(encoding="utf-8"))["exercises"][key]
    assert entry == {"notebook": "02_sinusoidal_hand_calculation", "solved": True, "first": "再想想", "attempts": 3}


def test_progress_survives_a_kernel_restart(progress_file):
    code = "import posenc_lib as pl; pl.check_raster_offset(12, 12); pl.check_causal_weight(9, 0.2)"
    env = {**os.environ, "POSENC_PROGRESS": str(progress_file), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)
    read = "import json, posenc.progress as p; print(json.dumps(p.load_progress()['exercises']))"
    out = subprocess.run([sys.executable, "-c", read], env=env, check=True, cwd=ROOT, capture_output=True, text=True)
    exercises = json.loads(out.stdout)
    assert exercises["check_raster_offset(cols=12)"]["solved"] is True
    assert exercises["check_causal_weight(n=9)"] == {"notebook": "12_where_position_goes", "solved": False,
                                                     "first": "再想想", "attempts": 1}


def test_a_corrupt_file_gives_one_line_and_never_breaks_a_check(progress_file, capsys):
    progress_file.parent.mkdir(parents=True)
    progress_file.write_text("{not json", encoding="utf-8")
    assert pl.check_raster_offset(12, 12)
    assert pl.check_raster_offset(12, 12)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "损坏" in err, err                 # one line, once
    data = json.loads(progress_file.read_text(encoding="utf-8"))     # rewritten whole
    assert data["exercises"]["check_raster_offset(cols=12)"]["attempts"] == 2


def test_an_unwritable_place_gives_one_line_and_never_breaks_a_check(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("POSENC_PROGRESS", str(blocker / "progress.json"))   # a folder that is a file
    progress._WARNED.clear()
    assert pl.check_raster_offset(12, 12)
    assert not pl.check_raster_offset(12, 1)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("写不进去" in err or "读不了" in err), err


def test_the_file_is_written_atomically(progress_file, monkeypatch):
    pl.check_raster_offset(12, 12)
    before = progress_file.read_text(encoding="utf-8")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(progress.json, "dump", fail)
    assert pl.check_raster_offset(12, 1) is not None                  # the check still answers
    assert progress_file.read_text(encoding="utf-8") == before        # the old file is intact
    assert [p.name for p in progress_file.parent.iterdir()] == ["progress.json"]   # no temp file left


def test_reset_needs_confirmation(progress_file, capsys):
    pl.check_raster_offset(12, 12)
    assert pl.reset_progress() is False
    assert "confirm=True" in capsys.readouterr().out
    assert progress.load_progress()["exercises"]
    assert pl.reset_progress(confirm=True) is True
    assert progress.load_progress() == {"version": 1, "exercises": {}, "quiz": {}}


def test_the_quiz_records_the_first_choice_and_shows_the_first_try_score(progress_file):
    quiz = pl.Quiz(pl.REAL_MODELS)
    assert quiz.name == "10_rope_real_models"
    answer = quiz.questions[0]["answer"]
    wrong = (answer + 1) % len(quiz.questions[0]["options"])
    quiz.radios[0].index = wrong
    quiz.radios[0].index = answer                                     # today's score counts this
    assert quiz.score[0] == 1 and quiz.first_try_score[:2] == (0, len(quiz.questions))
    assert "首次作答得分 (first try)：0 / " in quiz.score_html.value
    quiz.radios[1].index = quiz.questions[1]["answer"]
    again = pl.Quiz(pl.REAL_MODELS)                                   # a new kernel, the same file
    assert again.first_try_score == (1, len(quiz.questions), 2)
    assert again.score == (0, len(quiz.questions))
    record = progress.load_progress()["quiz"]["10_rope_real_models"]
    assert record[quiz.questions[0]["question"]] == {"first": wrong, "right": False}


def test_show_progress_counts_per_notebook_and_draws_legible_text(progress_file):
    pl.check_raster_offset(12, 12)
    pl.check_causal_weight(9, 0.1)
    pl.check_mrope_text_start(5, (1, 6, 8), 12)
    quiz = pl.Quiz(pl.REAL_MODELS)
    quiz.radios[0].index = quiz.questions[0]["answer"]
    rows = {r["notebook"]: r for r in progress.progress_summary(QUIZZES)}
    assert (rows["12_where_position_goes"]["solved"], rows["12_where_position_goes"]["total"]) == (2, 3)
    assert (rows["10_rope_real_models"]["quiz_right"], rows["10_rope_real_models"]["quiz_total"]) == (1, 5)
    assert rows["13_summary_interview"]["quiz_answered"] == 0          # a quiz of its own
    fig = pl.show_progress()
    fig.canvas.draw()
    dpi = fig.dpi
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text")):
        if text.get_text().strip():
            assert text.get_fontsize() * dpi / 72 >= 11, (text.get_text(), text.get_fontsize())


# ---------------------------------------------------------------------------
# The registry of exercises matches the notebooks
# ---------------------------------------------------------------------------
def _literal(node):
    return ast.literal_eval(node)


def notebook_exercise_ids(path) -> list[str]:
    """The :func:`exercise_id` of every ``pl.check_*`` call in the notebook's exercise cells,
    read from the code (literal arguments; check_choice by its ``exercise=``)."""
    ids = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or not re.match(r"answer\w* = None", source):
            continue
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "pl"
                    and node.func.attr.startswith("check_")):
                name = node.func.attr
                if name == "check_choice":
                    label = next(k.value for k in node.keywords if k.arg == "exercise")
                    ids.append(exercise_id(name, {"exercise": _literal(label)}))
                    continue
                check = inspect.unwrap(getattr(pl, name))
                args = [None if isinstance(a, ast.Name) else _literal(a) for a in node.args]
                kwargs = {k.arg: _literal(k.value) for k in node.keywords}
                bound = inspect.signature(check).bind(*args, **kwargs)
                bound.apply_defaults()
                ids.append(exercise_id(name, bound.arguments))
    return ids


def test_the_registry_lists_every_exercise_of_every_notebook():
    found = {p.stem: tuple(ids) for p in NOTEBOOKS if (ids := notebook_exercise_ids(p))}
    assert found == progress.EXERCISES


def test_the_titles_are_the_notebooks_first_headings():
    titles = {}
    for p in NOTEBOOKS:
        first = "".join(json.loads(p.read_text(encoding="utf-8"))["cells"][0]["source"]).splitlines()[0]
        titles[p.stem] = first.lstrip("# ").strip()
    assert titles == NOTEBOOK_TITLES
