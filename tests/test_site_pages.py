"""tools/site_pages.py: what a static page can do is decided from what the outputs declare.

A notebook node is made here from real objects' MIME bundles and the real widget state of this
process (``ipywidgets.embed.dependency_state``), then taught: exercises become answer boxes with
their own rules, the quiz, the worksheet and the progress table the page's own HTML, every input
but an explorer's frame grid (main slider, Play button, the grid's other controls) is disabled
under one line, and frames become 256-colour lossless WebP within the stated tolerance.
"""
import base64
import html
import io
import json
import pathlib
import re
from html.parser import HTMLParser

import nbformat
import numpy as np
import pytest

import posenc_lib as pl
import site_pages as sp  # tools/site_pages.py (pyproject puts tools/ on the test path)
from posenc.ui import declare
from test_progress import progress_file  # noqa: F401  (the fixture: a progress file of the test's own)

ROOT = pathlib.Path(__file__).resolve().parents[1]


def page_of(*objects) -> nbformat.NotebookNode:
    """A notebook of one code cell per object, whose output is that object's bundle, with the
    widget state of every widget the bundles show."""
    from ipywidgets.embed import dependency_state

    import ipywidgets as w

    nb = nbformat.v4.new_notebook()
    shown = []
    for obj in objects:
        bundle = obj._repr_mimebundle_() if hasattr(obj, "_repr_mimebundle_") else {"text/plain": repr(obj)}
        cell = nbformat.v4.new_code_cell("x")
        cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
        nb.cells.append(cell)
        if isinstance(getattr(obj, "widget", obj), w.Widget):
            shown.append(getattr(obj, "widget", obj))
    state = dependency_state(shown, drop_defaults=False) if shown else {}
    nb.metadata["widgets"] = {sp.WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    return nb


def outputs(nb, i):
    return nb.cells[i].outputs


def test_an_explorer_keeps_its_frame_grid_and_play_and_says_the_rest_is_off():
    ex = pl.ClockExplorer(pos=3)
    nb = page_of(ex)
    report = sp.teach(nb, "03_clock_hands_frequencies")
    state = sp.widget_state(nb)
    assert not state[ex.controls["pos"].model_id]["state"]["disabled"]
    assert not state[ex.play.model_id]["state"]["disabled"]
    assert not state[ex.controls["d_model"].model_id]["state"]["disabled"], "the grid's other axis works"
    assert state[ex.controls["base"].model_id]["state"]["disabled"]
    hint, view = outputs(nb, 0)
    assert "d_model、pos 能拖动" in hint["data"]["text/html"] and sp.HINT_CLASS in hint["data"]["text/html"]
    assert declare.EXPLORER not in view["data"] and sp.WIDGET_VIEW in view["data"]
    assert report["hints"] == 1 and report["explorers"][0]["name"] == "clock"


def test_a_subset_is_said_in_the_explorers_line():
    assert "pos 能拖动（pos 的 256 个取值里均匀取了 64 个）" in sp.explorer_hint(
        {"main": "pos", "frames": 64, "values": 256, "controls": {"d_model": "x"}})
    assert "每个位置都是构建网页时画好的图" in sp.explorer_hint({"main": "seq_len", "frames": 3, "values": 3, "controls": {}})
    line = sp.explorer_hint({"main": "pos", "frames": 40, "values": 256, "controls": {"base": "x"},
                             "grid": [{"name": "d_model", "frames": 2, "values": 8, "shown": ["4", "16"]},
                                      {"name": "layout", "frames": 2, "values": 2, "shown": ["a", "b"]}]})
    assert line.startswith("静态网页：d_model、layout、pos 能拖动（d_model 取 4、16；pos 的 256 个取值里均匀取了 40 个）")
    assert "其余控件要在 JupyterLab 里运行笔记本才能用" in line


def test_an_undeclared_widget_is_off_with_the_one_line_and_a_whole_grid_says_so():
    import ipywidgets as w

    ex = pl.PermutationExplorer()                 # sentence x use_pe: every control in the grid
    other = w.VBox([w.Button(description="go"), w.IntSlider(3)])
    nb = page_of(ex, other)
    sp.teach(nb, "01_permutation_invariance")
    state = sp.widget_state(nb)
    assert not any(state[c.model_id]["state"]["disabled"] for c in ex.controls.values())
    assert all(state[c.model_id]["state"]["disabled"] for c in other.children)
    assert outputs(nb, 0)[0]["data"].get("text/html", "").find(sp.HINT_CLASS) < 0, "nothing off: no line"
    assert sp.HINT_NONE in outputs(nb, 1)[0]["data"]["text/html"]


def test_the_training_panel_says_its_own_line():
    panel = pl.TrainingPanel(steps=5, pes=("none",))
    nb = page_of(panel)
    sp.teach(nb, "05_learned_embeddings")
    state = sp.widget_state(nb)
    assert state[panel.button.model_id]["state"]["disabled"]
    assert pl.TrainingPanel.STATIC_HINT in outputs(nb, 0)[0]["data"]["text/html"]


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def elements(markup: str, cls: str | None = None, tag: str | None = None) -> list[dict]:
    """The attributes of every element of ``markup`` (with the class ``cls``, of the ``tag``), in order."""
    parser = _Elements()
    parser.feed(markup)
    return [a for t, a in parser.found if (tag is None or t == tag) and (cls is None or cls in (a.get("class") or "").split())]


def test_an_unanswered_exercise_becomes_an_answer_box_with_its_rule_and_the_kernels_look():
    from posenc.exercises.verdict import PROMPT

    pending, answered = pl.check("pe-row-pos4", None), pl.check("pe-row-pos4", [0.0, 0.0])
    nb = page_of(pending, answered)
    assert sp.teach(nb, "02_sinusoidal_hand_calculation")["exercises"] == 1
    box = outputs(nb, 0)[0]["data"]["text/html"]
    assert 'class="posenc-exercise"' in box and 'input type="text"' in box and "检查" in box
    (attrs,) = elements(box, "posenc-exercise")
    assert json.loads(attrs["data-rule"]) == pending.rule.to_json() and attrs["data-exercise"] == "pe-row-pos4"
    looks = json.loads(attrs["data-verdicts"])
    assert looks == declare.verdict_looks() and attrs["data-prompt"] == sp.EXERCISE_PROMPT
    # each look is the kernel's own rendering of a verdict with the message in its place
    from posenc.exercises.verdict import Verdict

    for look, v in (("right", Verdict(True, "m<")), ("wrong", Verdict(False, "m<")), ("pending", Verdict(False, "m<", pending=True))):
        assert declare.fill(looks[look], message="m&lt;") == v._repr_html_()
    assert Verdict(False, sp.EXERCISE_PROMPT, pending=True)._repr_html_() in box
    assert PROMPT not in box                              # the kernel's 「把 None 换成…」 never stands on a page
    kept = outputs(nb, 1)[0]["data"]
    assert declare.EXERCISE not in kept and kept["text/html"] == answered._repr_html_()


def test_an_exercise_only_a_kernel_can_grade_becomes_the_line_that_says_so():
    """A drill's verdict declares itself ("drill": true: its answer is a function), answered or
    not, and a verdict without a rule cannot be graded on a page: each becomes one static line,
    no answer box."""
    drill = {"exercise": "drill-rope-interleaved", "pending": True, "rule": None, "drill": True}
    other = {"exercise": "some-exercise", "pending": True, "rule": None}
    solved = {"exercise": "drill-rope-interleaved", "pending": False, "rule": None, "drill": True}
    nb = nbformat.v4.new_notebook()
    for decl in (drill, other, solved):
        cell = nbformat.v4.new_code_cell("x")
        cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "待作答", declare.EXERCISE: decl})]
        nb.cells.append(cell)
    report = sp.teach(nb, "07_rope")
    assert (report["drills"], report["kernel_only"], report["exercises"]) == (2, 1, 0)
    lines = (sp.hint_html(sp.DRILL_HINT, drill="drill-rope-interleaved"), sp.hint_html(sp.KERNEL_HINT, exercise="some-exercise"))
    for i, expected in enumerate(lines + lines[:1]):
        (line,) = outputs(nb, i)
        markup = line["data"]["text/html"]
        assert markup == expected and sp.HINT_CLASS in markup
        assert declare.EXERCISE not in line["data"] and "posenc-exercise" not in markup


