"""Every in-course link with a fragment (``04_relative_position.ipynb#符号约定``, ``#…``) lands
on a heading JupyterLab can scroll to.

JupyterLab 4 gives each rendered markdown heading an id made from its text with every space
replaced by ``-`` (``renderMarkdown.createHeaderId`` in packages/rendermime/src/renderers.ts:
``header.textContent.replace(/ /g, '-')``), and a notebook link's fragment scrolls to the
heading with that id. An HTML anchor such as ``<a id="…">`` is sanitised into
``data-jupyter-id`` and is no target: links must point at headings.
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
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def heading_text(markdown: str) -> str:
    """What a heading's ``textContent`` is once rendered: the markdown markup removed."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", markdown)          # images
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)          # links keep their text
    text = re.sub(r"`([^`]*)`", r"\1", text)                      # code spans keep their text
    text = re.sub(r"<[^>]+>", "", text)                           # inline HTML tags
    text = re.sub(r"(\*\*|\*)(?=\S)(.+?)(?<=\S)\1", r"\2", text)           # emphasis
    text = re.sub(r"(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\1(?!\w)", r"\2", text)  # _ emphasis, never intraword (W_q)
    return text


@functools.cache
def heading_ids(path: pathlib.Path) -> set[str]:
    """The ids JupyterLab gives the headings of a notebook's markdown cells."""
    ids = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        fenced = False
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            m = None if fenced else HEADING.match(line)
            if m:
                ids.add(heading_text(m.group(2)).replace(" ", "-"))
    return frozenset(ids)


def course_links():
    for path in NOTEBOOKS:
        for n, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] == "markdown":
                for m in LINK.finditer("".join(cell["source"])):
                    yield path, n, m.group(1)


def test_heading_ids_follow_jupyterlab():
    assert heading_text("**符号约定**") == "符号约定"
    assert heading_text("6. 用短句训练，用长句测试").replace(" ", "-") == "6.-用短句训练，用长句测试"
    assert heading_text("动手：`pl.rope` 的 [图](x.png)") == "动手：pl.rope 的 图"
    assert heading_text("经过 W_q、W_k 之后") == "经过 W_q、W_k 之后" and heading_text("_强调_ 与 __粗__") == "强调 与 粗"


LINKS = list(course_links())


def test_the_course_has_anchored_links():
    assert len(LINKS) >= 5 and any("符号约定" in target for _, _, target in LINKS)


@pytest.mark.parametrize("path, cell, target", LINKS, ids=lambda x: x.name if isinstance(x, pathlib.Path) else str(x))
def test_every_in_course_anchor_is_a_heading_of_its_target(path, cell, target):
    file, fragment = target.split("#", 1)
    if re.match(r"^[a-z]+:", file):
        return                                              # a web page: not ours to check
    goal = (path.parent / file) if file else path
    assert goal.suffix == ".ipynb" and goal.exists(), f"{path.name} cell {cell}: {target}"
    assert unquote(fragment) in heading_ids(goal), \
        f"{path.name} cell {cell}: #{fragment} is no heading of {goal.name} (headings: make one, JupyterLab's id = its text with spaces as -)"
