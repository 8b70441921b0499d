"""The learner's progress (posenc/course/progress.py, shown by posenc/ui/progress.py): every check and the quiz record to
``$POSENC_PROGRESS`` (conftest.py points it at a temporary file for the whole suite), the record
survives a kernel restart and a corrupt file, an unwritable place never breaks a check, the
quiz shows its first-try score, and ``show_progress`` / ``reset_progress`` do what they say.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import posenc_lib as pl
from posenc.course import progress
from posenc.course import notebooks
from posenc.exercises import catalogue
from posenc.ui.progress import progress_summary
from posenc.course.quiz_banks import QUIZZES

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
    assert not pl.check_pe(None, pos=4)                               # unanswered: not an attempt
    assert not progress_file.exists()
    assert not pl.check_pe([-0.76, -0.65], pos=4)
    assert pl.check_pe([-0.7568, -0.6536], pos=4)
    assert not pl.check_pe([0, 0], pos=4)                              # solved stays solved
    entry = json.loads(progress_file.read_text(encoding="utf-8"))["exercises"][key]
    assert entry == {"solved": True, "first": "再想想", "attempts": 3}


def test_progress_survives_a_kernel_restart(progress_file):
    code = "import posenc_lib as pl; pl.check_raster_offset(12, cols=12); pl.check_causal_weight(0.2, n=9)"
    env = {**os.environ, "POSENC_PROGRESS": str(progress_file), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)
    read = "import json, posenc.course.progress as p; print(json.dumps(p.load_progress()['exercises']))"
    out = subprocess.run([sys.executable, "-c", read], env=env, check=True, cwd=ROOT, capture_output=True, text=True)
    exercises = json.loads(out.stdout)
    assert exercises["check_raster_offset(cols=12)"]["solved"] is True
    assert exercises["check_causal_weight(n=9)"] == {"solved": False,
                                                     "first": "再想想", "attempts": 1}


def test_a_corrupt_file_gives_one_line_and_never_breaks_a_check(progress_file, capsys):
    progress_file.parent.mkdir(parents=True)
    progress_file.write_text("{not json", encoding="utf-8")
    assert pl.check_raster_offset(12, cols=12)
    assert pl.check_raster_offset(12, cols=12)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "损坏" in err, err                 # one line, once
    data = json.loads(progress_file.read_text(encoding="utf-8"))     # rewritten whole
    assert data["exercises"]["check_raster_offset(cols=12)"]["attempts"] == 2


def test_an_unwritable_place_gives_one_line_and_never_breaks_a_check(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("POSENC_PROGRESS", str(blocker / "progress.json"))   # a folder that is a file
    progress._WARNED.clear()
    assert pl.check_raster_offset(12, cols=12)
    assert not pl.check_raster_offset(1, cols=12)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("写不进去" in err or "读不了" in err), err


def test_the_file_is_written_atomically(progress_file, monkeypatch):
    pl.check_raster_offset(12, cols=12)
    before = progress_file.read_text(encoding="utf-8")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(progress.json, "dump", fail)
    assert pl.check_raster_offset(1, cols=12) is not None                  # the check still answers
    assert progress_file.read_text(encoding="utf-8") == before        # the old file is intact
    assert [p.name for p in progress_file.parent.iterdir()] == ["progress.json"]   # no temp file left


def test_reset_needs_confirmation(progress_file, capsys):
    pl.check_raster_offset(12, cols=12)
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
    pl.check_raster_offset(12, cols=12)
    pl.check_causal_weight(0.1, n=9)
    pl.check_mrope_text_start(12, n_text_before=5, grid_thw=(1, 6, 8))
    quiz = pl.Quiz(pl.REAL_MODELS)
    quiz.radios[0].index = quiz.questions[0]["answer"]
    rows = {r["notebook"]: r for r in progress_summary(QUIZZES)}
    assert (rows["12_where_position_goes"]["solved"], rows["12_where_position_goes"]["total"]) == (2, 3)
    assert (rows["10_rope_real_models"]["quiz_right"], rows["10_rope_real_models"]["quiz_total"]) == (1, 5)
    assert rows["13_summary_interview"]["quiz_answered"] == 0          # a quiz of its own
    from IPython.display import display  # noqa: F401  (show_progress displays, returns nothing)
    from posenc.ui.progress import ProgressView, plot_progress

    assert pl.show_progress() is None
    bundle = ProgressView(rows.values())._repr_mimebundle_()
    assert "<img class='posenc-progress-chart'" in bundle["text/html"] and "data:image/png;base64," in bundle["text/html"]
    assert "12_where_position_goes.ipynb" in bundle["text/html"] and "2 / 3" in bundle["text/html"]
    fig = plot_progress(rows.values())
    fig.canvas.draw()
    dpi = fig.dpi
    for text in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text")):
        if text.get_text().strip():
            assert text.get_fontsize() * dpi / 72 >= 11, (text.get_text(), text.get_fontsize())


# ---------------------------------------------------------------------------
# The exercises and titles are read from the notebooks
# ---------------------------------------------------------------------------
def test_an_exercise_is_recorded_under_the_key_read_from_its_cell(progress_file):
    """The key read from 02's first exercise cell is the one its check records under."""
    assert catalogue.EXERCISES["02_sinusoidal_hand_calculation"][0] == \
        "check_pe(pos=4, d_model=2, base=10000, word=None)"
    pl.check_pe([0.0, 0.0], pos=4)
    assert list(progress.load_progress()["exercises"]) == ["check_pe(pos=4, d_model=2, base=10000, word=None)"]


def test_every_exercise_cell_is_read_and_choices_are_keyed_by_their_label():
    """One key per check call in the cells that start with ``answer… = None``; a choice is keyed
    by its ``exercise=`` label, which names its notebook."""
    for p in NOTEBOOKS:
        cells = json.loads(p.read_text(encoding="utf-8"))["cells"]
        calls = sum(len(re.findall(r"\bpl\.check_\w+\(", "".join(c["source"]))) for c in cells
                    if c["cell_type"] == "code" and re.match(r"answer\w* = None", "".join(c["source"])))
        ids = catalogue.EXERCISES.get(p.stem, ())
        assert len(ids) == calls, p.name
        for key in ids:
            label = re.fullmatch(r"check_choice\(exercise='(\d\d)\.\d+'\)", key)
            assert label is None or label[1] == p.stem[:2], key


def test_an_exercise_whose_arguments_are_not_written_in_its_cell_is_refused():
    with pytest.raises(ValueError, match="must be written in its cell"):
        catalogue.exercise_ids("answer = None\nn = compute()\npl.check_causal_weight(answer, n=n)")


def test_the_titles_are_the_notebooks_first_headings():
    titles = notebooks.NOTEBOOK_TITLES
    assert list(titles) == [p.stem for p in NOTEBOOKS]
    assert titles["07_rope"] == "从旋转到 RoPE"
    for p in NOTEBOOKS:
        assert "".join(json.loads(p.read_text(encoding="utf-8"))["cells"][0]["source"]).startswith(f"# {titles[p.stem]}")
