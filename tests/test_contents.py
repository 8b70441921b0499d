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
    assert not {"notebook_setup", "progress_bar", "format_matrix", "markdown_table", "check_choice"} & set(INTRODUCED)


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
        "pl.check(\"rotation-k1\", answer)\npl.check(\"pe-dot-k100\", answer)",
        "# a comment is not read as code\nwith pl.progress_bar(3, 'x') as bar:\n\n    pass",
    ])
    stats = BC.reading_stats(path)
    # 标题 + 一段话 = 5 Chinese characters; 8 lines of code (the comment and the blank line not counted)
    assert stats == {"cjk": 5, "words": 0, "formulas": 0, "code_lines": 8, "interactive": 2, "exercises": 2,
                     "drill_minutes": 0, "slow_cells": 1, "quiz_questions": 0}


def test_formulas_are_math_spans_and_relations_outside_them():
    text = ("正弦：$\\sin(x)$，以及 $$a = b$$ 与 w_i = base^(−2i/d)，θ ≈ 0.1，k ≤ 3。"
            "代码里的 `x = 1` 和 <img src='a.png'> 不算。")
    assert BC.formula_count(text) == 2 + 3          # two spans; =, ≈, ≤ outside them


def test_estimate_minutes_follows_the_stated_rule():
    rule = {"cjk_per_minute": 120, "words_per_minute": 80, "per_formula": 0.1, "per_code_line": 0.03,
            "per_interactive": 4, "per_exercise": 3, "drill_factor": 1.5, "per_slow_cell": 1, "per_quiz_question": 1}
    assert BC.READING_RULE == rule
    # 3000 characters = 25 min, 400 words = 5, 50 formulas = 5, 200 code lines = 6, 2 explorers = 8,
    # 4 exercises = 12, a 10-minute drill = 15, 1 slow cell = 1: 77 minutes, to the nearest 5 -> 75
    stats = {"cjk": 3000, "words": 400, "formulas": 50, "code_lines": 200, "interactive": 2, "exercises": 4,
             "drill_minutes": 10, "slow_cells": 1, "quiz_questions": 0}
    assert BC.estimate_minutes(stats) == 75
    assert BC.estimate_minutes({**stats, "quiz_questions": 19}) == 95     # 96 -> 95
    assert BC.estimate_minutes({k: 0 for k in stats}) == 5                # never less than 5
    assert BC.estimate_minutes({**{k: 0 for k in stats}, "code_lines": 250}) == 10   # 7.5 -> 10


