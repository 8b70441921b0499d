"""The X 咬 Y toy task, OrderModel and the training loop (notebooks 05 and 07)."""

import math

import numpy as np
import pytest
import torch

import posenc_lib as T

SMALL = dict(steps=20, n_train=64, n_test=64)   # for structure tests, not accuracy


# ---------------------------------------------------------------------------
# Trained models, shared by several tests (one default run per pe)
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def trained():
    return {pe: T.train_order_model(pe, seed=0) for pe in T.PE_KINDS}


# ---------------------------------------------------------------------------
# Dataset
# ---------------------------------------------------------------------------

def test_dataset_shapes_and_format():
    ds = T.make_bite_dataset(40, lengths=(4, 8), seed=3)
    assert ds.tokens.shape == (40, 8) and ds.mask.shape == (40, 8)
    assert ds.tokens.dtype == torch.long and ds.mask.dtype == torch.bool
    assert len(ds) == 40 and len(ds.sentences) == 40
    for i, s in enumerate(ds.sentences):
        length = int(ds.lengths[i])
        assert len(s) == length == int(ds.mask[i].sum())
        assert s.endswith("。") and s.count("咬") == 1
        start = int(ds.starts[i])
        assert s[start + 1] == "咬"
        assert T.ANIMALS[int(ds.labels[i])] == s[start]          # label = the biter
        assert s[start] != s[start + 2]
        assert (ds.tokens[i, length:] == T.TOKEN_TO_ID[T.PAD]).all()


def test_dataset_is_deterministic_and_seed_dependent():
    a = T.make_bite_dataset(64, seed=5)
    b = T.make_bite_dataset(64, seed=5)
    c = T.make_bite_dataset(64, seed=6)
    assert torch.equal(a.tokens, b.tokens) and a.sentences == b.sentences
    assert not torch.equal(a.tokens, c.tokens)


def test_mirror_pairs_are_same_multiset_with_other_label():
    ds = T.make_bite_dataset(100, seed=1)
    for k in range(0, 100, 2):
        s, t = ds.sentences[k], ds.sentences[k + 1]
        assert sorted(s) == sorted(t) and s != t
        assert ds.labels[k] != ds.labels[k + 1]
        assert ds.starts[k] == ds.starts[k + 1]


def test_lengths_cover_range_uniformly():
    ds = T.make_bite_dataset(2000, lengths=(4, 8), seed=0)
    counts = np.bincount(ds.lengths.numpy(), minlength=9)[4:]
    assert counts.min() > 300                       # ~400 each


def test_train_and_test_splits_share_no_sentence_or_mirror():
    train = T.make_bite_dataset(2000, seed=0, split="train")
    test = T.make_bite_dataset(1000, seed=0, split="test")
    def key(s):   # unordered key: swap the two animals back into a canonical order
        i = s.index("咬")
        a, b = sorted((s[i - 1], s[i + 1]))
        return s[:i - 1] + a + "咬" + b + s[i + 2:]
    assert not {key(s) for s in train.sentences} & {key(s) for s in test.sentences}


def test_animals_subset_and_terminator_off():
    ds = T.make_bite_dataset(50, lengths=(3, 6), seed=0, animals="猫狗鼠", terminator=False)
    assert set("".join(ds.sentences)) <= set("猫狗鼠咬嗯啊")
    assert set(ds.labels.tolist()) <= {0, 1, 2}
    assert int(ds.lengths.min()) >= 3


# ---------------------------------------------------------------------------
# Position encodings
# ---------------------------------------------------------------------------

def test_sinusoidal_table_matches_formula():
    pe = T.sinusoidal_encoding(4, 2)
    np.testing.assert_allclose(pe[1:4], [[0.8415, 0.5403], [0.9093, -0.4161], [0.1411, -0.9900]], atol=5e-5)
    pe4 = T.sinusoidal_encoding(3, 4)
    np.testing.assert_allclose(pe4[1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)])


def test_alibi_slopes_for_8_heads():
    np.testing.assert_allclose(T.alibi_slopes(8), [1 / 2 ** h for h in range(1, 9)])
    np.testing.assert_allclose(T.alibi_slopes(4), [1 / 4, 1 / 16, 1 / 64, 1 / 256])


