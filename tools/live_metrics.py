"""Every live control of an explorer (the controls outside its frame grid, each move drawn by
the kernel): arrow key -> painted figure, timed in the page and in the kernel, with the kernel
idle and while the frames are being filled.

:func:`measure_live` presses each live control's key and joins each press with the kernel's own
record of the redraw it caused (:data:`KERNEL_TIMING`: start, length, draw, encoding, thread) and
of any frame the fill rendered meanwhile; :func:`live_summary` gives the medians and 90th
percentiles; :func:`live_table` a Markdown table. Used by ``tools/benchmark.py --only live``
(before/after, interleaved), ``tests/browser/test_jupyterlab.py`` (printed, never a pass
condition) and ``python tools/drag_metrics.py --live``. The slider sampling, the kernel helpers
and the notebook session come from :mod:`drag_metrics` and :mod:`lab_session`.
"""
from __future__ import annotations

import math
import statistics
import time

from drag_metrics import JS_SAMPLER, has_frames, install_helpers, wait_frames, wait_quiet
from lab_session import FIGURE_UPDATE_S, explorers, kernel_exec, kernel_value, open_notebook, wait_kernel_true


#: Installed in the kernel by :func:`install_timing`: every live redraw (``Explorer.refresh``:
#: its start and length, its thread, its draw and its encoding inside) and every frame the
#: fill renders (``FrameSet.render_next``: start, length, thread) is appended to
#: ``__posenc_times`` (wall-clock seconds, comparable with the page's
#: ``performance.timeOrigin + performance.now()``). Patched on the classes, so it works in any
#: checkout of the engine (tools/benchmark.py --before).
KERNEL_TIMING = """
def __posenc_timing():
    import functools, sys, threading, time
    log, local = [], threading.local()
    ex_mod = sys.modules['posenc.ui.engine.explorer']
    canvas_mod = sys.modules['posenc.ui.engine.canvas']
    frames_mod = sys.modules['posenc.ui.engine.frames']

    def timed(cls, attr, record):
        fn = getattr(cls, attr, None)
        if fn is None or getattr(fn, '__posenc_timed', False):
            return
        @functools.wraps(fn)
        def wrapper(*a, **k):
            t0 = time.time()
            c0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                record(a[0], t0, (time.perf_counter() - c0) * 1000)
        wrapper.__posenc_timed = True
        setattr(cls, attr, wrapper)

    def refresh_wrapper(fn):
        @functools.wraps(fn)
        def wrapper(self, *a, **k):
            rec = {'what': 'refresh', 'explorer': getattr(self, 'name', '?'), 't': time.time(),
                   'thread': threading.current_thread().name, 'draw_ms': 0.0, 'encode_ms': 0.0,
                   'entered': getattr(local, 'entered', None)}
            outer = getattr(local, 'rec', None)
            local.rec = rec
            c0 = time.perf_counter()
            try:
                return fn(self, *a, **k)
            finally:
                rec['ms'] = (time.perf_counter() - c0) * 1000
                rec['ahead'] = bool(getattr(self, '_canvas_behind', False))   # a figure drawn ahead shown
                local.rec = outer
                log.append(rec)
        wrapper.__posenc_timed = True
        return wrapper

    def inner(key):
        def record(obj, t0, ms):
            rec = getattr(local, 'rec', None)
            if rec is not None:
                rec[key] += ms
        return record

    def state_wrapper(fn):   # a control's message reached its widget (before the drawing lock)
        @functools.wraps(fn)
        def wrapper(self, *a, **k):
            outer = getattr(local, 'entered', None)
            local.entered = time.time()
            try:
                return fn(self, *a, **k)
            finally:
                local.entered = outer
        wrapper.__posenc_timed = True
        return wrapper

    import ipywidgets
    if not getattr(ex_mod.Explorer.refresh, '__posenc_timed', False):
        ex_mod.Explorer.refresh = refresh_wrapper(ex_mod.Explorer.refresh)
    if not getattr(ipywidgets.Widget.set_state, '__posenc_timed', False):
        ipywidgets.Widget.set_state = state_wrapper(ipywidgets.Widget.set_state)
    timed(canvas_mod.BlitCanvas, 'draw', inner('draw_ms'))
    for name in ('png', 'encoded'):
        timed(canvas_mod.BlitCanvas, name, inner('encode_ms'))
    timed(frames_mod.FrameSet, 'render_next', lambda fs, t0, ms: log.append(
        {'what': 'fill', 'explorer': fs.label, 't': t0, 'ms': ms, 'thread': threading.current_thread().name}))
    return log

__posenc_times = __posenc_timing()
"""


