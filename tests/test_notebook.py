"""posenc/notebook.py: the setup cell's helper. (The notebooks themselves run in
test_notebooks.py.)"""
import numpy as np

import posenc_lib as pl


def test_notebook_setup_prints_versions_and_font_and_returns_a_seeded_generator(capsys):
    import matplotlib

    with np.printoptions():                          # the helper sets print options: undo it here
        rng = pl.notebook_setup(seed=3)
        assert np.get_printoptions()["precision"] == 4 and np.get_printoptions()["suppress"]
    out = capsys.readouterr().out
    assert f"posenc_lib {pl.__version__}" in out
    assert f"numpy {np.__version__}" in out and f"matplotlib {matplotlib.__version__}" in out
    assert (f"中文字体 (CJK font): {pl.cjk_font()}" in out) if pl.cjk_font() else (pl.CJK_INSTALL_HINT in out)
    assert isinstance(rng, np.random.Generator)
    np.testing.assert_array_equal(rng.random(4), np.random.default_rng(3).random(4))
