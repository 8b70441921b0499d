"""Sliders that follow the hand: each notebook's first explorer with a main slider
(``Explorer.main``), dragged for real in JupyterLab + headless Chromium.

Per notebook (every notebook that makes such an explorer; 01's permutation explorer has no
slider, test_jupyterlab.py moves its controls): Run All, wait until the explorer's frames are
rendered, then measure on its main slider (drag_metrics.py, inside the page):

* key-step median: keydown -> first animation frame showing the new decoded figure;
* drag updates per second, with Playwright's mouse and with 60 Hz mouse events, and the
  share of slider positions the figure followed (coverage);
* lag after release: mouseup -> the figure on screen is the final one.

These numbers are PRINTED (this machine is shared and noisy: no absolute time is asserted).
ASSERTED: every control of the explorer redraws the figure, and after every drag the figure
on screen is the one for the released value: the SHA-256 of the PNG in the page equals the
kernel's ``explorer.shown_png()``, and the kernel's slider position equals the page's.

Run:  python -m pytest tests/browser/test_drag.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import drag_metrics as dm  # tools/drag_metrics.py (pyproject puts tools/ on the test path)

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = Path(os.environ.get("POSENC_NOTEBOOK_DIR") or REPO / "notebooks").resolve()

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOKS = dm.notebooks_with_explorers(NOTEBOOK_DIR)
DRIVERS = ("mouse", "page")
KEYS, DRAGS = 6, 2


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_drag_follows_the_hand(notebook, lab_server, browser, capsys):
    rel = notebook.resolve().relative_to(lab_server.root_dir).as_posix()
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        r = dm.measure_notebook(page, lab_server, rel, keys=KEYS, drags=DRAGS, drivers=DRIVERS,
                                check_controls=True)
    finally:
        dm.close_notebook(page, lab_server)
        context.close()
    with capsys.disabled():
        print(f"\n[drag] {dm.format_row(r, DRIVERS)}")
    problems = [f"{r['explorer']}: {p}" for p in r["controls"]["problems"]]
    assert r["controls"]["checked"] > 0, "no control was moved"
    for drv in DRIVERS:
        for d in r[drv]:
            if not d["release_ok"]:
                problems.append(
                    f"{drv} drag: after release the page shows position {d['final_value']} "
                    f"(PNG sha {str(d['final_sha'])[:12]}), the kernel {d['kernel']['position']} "
                    f"(sha {d['kernel']['sha'][:12]})")
    assert not problems, f"{notebook.name}:\n" + "\n".join(problems)
