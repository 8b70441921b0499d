"""Shared test settings and fixtures: matplotlib never opens a window, hypothesis stays quick,
and the learner's progress file is a temporary one (no test writes to the real home; kernels
started by JupyterLab or nbclient inherit the variable)."""
import atexit
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

import pytest
from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")
_PROGRESS_DIR = tempfile.mkdtemp(prefix="posenc-progress-")
atexit.register(shutil.rmtree, _PROGRESS_DIR, ignore_errors=True)   # one per test process, gone with it
os.environ["POSENC_PROGRESS"] = os.path.join(_PROGRESS_DIR, "progress.json")

settings.register_profile("course", max_examples=60, deadline=None)
settings.load_profile("course")


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
def no_cjk_verdicts():
    """``without_cjk_font`` for every figure in ``support.no_cjk_figures()`` (each public
    plot_* with each of its samples, each explorer, the training panel), drawn in one fresh
    interpreter that sees no CJK font: ``{key: "ok" or what went wrong}``, judged per figure
    with the same checks (no warning at all, no CJK character in any text). The key
    ``"matplotlib.pyplot imported"`` says whether drawing them all imported pyplot. (Its tests
    share one pytest-xdist worker, ``pytest_collection_modifyitems``: one such interpreter per run.)
    """
    import json

    from support import no_cjk_figures

    code = f"CALLS = {json.dumps(json.dumps(no_cjk_figures()))}\n" + _NO_CJK_EACH
    env = {**os.environ, "POSENC_NO_CJK": "1", "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# the browser suite's table (tests/browser/conftest.py's fixtures fill it): reports carry the rows
# in ``user_properties``, so the table is printed by whichever process reports (under pytest-xdist,
# the controller)

REPORT_KEY = pytest.StashKey[dict]()


def pytest_configure(config):
    config.stash[REPORT_KEY] = {}


#: The notebooks whose JupyterLab run is in the browser suite's second half. Each half runs in
#: one pytest-xdist worker, in order, with its own JupyterLab server and Chromium; the halves are
#: balanced by measured time (one notebook's JupyterLab run takes 10-60 s here, the static
#: edition's build and tests, the contents page and the UI checks together about as long as
#: notebooks 00 05 09 10 11; --durations in every run shows the next imbalance).
BROWSER_SECOND_HALF = ("01", "02", "03", "04", "06", "07", "08", "12", "13")


def _browser_half(nodeid: str) -> str:
    run = re.search(r"::test_notebook_in_jupyterlab\[(\d\d)_", nodeid)
    return "browser-2" if run and run.group(1) in BROWSER_SECOND_HALF else "browser-1"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups into node ids
def pytest_collection_modifyitems(config, items):
    """The real-browser suite runs in two pytest-xdist workers (:data:`BROWSER_SECOND_HALF`);
    the tests that read ``no_cjk_verdicts`` share one worker (one interpreter without a CJK
    font draws for all of them); every other test is shared out among the workers."""
    for item in items:
        if "browser" in item.nodeid.split("::")[0].split("/"):
            item.add_marker(pytest.mark.xdist_group(_browser_half(item.nodeid)))
        elif "no_cjk_verdicts" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("no_cjk"))


def pytest_runtest_logreport(report):
    _busy(report)
    rows = _SESSION_STASH[0] if _SESSION_STASH else None
    if rows is None or report.when != "teardown":   # the teardown report carries every property once
        return
    for key, value in getattr(report, "user_properties", ()):
        if key == "posenc_row":
            rows[value[0]] = value[1]
        elif key == "posenc_line":
            rows.setdefault("__lines__", []).append(value)


_SESSION_STASH: list = []

#: Seconds of tests each pytest-xdist worker ran, whole and per group ("gw0" -> {"all": s,
#: "browser-1": s, ...}), summed from the reports the controller receives: printed at the end,
#: so that an imbalance of the halves (the run's length is its busiest worker's) is measured.
_WORKER_SECONDS: dict = {}


