"""The checks one notebook of the JupyterLab browser test gets beyond every notebook's
(tests/browser/test_jupyterlab.py, step 6): the contents page opens with no kernel dialog and
its progress cell not run; 01's drill, typed over with a wrong and then a right function, shows
the slip named and then 正确; 02's worksheet checks a box when it is filled and Tab moves on."""
from __future__ import annotations

from lab_session import WIDGET_RENDER_S, kernel_exec, kernel_value
from ui_checks import wider_than_output

WIDGET_RENDER_TIMEOUT_MS = WIDGET_RENDER_S * 1000


def _contents_opened(page) -> list[str]:
    """The contents page keeps its kernel metadata, so JupyterLab starts python3 and shows no
    「选择内核」 dialog; its one code cell is the progress cell, not run on open
    (test_contents_page.py shows the alternative build_contents rejects)."""
    problems = []
    if page.locator(".jp-Dialog").count():
        problems.append("a dialog opened: " + page.locator(".jp-Dialog").first.text_content())
    cells = page.evaluate("""() => window.__nb.content.model.toJSON().cells
        .filter(c => c.cell_type === 'code').map(c => [Array.isArray(c.source) ? c.source.join('') : c.source,
                                                      c.execution_count, c.outputs.length])""")
    if not (len(cells) == 1 and "pl.show_progress()" in cells[0][0]):
        problems.append(f"the contents page's code cells: {cells}")
    elif cells[0][1] is not None or cells[0][2]:
        problems.append("the progress cell ran on open")
    return problems


def _worksheet(page) -> list[str]:
    """02's worksheet: a box typed with sin and cos swapped is named as that slip when Tab is
    pressed, Tab moves to the next box, the right value is then ticked; the widest case fits."""
    import math

    ws = page.locator(".jp-NotebookPanel .posenc-worksheet").first
    ws.scroll_into_view_if_needed()
    start, d_model = kernel_value(page, "(ws.case.start, ws.case.d_model)")
    box, messages = ws.locator(".posenc-ws-pe-0-0 input"), ws.locator(".posenc-worksheet-messages")
    focused = "() => { const b = document.activeElement && document.activeElement.closest('.widget-text'); return b ? b.className : ''; }"
    problems = []
    box.click()
    box.fill(f"{math.cos(start):.4f}")          # sin and cos swapped
    box.press("Tab")
    page.wait_for_function("el => el.textContent.includes('sin 和 cos 写反')", arg=messages.element_handle())
    if "posenc-ws-pe-0-1" not in page.evaluate(focused):
        problems.append("worksheet: Tab did not move to the next box")
    row = ws.locator(".posenc-ws-pe-0-0").locator("xpath=..")
    if f"pos {start}）PE 第 0 维" not in messages.text_content() or "✗" not in row.text_content():
        problems.append(f"worksheet: the slip is not named: {messages.text_content()}")
    box.click()
    box.fill(f"{math.sin(start):.4f}")          # right
    box.press("Tab")
    page.wait_for_function("el => !el.textContent.includes('sin 和 cos 写反') && el.textContent.includes('对了 1 格')",
                           arg=messages.element_handle())
    if "✓" not in row.text_content() or kernel_value(page, "ws.feedback[('pe', 0, 0)].state") != "right":
        problems.append("worksheet: the right value is not ticked")
    if kernel_value(page, "len(ws.cells)") != 2 * 3 * d_model:
        problems.append("worksheet: not one box per number")
    kernel_exec(page, "from posenc.exercises.worksheet import WorksheetCase\nimport numpy as np\n"
                      "ws.new_case(WorksheetCase(tuple('猫咬狗'), 5, 4, 10000.0, -0.9 * np.ones((3, 4))))")
    page.wait_for_function("el => el.querySelectorAll('.posenc-ws-input-2-3').length > 0", arg=ws.element_handle())
    wide = wider_than_output(page, ws)
    return problems + ([f"worksheet: {wide}"] if wide else [])


#: 01's drill typed twice into its cell: first with the mask after the softmax, then right.
DRILL_TYPED = ("""def causal_attention(q, key, value):
    scores = q @ np.swapaxes(key, -1, -2) / np.sqrt(q.shape[-1])
    n = scores.shape[-1]
    {mask_before}weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    {mask_after}return weights @ value


pl.check("drill-causal-attention", causal_attention)""")
DRILL_WRONG = DRILL_TYPED.format(mask_before="", mask_after="weights = weights * np.tril(np.ones((n, n)))\n    ")
DRILL_RIGHT = DRILL_TYPED.format(mask_before="scores = np.where(np.tril(np.ones((n, n))) > 0, scores, -np.inf)\n    ",
                                 mask_after="")


def _drill(page) -> list[str]:
    """01's drill as a reader does it: the stub's cell, typed over with a function that applies
    the mask after the softmax and run (Shift+Enter), shows 再想想 naming that slip; typed over
    with the right function, 正确. The kernel runs the reader's own code both times."""
    cell = page.locator(".jp-NotebookPanel .jp-CodeCell").filter(has_text='pl.check("drill-causal-attention"').first
    problems = []
    for source, typed, want in ((DRILL_WRONG, "weights = weights * np.tril", "掩码放在了 softmax 之后"),
                                (DRILL_RIGHT, "scores = np.where(np.tril", "正确 ✓")):
        cell.scroll_into_view_if_needed()
        cell.locator(".cm-content").click()
        cell.locator(".cm-editor.cm-focused").wait_for()      # edit mode: Ctrl+A selects the cell's text
        page.keyboard.press("Control+A")
        page.keyboard.insert_text(source)
        page.wait_for_function("([el, line]) => el.textContent.includes(line)",   # the editor holds the text
                               arg=[cell.locator(".cm-content").element_handle(), typed])
        page.keyboard.press("Shift+Enter")
        out = cell.locator(".jp-OutputArea")
        try:
            page.wait_for_function("([el, want]) => el.textContent.includes(want)", arg=[out.element_handle(), want],
                                   timeout=WIDGET_RENDER_TIMEOUT_MS)
        except Exception:
            problems.append(f"drill: after typing, its cell does not show {want!r}: {out.text_content()[:300]!r}")
    return problems


#: Checks of one notebook: ``opened`` before Run All, ``run`` after the others.
OWN_CHECKS = {"00_index": {"opened": _contents_opened}, "01_permutation_invariance": {"run": _drill},
              "02_sinusoidal_hand_calculation": {"run": _worksheet}}
