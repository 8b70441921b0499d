"""Training the 谁咬谁 model: deterministic full-batch Adam, memoised runs, and counts of
what a learned position table trains.

torch is imported inside the functions (``import posenc_lib`` stays torch-free).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from collections.abc import Callable

from ..context import check_rope_type
from ..slow import takes_seconds
from ..validate import bilingual, check_bool, check_callback, check_int, check_lengths, check_one_of, check_real
from .data import (
    ANIMALS,
    DEFAULT_D_MODEL,
    DEFAULT_LR,
    DEFAULT_N_TEST,
    DEFAULT_N_TRAIN,
    DEFAULT_NUM_HEADS,
    DEFAULT_NUM_LAYERS,
    DEFAULT_STEPS,
    DEFAULT_TRAIN_LENGTHS,
    MAX_LENGTH,
    PE_KINDS,
    TASKS,
    VOCAB,
    make_bite_dataset,
)
from .evaluation import deterministic_torch, evaluate


@dataclass
class TrainResult:
    """Outcome of :func:`train_order_model`.

    ``model`` (eval mode), ``losses`` (one float per step), ``train_accuracy``,
    ``test_accuracy`` (held-out keys, train lengths), ``seconds`` (wall time of the
    optimisation loop), ``snapshots`` (list of (step, learned table as numpy array),
    only for pe="learned" with snapshot_every), ``config`` (the arguments used).
    """

    model: object  # an OrderModel
    losses: list
    train_accuracy: float
    test_accuracy: float
    seconds: float
    snapshots: list
    config: dict


@takes_seconds
def train_order_model(pe: str, *, steps: int = DEFAULT_STEPS, seed: int = 0,
                      d_model: int = DEFAULT_D_MODEL, num_heads: int = DEFAULT_NUM_HEADS,
                      train_lengths=DEFAULT_TRAIN_LENGTHS, max_len: int | None = None,
                      lr: float = DEFAULT_LR, n_train: int = DEFAULT_N_TRAIN,
                      n_test: int = DEFAULT_N_TEST, base: float = 10000.0,
                      terminator: bool = True, num_threads: int = 1, num_layers: int = DEFAULT_NUM_LAYERS,
                      snapshot_every: int | None = None,
                      callback: Callable[[int, float], None] | None = None,
                      callback_every: int = 10, task: str = "adjacent", causal: bool = False) -> TrainResult:
    """Train an :class:`OrderModel` on the X 咬 Y task, full batch, Adam, deterministic.

    Train / test sets: ``make_bite_dataset`` with ``split="train"`` / ``"test"`` (disjoint
    keys) at ``train_lengths``. ``max_len`` (rows of the learned table) defaults to the
    longest training sentence. The global torch RNG, thread count and determinism flag are
    restored afterwards. ``callback(step, loss)`` is called every ``callback_every`` steps
    and after the last step (step counts from 1). With ``pe="learned"`` and
    ``snapshot_every``, the table is copied at step 0, every ``snapshot_every`` steps and
    at the end. ``task`` picks the variant of the sentences ("adjacent" or "anywhere", see
    :func:`make_bite_dataset`) and ``causal=True`` gives the model a causal mask (both
    introduced in notebook 09_context_extension).
    """
    pe = check_one_of("pe", pe, PE_KINDS)
    task = check_one_of("task", task, TASKS)
    causal = check_bool("causal", causal)
    steps = check_int("steps", steps, 1)
    seed = check_int("seed", seed, 0)
    lo, hi = check_lengths("train_lengths", train_lengths, 4 if terminator else 3, MAX_LENGTH)
    max_len = hi if max_len is None else check_int("max_len", max_len, 1)
    if pe == "learned" and max_len < hi:
        raise ValueError(bilingual(f"max_len ({max_len}) must be >= the longest training sentence ({hi})",
                                   f"max_len 不能小于最长训练句子长度 {hi}"))
    lr = check_real("lr", lr, greater_than=0.0)
    if lr >= 1:
        raise ValueError(bilingual(f"lr must be in (0, 1), got {lr:g}", "lr 必须在 (0, 1) 之间"))
    num_threads = check_int("num_threads", num_threads, 1)
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        if check_int(name, value, 2) % 2:
            raise ValueError(bilingual(f"{name} must be even (mirror pairs), got {value}", f"{name} 必须是偶数"))
    callback_every = check_int("callback_every", callback_every, 1)
    if snapshot_every is not None:
        snapshot_every = check_int("snapshot_every", snapshot_every, 1)
    check_callback("callback", callback, "(step, loss)")
    config = dict(pe=pe, steps=steps, seed=seed, d_model=d_model, num_heads=num_heads,
                  train_lengths=(lo, hi), max_len=max_len, lr=lr, n_train=n_train,
                  n_test=n_test, base=base, terminator=terminator, num_threads=num_threads,
                  num_layers=num_layers, task=task, causal=causal)

    import torch

    from .model import OrderModel

    train = make_bite_dataset(n_train, (lo, hi), seed, split="train", terminator=terminator, task=task)
    test = make_bite_dataset(n_test, (lo, hi), seed + 1, split="test", terminator=terminator, task=task)

    with deterministic_torch(num_threads), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = OrderModel(len(VOCAB), len(ANIMALS), d_model=d_model, num_heads=num_heads,
                           pe=pe, max_len=max_len, base=base,
                           num_layers=num_layers, causal=causal)
        snapshots = []
        take_snapshots = pe == "learned" and snapshot_every is not None
        if take_snapshots:
            snapshots.append((0, model.pos_emb.weight.detach().numpy().copy()))

        def after_step(step: int, loss: float) -> None:
            if take_snapshots and (step % snapshot_every == 0 or step == steps):
                snapshots.append((step, model.pos_emb.weight.detach().numpy().copy()))
            if callback is not None and (step % callback_every == 0 or step == steps):
                callback(step, loss)

        result = _fit(model, train, test, steps=steps, lr=lr, after_step=after_step)
    result.snapshots, result.config = snapshots, config
    return result


def _fit(model, train, test, *, steps: int, lr: float, after_step=None) -> TrainResult:
    """The training loop of :func:`train_order_model` and :func:`finetune_order_model`.

    ``steps`` full-batch Adam steps (learning rate ``lr``, no weight decay: rows of a learned
    table that no sentence reaches stay put) on ``train``, calling ``after_step(step, loss)``
    after each (step counts from 1); then the model in eval mode and its accuracy on ``train``
    and ``test``. The caller holds the determinism and RNG context.
    """
    import torch
    from torch import nn

    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    model.train()
    t0 = time.perf_counter()
    for step in range(1, steps + 1):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(train.tokens, train.mask), train.labels)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        if after_step is not None:
            after_step(step, losses[-1])
    seconds = time.perf_counter() - t0
    model.eval()
    return TrainResult(model=model, losses=losses, train_accuracy=evaluate(model, train),
                       test_accuracy=evaluate(model, test), seconds=seconds, snapshots=[], config={})


#: Steps between the table snapshots of a memoised learned run (the ``learned`` slider's step).
LEARNED_SNAPSHOT_EVERY = 5


@functools.lru_cache(maxsize=64)
def _trained_run(pe: str, seed: int, steps: int, max_len, task: str = "adjacent", train_lengths=None,
                 causal: bool = False, extra: tuple = ()):
    every = LEARNED_SNAPSHOT_EVERY if pe == "learned" else None
    kwargs = dict(extra)
    if task != "adjacent":
        kwargs["task"] = task
    if train_lengths is not None:
        kwargs["train_lengths"] = train_lengths
    if causal:
        kwargs["causal"] = True
    return train_order_model(pe, seed=seed, steps=steps, max_len=max_len, snapshot_every=every, **kwargs)


#: Keyword arguments of train_order_model that trained_run passes through (and memoises on).
_RUN_OPTIONS = ("d_model", "num_heads", "num_layers", "base", "lr", "n_train")


@takes_seconds(memoised=True)
def trained_run(pe: str, *, seed: int = 0, steps: int | None = None, max_len: int | None = None,
                task: str = "adjacent", train_lengths=None, causal: bool = False, **options):
    """Memoised :func:`train_order_model` on the default task (train lengths 4-8).

    The first call with given arguments trains (about a second); later calls return the
    same :class:`TrainResult`, so every section of a notebook (and the ``learned`` explorer)
    can ask for a run without carrying notebook state around. A learned run keeps a
    snapshot of its table every ``LEARNED_SNAPSHOT_EVERY`` steps. ``steps`` defaults to
    ``DEFAULT_STEPS``; ``max_len`` (rows of the learned table) only matters for
    ``pe="learned"`` and defaults to the longest training sentence. Treat the result as
    read-only. ``extrapolation_table`` uses it too, so its default runs are shared.

    ``task``, ``train_lengths`` (default ``DEFAULT_TRAIN_LENGTHS``), ``causal`` and the
    ``options`` ``d_model``, ``num_heads``, ``num_layers``, ``base``, ``lr``, ``n_train`` are
    passed on to :func:`train_order_model` and are part of the memo key (introduced in
    notebook 09_context_extension).
    """
    pe = check_one_of("pe", pe, PE_KINDS)
    seed = check_int("seed", seed, 0)
    task = check_one_of("task", task, TASKS)
    steps = DEFAULT_STEPS if steps is None else check_int("steps", steps, 1, 10000)
    unknown = sorted(set(options) - set(_RUN_OPTIONS))
    if unknown:
        raise TypeError(bilingual(f"trained_run got unexpected options {unknown}; allowed: {_RUN_OPTIONS}",
                                  f"trained_run 不认识这些参数：{unknown}"))
    causal = check_bool("causal", causal)
    lengths = None
    if train_lengths is not None:
        lengths = check_lengths("train_lengths", train_lengths, 4, MAX_LENGTH)
        if lengths == tuple(DEFAULT_TRAIN_LENGTHS):
            lengths = None
    hi = DEFAULT_TRAIN_LENGTHS[1] if lengths is None else lengths[1]
    if pe != "learned" or max_len is None:
        max_len = hi if pe == "learned" else None
    else:
        max_len = check_int("max_len", max_len, hi, 4096)
    extra = tuple(sorted(options.items()))
    if task == "adjacent" and lengths is None and not causal and not extra:
        return _trained_run(pe, seed, steps, max_len)      # the runs notebooks 05 and 07 share
    return _trained_run(pe, seed, steps, max_len, task, lengths, causal, extra)


def rows_with_gradient(train_lengths=(4, 8), max_len: int = 16, *, seed: int = 0) -> int:
    """How many rows of a learned position table get a nonzero gradient from training data.

    Builds an ``OrderModel(pe="learned", max_len=max_len)``, runs one forward and backward
    pass on a batch of training sentences with ``train_lengths`` and counts the rows of the
    table whose gradient is not all zero. Rows for positions no training sentence reaches
    get none: training never moves them.
    The answer :func:`check_rows_with_gradient` checks (notebook 05_learned_embeddings).
    """
    lo, hi = check_lengths("train_lengths", train_lengths, 4, MAX_LENGTH)
    max_len = check_int("max_len", max_len, hi, 4096)
    seed = check_int("seed", seed, 0)
    import torch

    from .model import OrderModel

    data = make_bite_dataset(DEFAULT_N_TRAIN, (lo, hi), seed, split="train")
    with deterministic_torch(1), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = OrderModel(len(VOCAB), len(ANIMALS), pe="learned", max_len=max_len)
        loss = torch.nn.functional.cross_entropy(model(data.tokens, data.mask), data.labels)
        loss.backward()
    grad = model.pos_emb.weight.grad
    return int((grad.abs().sum(dim=1) > 0).sum())


def position_table_parameters(max_len: int, d_model: int) -> int:
    """Trainable parameters of a learned position table ``nn.Embedding(max_len, d_model)``.

    Counted from a real torch module built on the "meta" device (no memory allocated), so
    GPT-2's 1024 x 768 table costs nothing to count.
    """
    max_len = check_int("max_len", max_len, 1, 10**9)
    d_model = check_int("d_model", d_model, 1, 10**6)
    import torch

    table = torch.nn.Embedding(max_len, d_model, device="meta")
    return int(sum(p.numel() for p in table.parameters() if p.requires_grad))


@takes_seconds
def finetune_order_model(run, *, lengths, steps: int = 20, lr: float = 1e-3, seed: int = 0,
                         task: str = "adjacent", rope_type: str = "default", factor: float = 1.0,
                         train_len: int | None = None, n_train: int = DEFAULT_N_TRAIN,
                         n_test: int = DEFAULT_N_TEST, num_threads: int = 1) -> TrainResult:
    """A few more training steps for a trained model, on sentences of ``lengths``, with RoPE scaling on.

    ``run`` is a :class:`TrainResult` (or an ``OrderModel``); it is not changed: a copy is
    trained. With ``rope_type`` other than "default" the copy first gets
    ``set_rope_scaling(rope_type, factor, train_len)`` and keeps it: position
    interpolation's recipe is "rescale, then fine-tune briefly at the new length". Full-batch
    Adam (``lr``), deterministic; the training sentences are
    ``make_bite_dataset(n_train, lengths, seed + 500, split="train", task=task)``, the
    held-out ones ``split="test"`` with ``seed + 501``.
    Used by ``context_extension_table(finetune_steps=...)`` (notebook 09_context_extension).
    """
    import copy

    import torch

    model = getattr(run, "model", run)
    if not hasattr(model, "set_rope_scaling"):
        raise ValueError(bilingual("run must be a TrainResult or an OrderModel", "run 必须是 TrainResult 或 OrderModel"))
    steps = check_int("steps", steps, 0, 10000)
    lr = check_real("lr", lr, greater_than=0.0)
    seed = check_int("seed", seed, 0)
    task = check_one_of("task", task, TASKS)
    lo, hi = check_lengths("lengths", lengths, 4, MAX_LENGTH)
    num_threads = check_int("num_threads", num_threads, 1)
    train = make_bite_dataset(n_train, (lo, hi), seed + 500, split="train", task=task)
    test = make_bite_dataset(n_test, (lo, hi), seed + 501, split="test", task=task)
    model = copy.deepcopy(model)
    rope_type = check_rope_type(rope_type)
    if rope_type != "default":
        model.set_rope_scaling(rope_type, factor, train_len)
    config = dict(finetune_of=getattr(run, "config", None), lengths=(lo, hi), steps=steps, lr=lr, seed=seed,
                  task=task, rope_type=rope_type, factor=factor, train_len=train_len)
    with deterministic_torch(num_threads), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        result = _fit(model, train, test, steps=steps, lr=lr)
    result.config = config
    return result
