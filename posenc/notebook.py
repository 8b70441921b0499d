"""Helpers for notebook cells themselves: the setup cell.

Introduced in notebook 01_permutation_invariance.
"""
from __future__ import annotations

import numpy as np

from . import __version__
from .figures.style import CJK_INSTALL_HINT, cjk_font


def notebook_setup(seed: int = 0) -> np.random.Generator:
    """The setup cell's helper: print versions and the font status, return an RNG.

    Introduced in notebook 01_permutation_invariance.
    """
    import matplotlib

    print(f"posenc_lib {__version__} | numpy {np.__version__} | matplotlib {matplotlib.__version__}")
    font = cjk_font()
    print(f"中文字体 (CJK font): {font}" if font else CJK_INSTALL_HINT)
    np.set_printoptions(precision=4, suppress=True)
    return np.random.default_rng(seed)
