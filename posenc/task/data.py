"""The 谁咬谁 (who bites whom) toy task: vocabulary, defaults and the dataset generator.

A sentence is ``[fillers] A 咬 B [fillers] 。``: two different animals with 咬 between
them, fillers (嗯, 啊) elsewhere, 。 last. The label is the biter A. That is the default
task, ``task="adjacent"``: the two animals always sit two tokens apart. In the variant
``task="anywhere"`` the biter, 咬 and the bitten sit at any three positions in that order,
with fillers between them (``[f] A [f] 咬 [f] B [f] 。``), so the distance the answer
depends on grows with the sentence. Datasets come in
mirror pairs (A咬B / B咬A with the same fillers: the same multiset of tokens), so a
permutation-invariant model scores at most exactly 1/2. The final 。 anchors the
sentence: ALiBi's bias -m|i-j| is symmetric, so without an anchor a bidirectional ALiBi
model cannot tell a sentence from its reversal (``terminator=False`` shows that).

torch is imported inside :func:`make_bite_dataset` only (the tensors it returns), so this
module loads without it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..validate import bilingual, check_bool, check_int, check_lengths, check_one_of

if TYPE_CHECKING:
    import torch

ANIMALS = ("猫", "狗", "鼠", "鸡", "牛", "羊", "兔", "马")
VERB = "咬"
FILLERS = ("嗯", "啊")
END = "。"
PAD = "<pad>"
VOCAB = (PAD, VERB, END) + FILLERS + ANIMALS
TOKEN_TO_ID = {tok: idx for idx, tok in enumerate(VOCAB)}
PAD_ID = TOKEN_TO_ID[PAD]
PE_KINDS = ("none", "sinusoidal", "learned", "rope", "alibi")
_ANIMAL_IDS = np.array([TOKEN_TO_ID[a] for a in ANIMALS])
_FILLER_IDS = np.array([TOKEN_TO_ID[f] for f in FILLERS])
_HOLDOUT_FRACTION = 0.2
_SPLITS = ("train", "test", "all")

# Model and training defaults shared by train_order_model and extrapolation_table: embedding
# (+ additive PE) -> 2 x [4-head attention + ReLU MLP, residual] -> masked mean -> LayerNorm ->
# linear, d_model 32; full batch of 256, Adam lr 1e-2, 100 steps, one thread, deterministic.
DEFAULT_TRAIN_LENGTHS = (4, 8)
DEFAULT_TEST_LENGTHS = (9, 16)
DEFAULT_STEPS = 100
DEFAULT_LR = 1e-2
DEFAULT_D_MODEL = 32
DEFAULT_NUM_HEADS = 4
DEFAULT_NUM_LAYERS = 2
DEFAULT_N_TRAIN = 256   # 512 gives the same accuracies (measured, seeds 0-2) at twice the time
DEFAULT_N_TEST = 1000
LEARNED_INIT_STD = 0.02   # like BERT; GPT-2 uses 0.01. Rows start near 0, so the heatmap shows what was learned
#: Longest sentence (tokens) the task builds (64: the context-extension tests of notebook 09
#: train up to 16 tokens and test at 2x and 4x that).
MAX_LENGTH = 64
#: The two variants of the task: the animals next to 咬 ("adjacent", notebooks 05, 07, 08), or
#: anywhere before and after it ("anywhere", notebook 09).
TASKS = ("adjacent", "anywhere")


@dataclass
class BiteDataset:
    """A batch of "A 咬 B" sentences as padded token ids.

    Attributes: ``tokens`` LongTensor [n, width] (PAD id 0 after the sentence),
    ``mask`` BoolTensor [n, width] (True on real tokens), ``labels`` LongTensor [n]
    (biter as an index into ANIMALS), ``lengths`` LongTensor [n], ``starts`` LongTensor [n]
    (position of the biter), ``sentences`` list of Chinese strings for display,
    ``verbs`` and ``bitten`` LongTensors [n] (positions of 咬 and of the bitten animal;
    ``starts + 1`` and ``starts + 2`` in the adjacent task), ``task`` the variant.
    Rows 2k and 2k+1 are mirrors (A and B swapped, same fillers).
    """

    tokens: torch.Tensor
    mask: torch.Tensor
    labels: torch.Tensor
    lengths: torch.Tensor
    starts: torch.Tensor
    sentences: list = field(repr=False)
    verbs: torch.Tensor | None = field(default=None, repr=False)
    bitten: torch.Tensor | None = field(default=None, repr=False)
    task: str = "adjacent"

    def __len__(self) -> int:
        return int(self.labels.shape[0])

    @property
    def width(self) -> int:
        """Padded sequence length (number of columns).
        """
        return int(self.tokens.shape[1])


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on uint64 arrays (wrapping arithmetic).
    """
    x = x.astype(np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return x


def _split_hash(task: str, a, b, length, pa, pv, pb, fill, terminator: bool) -> np.ndarray:
    """One splitmix64 hash per sentence pair of its unordered key: the same for a sentence
    and its mirror, and independent of the random seed.

    The key is built per task. "adjacent" (notebook 05): the unordered animal pair, the
    length, the biter's position and the fillers (as one base-2 number) packed into one
    integer, hashed once. "anywhere" (notebook 09): the pair, the length, the three
    positions and then every filler folded in one at a time, so sentences of any length up to
    MAX_LENGTH get a well-mixed, collision-free-in-practice hash.
    """
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    if task == "adjacent":
        filler_code = (fill * (len(FILLERS) ** np.arange(fill.shape[1]))[None, :]).sum(1)
        key = (((lo * 8 + hi) * 64 + length) * 64 + pa) * 2 + int(terminator)
        key = key.astype(np.uint64) * np.uint64(1 << 32) + filler_code.astype(np.uint64)
        return _mix64(key + np.uint64(0x9E3779B97F4A7C15))
    h = _mix64(np.uint64(0xA0761D6478BD642F) + np.uint64(2 + int(terminator)) + (lo * 8 + hi).astype(np.uint64))
    for part in (length, pa, pv, pb):
        h = _mix64(h ^ np.asarray(part).astype(np.uint64))
    with np.errstate(over="ignore"):
        for col in range(fill.shape[1]):
            h = _mix64(h + fill[:, col].astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15))
    return h