def test_rope_dot_product_depends_only_on_offset():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 16, generator=g, dtype=torch.float64), torch.randn(1, 16, generator=g, dtype=torch.float64)
    def dot(m, n):
        qm = T.rope_torch(q, torch.tensor([m]))
        kn = T.rope_torch(k, torch.tensor([n]))
        return float((qm * kn).sum())
    for offset in (-5, -1, 0, 2, 7):
        values = [dot(m, m + offset) for m in range(0, 30, 3) if m + offset >= 0]
        np.testing.assert_allclose(values, values[0], atol=1e-10)
    assert abs(dot(3, 4) - dot(4, 3)) > 1e-6        # direction matters (unlike |i - j|)
    # rotation keeps the norm and position 0 is the identity
    x = torch.randn(5, 16, generator=g, dtype=torch.float64)
    r = T.rope_torch(x, torch.arange(5))
    torch.testing.assert_close(r.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(r[0], x[0])


# ---------------------------------------------------------------------------
# Model symmetries
# ---------------------------------------------------------------------------

def _swap_animals(ds):
    tokens = ds.tokens.clone()
    rows = torch.arange(len(ds))
    a, b = tokens[rows, ds.starts].clone(), tokens[rows, ds.starts + 2].clone()
    tokens[rows, ds.starts], tokens[rows, ds.starts + 2] = b, a
    return tokens


def test_none_model_is_permutation_invariant():
    torch.manual_seed(0)
    model = T.OrderModel(len(T.VOCAB), len(T.ANIMALS), pe="none", num_heads=4).eval()
    ds = T.make_bite_dataset(64, seed=2)
    with torch.no_grad():
        base = model(ds.tokens, ds.mask)
        swapped = model(_swap_animals(ds), ds.mask)
        # any permutation of the real tokens of one sentence (here: reversal)
        rev = ds.tokens.clone()
        for i, L in enumerate(ds.lengths.tolist()):
            rev[i, :L] = ds.tokens[i, :L].flip(0)
        reversed_ = model(rev, ds.mask)
    torch.testing.assert_close(swapped, base, rtol=0, atol=1e-5)
    torch.testing.assert_close(reversed_, base, rtol=0, atol=1e-5)
    # mirror rows 2k / 2k+1 hold swapped sentences: same predicted class
    pred = base.argmax(-1)
    assert torch.equal(pred[0::2], pred[1::2])


@pytest.mark.parametrize("pe", ["sinusoidal", "learned", "rope", "alibi"])
def test_position_aware_models_are_not_invariant(pe):
    torch.manual_seed(0)
    model = T.OrderModel(len(T.VOCAB), len(T.ANIMALS), pe=pe, num_heads=4).eval()
    ds = T.make_bite_dataset(16, seed=2)
    with torch.no_grad():
        diff = (model(ds.tokens, ds.mask) - model(_swap_animals(ds), ds.mask)).abs().max()
    assert diff > 1e-3


def test_symmetric_alibi_without_anchor_is_reversal_invariant():
    torch.manual_seed(0)
    model = T.OrderModel(len(T.VOCAB), len(T.ANIMALS), pe="alibi", num_heads=4).eval()
    ds = T.make_bite_dataset(32, lengths=(3, 8), seed=0, terminator=False)
    rev = ds.tokens.clone()
    for i, L in enumerate(ds.lengths.tolist()):
        rev[i, :L] = ds.tokens[i, :L].flip(0)
    with torch.no_grad():
        torch.testing.assert_close(model(rev, ds.mask), model(ds.tokens, ds.mask), rtol=0, atol=1e-5)


def test_learned_table_too_short_raises_clear_error():
    model = T.OrderModel(len(T.VOCAB), len(T.ANIMALS), pe="learned", max_len=8)
    long = T.make_bite_dataset(4, lengths=(9, 12), seed=0)
    with pytest.raises(T.PositionLimitError, match="max_len=8"):
        model(long.tokens, long.mask)
    with pytest.raises(IndexError):                 # the raw nn.Embedding error, for contrast
        model.pos_emb.embedding(torch.arange(12))


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------

def test_accuracy_bands(trained):
    acc = {pe: r.test_accuracy for pe, r in trained.items()}
    assert 0.4 <= acc["none"] <= 0.6, acc
    assert acc["none"] <= 0.5                       # provable bound on mirror-pair test sets
    for pe in ("sinusoidal", "learned", "rope", "alibi"):
        assert acc[pe] >= 0.95, acc
    assert abs(trained["none"].losses[-1] - math.log(2)) < 0.05     # stuck at ln 2


def test_training_is_deterministic():
    kw = dict(steps=40, n_train=128, n_test=128, seed=3)
    a, b = T.train_order_model("learned", **kw), T.train_order_model("learned", **kw)
    assert a.losses == b.losses
    assert a.test_accuracy == b.test_accuracy
    for pa, pb in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(pa, pb)
    c = T.train_order_model("learned", **{**kw, "seed": 4})
    assert c.losses != a.losses


def test_training_restores_global_state():
    threads = torch.get_num_threads()
    det = torch.are_deterministic_algorithms_enabled()
    rng = torch.get_rng_state()
    T.train_order_model("rope", steps=5, n_train=32, n_test=32, num_threads=2)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == det
    assert torch.equal(torch.get_rng_state(), rng)


def test_snapshots_and_callback():
    calls = []
    res = T.train_order_model("learned", steps=25, n_train=64, n_test=64, snapshot_every=10,
                              callback=lambda step, loss: calls.append((step, loss)), callback_every=10)
    assert [s for s, _ in res.snapshots] == [0, 10, 20, 25]
    assert all(t.shape == (8, 32) and isinstance(t, np.ndarray) for _, t in res.snapshots)
    assert not np.array_equal(res.snapshots[0][1], res.snapshots[-1][1])
    assert [s for s, _ in calls] == [10, 20, 25]
    assert calls[-1][1] == res.losses[-1] and len(res.losses) == 25
    assert res.seconds > 0
    assert T.train_order_model("rope", **SMALL, snapshot_every=5).snapshots == []


def test_learned_rows_past_training_lengths_stay_untrained():
    res = T.train_order_model("learned", **SMALL, max_len=16, snapshot_every=20)
    first, last = res.snapshots[0][1], res.snapshots[-1][1]
    assert not np.allclose(first[:8], last[:8])
    np.testing.assert_array_equal(first[8:], last[8:])


def test_extrapolation_table_structure():
    rows = T.extrapolation_table(("learned", "rope"), train_lengths=(4, 6), test_lengths=(7, 8),
                                 n_per_length=8, **SMALL)
    labels = [r["label"] for r in rows]
    assert labels == ["none", "learned (max_len=6)", "learned (max_len=8)", "rope"]
    short = rows[1]
    assert short["by_length"] == {7: None, 8: None} and "max_len=6" in short["error"]
    assert "length 7 " in short["error"], "the error names the first length that failed"
    for r in rows[2:]:
        assert r["error"] is None and set(r["by_length"]) == {7, 8}
        assert all(0.0 <= v <= 1.0 for v in r["by_length"].values())


def test_length_accuracy_has_one_entry_per_length():
    res = T.train_order_model("sinusoidal", **SMALL)
    by = T.length_accuracy(res.model, (5, 7), n_per_length=40)
    assert set(by) == {5, 6, 7}


# ---------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda: T.make_bite_dataset(7), "n must be even"),
    (lambda: T.make_bite_dataset(0), "n must be"),
    (lambda: T.make_bite_dataset(8, lengths=(3, 8)), "lengths"),
    (lambda: T.make_bite_dataset(8, lengths=(8, 5)), "lengths"),
    (lambda: T.make_bite_dataset(8, lengths=5), "lengths"),
    (lambda: T.make_bite_dataset(8, animals=["猫"]), "animals"),
    (lambda: T.make_bite_dataset(8, animals=["猫", "龙"]), "animals"),
    (lambda: T.make_bite_dataset(8, split="dev"), "split"),
    (lambda: T.make_bite_dataset(8, seed=-1), "seed"),
    (lambda: T.OrderModel(13, 8, pe="absolute"), "pe must be one of"),
    (lambda: T.OrderModel(13, 8, d_model=30, num_heads=4), "divisible"),
    (lambda: T.OrderModel(13, 8, d_model=12, num_heads=4, pe="rope"), "even"),
    (lambda: T.train_order_model("xpos"), "pe 只能是"),
    (lambda: T.train_order_model("learned", max_len=6), "max_len"),
    (lambda: T.train_order_model("none", steps=0), "steps"),
    (lambda: T.train_order_model("none", lr=5), "lr"),
    (lambda: T.evaluate(None, [1, 2]), "BiteDataset"),
    (lambda: T.alibi_slopes(0), "num_heads"),
    (lambda: T.sinusoidal_encoding(4, 5), "d_model must be"),
    (lambda: T.extrapolation_table(("alibi", "t5")), "pe must be one of"),
])
def test_bad_inputs_raise_value_error(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_mirror_agreement(trained):
    ds = T.make_bite_dataset(200, seed=9, split="test")
    assert T.mirror_agreement(trained["none"].model, ds) == 1.0
    assert T.mirror_agreement(trained["rope"].model, ds) < 0.05


def test_attention_weights_and_alibi_bias():
    model = T.OrderModel(len(T.VOCAB), len(T.ANIMALS), pe="alibi", num_heads=4, num_layers=2).eval()
    ds = T.make_bite_dataset(6, lengths=(5, 7), seed=0)
    with torch.no_grad():
        for block in model.blocks:                 # q = k = 0: only the ALiBi bias is left
            block.qkv.weight.zero_()
            block.qkv.bias.zero_()
        weights = model.attention_weights(ds.tokens, ds.mask)
    assert len(weights) == 2 and weights[0].shape == (6, 4, 7, 7)
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(6, 4, 7))
    L = int(ds.lengths[0])
    dist = (torch.arange(L)[:, None] - torch.arange(L)[None, :]).abs().double()
    for h, m in enumerate(T.alibi_slopes(4)):
        expected = torch.softmax(-m * dist, dim=-1)
        torch.testing.assert_close(weights[0][0, h, :L, :L].double(), expected, rtol=0, atol=1e-6)
    assert (weights[0][0, :, :, L:] == 0).all()   # no attention to PAD
