"""Links land, in the reader's JupyterLab: the README's server (its config file and the course's
settings, nothing of this suite's own: windowingMode "defer" from .jupyter/lab-settings), the
contents page opened, every route link clicked with the mouse, a sample of the answer sheet's (13)
links, one per notebook it points into, and each notebook's first link to a place in itself. Each click must bring the target cell's heading into
the notebook's viewport, uncovered; in a notebook the click opened, it must still be there once
every cell above it has rendered.

Why links go to cells (``07_rope.ipynb#cell-id=…``): tests/test_anchors.py. Why "defer", measured
while choosing (1440 × 900, the contents page's 50 route links, the machine loaded): links by
heading text landed 16 / 50 (every link to a Chinese heading fails; the ones that "landed" were
already on the first screen); cell links landed 48–49 / 50 under JupyterLab's default
"contentVisibility" (a notebook already open, its off-screen cells' estimated heights), 44 / 50
under "none" (cells rendered after the scroll push the target away), 50 / 50 under "defer" (twice,
and 70 / 70 for every distinct target of the course); "full" also 50 / 50 once, but it detaches
cells off screen, widgets and all.

Also here, in the same session: JupyterLab's own markdown renderer (the one a notebook's cells go
through) renders every markdown cell of the course, and tests/lab_markdown.mjs, which
tests/test_markdown_parity.py trusts, must put emphasis in the same places; the server really culls
idle kernels with the README config's values (its log), and closing a notebook's tab shuts its
kernel down (kernelShutdown).
"""
from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

import build_contents  # tools/build_contents.py: the routes, declared
from lab_session import JS_DOM_QUIET, KERNEL_READY_S, jupyterlab
from test_markdown_parity import CELLS, lab_render

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(1200)]

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / ".jupyter" / "jupyter_lab_config.py"
#: This suite's settings, minus the notebook's: no autosave (a test must not write into the
#: repository), no news or update toasts.
READER_SETTINGS = {
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True},
}
LINK = re.compile(r"\]\(([^)\s]*#cell-id=[^)\s]+)\)")
LAND_S = 60        # a click -> the heading on screen (a notebook opened for the first time, loaded machine)
VIEWPORT = {"width": 1280, "height": 800}