def test_a_drill_becomes_the_line_that_it_needs_jupyterlab():
    def stub(x, positions, base=10000.0):
        raise NotImplementedError

    nb = page_of(pl.check("drill-rope-interleaved", stub))
    assert sp.teach(nb, "07_rope")["drills"] == 1
    (line,) = outputs(nb, 0)
    assert sp.DRILL_HINT in line["data"]["text/html"] and sp.HINT_CLASS in line["data"]["text/html"]
    assert 'data-drill="drill-rope-interleaved"' in line["data"]["text/html"]
    assert declare.EXERCISE not in line["data"] and "posenc-exercise" not in line["data"]["text/html"]


def test_choices_become_buttons_and_letters_boxes():
    choice = pl.check("pe-bug-symptom", None)
    letters = pl.check("fast-pair-kept", None)
    nb = page_of(choice, letters)
    sp.teach(nb, "13_summary_interview")
    buttons = outputs(nb, 0)[0]["data"]["text/html"]
    assert buttons.count('type="radio"') == 6 and "data-option" in buttons
    boxes = outputs(nb, 1)[0]["data"]["text/html"]
    assert boxes.count('type="checkbox"') == 4


def _markdown(text):
    cell = nbformat.v4.new_markdown_cell(text)
    return cell


def test_the_instruction_to_replace_none_becomes_the_pages_where_an_answer_box_stands():
    text = "## 练习\n\n每题把 `None` 换成你的答案（列表、数或字符串）再运行：`正确` 或 `再想想`。"
    with_box = page_of(pl.check("rope-angle", None))
    with_box.cells.insert(0, _markdown(text))
    assert sp.teach(with_box, "07_rope")["instructions"] == 1
    assert with_box.cells[0].source == ("## 练习\n\n每题在下面的框里写下你的答案（列表、数或字符串）、按回车或「检查」"
                                        "：`正确` 或 `再想想`。")
    without = nbformat.v4.new_notebook()
    without.cells.append(_markdown(text))
    assert sp.teach(without, "01_permutation_invariance")["instructions"] == 0 and without.cells[0].source == text


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem[:2])
def test_no_notebook_with_exercises_tells_a_page_reader_to_replace_none(path):
    """Every way a notebook words the instruction (in a markdown cell) is the one the page replaces."""
    from posenc.course import catalogue

    nb = nbformat.read(path, as_version=4)
    if not catalogue.for_notebook(path.stem):
        return
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            assert not re.search(r"None`?\s*换成", sp.page_instruction(cell.source)), cell.source[:200]


