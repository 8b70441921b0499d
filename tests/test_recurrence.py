"""posenc.recurrence: causal linear attention with a decay, against its definition written as
plain loops (y_t = Σ_{s ≤ t} decay^(t−s) (q_t·κ_s) v_s) and against its own recurrence."""
import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from support import assert_refused_clearly


def loop(q, key, value, decay):
    out = []
    for t in range(len(q)):
        row = [0.0] * len(value[0])
        for s in range(t + 1):
            weight = decay ** (t - s) * ref.dot(q[t], key[s])
            row = [r + weight * v for r, v in zip(row, value[s])]
        out.append(row)
    return out


@pytest.mark.parametrize("decay", [1.0, 0.9, 0.3])
def test_both_forms_are_the_definition(decay):
    rng = np.random.default_rng(2)
    q, key, value = rng.normal(size=(3, 7, 4))
    want = loop(q.tolist(), key.tolist(), value.tolist(), decay)
    np.testing.assert_allclose(pl.linear_attention(q, key, value, decay), want, atol=1e-12)
    np.testing.assert_allclose(pl.linear_attention(q, key, value, decay, recurrent=True), want, atol=1e-12)


def test_without_decay_the_prefix_is_a_set_and_with_it_order_counts():
    """Permuting the tokens before the last one leaves its output alone at decay 1 (like causal
    NoPE) and changes it below 1."""
    rng = np.random.default_rng(4)
    q, key, value = rng.normal(size=(3, 5, 6))
    perm = [2, 0, 3, 1, 4]
    for decay, same in ((1.0, True), (0.8, False)):
        a = pl.linear_attention(q, key, value, decay)[-1]
        b = pl.linear_attention(q[perm], key[perm], value[perm], decay)[-1]
        assert np.allclose(a, b) == same


@pytest.mark.parametrize("call,words", [
    (lambda: pl.linear_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), decay=1.5), "decay"),
    (lambda: pl.linear_attention(np.ones((3, 2)), np.ones((2, 2)), np.ones((3, 2))), "key"),
])
def test_bad_arguments_are_refused(call, words):
    assert_refused_clearly(call, ValueError, words)
