"""Every in-course link to a place in a notebook is a cell link, ``NN_x.ipynb#cell-id=<id>`` (or
``#cell-id=<id>`` within the notebook), to a markdown cell that begins with a heading.

Why cells, not heading text: JupyterLab 4.6 hands a clicked link's fragment to the notebook as the
browser has percent-encoded it (``#7.-%E8%BF%9C…``) and compares it with the heading's unencoded
``data-jupyter-id``, so no link to a Chinese heading lands; and in a notebook the link opens, it
looks for the heading before the cells have rendered, so the notebook stays at its top
(jupyterlab#15207, #11374). ``#cell-id=`` is looked up in the notebook's model, and nbconvert
gives every cell of the static page the same ``id="cell-id=<id>"``: one fragment, both runtimes.
(Clicked in the real browser: tests/browser/test_links.py in JupyterLab, test_static_site.py on the
pages.) A link written by heading text is refused here with the cell link to use instead.
"""
import functools
import json
import pathlib
import re
from urllib.parse import unquote

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
LINK = re.compile(r"\]\(([^)\s]*#[^)\s]+)\)")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")


@functools.cache
def cells(path: pathlib.Path) -> dict[str, dict]:
    """A notebook's cells by id."""
    found = json.loads(path.read_text(encoding="utf-8"))["cells"]
    by_id = {c["id"]: c for c in found}
    assert len(by_id) == len(found), f"{path.name}: two cells share an id"
    return by_id


def begins_with_heading(cell: dict) -> bool:
    lines = "".join(cell["source"]).lstrip("\n").splitlines()
    return cell["cell_type"] == "markdown" and bool(lines) and bool(HEADING.match(lines[0]))


def heading_cell(path: pathlib.Path, fragment: str) -> str | None:
    """The id of the cell that begins with the heading a heading-text fragment names, for the
    message that refuses it (JupyterLab's id: the heading's text, every space a ``-``)."""
    for cell_id, cell in cells(path).items():
        lines = "".join(cell["source"]).splitlines()
        m = HEADING.match(lines[0]) if cell["cell_type"] == "markdown" and lines else None
        if m:
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
            text = re.sub(r"(\*\*|`)(.+?)\1", r"\2", text)
            if text.replace(" ", "-") == unquote(fragment):
                return cell_id
    return None


def course_links():
    sources = [(path, n, "".join(c["source"])) for path in NOTEBOOKS
               for n, c in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"])
               if c["cell_type"] == "markdown"]
    sources.append((ROOT / "README.md", 0, (ROOT / "README.md").read_text(encoding="utf-8")))
    for path, n, text in sources:
        for m in LINK.finditer(text):
            if not re.match(r"^[a-z]+:", m.group(1)):         # a web page: not ours
                yield path, n, m.group(1)


LINKS = list(course_links())


def test_the_course_links_into_its_notebooks():
    assert len(LINKS) >= 100 and sum(p.name == "00_index.ipynb" for p, _, _ in LINKS) >= 20


@pytest.mark.parametrize("path, cell, target", LINKS, ids=lambda x: x.name if isinstance(x, pathlib.Path) else str(x))
def test_every_link_lands_on_a_cell_that_begins_with_a_heading(path, cell, target):
    file, fragment = target.split("#", 1)
    goal = (path.parent / file) if file else path
    assert goal.suffix == ".ipynb" and goal.exists(), f"{path.name} cell {cell}: {target}"
    if not fragment.startswith("cell-id="):
        hint = heading_cell(goal, fragment)
        pytest.fail(f"{path.name} cell {cell}: #{fragment} is a heading link, which JupyterLab does not "
                    + (f"follow: link to its cell, {file}#cell-id={hint}" if hint else
                       "follow; split the cell at that heading and link to the new cell (#cell-id=<its id>)"))
    cell_id = fragment.removeprefix("cell-id=")
    assert cell_id in cells(goal), f"{path.name} cell {cell}: {goal.name} has no cell {cell_id}"
    assert begins_with_heading(cells(goal)[cell_id]), \
        f"{path.name} cell {cell}: {goal.name}'s cell {cell_id} does not begin with a heading"


def test_a_heading_link_is_refused_with_the_cell_link_to_use(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# 题目\n", "\n", "正文"]},
                    {"cell_type": "markdown", "id": "b", "metadata": {}, "source": ["## 2. 远程衰减 (`decay`)\n"]}]}
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert heading_cell(path, "2.-远程衰减-%28decay%29") == "b" and heading_cell(path, "题目") == "a"
    assert heading_cell(path, "3.-别的") is None
    assert begins_with_heading(nb["cells"][1]) and not begins_with_heading({"cell_type": "markdown", "source": ["正文\n", "## 2. x"]})
