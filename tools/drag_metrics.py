"""Measure how explorer figures follow a slider in real JupyterLab (headless Chromium).

Numbers per explorer slider, all measured inside the page (``performance.now()``):

* **key step**: keydown (ArrowRight/Left on the focused handle) -> the next animation
  frame in which the visible figure is a new, decoded image ("new pixels");
* **drag fps**: mouse down on the handle, ``moves`` mouse moves spread over
  ``duration`` s, mouse up; the number of distinct decoded figures that were on screen
  between mousedown and mouseup, divided by that time. Two drivers: ``mouse`` (Playwright's
  mouse, CDP input: each move waits for the renderer, 25-45 moves/s arrive) and ``page``
  (MouseEvents dispatched by the page from a 60 Hz timer, what a 60 Hz mouse gives);
* **coverage**: distinct figures / slider positions the page showed during the drag
  (1.0: the figure followed every position; a slider with few positions cannot give
  30 figures per second however fast the figures are);
* **release lag**: mouseup -> the animation frame from which the figure on screen is
  the final one (the one for the released value), clipped at 0;
* **release check**: after the drag, the kernel's slider position equals the page's and
  the SHA-256 of the PNG on screen equals the kernel's ``explorer.shown_png()``.

"The figure on screen" is sampled on every ``requestAnimationFrame``: the visible
``img`` of the explorer (``offsetParent !== null``), its ``src`` and
whether it is decoded (``complete && naturalWidth``). A visible figure that is not
decoded yet (or no visible figure at all) is a *blank* sample: it is counted, since a
reader sees a hole there.

The slider measured is the explorer's main control (``Explorer.main``, the one whose
frames are pre-rendered); :func:`measure_notebook` waits until its frames are rendered
(``posenc.ui.engine.frames.status()``) before it measures, unless the checkout has no frames.

The module has no pytest dependency: ``tests/browser/test_jupyterlab.py`` (with the browser
suite's server), ``tools/benchmark.py --only drag`` (before/after, interleaved) and the
command line use it. ``python tools/drag_metrics.py 03 07`` prints a table for
those notebooks (its own private JupyterLab server, like the browser suite's).
"""
from __future__ import annotations

import json
import math
import statistics
import sys
import time
from pathlib import Path

from lab_session import (FIGURE_UPDATE_S, FRAMES_FILL_S, REPO, chromium, close_notebook,  # tools/lab_session.py
                         first_with_slider, jupyterlab, kernel_eval, kernel_exec, kernel_value,
                         open_notebook)

# ---------------------------------------------------------------------------
# the explorer in the kernel (works with or without frames: a checkout before them too)

# Defined in the kernel by install_helpers(): the one explorer named NAME (found through the
# frame sets alive; two explorers of one name are refused rather than guessed).
KERNEL_HELPERS = """
def __posenc_explorer(name):
    # the explorers of this kernel are the owners of its frame sets (each set renders with its
    # explorer's bound method): no search of the heap
    import ipywidgets
    module = __posenc_frames()
    sets = module.SCHEDULER.sets() if module is not None else []
    found = [o for o in {id(s.render.__self__): s.render.__self__ for s in sets
                         if hasattr(s.render, "__self__")}.values()
             if getattr(o, "name", None) == name and isinstance(getattr(o, "widget", None), ipywidgets.Widget)]
    if len(found) != 1:
        raise LookupError(f"{len(found)} explorers named {name!r}")
    return found[0]

def __posenc_frames():
    # the frames module the explorers of this kernel use (posenc/ui/engine/ since the engine has a
    # room of its own; posenc/figures/ in a checkout from before, measured by tools/benchmark.py
    # --before). Read from sys.modules: find_spec could answer for another checkout's package
    # (an editable install's finder maps every posenc.* name to its own tree)
    import sys
    for name in ("posenc.ui.engine.frames", "posenc.figures.frames"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "status"):
            return module
    return None
"""


def install_helpers(page) -> None:
    kernel_exec(page, KERNEL_HELPERS)


def kernel_explorer(name: str) -> str:
    """A kernel expression for the one explorer named ``name`` (after :func:`install_helpers`)."""
    return f"__posenc_explorer({name!r})"


