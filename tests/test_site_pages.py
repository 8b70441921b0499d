"""tools/site_pages.py: what a static page can do is decided from what the outputs declare.

A notebook node is made here from real objects' MIME bundles and the real widget state of this
process (``ipywidgets.embed.dependency_state``), then taught: exercises become answer boxes with
their own rules, the quiz, the worksheet and the progress table the page's own HTML, every input
but an explorer's frame grid (main slider, Play button, the grid's other controls) is disabled
under one line, and frames become 256-colour lossless WebP within the stated tolerance.
"""
import base64
import io
import json
import re

import nbformat
import numpy as np
import pytest

import posenc_lib as pl
import site_pages as sp  # tools/site_pages.py (pyproject puts tools/ on the test path)
from posenc.ui import declare


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


def _attr(markup, name):
    import html

    return json.loads(html.unescape(re.search(rf'data-{name}="([^"]*)"', markup)[1]))


def test_an_unanswered_exercise_becomes_an_answer_box_with_its_rule():
    pending, answered = pl.check_pe(None, pos=4), pl.check_pe([0.0, 0.0], pos=4)
    nb = page_of(pending, answered)
    assert sp.teach(nb, "02_sinusoidal_hand_calculation")["exercises"] == 1
    box = outputs(nb, 0)[0]["data"]["text/html"]
    assert 'class="posenc-exercise"' in box and 'input type="text"' in box and "检查" in box
    assert _attr(box, "rule") == pending.rule.to_json()
    assert 'data-exercise="check_pe(pos=4, d_model=2, base=10000, word=None)"' in box
    kept = outputs(nb, 1)[0]["data"]
    assert declare.EXERCISE not in kept and kept["text/html"] == answered._repr_html_()


def test_choices_become_buttons_and_letters_boxes():
    choice = pl.check_choice(None, "b", options=["a", "b"], exercise="99.1")
    letters = pl.check_fast_pair_kept(None)
    nb = page_of(choice, letters)
    sp.teach(nb, "13_summary_interview")
    buttons = outputs(nb, 0)[0]["data"]["text/html"]
    assert buttons.count('type="radio"') == 2 and "data-option" in buttons
    boxes = outputs(nb, 1)[0]["data"]["text/html"]
    assert boxes.count('type="checkbox"') == 4


def test_the_quiz_the_worksheet_and_progress_become_the_pages_own_html(monkeypatch, tmp_path):
    monkeypatch.setenv("POSENC_PROGRESS", str(tmp_path / "p.json"))
    quiz, ws = pl.Quiz(pl.REAL_MODELS), pl.HandCalcWorksheet(0)
    from posenc.ui.progress import ProgressView, progress_summary
    from posenc.course.quiz_banks import QUIZZES

    nb = page_of(quiz, ws, ProgressView(progress_summary(QUIZZES)))
    report = sp.teach(nb, "10_rope_real_models")
    assert (report["quizzes"], report["worksheets"], report["progress"]) == (1, 1, 1)
    q, w_, p = (outputs(nb, i)[0]["data"]["text/html"] for i in range(3))
    assert _attr(q, "quiz") == quiz.declaration() and q.count('type="radio"') == sum(len(x["options"]) for x in quiz.questions)
    decl = _attr(w_, "worksheet")
    assert len(decl["cases"]) == ws.PAGE_CASES and decl["cases"][0]["tokens"] == list(ws.case.tokens)
    assert _attr(p, "progress")["notebooks"][0]["notebook"] == "01_permutation_invariance"
    assert str(tmp_path) not in p and "progress.json" not in p      # nothing local on the page
    for i in range(3):
        assert sp.WIDGET_VIEW not in outputs(nb, i)[0]["data"]


def test_the_quiz_declares_the_feedback_the_kernel_shows():
    quiz = pl.Quiz(pl.REAL_MODELS)
    decl = quiz.declaration()
    for n, q in enumerate(decl["questions"]):
        for j in range(len(q["options"])):
            quiz.radios[n].index = j
            assert quiz.verdict(n).message == q["feedback"][j]


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


def test_the_page_never_tells_a_reader_to_edit_and_run_a_cell_where_an_answer_box_stands():
    said = ("每题把 `None` 换成你的答案（列表、数或字符串）再运行：`正确` 或 `再想想`。先用纸笔算，再运行。\n"
            "另一行：再运行不变。")
    page = sp.page_prompt(said)
    assert page.splitlines()[0] == f"{sp.PAGE_PROMPT}：`正确` 或 `再想想`。先用纸笔算，再作答。"
    assert page.splitlines()[1] == "另一行：再运行不变。" and "None" not in page
    pending = pl.check_pe(None, pos=4)
    nb = page_of(pending)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("## 练习\n\n" + said))
    assert sp.teach(nb, "02_sinusoidal_hand_calculation")["prompts"] == 1
    assert sp.PAGE_PROMPT in nb.cells[0].source and "`None`" not in nb.cells[0].source
    bare = page_of(pl.check_pe([0.0, 0.0], pos=4))          # no answer box on the page: the text stays
    bare.cells.insert(0, nbformat.v4.new_markdown_cell(said))
    sp.teach(bare, "02_sinusoidal_hand_calculation")
    assert bare.cells[0].source == said
