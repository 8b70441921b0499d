"""Every notebook runs top to bottom in a fresh kernel: no error, nothing on stderr, no stall."""
import os
import pathlib
import time

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# Short enough that a stalled cell fails loudly; the slowest real cell (training) takes a few seconds.
CELL_TIMEOUT = int(os.environ.get("POSENC_CELL_TIMEOUT", "60"))
DURATIONS: dict[str, float] = {}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_cleanly(path):
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    DURATIONS[path.name] = time.perf_counter() - start
    problems = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error" or (out.output_type == "stream" and out.name == "stderr"):
                problems.append(f"cell {i}: {out.get('text') or out.get('evalue')}\n{cell.source[:300]}")
    assert not problems, "\n\n".join(problems)
