"""Every markdown cell puts its emphasis where the static page puts it, read as JupyterLab reads it.

JupyterLab renders markdown with marked (configured by @jupyterlab/markedparser-extension) after
hiding $…$ math from it; the static page renders it with nbconvert's mistune. The two disagree on
one thing that matters here: marked's JavaScript regular expressions see a letter outside the
Basic Multilingual Plane (𝓡, U+1D4E1) as two halves of a surrogate pair, not as a letter, so the
underscore after it may open emphasis: in ``𝓡_n κ … 𝓡_{n−m}`` JupyterLab printed
``𝓡n κ … 𝓡{n−m}`` with the middle in italics, while the static page showed the formula. A formula
with subscripts is written as math (``$…$``) or with the underscore escaped (``𝓡\\_n``).

tests/lab_markdown.mjs renders with marked and its plugins at the versions JupyterLab ships
(pinned in tools/package.json, installed by tools/build_site.py's locked ``npm ci``);
tests/browser/test_links.py holds that file equal to JupyterLab's own renderer.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

import build_site  # tools/build_site.py (pyproject puts tools/ on the test path)

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "lab_markdown.mjs"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def markdown_cells() -> list[tuple[str, str, str]]:
    """(notebook name, cell id, source) of every markdown cell of the course."""
    out = []
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                out.append((path.name, cell.get("id", "?"), "".join(cell["source"])))
    return out


def lab_render(sources: list[str]) -> list[dict]:
    """What JupyterLab's markdown parser makes of each source: ``{"tags": [...], "underscore": [...]}``
    (the em/strong elements in document order; the raw text of each emphasis an ``_`` opened)."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node not installed (apt-get install -y nodejs npm)")
        pytest.skip("node not installed (apt-get install -y nodejs npm)")
    build_site.npm_ci()
    out = subprocess.run([node, str(SCRIPT)], input=json.dumps(sources), capture_output=True, text=True,
                         encoding="utf-8")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def static_tags(sources: list[str]) -> list[list[str]]:
    """The em/strong elements of each markdown source as the static page renders it (nbconvert's
    HTML exporter's own markdown filter, the one tools/build_site.py's template uses)."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    return [re.findall(r"<(em|strong)>", exporter.markdown2html({}, s)) for s in sources]


CELLS = markdown_cells()


@pytest.fixture(scope="module")
def rendered() -> list[dict]:
    return lab_render([source for _, _, source in CELLS])


def test_the_parser_is_the_one_jupyterlab_ships():
    """tools/package.json pins marked and its two plugins at the versions the installed JupyterLab
    resolved for @jupyterlab/markedparser-extension (its yarn.lock)."""
    import importlib.util

    lock = (pathlib.Path(importlib.util.find_spec("jupyterlab").origin).parent / "staging" / "yarn.lock").read_text(encoding="utf-8")
    entry = re.search(r'^"@jupyterlab/markedparser-extension@[^\n]*:\n((?:  .*\n)+)', lock, re.M)
    assert entry, "no @jupyterlab/markedparser-extension in JupyterLab's yarn.lock"
    pinned = json.loads((ROOT / "tools" / "package.json").read_text(encoding="utf-8"))["dependencies"]
    for name in ("marked", "marked-gfm-heading-id", "marked-mangle"):
        wanted = re.search(rf"^    {name}: (\S+)$", entry.group(1), re.M).group(1)
        version = re.search(rf'^"{name}@npm:{re.escape(wanted)}":\n  version: (\S+)$', lock, re.M).group(1)
        assert pinned[name] == version, f"{name}: JupyterLab uses {version}, tools/package.json pins {pinned[name]}"


CASES = [
    ("𝓡_n κ 𝓡_{n−m}", ["_n κ 𝓡_"]),            # the astral letter: marked opens emphasis
    ("R_n κ R_{n−m}", []),                         # a BMP letter before _: no emphasis (CommonMark)
    ("𝓡\\_n κ 𝓡_{n−m}", []),                       # escaped
    ("$𝓡_n$ κ 𝓡_{n−m}", []),                       # math is hidden from the parser
    ("`$` _a_ `$`", ["_a_"]),                      # a $ in code is no math delimiter
    ("$a\n\n_b_ $", ["_b_"]),                      # math never crosses a blank line
    ("$x_{a}$ and _c_", ["_c_"]),
    ("$\\{_a_$ b_", []),                            # an escaped brace does not count
]


def test_the_renderer_reads_underscores_and_math_as_jupyterlab_does():
    got = [r["underscore"] for r in lab_render([source for source, _ in CASES])]
    assert got == [opened for _, opened in CASES]


def test_no_underscore_of_a_formula_opens_emphasis_in_jupyterlab(rendered):
    flagged = [(name, cell, raw) for (name, cell, _), r in zip(CELLS, rendered) for raw in r["underscore"]]
    assert not flagged, ("JupyterLab reads these underscores as emphasis (write the formula as $…$ or "
                         "escape the underscore, 𝓡\\_n):\n" + "\n".join(map(repr, flagged)))


def test_emphasis_falls_where_the_static_page_puts_it(rendered):
    assert len(CELLS) > 300
    static = static_tags([source for _, _, source in CELLS])
    differ = [(name, cell, r["tags"], s) for (name, cell, _), r, s in zip(CELLS, rendered, static) if r["tags"] != s]
    assert not differ, "\n".join(map(repr, differ))
