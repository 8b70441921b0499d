"""Reader-facing text of notebooks 01-03 follows the course conventions (CONVENTIONS.md):
no pointer to a source the reader does not have, 「」 quotes in prose, the agreed words."""
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = [ROOT / "notebooks" / name for name in (
    "01_permutation_invariance.ipynb", "02_sinusoidal_hand_calculation.ipynb",
    "03_clock_hands_frequencies.ipynb")]


def cells(path, kind):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


def prose(markdown: str) -> str:
    """Markdown without code spans, code blocks, math and HTML tags: the sentences a reader reads."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\$[^$]*\$", " ", text)
    return re.sub(r"<[^>]+>", " ", text)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_hidden_sources(path):
    for text in cells(path, "markdown") + cells(path, "code"):
        assert not re.search(r"(?<!随机)种子", text), text[:200]
        assert not re.search(r"seed 00|seed00|the article", text, re.I), text[:200]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_prose_quotes_and_words(path):
    for text in cells(path, "markdown"):
        words = prose(text)
        assert not re.search(r"[\"“”]", words), f"use 「」 quotes: {words[:300]}"
        assert "拆半" not in text, "the split layout is 前后分半 (split)"
        assert "施事" not in text, "the biter is 咬人者"


def test_clock_direction_links_to_the_convention_box():
    text = "\n".join(cells(NOTEBOOKS[2], "markdown"))
    assert "顺时针" in text
    assert "04_relative_position.ipynb#符号约定" in text
