"""Remove outputs and execution counts from every notebook in notebooks/ (in place).

Run from the repository root before committing:  python tools/strip_notebooks.py
"""
from __future__ import annotations

import pathlib

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]


def strip(nb) -> bool:
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code":
            if cell.outputs or cell.execution_count is not None:
                changed = True
            cell.outputs, cell.execution_count = [], None
        for key in ("execution", "collapsed", "scrolled"):
            if key in cell.metadata:
                del cell.metadata[key]
                changed = True
    if "widgets" in nb.metadata:
        del nb.metadata["widgets"]
        changed = True
    return changed


def main() -> int:
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if strip(nb):
            nbformat.write(nb, path)
            print(f"stripped {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
