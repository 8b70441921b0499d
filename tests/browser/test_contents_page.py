"""Why the contents page keeps its kernel metadata (tools/build_contents.py's docstring):
JupyterLab has no per-notebook switch, and a notebook without kernel metadata gets the
「选择内核」 dialog on every open under JupyterLab's default settings. (That the contents page
itself opens with no dialog and its progress cell not run is checked in its one JupyterLab run,
tests/browser/test_jupyterlab.py.)"""
from __future__ import annotations

import uuid

import nbformat
import pytest

from lab_session import LAB_SETTINGS, jupyterlab

pytestmark = [pytest.mark.browser, pytest.mark.slow]


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
