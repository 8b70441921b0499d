"""Experiments across encodings: train on short sentences, test on longer ones.

Introduced in notebook 08_alibi_extrapolation.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..text import _aligned_table
from ..validate import _check_int
from .data import DEFAULT_TEST_LENGTHS, DEFAULT_TRAIN_LENGTHS, _check_lengths, _check_pe
from .evaluation import _accuracies_at_lengths
from .training import train_order_model, trained_run


def extrapolation_table(pes: Sequence[str] = ("sinusoidal", "learned", "rope", "alibi"),
                        train_lengths=DEFAULT_TRAIN_LENGTHS, test_lengths=DEFAULT_TEST_LENGTHS, *,
                        seed: int = 0, n_per_length: int = 512, include_none: bool = True,
                        learned_max_lens: Sequence[int] | None = None,
                        callback: Callable[[str, int], None] | None = None, **train_kwargs) -> list:
    """Train on ``train_lengths``, test at each length in ``test_lengths``.

    Returns a list of row dicts ``{"label", "pe", "max_len", "in_distribution", "by_length",
    "error"}``; ``by_length`` maps each test length to an accuracy (None where the model
    cannot run). "learned" gives two rows: max_len = longest training sentence (cannot index
    longer inputs: ``error`` holds the PositionLimitError text) and max_len = longest test sentence
    (rows past the training lengths exist but were never trained). ``include_none`` adds
    the pe="none" reference. ``callback(label, index)`` is called before each model trains.
    Introduced in notebook 08_alibi_extrapolation.
    """
    pes = tuple(pes)
    for p in pes:
        _check_pe(p)
    terminator = train_kwargs.get("terminator", True)
    lo, hi = _check_lengths("train_lengths", train_lengths, 4 if terminator else 3)
    tlo, thi = _check_lengths("test_lengths", test_lengths, 4 if terminator else 3)
    seed = _check_int("seed", seed, 0)
    if learned_max_lens is None:
        learned_max_lens = (hi, max(hi, thi))
    plan = [("none", None)] if include_none and "none" not in pes else []
    for p in pes:
        if p == "learned":
            plan += [("learned", int(m)) for m in learned_max_lens]
        else:
            plan.append((p, None))
    rows = []
    for index, (p, max_len) in enumerate(plan):
        label = p if max_len is None else f"learned (max_len={max_len})"
        if callback is not None:
            callback(label, index)
        if not train_kwargs and (lo, hi) == tuple(DEFAULT_TRAIN_LENGTHS):
            res = trained_run(p, seed=seed, max_len=max_len)  # memoised, identical to training anew
        else:
            res = train_order_model(p, seed=seed, train_lengths=(lo, hi), max_len=max_len, **train_kwargs)
        by_length, error = _accuracies_at_lengths(res.model, range(tlo, thi + 1), seed=seed,
                                                 n_per_length=n_per_length, terminator=terminator)
        rows.append(dict(label=label, pe=p, max_len=res.config["max_len"],
                         in_distribution=res.test_accuracy, by_length=by_length, error=error))
    return rows


def _check_rows(rows) -> list:
    """The rows of :func:`extrapolation_table` (a non-empty list of row dicts)."""
    try:
        rows = list(rows)
    except TypeError:
        raise TypeError("rows must be the list returned by extrapolation_table / rows 必须是 "
                        "extrapolation_table 返回的列表") from None
    if not rows or not all(isinstance(r, dict) and {"label", "in_distribution", "by_length"} <= set(r)
                           for r in rows):
        raise ValueError("rows must be the non-empty list returned by extrapolation_table / rows 必须是 "
                         "extrapolation_table 返回的非空列表")
    return rows


def format_extrapolation_table(rows, decimals: int = 2) -> str:
    """The rows of :func:`extrapolation_table` as an aligned text table, labelled in Chinese.

    One line per model (column 「位置编码」): accuracy on held-out sentences of the training
    lengths (column 「训练长度内」), then one column per test length (number of tokens);
    ``-`` where the model cannot run, with the reason (the Chinese half of the error) below.
    Introduced in notebook 08_alibi_extrapolation.
    """
    rows = _check_rows(rows)
    decimals = _check_int("decimals", decimals, 0, 6)
    lengths = sorted({L for r in rows for L in r["by_length"]})
    head = ["位置编码", "训练长度内"] + [str(L) for L in lengths]
    body = []
    for r in rows:
        cells = [r["label"], f"{r['in_distribution']:.{decimals}f}"]
        cells += ["-" if r["by_length"].get(L) is None else f"{r['by_length'][L]:.{decimals}f}"
                  for L in lengths]
        body.append(cells)
    lines = _aligned_table(head, body, right=range(1, len(head)))
    notes = [f"- {r['label']}：{_chinese_part(r['error'])}" for r in rows if r.get("error")]
    if notes:
        lines += ["", "「-」= 这个模型在该长度上无法运行："] + notes
    return "\n".join(lines)


def _chinese_part(message: str) -> str:
    """The Chinese half of a bilingual ``"English / 中文"`` error message (all of it otherwise)."""
    text = str(message)
    return text.split(" / ", 1)[1].strip() if " / " in text else text
