"""The learner's progress (posenc/course/progress.py, shown by posenc/ui/progress.py): a declared
exercise checked with ``pl.check`` records under its id, the quiz under each question's id, the
worksheet under each case; the record survives a kernel restart, a version-1 file is migrated
with nothing lost, and a corrupt, newer, read-only or unwritable file (or a full disk) gives one
line and never breaks a check or loses the record. conftest.py points ``$POSENC_PROGRESS`` at a
temporary file for the whole suite.
"""
import errno
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import posenc_lib as pl
from posenc.course import catalogue, notebooks, progress
from posenc.course.quiz_banks import QUIZZES
from posenc.ui.progress import progress_summary

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = [p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) if not p.stem.startswith("00")]
#: A version-1 record holding every key the course could write before the registry: the 52
#: exercise keys and the 25 quiz answers, written by that version's own checks and quiz (the
#: worked solutions and some wrong answers fed to every exercise cell, every quiz answered).
V1_FILE = ROOT / "tests" / "data" / "progress_v1_every_key.json"


@pytest.fixture
def progress_file(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "progress.json"
    monkeypatch.setenv("POSENC_PROGRESS", str(path))
    progress._WARNED.clear()
    return path


def _record(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_suite_never_writes_to_the_real_home():
    assert os.environ.get("POSENC_PROGRESS")
    assert not pathlib.Path(os.environ["POSENC_PROGRESS"]).resolve().is_relative_to(pathlib.Path.home().resolve())


def test_the_default_file_is_in_the_home_folder(monkeypatch):
    monkeypatch.delenv("POSENC_PROGRESS")
    assert progress.progress_path() == pathlib.Path.home() / ".posenc" / "progress.json"


def test_a_declared_exercise_records_solved_first_verdict_and_attempts_under_its_id(progress_file):
    assert not pl.check("pe-row-pos4", None, pos=4)                    # unanswered: not an attempt
    assert not progress_file.exists()
    assert not pl.check("pe-row-pos4", [-0.76, -0.65], pos=4)
    assert pl.check("pe-row-pos4", [-0.7568, -0.6536])
    assert not pl.check("pe-row-pos4", [0, 0])                          # solved stays solved
    assert _record(progress_file)["exercises"] == {"pe-row-pos4": {"solved": True, "first": "再想想", "attempts": 3}}


def test_a_check_function_itself_records_nothing(progress_file):
    assert pl.check_pe([-0.7568, -0.6536], pos=4)
    assert not progress_file.exists()


def test_a_cell_that_changes_the_declared_arguments_is_graded_but_not_recorded(progress_file):
    v = pl.check("pe-row-pos4", [-0.9589, 0.2837], pos=5)
    assert v and "变体" in v.message and "pos=5" in v.message and v.exercise is None
    assert not progress_file.exists()
    with pytest.raises(TypeError, match="unknown argument"):
        pl.check("pe-row-pos4", [0, 0], position=4)
    with pytest.raises(KeyError, match="no exercise has the id"):
        pl.check("no-such-exercise", 1)


def test_progress_survives_a_kernel_restart(progress_file):
    code = ("import posenc_lib as pl; pl.check('raster-offset', 12); pl.check('causal-weight', 0.2)")
    env = {**os.environ, "POSENC_PROGRESS": str(progress_file), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)
    read = "import json, posenc.course.progress as p; print(json.dumps(p.load_progress()['exercises']))"
    out = subprocess.run([sys.executable, "-c", read], env=env, check=True, cwd=ROOT, capture_output=True, text=True)
    exercises = json.loads(out.stdout)
    assert exercises["raster-offset"]["solved"] is True
    assert exercises["causal-weight"] == {"solved": False, "first": "再想想", "attempts": 1}


def test_two_kernels_recording_at_once_lose_nothing(progress_file):
    """Two processes record 15 answers each at the same time: 30 attempts in the file (the
    read-modify-write is locked; without the lock the processes overwrite each other)."""
    code = "import posenc_lib as pl\nfor _ in range(15): pl.check('raster-offset', 1)"
    env = {**os.environ, "POSENC_PROGRESS": str(progress_file), "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT) for _ in range(2)]
    assert [r.wait() for r in runs] == [0, 0]
    assert _record(progress_file)["exercises"]["raster-offset"]["attempts"] == 30


# ---------------------------------------------------------------------------
# Bad input: one line, the check still answers, the record is never lost
# ---------------------------------------------------------------------------
def test_a_corrupt_file_is_set_aside_not_lost(progress_file, capsys):
    progress_file.parent.mkdir(parents=True)
    progress_file.write_text("{not json", encoding="utf-8")
    assert pl.check("raster-offset", 12)
    assert pl.check("raster-offset", 12)
    err = capsys.readouterr().err
    assert "损坏" in err and err.count("损坏") == 1, err
    aside = [p for p in progress_file.parent.iterdir() if p.name.startswith("progress.json.corrupt-")]
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == "{not json"   # kept, byte for byte
    assert _record(progress_file)["exercises"]["raster-offset"]["attempts"] == 2


def test_a_file_from_a_newer_version_is_read_but_never_overwritten(progress_file, capsys):
    progress_file.parent.mkdir(parents=True)
    newer = {"version": 3, "exercises": {"raster-offset": {"solved": True, "first": "正确", "attempts": 1}},
             "quiz": {}, "something_new": [1, 2]}
    progress_file.write_text(json.dumps(newer), encoding="utf-8")
    before = progress_file.read_bytes()
    assert pl.check("causal-weight", 0.1)
    assert not pl.check("causal-weight", 0.5)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "更新版本" in err, err
    assert progress_file.read_bytes() == before
    assert progress.load_progress()["exercises"]["raster-offset"]["solved"] is True


def test_a_read_only_file_is_never_written(progress_file, capsys):
    pl.check("raster-offset", 12)
    progress_file.chmod(0o444)
    before = progress_file.read_bytes()
    try:
        assert not pl.check("raster-offset", 1).ok
        assert pl.check("causal-weight", 0.1)
    finally:
        progress_file.chmod(0o644)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "只读" in err, err
    assert progress_file.read_bytes() == before


def test_an_unwritable_place_gives_one_line_and_never_breaks_a_check(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("POSENC_PROGRESS", str(blocker / "progress.json"))   # a folder that is a file
    progress._WARNED.clear()
    assert pl.check("raster-offset", 12)
    assert not pl.check("raster-offset", 1)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "写不进去" in err, err


def test_a_full_disk_leaves_the_file_as_it_was(progress_file, monkeypatch, capsys):
    pl.check("raster-offset", 12)
    before = progress_file.read_text(encoding="utf-8")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(progress.json, "dump", full)
    assert not pl.check("raster-offset", 1)                          # the check still answers
    assert progress_file.read_text(encoding="utf-8") == before        # the old file is intact
    assert sorted(p.name for p in progress_file.parent.iterdir()) == ["progress.json", "progress.json.lock"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "写不进去" in err and "原来的记录不变" in err, err


def test_reset_needs_confirmation(progress_file, capsys):
    pl.check("raster-offset", 12)
    assert pl.reset_progress() is False
    assert "confirm=True" in capsys.readouterr().out
    assert progress.load_progress()["exercises"]
    assert pl.reset_progress(confirm=True) is True
    assert progress.load_progress() == progress.empty()


# ---------------------------------------------------------------------------
# A version-1 record migrates with nothing lost
# ---------------------------------------------------------------------------
def _v1():
    return json.loads(V1_FILE.read_text(encoding="utf-8"))


def test_every_key_a_version_1_record_can_hold_migrates_to_a_declared_id():
    old = _v1()
    assert len(old["exercises"]) == 52 and sum(len(v) for v in old["quiz"].values()) == 25
    new = progress.migrate(old)
    assert new["version"] == progress.VERSION and new["legacy"] == {}
    declared = {e.id for e in catalogue.EXERCISES}
    # every key lands on an id the course declares, or on a retired one (kept, not counted)
    assert set(new["exercises"]) <= declared | set(catalogue.RETIRED) and len(new["exercises"]) == 52
    # each entry moved whole: the multiset of (solved, first, attempts) is the old one
    as_tuples = lambda d: sorted((e["solved"], e["first"], e["attempts"]) for e in d.values())
    assert as_tuples(new["exercises"]) == as_tuples(old["exercises"])
    question_ids = {q["id"] for bank in QUIZZES.values() for q in bank}
    assert set(new["quiz"]) == question_ids
    old_quiz = sorted((e["first"], e["right"]) for asked in old["quiz"].values() for e in asked.values())
    assert sorted((e["first"], e["right"]) for e in new["quiz"].values()) == old_quiz


def test_the_migrated_record_counts_what_the_old_file_held(progress_file):
    """The progress table after migration shows as many solved exercises and right first tries
    as the version-1 file holds (counted in the file itself, not through the table)."""
    old = _v1()
    progress_file.parent.mkdir(parents=True)
    progress_file.write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")
    rows = progress_summary(QUIZZES)
    # 10's GPT-NeoX exercise was retired (asked once, in 07): its record is kept but not counted
    retired = "check_rotated_dims(model='GPT-NeoX-20B')"
    assert sum(r["solved"] for r in rows) == sum(e["solved"] for k, e in old["exercises"].items() if k != retired)
    assert progress.load_progress()["exercises"]["rotated-dims-neox"] == old["exercises"][retired]
    assert sum(r["total"] for r in rows) == len(catalogue.for_kind("exercise"))
    assert sum(r["quiz_right"] for r in rows) == sum(e["right"] for a in old["quiz"].values() for e in a.values())
    assert sum(r["quiz_answered"] for r in rows) == 25


def test_the_first_write_after_a_migration_keeps_the_old_file_beside(progress_file):
    old = _v1()
    old["exercises"]["check_pe(pos=7, d_model=2, base=10000, word=None)"] = {"solved": True, "first": "正确", "attempts": 1}
    progress_file.parent.mkdir(parents=True)
    progress_file.write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")
    original = progress_file.read_bytes()
    pl.check("raster-offset", 12)
    assert (progress_file.parent / "progress.v1.json").read_bytes() == original
    new = _record(progress_file)
    assert new["version"] == 2
    # a variant a learner made (pos=7) matches no declared exercise: kept as it was
    assert new["legacy"]["exercises"] == {"check_pe(pos=7, d_model=2, base=10000, word=None)":
                                          {"solved": True, "first": "正确", "attempts": 1}}
    assert new["exercises"]["raster-offset"]["attempts"] == old["exercises"]["check_raster_offset(cols=12)"]["attempts"] + 1


# ---------------------------------------------------------------------------
# The quiz and the worksheet
# ---------------------------------------------------------------------------
def test_the_quiz_records_the_first_choice_under_the_question_id(progress_file):
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
    assert progress.load_progress()["quiz"][quiz.questions[0]["id"]] == {"first": wrong, "right": False}


def test_rewording_a_question_keeps_its_record(progress_file):
    quiz = pl.Quiz(pl.REAL_MODELS)
    quiz.radios[0].index = quiz.questions[0]["answer"]
    reworded = [dict(q, question=q["question"] + "（改写）") for q in pl.REAL_MODELS]
    assert pl.Quiz(reworded).first_try_score[::2] == (1, 1)


def test_quiz_ids_are_unique_slugs():
    ids = [q["id"] for bank in QUIZZES.values() for q in bank]
    assert len(ids) == len(set(ids))
    assert all(catalogue.ID.fullmatch(i) for i in ids), ids


def test_the_worksheet_records_its_cases(progress_file):
    ws = pl.HandCalcWorksheet(0)
    c = ws.case
    for (part, r, j) in ws.cells:
        ws.fill(part, r, j, f"{c.expected(part, r, j):.4f}")
    ws.new_case()
    ws.fill("pe", 0, 0, "7")                                           # a second case, one wrong box
    record = progress.load_progress()["worksheet"]["pe-table"]
    assert set(record) == {c.key, ws.case.key}
    assert record[c.key]["size"] == len(ws.cells) == 2 * 3 * c.d_model
    assert progress.worksheet_cases(progress.load_progress(), "pe-table") == (1, 2)
    row = {r["notebook"]: r for r in progress_summary(QUIZZES)}["02_sinusoidal_hand_calculation"]
    assert (row["worksheet_done"], row["worksheet_tried"]) == (1, 2)


# ---------------------------------------------------------------------------
# The table counts the declarations, whatever is in the notebooks
# ---------------------------------------------------------------------------
def test_show_progress_counts_per_notebook_and_draws_legible_text(progress_file):
    pl.check("raster-offset", 12)
    pl.check("causal-weight", 0.1)
    pl.check("mrope-text-start", 12)
    quiz = pl.Quiz(pl.REAL_MODELS)
    quiz.radios[0].index = quiz.questions[0]["answer"]
    rows = {r["notebook"]: r for r in progress_summary(QUIZZES)}
    assert (rows["12_where_position_goes"]["solved"], rows["12_where_position_goes"]["total"]) == (2, 3)
    assert (rows["10_rope_real_models"]["quiz_right"], rows["10_rope_real_models"]["quiz_total"]) == (1, 5)
    assert rows["13_summary_interview"]["quiz_answered"] == 0          # a quiz of its own
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


def test_answers_saved_into_the_notebooks_change_nothing_in_the_table(progress_file, tmp_path, monkeypatch):
    """The learner's scenario: every exercise cell of 02 answered and saved, one deleted — the
    table still counts 02's four exercises (it reads the declarations, not the cells)."""
    before = {r["notebook"]: (r["total"], r["drills_total"], r["quiz_total"]) for r in progress_summary(QUIZZES)}
    copy = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", copy)
    path = copy / "02_sinusoidal_hand_calculation.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and "pl.check(" in "".join(c["source"])]
    for c in cells:
        c["source"] = ["".join(c["source"]).replace("= None", "= [0.5, 0.5]", 1)]
    nb["cells"].remove(cells[-1])
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(notebooks, "NOTEBOOK_DIR", copy)
    notebooks.notebook_cells.cache_clear()
    try:
        after = {r["notebook"]: (r["total"], r["drills_total"], r["quiz_total"]) for r in progress_summary(QUIZZES)}
    finally:
        notebooks.notebook_cells.cache_clear()
    assert after == before and after["02_sinusoidal_hand_calculation"][0] == 4


def test_the_titles_are_the_notebooks_first_headings():
    titles = notebooks.NOTEBOOK_TITLES
    assert list(titles) == [p.stem for p in NOTEBOOKS]
    assert titles["07_rope"] == "从旋转到 RoPE"
    for p in NOTEBOOKS:
        assert "".join(json.loads(p.read_text(encoding="utf-8"))["cells"][0]["source"]).startswith(f"# {titles[p.stem]}")
