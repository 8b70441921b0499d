"""posenc/figures/permutation.py: attention weights and outputs for a word order, compared
with another order of the same words. (Drawing contracts: test_figures_style.py and
test_figures_explorer.py.)

Expected values: self-attention as loops (tests/reference.py) on the demo's own inputs.
"""
import re

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


@pytest.mark.parametrize("sentence,use_pe", [("狗咬猫", False), ("你爱我", True)])
def test_permutation_explorer_shows_the_attention_weights(sentence, use_pe):
    ex = pl.PermutationExplorer()
    ex.controls["sentence"].value = sentence
    ex.controls["use_pe"].value = use_pe
    d = pl.PermutationExplorer.D_MODEL
    x = pl.token_vectors(sentence, d) + (pl.sinusoidal_encoding(3, d) if use_pe else 0)
    _, weights = ref.self_attention(x.tolist(), *(w.tolist() for w in pl.attention_weights_for_demo(d)))
    np.testing.assert_allclose(np.asarray(ex.view.img_w.get_array()), weights, rtol=0, atol=1e-12)
    for r in range(3):
        for j in range(3):
            assert ex.view.cell_text[r][j].get_text() == f"{weights[r][j]:.2f}"


def test_titles_compare_with_the_first_order_of_the_same_words():
    """Without PE the same token's output and the pooled vector match the reference order to
    rounding; with PE they differ."""
    numbers = lambda ex: [float(s) for s in re.findall(r"\d\.\de[-+]\d+", ex.view.title_o.get_text())]
    ex = pl.PermutationExplorer(sentence="狗咬猫")
    assert "猫咬狗" in ex.view.title_o.get_text() or "cat bites dog" in ex.view.title_o.get_text()
    assert len(numbers(ex)) == 2 and max(numbers(ex)) < 1e-12
    ex.controls["use_pe"].value = True
    assert len(numbers(ex)) == 2 and min(numbers(ex)) > 1e-3


def test_plot_attention_refuses_other_lengths_and_other_words():
    with pytest.raises(ValueError, match="3"):
        pl.plot_attention("猫咬")
    with pytest.raises(ValueError, match="reference"):
        pl.plot_attention("猫咬狗", reference="我爱你")
