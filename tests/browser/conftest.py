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
import os
import shutil
from pathlib import Path

import pytest

from lab_session import LAB_SETTINGS, REPO, Lab, chromium, jupyterlab

NOTEBOOK_DIR = Path(os.environ.get("POSENC_NOTEBOOK_DIR") or REPO / "notebooks").resolve()

SERVER_START_TIMEOUT = 60  # s


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: real-browser tests (JupyterLab in headless Chromium)"
    )


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


@pytest.fixture(scope="session")
def lab_server(chromium_path) -> Lab:
    """The README's JupyterLab (Chinese UI from the repository's settings override) on a
    private port, with LAB_SETTINGS in force, started once per test session."""
    if importlib.util.find_spec("jupyterlab") is None:
        _missing("jupyterlab not installed")
    if not NOTEBOOK_DIR.is_dir():
        pytest.fail(f"notebook dir {NOTEBOOK_DIR} does not exist", pytrace=False)
    # the notebooks' parent (the repo root by default); widened to a common ancestor when
    # POSENC_NOTEBOOK_DIR points elsewhere, so that the self-test notebook next to this
    # file is reachable too.  Kernels start in their notebook's own directory either way.
    root = Path(os.path.commonpath([NOTEBOOK_DIR.parent, Path(__file__).resolve().parent]))
    # the README's launch: its config file (Chinese UI settings dir; root_dir and default_url are
    # overridden by the launcher's own arguments, which take precedence over a config file)
    readme_ui = f"--config={REPO / '.jupyter' / 'jupyter_lab_config.py'}"
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(
                jupyterlab(root=root, extra_args=[readme_ui], timeout=SERVER_START_TIMEOUT))
        except RuntimeError as e:
            pytest.fail(str(e), pytrace=False)
        # the settings must really be in force (else off-screen cells are not rendered,
        # or the run's outputs could be autosaved into the repo)
        for plugin, values in LAB_SETTINGS.items():
            got = server.api("GET", f"/lab/api/settings/{plugin}")["settings"]
            for k, v in values.items():
                assert got.get(k) == v, f"JupyterLab setting {plugin}:{k} is {got.get(k)!r}, expected {v!r}"
        yield server


@pytest.fixture(scope="module")
def browser(chromium_path):
    """Headless Chromium for one test module. Not per session: Playwright's sync API keeps
    its asyncio loop running in the main thread while it is alive, so the in-process tests
    collected after the browser suite would find a running event loop (the frames' scheduler
    would schedule into it, and asyncio.run() would refuse)."""
    with chromium(chromium_path) as b:
        yield b


# ---------------------------------------------------------------------------
# results table printed at the end of the run (independent of -s)

@pytest.fixture
def posenc_report(request) -> dict:
    """dict notebook-name -> row; rows are printed by tests/conftest.py's summary. They travel in
    the test report's ``user_properties`` (under pytest-xdist the test ran in a worker and the
    table is printed by the controller)."""
    rows: dict = {}
    yield rows
    for name, row in rows.items():
        request.node.user_properties.append(("posenc_row", (name, row)))


@pytest.fixture
def posenc_line(request):
    """``posenc_line(text)``: a line printed with the suite's table at the end of the run."""
    return lambda text: request.node.user_properties.append(("posenc_line", text))
