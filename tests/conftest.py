"""Shared test settings and fixtures: matplotlib never opens a window, hypothesis stays quick."""
import os
import subprocess
import sys
import textwrap

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import settings

settings.register_profile("course", max_examples=60, deadline=None)
settings.load_profile("course")


def pytest_terminal_summary(terminalreporter):
    """Print how long each notebook took to execute (nbclient, fresh kernel)."""
    try:
        from test_notebooks import DURATIONS, SLOW_CELLS
    except ImportError:
        return
    if DURATIONS:
        terminalreporter.section("notebook execution times (nbclient, fresh kernel)")
        for name, seconds in sorted(DURATIONS.items()):
            slow = ", ".join(f"cell {i} {s:.1f} s{'' if shown else ' NO PROGRESS'}"
                             for i, s, shown in SLOW_CELLS.get(name, []))
            terminalreporter.write_line(f"{name:45s} {seconds:6.1f} s" + (f"   cells > 2 s: {slow}" if slow else ""))


_NO_CJK_PROLOGUE = """
import io, warnings
warnings.simplefilter("error")
import posenc_lib as pl
assert pl.cjk_font() is None
"""
_NO_CJK_EPILOGUE = """
for fig in figs:
    fig.savefig(io.BytesIO(), format="png")
    for t in fig.findobj(lambda a: hasattr(a, "get_text")):
        assert all(ord(c) < 0x2E80 for c in t.get_text()), t.get_text()
print("ok")
"""


@pytest.fixture
def without_cjk_font():
    """Run code that builds a list ``figs`` in a fresh interpreter that sees no CJK font.

    Every figure must draw with no warning at all (no "Glyph missing") and hold no CJK
    character in any text: the English glosses stand in, never tofu boxes.
    """
    def run(figures_code: str) -> None:
        code = _NO_CJK_PROLOGUE + textwrap.dedent(figures_code) + _NO_CJK_EPILOGUE
        env = {**os.environ, "POSENC_NO_CJK": "1", "MPLBACKEND": "Agg"}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "ok"

    return run