def install_timing(page) -> None:
    """Record every live redraw and every frame the fill renders in the kernel (:data:`KERNEL_TIMING`)."""
    kernel_exec(page, KERNEL_TIMING)


def kernel_times(page, since: float = 0.0) -> list[dict]:
    """The kernel's records (:data:`KERNEL_TIMING`) that started at or after ``since`` (epoch s)."""
    return kernel_value(page, f"[r for r in __posenc_times if r['t'] >= {since!r}]")


# The state of a control element and the action that moves it one step: a slider's handle an
# arrow key (towards the side with room), a checkbox Space, a <select> the next option (keys
# do not change a closed <select> in headless Chromium: the option is set and 'change'
# dispatched, stamped like a keydown in window.__t0).
JS_LIVE_STATE = """
(el) => {
  if (el.classList.contains('noUi-handle')) {
    const now = parseFloat(el.getAttribute('aria-valuenow')), max = parseFloat(el.getAttribute('aria-valuemax'));
    return {key: now >= max ? 'ArrowLeft' : 'ArrowRight', disabled: el.closest('[disabled]') !== null
            || el.closest('.noUi-target').hasAttribute('disabled')};
  }
  if (el.tagName === 'SELECT')
    return {option: el.selectedIndex >= el.options.length - 1 ? el.selectedIndex - 1 : el.selectedIndex + 1,
            disabled: el.disabled};
  return {key: 'Space', disabled: el.disabled};
}
"""
JS_TIMED_OPTION = """([el, index]) => { window.__t0 = performance.timeOrigin + performance.now(); el.selectedIndex = index;
                                        el.dispatchEvent(new Event('change', {bubbles: true})); }"""

# live controls of an explorer in the page: [kind, index among that kind, label]; the main
# slider (class posenc-frames-control) is not one of them
JS_LIVE_CONTROLS = """
(ex) => {
  // in the order the page shows them (09's rope_type before the factor it enables)
  const kinds = [['slider', '.widget-slider'], ['checkbox', '.widget-checkbox'], ['dropdown', '.widget-dropdown']];
  const seen = {slider: 0, checkbox: 0, dropdown: 0}, out = [];
  // a checkbox without indent has an empty .widget-label: its text is in its own <label>
  const text = e => ((e && e.textContent) || '').replace(/[\\u200b\\s]+/g, ' ').trim();
  ex.querySelectorAll(kinds.map(k => k[1]).join(', ')).forEach(el => {
    const kind = kinds.find(k => el.matches(k[1]))[0], j = seen[kind]++;
    if (!el.classList.contains('posenc-frames-control'))
      out.push([kind, j, (text(el.querySelector('.widget-label')) || text(el)).slice(0, 24)]);
  });
  return out;
}
"""
LIVE_INNER = {"slider": (".widget-slider", ".noUi-handle"), "checkbox": (".widget-checkbox", "input[type=checkbox]"),
              "dropdown": (".widget-dropdown", "select")}


#: True in the kernel once no explorer has a figure left to draw ahead for a live control's next
#: step (posenc/ui/engine/ahead.py; always True for code from before it: --before).
AHEAD_DRAWN = ("getattr(__import__('posenc.ui.engine.scheduler', fromlist=['x']).frame_scheduler(), "
               "'wanting_ahead', lambda: None)() is None")


