"""What a reader sees stands alone and speaks one language: no pointers to sources the reader
doesn't have (种子 meaning our hidden source texts, "seed 00x", 种子文章), and the course's
words (咬人者, not 施事; 前后分半, not 拆半). A random seed is 随机种子.

Reader-facing: every notebook cell (markdown, code and its comments, printed strings), the
README, and every string in the helper package (figure labels, messages, docstrings).
Executed outputs are checked in test_notebooks.py with the same rule.
"""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FORBIDDEN = [
    (re.compile(r"(?<!随机)种子"), "种子 (write 随机种子 for a random seed; never cite our source texts)"),
    (re.compile(r"seed\s*00\d", re.I), "a hidden source text"),
    (re.compile(r"the article", re.I), "a hidden source text"),
    (re.compile(r"施事"), "施事 (the course says 咬人者)"),
    (re.compile(r"拆半"), "拆半 (the course says 前后分半)"),
]


def reader_texts():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for n, cell in enumerate(nb["cells"]):
            yield f"{path.name} cell {n}", "".join(cell["source"])
    yield "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    for path in sorted([ROOT / "posenc_lib.py", *(ROOT / "posenc").rglob("*.py")]):
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def offences(text: str) -> list[str]:
    return [f"{why}: …{text[max(0, m.start() - 20):m.end() + 20]}…"
            for pattern, why in FORBIDDEN for m in pattern.finditer(text)]


@pytest.mark.parametrize("where, text", list(reader_texts()), ids=lambda x: x if len(x) < 60 else "")
def test_reader_text_cites_no_hidden_source(where, text):
    assert not offences(text), f"{where}: " + "; ".join(offences(text))


def prose(markdown: str) -> str:
    """Markdown without code spans, code blocks, math and HTML tags: the sentences a reader reads."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    return re.sub(r"<[^>]+>", " ", text)


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_prose_quotes_with_corner_brackets(path):
    """Quotes in prose are 「」, never "" or “” (code, math and HTML are not prose)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for n, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            words = prose("".join(cell["source"]))
            assert not re.search(r"[\"“”]", words), f"cell {n}: use 「」 quotes: {words[:300]}"


def test_clock_direction_links_to_the_convention_box():
    """03 says which way the hands turn and points to 04's 符号约定 box: a link to the cell the
    box's heading begins (test_anchors.py checks every such link)."""
    clock = (ROOT / "notebooks" / "03_clock_hands_frequencies.ipynb").read_text(encoding="utf-8")
    box = next(c for c in json.loads((ROOT / "notebooks" / "04_relative_position.ipynb").read_text(encoding="utf-8"))["cells"]
               if "".join(c["source"]).startswith("### 符号约定\n"))
    assert "顺时针" in clock and f"04_relative_position.ipynb#cell-id={box['id']}" in clock
    assert "<a id=" not in (ROOT / "notebooks" / "04_relative_position.ipynb").read_text(encoding="utf-8")


def test_the_rule_catches_what_it_should():
    assert offences("种子 001 的手算") and offences("见 seed 002") and offences("种子文章说")
    assert offences("图里的施事") and offences("拆半布局")
    assert not offences("固定随机种子 0") and not offences("咬人者在前后分半的表里")
