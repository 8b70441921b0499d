"""posenc/figures/relative.py: the rotation R_k, PE.PE by offset, the shift regression, and
similarity by offset with and without projections. (Drawing contracts:
test_figures_style.py and test_figures_explorer.py.)"""
import re

import numpy as np

import posenc_lib as pl


def test_relative_explorer_reports_rounding_error_only():
    ex = pl.RelativeExplorer()
    for k, pos, d in ((-50, 100, 64), (17, 0, 2), (3, 5, 8)):
        ex.controls["d_model"].value = d
        ex.controls["k"].value = k
        ex.controls["pos"].value = pos
        err = float(re.search(r"= ([0-9.e+-]+)$", ex.view.title.get_text()).group(1))
        assert err < 1e-12
    assert ex.redraws == 1


def test_similarity_explorer_titles_follow_the_projection():
    ex = pl.SimilarityExplorer(d_model=64)
    numbers = lambda: [float(x) for x in re.findall(r"-?\d+\.\d+", ex.view.title_curve.get_text())]
    assert numbers()[:2] == [0.0, 0.0]
    ex.controls["projection"].value = True
    assert min(numbers()[:2]) > 0.0
    ys = ex.view.mean.get_ydata()
    ex.controls["projection"].value = False
    np.testing.assert_allclose(ex.view.mean.get_ydata(), ex.view.mirror.get_ydata(), atol=1e-12)
    assert not np.allclose(ys, ex.view.mean.get_ydata())