def live_press(page, explorer, kind: str, j: int, timeout_ms: int = FIGURE_UPDATE_S * 1000) -> dict | None:
    """Move live control ``j`` of ``kind`` one step (:data:`JS_LIVE_STATE`) and wait for the new
    figure. Returns ``t0`` (epoch ms of the keydown / change), ``src_ms`` (to the figure's
    new ``src``) and ``painted_ms`` (to the first animation frame showing the new decoded
    figure); None when the control is disabled."""
    outer, inner = LIVE_INNER[kind]
    el = explorer.locator(outer).nth(j).locator(inner).first
    st = el.evaluate(JS_LIVE_STATE)
    if st["disabled"]:
        return None
    before = page.evaluate("() => window.__smp.current()")
    page.evaluate("() => window.__smp.reset()")
    if "option" in st:
        el.evaluate("el => el.focus()")
        page.evaluate(JS_TIMED_OPTION, [el.element_handle(), st["option"]])
    else:
        el.focus()
        page.keyboard.press(st["key"])
    page.wait_for_function(
        "(before) => window.__smp.log.some(x => x && x.k !== before && x.k !== 'BLANK' && x.k !== 'NONE')",
        arg=before, timeout=timeout_ms, polling="raf")
    d = page.evaluate("() => window.__smp.dump()")
    origin = page.evaluate("() => performance.timeOrigin")
    if "option" in st:
        t0 = page.evaluate("() => window.__t0")
    else:
        t0 = origin + next(e["t"] for e in d["ev"] if e["type"] == "keydown")
    painted = origin + next(c["t"] for c in d["changes"] if c["k"] not in (before, "BLANK", "NONE"))
    m = [origin + x["t"] for x in d["muts"] if origin + x["t"] >= t0]
    return {"t0": t0, "painted_ms": painted - t0, "src_ms": (m[0] - t0) if m else float("nan")}


def first_redraw(records: list[dict], explorer: str, t0: float) -> dict | None:
    """The kernel's first redraw of ``explorer`` (:data:`KERNEL_TIMING`) that started after a
    press at ``t0`` (epoch s; 2 ms of clock skew allowed), or None."""
    after = [r for r in records if r["what"] == "refresh" and r["explorer"] == explorer and r["t"] >= t0 - 0.002]
    return min(after, key=lambda r: r["t"], default=None)


def _with_kernel(press: dict, records: list[dict], explorer: str) -> dict:
    """A press joined with the kernel's records: the first redraw of ``explorer`` that started
    after the press (``inbound_ms``: press -> its start; its length, draw, encoding, thread)
    and whether the fill was rendering a frame at the press (``during_fill``)."""
    t0 = press["t0"] / 1000
    r = first_redraw(records, explorer, t0)
    fill = [f for f in records if f["what"] == "fill" and f["t"] <= t0 <= f["t"] + f["ms"] / 1000 + 0.01]
    out = dict(press, during_fill=bool(fill), fill_threads=sorted({f["thread"] for f in fill}))
    if r is not None:
        out.update(inbound_ms=(r["t"] - t0) * 1000, kernel_ms=r["ms"], ahead=r.get("ahead", False), draw_ms=r["draw_ms"],
                   encode_ms=r["encode_ms"], thread=r["thread"])
        if r.get("entered") is not None:   # press -> the widget's message handled; then -> the redraw began
            out.update(arrival_ms=(r["entered"] - t0) * 1000, wait_ms=(r["t"] - r["entered"]) * 1000)
    return out


def _dropdowns(explorer):
    """``(index, Locator of its <select>)`` of each of the explorer's dropdowns a reader can change
    (one greyed out itself is left out), in page order."""
    selects = explorer.locator(".widget-dropdown select")
    for d in range(selects.count()):
        if not selects.nth(d).is_disabled():
            yield d, selects.nth(d)


def _select(page, select, index: int) -> None:
    """Choose option ``index`` of a dropdown (a Locator of its <select>) and wait for the figure to settle."""
    select.select_option(index=index)
    wait_quiet(page, 300, 10_000)


