"""posenc/figures/rope.py: one RoPE pair turning with pos, and the score against the offset.
(Drawing contracts: test_figures_style.py and test_figures_explorer.py.)"""
import numpy as np
import pytest

import posenc_lib as pl
from support import assert_refused_clearly


def test_rope_marker_lies_on_the_curve():
    """The explorer's dot (score at the actual m, n) sits on the curve computed with m = 0."""
    ex = pl.RopeExplorer()
    v = ex.view
    for pos in (0, 7, 16, 33, 40):
        ex.controls["pos"].value = pos
        (x,), (y,) = v.total_dot.get_data()
        assert x == ex.n - pos
        curve_at = np.interp(x, v.total.get_xdata(), v.total.get_ydata())
        assert abs(curve_at - y) < 1e-3


@pytest.mark.parametrize("call,exc,words", [
    (lambda: pl.plot_rope(pos=0, n=40), ValueError, "n - pos"),
    (lambda: pl.plot_rope(i=8), ValueError, "i"),
    (lambda: pl.RopeExplorer(n=99), ValueError, "n"),
])
def test_bad_input_is_refused_clearly(call, exc, words):
    assert_refused_clearly(call, exc, words)
