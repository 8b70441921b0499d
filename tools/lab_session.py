"""A private JupyterLab server and headless Chromium, and a notebook opened, run and
queried in them: what tools/drag_metrics.py (and tools/benchmark.py) measure with from the
command line, and what tests/browser/conftest.py's fixtures start for the browser suite
(pyproject.toml puts tools/ on the test path).
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]

#: How long each kind of wait may take, in seconds: one limit per kind, for every browser test
#: and tool (a wait ends as soon as its condition holds; these only bound a stall).
SERVER_START_S = 60        # a JupyterLab server answering /api/status
KERNEL_READY_S = 90        # a notebook open with its kernel idle and connected
RUN_ALL_S = 300            # Run All of one notebook (the slowest trains models: about a minute under load)
WIDGET_RENDER_S = 30       # every widget output drawn, every figure decoded
FIGURE_UPDATE_S = 10       # a control moved -> the new figure on screen
KERNEL_CALL_S = 30         # one silent kernel evaluation
FRAMES_FILL_S = 240        # a frame set rendered in the background (all of it)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]

# User settings: every cell rendered, default kernel, no autosave,
# no news / update toasts.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none", "autoStartDefaultKernel": True},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
}


# ---------------------------------------------------------------------------
# server and browser


@dataclass
class Lab:
    base_url: str
    token: str
    root_dir: Path
    tmp: Path
    proc: subprocess.Popen = field(repr=False)

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base_url}{path}{sep}token={self.token}"

    def api(self, method: str, path: str, timeout: float = 10):
        req = urllib.request.Request(self.base_url + path, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 40) -> str:
        p = self.tmp / "jupyterlab.log"
        return "\n".join(p.read_text(errors="replace").splitlines()[-n:]) if p.exists() else ""

    def shutdown_kernels(self) -> None:
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


@contextlib.contextmanager
def jupyterlab(root: Path = REPO, extra_args=(), settings=LAB_SETTINGS, env_extra=None,
               timeout: float = SERVER_START_S, server_config: str = ""):
    """A private JupyterLab server (own config/data/runtime/settings dirs), stopped on exit.

    ``server_config``: Python written to the private ``jupyter_server_config.py``
    (e.g. instrumentation)."""
    tmp = Path(tempfile.mkdtemp(prefix="posenc-drag-"))
    if server_config:
        (tmp / "config").mkdir(parents=True, exist_ok=True)
        (tmp / "config" / "jupyter_server_config.py").write_text(server_config)
    sdir = tmp / "user-settings"
    for plugin, values in settings.items():
        pkg, name = plugin.split(":")
        p = sdir / pkg / f"{name}.jupyterlab-settings"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(values))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_DATA_DIR=str(tmp / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(sdir),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"), PYTHONUNBUFFERED="1")
    env.pop("JUPYTER_TOKEN", None)
    env.pop("MPLBACKEND", None)  # a reader's kernel has the inline backend
    # kernels import the posenc_lib of this checkout, even when another checkout is the
    # editable install (git worktrees)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update(env_extra or {})
    port, token = _free_port(), secrets.token_hex(24)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
           f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--expose-app-in-browser",
           f"--FileCheckpoints.checkpoint_dir={tmp / 'checkpoints'}",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           *extra_args]
    log = open(tmp / "jupyterlab.log", "wb")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    lab = Lab(f"http://127.0.0.1:{port}", token, Path(root), tmp, proc)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited ({proc.returncode}):\n{lab.log_tail()}")
            try:
                lab.api("GET", "/api/status", timeout=2)
                break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not answer:\n{lab.log_tail()}") from None
                time.sleep(0.2)
        yield lab
    finally:
        lab.shutdown_kernels()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        log.close()
        # kernels run in their own session: end them by their private runtime dir
        marker = str(tmp / "runtime")
        for d in Path("/proc").glob("[0-9]*"):
            with contextlib.suppress(OSError):
                if marker in (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    os.kill(int(d.name), signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def chromium(path: str = "/usr/bin/chromium", headless: bool = True, args=()):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=path, headless=headless, args=[*CHROMIUM_ARGS, *args])
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


# ---------------------------------------------------------------------------
# open a notebook, run all, find explorers

JS_FIND_PANEL = """
(path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return false;
  const w = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
  if (!w || !w.context.isReady || !w.sessionContext) return false;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!k || k.status !== 'idle' || k.connectionStatus !== 'connected') return false;
  window.__nb = w;
  return true;
}
"""

JS_RUN_ALL = """
async () => {
  const w = window.__nb, app = window.jupyterapp;
  app.shell.activateById(w.id);
  await app.commands.execute('notebook:clear-all-cell-outputs');
  window.__runErr = null;
  app.commands.execute('notebook:run-all-cells').catch(e => { window.__runErr = String(e); });
}
"""

#: Run All has finished: false while the kernel is busy or a non-empty code cell has neither run
#: nor been aborted; else ``'error: …'`` (the command failed), ``'error in cell: …'`` (a cell
#: raised: the kernel then aborts the queued cells, which never get a count) or ``'ran'``.
JS_RUN_FINISHED = """
() => {
  const w = window.__nb;
  if (window.__runErr) return 'error: ' + window.__runErr;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!k || k.status !== 'idle') return false;
  const cells = w.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type === 'code' && c.executionState === 'running') return false;
  }
  const js = w.content.model.toJSON().cells.filter(c => c.cell_type === 'code');
  const src = c => Array.isArray(c.source) ? c.source.join('') : c.source;
  const err = js.find(c => c.outputs.some(o => o.output_type === 'error'));
  if (err) return 'error in cell: ' + src(err).slice(0, 200);
  return js.every(c => !src(c).trim() || c.execution_count != null) ? 'ran' : false;
}
"""

#: :data:`JS_RUN_FINISHED`, and for a clean run also every explorer's figure loaded: ``'ok'``.
JS_RUN_DONE = f"""
() => {{
  const state = ({JS_RUN_FINISHED.strip()})();
  if (state !== 'ran') return state;
  const figs = Array.from(window.__nb.node.querySelectorAll('.posenc-explorer img.posenc-figure'));
  return figs.length > 0 && figs.every(i => i.complete && i.naturalWidth > 0) ? 'ok' : false;
}}
"""


#: Resolves once the notebook's DOM has not changed for ``quietMs`` (or after ``maxMs``).
JS_DOM_QUIET = """
([quietMs, maxMs]) => new Promise(resolve => {
  const t0 = performance.now();
  let last = t0;
  const obs = new MutationObserver(() => { last = performance.now(); });
  obs.observe(window.__nb.node, {subtree: true, childList: true, attributes: true});
  const tick = () => {
    const now = performance.now();
    if (now - last >= quietMs || now - t0 >= maxMs) { obs.disconnect(); resolve(now - last >= quietMs); }
    else requestAnimationFrame(tick);
  };
  tick();
})
"""


JS_RUN_STATE = """
() => {
  const w = window.__nb;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  const js = w.content.model.toJSON().cells.filter(c => c.cell_type === 'code');
  const figs = Array.from(w.node.querySelectorAll('.posenc-explorer img.posenc-figure'));
  return {kernel: k && k.status, counts: js.map(c => c.execution_count),
          figures: figs.length, not_loaded: figs.filter(i => !(i.complete && i.naturalWidth > 0)).length,
          errors: Array.from(w.node.querySelectorAll('.jp-OutputArea-output')).map(o => o.textContent)
                       .filter(t => /Error/.test(t)).map(t => t.slice(0, 300))};
}
"""


def open_notebook(page, lab, rel: str, run_all: bool = True, setup: str = "",
                  timeout_ms: int = RUN_ALL_S * 1000) -> None:
    """Open ``rel`` (path under the server root) in an empty workspace, run ``setup`` in
    its fresh kernel (outside any cell), Run All, wait for every cell and every explorer
    figure. Sets ``window.__nb`` to the notebook panel. ``lab``: this module's :class:`Lab`
    or the browser suite's server (anything with ``url(path)``)."""
    ws = f"drag-{uuid.uuid4().hex[:10]}"
    page.goto(lab.url(f"/lab/workspaces/{ws}/tree/{quote(rel)}"), wait_until="domcontentloaded")
    page.wait_for_function(JS_FIND_PANEL, arg=rel, timeout=timeout_ms, polling=200)
    if setup:
        kernel_exec(page, setup)
    if run_all:
        page.evaluate(JS_RUN_ALL)
        from playwright.sync_api import TimeoutError as PWTimeout

        try:
            res = page.wait_for_function(JS_RUN_DONE, timeout=timeout_ms, polling=100).json_value()
        except PWTimeout:
            raise RuntimeError(f"{rel}: Run All not done in {timeout_ms} ms: {page.evaluate(JS_RUN_STATE)}") from None
        if res != "ok":
            raise RuntimeError(f"{rel}: {res}")
        page.evaluate(JS_DOM_QUIET, [300, WIDGET_RENDER_S * 1000])   # widget children still being attached