def main_slider_index(page, name: str, control: str) -> int:
    """Position of ``control`` among the explorer's sliders (its ``.widget-slider`` in the page)."""
    return kernel_value(page, f"(lambda ex: [k for k, c in ex.controls.items() if 'Slider' in type(c).__name__]"
                              f".index({control!r}))({kernel_explorer(name)})")


def has_frames(page) -> bool:
    """Does the kernel's posenc have frames (False: a checkout before them)?"""
    return kernel_eval(page, "__posenc_frames() is not None") == "True"


def wait_frames(page, name: str, timeout_s: float = FRAMES_FILL_S, near: int | None = None) -> dict:
    """Wait until the explorer's frames are rendered (the fill runs while the kernel is
    quiet, nearest the handle first): all of them, or with ``near`` at least that many (the
    positions around the handle); returns its ``frames.status()`` row and the seconds waited."""
    expr = (f"(lambda ex: [r for r in __posenc_frames().status()"
            f" if r['explorer'] == ex.name][0])({kernel_explorer(name)})")
    t0 = time.monotonic()
    while True:
        row = kernel_value(page, expr)
        enough = near is not None and row["frames"] >= min(near, row["positions"])
        if enough or not row["pending"] or row["broken"]:
            return {**row, "wait_s": time.monotonic() - t0}
        if time.monotonic() - t0 > timeout_s:
            raise TimeoutError(f"{name}: frames not rendered after {timeout_s} s: {row}")
        time.sleep(0.5)          # polling the kernel's own state, not waiting a fixed time


def kernel_shown(page, name: str, control: str) -> dict:
    """The kernel's view of the explorer: slider position (index of a SelectionSlider, else
    the value) and SHA-256 of the PNG it shows (``shown_png()``; before frames: the image)."""
    expr = (f"(lambda ex, h: (lambda c: {{'position': c.index if hasattr(c, 'index') else c.value,"
            f" 'sha': h(ex.shown_png() if hasattr(ex, 'shown_png') else ex.image.value).hexdigest()}})"
            f"(ex.controls[{control!r}]))({kernel_explorer(name)}, __import__('hashlib').sha256)")
    return kernel_value(page, expr)


# ---------------------------------------------------------------------------
# in-page sampler

JS_SAMPLER = """
([ex, handle]) => {
  if (window.__smp) { window.__smp.stop(); }
  const log = [], muts = [], ev = [], vals = [];
  let lastVal = null;
  // every <img> of an explorer is a figure (a new one gets its classes a moment after insertion)
  const figs = () => Array.from(ex.querySelectorAll('img'));
  const visible = () => figs().find(i => i.offsetParent !== null) || null;
  // What an <img> shows: while a new src loads, the element keeps showing the image it
  // last loaded (its "current request"), so remember the src of every load.
  const shownSrc = new WeakMap();
  const onLoad = e => { if (e.target.tagName === 'IMG') shownSrc.set(e.target, {src: e.target.currentSrc || e.target.src}); };
  ex.addEventListener('load', onLoad, true);
  // a short key per distinct src (data: URLs are tens of KB)
  const ids = new Map();
  const idOf = src => { if (!ids.has(src)) ids.set(src, 'f' + ids.size); return ids.get(src); };
  const keyOf = img => {
    if (!img) return 'NONE';
    if (img.complete && img.naturalWidth > 0) { shownSrc.set(img, {src: img.src}); return idOf(img.src); }
    const s = shownSrc.get(img);
    return s ? idOf(s.src) : 'BLANK';
  };
  let last = null, running = true;
  figs().forEach(keyOf);
  const tick = (t) => {
    if (!running) return;
    const img = visible();
    const k = keyOf(img);
    const now = performance.now();
    log.push(k === last ? null : {t: now, k});
    last = k;
    // the slider's value as the page shows it (aria-valuenow of the handle)
    const v = handle ? handle.getAttribute('aria-valuenow') : null;
    if (v !== lastVal) { vals.push({t: now, v}); lastVal = v; }
    requestAnimationFrame(tick);
  };
  const mo = new MutationObserver(ms => {
    const t = performance.now();
    for (const m of ms) {
      if (m.type === 'attributes') muts.push({t, src: idOf(m.target.src)});
      else if (Array.from(m.addedNodes).some(n => n.nodeType === 1 && (n.tagName === 'IMG' || n.querySelector('img'))))
        muts.push({t, src: 'new-img'});
    }
  });
  mo.observe(ex, {subtree: true, attributes: true, attributeFilter: ['src'], childList: true});
  // (attribute records come only from figures: no other element in an explorer has a src)
  const on = (name) => (e) => ev.push({t: performance.now(), type: name, key: e.key || null});
  // noUiSlider (the ipywidgets slider) listens to mouse events in Chromium
  const handlers = ['mousedown', 'mouseup', 'keydown', 'mousemove'].map(n => [n, on(n)]);
  handlers.forEach(([n, h]) => document.addEventListener(n, h, true));
  window.__smp = {
    log, muts, ev,
    stop() { running = false; mo.disconnect(); ex.removeEventListener('load', onLoad, true); handlers.forEach(([n, h]) => document.removeEventListener(n, h, true)); },
    current() { return keyOf(visible()); },
    reset() { log.length = 0; muts.length = 0; ev.length = 0; vals.length = 0; last = null; lastVal = null; },
    // samples as [t, key] transitions plus the number of frames sampled
    dump() { return {frames: log.length, changes: log.filter(x => x), muts: muts.slice(), vals: vals.slice(), ev: ev.filter(e => e.type !== 'mousemove'),
                     moves: ev.filter(e => e.type === 'mousemove').length}; },
  };
  requestAnimationFrame(tick);
}
"""