def enable_control(page, explorer, kind: str, j: int, wait_s: float = 5.0):
    """Make live control ``j`` of ``kind`` enabled, as a reader would: a control greyed out where
    it changes nothing (09's factor under 「不缩放」) is enabled by another option of one of the
    explorer's dropdowns, tried in order (each given ``wait_s`` for the kernel to enable it).
    Returns ``()`` when it was enabled already, ``(dropdown index, its option before, the option
    chosen)`` when an option enabled it (the caller selects the old one back), None when none did
    (every dropdown back as it was)."""
    from playwright.sync_api import TimeoutError as PWTimeout

    outer, inner = LIVE_INNER[kind]
    control = explorer.locator(outer).nth(j).locator(inner).first.element_handle()
    if not control.evaluate(JS_LIVE_STATE)["disabled"]:
        return ()
    for d, select in _dropdowns(explorer):
        before = select.evaluate("el => el.selectedIndex")
        for k, text in enumerate(select.locator("option").all_text_contents()):
            if k == before:
                continue
            select.select_option(index=k)
            try:
                page.wait_for_function(f"(el) => !({JS_LIVE_STATE.strip()})(el).disabled", arg=control,
                                       timeout=wait_s * 1000, polling=100)
            except PWTimeout:
                continue
            wait_quiet(page, 300, 10_000)
            return d, before, text.strip()
        _select(page, select, before)
    return None


def measure_live(page, explorer, name: str, keys: int = 9, fill_keys: int = 5, fill_wait_s: float = 0.8,
                 fill_for: int | None = None, first_options: bool = False) -> list[dict]:
    """Every live control of one explorer (every control but the main slider): ``keys`` steps
    with the kernel otherwise idle (the next one as soon as the figure has been still for
    0.3 s and the kernel has drawn the figures ahead for the step before, :data:`AHEAD_DRAWN`: a
    fill waits for the kernel to be quiet for 1 s, so none runs), then ``fill_keys``
    steps each ``fill_wait_s`` after the figure has been still for 0.3 s (the fill of the main
    slider's frames, dropped by the move, has just started again: 1.1 s after the move, early
    enough for a set of a dozen frames; each press is marked with whether the kernel was
    rendering a frame at that moment; ``fill_for``: only the first that many enabled controls). One row
    per control: its presses joined with the kernel's records (:func:`_with_kernel`) and the
    threads the fill rendered on meanwhile. A control greyed out at the explorer's settings is
    measured under the first dropdown option that enables it (:func:`enable_control`; its label
    then names the option), the dropdown set back after; ``first_options``: every dropdown of the
    explorer at its first option before (as the course's explorers start). Needs
    :func:`install_timing` first."""
    page.evaluate(JS_SAMPLER, [explorer.element_handle(), None])
    if first_options:
        for _, select in _dropdowns(explorer):
            if select.evaluate("el => el.selectedIndex") != 0:
                _select(page, select, 0)
    rows, filled = [], 0
    for kind, j, label in page.evaluate(JS_LIVE_CONTROLS, explorer.element_handle()):
        enabled_by = enable_control(page, explorer, kind, j)   # None: greyed out whatever they say (no press)
        if enabled_by:
            label = f"{label}（{enabled_by[2]}）"
        presses, t_start = [], time.time()
        n_fill = fill_keys if fill_for is None or filled < fill_for else 0
        for mode, n, wait in (("idle", keys, 0.0), ("fill", n_fill, fill_wait_s)):
            for _ in range(n):
                wait_quiet(page, 300, 10_000)
                # the neighbours of the last step drawn ahead (a condition, not a time: on a
                # loaded machine they take longer; a silent evaluation runs no cell hook)
                wait_kernel_true(page, AHEAD_DRAWN, timeout_s=30, poll_s=0.05)
                if wait:
                    page.wait_for_timeout(wait * 1000)   # the fill starts after the kernel's quiet time
                p = live_press(page, explorer, kind, j)
                if p is None:
                    break
                presses.append(dict(p, mode=mode))
        filled += any(p["mode"] == "fill" for p in presses)
        wait_quiet(page, 300, 10_000)
        records = kernel_times(page, t_start - 1)
        if enabled_by:   # the dropdown back to its option
            _select(page, explorer.locator(".widget-dropdown select").nth(enabled_by[0]), enabled_by[1])
        rows.append({"explorer": name, "control": label, "kind": kind,
                     "presses": [_with_kernel(p, records, name) for p in presses],
                     "fill_threads": sorted({r["thread"] for r in records if r["what"] == "fill"}),
                     "fills": sum(r["what"] == "fill" for r in records)})
    return rows


