"""The contents page in JupyterLab: it opens without asking for a kernel, and why it keeps its
kernel metadata (tools/build_contents.py's docstring): JupyterLab has no per-notebook switch,
and a notebook without kernel metadata gets the 「选择内核」 dialog on every open under
JupyterLab's default settings."""
from __future__ import annotations

import uuid
from urllib.parse import quote

import nbformat
import pytest

from lab_session import JS_FIND_PANEL, LAB_SETTINGS, close_notebook, jupyterlab

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_contents_page_opens_without_asking_for_a_kernel(lab_server, browser):
    """The page keeps its kernel metadata, so JupyterLab starts python3 and shows no 「选择内核」
    dialog; its one code cell is the progress cell, not run on open."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    rel = "notebooks/00_index.ipynb"
    try:
        page.goto(lab_server.url(f"/lab/workspaces/posenc-{uuid.uuid4().hex[:12]}/tree/{quote(rel)}"),
                  wait_until="domcontentloaded")
        page.wait_for_function(JS_FIND_PANEL, arg=rel, timeout=90_000, polling=200)
        assert page.locator(".jp-Dialog").count() == 0, page.locator(".jp-Dialog").first.text_content()
        cells = page.evaluate("""() => window.__nb.content.model.toJSON().cells
            .filter(c => c.cell_type === 'code').map(c => [Array.isArray(c.source) ? c.source.join('') : c.source,
                                                          c.execution_count, c.outputs.length])""")
        assert len(cells) == 1 and "pl.show_progress()" in cells[0][0], cells
        assert cells[0][1] is None and cells[0][2] == 0, "the progress cell ran on open"
    finally:
        close_notebook(page, lab_server)
        context.close()


def test_without_kernel_metadata_jupyterlab_asks_for_a_kernel(browser, tmp_path):
    """The alternative build_contents rejects: a markdown-only notebook with no kernelspec and no
    language_info, opened with JupyterLab's default settings (no autoStartDefaultKernel), starts
    no kernel but opens the kernel dialog."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 目录")]
    nbformat.write(nb, tmp_path / "bare.ipynb")
    defaults = {plugin: {k: v for k, v in values.items() if k != "autoStartDefaultKernel"}
                for plugin, values in LAB_SETTINGS.items()}
    with jupyterlab(root=tmp_path, settings=defaults) as lab:
        context = browser.new_context()
        page = context.new_page()
        try:
            page.goto(lab.url(f"/lab/workspaces/posenc-{uuid.uuid4().hex[:12]}/tree/bare.ipynb"),
                      wait_until="domcontentloaded")
            page.wait_for_selector(".jp-Dialog", timeout=60_000)
            assert lab.api("GET", "/api/kernels") == []
        finally:
            context.close()
