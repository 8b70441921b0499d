"""The hand-calculation worksheet in JupyterLab: a learner types into a box, presses Tab, and
reads the box's verdict; Tab has moved the focus to the next box."""
from __future__ import annotations

import math

import pytest

from lab_session import close_notebook, kernel_exec, kernel_value, open_notebook
from ui_checks import wider_than_output

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "notebooks/02_sinusoidal_hand_calculation.ipynb"


def _focused_classes(page) -> str:
    """Classes of the ipywidgets Text around the focused element ('' if none)."""
    return page.evaluate("""() => {
        const el = document.activeElement;
        const box = el && el.closest('.widget-text');
        return box ? box.className : '';
    }""")


def test_a_worksheet_box_is_checked_when_filled_and_tab_moves_on(lab_server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        open_notebook(page, lab_server, NOTEBOOK)
        ws = page.locator(".jp-NotebookPanel .posenc-worksheet").first
        ws.scroll_into_view_if_needed()
        start, d_model = kernel_value(page, "(ws.case.start, ws.case.d_model)")
        # box PE[0][0] of the first token: sin(start · w_0), w_0 = 1
        box = ws.locator(".posenc-ws-pe-0-0 input")
        messages = ws.locator(".posenc-worksheet-messages")

        box.click()
        box.fill(f"{math.cos(start):.4f}")          # sin and cos swapped
        box.press("Tab")
        page.wait_for_function(
            "el => el.textContent.includes('sin 和 cos 写反')", arg=messages.element_handle(), timeout=30_000)
        assert "posenc-ws-pe-0-1" in _focused_classes(page), "Tab did not move to the next box"
        text = messages.text_content()
        assert f"pos {start}）PE 第 0 维" in text and "✗" in text, text
        row = ws.locator(".posenc-ws-pe-0-0").locator("xpath=..")
        assert "✗" in row.text_content()

        box.click()
        box.fill(f"{math.sin(start):.4f}")          # right
        box.press("Tab")
        page.wait_for_function(
            "el => !el.textContent.includes('sin 和 cos 写反') && el.textContent.includes('对了 1 格')",
            arg=messages.element_handle(), timeout=30_000)
        assert "✓" in row.text_content()
        assert kernel_value(page, "ws.feedback[('pe', 0, 0)].state") == "right"
        assert kernel_value(page, "len(ws.cells)") == 2 * 3 * d_model
        # the widest case (d_model = 4: 16 boxes a row) fits the notebook's output
        kernel_exec(page, "from posenc.exercises.worksheet import WorksheetCase\n"
                          "import numpy as np\n"
                          "ws.new_case(WorksheetCase(tuple('猫咬狗'), 5, 4, 10000.0, -0.9 * np.ones((3, 4))))")
        page.wait_for_function("el => el.querySelectorAll('.posenc-ws-input-2-3').length > 0",
                               arg=ws.element_handle(), timeout=30_000)
        assert wider_than_output(page, ws) is None, wider_than_output(page, ws)
    finally:
        close_notebook(page, lab_server)
        context.close()
