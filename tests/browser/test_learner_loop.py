"""The learner's loop in real JupyterLab: answer every exercise of 02 and 07 in their cells (the
worked solutions' answers typed over ``None``), write one drill of 07 (its worked solution typed over
the stub), fill a worksheet case, save the notebooks, restart their kernels, open the contents page
and run its progress cell: every exercise and the drill are still counted and the worksheet's case
is listed. (Until the registry, the table read the saved cells and lost
every answered exercise.) Copies of the notebooks are used, in a folder of their own under the
server's root, and a progress file of this test's own.
"""
from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from lab_session import JS_FIND_PANEL, KERNEL_READY_S, RUN_ALL_S, kernel_exec, kernel_value
from posenc.course import catalogue
from test_drill_solutions import DRILLS
from test_exercise_solutions import solution_answers

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = ("02_sinusoidal_hand_calculation", "07_rope")
#: The drill written in 07 (one of its four): the stub's body replaced by the worked solution.
DRILL = "drill-rope-cos-sin"
#: The kind the registry declares for each id ("exercise" or "drill"), and a cell's check call.
KIND = {e.id: e.kind for e in catalogue.EXERCISES}
CHECK = re.compile(r'\bpl\.check\("([^"]+)"')


def kind_of(source: str) -> str | None:
    """What the cell's ``pl.check`` asks, by the registry ("exercise", "drill"); None: no check."""
    m = CHECK.search(source)
    return KIND[m[1]] if m else None

#: Run the given cells one after another (the notebook's own run-cell command), wait for each.
JS_RUN_CELLS = """
async (indices) => {
  const w = window.__nb, app = window.jupyterapp;
  app.shell.activateById(w.id);
  for (const i of indices) {
    w.content.activeCellIndex = i;
    w.content.deselectAll();
    await app.commands.execute('notebook:run-cell');
  }
  const k = w.sessionContext.session.kernel;
  const t0 = Date.now();
  while (Date.now() - t0 < 120000) {
    const cells = indices.map(i => w.content.widgets[i].model);
    if (k.status === 'idle' && cells.every(c => c.executionCount !== null)) return 'ok';
    await new Promise(r => setTimeout(r, 100));
  }
  return 'timeout';
}
"""

#: Put ``source`` into cell ``index`` as typing would (the shared model the editor edits).
JS_SET_SOURCE = "([i, source]) => { window.__nb.content.widgets[i].model.sharedModel.setSource(source); }"

#: Save, then restart the kernel and wait until it is idle again.
JS_SAVE_AND_RESTART = """
async () => {
  const w = window.__nb;
  await w.context.save();
  await w.sessionContext.session.kernel.restart();
  const t0 = Date.now();
  while (Date.now() - t0 < 60000) {
    const k = w.sessionContext.session.kernel;
    if (k && k.status === 'idle' && k.connectionStatus === 'connected') return w.model.dirty;
    await new Promise(r => setTimeout(r, 100));
  }
  return 'timeout';
}
"""

JS_CELL_TEXTS = """() => window.__nb.content.widgets.map(c => [c.model.type, c.model.sharedModel.getSource(),
    c.node.querySelector('.jp-OutputArea') ? c.node.querySelector('.jp-OutputArea').textContent : ''])"""


def _open(page, lab, rel: str, progress_file: Path) -> None:
    page.goto(lab.url(f"/lab/workspaces/learner-{uuid.uuid4().hex[:10]}/tree/{quote(rel)}"), wait_until="domcontentloaded")
    page.wait_for_function(JS_FIND_PANEL, arg=rel, timeout=KERNEL_READY_S * 1000, polling=200)
    # this test's own record (the server's kernels inherit the suite's file otherwise)
    kernel_exec(page, f"import os; os.environ['POSENC_PROGRESS'] = {str(progress_file)!r}")