def test_the_quiz_on_a_page_is_its_declaration_rendered_with_its_rules():
    from posenc.ui.quiz import SCORE_TEXT, question_rule

    quiz = pl.Quiz(pl.REAL_MODELS)
    nb = page_of(quiz)
    assert sp.teach(nb, "10_rope_real_models")["quizzes"] == 1
    markup = outputs(nb, 0)[0]["data"]["text/html"]
    assert sp.WIDGET_VIEW not in outputs(nb, 0)[0]["data"]
    (box,) = elements(markup, "posenc-page-quiz")
    assert json.loads(box["data-verdicts"]) == declare.verdict_looks() and box["data-quiz"] == "10_rope_real_models"
    questions = elements(markup, "posenc-quiz-question")
    assert [q["data-question"] for q in questions] == [q["id"] for q in pl.REAL_MODELS]
    for q, bank in zip(questions, quiz.questions):
        assert json.loads(q["data-rule"]) == question_rule(bank).to_json(compact=True)
    options = [json.loads(a["data-option"]) for a in elements(markup, tag="input")]
    assert options == [["num", j] for q in quiz.questions for j in range(len(q["options"]))]
    for q in quiz.questions:
        assert html.escape(q["options"][0]) in markup
    # the score line is the kernel's, its numbers slots
    slots = {k: declare.Slot(k) for k in ("right", "answered", "first", "ever")}
    assert SCORE_TEXT.format(total=len(pl.REAL_MODELS), **slots) in markup


def test_the_quizs_rule_gives_the_verdicts_the_kernels_quiz_shows():
    quiz = pl.Quiz(pl.INTERVIEW_QUIZ)
    for n, q in enumerate(quiz.questions):
        for j, option in enumerate(q["options"]):
            quiz.radios[n].index = j
            v = quiz.verdict(n)
            assert v.ok == (j == q["answer"]) and quiz.feedback[n].value == v._repr_html_()
            assert v.message.startswith(f"你选的是「{option}」：") != v.ok
            assert (v.kind, v.rule) == ("right" if v.ok else "slip", quiz.rules[n])


