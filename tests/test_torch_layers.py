"""posenc/torch_layers.py: the encodings as torch modules (loaded lazily).

Expected values: the numpy functions (themselves checked against tests/reference.py), the
bare torch table's behaviour, and RoPE's relative-only property.
"""
import numpy as np
import pytest
import torch

import posenc_lib as pl
from support import assert_refused_clearly


def test_sinusoidal_module_equals_numpy_table():
    m = pl.SinusoidalPositionalEncoding(16, max_len=64)
    assert sum(p.numel() for p in m.parameters() if p.requires_grad) == 0
    x = torch.zeros(2, 40, 16)
    np.testing.assert_allclose(m(x)[1].numpy(), pl.sinusoidal_encoding(40, 16), atol=1e-6)
    with pytest.raises(pl.PositionLimitError, match="64"):
        m(torch.zeros(1, 65, 16))


def test_learned_embedding_limit_names_max_len():
    m = pl.LearnedPositionalEmbedding(1024, 8)
    assert sum(p.numel() for p in m.parameters()) == 1024 * 8
    x = torch.zeros(1, 1024, 8)
    np.testing.assert_allclose((m(x) - x)[0].detach().numpy(), m.embedding.weight.detach().numpy())
    with pytest.raises(IndexError, match="1024") as info:
        m(torch.zeros(1, 1025, 8))
    assert isinstance(info.value, pl.PositionLimitError)
    with pytest.raises(IndexError):  # what the bare torch table does
        m.embedding(torch.tensor([1024]))


def test_rope_torch_equals_numpy_with_float_positions():
    x = np.random.default_rng(0).normal(size=(2, 5, 8))
    np.testing.assert_allclose(pl.rope_torch(torch.tensor(x), torch.arange(5.0)).numpy(),
                               pl.rope(x, np.arange(5)), atol=1e-12)


def test_rope_torch_equals_numpy_with_heads_and_integer_positions():
    x = np.random.default_rng(0).normal(size=(2, 3, 5, 8))
    got = pl.rope_torch(torch.tensor(x), torch.arange(5)).numpy()
    np.testing.assert_allclose(got, pl.rope(x, np.arange(5)), atol=1e-12)


def test_rope_dot_product_depends_only_on_offset():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 16, generator=g, dtype=torch.float64), torch.randn(1, 16, generator=g, dtype=torch.float64)
    def dot(m, n):
        qm = pl.rope_torch(q, torch.tensor([m]))
        kn = pl.rope_torch(k, torch.tensor([n]))
        return float((qm * kn).sum())
    for offset in (-5, -1, 0, 2, 7):
        values = [dot(m, m + offset) for m in range(0, 30, 3) if m + offset >= 0]
        np.testing.assert_allclose(values, values[0], atol=1e-10)
    assert abs(dot(3, 4) - dot(4, 3)) > 1e-6        # direction matters (unlike |i - j|)
    # rotation keeps the norm and position 0 is the identity
    x = torch.randn(5, 16, generator=g, dtype=torch.float64)
    r = pl.rope_torch(x, torch.arange(5))
    torch.testing.assert_close(r.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(r[0], x[0])


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.LearnedPositionalEmbedding(0, 8), ValueError, "max_len"),
    (lambda: pl.SinusoidalPositionalEncoding(8, max_len=0), ValueError, "max_len"),
    (lambda: pl.SinusoidalPositionalEncoding(7), ValueError, "d_model"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