def _answer_every_exercise(page, path: Path) -> None:
    cells = page.evaluate(JS_CELL_TEXTS)
    setup = next(i for i, (kind, src, _) in enumerate(cells) if kind == "code" and "import posenc_lib as pl" in src)
    asked = [i for i, (kind, src, _) in enumerate(cells) if kind == "code" and kind_of(src) == "exercise"]
    answers = solution_answers(path)
    assert len(asked) == len(answers) > 0, path.name
    for i, answer in zip(asked, answers):
        source = re.sub(r"= None", f"= {answer!r}", cells[i][1], count=1)
        page.evaluate(JS_SET_SOURCE, [i, source])
    if DRILLS[DRILL][0] == path.stem:
        i = next(i for i, (kind, src, _) in enumerate(cells) if kind == "code" and f'pl.check("{DRILL}"' in src)
        check_line = next(line for line in cells[i][1].splitlines() if line.startswith(f'pl.check("{DRILL}"'))
        page.evaluate(JS_SET_SOURCE, [i, DRILLS[DRILL][3] + "\n\n" + check_line])
        asked.append(i)
    sheet = [i for i, (kind, src, _) in enumerate(cells) if kind == "code" and "HandCalcWorksheet" in src]
    assert page.evaluate(JS_RUN_CELLS, sorted({setup, *sheet, *asked})) == "ok"
    after = page.evaluate(JS_CELL_TEXTS)
    for i in asked:
        assert "正确" in after[i][2], (path.name, after[i])


def _fill_the_worksheet(page) -> None:
    ws = page.locator(".jp-NotebookPanel .posenc-worksheet").first
    ws.scroll_into_view_if_needed()
    box = ws.locator(".posenc-ws-pe-0-0 input")
    first = kernel_value(page, "ws.case.expected('pe', 0, 0)")
    box.fill(f"{first:.4f}")                       # typed, as a reader would
    box.press("Tab")
    page.wait_for_function("el => el.textContent.includes('对了 1 格')",
                           arg=ws.locator(".posenc-worksheet-messages").element_handle())
    # the other boxes of the case, right, from the kernel (each box records as the first did)
    kernel_exec(page, "for key in ws.cells:\n    ws.fill(*key, f'{ws.case.expected(*key):.4f}')")


def test_answers_saved_in_the_notebooks_stay_counted(lab_server, browser, tmp_path):
    folder = REPO / "notebooks" / f"_learner_{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    progress_file = tmp_path / "progress.json"
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(RUN_ALL_S * 1000)
    page = context.new_page()
    try:
        for stem in (*NOTEBOOKS, "00_index"):
            shutil.copy2(REPO / "notebooks" / f"{stem}.ipynb", folder / f"{stem}.ipynb")
        for stem in NOTEBOOKS:
            rel = (folder / f"{stem}.ipynb").relative_to(lab_server.root_dir).as_posix()
            _open(page, lab_server, rel, progress_file)
            _answer_every_exercise(page, REPO / "notebooks" / f"{stem}.ipynb")
            if stem.startswith("02"):
                _fill_the_worksheet(page)
            assert page.evaluate(JS_SAVE_AND_RESTART) is False        # saved (not dirty), kernel back
            saved = json.loads((folder / f"{stem}.ipynb").read_text(encoding="utf-8"))
            answered = ["".join(c["source"]) for c in saved["cells"] if c["cell_type"] == "code"
                        and kind_of("".join(c["source"])) == "exercise"]
            assert answered and not any("= None" in src for src in answered), "the answers are saved in the file"
        rel = (folder / "00_index.ipynb").relative_to(lab_server.root_dir).as_posix()
        _open(page, lab_server, rel, progress_file)
        cells = page.evaluate(JS_CELL_TEXTS)
        progress_cell = next(i for i, (kind, src, _) in enumerate(cells) if kind == "code" and "show_progress" in src)
        assert page.evaluate(JS_RUN_CELLS, [progress_cell]) == "ok"
        table = page.locator(".jp-NotebookPanel table.posenc-progress-table").first
        rows = {r[0][:2]: r for r in (row.locator("td").all_text_contents() for row in table.locator("tbody tr").all())}
        assert rows["02"][1] == "4 / 4" and rows["02"][4] == "1 / 1", rows["02"]
        assert rows["07"][1].startswith("6 / 6"), rows["07"]
        drills_column = next(i for i, h in enumerate(table.locator("thead th").all_text_contents()) if "手写代码" in h)
        assert rows["07"][drills_column] == "1 / 4", rows["07"]
        record = json.loads(progress_file.read_text(encoding="utf-8"))
        assert record["version"] == 2 and len(record["worksheet"]["pe-table"]) == 1
    finally:
        context.close()
        lab_server.shutdown_kernels()
        shutil.rmtree(folder, ignore_errors=True)