def close_notebook(page, lab) -> None:
    """Shut the notebook's kernel down (and every kernel of ``lab``)."""
    with contextlib.suppress(Exception):
        page.evaluate("() => window.__nb && Promise.race([window.__nb.sessionContext.shutdown(),"
                      " new Promise(r => setTimeout(r, 10000))])")
    lab.shutdown_kernels()


def explorers(page):
    """Locator of every explorer of the open notebook, and their names."""
    loc = page.locator(".jp-NotebookPanel .posenc-explorer")
    names = page.evaluate("""() => Array.from(window.__nb.node.querySelectorAll('.posenc-explorer')).map(
        ex => (Array.from(ex.classList).find(c => c.startsWith('posenc-explorer-')) || '').slice(16))""")
    return loc, names


def first_with_slider(page, names=None):
    """The first explorer that has a slider (and, given ``names``, whose name is one of
    them): (locator, name)."""
    loc, found = explorers(page)
    for i, name in enumerate(found):
        if (names is None or name in names) and loc.nth(i).locator(".widget-slider .noUi-handle").count():
            return loc.nth(i), name
    raise LookupError("no explorer with a slider")


def kernel_eval(page, expr: str, timeout_ms: int = KERNEL_CALL_S * 1000):
    """Evaluate ``expr`` in the notebook's kernel (silent execute, user_expressions: no cell
    hook runs, so the frames' fill is not disturbed) and return its repr as a string."""
    return page.evaluate(
        """async ([expr, timeout]) => {
          const k = window.__nb.sessionContext.session.kernel;
          const fut = k.requestExecute({code: '', silent: true, store_history: false,
                                        user_expressions: {r: expr}});
          const reply = await Promise.race([fut.done, new Promise((_, rej) => setTimeout(() => rej('timeout'), timeout))]);
          const r = reply.content.user_expressions.r;
          if (r.status !== 'ok') return 'ERROR ' + r.ename + ': ' + r.evalue;
          return r.data['text/plain'];
        }""", [expr, timeout_ms])


