"""The benchmarks that run in real JupyterLab + headless Chromium (``tools/benchmark.py --only
drag | fill | live | memory``): each opens the notebooks in a server of its own, for this
checkout and, with ``--before REF``, for that git ref's code too (interleaved, fresh kernel
each), and measures with tools/drag_metrics.py (drags, key steps) and tools/live_metrics.py
(every live control). Their setups (:func:`lab_notebooks`, :func:`kernel_setup`) and tables are
tested in tests/test_benchmark.py; the numbers are printed, never a pass condition.
"""
from __future__ import annotations

import os
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kernel_setup(scale: int = 1, cap_mb: float | None = None, frames_off: bool = False) -> str:
    """``drag``, ``fill``, ``memory``: the code run in the notebook's kernel before Run All
    (this checkout's only, never a ``--before`` one): the figures' pixel density, the frames'
    memory cap per explorer (and four times it per kernel), or frames switched off."""
    import drag_metrics as dm

    setup = f"import posenc.ui.engine.canvas as _C; _C.PIXEL_SCALE = {scale}\n" if scale != 1 else ""
    if cap_mb is not None:
        setup += (f"import {dm.FRAMES_MODULE} as _F, posenc.ui.engine.scheduler as _S; "
                  f"_F.MAX_BYTES = int({cap_mb} * 2**20); _S.MAX_TOTAL_BYTES = 4 * _F.MAX_BYTES\n")
    return setup + (dm.FRAMES_OFF if frames_off else "")


def lab_notebooks(prefixes, any_explorer: bool = False) -> list[str]:
    """``drag``, ``fill``, ``memory``: the notebooks with an explorer that has a main slider
    (``live``: with any explorer), those whose names start with one of ``prefixes`` (all of
    them when it is empty)."""
    import drag_metrics as dm

    names = [p.name for p in dm.notebooks_with_explorers(any_explorer=any_explorer)]
    return [n for n in names if not prefixes or any(n.startswith(p) for p in prefixes)]


def _checkout(stack, ref: str) -> Path:
    """The code of git ref ``ref`` in a temporary folder (removed when ``stack`` closes)."""
    import tempfile

    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="posenc-before-")))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
    return tmp


def _labs(stack, before: str | None, name: str = "after") -> dict:
    """JupyterLab servers (closed with ``stack``): ``name`` on this checkout and, with ``before``
    (a git ref), ``"before"`` on that code; each kernel imports its own checkout's posenc, each
    server reads its checkout's README config file (as a reader's does)."""
    import lab_session

    roots = {name: ROOT} | ({"before": _checkout(stack, before)} if before else {})

    def readers_config(root):   # what the README's command starts: that checkout's config file
        config = root / ".jupyter" / "jupyter_lab_config.py"
        return (f"--config={config}",) if config.is_file() else ()

    return {mode: stack.enter_context(lab_session.jupyterlab(root=root, env_extra={"PYTHONPATH": str(root)},
                                                             extra_args=readers_config(root)))
            for mode, root in roots.items()}


def _in_page(browser, lab, measure, dsf: float = 1.0):
    """``measure(page)`` in a fresh browser context; the notebook's kernel is shut down after.
    Returns its result, or the exception it raised (the caller reports it and goes on)."""
    import lab_session

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=dsf)
    page = ctx.new_page()
    try:
        return measure(page)
    except Exception as exc:  # keep going: the caller reports the failure
        return exc
    finally:
        lab_session.close_notebook(page, lab)
        ctx.close()


