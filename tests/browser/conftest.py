"""Fixtures for the real-browser suite: one JupyterLab server + one headless
Chromium per test session, a fresh browser context (tab) per notebook.

Requirements: the ``playwright`` Python package and a system Chromium
(``apt-get install -y chromium fonts-noto-cjk``).  ``playwright install`` is
never needed: the system browser is used through ``executable_path``.
Without them the tests are skipped, unless the environment variable ``CI`` is
set (non-empty), in which case they fail.

Environment variables:
  POSENC_NOTEBOOK_DIR       notebooks to test (default: <repo>/notebooks)
  POSENC_CHROMIUM           path of the Chromium binary (default: /usr/bin/chromium
                            or ``chromium`` / ``chromium-browser`` on PATH)
  POSENC_SAVE_SCREENSHOTS=1 write explorer screenshots to images/screenshots/
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = Path(os.environ.get("POSENC_NOTEBOOK_DIR") or REPO / "notebooks").resolve()

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]

SERVER_START_TIMEOUT = 60  # s

# JupyterLab user settings written into a private JUPYTERLAB_SETTINGS_DIR.
LAB_SETTINGS = {
    # Render every cell (no virtual scrolling), so off-screen explorers exist
    # in the DOM; start the default kernel without a "select kernel" dialog.
    "@jupyterlab/notebook-extension:tracker": {
        "windowingMode": "none",
        "autoStartDefaultKernel": True,
    },
    # Never write the executed notebook back into the repository.
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    # No news / update checks (closed network) and no toasts over widgets.
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: real-browser tests (JupyterLab in headless Chromium)"
    )
    config.stash[_REPORT_KEY] = {}


# ---------------------------------------------------------------------------
# requirements: skip locally, fail in CI


def _missing(msg: str):
    if os.environ.get("CI"):
        pytest.fail(f"{msg} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(msg)


def find_chromium() -> str | None:
    env = os.environ.get("POSENC_CHROMIUM")
    if env:
        return env if os.access(env, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("playwright (python package) not installed: pip install playwright")
    path = find_chromium()
    if not path:
        _missing("Chromium not installed: apt-get install -y chromium fonts-noto-cjk")
    return path


# ---------------------------------------------------------------------------
# JupyterLab server


@dataclass
class LabServer:
    base_url: str
    token: str
    root_dir: Path
    tmp: Path
    log_path: Path
    proc: subprocess.Popen = field(repr=False)

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}{path}{sep}token={self.token}"

    def api(self, method: str, path: str, timeout: float = 10):
        req = urllib.request.Request(
            self.base_url + path,
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no server log)"
        return "\n".join(lines[-n:])

    def shutdown_all_kernels(self) -> None:
        """Delete every session and kernel of this server (one notebook at a
        time is open, so this only ever hits the current test's kernel)."""
        with contextlib.suppress(Exception):
            for s in self.api("GET", "/api/sessions"):
                with contextlib.suppress(Exception):
                    self.api("DELETE", f"/api/sessions/{s['id']}")
        with contextlib.suppress(Exception):
            for k in self.api("GET", "/api/kernels"):
                with contextlib.suppress(Exception):
                    self.api("DELETE", f"/api/kernels/{k['id']}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_lab_settings(settings_dir: Path) -> None:
    for plugin, values in LAB_SETTINGS.items():
        pkg, name = plugin.split(":")
        p = settings_dir / pkg / f"{name}.jupyterlab-settings"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(values, indent=2))


def _kill_leftover_kernels(runtime_dir: Path) -> None:
    """Kernels run in their own process session, so they survive a SIGKILL of
    the server's group: find them by their connection file in our private
    runtime dir and end them by pid."""
    marker = str(runtime_dir)
    for proc_dir in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (proc_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            with contextlib.suppress(OSError):
                os.kill(int(proc_dir.name), signal.SIGKILL)


@pytest.fixture(scope="session")
def lab_server(chromium_path) -> LabServer:
    if importlib.util.find_spec("jupyterlab") is None:
        _missing("jupyterlab not installed")
    if not NOTEBOOK_DIR.is_dir():
        pytest.fail(f"notebook dir {NOTEBOOK_DIR} does not exist", pytrace=False)

    tmp = Path(tempfile.mkdtemp(prefix="posenc-jlab-"))
    settings_dir = tmp / "user-settings"
    _write_lab_settings(settings_dir)
    runtime_dir = tmp / "runtime"
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        # kernelspecs are still found in {sys.prefix}/share/jupyter
        JUPYTER_DATA_DIR=str(tmp / "data"),
        JUPYTER_RUNTIME_DIR=str(runtime_dir),
        JUPYTERLAB_SETTINGS_DIR=str(settings_dir),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("JUPYTER_TOKEN", None)
    # tests/conftest.py sets MPLBACKEND=Agg for the in-process tests; a reader's
    # kernel has the inline backend, so must the kernels here
    env.pop("MPLBACKEND", None)
    port = _free_port()
    token = secrets.token_hex(24)
    # the notebooks' parent (the repo root by default); widened to a common
    # ancestor when POSENC_NOTEBOOK_DIR points elsewhere, so that the self-test
    # notebook next to this file is reachable too.  Kernels start in their
    # notebook's own directory either way.
    root = Path(os.path.commonpath([NOTEBOOK_DIR.parent, Path(__file__).resolve().parent]))
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        # the README's open command: the repository's settings override (Chinese UI)
        f"--LabApp.app_settings_dir={REPO / '.jupyter' / 'lab-settings'}",
        "--expose-app-in-browser",
        # checkpoints out of the repo (else notebooks/.ipynb_checkpoints appears)
        f"--FileCheckpoints.checkpoint_dir={tmp / 'checkpoints'}",
        # no outgoing requests for news / update checks (closed network)
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    log_path = tmp / "jupyterlab.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True,
    )
    server = LabServer(f"http://127.0.0.1:{port}", token, root, tmp, log_path, proc)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"JupyterLab exited with code {proc.returncode} during startup:\n"
                    + server.log_tail(), pytrace=False)
            try:
                server.api("GET", "/api/status", timeout=2)
                break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"JupyterLab did not answer within {SERVER_START_TIMEOUT}s:\n"
                        + server.log_tail(), pytrace=False)
                time.sleep(0.2)
        # the settings must really be in force (else off-screen cells are not
        # rendered, or the run's outputs could be autosaved into the repo)
        for plugin, values in LAB_SETTINGS.items():
            got = server.api("GET", f"/lab/api/settings/{plugin}")["settings"]
            for k, v in values.items():
                assert got.get(k) == v, (
                    f"JupyterLab setting {plugin}:{k} is {got.get(k)!r}, expected {v!r} "
                    f"(settings dir {settings_dir})")
        yield server
    finally:
        server.shutdown_all_kernels()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        log.close()
        _kill_leftover_kernels(runtime_dir)
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# browser


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


# ---------------------------------------------------------------------------
# results table printed at the end of the run (independent of -s)

_REPORT_KEY = pytest.StashKey[dict]()


@pytest.fixture
def posenc_report(request) -> dict:
    """dict notebook-name -> row; rows are printed by pytest_terminal_summary."""
    return request.config.stash[_REPORT_KEY]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    rows = config.stash.get(_REPORT_KEY, {})
    if not rows:
        return
    tr = terminalreporter
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
    all_lat = [x for r in rows.values() for x in (r.get("latencies_ms") or [])]
    if all_lat:
        tr.write_line(
            f"all notebooks: {len(all_lat)} slider steps, median {statistics.median(all_lat):.0f} ms, "
            f"max {max(all_lat):.0f} ms (sliders: keydown -> src; other = checkboxes/dropdowns)")
