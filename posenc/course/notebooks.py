"""The course's notebooks: each one's title (its first heading), and the quiz's citations of
notebooks written with their titles (「见第 10 篇《…》」, never a bare 「（10）」).

:data:`NOTEBOOK_TITLES` is computed on first use from ``notebooks/NN_*.ipynb`` beside the package
(read as JSON; a checkout without the notebooks has none). What each notebook asks is not read
from its cells: it is declared in :mod:`posenc.course.catalogue`.
"""
from __future__ import annotations

import functools
import json
import pathlib
import re

#: Where the notebooks are: beside the package (the course is installed from its checkout).
NOTEBOOK_DIR = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


@functools.cache
def notebook_cells() -> dict:
    """File stem -> the notebook's cells, for every numbered notebook but the contents page."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8"))["cells"]
            for p in sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb")) if not p.stem.startswith("00_")}


def cell_source(cell) -> str:
    return "".join(cell["source"])


def _title(cells) -> str:
    first = next((cell_source(c) for c in cells if c["cell_type"] == "markdown"), "")
    return next((line[2:].strip() for line in first.splitlines() if line.startswith("# ")), "")


def __getattr__(name):
    if name == "NOTEBOOK_TITLES":
        #: File stem -> title (the notebook's first heading), in the course's order.
        return {stem: _title(cells) for stem, cells in notebook_cells().items()}
    raise AttributeError(name)


def _notebook_link(number: str) -> str | None:
    """「第 NN 篇《title》」 for a notebook number, or None when no notebook has it."""
    titles = __getattr__("NOTEBOOK_TITLES")
    stem = next((s for s in titles if s.startswith(number + "_")), None)
    return None if stem is None else f"第 {number} 篇《{titles[stem]}》"


#: A notebook number in the quiz's brackets: 「（10）」, 「（07、08）」, 「（07 第 7 节）」, 「（11 的对照组）」,
#: 「（…，07）」, 「（就是 04 的旋转）」; not a count such as 「（12 不是 2 的幂）」 or 「（24 维」.
_CITATION = re.compile(r"(?<=[（、，])(\d\d)(?=[）、，]| 第| ?的| ?里| (?!不是)[^\d\s维个])|(?<=就是 )(\d\d)(?= ?的)")


def cite_titles(text: str) -> str:
    """The quiz's citations by notebook number written with the notebook's title:
    「（10）」 becomes 「（见第 10 篇《RoPE 在真实模型里：…》）」, 「（07 验证过）」 becomes
    「（第 07 篇《从旋转到 RoPE》验证过）」. Numbers that name no notebook stay as they are.
   """
    def replace(match):
        number = match.group(1) or match.group(2)
        return _notebook_link(number) or match.group(0)

    out = _CITATION.sub(replace, text)
    return re.sub(r"（(第 \d\d 篇《[^》]*》(?:、第 \d\d 篇《[^》]*》)*)）", r"（见\1）", out)
