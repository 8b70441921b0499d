"""Every drill of the course sits in a notebook after the section it practises: a markdown task
with its own heading, the stub cell (an empty body and ``pl.check("drill-…", fn)``), and the worked
solution folded in a 「完整解答」 block. Run as written, the stub gets the neutral prompt; with the
solution's code, the check says 正确. Each declared drill appears in exactly one notebook, once."""
import ast
import json
import pathlib
import re

import numpy as np
import pytest

import posenc_lib as pl
from posenc.course import catalogue

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CALL = re.compile(r'pl\.check\("(drill-[a-z0-9-]+)",\s*(\w+)\)')
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def drill_cells() -> dict:
    """drill id -> (notebook stem, heading, stub source, solution source), read from the notebooks."""
    found = {}
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            source = "".join(cell["source"])
            m = CALL.search(source) if cell["cell_type"] == "code" else None
            if not m:
                continue
            assert m[1] not in found, f"{m[1]} appears twice"
            task, folded = "".join(cells[i - 1]["source"]), "".join(cells[i + 1]["source"])
            assert "完整解答" in folded and "<details>" in folded and "</details>" in folded, (path.name, m[1])
            found[m[1]] = (path.stem, task.splitlines()[0], source, FENCE.search(folded)[1])
    return found


DRILLS = drill_cells()


def run(source: str, name: str):
    """Run a cell's source (its last line the check) in a fresh namespace; return the verdict."""
    tree = ast.parse(source)
    last = tree.body[-1]
    tree.body[-1] = ast.Assign(targets=[ast.Name("_verdict", ast.Store())], value=last.value)
    ast.fix_missing_locations(tree)
    namespace = {"np": np, "pl": pl}
    exec(compile(tree, name, "exec"), namespace)
    return namespace["_verdict"]


def test_every_declared_drill_is_in_its_notebook_once():
    declared = {e.id: e for e in catalogue.EXERCISES if e.kind == "drill"}
    assert set(DRILLS) == set(declared)
    for drill_id, (stem, heading, _, _) in DRILLS.items():
        assert declared[drill_id].notebook == stem, drill_id
        assert heading.startswith("### 手写："), (drill_id, heading)
        assert declared[drill_id].minutes, drill_id


@pytest.mark.parametrize("drill_id", sorted(DRILLS))
def test_the_stub_is_neutral_and_the_worked_solution_is_right(drill_id):
    stem, _, stub, solution = DRILLS[drill_id]
    pending = run(stub, f"{stem} stub")
    assert pending.pending and not pending and "再想想" not in repr(pending), (drill_id, pending)
    assert pending.exercise == drill_id
    name = CALL.search(stub)[2]
    verdict = run(solution + "\n\n" + f'pl.check("{drill_id}", {name})', f"{stem} solution")
    assert verdict and verdict.kind == "right", (drill_id, verdict)
