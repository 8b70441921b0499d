"""The contents page's 先读 (prerequisites) and 用时 (minutes) are derived, not typed:
each notebook's stored metadata equals what tools/build_contents.py derives from the notebook
itself, the derivation refuses forward references, and the time rule is the one the contents
page states."""
import json
import pathlib

import nbformat
import pytest

import build_contents   # tools/ is on the test path (pyproject.toml's pythonpath)

ROOT = pathlib.Path(__file__).resolve().parents[1]


BC = build_contents
CHAPTERS = BC.chapters()
INTRODUCED = BC.introduced_in()


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_stored_prerequisites_and_minutes_equal_the_derivation(path):
    stored = json.loads(path.read_text(encoding="utf-8"))["metadata"]["posenc"]
    assert stored["requires"] == BC.derived_requires(path, INTRODUCED), \
        f"{path.name}: run python tools/build_contents.py"
    assert stored["minutes"] == BC.estimate_minutes(BC.reading_stats(path)), \
        f"{path.name}: run python tools/build_contents.py"


def test_contents_page_lists_the_derived_prerequisites_and_states_the_rule():
    page = "".join(json.loads((ROOT / "notebooks" / BC.INDEX).read_text(encoding="utf-8"))
                   ["cells"][0]["source"])
    assert BC.rule_text() in page
    for path in CHAPTERS:
        row = next(line for line in page.splitlines() if line.startswith(f"| {path.name[:2]} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        requires = BC.derived_requires(path, INTRODUCED)
        assert cells[2] == (BC.number_ranges(requires) if requires else "无"), row
        assert cells[3] == f"约 {BC.estimate_minutes(BC.reading_stats(path))} 分钟", row


def test_prerequisites_come_before_and_name_what_the_code_uses():
    for path in CHAPTERS:
        me = path.name[:2]
        assert all(r < me for r in BC.derived_requires(path, INTRODUCED)), path.name
    # 06 calls pl.relative_rotation (introduced in 04) and reads 05's length limit
    assert INTRODUCED["relative_rotation"] == "04"
    assert {"04", "05"} <= set(BC.derived_requires(ROOT / "notebooks" / "06_relative_family.ipynb", INTRODUCED))
    # infrastructure (setup cell, text tables, generic checks) is not a prerequisite
    assert not {"notebook_setup", "progress", "format_matrix", "markdown_table", "check_choice"} & set(INTRODUCED)


def write_notebook(tmp_path, name, code):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 标题\n\n一段话。"),
                *(nbformat.v4.new_code_cell(c) for c in code)]
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def test_a_helper_from_a_later_notebook_is_refused(tmp_path):
    early = write_notebook(tmp_path, "03_early.ipynb", ["import posenc_lib as pl", "pl.rope(x, [1])"])
    assert INTRODUCED["rope"] == "07"
    with pytest.raises(SystemExit, match="pl.rope.*07"):
        BC.derived_requires(early, INTRODUCED)
    fine = write_notebook(tmp_path, "08_late.ipynb", ["import posenc_lib as pl", "pl.rope(x, [1])",
                                                       "pl.notebook_setup()"])
    assert "07" in BC.derived_requires(fine, INTRODUCED)


def test_reading_stats_counts_what_there_is_to_do(tmp_path):
    path = write_notebook(tmp_path, "05_x.ipynb", [
        "import posenc_lib as pl",
        "ex = pl.RopeExplorer()\nex.widget",
        "panel = pl.TrainingPanel()",
        "pl.check_rotation(1, 2, answer)\npl.check_dot_product(1, 2, answer)",
        "with pl.progress(3, 'x') as bar:\n    pass",
    ])
    stats = BC.reading_stats(path)
    assert stats == {"cjk": 5, "words": 0, "code_cells": 5, "interactive": 2, "exercises": 2,
                     "slow_cells": 1, "quiz_questions": 0}    # 标题 + 一段话 = 5 Chinese characters


def test_estimate_minutes_follows_the_stated_rule():
    rule = {"cjk_per_minute": 300, "words_per_minute": 200, "per_code_cell": 0.75, "per_interactive": 3,
            "per_exercise": 2.5, "per_slow_cell": 1, "per_quiz_question": 1}
    assert BC.READING_RULE == rule
    # 3000 characters = 10 min, 400 words = 2, 20 cells = 15, 2 explorers = 6, 4 exercises = 10,
    # 1 slow cell = 1: 44 minutes, to the nearest 5 -> 45
    stats = {"cjk": 3000, "words": 400, "code_cells": 20, "interactive": 2, "exercises": 4,
             "slow_cells": 1, "quiz_questions": 0}
    assert BC.estimate_minutes(stats) == 45
    assert BC.estimate_minutes({**stats, "quiz_questions": 19}) == 65     # 63 -> 65
    assert BC.estimate_minutes({k: 0 for k in stats}) == 5                # never less than 5
    assert BC.estimate_minutes({**{k: 0 for k in stats}, "code_cells": 10}) == 10   # 7.5 -> 10


def test_the_two_longest_hands_on_notebooks_get_an_honest_hour():
    """04 (31 code cells, 3 explorers, 4 exercises) and 05 (39 code cells, a training panel):
    a reader who reads the outputs needs 60 to 75 minutes."""
    for name in ("04_relative_position.ipynb", "05_learned_embeddings.ipynb"):
        assert 60 <= BC.estimate_minutes(BC.reading_stats(ROOT / "notebooks" / name)) <= 75, name


def test_number_ranges():
    assert BC.number_ranges(["01", "02", "03", "05"]) == "01–03、05"
    assert BC.number_ranges(["01", "02", "04", "05", "06"]) == "01、02、04–06"
    assert BC.number_ranges(["07"]) == "07"
