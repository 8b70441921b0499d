"""posenc/task/data.py: the 谁咬谁 (X 咬 Y) sentences, mirror pairs and splits."""
import numpy as np
import pytest
import torch

import posenc_lib as pl
from support import assert_refused_clearly


def test_dataset_shapes_and_format():
    ds = pl.make_bite_dataset(40, lengths=(4, 8), seed=3)
    assert ds.tokens.shape == (40, 8) and ds.mask.shape == (40, 8)
    assert ds.tokens.dtype == torch.long and ds.mask.dtype == torch.bool
    assert len(ds) == 40 and len(ds.sentences) == 40
    for i, s in enumerate(ds.sentences):
        length = int(ds.lengths[i])
        assert len(s) == length == int(ds.mask[i].sum())
        assert s.endswith("。") and s.count("咬") == 1
        start = int(ds.starts[i])
        assert s[start + 1] == "咬"
        assert pl.ANIMALS[int(ds.labels[i])] == s[start]          # label = the biter
        assert s[start] != s[start + 2]
        assert (ds.tokens[i, length:] == pl.TOKEN_TO_ID[pl.PAD]).all()


def test_dataset_is_deterministic_and_seed_dependent():
    a = pl.make_bite_dataset(64, seed=5)
    b = pl.make_bite_dataset(64, seed=5)
    c = pl.make_bite_dataset(64, seed=6)
    assert torch.equal(a.tokens, b.tokens) and a.sentences == b.sentences
    assert not torch.equal(a.tokens, c.tokens)


def test_mirror_pairs_are_same_multiset_with_other_label():
    ds = pl.make_bite_dataset(100, seed=1)
    for k in range(0, 100, 2):
        s, t = ds.sentences[k], ds.sentences[k + 1]
        assert sorted(s) == sorted(t) and s != t
        assert ds.labels[k] != ds.labels[k + 1]
        assert ds.starts[k] == ds.starts[k + 1]


def test_lengths_cover_range_uniformly():
    ds = pl.make_bite_dataset(2000, lengths=(4, 8), seed=0)
    counts = np.bincount(ds.lengths.numpy(), minlength=9)[4:]
    assert counts.min() > 300                       # ~400 each


def test_train_and_test_splits_share_no_sentence_or_mirror():
    train = pl.make_bite_dataset(2000, seed=0, split="train")
    test = pl.make_bite_dataset(1000, seed=0, split="test")
    def key(s):   # unordered key: swap the two animals back into a canonical order
        i = s.index("咬")
        a, b = sorted((s[i - 1], s[i + 1]))
        return s[:i - 1] + a + "咬" + b + s[i + 2:]
    assert not {key(s) for s in train.sentences} & {key(s) for s in test.sentences}


def test_animals_subset_and_terminator_off():
    ds = pl.make_bite_dataset(50, lengths=(3, 6), seed=0, animals="猫狗鼠", terminator=False)
    assert set("".join(ds.sentences)) <= set("猫狗鼠咬嗯啊")
    assert set(ds.labels.tolist()) <= {0, 1, 2}
    assert int(ds.lengths.min()) >= 3


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.make_bite_dataset(7), ValueError, "n must be even"),
    (lambda: pl.make_bite_dataset(0), ValueError, "n must be"),
    (lambda: pl.make_bite_dataset(8, lengths=(3, 8)), ValueError, "lengths"),
    (lambda: pl.make_bite_dataset(8, lengths=(8, 5)), ValueError, "lengths"),
    (lambda: pl.make_bite_dataset(8, lengths=5), ValueError, "lengths"),
    (lambda: pl.make_bite_dataset(8, animals=["猫"]), ValueError, "animals"),
    (lambda: pl.make_bite_dataset(8, animals=["猫", "龙"]), ValueError, "animals"),
    (lambda: pl.make_bite_dataset(8, split="dev"), ValueError, "split"),
    (lambda: pl.make_bite_dataset(8, seed=-1), ValueError, "seed"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