def _in_test_split(h: np.ndarray) -> np.ndarray:
    """A fixed fraction (``_HOLDOUT_FRACTION``) of keys, by their hash, is held out for testing."""
    return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53) < _HOLDOUT_FRACTION


def _draw_positions(rng, task: str, body: np.ndarray, hi: int):
    """Positions (biter, 咬, bitten) for m sentences with ``body`` tokens before the final 。.

    "adjacent": start uniform in 0 .. body-3, then start+1, start+2 (the draw notebooks 05
    and 07 have always used). "anywhere": three distinct positions uniform among all
    ``C(body, 3)`` choices, in increasing order.
    """
    m = len(body)
    if task == "adjacent":
        start = np.floor(rng.random(m) * (body - 2)).astype(np.int64)   # 0 .. body-3
        return start, start + 1, start + 2
    keys = rng.random((m, hi))
    keys[np.arange(hi)[None, :] >= body[:, None]] = np.inf             # only positions < body
    pos = np.sort(np.argsort(keys, axis=1)[:, :3], axis=1).astype(np.int64)
    return pos[:, 0], pos[:, 1], pos[:, 2]


def make_bite_dataset(n: int, lengths=DEFAULT_TRAIN_LENGTHS, seed: int = 0, animals=None, *,
                      split: str = "all", terminator: bool = True, task: str = "adjacent") -> BiteDataset:
    """Generate ``n`` sentences ``[fillers] A 咬 B [fillers] 。`` deterministically from ``seed``.

    ``n`` must be even: sentences come in mirror pairs (rows 2k, 2k+1 = A咬B / B咬A with the
    same fillers). Lengths (all tokens, including 咬 and the final 。) are drawn uniformly
    from ``lengths = (lo, hi)``; the position of "A咬B", the filler tokens and the unordered
    animal pair are drawn uniformly too. ``animals`` restricts the animals used (default: all
    of ANIMALS); labels are always indices into ANIMALS. ``split`` = "train" / "test" keeps
    only keys of that fixed hash split (so train and test never share a sentence or its
    mirror); "all" keeps every key. ``terminator=False`` drops the final 。 (anchor-free
    variant, see the module docstring). ``task="anywhere"`` puts the biter, 咬 and the
    bitten at three positions drawn uniformly (in that order) with fillers between them:
    ``[f] A [f] 咬 [f] B [f] 。`` (introduced in notebook 09_context_extension).
    """
    n = check_int("n", n, 2)
    if n % 2:
        raise ValueError(bilingual(f"n must be even (sentences come in mirror pairs), got {n}",
                                   "n 必须是偶数（句子成对出现：A咬B 与 B咬A）"))
    terminator = check_bool("terminator", terminator)
    task = check_one_of("task", task, TASKS)
    lo, hi = check_lengths("lengths", lengths, 4 if terminator else 3, MAX_LENGTH)
    seed = check_int("seed", seed, 0)
    split = check_one_of("split", split, _SPLITS)
    if animals is None:
        animals = ANIMALS
    if isinstance(animals, str):
        animals = tuple(animals)
    animals = tuple(animals)
    if len(animals) < 2 or len(set(animals)) != len(animals) or any(a not in ANIMALS for a in animals):
        raise ValueError(bilingual(f"animals must be at least 2 distinct animals from {ANIMALS}, got {animals!r}",
                                   f"animals 必须是 {ANIMALS} 中至少两个不同的动物"))
    animal_idx = np.array([ANIMALS.index(a) for a in animals])

    rng = np.random.default_rng(seed)
    n_pairs = n // 2
    end_extra = 1 if terminator else 0
    width = hi
    max_fill = hi - 3 - end_extra
    chosen = {k: [] for k in ("a", "b", "length", "pa", "pv", "pb", "fill", "flip")}
    total = 0
    for _ in range(1000):
        m = max(64, 2 * (n_pairs - total) + 16)
        length = rng.integers(lo, hi + 1, size=m)
        body = length - end_extra                     # tokens before the final 。
        pa, pv, pb = _draw_positions(rng, task, body, hi)
        ia = rng.integers(0, len(animals), size=m)
        ib = rng.integers(0, len(animals) - 1, size=m)
        ib = ib + (ib >= ia)
        a, b = animal_idx[ia], animal_idx[ib]
        fill = rng.integers(0, len(FILLERS), size=(m, max(max_fill, 1)))
        n_fill = body - 3
        fill = np.where(np.arange(fill.shape[1])[None, :] < n_fill[:, None], fill, 0)
        flip = rng.random(m) < 0.5                    # which orientation comes first
        if split == "all":
            keep = np.ones(m, dtype=bool)
        else:
            is_test = _in_test_split(_split_hash(task, a, b, length, pa, pv, pb, fill, terminator))
            keep = is_test if split == "test" else ~is_test
        idx = np.flatnonzero(keep)[: n_pairs - total]
        for k, v in (("a", a), ("b", b), ("length", length), ("pa", pa), ("pv", pv), ("pb", pb),
                     ("fill", fill), ("flip", flip)):
            chosen[k].append(v[idx])
        total += len(idx)
        if total == n_pairs:
            break
    else:  # only when the split has (almost) no keys, e.g. 2 animals at one short length
        raise ValueError(bilingual(f"could not draw {n_pairs} sentence pairs for split={split!r}, lengths={lengths!r}, "
                                   f"animals={animals!r}: too few possible sentences; widen lengths or use split='all'",
                                   "可用句子太少，请放宽 lengths 或使用 split='all'"))
    c = {k: np.concatenate(v) for k, v in chosen.items()}

    tokens = np.full((n, width), PAD_ID, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    starts = np.empty(n, dtype=np.int64)
    verbs = np.empty(n, dtype=np.int64)
    bitten = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    for p in range(n_pairs):
        length, pa, pv, pb = (int(c[k][p]) for k in ("length", "pa", "pv", "pb"))
        body = length - end_extra
        row = []
        fill_iter = iter(c["fill"][p])
        for pos in range(body):
            if pos == pv:
                row.append(TOKEN_TO_ID[VERB])
            elif pos in (pa, pb):
                row.append(-1)                        # animal slot, filled below
            else:
                row.append(int(_FILLER_IDS[next(fill_iter)]))
        if terminator:
            row.append(TOKEN_TO_ID[END])
        a, b = int(c["a"][p]), int(c["b"][p])
        orders = ((a, b), (b, a)) if not c["flip"][p] else ((b, a), (a, b))
        for r, (biter, victim) in enumerate(orders):
            i = 2 * p + r
            full = list(row)
            full[pa] = int(_ANIMAL_IDS[biter])
            full[pb] = int(_ANIMAL_IDS[victim])
            tokens[i, :length] = full
            labels[i], starts[i], lens[i] = biter, pa, length
            verbs[i], bitten[i] = pv, pb
    import torch

    sentences = ["".join(VOCAB[t] for t in row if t != PAD_ID) for row in tokens]
    tokens_t = torch.from_numpy(tokens)
    return BiteDataset(tokens=tokens_t, mask=tokens_t != PAD_ID,
                       labels=torch.from_numpy(labels), lengths=torch.from_numpy(lens),
                       starts=torch.from_numpy(starts), sentences=sentences,
                       verbs=torch.from_numpy(verbs), bitten=torch.from_numpy(bitten), task=task)