def _interleaved(browser, labs: dict, rounds: int, nbs: list[str], measure, show, dsf: float = 1.0) -> dict:
    """Every notebook of ``nbs`` in every mode of ``labs`` (mode -> its JupyterLab server), the
    modes' order rotating by round (two modes alternate), each run in a fresh browser context
    and kernel (:func:`_in_page`): ``measure(page, lab, mode, notebook)``. A run that raised is
    printed and skipped; ``show(rnd, mode, notebook, result)`` prints one that finished.
    Returns {notebook: {mode: [result, ...]}}."""
    order, results = list(labs), {}
    for rnd in range(rounds):
        k = rnd % len(order)
        for nb in nbs:
            for mode in order[k:] + order[:k]:
                r = _in_page(browser, labs[mode], lambda page: measure(page, labs[mode], mode, nb), dsf)
                if isinstance(r, Exception):
                    print(f"[{rnd}] {mode:6} {nb}: FAILED {type(r).__name__}: {str(r)[:300]}", flush=True)
                    continue
                results.setdefault(nb, {}).setdefault(mode, []).append(r)
                show(rnd, mode, nb, r)
    return results


def bench_drag(before: str | None, rounds: int, notebooks: list[str], keys: int, drags: int,
               dsf: float, scale: int, cap_mb: float | None = None, control: str | None = None) -> dict:
    """Real JupyterLab + Chromium (tools/drag_metrics.py): each notebook's main
    slider (``control``: that slider of the explorer instead, e.g. a frame grid's second
    control), for this checkout and (``before``: a git ref) the code before, interleaved
    (before/after order alternates by round), fresh kernel each. Returns raw results."""
    import contextlib

    import drag_metrics as dm
    import lab_session

    nbs = lab_notebooks(notebooks)
    setup = kernel_setup(scale, cap_mb)

    def measure(page, lab, mode, nb):
        return dm.measure_notebook(page, lab, f"notebooks/{nb}", keys, drags,
                                   setup=setup if mode == "after" else "", control=control)

    with contextlib.ExitStack() as stack:
        labs = _labs(stack, before)
        browser = stack.enter_context(lab_session.chromium())
        return _interleaved(browser, labs, rounds, nbs, measure,
                            lambda rnd, mode, nb, r: print(f"[{rnd}] {mode:6} {dm.format_row(r)}", flush=True), dsf)


def bench_fill(before: str | None, rounds: int, notebooks: list[str], keys: int, wait_s: float = 0.0) -> dict:
    """Real JupyterLab + Chromium: each notebook run, then every control of its first explorer
    with a main slider used after ``wait_s`` seconds (0: right away), while the frames are being filled
    (drag_metrics.measure_controls_during_fill), against the same walk with frames switched
    off, and (``before``: a git ref) that code's fill; interleaved (the order of the modes
    rotates by round), fresh kernel each. Returns {notebook: {mode: [result, ...]}}."""
    import contextlib

    import drag_metrics as dm
    import lab_session

    nbs = lab_notebooks(notebooks)
    setups = {"frames": kernel_setup(), "off": kernel_setup(frames_off=True), "before": ""}

    def measure(page, lab, mode, nb):
        return dm.measure_controls_during_fill(page, lab, f"notebooks/{nb}", setup=setups[mode], keys=keys,
                                               wait_s=wait_s)

    def show(rnd, mode, nb, r):
        cells = ", ".join(f"{c['control']} {c['key_ms']:.0f} ms"
                          + ("" if c["fps"] is None else f" / {c['fps']:.1f} fps / lag {c['lag_ms']:.0f}")
                          for c in r["controls"])
        print(f"[{rnd}] {mode:6} {nb[:28]:28} fill {r['fill']} | {cells}", flush=True)

    with contextlib.ExitStack() as stack:
        servers = _labs(stack, before, name="frames")
        labs = {"frames": servers["frames"], "off": servers["frames"]} | ({"before": servers["before"]} if before else {})
        browser = stack.enter_context(lab_session.chromium())
        return _interleaved(browser, labs, rounds, nbs, measure, show)