def _busy(report) -> None:
    node = getattr(report, "node", None)   # set by pytest-xdist on the reports a worker sends
    worker = getattr(getattr(node, "gateway", None), "id", None)
    if worker is None:
        return
    seconds = _WORKER_SECONDS.setdefault(worker, {})
    group = report.nodeid.rpartition("@")[2] if "@" in report.nodeid else "shared"
    for key in ("all", group):
        seconds[key] = seconds.get(key, 0.0) + report.duration


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _SESSION_STASH[:] = [session.config.stash[REPORT_KEY]]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    rows = dict(config.stash.get(REPORT_KEY, {}))
    lines = rows.pop("__lines__", [])
    tr = terminalreporter
    if _WORKER_SECONDS:
        tr.write_line("tests' seconds per worker: " + "; ".join(
            f"{w} {s.pop('all'):.0f} s (" + ", ".join(f"{g} {v:.0f}" for g, v in sorted(s.items())) + ")"
            for w, s in sorted((w, dict(s)) for w, s in _WORKER_SECONDS.items())))
    if lines:
        tr.write_sep("-", "posenc browser suite: measured, never asserted")
        for line in lines:
            tr.write_line(line)
    if not rows:
        return
    tr.write_sep("-", "posenc browser suite: control input -> new figure src (ms), target <= 200")
    tr.write_line(f"{'notebook':<38} {'expl':>4} {'sliders':>7} {'median':>6} {'max':>6} "
                  f"{'other':>5} {'median':>6} {'cjk':>4} {'time s':>6}  note")

    def stats(xs):
        return (f"{statistics.median(xs):.0f}", f"{max(xs):.0f}") if xs else ("-", "-")

    for name in sorted(rows):
        r = rows[name]
        lat, other = r.get("latencies_ms") or [], r.get("other_ms") or []
        med, mx = stats(lat)
        omed, _ = stats(other)
        tr.write_line(
            f"{name:<38} {r.get('explorers', 0):>4} {len(lat):>7} {med:>6} {mx:>6} "
            f"{len(other):>5} {omed:>6} {r.get('cjk_nodes', 0):>4} {r.get('seconds', 0):>6.1f}  "
            f"{r.get('note', '')}")
        if r.get("drag"):
            tr.write_line(f"    drag: {r['drag']}")
        if r.get("live"):
            def ms(x):
                return "-" if x is None else f"{x:.0f}"
            tr.write_line("    live controls, key -> painted ms (kernel ms), idle: " + ", ".join(
                f"{s['explorer']}.{s['control'].split('（')[0]} {ms(s['idle_painted_ms'])} ({ms(s['idle_kernel_ms'])})"
                for s in r["live"]))
            fill = [s for s in r["live"] if s["n_fill"]]
            if fill:
                tr.write_line("    ... while the frames are filled: " + ", ".join(
                    f"{s['explorer']}.{s['control'].split('（')[0]} {ms(s['fill_painted_ms'])}" for s in fill))
        if r.get("phases"):
            tr.write_line("    phases (s): " + ", ".join(f"{k} {v}" for k, v in r["phases"].items()))
    all_lat = [x for r in rows.values() for x in (r.get("latencies_ms") or [])]
    if all_lat:
        tr.write_line(
            f"all notebooks: {len(all_lat)} slider steps, median {statistics.median(all_lat):.0f} ms, "
            f"max {max(all_lat):.0f} ms (sliders: keydown -> src; other = checkboxes/dropdowns)")


# -- frame fills (posenc/ui/engine/frames.py, scheduler.py) ------------------------------------
@pytest.fixture
def scheduler(monkeypatch):
    """A frame scheduler of this test's own (explorers made by other tests stay alive: widgets do)."""
    from posenc.ui.engine import frames as F, scheduler as S

    s = S.FrameScheduler()
    monkeypatch.setattr(F, "frame_scheduler", lambda: s)
    return s


@pytest.fixture
def fake(monkeypatch):
    """A scheduler on a fake clock: (the fake loop, the scheduler)."""
    from posenc.ui.engine import frames as F, scheduler as S
    from support import FakeLoop

    loop = FakeLoop()
    s = S.FrameScheduler(clock=loop.clock, call_later=loop.call_later)
    monkeypatch.setattr(F, "frame_scheduler", lambda: s)
    return loop, s
