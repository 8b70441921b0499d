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
        from test_notebooks import DURATIONS
    except ImportError:
        return
    if DURATIONS:
        terminalreporter.section("notebook execution times (nbclient, fresh kernel)")
        for name, seconds in sorted(DURATIONS.items()):
            terminalreporter.write_line(f"{name:45s} {seconds:6.1f} s")


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
        out = _run_without_cjk_font(_NO_CJK_PROLOGUE + textwrap.dedent(figures_code) + _NO_CJK_EPILOGUE)
        assert out.strip() == "ok"

    return run


def _run_without_cjk_font(code: str) -> str:
    """Run ``code`` in a fresh interpreter that sees no CJK font; return what it printed."""
    env = {**os.environ, "POSENC_NO_CJK": "1", "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


_NO_CJK_EACH = """
import io, json, sys, warnings
warnings.simplefilter("error")
import posenc_lib as pl
assert pl.cjk_font() is None
verdicts = {}
for key, source in json.loads(CALLS).items():
    try:
        fig = eval(source, {"pl": pl})
        fig.savefig(io.BytesIO(), format="png")
        cjk = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))
               if not all(ord(c) < 0x2E80 for c in t.get_text())]
        verdicts[key] = "ok" if not cjk else f"CJK text drawn without a CJK font: {cjk!r}"
    except Exception as exc:
        verdicts[key] = f"{type(exc).__name__}: {exc}"
verdicts["matplotlib.pyplot imported"] = "matplotlib.pyplot" in sys.modules
print(json.dumps(verdicts))
"""


@pytest.fixture(scope="session")
def without_cjk_font_each():
    """``without_cjk_font`` for many figures in one fresh interpreter (one start-up, not one each).

    ``start(calls)`` takes ``{key: Python expression returning a Figure}`` (``pl`` is in
    scope), starts drawing them in the background and returns ``wait``; ``wait()`` returns
    ``{key: "ok" or what went wrong}``: the same checks as ``without_cjk_font`` (no warning at
    all, no CJK character in any text), judged per figure. The key
    ``"matplotlib.pyplot imported"`` says whether drawing them all imported pyplot.
    """
    import functools
    import json

    def start(calls: dict):
        code = f"CALLS = {json.dumps(json.dumps(calls))}\n" + _NO_CJK_EACH
        env = {**os.environ, "POSENC_NO_CJK": "1", "MPLBACKEND": "Agg"}
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)

        @functools.lru_cache(maxsize=1)
        def wait() -> dict:
            out, err = proc.communicate()
            assert proc.returncode == 0, err
            return json.loads(out.strip().splitlines()[-1])

        wait.process = proc     # for a caller that stops early: kill it instead of waiting
        return wait

    return start
