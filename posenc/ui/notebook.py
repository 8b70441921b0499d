"""Helpers for notebook cells themselves: the setup cell, and a progress bar with the
measured time for cells that take more than a moment.
"""
from __future__ import annotations

import numpy as np

from .. import __version__
from .look import CJK_INSTALL_HINT, cjk_font


def notebook_setup(seed: int = 0, torch: bool = False) -> np.random.Generator:
    """The setup cell's helper: print versions and the font status, return an RNG.

    ``seed`` is the random seed (随机种子) of the returned generator. With ``torch=True`` it
    also loads PyTorch, which takes a second or two, behind a progress bar that ends with the
    measured time; a later ``import torch`` in the cell is then instant.
    """
    import matplotlib

    print(f"posenc_lib {__version__} | numpy {np.__version__} | matplotlib {matplotlib.__version__}")
    font = cjk_font()
    print(f"中文字体 (CJK font): {font}" if font else CJK_INSTALL_HINT)
    if torch:
        with progress_bar(1, "加载 PyTorch") as bar:
            import torch as torch_module

            bar.advance(f"torch {torch_module.__version__}")
    np.set_printoptions(precision=4, suppress=True)
    return np.random.default_rng(seed)


class progress_bar:
    """A progress bar for a notebook cell that takes more than a moment, ending with its time.

    Use as a context manager around the slow work and call :meth:`advance` after each step::

        with pl.progress_bar(3, "训练 3 个模型") as bar:
            for pe in ("none", "sinusoidal", "learned"):
                pl.trained_run(pe)
                bar.advance(pe)

    In Jupyter it shows an ``IntProgress`` bar with the current step's name; when the block
    ends the bar is full and the cell prints how long it took (measured, never typed).
    :meth:`callback` gives a function to pass to helpers that report their own steps, such as
    ``extrapolation_table(callback=...)``. Outside Jupyter the bar is text.
    """

    def __init__(self, total: int, description: str = "进度"):
        from ..validate import check_int

        self.total = check_int("total", total, 1)
        self.description = str(description)
        self.done = 0
        self.seconds = None
        self._start = None
        self._bar = self._label = self._box = None

    def __enter__(self):
        import time

        import ipywidgets as widgets
        from IPython.display import display

        self._bar = widgets.IntProgress(value=0, min=0, max=self.total, description=self.description,
                                        style={"description_width": "initial"})
        self._label = widgets.HTML("")
        self._box = widgets.HBox([self._bar, self._label])
        self._box.add_class("posenc-progress")
        display(self._box)
        self._start = time.perf_counter()
        return self

    def advance(self, label: str = "") -> None:
        """One more step done; ``label`` names it next to the bar."""
        self.done = min(self.total, self.done + 1)
        if self._bar is not None:
            self._bar.value = self.done
            self._label.value = f"{self.done}/{self.total} {label}".strip()

    def callback(self):
        """A function ``f(label, index)`` that marks one step done per call (for helpers'
        ``callback=`` arguments, which call it before each step: the bar then shows the
        step that is running)."""
        def on_step(label, index=None):
            if self._bar is not None:
                self._bar.value = min(self.total, index if isinstance(index, int) else self.done)
                self._label.value = f"{self._bar.value}/{self.total} {label}…"
            self.done = self._bar.value if self._bar is not None else self.done

        return on_step

    def __exit__(self, exc_type, exc, tb) -> None:
        import time

        self.seconds = time.perf_counter() - self._start
        if exc_type is None:
            self.done = self.total
            self._bar.value = self.total
            self._bar.bar_style = "success"
            self._label.value = f"{self.total}/{self.total}"
            print(f"{self.description}，用时 {self.seconds:.1f} s")
        else:
            self._bar.bar_style = "danger"
