"""posenc/task/model.py: OrderModel's symmetries (what each encoding lets it tell apart),
its attention weights, and the learned table's length limit."""
import pytest
import torch

import posenc_lib as pl
from support import assert_refused_clearly


def _swap_animals(ds):
    tokens = ds.tokens.clone()
    rows = torch.arange(len(ds))
    a, b = tokens[rows, ds.starts].clone(), tokens[rows, ds.starts + 2].clone()
    tokens[rows, ds.starts], tokens[rows, ds.starts + 2] = b, a
    return tokens


def test_none_model_is_permutation_invariant():
    torch.manual_seed(0)
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="none", num_heads=4).eval()
    ds = pl.make_bite_dataset(64, seed=2)
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
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe=pe, num_heads=4).eval()
    ds = pl.make_bite_dataset(16, seed=2)
    with torch.no_grad():
        diff = (model(ds.tokens, ds.mask) - model(_swap_animals(ds), ds.mask)).abs().max()
    assert diff > 1e-3


def test_symmetric_alibi_without_anchor_is_reversal_invariant():
    torch.manual_seed(0)
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="alibi", num_heads=4).eval()
    ds = pl.make_bite_dataset(32, lengths=(3, 8), seed=0, terminator=False)
    rev = ds.tokens.clone()
    for i, L in enumerate(ds.lengths.tolist()):
        rev[i, :L] = ds.tokens[i, :L].flip(0)
    with torch.no_grad():
        torch.testing.assert_close(model(rev, ds.mask), model(ds.tokens, ds.mask), rtol=0, atol=1e-5)


def test_learned_table_too_short_raises_clear_error():
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="learned", max_len=8)
    long = pl.make_bite_dataset(4, lengths=(9, 12), seed=0)
    with pytest.raises(pl.PositionLimitError, match="max_len=8"):
        model(long.tokens, long.mask)
    with pytest.raises(IndexError):                 # the raw nn.Embedding error, for contrast
        model.pos_emb.embedding(torch.arange(12))


def test_attention_weights_and_alibi_bias():
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="alibi", num_heads=4, num_layers=2).eval()
    ds = pl.make_bite_dataset(6, lengths=(5, 7), seed=0)
    with torch.no_grad():
        for block in model.blocks:                 # q = k = 0: only the ALiBi bias is left
            block.qkv.weight.zero_()
            block.qkv.bias.zero_()
        weights = model.attention_weights(ds.tokens, ds.mask)
    assert len(weights) == 2 and weights[0].shape == (6, 4, 7, 7)
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(6, 4, 7))
    L = int(ds.lengths[0])
    dist = (torch.arange(L)[:, None] - torch.arange(L)[None, :]).abs().double()
    for h, m in enumerate(pl.alibi_slopes(4)):
        expected = torch.softmax(-m * dist, dim=-1)
        torch.testing.assert_close(weights[0][0, h, :L, :L].double(), expected, rtol=0, atol=1e-6)
    assert (weights[0][0, :, :, L:] == 0).all()   # no attention to PAD


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.OrderModel(13, 8, pe="absolute"), ValueError, "pe must be one of"),
    (lambda: pl.OrderModel(13, 8, d_model=30, num_heads=4), ValueError, "divisible"),
    (lambda: pl.OrderModel(13, 8, d_model=12, num_heads=4, pe="rope"), ValueError, "even"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
