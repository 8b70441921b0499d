"""Experiments across encodings: train on short sentences, test on longer ones.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..context import ROPE_TYPES, check_rope_type, rope_frequencies
from ..slow import takes_seconds
from ..text import aligned_table
from ..validate import bilingual, check_callback, check_int, check_lengths, check_one_of, check_rows
from .data import (
    DEFAULT_TEST_LENGTHS,
    DEFAULT_TRAIN_LENGTHS,
    MAX_LENGTH,
    PE_KINDS,
    TASKS,
)
from .evaluation import accuracies_at_lengths
from .training import finetune_order_model, train_order_model, trained_run


@takes_seconds
def extrapolation_table(pes: Sequence[str] = ("sinusoidal", "learned", "rope", "alibi"),
                        train_lengths=DEFAULT_TRAIN_LENGTHS, test_lengths=DEFAULT_TEST_LENGTHS, *,
                        seed: int = 0, n_per_length: int = 512, include_none: bool = True,
                        learned_max_lens: Sequence[int] | None = None,
                        callback: Callable[[str, int], None] | None = None, task: str = "adjacent",
                        **train_kwargs) -> list:
    """Train on ``train_lengths``, test at each length in ``test_lengths``.

    Returns a list of row dicts ``{"label", "pe", "max_len", "in_distribution", "by_length",
    "error"}``; ``by_length`` maps each test length to an accuracy (None where the model
    cannot run). "learned" gives two rows: max_len = longest training sentence (cannot index
    longer inputs: ``error`` holds the PositionLimitError text) and max_len = longest test sentence
    (rows past the training lengths exist but were never trained). ``include_none`` adds
    the pe="none" reference. ``callback(label, index)`` is called before each model trains.
    ``task`` picks the variant of the sentences, for training and testing ("adjacent" or
    "anywhere", see :func:`make_bite_dataset`; introduced in notebook 09_context_extension).
    """
    pes = tuple(pes)
    task = check_one_of("task", task, TASKS)
    for p in pes:
        check_one_of("pes", p, PE_KINDS)
    terminator = train_kwargs.get("terminator", True)
    lo, hi = check_lengths("train_lengths", train_lengths, 4 if terminator else 3, MAX_LENGTH)
    tlo, thi = check_lengths("test_lengths", test_lengths, 4 if terminator else 3, MAX_LENGTH)
    seed = check_int("seed", seed, 0)
    check_callback("callback", callback, "(label, index)")
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
            res = trained_run(p, seed=seed, max_len=max_len, task=task)  # memoised, identical to training anew
        else:
            res = train_order_model(p, seed=seed, train_lengths=(lo, hi), max_len=max_len, task=task,
                                    **train_kwargs)
        by_length, error = accuracies_at_lengths(res.model, range(tlo, thi + 1), seed=seed,
                                                 n_per_length=n_per_length, terminator=terminator, task=task)
        rows.append(dict(label=label, pe=p, max_len=res.config["max_len"], task=task,
                         in_distribution=res.test_accuracy, by_length=by_length, error=error))
    return rows


#: What a row of :func:`extrapolation_table` must have (its formatter and its plot read these).
EXTRAPOLATION_ROW_KEYS = ("label", "in_distribution", "by_length")


def format_extrapolation_table(rows, decimals: int = 2) -> str:
    """The rows of :func:`extrapolation_table` as an aligned text table, labelled in Chinese.

    One line per model (column 「位置编码」): accuracy on held-out sentences of the training
    lengths (column 「训练长度内」), then one column per test length (number of tokens);
    ``-`` where the model cannot run, with the reason (the Chinese half of the error) below.
    """
    rows = check_rows(rows, EXTRAPOLATION_ROW_KEYS, "extrapolation_table")
    decimals = check_int("decimals", decimals, 0, 6)
    lengths = sorted({L for r in rows for L in r["by_length"]})
    head = ["位置编码", "训练长度内"] + [str(L) for L in lengths]
    body = []
    for r in rows:
        cells = [r["label"], f"{r['in_distribution']:.{decimals}f}"]
        cells += ["-" if r["by_length"].get(L) is None else f"{r['by_length'][L]:.{decimals}f}"
                  for L in lengths]
        body.append(cells)
    lines = aligned_table(head, body, right=range(1, len(head)))
    notes = [f"- {r['label']}：{_chinese_part(r['error'])}" for r in rows if r.get("error")]
    if notes:
        lines += ["", "「-」= 这个模型在该长度上无法运行："] + notes
    return "\n".join(lines)


def _chinese_part(message: str) -> str:
    """The Chinese half of a bilingual ``"English / 中文"`` error message (all of it otherwise)."""
    text = str(message)
    return text.split(" / ", 1)[1].strip() if " / " in text else text


#: How the context-extension table names each rope_type.
ROPE_TYPE_LABELS = {"default": "不缩放 (default)", "linear": "PI (linear)", "ntk": "NTK-aware", "yarn": "YaRN"}
#: Training lengths of the context-extension experiment (notebook 09): the anywhere task,
#: sentences of 8 to 16 tokens, so 2x and 4x are 32 and 64 (MAX_LENGTH).
CONTEXT_TRAIN_LENGTHS = (8, 16)


@takes_seconds
def context_extension_table(rope_types: Sequence[str] = ROPE_TYPES, factors: Sequence[int] = (2, 4),
                            train_lengths=CONTEXT_TRAIN_LENGTHS, *, task: str = "anywhere", seed: int = 0,
                            n_per_length: int = 512, finetune_steps: int = 0, finetune_lr: float = 1e-3,
                            finetune_n_train: int = 128, callback: Callable[[str, int], None] | None = None, **train_kwargs) -> list:
    """Train RoPE on short sentences once, then test at ``factor`` x the longest one with each scaling.

    One RoPE model is trained (:func:`trained_run`, memoised) on ``task`` at ``train_lengths``
    = (lo, L). For every rope_type and every factor s the same weights are tested, without
    retraining, at the training length L and at the target length s·L, with
    ``set_rope_scaling(rope_type, s, train_len=L)``. With ``finetune_steps > 0`` each
    (rope_type, s) instead gets a copy fine-tuned for that many steps on sentences of L+1 .. s·L
    tokens with the scaling on (:func:`finetune_order_model`, ``finetune_lr``, ``finetune_n_train``
    sentences), then tested the same way.

    Returns one row per rope_type: ``{"rope_type", "label", "finetune_steps", "train_lengths", "in_distribution",
    "by_factor": {s: {"train_len": accuracy at L, "target": accuracy at s·L}},
    "attention_factor": {s: ...}, "seconds": {s: fine-tuning seconds}}``.
    ``callback(label, index)`` is called before the model is trained (index 0) and before each
    (rope_type, s) is tested or fine-tuned (index 1 .. len(rope_types)·len(factors)).
    """
    rope_types = tuple(check_rope_type(m, ROPE_TYPES) for m in rope_types)
    task = check_one_of("task", task, TASKS)
    lo, hi = check_lengths("train_lengths", train_lengths, 4, MAX_LENGTH)
    seed = check_int("seed", seed, 0)
    check_callback("callback", callback, "(label, index)")
    finetune_steps = check_int("finetune_steps", finetune_steps, 0, 10000)
    factors = tuple(check_int("factors", f, 1, MAX_LENGTH // hi) for f in factors)
    if not rope_types or not factors:
        raise ValueError(bilingual("rope_types and factors must not be empty", "rope_types 和 factors 不能为空"))
    if callback is not None:
        callback("rope", 0)
    run = trained_run("rope", seed=seed, task=task, train_lengths=(lo, hi), **train_kwargs)
    head_dim = run.model.head_dim
    rows, index = [], 1
    for rope_type in rope_types:
        row = dict(rope_type=rope_type, label=ROPE_TYPE_LABELS[rope_type], finetune_steps=finetune_steps,
                   train_lengths=(lo, hi), in_distribution=run.test_accuracy, by_factor={},
                   attention_factor={}, seconds={})
        for s in factors:
            row["attention_factor"][s] = rope_frequencies(head_dim, run.model.base, rope_type, s, hi)[1]
            if callback is not None:
                callback(f"{rope_type}, s = {s}", index)
            index += 1
            if finetune_steps:
                tuned = finetune_order_model(run, lengths=(min(hi + 1, s * hi), s * hi), steps=finetune_steps,
                                             lr=finetune_lr, seed=seed, task=task, rope_type=rope_type, factor=s,
                                             train_len=hi, n_train=finetune_n_train)
                model, row["seconds"][s] = tuned.model, tuned.seconds
                accs, _ = accuracies_at_lengths(model, sorted({hi, s * hi}), seed=seed,
                                                 n_per_length=n_per_length, task=task)
            else:
                model = run.model
                with model.rope_scaling(rope_type, s, hi):
                    accs, _ = accuracies_at_lengths(model, sorted({hi, s * hi}), seed=seed,
                                                     n_per_length=n_per_length, task=task)
            row["by_factor"][s] = {"train_len": accs[hi], "target": accs[s * hi]}
        rows.append(row)
    return rows


def format_context_table(rows, decimals: int = 2) -> str:
    """The rows of :func:`context_extension_table` as an aligned text table (Chinese headers).

    One line per rope_type; for each factor s, the accuracy at the training length L and at s·L.
    """
    rows = check_rows(rows, ("label", "by_factor"), "context_extension_table")
    decimals = check_int("decimals", decimals, 0, 6)
    factors = sorted({s for r in rows for s in r["by_factor"]})
    hi = rows[0].get("train_lengths", (None, None))[1]
    head = ["方法"]
    for s in factors:
        head += [f"ρ={s}：长度 {hi}", f"ρ={s}：长度 {s * hi}"] if hi else [f"ρ={s}：训练长度", f"ρ={s}：{s} 倍长度"]
    body = []
    for r in rows:
        cells = [r["label"]]
        for s in factors:
            got = r["by_factor"].get(s)
            cells += ["-", "-"] if got is None else [f"{got['train_len']:.{decimals}f}", f"{got['target']:.{decimals}f}"]
        body.append(cells)
    return "\n".join(aligned_table(head, body, right=range(1, len(head))))