def test_the_rule_keeps_to_the_careful_read_it_is_calibrated_on():
    """Against the careful read of the course at the calibration's commit (per-notebook minutes):
    the total within 10 %, the median notebook within 15 %. Needs the git history."""
    rows = BC.calibration_rows()
    if rows is None:
        pytest.skip("no git history of the calibration's commit in this checkout")
    read, rule = sum(r["read"] for r in rows), sum(r["rule"] for r in rows)
    assert len(rows) == 13 and abs(rule - read) / read <= 0.10, (read, rule)
    errors = sorted(abs(r["rule"] - r["read"]) / r["read"] for r in rows)
    assert errors[len(errors) // 2] <= 0.15, errors


def test_number_ranges():
    assert BC.number_ranges(["01", "02", "03", "05"]) == "01–03、05"
    assert BC.number_ranges(["01", "02", "04", "05", "06"]) == "01、02、04–06"
    assert BC.number_ranges(["07"]) == "07"


# ---------------------------------------------------------------------------------------------
# Routes, the progress cell, the navigation bar
# ---------------------------------------------------------------------------------------------
def test_every_route_names_existing_sections_and_keeps_its_promise():
    """Each step's sections exist (their headings are quoted on the page) and the route's
    minutes, by the page's own rule over those sections' cells, fit the time its name promises."""
    page = "".join(json.loads((ROOT / "notebooks" / BC.INDEX).read_text(encoding="utf-8"))["cells"][0]["source"])
    for route in BC.ROUTES:
        name, _, promise, steps = route
        found = BC.route_steps(route)
        minutes = BC.route_minutes(found)
        assert 0 < minutes <= promise, (name, minutes, promise)
        assert f"**{name}**（约 {minutes} 分钟）" in page
        for step, (number, wanted) in zip(found, steps):
            assert [n for n, *_ in step["sections"]] == list(wanted)
            headings = BC.sections(step["path"])
            cells = {c["id"]: "".join(c["source"]) for c in
                     json.loads(step["path"].read_text(encoding="utf-8"))["cells"]}
            for n in wanted:
                heading, _, cell_id = headings[n]
                # the link goes to the cell that begins with this section's heading
                assert cells[cell_id].startswith(f"## {n}. "), (name, number, n, cell_id)
                assert f"[§{n} {BC.plain(heading)}]({step['path'].name}#cell-id={cell_id})" in page, (name, number, n)
    interview = dict(BC.ROUTES[0][3])
    assert BC.ROUTES[0][0] == "面试前 30 分钟" and "13" in interview     # the summary is the short route


def test_a_route_naming_a_missing_section_is_refused(monkeypatch):
    monkeypatch.setattr(BC, "ROUTES", (("x", "", 30, (("13", ("99",)),)),))
    with pytest.raises(SystemExit, match="no section"):
        BC.route_steps(BC.ROUTES[0])


def test_a_route_section_whose_heading_is_inside_a_cell_is_refused(monkeypatch, tmp_path):
    """A route links to the cell a section's heading begins: a heading in the middle of a cell
    has no such cell, and the build says to split it."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 标题\n\n甲\n\n## 1. 一\n\n乙", id="a"),
                nbformat.v4.new_markdown_cell("## 2. 二\n\n丙", id="b")]
    path = tmp_path / "05_x.ipynb"
    nbformat.write(nb, path)
    monkeypatch.setattr(BC, "chapters", lambda: [path])
    assert BC.route_steps(("x", "", 30, (("05", ("2",)),)))[0]["sections"] == [("2", "二", "b")]
    with pytest.raises(SystemExit, match="does not begin its cell"):
        BC.route_steps(("x", "", 30, (("05", ("1",)),)))


def test_sections_split_markdown_cells_at_their_headings(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 标题\n\n## 1. 一\n\n甲乙"),
                nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_markdown_cell("丙丁戊\n\n## 2. 二\n\n己"),
                nbformat.v4.new_markdown_cell("## 小结\n\n庚辛")]
    path = tmp_path / "05_x.ipynb"
    nbformat.write(nb, path)
    found = BC.sections(path)
    assert list(found) == ["1", "2"] and found["1"][0] == "一" and found["2"][0] == "二"
    assert BC.cell_stats(found["1"][1]) == {"cjk": 6, "words": 0, "formulas": 0, "code_lines": 1, "interactive": 0,
                                            "exercises": 0, "drill_minutes": 0, "slow_cells": 0, "quiz_questions": 0}
    assert BC.cell_stats(found["2"][1])["cjk"] == 2       # 二 + 己; the 小结 is no numbered section


def test_the_contents_page_code_is_only_the_progress_cell_and_it_keeps_its_kernel_metadata():
    """Opening the page starts the kernel its metadata names (JupyterLab has no per-notebook
    switch; without the metadata it would ask for a kernel on every open, see build_contents'
    docstring): the only code that kernel can be asked to run is the progress cell."""
    nb = json.loads((ROOT / "notebooks" / BC.INDEX).read_text(encoding="utf-8"))
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert code == [BC.PROGRESS_CELL] and "pl.show_progress()" in code[0]
    assert nb["metadata"]["kernelspec"]["name"] == "python3" and nb["metadata"]["language_info"]["name"] == "python"


def test_the_navigation_has_no_dead_ends():
    """No 「上一篇：无」 on the first notebook, no 「下一篇：无 →」 on the last."""
    for path in CHAPTERS:
        nav = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][-1]["source"])
        assert "无" not in nav, (path.name, nav)
    last = "".join(json.loads(CHAPTERS[-1].read_text(encoding="utf-8"))["cells"][-1]["source"])
    assert "下一篇" not in last and "上一篇" in last
    first = "".join(json.loads(CHAPTERS[0].read_text(encoding="utf-8"))["cells"][-1]["source"])
    assert "上一篇" not in first and "下一篇" in first


# ---------------------------------------------------------------------------------------------
# Drills: listed in the summary from the declarations; routes read sections without them
# ---------------------------------------------------------------------------------------------
def test_the_summary_lists_every_declared_drill_with_its_minutes_and_heading():
    from posenc.course import catalogue

    nb = nbformat.read(ROOT / "notebooks" / "13_summary_interview.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if BC.DRILL_LIST_TAG in c.metadata.get("tags", [])]
    rows = [line for line in cell.source.splitlines() if line.startswith("| [")]
    drills = catalogue.for_kind("drill")
    assert len(rows) == len(drills) >= 9
    headings = BC.drill_headings()
    for row, drill in zip(rows, drills):
        heading, cell_id = headings[drill.id]
        assert row.startswith(f"| [{heading.split('：', 1)[-1]}]({drill.notebook}.ipynb#cell-id={cell_id})"), row
        task = next(c for c in nbformat.read(ROOT / "notebooks" / f"{drill.notebook}.ipynb", as_version=4).cells
                    if c.get("id") == cell_id)
        assert task.source.startswith("#") and heading in task.source.splitlines()[0], (drill.id, task.source[:80])
        assert row.endswith(f"| {drill.minutes:g} 分钟 |"), row
    assert f"合计约 {sum(d.minutes for d in drills):g} 分钟" in cell.source


def test_a_route_leaves_a_sections_drill_out():
    cells = [("markdown", "## 1. x\n\ntext"), ("code", "y = 1"), ("markdown", "### 手写：f\n\ntask"),
             ("code", 'def f():\n    raise NotImplementedError\n\n\npl.check("drill-f", f)'),
             ("markdown", "<details>solution</details>"), ("markdown", "more text")]
    assert BC.without_drills(cells) == [cells[0], cells[1], cells[5]]
    assert BC.cell_stats(BC.without_drills(cells))["exercises"] == 0