# resolves once the visible figure has not changed for quietMs (or after maxMs)
JS_QUIET = """
([quietMs, maxMs]) => new Promise(resolve => {
  const s = window.__smp, t0 = performance.now();
  const lastT = () => { const c = s.log.filter(x => x); return c.length ? c[c.length - 1].t : t0; };
  const tick = () => {
    const now = performance.now();
    if (s.current() !== 'BLANK' && s.current() !== 'NONE' && now - Math.max(lastT(), t0) >= quietMs) resolve(true);
    else if (now - t0 >= maxMs) resolve(false);
    else setTimeout(tick, 20);
  };
  tick();
})
"""


def _install(page, explorer, slider: int | None = 0) -> None:
    handle = None if slider is None else _handle(explorer, slider).element_handle()
    page.evaluate(JS_SAMPLER, [explorer.element_handle(), handle])


def wait_quiet(page, quiet_ms=800, max_ms=15_000) -> bool:
    return page.evaluate(JS_QUIET, [quiet_ms, max_ms])


def _handle(explorer, slider: int):
    return explorer.locator(".widget-slider").nth(slider).locator(".noUi-handle").first


def slider_state(explorer, slider: int = 0) -> dict:
    h = _handle(explorer, slider)
    return h.evaluate("""h => ({now: parseFloat(h.getAttribute('aria-valuenow')),
        min: parseFloat(h.getAttribute('aria-valuemin')), max: parseFloat(h.getAttribute('aria-valuemax')),
        text: h.getAttribute('aria-valuetext')})""")


def measure_key_steps(page, explorer, slider: int = 0, n: int = 8, timeout_ms: int = 5000) -> dict:
    """Press ArrowRight (ArrowLeft at the top end) ``n`` times, one at a time, waiting for
    the figure to settle in between. Returns per step the ms from keydown to the first
    animation frame showing a new decoded figure (``pixels_ms``) and to the first ``src``
    mutation (``src_ms``, what test_jupyterlab.py reports)."""
    _install(page, explorer, slider)
    h = _handle(explorer, slider)
    h.focus()
    pixels, srcs = [], []
    for _ in range(n):
        wait_quiet(page, 300, 5000)
        before = page.evaluate("() => window.__smp.current()")
        st = slider_state(explorer, slider)
        key = "ArrowLeft" if st["now"] >= st["max"] else "ArrowRight"
        page.evaluate("() => window.__smp.reset()")
        page.keyboard.press(key)
        page.wait_for_function(
            "(before) => window.__smp.log.some(x => x && x.k !== before && x.k !== 'BLANK' && x.k !== 'NONE')",
            arg=before, timeout=timeout_ms, polling="raf")
        d = page.evaluate("() => window.__smp.dump()")
        kd = next(e["t"] for e in d["ev"] if e["type"] == "keydown")
        first = next(c["t"] for c in d["changes"] if c["k"] not in (before, "BLANK", "NONE"))
        pixels.append(first - kd)
        m = [x["t"] for x in d["muts"] if x["t"] >= kd]
        srcs.append((m[0] - kd) if m else float("nan"))
    return {"pixels_ms": pixels, "src_ms": srcs, "median_ms": statistics.median(pixels)}


