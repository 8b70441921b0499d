"""Probes: ridge regression against numpy's least squares, R² against its definition, the
causal counting weight against 1/(n+1), and OrderModel.residual_streams against the model's
own forward pass."""
import numpy as np
import pytest

import posenc_lib as pl
from posenc.probes import r_squared, ridge_fit, ridge_predict


def test_ridge_without_penalty_is_least_squares():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 4))
    y = x @ [1.0, -2.0, 0.5, 3.0] + 0.7 + 0.01 * rng.normal(size=50)
    w = ridge_fit(x, y, alpha=0.0)
    ref = np.linalg.lstsq(np.hstack([x, np.ones((50, 1))]), y, rcond=None)[0]
    assert np.allclose(w, ref)
    assert np.allclose(ridge_predict(w, x), np.hstack([x, np.ones((50, 1))]) @ ref)


def test_r_squared_definition():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    assert r_squared(y, y) == 1.0
    assert r_squared(np.full(4, 2.5), y) == 0.0
    assert np.isclose(r_squared(np.array([1.0, 2.0, 3.0, 5.0]), y), 1 - 1 / 5)


def test_causal_uniform_weight_is_one_over_n_plus_one():
    assert np.allclose(pl.causal_uniform_weights(6), [1 / (n + 1) for n in range(6)])


def test_readout_slope():
    assert np.isclose(pl.readout_slope(np.array([0.0, 2, 4, 6, np.nan]), 0, 4), 2.0)
    with pytest.raises(ValueError, match="readout"):
        pl.readout_slope(np.array([0.0, np.nan, 1.0]), 0, 3)


@pytest.mark.parametrize("pe,causal", [("sinusoidal", False), ("none", True), ("rope", False)])
def test_residual_streams_end_in_the_pooled_logits(pe, causal):
    import torch

    data = pl.make_bite_dataset(8, (5, 8), 3)
    torch.manual_seed(0)
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe=pe, causal=causal, num_layers=3).eval()
    with torch.no_grad():
        streams = model.residual_streams(data.tokens, data.mask)
        logits = model(data.tokens, data.mask)
    assert len(streams) == 4 and streams[0].shape == (8, data.width, 32)
    m = data.mask.unsqueeze(-1).float()
    pooled = (streams[-1] * m).sum(1) / m.sum(1)
    assert torch.allclose(model.head(model.norm(pooled)), logits, atol=1e-6)
    emb = model.tok_emb(data.tokens)
    table = model.position_table(data.width)
    assert torch.allclose(streams[0], emb if table is None else emb + table)


def test_probes_on_a_model_with_the_position_in_its_input():
    """The input stream of a learned-PE model is token + its position's row: filler tokens
    differ only by that row, so the probe reads position almost exactly; a bidirectional NoPE
    model's input carries none (held-out R² near 0, order at chance)."""
    import torch

    fit = pl.make_bite_dataset(200, (6, 8), 1, split="train")
    test = pl.make_bite_dataset(200, (6, 8), 2, split="test")
    torch.manual_seed(0)
    learned = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="learned", max_len=8).eval()
    torch.manual_seed(0)
    blind = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="none").eval()
    p = pl.layer_probes(learned, fit, test)
    q = pl.layer_probes(blind, fit, test)
    assert p.position_r2[0] > 0.99 and p.order_accuracy[0] > 0.95
    assert abs(q.position_r2[0]) < 0.05 and abs(q.order_accuracy[0] - 0.5) < 0.06