def test_the_worksheet_on_a_page_is_rendered_by_the_widgets_own_functions():
    from posenc.exercises.worksheet import box_rule
    from posenc.ui import worksheet as W

    ws = pl.HandCalcWorksheet(0)
    nb = page_of(ws)
    assert sp.teach(nb, "02_sinusoidal_hand_calculation")["worksheets"] == 1
    markup = outputs(nb, 0)[0]["data"]["text/html"]
    (box,) = elements(markup, "posenc-page-worksheet")
    assert box["data-worksheet"] == ws.WORKSHEET_ID and json.loads(box["data-look"]) == W.page_look()
    templates = elements(markup, "posenc-ws-case", "template")
    cases = [W.declared_case(d) for d in ws.declaration()["cases"]]
    assert len(templates) == ws.PAGE_CASES and cases[0] == ws.case
    assert [(t["data-case"], int(t["data-size"])) for t in templates] == [(c.key, c.boxes) for c in cases]
    for c in cases[:3]:
        assert W._header(c) in markup
    # the first case's boxes: the widget's boxes, in the widget's (Tab) order, each with its rule
    first = markup[markup.index("<template"):markup.index("</template>")]
    inputs = elements(first, "posenc-worksheet-cell", "input")
    assert [a["data-key"] for a in inputs] == [W.box_id(k) for k in ws.cells]
    assert [a["placeholder"] for a in inputs] == [b.placeholder for b in ws.cells.values()]
    for a, key in zip(inputs, ws.cells):
        assert json.loads(a["data-rule"]) == box_rule(ws.case, *key).to_json(compact=True)
        assert a["data-name"] == ws.case.cell_name(*key)
    head = [cell[1] for cell in W.grid_cells(ws.case) if cell[0] == "text"]
    assert [w.value for w in ws.grid.children if not hasattr(w, "children")] == head and all(h in first for h in head)


def test_the_worksheets_messages_fill_the_same_templates_in_the_kernel_and_on_the_page():
    from posenc.ui import worksheet as W

    ws = pl.HandCalcWorksheet(0)
    ws.fill("pe", 0, 0, "abc")
    ws.fill("pe", 0, 1, "0.1")
    look = W.page_look()
    lines = []
    for key in (("pe", 0, 0), ("pe", 0, 1)):
        fb = ws.feedback[key]
        lines.append(declare.fill(look["line"], key=W.box_id(key), colour=look["colours"][fb.state],
                                  mark=look["marks"][fb.state], name=html.escape(ws.case.cell_name(*key)),
                                  message=html.escape(fb.message)))
        assert ws.marks[key].value == declare.fill(look["mark"], colour=look["colours"][fb.state], mark=look["marks"][fb.state])
    summary = declare.fill(W.SUMMARY, filled=1, total=ws.case.boxes, right=0)
    assert ws.messages.value == f"<div class='posenc-ws-summary'>{summary}</div>" + "".join(lines)
    assert look["states"] == {"right": "right", "refused": "unreadable", "slip": "wrong", "rounding": "wrong", "wrong": "wrong"}


def _filled(markup: str, rows: dict, totals: dict) -> str:
    """The page's table with each slot replaced by the number the kernel counts (per row; the
    closing line's from the totals)."""
    def row(m):
        nb = re.search(r"data-notebook='([^']+)'", m[0])[1]
        return re.sub(r'<span class="posenc-n" data-n="(\w+)">–</span>', lambda s: str(rows[nb][s[1]]), m[0])

    markup = re.sub(r"<tr data-notebook=.*?</tr>", row, markup)
    return re.sub(r'<span class="posenc-n" data-n="(\w+)">–</span>', lambda s: str(totals[s[1]]), markup)