# A drag made of MouseEvents dispatched by the page itself, ``moves`` moves at a fixed
# interval (what a 60 Hz mouse gives): the CDP mouse of Playwright waits for the
# renderer to acknowledge each move, which caps its rate at ~30-40 moves/s here.
JS_PAGE_DRAG = """
async ([handle, x0, y, dx, moves, duration]) => {
  const o = (x, buttons) => ({bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y,
                              button: 0, buttons, view: window});
  const root = document.documentElement;
  handle.dispatchEvent(new MouseEvent('mousedown', o(x0, 1)));
  const t0 = performance.now();
  for (let j = 1; j <= moves; j++) {
    const due = t0 + duration * 1000 * j / moves;
    await new Promise(r => setTimeout(r, Math.max(0, due - performance.now())));
    root.dispatchEvent(new MouseEvent('mousemove', o(x0 + dx * j / moves, 1)));
  }
  root.dispatchEvent(new MouseEvent('mouseup', o(x0 + dx, 0)));
}
"""


def measure_drag(page, explorer, slider: int = 0, moves: int = 30, duration: float = 0.5,
                 span: float = 0.6, settle_ms: int = 800, driver: str = "mouse") -> dict:
    """One drag of slider ``slider``: mouse down on its handle, ``moves`` moves over
    ``duration`` s covering ``span`` of the track (towards the side with more room),
    mouse up. Returns distinct decoded figures shown during the drag, fps, blank
    samples, release lag, and the final slider value.

    ``driver="mouse"``: Playwright's mouse (CDP input, the way a real mouse arrives; each
    move waits for the renderer, so the drag can last longer than ``duration``);
    ``driver="page"``: MouseEvents dispatched in the page on a fixed timer."""
    _install(page, explorer, slider)
    h = _handle(explorer, slider)
    h.scroll_into_view_if_needed()
    wait_quiet(page, 300, 10_000)
    track = explorer.locator(".widget-slider").nth(slider).locator(".noUi-target").first.bounding_box()
    box = h.bounding_box()
    x0, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    right = (track["x"] + track["width"] - x0) >= (x0 - track["x"])
    dx = (1 if right else -1) * span * track["width"]
    page.evaluate("() => window.__smp.reset()")
    if driver == "page":
        page.evaluate(JS_PAGE_DRAG, [h.element_handle(), x0, y, dx, moves, duration])
    else:
        page.mouse.move(x0, y)
        page.mouse.down()
        t0 = time.perf_counter()
        for j in range(1, moves + 1):
            target = t0 + duration * j / moves
            while (d := target - time.perf_counter()) > 0:
                time.sleep(min(d, 0.004))
            page.mouse.move(x0 + dx * j / moves, y)
        page.mouse.up()
    settled = wait_quiet(page, settle_ms, 15_000)
    d = page.evaluate("() => window.__smp.dump()")
    down = next(e["t"] for e in d["ev"] if e["type"] == "mousedown")
    up = next(e["t"] for e in d["ev"] if e["type"] == "mouseup")
    ch = d["changes"]
    final = ch[-1]["k"] if ch else page.evaluate("() => window.__smp.current()")
    shown = {c["k"] for c in ch if down <= c["t"] <= up and c["k"] not in ("BLANK", "NONE")}
    # slider positions the page showed during the drag (the figure can show at most these)
    values = [v["v"] for v in d["vals"] if down <= v["t"] <= up]
    blank_frames = _blank_time(ch, down, up)
    t_final = max((c["t"] for c in ch), default=up)
    return {
        "moves": d["moves"], "drag_ms": up - down, "figures": len(shown),
        "move_rate": d["moves"] / ((up - down) / 1000), "figures_per_move": len(shown) / max(1, d["moves"]),
        "values": len(values), "value_rate": len(values) / ((up - down) / 1000),
        "coverage": len(shown) / max(1, len(values)),
        "fps": len(shown) / ((up - down) / 1000), "blank_ms": blank_frames,
        "lag_ms": max(0.0, t_final - up), "settled": settled,
        "final_value": slider_state(explorer, slider)["now"], "final_key": final,
        "final_sha": displayed_sha(page, explorer),
    }