def fill_table(results: dict) -> list[str]:
    """Markdown rows: per notebook and control (joined by name across the modes: the code
    before a change may have other controls), medians over rounds of each mode."""
    modes = [m for m in ("before", "frames", "off") if any(m in v for v in results.values())]
    head = " | ".join(f"{m} key ms / fps / lag ms" for m in modes)
    lines = [f"| notebook (explorer) | control | {head} |", "|---|---|" + "---:|" * len(modes)]
    for nb, by_mode in results.items():
        explorer = next(iter(by_mode.values()))[0]["explorer"]
        names = dict.fromkeys(c["control"] for m in modes for r in by_mode.get(m, []) for c in r["controls"])
        for name in names:
            cells = []
            for m in modes:
                rows = [c for r in by_mode.get(m, []) for c in r["controls"] if c["control"] == name]
                if not rows:
                    cells.append("-")
                    continue
                med = lambda k: statistics.median(x[k] for x in rows)
                cells.append(f"{med('key_ms'):.0f}" + ("" if rows[0]["fps"] is None else
                                                        f" / {med('fps'):.1f} / {med('lag_ms'):.0f}"))
            lines.append(f"| {nb[:-6]} ({explorer}) | {name} | " + " | ".join(cells) + " |")
    return lines


def bench_live(before: str | None, rounds: int, notebooks: list[str], keys: int, fill_keys: int) -> dict:
    """Real JupyterLab + Chromium: every live control (every control but a main slider) of
    every explorer of each notebook, key steps with the kernel idle and during the frames' fill,
    timed in the page and in the kernel (live_metrics.measure_live_notebook), for this checkout
    and (``before``: a git ref) that code, interleaved (the order alternates by round), fresh
    kernel each. Returns {notebook: {mode: [rows, ...]}}."""
    import contextlib

    import live_metrics as lm
    import lab_session

    nbs = lab_notebooks(notebooks, any_explorer=True)

    def show(rnd, mode, nb, r):
        print(f"[{rnd}] {mode:6} {nb} (load {os.getloadavg()[0]:.1f})", flush=True)
        print("\n".join(lm.live_table(r)[2:]), flush=True)

    with contextlib.ExitStack() as stack:
        labs = _labs(stack, before)
        browser = stack.enter_context(lab_session.chromium())
        return _interleaved(browser, labs, rounds, nbs,
                            lambda page, lab, mode, nb: lm.measure_live_notebook(page, lab, f"notebooks/{nb}", keys,
                                                                                 fill_keys), show)


