"""posenc/figures/hand_calculation.py: word vector + PE = input, as arrows in a pair's plane.
(Drawing contracts: test_figures_style.py and test_figures_explorer.py.)

Expected values: the PE rows from tests/reference.py (the formula as plain loops).
"""
import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


def test_explorer_arrows_are_word_vector_plus_pe():
    ex = pl.HandCalcExplorer()
    ex.controls["d_model"].value = 4
    ex.controls["start"].value = 0
    ex.controls["word_0"].value = -0.3
    ex.controls["base"].value = 100.0
    word = [-0.3, 0.5]
    for view, i in zip(ex.views, (0, 1)):               # first pair and last pair of d_model = 4
        pe = [ref.pe_row(pos, 4, 100.0)[2 * i:2 * i + 2] for pos in (0, 1, 2)]
        np.testing.assert_allclose(view.word.U, [word[0]] * 3, atol=1e-12)
        np.testing.assert_allclose(view.word.V, [word[1]] * 3, atol=1e-12)
        np.testing.assert_allclose(view.pe.get_offsets(), [word] * 3, atol=1e-12)   # PE starts at the word's tip
        np.testing.assert_allclose(np.column_stack([view.pe.U, view.pe.V]), pe, atol=1e-12)
        # one key line per token: its position and where its arrow ends (word + PE), 2 decimals
        for pos, line, p in zip((0, 1, 2), view.lines(), pe):
            tip = f"[{word[0] + p[0]:.2f}, {word[1] + p[1]:.2f}]"
            assert f"(pos {pos})" in line and line.endswith(tip), line
    for number in ref.pe_row(2, 4, 100.0):              # the table beside the sliders shows PE(2)
        assert f"{number:.4f}" in ex.table.value


def test_plot_hand_calculation_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError, match="calc"):
        pl.plot_hand_calculation(calc="猫咬狗")
    with pytest.raises(ValueError, match="3"):
        pl.plot_hand_calculation(pl.hand_calculation(tokens="猫咬狗了"))
