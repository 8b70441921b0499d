"""The static edition in a real browser: pages built by tools/build_site.py, served from
127.0.0.1, opened in headless Chromium with every other request aborted.

Built once per module (a fixture): notebooks 02, 03 and 07, with a small frame count so that
their main sliders get subsets (evenly spaced values, both ends kept). Checked per page: no
console error, no failed request, no request leaves 127.0.0.1, the page is zh-CN and its
Chinese is drawn with a Simplified Chinese font (the font Chromium really used, from the
DevTools protocol), every explorer's main slider dragged with the mouse shows the frame for the
value its readout shows (pixel for pixel the PNG the same explorer draws in this process with
the page's control values), every other control is disabled (a drag does not move it), and
every explorer says so in its hint. Checked on the files: every internal link resolves (links
to notebooks this build left out excepted), and no page refers to an http(s) script,
stylesheet or font. The time from navigation to the page being ready for a drag is printed,
never asserted.

Run:  python -m pytest tests/browser/test_static_site.py
"""
from __future__ import annotations

import base64
import functools
import io
import json
import os
import re
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest

import build_site as bs  # tools/build_site.py (pyproject puts tools/ on the test path)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(1800)]

PAGES = ("02", "03", "07")
#: Frames per explorer: fewer than the sliders' values, so the subsets are what is tested.
FRAMES = 24
WIDGET_STATE = 'application/vnd.jupyter.widget-state+json'