def live_table(results: dict) -> list[str]:
    """Markdown rows: per explorer and live control (joined by name: a control framed after the
    change is live only before it, shown as "-" in the other mode), each mode's painted ms
    (median / p90 over every round's presses, idle and during a fill) and the kernel's share."""
    import live_metrics as lm

    modes = [m for m in ("before", "after") if any(m in v for v in results.values())]
    head = " | ".join(f"{m}: idle median / p90 | {m}: during fill median / p90 (n) | {m}: kernel ms (presses shown from a figure drawn ahead)"
                      for m in modes)
    lines = [f"| explorer | control | {head} |", "|---|---|" + "---:|---:|---:|" * len(modes)]

    def f(x):
        return "-" if x is None else f"{x:.0f}"

    for by_mode in results.values():
        keys = list(dict.fromkeys((row["explorer"], row["control"]) for m in modes
                                  for r in by_mode.get(m, []) for row in r))
        for key in keys:
            cells = []
            for m in modes:
                rows = [row for r in by_mode.get(m, []) for row in r if (row["explorer"], row["control"]) == key]
                if not rows:
                    cells += ["- (framed)", "-", "-"]
                    continue
                merged = {**rows[0], "presses": [p for row in rows for p in row["presses"]],
                          "fill_threads": sorted({t for row in rows for t in row["fill_threads"]})}
                s = lm.live_summary(merged)
                cells += [f"{f(s['idle_painted_ms'])} / {f(s['idle_painted_ms_p90'])}",
                          f"{f(s['fill_painted_ms'])} / {f(s['fill_painted_ms_p90'])} ({s['n_fill']})",
                          f"{f(s['idle_kernel_ms'])} (ahead {s['idle_ahead'] + s['fill_ahead']}/{s['n_idle'] + s['n_fill']})"]
            lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    return lines


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_memory(before: str | None, notebook: str, dsf: float, scale: int, cap_mb: float | None) -> list[dict]:
    """Memory of one notebook (its first explorer with a main slider), this checkout and
    ``before``: kernel RSS after Run All and the fill, the frames' data, then six drags
    across 90 % of the main slider (the browser decodes many figures) and the tab's
    renderer RSS and JS heap."""
    import contextlib

    import drag_metrics as dm
    import lab_session

    nb = lab_notebooks([notebook])[0]
    setup = kernel_setup(scale, cap_mb)
    rows = []
    with contextlib.ExitStack() as stack:
        roots = {"after": ROOT}
        if before:
            tmp = _checkout(stack, before)
            roots = {"before": tmp, **roots}
        browser = stack.enter_context(lab_session.chromium())
        for mode, root in roots.items():
            with lab_session.jupyterlab(root=root, env_extra={"PYTHONPATH": str(root)}) as lab:
                ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=dsf)
                page = ctx.new_page()
                try:
                    lab_session.open_notebook(page, lab, f"notebooks/{nb}", setup=setup if mode == "after" else "")
                    dm.install_helpers(page)
                    import posenc_lib as pl

                    explorer, name = lab_session.first_with_slider(page, {n for n, c in pl.EXPLORERS.items() if c.main})
                    slider = dm.main_slider_index(page, name, pl.EXPLORERS[name].main)
                    data = 0.0
                    if dm.has_frames(page):
                        lab_session.wait_kernel_true(page, "not any(r['pending'] for r in __posenc_frames().status())", 600)
                        data = lab_session.kernel_value(page, "sum(r['bytes'] for r in __posenc_frames().status())") / 2**20
                    kernel = _rss_mb(int(lab_session.kernel_value(page, "__import__('os').getpid()")))
                    for _ in range(6):
                        dm.measure_drag(page, explorer, slider, span=0.9, settle_ms=300, driver="page")
                    page.wait_for_timeout(500)
                    cdp = ctx.new_cdp_session(page)
                    cdp.send("Performance.enable")
                    heap = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                    procs = browser.new_browser_cdp_session().send("SystemInfo.getProcessInfo")["processInfo"]
                    renderer = max((p["id"] for p in procs if p["type"] == "renderer"), default=None)
                    rows.append({"mode": mode, "notebook": nb, "frames_mb": data, "kernel_rss_mb": kernel,
                                 "js_heap_mb": heap["JSHeapUsedSize"] / 2**20,
                                 "renderer_rss_mb": _rss_mb(renderer) if renderer else float("nan")})
                    print(rows[-1], flush=True)
                finally:
                    lab_session.close_notebook(page, lab)
                    ctx.close()
    return rows


def drag_table(results: dict) -> list[str]:
    """Markdown rows: medians over rounds per notebook and mode."""
    import drag_metrics as dm

    lines = ["| notebook (explorer.control) | code | key ms | mouse fps (cover) | 60 Hz fps (cover) "
             "| lag ms mouse / 60 Hz | release = kernel's |",
             "|---|---|---:|---:|---:|---:|---|"]
    for nb, modes in results.items():
        for mode in ("before", "after"):
            rs = modes.get(mode)
            if not rs:
                continue
            ss = [dm.summary(r) for r in rs]
            m = lambda k: statistics.median(s[k] for s in ss)
            lines.append(
                f"| {nb[:-6]} ({rs[0]['explorer']}.{rs[0]['control']}) | {mode} | {m('key_ms'):.1f} | "
                f"{m('mouse_fps'):.1f} ({m('mouse_coverage'):.2f}) | {m('page_fps'):.1f} ({m('page_coverage'):.2f}) | "
                f"{m('mouse_lag_ms'):.0f} / {m('page_lag_ms'):.0f} | {'yes' if all(s['release_ok'] for s in ss) else 'NO'} |")
    return lines
