"""posenc/task/experiments.py: the extrapolation table (train short, test long) and its text."""
import pytest

import posenc_lib as pl
from support import EXTRAPOLATION_ROWS, SMALL, assert_refused_clearly

def test_extrapolation_table_structure():
    rows = pl.extrapolation_table(("learned", "rope"), train_lengths=(4, 6), test_lengths=(7, 8),
                                  n_per_length=8, **SMALL)
    labels = [r["label"] for r in rows]
    assert labels == ["none", "learned (max_len=6)", "learned (max_len=8)", "rope"]
    short = rows[1]
    assert short["by_length"] == {7: None, 8: None} and "max_len=6" in short["error"]
    assert "length 7 " in short["error"], "the error names the first length that failed"
    for r in rows[2:]:
        assert r["error"] is None and set(r["by_length"]) == {7, 8}
        assert all(0.0 <= v <= 1.0 for v in r["by_length"].values())


def test_length_accuracy_agrees_with_extrapolation_table_for_sinusoidal():
    rows = pl.extrapolation_table(pes=("sinusoidal",), include_none=False, test_lengths=(9, 11),
                                  n_per_length=128)
    mine = pl.length_accuracy(pl.trained_run("sinusoidal").model, (9, 11), n_per_length=128)
    assert rows[0]["by_length"] == mine


def test_format_extrapolation_table():
    text = pl.format_extrapolation_table(EXTRAPOLATION_ROWS)
    lines = text.splitlines()
    assert lines[0].split() == ["位置编码", "训练长度内", "9", "10"]
    assert lines[2].split() == ["rope", "1.00", "1.00", "1.00"]
    assert lines[3].split() == ["learned", "(max_len=8)", "1.00", "-", "-"]
    assert "sequence length 9 exceeds max_len=8" in text


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.extrapolation_table(("alibi", "t5")), ValueError, "pes must be one of"),
    (lambda: pl.format_extrapolation_table([]), ValueError, "rows"),
    (lambda: pl.format_extrapolation_table(5), TypeError, "rows"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