@pytest.mark.usefixtures("progress_file")
def test_the_progress_on_a_page_is_the_kernels_table_and_chart_with_slots():
    from posenc.course.progress import progress_path
    from posenc.ui import progress as P

    pl.check("raster-offset", 12)
    pl.check("pe-row-pos4", [0.0, 0.0])
    quiz = pl.Quiz(pl.REAL_MODELS)
    quiz.radios[0].index = quiz.questions[0]["answer"]
    ws = pl.HandCalcWorksheet(0)
    ws.fill("pe", 0, 0, "0.5")
    view = P.ProgressView(P.progress_summary())
    nb = page_of(view)
    assert sp.teach(nb, "00_index")["progress"] == 1
    markup = outputs(nb, 0)[0]["data"]["text/html"]
    (box,) = elements(markup, "posenc-progress-page")
    assert json.loads(box["data-progress"]) == P.declaration() and box["data-confirm"] == P.RESET[1]
    # the same table: the page's, its slots filled with the kernel's numbers, is the kernel's
    rows = {r["notebook"]: r for r in view.rows}
    table = markup[markup.index("<table"):markup.index("</table>") + len("</table>")]
    assert _filled(table, rows, {}) == P.table_html(view.rows)
    line = re.search(r"<p class=\"posenc-progress-total\">(.*?)</p>", markup)[1]
    assert _filled(line, {}, P.totals(view.rows)) == P.total_line(P.totals(view.rows))
    assert view.rows[1]["worksheet_tried"] == 1 and rows["10_rope_real_models"]["quiz_right"] == 1
    # the same chart, as SVG: every declared bar and count named, the worksheet's text named
    chart = json.loads(box["data-chart"])
    assert chart["count"] == P.COUNT and chart["sheet"] in (P.SHEET[0], P.SHEET[1])
    ids = set(re.findall(r'<g id="([^"]+)"', markup))
    bars = [(r["notebook"], got) for r in view.rows for got, total, _, _ in P.BARS if r[total]]
    assert [(p["notebook"], p["got"]) for p in chart["parts"] if "bar" in p] == bars
    for p in chart["parts"]:
        assert {p.get("bar"), p.get("count"), p.get("sheet")} - {None} <= ids
    assert [p["notebook"] for p in chart["parts"] if "sheet" in p] == ["02_sinusoidal_hand_calculation"]
    assert markup.count("<svg") == 1 and "<?xml" not in markup
    assert str(progress_path().parent) not in markup and "progress.json" not in markup      # nothing local on the page


def test_drills_get_their_column_and_bars_on_the_page_as_in_the_kernel():
    """A notebook that declares drills: its drills cell is a slot on the page, and the chart has a
    drills bar wherever the kernel's chart would."""
    from posenc.ui import progress as P

    decl = P.declaration()
    rope = next(nb for nb in decl["notebooks"] if nb["notebook"] == "07_rope")
    rope["drills"] = rope["drills"] or ["drill-a", "drill-b"]
    markup = P.page_html(decl)
    row = re.search(r"<tr data-notebook='07_rope'>.*?</tr>", markup)[0]
    assert f'<span class="posenc-n" data-n="drills_passed">–</span> / {len(rope["drills"])}' in row
    assert 'id="posenc-bar-07_rope-drills_passed"' in markup and 'id="posenc-count-07_rope-drills_passed"' in markup
    assert 'data-n="drills_passed"' in re.search(r'<p class="posenc-progress-total">(.*?)</p>', markup)[1]


def test_the_page_script_writes_no_text_of_its_own():
    """Every text a reader sees on a page comes from the build (Python); course.js holds no
    Chinese (and no verdict mark) at all."""
    script = (ROOT / "tools" / "site" / "course.js").read_text(encoding="utf-8")
    assert not re.findall(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef✓✗]", script)


def _pixels(png):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


@pytest.mark.parametrize("name", ["clock", "rope", "heatmap", "t5_buckets", "alibi"])
def test_a_256_colour_frame_stays_within_the_stated_tolerance(name):
    png = pl.EXPLORERS[name]().png()
    small = sp.palette_png(png)
    assert len(small) < 0.6 * len(png)
    diff = np.abs(_pixels(small) - _pixels(png))
    assert diff.max() <= sp.MAX_CHANNEL_ERROR and diff.mean() < 1.0


def test_an_image_of_few_colours_keeps_every_pixel():
    from PIL import Image

    img = Image.new("RGB", (40, 20), (255, 255, 255))
    img.paste((200, 10, 10), (5, 5, 15, 15))
    out = io.BytesIO()
    img.save(out, format="png")
    assert (_pixels(sp.palette_png(out.getvalue())) == _pixels(out.getvalue())).all()


def test_frames_are_stored_as_256_colour_lossless_webp():
    import ipywidgets as w

    from posenc.ui.engine.canvas import data_url

    png = pl.ClockExplorer().png()
    image = w.Image(value=data_url(png), format="url")
    nb = page_of(image)
    report = sp.compress_frames(nb)
    model = sp.widget_state(nb)[image.model_id]
    assert report["images"] == 1 and model["state"]["format"] == "webp"
    stored = base64.b64decode(model["buffers"][0]["data"])
    assert stored[:4] == b"RIFF" and stored[8:12] == b"WEBP"
    assert (_pixels(stored) == _pixels(sp.palette_png(png))).all(), "lossless: the 256-colour pixels exactly"
    assert np.abs(_pixels(stored) - _pixels(png)).max() <= sp.MAX_CHANNEL_ERROR
    assert len(stored) < 0.9 * len(sp.palette_png(png)) and report["bytes_after"] < 0.4 * report["bytes_before"]
