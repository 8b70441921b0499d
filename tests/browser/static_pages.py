"""What tests/browser/test_static_site.py builds and reads: the pages it builds (the contents
page, 02, 07, 11, and one page of every other notebook's explorer cells), a tab that collects
console errors and failed or outside requests, the kernel's verdict on a typed answer, the
figure a page shows and the one the kernel draws for the same state, the anchors of the built
pages, and moving a page's controls as a reader does."""
from __future__ import annotations

import base64
import io
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

from posenc.exercises.rule import Rule, grade_with

#: The contents page, a hand-calculation page (exercises, worksheet, explorer), a RoPE page
#: (choices, letters of 07), and 11 (exercises, a quiz).
PAGES = ("00", "02", "07", "11")
#: Values per main slider: fewer than the sliders' values, so the subsets are what is tested
#: (and as many as the steps need: tests/test_widgets_spec.py checks every step's values at 24).
FRAMES = 24
#: The explorers of every other notebook, on one page of their own: each notebook's own cell
#: that makes the explorer, run and built like any page (the notebooks themselves train models
#: for minutes; their explorers are what a step moves).
STEPS_PAGE = "90_explorer_steps"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MARK = "posenc-builder-mark"
ROOT = Path(__file__).resolve().parents[2]


def missing(msg: str):
    if os.environ.get("CI"):
        pytest.fail(f"{msg} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(msg)


def explorer_cells() -> list[tuple[str, str, str]]:
    """(notebook stem, explorer name, cell source) of each code cell of the course that makes
    an explorer, in course order."""
    import posenc_lib as pl
    from posenc.course.notebooks import cell_source, notebook_cells

    out = []
    for stem, cells in notebook_cells().items():
        for cell in cells:
            src = cell_source(cell)
            if cell["cell_type"] != "code":
                continue
            for name, cls in pl.EXPLORERS.items():
                if f"pl.{cls.__name__}(" in src:
                    out.append((stem, name, src))
    return out


def explorer_steps_notebook(folder: Path) -> Path:
    """A notebook of the explorer cells of every notebook not in PAGES (each under a heading
    naming its notebook), after the import they need."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 每个探索器的每一步（浏览器测试页）"),
                nbformat.v4.new_code_cell("import posenc_lib as pl")]
    for stem, name, src in explorer_cells():
        if stem[:2] not in PAGES:
            nb.cells += [nbformat.v4.new_markdown_cell(f"## {stem}: {name}"), nbformat.v4.new_code_cell(src)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / f"{STEPS_PAGE}.ipynb"
    nbformat.write(nb, path)
    return path


def page_file(out: Path, number: str) -> Path:
    return out / "index.html" if number == "00" else next(out.glob(f"{number}_*.html"))


def step_pages(out: Path) -> list[Path]:
    """The pages whose explorers' steps the suite performs: every page with an explorer."""
    return [page_file(out, "02"), page_file(out, "07"), out / f"{STEPS_PAGE}.html"]


def allowed(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname == "127.0.0.1"


class Tab:
    """A tab of one context: console errors, failed and outside requests are collected."""

    def __init__(self, context):
        self.errors, self.failed, self.outside = [], [], []
        self.page = page = context.new_page()
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("requestfailed", lambda r: self.failed.append(r.url) if allowed(r.url) else None)
        page.on("response", lambda r: self.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)

    def check(self):
        assert not self.outside, f"requests outside 127.0.0.1: {self.outside[:5]}"
        assert not self.failed, f"failed requests: {self.failed[:5]}"
        assert not self.errors, f"console errors: {self.errors[:5]}"


def open_tab(context, url: str) -> Tab:
    tab = Tab(context)
    context.tabs.append(tab)
    tab.page.goto(url, wait_until="commit")
    tab.page.wait_for_load_state("load")
    return tab


#: Every explorer with frames shows a figure and every control of its frame grid is drawn (a
#: slider's handle, a dropdown's list, a toggle's buttons): a reader can start.
JS_READY = """
() => {
  const ex = document.querySelectorAll('.posenc-explorer');
  return Array.from(ex).every(e => !e.querySelector('.posenc-frames') ||
    (e.querySelector('.posenc-frames img') && e.querySelector('.posenc-frames-main') &&
     Array.from(e.querySelectorAll('.posenc-frames-control')).every(c => c.querySelector('.noUi-handle, select, button'))));
}
"""


def settle(page):
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def kernel_says(rule: dict, answer) -> str:
    """The verdict the kernel's pipeline gives, as the page writes it: head and message."""
    r = Rule(**{k: (tuple(v) if k in ("shape", "slips", "wrong_at", "none_words") and v is not None else v)
                for k, v in rule.items()})
    v = grade_with(r, answer)
    return f"{'正确 ✓' if v.ok else '再想想 ✗'} {v.message}"


def typed(x) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(typed(v) for v in x) + "]"
    return repr(float(x)) if isinstance(x, float) and not float(x).is_integer() else str(int(x) if isinstance(x, float) else x)


def untag(t):
    kind, v = t
    return [untag(x) for x in v] if kind == "seq" else v


JS_INPUTS = """
() => {
  const out = [];
  const all = document.querySelectorAll('input, button, select, textarea, .noUi-target');
  all.forEach((el, i) => {
    if (el.closest('.posenc-nav')) return;
    const off = el.matches('[disabled], :disabled') || !!el.closest('[disabled]');
    out.push({i, tag: el.tagName, type: el.type || '', cls: el.className, off,
              inExplorer: !!el.closest('.posenc-explorer'), main: !!el.closest('.posenc-frames-main')});
  });
  return out;
}
"""


JS_FIGURES = """
(img) => {
  const r = img.getBoundingClientRect();
  let el = img.parentElement, scrolls = false;
  while (el && el !== document.body) {
    const s = getComputedStyle(el);
    if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1) { scrolls = true; break; }
    el = el.parentElement;
  }
  return {scale: r.width / img.naturalWidth, natural: img.naturalWidth, scrolls};
}
"""


def decoded(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


#: The src of the figure an explorer shows, once it is decoded (null: none yet).
JS_SHOWN_SRC = """(root) => { const img = [...root.querySelectorAll('.posenc-frames img')].find(i => i.offsetParent !== null);
  return img && img.complete && img.naturalWidth > 0 ? img.src : null; }"""


def shown_figure_png(root) -> bytes:
    b64 = root.locator(".posenc-frames").evaluate(
        """async s => { const img = [...s.querySelectorAll('img')].find(i => i.offsetParent !== null);
             const buf = await (await fetch(img.src)).arrayBuffer(); let t = '';
             new Uint8Array(buf).forEach(b => t += String.fromCharCode(b)); return btoa(t); }""")
    return base64.b64decode(b64)


def widget_state(html: str) -> dict:
    m = re.search(rf'<script type="{re.escape(WIDGET_STATE)}">\s*(.*?)\s*</script>', html, re.S)
    return json.loads(m[1])["state"]


def reference_png(name: str, state: dict, root_model: str, main_label: str) -> bytes:
    """The PNG this process draws for explorer ``name`` with the page's control values and the
    main slider at the value whose readout is ``main_label``."""
    import posenc_lib as pl
    from posenc.ui.engine.static import option_pairs

    ex = pl.EXPLORERS[name]()
    box = state[state[root_model]["state"]["children"][0][len("IPY_MODEL_"):]]["state"]
    models = [state[c[len("IPY_MODEL_"):]]["state"] for c in box["children"]]
    for (key, control), s in zip(ex.controls.items(), models, strict=True):
        if key == ex.main:
            continue
        if "index" in s:      # a selection widget: the value its label reads (the page may hold fewer options)
            control.value = dict(ex.declared[key].pairs())[s["_options_labels"][s["index"]]]
        else:
            control.value = s["value"]
    ex.controls[ex.main].value = dict(option_pairs(ex.controls[ex.main]))[main_label]
    return ex.shown_png()


def drag_to(page, slider, frac: float) -> None:
    handle, track = slider.locator(".noUi-handle"), slider.locator(".noUi-base")
    handle.scroll_into_view_if_needed()
    h, t = handle.bounding_box(), track.bounding_box()
    x0, y = h["x"] + h["width"] / 2, h["y"] + h["height"] / 2
    page.mouse.move(x0, y)
    page.mouse.down()
    x1 = t["x"] + frac * t["width"]
    for k in range(1, 11):
        page.mouse.move(x0 + (x1 - x0) * k / 10, y)
    page.mouse.up()


def platform_fonts(context, page, selector: str) -> list[str]:
    cdp = context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, f"no {selector}"
    return [f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]


#: Follow ``href`` from the current page as a click does, then find what the browser scrolled to
#: (``:target``) and its heading: on screen and uncovered -> true, else the reason.
JS_FOLLOW = """async (href) => {
  if (href !== null) {
    const a = document.createElement('a');
    a.href = href;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }
  const look = () => {
    const t = document.querySelector(':target');
    if (!t) return 'nothing';
    const h = t.matches('h1, h2, h3, h4, h5, h6') ? t : t.querySelector('h1, h2, h3, h4, h5, h6');
    if (!h) return 'no heading';
    const r = h.getBoundingClientRect();
    if (!(r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1)) return 'off ' + Math.round(r.top);
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 40), r.top + r.height / 2);
    return (hit && h.contains(hit)) ? true : 'covered';
  };
  // what scrolled into view is painted within a few frames (cells off screen skip rendering)
  let seen = look();
  for (let frame = 0; seen !== true && frame < 60; frame++) {
    await new Promise(r => requestAnimationFrame(r));
    seen = look();
  }
  return seen;
}"""


def anchors(out: Path, pages=None) -> dict[str, list[tuple[str, str]]]:
    """Every ``<a href>`` with a fragment in the pages of ``out`` that points into a page of
    ``pages`` (default: any): target page -> [(page it is on, href as written)]."""
    import html as html_lib

    found = {}
    for page in sorted(out.glob("*.html")):
        for _, href in re.findall(r"<a\b[^>]*?\bhref=([\"'])(.+?)\1", page.read_text(encoding="utf-8"), re.I):
            href = html_lib.unescape(href)
            if "#" not in href or re.match(r"[a-z][a-z0-9+.-]*:|//", href, re.I):
                continue
            target = href.partition("#")[0] or page.name
            if pages is None or target in pages:
                found.setdefault(target, []).append((page.name, href))
    return found


#: :data:`JS_FOLLOW` for each of a list of hrefs, one after another in the page.
JS_FOLLOW_EACH = f"""async (hrefs) => {{
  const follow = {JS_FOLLOW.strip()};
  const out = [];
  for (const href of hrefs) out.push(await follow(href));
  return out;
}}"""


def follow_every_anchor(page, base: str, found: dict) -> list[tuple]:
    """Open each target page once and follow every anchor into it there (a click on a link to
    another page lands the same way once that page is open); the misses."""
    missed = []
    for target, links in found.items():
        page.goto(f"{base}/{target}")
        page.wait_for_function(JS_READY, polling=50)
        results = page.evaluate(JS_FOLLOW_EACH, ["#" + href.partition("#")[2] for _, href in links])
        missed += [(source, href, r) for (source, href), r in zip(links, results) if r is not True]
    return missed


REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)


def css_targets(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [m.strip("'\" ") for m in re.findall(r"url\(([^)]*)\)", css)] + \
        re.findall(r"@import\s+['\"]([^'\"]+)", css)


def page_control(root, ex, name):
    """The element of control ``name`` of an explorer (the controls row, in declared order)."""
    j = list(ex.controls).index(name)
    return root.locator(":scope > .widget-hbox").first.locator(":scope > *").nth(j)


def move_control(page, el, ex, name, value, model: dict) -> None:
    """Move control ``name``'s element the way a reader does: a slider with the arrow keys (as
    many presses as positions from where it is to the value, its position on the page read from
    the page's widget state ``model``), a dropdown's option, a toggle's button."""
    text = ex.declared[name].text(value)
    classes = el.get_attribute("class")
    if "widget-slider" in classes:
        handle, readout = el.locator(".noUi-handle"), el.locator(".widget-readout")
        labels = model.get("_options_labels") or [str(v) for v in range(model["min"], model["max"] + 1, model["step"])]
        assert text in labels, f"{name}: no position of the page's slider reads {text!r}"
        handle.focus()
        steps = labels.index(text) - round(float(handle.get_attribute("aria-valuenow")) - float(model.get("min", 0)))
        for _ in range(abs(steps)):
            page.keyboard.press("ArrowRight" if steps > 0 else "ArrowLeft")
        assert readout.text_content().strip() == text, (name, text, readout.text_content())
        return
    if "widget-dropdown" in classes:
        el.locator("select").select_option(label=text)
    elif "widget-toggle-buttons" in classes:
        el.locator("button", has_text=text).click()
    else:
        raise AssertionError(f"{name}: {classes} is not a frame grid's control")


def page_explorers(page, state):
    """(root locator, explorer name, its controls' widget states in declared order) of every
    explorer of the page with frames, in page order."""
    views = page.evaluate("""() => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
        .filter(s => s.parentElement.querySelector('.posenc-explorer .posenc-frames')).map(s => JSON.parse(s.textContent).model_id)""")
    roots = page.locator(".posenc-explorer:has(.posenc-frames)")
    assert roots.count() == len(views) > 0
    ref = lambda x: x[len("IPY_MODEL_"):]
    out = []
    for k, m in enumerate(views):
        name = next(c[len("posenc-explorer-"):] for c in state[m]["state"]["_dom_classes"] if c.startswith("posenc-explorer-"))
        row = state[ref(state[m]["state"]["children"][0])]["state"]["children"]
        out.append((roots.nth(k), name, [state[ref(c)]["state"] for c in row]))
    return out