def links_of(name: str) -> list[dict]:
    """The cell links of a notebook's markdown, in the order they appear: the cell they are in,
    their place among that cell's cell links, the notebook and cell they point to."""
    out = []
    for cell in json.loads((REPO / "notebooks" / name).read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for k, target in enumerate(LINK.findall("".join(cell["source"]))):
            file, fragment = target.split("#", 1)
            out.append({"cell": cell["id"], "k": k, "hash": "#" + fragment,
                        "path": f"notebooks/{file or name}", "target": fragment.removeprefix("cell-id=")})
    return out


def answer_sheet_sample() -> list[dict]:
    """13's links, the first one into each notebook."""
    seen, out = set(), []
    for link in links_of("13_summary_interview.ipynb"):
        if link["path"] not in seen:
            seen.add(link["path"])
            out.append(link)
    return out


def within_sample() -> list[tuple[str, dict]]:
    """(notebook, link): the first link of each notebook to a place in itself (``#cell-id=…``)."""
    out = []
    for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        own = [link for link in links_of(path.name) if link["path"] == f"notebooks/{path.name}"]
        if own:
            out.append((f"notebooks/{path.name}", own[0]))
    return out


#: The notebook panel of ``path`` (opened in this tab), as ``window.__nb`` for JS_DOM_QUIET.
JS_PANEL = """(path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return false;
  const w = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
  if (!w || !w.context.isReady) return false;
  window.__nb = w;
  return true;
}"""

#: Make the link ready to click: activate the panel it is in, bring its cell into view, wait
#: for the cell's markdown to render its links, and mark the link. Returns the link's hash.
JS_MARK_LINK = """async ([path, cellId, k, hash]) => {
  const app = window.jupyterapp;
  const w = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
  app.shell.activateById(w.id);
  const cell = w.content.widgets.find(c => c.model.id === cellId);
  if (cell.isPlaceholder() || !cell.inViewport) await w.content.scrollToCell(cell, 'center');
  for (let t = 0; t < 300; t++) {
    const links = Array.from(cell.node.querySelectorAll('.jp-RenderedMarkdown a')).filter(a => a.hash.startsWith('#cell-id='));
    if (links.length > k) {
      document.querySelectorAll('[data-posenc-link]').forEach(a => a.removeAttribute('data-posenc-link'));
      links[k].setAttribute('data-posenc-link', '1');
      links[k].scrollIntoView({block: 'center'});
      return links[k].hash;
    }
    await new Promise(r => setTimeout(r, 100));
  }
  return null;
}"""

#: The target's heading: on screen in the current notebook's viewport and the topmost element
#: at its middle (nothing covers it). ``'wrong tab'``, ``'no cell'``, ``'off <px>'``, or true.
JS_LANDED = """([path, cellId]) => {
  const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.context || w.context.path !== path) return 'wrong tab';
  const cell = w.content.widgets.find(c => c.model.id === cellId);
  const h = cell && cell.node.querySelector('h1, h2, h3, h4, h5, h6');
  if (!h) return 'no cell';
  const box = (w.node.querySelector('.jp-WindowedPanel-outer') || w.content.node).getBoundingClientRect();
  const r = h.getBoundingClientRect();
  if (!(r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1)) return 'off ' + Math.round(r.top - box.top);
  const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 40), r.top + r.height / 2);
  return (hit && h.contains(hit)) ? true : 'covered';
}"""

#: :data:`JS_LANDED` as a condition to wait for (a string, the reason it has not landed, is truthy).
JS_HAS_LANDED = f"(args) => ({JS_LANDED.strip()})(args) === true"

#: Every source through the markdown renderer a notebook's cells use (the notebook's own
#: rendermime: removeMath, marked as JupyterLab configures it, the sanitizer): its em/strong.
JS_LAB_TAGS = """async (sources) => {
  const rendermime = window.__nb.content.rendermime;
  const out = [];
  for (const source of sources) {
    const r = rendermime.createRenderer('text/markdown');
    await r.renderModel({data: {'text/markdown': source}, metadata: {}, trusted: false, setData() {}});
    out.push(Array.from(r.node.querySelectorAll('em, strong')).map(e => e.localName));
    r.dispose();
  }
  return out;
}"""


@pytest.fixture(scope="module")
def reader_lab():
    """The README's JupyterLab (its --config), with the course's settings in force."""
    with jupyterlab(root=REPO, extra_args=[f"--config={CONFIG}"], settings=READER_SETTINGS) as lab:
        # the course's overrides.json becomes the settings' defaults; no user setting replaces them
        tracker = lab.api("GET", "/lab/api/settings/@jupyterlab/notebook-extension:tracker")
        defaults = {k: v.get("default") for k, v in tracker["schema"]["properties"].items()}
        assert defaults["windowingMode"] == "defer" and defaults["kernelShutdown"] is True
        assert not {"windowingMode", "kernelShutdown"} & set(tracker["settings"])
        yield lab


@pytest.fixture(scope="module")
def contents_tab(reader_lab, browser):
    """A tab with the contents page open (a fresh workspace), kept for the module."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    index = "notebooks/00_index.ipynb"
    page.goto(reader_lab.url(f"/lab/workspaces/links-{uuid.uuid4().hex[:10]}/tree/{quote(index)}"),
              wait_until="domcontentloaded")
    page.wait_for_function(JS_PANEL, arg=index, timeout=KERNEL_READY_S * 1000, polling=200)
    yield page
    context.close()


#: Every cell from the top down to the target attached and rendered (what "defer" attaches while
#: the browser idles, top first): nothing above the target will change height any more.
JS_ABOVE_RENDERED = """([path, cellId]) => {
  const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.context || w.context.path !== path) return false;
  const cells = w.content.widgets, last = cells.findIndex(c => c.model.id === cellId);
  return last >= 0 && cells.slice(0, last + 1).every(c => !c.isPlaceholder() && (c.model.type !== 'markdown' || c.rendered));
}"""


def click_and_land(page, source: str, link: dict, first_open: bool) -> tuple[object, float, float]:
    """Click ``link`` (in notebook ``source``) with the mouse and wait until its heading is on
    screen. In a notebook the click opened, wait again until every cell above the target is
    rendered and the notebook's DOM is quiet, and look again: the heading must still be there.
    Returns (what the last look found, seconds to landing, seconds to the last look)."""
    from playwright.sync_api import TimeoutError as PWTimeout

    assert page.evaluate(JS_MARK_LINK, [source, link["cell"], link["k"], link["hash"]]) == link["hash"], link
    page.click("[data-posenc-link]")
    start = time.monotonic()
    where = [link["path"], link["target"]]
    try:
        page.wait_for_function(JS_HAS_LANDED, arg=where, timeout=LAND_S * 1000, polling=100)
    except PWTimeout:
        return page.evaluate(JS_LANDED, where), LAND_S, LAND_S
    seconds = time.monotonic() - start
    if first_open:
        page.wait_for_function(JS_ABOVE_RENDERED, arg=where, timeout=LAND_S * 1000, polling=250)
        page.evaluate(JS_PANEL, link["path"])
        page.evaluate(JS_DOM_QUIET, [300, 10_000])
    return page.evaluate(JS_LANDED, where), seconds, time.monotonic() - start


def test_route_answer_sheet_and_in_notebook_links_land_on_their_headings(contents_tab, posenc_line):
    routes = links_of("00_index.ipynb")
    sheet = answer_sheet_sample()
    # one link per section each route names (tools/build_contents.py's ROUTES), and 13 links everywhere
    assert len(routes) == sum(len(wanted) for route in build_contents.ROUTES for _, wanted in route[3])
    within = within_sample()
    assert len(sheet) >= 10 and within
    missed, opened, first, again = [], {"notebooks/00_index.ipynb"}, [], []
    start = time.monotonic()
    clicks = [("notebooks/00_index.ipynb", link) for link in routes] + \
        [("notebooks/13_summary_interview.ipynb", link) for link in sheet] + within
    for source, link in clicks:
        is_first = link["path"] not in opened
        found, landed, looked = click_and_land(contents_tab, source, link, is_first)
        opened.add(link["path"])
        (first if is_first else again).append((landed, looked))
        if found is not True:
            missed.append((source, link["path"], link["target"], found))
    clicked = len(clicks)
    median = lambda xs: sorted(xs)[len(xs) // 2]
    posenc_line(f"JupyterLab links: {clicked - len(missed)} / {clicked} landed on their heading "
                f"({len(routes)} route links of 00, {len(sheet)} of 13's answer sheet, {len(within)} within a notebook) "
                f"in {time.monotonic() - start:.0f} s; "
                f"into a notebook the click opened ({len(first)}): landed after {median([a for a, _ in first]):.1f} s "
                f"(median; slowest {max(a for a, _ in first):.1f} s), still there once rendered, after "
                f"{median([b for _, b in first]):.1f} s; into an open one: {median([a for a, _ in again]):.1f} s")
    assert not missed, "\n".join(map(repr, missed))


def test_jupyterlab_renders_markdown_as_the_parity_test_reads_it(contents_tab):
    """Every markdown cell of the course through JupyterLab's renderer: the same em/strong, in the
    same order, as tests/lab_markdown.mjs finds (which tests/test_markdown_parity.py checks)."""
    contents_tab.evaluate(JS_PANEL, "notebooks/00_index.ipynb")
    sources = [source for _, _, source in CELLS]
    lab = contents_tab.evaluate(JS_LAB_TAGS, sources)
    mine = [r["tags"] for r in lab_render(sources)]
    differ = [(name, cell, a, b) for (name, cell, _), a, b in zip(CELLS, lab, mine) if a != b]
    assert len(lab) == len(CELLS) > 300 and not differ, "\n".join(map(repr, differ[:10]))


def test_idle_kernels_are_culled_and_a_closed_tab_takes_its_kernel(reader_lab, contents_tab):
    """The server logs the culler it started with the config's values; closing a notebook's tab
    ends its kernel (the kernel of the contents page: it runs nothing here)."""
    from test_repo import lab_config

    kernels = lab_config(str(CONFIG.relative_to(REPO))).MappingKernelManager
    log = (reader_lab.tmp / "jupyterlab.log").read_text(errors="replace")
    assert (f"Culling kernels with idle durations > {kernels.cull_idle_timeout} seconds at "
            f"{kernels.cull_interval} second intervals") in log, log[-3000:]
    kernel = contents_tab.evaluate("""() => {
      const w = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === 'notebooks/00_index.ipynb');
      const id = w.sessionContext.session.kernel.id;
      w.close();
      return id;
    }""")
    deadline = time.monotonic() + KERNEL_READY_S
    while any(k["id"] == kernel for k in reader_lab.api("GET", "/api/kernels")):
        assert time.monotonic() < deadline, "the closed tab's kernel is still running"
        time.sleep(0.2)