def kernel_value(page, expr: str, timeout_ms: int = KERNEL_CALL_S * 1000):
    """:func:`kernel_eval`, its repr read back as a Python literal (raises on a kernel error)."""
    import ast

    out = kernel_eval(page, expr, timeout_ms)
    if out.startswith("ERROR "):
        raise RuntimeError(f"{expr[:200]}: {out}")
    return ast.literal_eval(out)


def kernel_exec(page, code: str, timeout_ms: int = RUN_ALL_S * 1000) -> str:
    """Run ``code`` in the kernel (not in a cell); returns its stdout, raises on error."""
    res = page.evaluate(
        """async ([code, timeout]) => {
          const k = window.__nb.sessionContext.session.kernel;
          const fut = k.requestExecute({code, silent: false, store_history: false});
          let out = '', err = null;
          fut.onIOPub = m => {
            if (m.header.msg_type === 'stream') out += m.content.text;
            if (m.header.msg_type === 'error') err = m.content.ename + ': ' + m.content.evalue + '\\n' + m.content.traceback.join('\\n');
          };
          await Promise.race([fut.done, new Promise((_, rej) => setTimeout(() => rej('timeout'), timeout))]);
          return {out, err};
        }""", [code, timeout_ms])
    if res["err"]:
        raise RuntimeError(res["err"])
    return res["out"]


def wait_kernel_true(page, expr: str, timeout_s: float = 120, poll_s: float = 0.5) -> float:
    """Poll ``expr`` in the kernel until it is True; returns the seconds waited."""
    t0 = time.monotonic()
    while kernel_eval(page, expr) != "True":
        if time.monotonic() - t0 > timeout_s:
            raise TimeoutError(f"{expr} not True after {timeout_s} s")
        time.sleep(poll_s)
    return time.monotonic() - t0