def _missing(msg: str):
    if os.environ.get("CI"):
        pytest.fail(f"{msg} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if shutil.which("npm") is None:
        _missing("npm not installed (apt-get install -y nodejs npm): tools/build_site.py needs it")
    out = tmp_path_factory.mktemp("site")
    report = bs.build(out, bs.notebook_paths(PAGES), frames=FRAMES, log=lambda line: print("[site]", line))
    return out, report


@pytest.fixture(scope="module")
def server(site):
    out, _ = site

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def page_file(out: Path, number: str) -> Path:
    (path,) = out.glob(f"{number}_*.html")
    return path


def widget_state(html: str) -> dict:
    m = re.search(rf'<script type="{re.escape(WIDGET_STATE)}">\s*(.*?)\s*</script>', html, re.S)
    return json.loads(m[1])["state"]


def explorers_in(state: dict) -> dict:
    """model id -> (explorer name, [control models in the order of the controls box])."""
    rows = {}
    for mid, m in state.items():
        s = m["state"]
        name = next((c[len("posenc-explorer-"):] for c in s.get("_dom_classes", []) if c.startswith("posenc-explorer-")), None)
        if name:
            box = state[s["children"][0][len("IPY_MODEL_"):]]["state"]
            rows[mid] = (name, [state[c[len("IPY_MODEL_"):]] for c in box["children"]])
    return rows


def decoded(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def reference_png(name: str, controls: list, main_label: str) -> bytes:
    """The PNG this process draws for explorer ``name`` with the page's control values and the
    main slider at the value whose readout is ``main_label``."""
    import posenc_lib as pl
    from posenc.ui.engine.static import option_pairs

    ex = pl.EXPLORERS[name]()
    main = ex.frames.main
    for (key, control), model in zip(ex.controls.items(), controls, strict=True):
        s = model["state"]
        if key == main:
            continue
        if "index" in s and hasattr(control, "index"):
            control.index = s["index"]
        else:
            control.value = s["value"]
    values = dict(option_pairs(ex.controls[main]))
    ex.controls[main].value = values[main_label]
    return ex.shown_png()


JS_EXPLORERS = """
() => Array.from(document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]'))
  .map(s => ({id: JSON.parse(s.textContent).model_id, el: s.parentElement.querySelector('.posenc-explorer')}))
  .filter(x => x.el).map(x => x.id)
"""
JS_READY = """
(n) => {
  const ex = document.querySelectorAll('.posenc-explorer');
  if (ex.length < n) return false;
  return Array.from(ex).every(e => !e.querySelector('.posenc-frames') ||
    (e.querySelector('.posenc-frames img') && e.querySelector('.posenc-frames-control .noUi-handle')));
}
"""


def _allowed(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname == "127.0.0.1"


def _drag(page, slider, frac: float) -> None:
    """Drag ``slider``'s handle with the mouse to ``frac`` of its track."""
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


def _shown_png(root) -> bytes:
    src = root.locator(".posenc-frames img").get_attribute("src")
    assert src.startswith("data:image/png;base64,"), src[:40]
    return base64.b64decode(src.split(",", 1)[1])


def _platform_fonts(context, page, selector: str) -> list[str]:
    """The fonts Chromium really drew the node's text with (DevTools protocol)."""
    cdp = context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, f"no {selector}"
    return [f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]]


@pytest.mark.parametrize("number", PAGES)
def test_page_works_with_no_kernel_and_no_network(number, site, server, browser, capsys):
    out, _ = site
    path = page_file(out, number)
    state = widget_state(path.read_text(encoding="utf-8"))
    explorers = explorers_in(state)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    context.set_default_timeout(60_000)
    errors, failed, outside = [], [], []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: failed.append(r.url) if _allowed(r.url) else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)

    def route(r):
        if _allowed(r.request.url):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    try:
        page.goto(f"{server}/{path.name}", wait_until="commit")
        page.wait_for_function(JS_READY, arg=len(explorers), polling=20)
        ready_ms = page.evaluate("performance.now()")
        page.wait_for_load_state("load")
        with capsys.disabled():
            print(f"\n[static site] {path.name}: {path.stat().st_size / 1e6:.2f} MB, "
                  f"ready for a drag {ready_ms / 1000:.2f} s after navigation, {len(explorers)} explorers")

        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        for selector in (".jp-MarkdownOutput h1", ".posenc-static-hint span"):
            # on screen: cells far off screen are not laid out (content-visibility), so no font is chosen
            page.locator(selector).first.scroll_into_view_if_needed()
            page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            fonts = _platform_fonts(context, page, selector)
            cjk = [f for f in fonts if "CJK" in f or f.endswith((" SC", " TC", " JP", " KR"))]
            assert cjk and all(f.endswith("SC") or "CJK SC" in f for f in cjk), (selector, fonts)

        ids = page.evaluate(JS_EXPLORERS)
        assert sorted(ids) == sorted(explorers), "every explorer of the page is rendered"
        for k, mid in enumerate(ids):
            name, controls = explorers[mid]
            root = page.locator(".posenc-explorer").nth(k)
            assert root.locator(".posenc-static-hint").count() == 1, f"{name}: no static hint"
            boxes = root.locator(".widget-hbox").first.locator(":scope > *")
            flags = boxes.evaluate_all(
                "els => els.map(e => [e.classList.contains('posenc-frames-control'), "
                "!!(e.matches('[disabled]') || e.querySelector('[disabled], :disabled'))])")
            assert len(flags) == len(controls)
            for is_main, disabled in flags:
                assert disabled is not is_main, f"{name}: {flags}"
            if root.locator(".posenc-frames").count() == 0:
                continue
            slider = root.locator(".posenc-frames-control")
            readout = slider.locator(".widget-readout")
            for j, (is_main, _) in enumerate(flags):   # a disabled slider does not move
                other = boxes.nth(j)
                if not is_main and other.locator(".noUi-handle").count():
                    before = other.locator(".widget-readout").text_content()
                    _drag(page, other, 0.9)
                    assert other.locator(".widget-readout").text_content() == before, f"{name}: a disabled slider moved"
                    break
            for _ in range(2):   # to the far side of the track from where the handle is, twice
                label0, png0 = readout.text_content(), _shown_png(root)
                h, t = slider.locator(".noUi-handle").bounding_box(), slider.locator(".noUi-base").bounding_box()
                _drag(page, slider, 0.15 if h["x"] + h["width"] / 2 > t["x"] + t["width"] / 2 else 0.85)
                page.wait_for_function("([el, old]) => el.textContent !== old",
                                       arg=[readout.element_handle(), label0])
                label = readout.text_content()
                png = _shown_png(root)
                assert png != png0, f"{name}: the figure did not change ({label0} -> {label})"
                ref = reference_png(name, controls, label)
                assert np.array_equal(decoded(png), decoded(ref)), f"{name} at {label}: not the frame for that value"
    finally:
        context.close()
    assert not outside, f"requests outside 127.0.0.1: {outside[:5]}"
    assert not failed, f"failed requests: {failed[:5]}"
    assert not errors, f"console errors: {errors[:5]}"


def test_every_internal_link_resolves(site):
    out, report = site
    links = bs.internal_links(out)
    assert any(t.endswith(".html") for _, t in links) and any("#" in t for _, t in links)
    built = {f"{s}.html" for s in report["built"]}
    course = {f"{p.stem}.html" for p in bs.NB_DIR.glob("[0-9][0-9]_*.ipynb")}
    broken = [(p, t) for p, t in bs.dangling_links(out) if t.partition("#")[0] not in course - built]
    assert not broken, broken


REMOTE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)