JS_DISPLAYED_SHA = """
async (ex) => {
  const img = Array.from(ex.querySelectorAll('img')).find(i => i.offsetParent !== null);
  if (!img) return null;
  const buf = await (await fetch(img.src)).arrayBuffer();
  const h = await crypto.subtle.digest('SHA-256', buf);
  return Array.from(new Uint8Array(h)).map(b => b.toString(16).padStart(2, '0')).join('');
}
"""


def displayed_sha(page, explorer) -> str | None:
    """SHA-256 of the image bytes (the PNG) of the figure on screen, to compare with the
    kernel's ``hashlib.sha256(png).hexdigest()``."""
    return page.evaluate(JS_DISPLAYED_SHA, explorer.element_handle())


def _blank_time(changes, t0, t1) -> float:
    """ms between t0 and t1 during which the visible figure was blank or absent."""
    total, state, since = 0.0, None, t0
    for c in changes:
        if c["t"] <= t0:
            state = c["k"]
            continue
        if c["t"] > t1:
            break
        if state in ("BLANK", "NONE"):
            total += c["t"] - since
        state, since = c["k"], c["t"]
    if state in ("BLANK", "NONE"):
        total += t1 - since
    return total


def summarize(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


# ---------------------------------------------------------------------------
# every control redraws


JS_SELECT_NEXT = """(el) => { el.selectedIndex = (el.selectedIndex + 1) % el.options.length;
                              el.dispatchEvent(new Event('change', {bubbles: true})); }"""


def check_controls_redraw(page, explorer, timeout_ms: int = 10_000) -> dict:
    """Move every control of ``explorer`` once (a key step on each slider, a click on each
    checkbox, the next option of each dropdown); each must bring a new decoded figure on
    screen. Returns {"checked": n, "problems": [...]}."""
    from playwright.sync_api import TimeoutError as PWTimeout

    _install(page, explorer, None)
    problems, checked = [], 0
    for kind, outer, inner in (("slider", ".widget-slider", ".noUi-handle"),
                               ("checkbox", ".widget-checkbox", "input[type=checkbox]"),
                               ("dropdown", ".widget-dropdown", "select")):
        loc = explorer.locator(outer)
        for j in range(loc.count()):
            el = loc.nth(j).locator(inner).first
            label = loc.nth(j).inner_text().strip().splitlines()[0][:30] if loc.nth(j).inner_text().strip() else ""
            wait_quiet(page, 300, 10_000)
            before = page.evaluate("() => window.__smp.current()")
            if kind == "slider":
                st = el.evaluate("h => [parseFloat(h.getAttribute('aria-valuenow')), parseFloat(h.getAttribute('aria-valuemax'))]")
                el.focus()
                page.keyboard.press("ArrowLeft" if st[0] >= st[1] else "ArrowRight")
            elif kind == "checkbox":
                el.click()
            else:
                el.evaluate(JS_SELECT_NEXT)
            checked += 1
            try:
                page.wait_for_function(
                    "(b) => { const c = window.__smp.current(); return c !== b && c !== 'BLANK' && c !== 'NONE'; }",
                    arg=before, timeout=timeout_ms, polling="raf")
            except PWTimeout:
                problems.append(f"{kind} {j} {label!r}: no new figure within {timeout_ms / 1000:.0f} s")
    return {"checked": checked, "problems": problems}


# ---------------------------------------------------------------------------
# one notebook, measured


def measure_notebook(page, lab, rel: str, keys: int = 8, drags: int = 3, drivers=("mouse", "page"),
                     setup: str = "", frames_timeout_s: float = FRAMES_FILL_S, check_controls: bool = False,
                     near: int | None = None, control: str | None = None) -> dict:
    """Open and run notebook ``rel``, then :func:`measure_open`."""
    open_notebook(page, lab, rel, setup=setup)
    return measure_open(page, Path(rel).stem, keys, drags, drivers, frames_timeout_s, check_controls, near,
                        control)


def measure_open(page, notebook: str, keys: int = 8, drags: int = 3, drivers=("mouse", "page"),
                 frames_timeout_s: float = FRAMES_FILL_S, check_controls: bool = False,
                 near: int | None = None, control: str | None = None) -> dict:
    """Measure the main slider (``main`` of this checkout's explorer classes; ``control``: that
    slider instead, e.g. a frame grid's second control) of the first explorer that has a main
    slider, in the notebook open in ``page`` (already run): key steps,
    ``drags`` drags per driver, and after each drag the release check. With frames in the
    kernel's posenc, waits for that explorer's frames first (all, or ``near`` of them:
    :func:`wait_frames`). ``check_controls``: then move every control of the explorer once
    (:func:`check_controls_redraw`)."""
    import posenc_lib as pl

    install_helpers(page)
    framed = {n for n, c in pl.EXPLORERS.items() if c.main}
    explorer, name = first_with_slider(page, framed)
    control = control or pl.EXPLORERS[name].main
    slider = main_slider_index(page, name, control)
    out = {"notebook": notebook, "explorer": name, "control": control, "frames": has_frames(page)}
    if out["frames"]:
        out["fill"] = wait_frames(page, name, frames_timeout_s, near)
    out["keys"] = measure_key_steps(page, explorer, slider, keys)
    for drv in drivers:
        out[drv] = []
        for _ in range(drags):
            d = measure_drag(page, explorer, slider, driver=drv)
            d.update(release_check(page, explorer, slider, name, control, d))
            out[drv].append(d)
    if check_controls:
        out["controls"] = check_controls_redraw(page, explorer)
    return out



def release_check(page, explorer, slider: int, name: str, control: str, drag: dict,
                  timeout_s: float = FIGURE_UPDATE_S) -> dict:
    """After a drag: does the page come to show the kernel's figure at the kernel's position?
    Waits for agreement (a loaded machine's kernel may still be drawing the last value when
    the page has been quiet for the drag's settle time) and fails only if the two still
    differ after ``timeout_s``. Returns ``kernel``, ``final_value``, ``final_sha`` (as they
    were compared last) and ``release_ok``."""
    deadline = time.monotonic() + timeout_s
    final_value, final_sha = drag["final_value"], drag["final_sha"]
    while True:
        k = kernel_shown(page, name, control)
        # (a FloatSlider's value may arrive as 0.8999999999999999 for the page's 0.9)
        ok = k["sha"] == final_sha and math.isclose(k["position"], final_value, rel_tol=1e-9, abs_tol=1e-9)
        if ok or time.monotonic() > deadline:
            return {"kernel": k, "final_value": final_value, "final_sha": final_sha, "release_ok": ok}
        page.wait_for_timeout(100)   # polling a condition, not a wait that stands for one
        final_value, final_sha = slider_state(explorer, slider)["now"], displayed_sha(page, explorer)


JS_TIMED_SELECT_NEXT = """(el) => { window.__t0 = performance.now(); el.selectedIndex = (el.selectedIndex + 1) % el.options.length;
                                    el.dispatchEvent(new Event('change', {bubbles: true})); }"""
JS_TIMED_CLICK = """(el) => { window.__t0 = performance.now(); el.click(); }"""

#: The module that holds the frames' switches (:data:`MAX_BYTES`, …) in this checkout.
FRAMES_MODULE = "posenc.ui.engine.frames"
#: A kernel statement that switches frames off in this checkout's kernel: run as ``setup``
#: before Run All, every explorer is then drawn by the kernel only (no set may hold a byte).
FRAMES_OFF = f"import {FRAMES_MODULE} as _F; _F.MAX_BYTES = 0\n"


def _frames_done(page, name: str):
    """(frames rendered, positions) of the explorer's frame set now; None without frames."""
    rows = kernel_value(page, f"[(r['frames'], r['positions']) for r in (__posenc_frames().status() "
                              f"if __posenc_frames() else []) if r['explorer'] == {name!r}]")
    return tuple(rows[-1]) if rows else None


def measure_change(page, explorer, kind: str, j: int, timeout_ms: int = 10_000) -> float:
    """ms from changing checkbox / dropdown ``j`` of ``explorer`` to the first animation frame
    showing a new decoded figure."""
    outer, inner, js = {"checkbox": (".widget-checkbox", "input[type=checkbox]", JS_TIMED_CLICK),
                        "dropdown": (".widget-dropdown", "select", JS_TIMED_SELECT_NEXT)}[kind]
    _install(page, explorer, None)
    wait_quiet(page, 300, 10_000)
    before = page.evaluate("() => window.__smp.current()")
    page.evaluate("() => window.__smp.reset()")
    explorer.locator(outer).nth(j).locator(inner).first.evaluate(js)
    page.wait_for_function(
        "(b) => window.__smp.log.some(x => x && x.k !== b && x.k !== 'BLANK' && x.k !== 'NONE')",
        arg=before, timeout=timeout_ms, polling="raf")
    d = page.evaluate("() => window.__smp.dump()")
    t0 = page.evaluate("() => window.__t0")
    return next(c["t"] for c in d["changes"] if c["k"] not in (before, "BLANK", "NONE")) - t0


def measure_controls_during_fill(page, lab, rel: str, setup: str = "", keys: int = 4,
                                 wait_s: float = 0.0) -> dict:
    """Open and run notebook ``rel``, leave the kernel alone for ``wait_s`` seconds (the fill
    of its frames starts once the kernel has been quiet a moment) and then, while the fill is
    still going on (unless ``setup`` is :data:`FRAMES_OFF`), use every control of its first explorer with a
    main slider: each slider ``keys`` key steps (median ms to new pixels) and one drag with
    Playwright's mouse (fps, coverage, release lag); each checkbox and dropdown one change
    (ms to new pixels). Also: the main slider's frames rendered when the walk began and
    ended. Returns ``{"notebook", "explorer", "fill": (start, end), "controls": [row, ...]}``."""
    import posenc_lib as pl

    open_notebook(page, lab, rel, setup=setup)
    install_helpers(page)
    framed = {n for n, c in pl.EXPLORERS.items() if c.main}
    explorer, name = first_with_slider(page, framed)
    page.wait_for_timeout(wait_s * 1000)
    start = _frames_done(page, name)
    rows = []
    sliders = explorer.locator(".widget-slider")
    for j in range(sliders.count()):
        label = sliders.nth(j).inner_text().strip().splitlines()[0][:24]
        k = measure_key_steps(page, explorer, j, keys)
        d = measure_drag(page, explorer, j, driver="mouse")
        rows.append({"control": label, "kind": "slider", "key_ms": k["median_ms"], "fps": d["fps"],
                     "coverage": d["coverage"], "lag_ms": d["lag_ms"]})
    for kind, outer in (("checkbox", ".widget-checkbox"), ("dropdown", ".widget-dropdown")):
        for j in range(explorer.locator(outer).count()):
            label = explorer.locator(outer).nth(j).inner_text().strip().splitlines()[0][:24] or kind
            rows.append({"control": label, "kind": kind, "key_ms": measure_change(page, explorer, kind, j),
                         "fps": None, "coverage": None, "lag_ms": None})
    return {"notebook": Path(rel).stem, "explorer": name, "fill": (start, _frames_done(page, name)),
            "controls": rows}



def summary(r: dict, drivers=("mouse", "page")) -> dict:
    """Medians of one :func:`measure_notebook` result: key ms, and per driver fps, coverage,
    lag ms, blank ms; whether every release check passed."""
    s = {"key_ms": r["keys"]["median_ms"]}
    for drv in drivers:
        for k in ("fps", "coverage", "lag_ms", "blank_ms", "value_rate"):
            s[f"{drv}_{k}"] = statistics.median(d[k] for d in r[drv])
    s["release_ok"] = all(d["release_ok"] for drv in drivers for d in r[drv])
    return s


def format_row(r: dict, drivers=("mouse", "page")) -> str:
    s = summary(r, drivers)
    parts = [f"{r['notebook'][:30]:30} {r['explorer']:12} {r['control']:12} key {s['key_ms']:5.1f} ms"]
    for drv in drivers:
        parts.append(f"{'60 Hz' if drv == 'page' else drv}: {s[f'{drv}_fps']:5.1f} fps "
                     f"(cover {s[f'{drv}_coverage']:.2f}) lag {s[f'{drv}_lag_ms']:4.0f} ms")
    fill = f" | fill {r['fill']['wait_s']:.1f} s, {r['fill']['frames']}/{r['fill']['positions']} frames, " \
           f"{r['fill']['bytes'] / 2**20:.1f} MB" if "fill" in r else " | no frames"
    return " | ".join(parts) + fill + ("" if s["release_ok"] else " | RELEASE CHECK FAILED")


def notebooks_with_explorers(notebook_dir: Path = REPO / "notebooks", any_explorer: bool = False) -> list[Path]:
    """Notebooks whose code makes an explorer with a main slider (``pl.EXPLORERS[...]`` or
    the class itself); ``any_explorer``: any explorer."""
    import posenc_lib as pl

    framed = {n: c.__name__ for n, c in pl.EXPLORERS.items() if c.main or any_explorer}
    out = []
    for p in sorted(notebook_dir.glob("*.ipynb")):
        src = "".join("".join(c["source"]) for c in json.loads(p.read_text())["cells"] if c["cell_type"] == "code")
        if any(f'EXPLORERS["{n}"]' in src or f"pl.{cls}(" in src for n, cls in framed.items()):
            out.append(p)
    return out


# ---------------------------------------------------------------------------
# command line: a table for the given notebooks (prefixes such as 03)


def main(argv=None) -> int:
    import argparse

    import live_metrics as lm   # it imports this module: loaded here, not at the top

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", help="notebook prefixes (default: every notebook with an explorer)")
    ap.add_argument("--drags", type=int, default=3, help="drags per driver")
    ap.add_argument("--keys", type=int, default=8)
    ap.add_argument("--drivers", default="mouse,page")
    ap.add_argument("--live", action="store_true",
                    help="every live control of every explorer instead (measure_live: idle and during a fill)")
    ap.add_argument("--fill-keys", type=int, default=5, help="--live: steps per control during a fill")
    ap.add_argument("--repo", type=Path, default=REPO, help="checkout whose notebooks and posenc are measured")
    ap.add_argument("--dsf", type=float, default=1.0, help="browser device scale factor (2: a HiDPI screen)")
    ap.add_argument("--json", help="write the raw results here")
    a = ap.parse_args(argv)
    drivers = tuple(a.drivers.split(","))
    with_explorers = notebooks_with_explorers(any_explorer=a.live)
    nbs = ([sorted((a.repo / "notebooks").glob(f"{p}*.ipynb"))[0] for p in a.notebooks] if a.notebooks
           else [a.repo / "notebooks" / p.name for p in with_explorers])
    results = []
    with jupyterlab(root=a.repo, env_extra={"PYTHONPATH": str(a.repo)}) as lab, chromium() as browser:
        for nb in nbs:
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=a.dsf)
            page = ctx.new_page()
            try:
                rel = nb.relative_to(a.repo).as_posix()
                if a.live:
                    rows = lm.measure_live_notebook(page, lab, rel, a.keys, a.fill_keys)
                    results += rows
                    print("\n".join(lm.live_table(rows)[2:]), flush=True)
                else:
                    r = measure_notebook(page, lab, rel, a.keys, a.drags, drivers)
                    results.append(r)
                    print(format_row(r, drivers), flush=True)
            finally:
                close_notebook(page, lab)
                ctx.close()
    if a.live:
        print("\n".join(lm.live_table(results)))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
