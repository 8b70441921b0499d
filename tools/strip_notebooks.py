"""Remove outputs and execution counts from every notebook in notebooks/ (in place), and store
in each notebook's metadata what the kernel writes there when JupyterLab opens it.

Run from the repository root before committing:  python tools/strip_notebooks.py
           only report what would change:      python tools/strip_notebooks.py --check

Why the kernel's metadata: when JupyterLab opens a notebook and its kernel starts, it writes
the kernel's ``kernelspec`` (with the spec's display name) and ``language_info`` (from the
kernel's ``kernel_info`` reply) into the notebook. If they differ from what the file holds,
the notebook is marked modified (the unsaved-changes dot) before the reader did anything.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess

import nbformat

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNEL = "python3"


def kernel_metadata() -> dict:
    """``{"kernelspec": ..., "language_info": ...}`` as JupyterLab writes them for the installed
    ``python3`` kernel: the spec's name, display name and language, and ipykernel's
    ``language_info`` (what its ``kernel_info`` reply sends; it names the Python version), read
    by the kernel's own Python in a subprocess (importing ipykernel here would make it the comm
    backend of every widget in this process)."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    code = "import json; from ipykernel.ipkernel import IPythonKernel as K; print(json.dumps(K.language_info))"
    out = subprocess.run([spec.argv[0], "-c", code], capture_output=True, text=True, check=True)
    return {"kernelspec": {"name": KERNEL, "display_name": spec.display_name, "language": spec.language},
            "language_info": json.loads(out.stdout)}


def strip(nb, metadata: dict | None = None) -> bool:
    """Strip ``nb`` in place (outputs, counts, run-time cell metadata, widget state) and set
    its kernel metadata to ``metadata`` (default :func:`kernel_metadata`). True if it changed."""
    metadata = kernel_metadata() if metadata is None else metadata
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
    for key, value in metadata.items():
        if nb.metadata.get(key) != value:
            nb.metadata[key] = value
            changed = True
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what would change (exit 1 if anything)")
    args = parser.parse_args(argv)
    metadata = kernel_metadata()
    stale = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if strip(nb, metadata):
            stale.append(path.relative_to(ROOT))
            if not args.check:
                nbformat.write(nb, path)
    for p in stale:
        print(f"{'not stripped' if args.check else 'stripped'}: {p}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