def _css_targets(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [m.strip("'\" ") for m in re.findall(r"url\(([^)]*)\)", css)] + \
        re.findall(r"@import\s+['\"]([^'\"]+)", css)


def test_no_page_refers_to_a_remote_script_stylesheet_or_font(site):
    out, _ = site
    pages = sorted(out.glob("*.html"))
    assert pages
    css_files = sorted(out.rglob("*.css"))
    for path in pages:
        html = path.read_text(encoding="utf-8")
        tags = re.findall(r"<(?:script|link)\b[^>]*>", html, re.I)
        assert tags
        for tag in tags:
            assert not re.search(r"\b(?:integrity|crossorigin)\b", tag, re.I), (path.name, tag)
            for target in re.findall(r"\b(?:src|href)\s*=\s*[\"']([^\"']*)", tag, re.I):
                assert not REMOTE.match(target), (path.name, tag)
                if target.endswith(".css"):
                    assert (path.parent / target).is_file(), (path.name, target)
        for body in re.findall(r"<script(?![^>]*type=\"application/[^\"]*json)[^>]*>(.*?)</script>", html, re.S | re.I):
            assert not re.search(r"https?://", body), (path.name, body[:200])
        for css in re.findall(r"<style[^>]*>(.*?)</style>", html, re.S | re.I):
            assert not [t for t in _css_targets(css) if REMOTE.match(t)], path.name
    for path in css_files:
        assert not [t for t in _css_targets(path.read_text(encoding="utf-8")) if REMOTE.match(t)], path


def test_a_page_opened_from_a_file_works_too(site, browser):
    """file:// (a page opened by double-clicking it): widgets, formulas and fonts load from the
    folder beside it, and the main slider still switches the figure."""
    out, _ = site
    path = page_file(out, "03")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    errors = []
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    try:
        page.goto(path.as_uri())
        page.wait_for_function(JS_READY, arg=len(explorers_in(widget_state(path.read_text(encoding="utf-8")))),
                               polling=20)
        assert page.locator(".jp-MarkdownOutput .katex").count() > 0, "no formula typeset"
        root = page.locator(".posenc-explorer").first
        slider = root.locator(".posenc-frames-control")
        label0, png0 = slider.locator(".widget-readout").text_content(), _shown_png(root)
        _drag(page, slider, 0.85)
        page.wait_for_function("([el, old]) => el.textContent !== old",
                               arg=[slider.locator(".widget-readout").element_handle(), label0])
        assert _shown_png(root) != png0
        page.wait_for_function("document.fonts.status === 'loaded'")
        assert page.evaluate("[...document.fonts].every(f => f.status !== 'error')")
    finally:
        context.close()
    assert not errors, errors[:5]