def median_p90(xs) -> tuple:
    """Median and 90th percentile of ``xs`` (linear between samples, as numpy's default);
    ``(None, None)`` when empty."""
    xs = sorted(xs)
    if not xs:
        return None, None
    at = 0.9 * (len(xs) - 1)
    lo = int(at)
    return statistics.median(xs), xs[lo] + (at - lo) * (xs[min(lo + 1, len(xs) - 1)] - xs[lo])


def live_summary(row: dict) -> dict:
    """Medians and p90 of one :func:`measure_live` row: painted ms idle and during a fill (the
    presses that landed while a frame was rendered), the kernel's share."""
    def stats(ps, key):
        return median_p90(p[key] for p in ps if p.get(key) is not None and not math.isnan(p[key]))
    idle = [p for p in row["presses"] if p["mode"] == "idle"]
    fill = [p for p in row["presses"] if p["mode"] == "fill" and p["during_fill"]]
    out = {"explorer": row["explorer"], "control": row["control"], "kind": row["kind"],
           "n_idle": len(idle), "n_fill": len(fill)}
    for tag, ps in (("idle", idle), ("fill", fill)):
        for key in ("painted_ms", "src_ms", "inbound_ms", "arrival_ms", "wait_ms", "kernel_ms", "draw_ms", "encode_ms"):
            med, p90 = stats(ps, key)
            out[f"{tag}_{key}"], out[f"{tag}_{key}_p90"] = med, p90
        out[f"{tag}_ahead"] = sum(bool(p.get("ahead")) for p in ps)   # presses that showed a figure drawn ahead
    out["threads"] = sorted({p.get("thread") for p in row["presses"] if p.get("thread")})
    out["fill_threads"] = row["fill_threads"]
    return out


def measure_live_notebook(page, lab, rel: str, keys: int = 9, fill_keys: int = 5, setup: str = "",
                          names=None) -> list[dict]:
    """Open and run notebook ``rel`` and measure every live control of each of its explorers
    (:func:`measure_live`; ``names``: only these explorers), after its frames are drawn."""
    open_notebook(page, lab, rel, setup=setup)
    install_helpers(page)
    install_timing(page)
    loc, found = explorers(page)
    rows = []
    for i, name in enumerate(found):
        if names is not None and name not in names:
            continue
        if has_frames(page) and kernel_value(page, f"any(r['explorer'] == {name!r} for r in __posenc_frames().status())"):
            wait_frames(page, name)
        explorer = loc.nth(i)
        explorer.scroll_into_view_if_needed()
        rows += measure_live(page, explorer, name, keys, fill_keys)
    return rows


def live_table(rows: list[dict]) -> list[str]:
    """Markdown rows of :func:`live_summary` per control."""
    def f(x):
        return "-" if x is None else f"{x:.0f}"
    lines = ["| explorer | control | idle painted ms median / p90 | kernel ms (draw + encode) | inbound ms | "
             "during fill painted ms median / p90 (n) | drawn ahead idle / fill | fill threads |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        s = live_summary(r)
        lines.append(f"| {s['explorer']} | {s['control']} | {f(s['idle_painted_ms'])} / {f(s['idle_painted_ms_p90'])} | "
                     f"{f(s['idle_kernel_ms'])} ({f(s['idle_draw_ms'])} + {f(s['idle_encode_ms'])}) | "
                     f"{f(s['idle_inbound_ms'])} | {f(s['fill_painted_ms'])} / {f(s['fill_painted_ms_p90'])} "
                     f"({s['n_fill']}) | {s['idle_ahead']}/{s['n_idle']} / {s['fill_ahead']}/{s['n_fill']} | "
                     f"{', '.join(t.split('-')[0] for t in s['fill_threads'])} |")
    return lines
