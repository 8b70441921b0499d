"""Benchmarks for the course: slider latency, frames, drags in JupyterLab, notebook run
time, import time, training, the static edition.

Run from the repository root (not part of the pass/fail tests; numbers are printed):

    python tools/benchmark.py                 # everything (several minutes)
    python tools/benchmark.py --only sliders  # one part: sliders, frames, encode, drag, notebooks, import, training
    python tools/benchmark.py --only drag --before main --rounds 2   # JupyterLab drags, before/after
    python tools/benchmark.py --only sliders --scale 2                # figures at 2x pixel density
    python tools/benchmark.py --only fill --notebooks 03 04 --before main   # controls during the fill vs frames off
    python tools/benchmark.py --only live --before main            # every live control, idle and during a fill
    python tools/benchmark.py --only static --notebooks 03 07      # static pages: build, size, ready to drag

All comparisons are measured in the same run on the same machine: medians, and ratios
between our way and the naive way (or the code before a change, interleaved), never a bare
absolute time as a verdict. Each family's setup (what its timing loop needs first: explorers,
frame sets, the kernel's setup code, the notebooks, the statements timed) is a function of
its own, which tests/test_benchmark.py runs, so a renamed module breaks a test, not a
benchmark run.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import pathlib
from pathlib import Path
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def pct(values, q):
    return float(np.percentile(values, q)) * 1000


def sweep_values(ex, name):
    """Distinct values spread over a control's range: the tests' sweep, 9 values of a long slider."""
    return ex.control_values(name, 9)


# ---------------------------------------------------------------------------
# Each family's setup
# ---------------------------------------------------------------------------
def slider_setup(name: str):
    """``sliders``: explorer ``name`` and, per control, the values its timing loop sets."""
    import posenc_lib as pl

    ex = pl.EXPLORERS[name]()
    return ex, {cname: sweep_values(ex, cname) for cname in ex.controls}


def frames_setup(name: str):
    """``frames``: the frame set of explorer ``name``, with the second figure its frames are
    drawn on built (by rendering the frame at the slider)."""
    import posenc_lib as pl

    fs = pl.EXPLORERS[name]().frames
    fs.render_at(fs.index())
    return fs


def kernel_setup(scale: int = 1, cap_mb: float | None = None, frames_off: bool = False) -> str:
    """``drag``, ``fill``, ``memory``: the code run in the notebook's kernel before Run All
    (this checkout's only, never a ``--before`` one): the figures' pixel density, the frames'
    memory cap per explorer (and four times it per kernel), or frames switched off."""
    import drag_metrics as dm

    setup = f"import posenc.ui.engine.canvas as _C; _C.PIXEL_SCALE = {scale}\n" if scale != 1 else ""
    if cap_mb is not None:
        setup += (f"import {dm.FRAMES_MODULE} as _F; _F.MAX_BYTES = int({cap_mb} * 2**20); "
                  f"_F.MAX_TOTAL_BYTES = 4 * _F.MAX_BYTES\n")
    return setup + (dm.FRAMES_OFF if frames_off else "")


def lab_notebooks(prefixes, any_explorer: bool = False) -> list[str]:
    """``drag``, ``fill``, ``memory``: the notebooks with an explorer that has a main slider
    (``live``: with any explorer), those whose names start with one of ``prefixes`` (all of
    them when it is empty)."""
    import drag_metrics as dm

    names = [p.name for p in dm.notebooks_with_explorers(any_explorer=any_explorer)]
    return [n for n in names if not prefixes or any(n.startswith(p) for p in prefixes)]


def notebook_paths() -> list[pathlib.Path]:
    """``notebooks``: every notebook with a code cell, in order."""
    return [p for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
            if any(c["cell_type"] == "code" for c in json.loads(p.read_text(encoding="utf-8"))["cells"])]


#: ``import``: what a fresh interpreter imports, ours against the floor every notebook pays.
IMPORTS = {"posenc_lib": "import posenc_lib", "floor": "import numpy, matplotlib.pyplot, ipywidgets"}
#: ``training``: the position encodings notebook 05 trains with.
TRAINED_PES = ("none", "sinusoidal", "learned")


def static_setup(notebooks):
    """``static``: the site builder and the notebooks it builds (a number, a file name or a path
    each; all when ``notebooks`` is empty)."""
    import build_site

    return build_site, build_site.notebook_paths(notebooks)


def naive_render(ex) -> bytes:
    """What `interact` + inline does on each change: a new figure, the spec's view on it, one
    full draw (constrained layout) into a tight PNG (the explorer itself is not touched)."""
    import posenc_lib as pl
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from posenc.ui.engine.canvas import new_figure

    spec = ex.spec
    with pl.figure_style():
        fig = new_figure(spec.figsize)
        view = spec.view(fig, ex.params)
        FigureCanvasAgg(fig)
        spec.update(view, spec.resolve(spec.control_list(ex.params), ex.values), ex.params)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def set_scale(scale: int) -> None:
    """Draw every explorer made from now on at ``scale`` x the pixel density."""
    import posenc.ui.engine.canvas as C

    C.PIXEL_SCALE = scale


def bench_sliders(repeats: int) -> list[dict]:
    """Per control: setting ``.value`` in code until the image shown is ready (the live
    path: no event loop, so no frames), against the naive redraw. For the main control
    (``main``) also with every frame rendered (``framed_ms``: the artists only)."""
    import posenc_lib as pl

    rows = []
    for name in sorted(pl.EXPLORERS):
        ex, sweeps = slider_setup(name)
        for cname, control in ex.controls.items():
            values = sweeps[cname]
            ours, naive = [], []
            for j in range(repeats):
                v = values[j % len(values)]
                if control.value == v:
                    v = values[(j + 1) % len(values)]
                t0 = time.perf_counter()
                control.value = v
                _ = ex.shown_png()  # the bytes the reader sees are ready
                t1 = time.perf_counter()
                naive_render(ex)
                t2 = time.perf_counter()
                ours.append(t1 - t0)
                naive.append(t2 - t1)
            rows.append({
                "explorer": name, "control": cname,
                "median_ms": pct(ours, 50), "p90_ms": pct(ours, 90),
                "naive_median_ms": pct(naive, 50), "ratio": statistics.median(naive) / statistics.median(ours),
                "framed_ms": None,
            })
        if ex.frames is not None:
            ex.frames.fill()
            control, framed, here = ex.controls[ex.frames.main], [], ex.frames.index()[:-1]
            values = [ex.frames.values[p[-1]] for p in ex.frames.frames if p[:-1] == here]
            for j in range(repeats):
                v = values[(7 * j) % len(values)]
                t0 = time.perf_counter()
                control.value = v
                _ = ex.shown_png()
                framed.append(time.perf_counter() - t0)
            next(r for r in rows if r["explorer"] == name and r["control"] == ex.frames.main)["framed_ms"] = \
                pct(framed, 50)
    return rows


def bench_frames(samples: int = 15) -> list[dict]:
    """Per explorer with frames: one frame's render time (median), PNG size, the whole set
    as data: URLs, the fill time (frames x frame time) and the set the cap keeps."""
    import posenc_lib as pl
    from posenc.ui.engine import frames as F
    from posenc.ui.engine.canvas import data_url

    rows = []
    for name in sorted(pl.EXPLORERS):
        if pl.EXPLORERS[name].main is None:
            continue
        fs = frames_setup(name)
        n = len(fs.values)
        times, sizes = [], []
        for k in range(samples):
            i = round(k * (n - 1) / max(1, samples - 1))
            t0 = time.perf_counter()
            png, _ = fs.render_at((*fs.index()[:-1], i))
            times.append(time.perf_counter() - t0)
            sizes.append(len(data_url(png)))
        url = statistics.median(sizes)
        rows.append({"explorer": name, "control": fs.main, "positions": n, "frame_ms": pct(times, 50),
                     "png_kb": url * 3 / 4 / 1024, "set_mb": url * n / 2**20,
                     "fill_s": statistics.median(times) * n,
                     "kept": min(n, int(F.MAX_BYTES // url))})
    return rows


def encodings() -> dict:
    """``encode``: ways to send an explorer's figure to the browser, each ``(rgba array) -> bytes``
    (``png_bytes`` is what the engine sends)."""
    from PIL import Image

    from posenc.ui.engine.canvas import png_bytes

    def pil(rgba, **kw):
        img = Image.fromarray(rgba).convert("RGB")
        if "palette" in kw:
            img = img.quantize(kw.pop("palette"), Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        out = io.BytesIO()
        img.save(out, **kw)
        return out.getvalue()

    return {"png_bytes (engine)": png_bytes,
            "Pillow PNG, zlib 1": lambda a: pil(a, format="png", compress_level=1),
            "256-colour palette PNG": lambda a: pil(a, palette=256, format="png", compress_level=1),
            "64-colour palette PNG": lambda a: pil(a, palette=64, format="png", compress_level=1),
            "JPEG q85 (4:2:0)": lambda a: pil(a, format="jpeg", quality=85),
            "JPEG q95 (4:4:4)": lambda a: pil(a, format="jpeg", quality=95, subsampling=0)}


def bench_encode(repeats: int = 9) -> list[dict]:
    """Every way of :func:`encodings`, on every explorer's first figure: ms to encode (median
    over explorers of the median of ``repeats``), bytes, and how far the decoded pixels are
    from the canvas (largest and mean channel error of 255; share of pixels off by more than 24)."""
    import posenc_lib as pl
    from PIL import Image

    ways = encodings()
    per: dict = {k: [] for k in ways}
    for name in sorted(pl.EXPLORERS):
        ex = pl.EXPLORERS[name]()
        arr = np.asarray(ex.canvas.agg.buffer_rgba()).copy()
        ref = arr[..., :3].astype(int)
        for k, encode in ways.items():
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                data = encode(arr)
                times.append(time.perf_counter() - t0)
            err = np.abs(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(int) - ref)
            per[k].append((statistics.median(times) * 1000, len(data), int(err.max()), float(err.mean()),
                           float(np.mean(err.max(axis=-1) > 24))))
        ex.close()
    return [{"way": k, "ms": statistics.median(r[0] for r in v), "kb": statistics.median(r[1] for r in v) / 1024,
             "max_err": max(r[2] for r in v), "mean_err": statistics.median(r[3] for r in v),
             "off24": max(r[4] for r in v)} for k, v in per.items()]


def _checkout(stack, ref: str) -> Path:
    """The code of git ref ``ref`` in a temporary folder (removed when ``stack`` closes)."""
    import tempfile

    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="posenc-before-")))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
    return tmp


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
    results: dict = {}
    with contextlib.ExitStack() as stack:
        labs = {"after": stack.enter_context(lab_session.jupyterlab(root=ROOT, env_extra={"PYTHONPATH": str(ROOT)}))}
        if before:
            tmp = _checkout(stack, before)
            labs["before"] = stack.enter_context(lab_session.jupyterlab(root=tmp, env_extra={"PYTHONPATH": str(tmp)}))
        browser = stack.enter_context(lab_session.chromium())
        for rnd in range(rounds):
            for nb in nbs:
                modes = list(labs)[::-1] if rnd % 2 else list(labs)
                for mode in modes:
                    r = _in_page(browser, labs[mode], lambda page: dm.measure_notebook(
                        page, labs[mode], f"notebooks/{nb}", keys, drags, setup=setup if mode == "after" else "",
                        control=control), dsf)
                    if isinstance(r, Exception):
                        print(f"[{rnd}] {mode:6} {nb}: FAILED {type(r).__name__}: {str(r)[:300]}", flush=True)
                        continue
                    results.setdefault(nb, {}).setdefault(mode, []).append(r)
                    print(f"[{rnd}] {mode:6} {dm.format_row(r)}", flush=True)
    return results


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
    results: dict = {}
    with contextlib.ExitStack() as stack:
        labs = {"frames": stack.enter_context(lab_session.jupyterlab(root=ROOT, env_extra={"PYTHONPATH": str(ROOT)}))}
        modes = {"frames": ("frames", kernel_setup()), "off": ("frames", kernel_setup(frames_off=True))}
        if before:
            tmp = _checkout(stack, before)
            labs["before"] = stack.enter_context(lab_session.jupyterlab(root=tmp, env_extra={"PYTHONPATH": str(tmp)}))
            modes["before"] = ("before", "")
        browser = stack.enter_context(lab_session.chromium())
        order = list(modes)
        for rnd in range(rounds):
            for nb in nbs:
                for mode in order[rnd % len(order):] + order[:rnd % len(order)]:
                    lab_key, setup = modes[mode]
                    r = _in_page(browser, labs[lab_key], lambda page: dm.measure_controls_during_fill(
                        page, labs[lab_key], f"notebooks/{nb}", setup=setup, keys=keys, wait_s=wait_s))
                    if isinstance(r, Exception):
                        print(f"[{rnd}] {mode:6} {nb}: FAILED {type(r).__name__}: {str(r)[:300]}", flush=True)
                        continue
                    results.setdefault(nb, {}).setdefault(mode, []).append(r)
                    cells = ", ".join(f"{c['control']} {c['key_ms']:.0f} ms"
                                      + ("" if c["fps"] is None else f" / {c['fps']:.1f} fps / lag {c['lag_ms']:.0f}")
                                      for c in r["controls"])
                    print(f"[{rnd}] {mode:6} {nb[:28]:28} fill {r['fill']} | {cells}", flush=True)
    return results


def fill_table(results: dict) -> list[str]:
    """Markdown rows: per notebook and control, medians over rounds of each mode."""
    modes = [m for m in ("before", "frames", "off") if any(m in v for v in results.values())]
    head = " | ".join(f"{m} key ms / fps / lag ms" for m in modes)
    lines = [f"| notebook (explorer) | control | {head} |", "|---|---|" + "---:|" * len(modes)]
    for nb, by_mode in results.items():
        first = next(iter(by_mode.values()))[0]
        for j, c in enumerate(first["controls"]):
            cells = []
            for m in modes:
                rows = [r["controls"][j] for r in by_mode.get(m, []) if len(r["controls"]) > j]
                if not rows:
                    cells.append("-")
                    continue
                med = lambda k: statistics.median(x[k] for x in rows)
                cells.append(f"{med('key_ms'):.0f}" + ("" if c["fps"] is None else
                                                        f" / {med('fps'):.1f} / {med('lag_ms'):.0f}"))
            lines.append(f"| {nb[:-6]} ({first['explorer']}) | {c['control']} | " + " | ".join(cells) + " |")
    return lines


def bench_live(before: str | None, rounds: int, notebooks: list[str], keys: int, fill_keys: int) -> dict:
    """Real JupyterLab + Chromium: every live control (every control but a main slider) of
    every explorer of each notebook, key steps with the kernel idle and during the frames' fill,
    timed in the page and in the kernel (drag_metrics.measure_live_notebook), for this checkout
    and (``before``: a git ref) that code, interleaved (the order alternates by round), fresh
    kernel each. Returns {notebook: {mode: [rows, ...]}}."""
    import contextlib

    import drag_metrics as dm
    import lab_session

    nbs = lab_notebooks(notebooks, any_explorer=True)
    results: dict = {}
    with contextlib.ExitStack() as stack:
        labs = {"after": stack.enter_context(lab_session.jupyterlab(root=ROOT, env_extra={"PYTHONPATH": str(ROOT)}))}
        if before:
            tmp = _checkout(stack, before)
            labs["before"] = stack.enter_context(lab_session.jupyterlab(root=tmp, env_extra={"PYTHONPATH": str(tmp)}))
        browser = stack.enter_context(lab_session.chromium())
        for rnd in range(rounds):
            for nb in nbs:
                for mode in (list(labs)[::-1] if rnd % 2 else list(labs)):
                    r = _in_page(browser, labs[mode], lambda page: dm.measure_live_notebook(
                        page, labs[mode], f"notebooks/{nb}", keys, fill_keys))
                    if isinstance(r, Exception):
                        print(f"[{rnd}] {mode:6} {nb}: FAILED {type(r).__name__}: {str(r)[:300]}", flush=True)
                        continue
                    results.setdefault(nb, {}).setdefault(mode, []).append(r)
                    print(f"[{rnd}] {mode:6} {nb} (load {os.getloadavg()[0]:.1f})", flush=True)
                    print("\n".join(dm.live_table(r)[2:]), flush=True)
    return results


def live_table(results: dict) -> list[str]:
    """Markdown rows: per explorer and live control (joined by name: a control framed after the
    change is live only before it, shown as "-" in the other mode), each mode's painted ms
    (median / p90 over every round's presses, idle and during a fill) and the kernel's share."""
    import drag_metrics as dm

    modes = [m for m in ("before", "after") if any(m in v for v in results.values())]
    head = " | ".join(f"{m}: idle median / p90 | {m}: during fill median / p90 (n) | {m}: kernel ms"
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
                s = dm.live_summary(merged)
                cells += [f"{f(s['idle_painted_ms'])} / {f(s['idle_painted_ms_p90'])}",
                          f"{f(s['fill_painted_ms'])} / {f(s['fill_painted_ms_p90'])} ({s['n_fill']})",
                          f"{f(s['idle_kernel_ms'])}"]
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


def run_notebook(path: pathlib.Path, setup_only: bool) -> float:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if setup_only:
        first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        nb.cells = [nb.cells[first]]
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    t0 = time.perf_counter()
    client.execute()
    return time.perf_counter() - t0


def bench_notebooks() -> dict:
    paths = notebook_paths()
    run_notebook(paths[0], True)  # warm-up: the first kernel of a run pays for cold caches
    full, floor = {}, {}
    for p in paths:  # interleaved, so both see the same machine state
        full[p.name] = run_notebook(p, False)
        floor[p.name] = run_notebook(p, True)
    return {"per_notebook": full, "floor_per_notebook": floor,
            "total_s": sum(full.values()), "floor_s": sum(floor.values()),
            "ratio": sum(full.values()) / sum(floor.values())}


def time_import(stmt: str) -> float:
    code = f"import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.strip())


def bench_import(repeats: int) -> dict:
    ours, floor = [], []
    for _ in range(repeats):  # interleaved so both see the same machine state
        ours.append(time_import(IMPORTS["posenc_lib"]))
        floor.append(time_import(IMPORTS["floor"]))
    return {"posenc_lib_s": statistics.median(ours), "floor_s": statistics.median(floor),
            "ratio": statistics.median(ours) / statistics.median(floor)}


def bench_training() -> list[dict]:
    import posenc_lib as pl

    rows = []
    for pe in TRAINED_PES:
        res = pl.train_order_model(pe)
        rows.append({"pe": pe, "seconds": res.seconds, "test_accuracy": res.test_accuracy})
    return rows


STATIC_READY_JS = """() => { const ex = document.querySelectorAll('.posenc-explorer');
  return ex.length > 0 && Array.from(ex).every(e => !e.querySelector('.posenc-frames') ||
    (e.querySelector('.posenc-frames img') && e.querySelector('.posenc-frames-main') &&
     Array.from(e.querySelectorAll('.posenc-frames-control')).every(c => c.querySelector('.noUi-handle, select, button')))); }"""


def bench_static(notebooks: list[str], loads: int = 3) -> dict:
    """Build the static edition into a temporary folder (build seconds, bytes per page and in all),
    serve it from 127.0.0.1 and time, per page, navigation start -> every explorer's frames and
    slider handle present (the first drag can start); median of ``loads`` fresh tabs."""
    import functools
    import tempfile
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from playwright.sync_api import sync_playwright

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        build_site, paths = static_setup(notebooks)
        report = build_site.build(out, paths, jobs=2, log=lambda row: None)
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        ready = {}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                            args=["--no-sandbox", "--disable-gpu"])
                for row in report["pages"]:
                    if not row["explorers"]:
                        continue
                    times = []
                    for _ in range(loads):
                        ctx = browser.new_context(viewport={"width": 1300, "height": 900})
                        page = ctx.new_page()
                        page.goto(f"{base}/{row['page']}.html", wait_until="commit")
                        page.wait_for_function(STATIC_READY_JS, polling=20, timeout=30_000)
                        times.append(page.evaluate("performance.now()") / 1000)
                        ctx.close()
                    ready[row["page"]] = statistics.median(times)
                browser.close()
        finally:
            httpd.shutdown()
            httpd.server_close()
    return {"report": report, "ready_s": ready}


def _report(title: str, table: list[str], results, json_path: str | None) -> None:
    """A section of the report: its title, its table and, with ``--json``, the raw results."""
    print(f"\n## {title}\n")
    print("\n".join(table))
    if json_path:
        pathlib.Path(json_path).write_text(json.dumps(results, indent=1))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["sliders", "frames", "encode", "drag", "fill", "live", "memory",
                                           "notebooks", "import", "training", "static"])
    parser.add_argument("--repeats", type=int, default=30, help="slider updates per control")
    parser.add_argument("--scale", type=int, default=1, help="pixel density of the figures (2: HiDPI)")
    parser.add_argument("--before", default=None,
                        help="drag: also measure this git ref's code, interleaved (e.g. main)")
    parser.add_argument("--rounds", type=int, default=1, help="drag: rounds over the notebooks")
    parser.add_argument("--notebooks", nargs="*", default=[], help="drag: notebook prefixes (default: all)")
    parser.add_argument("--drags", type=int, default=3, help="drag: drags per driver")
    parser.add_argument("--keys", type=int, default=8, help="drag: key steps")
    parser.add_argument("--dsf", type=float, default=1.0, help="drag: browser device scale factor")
    parser.add_argument("--cap-mb", type=float, default=None, help="drag: frames' memory cap per explorer (MB)")
    parser.add_argument("--fill-wait", type=float, default=0.0,
                        help="fill: seconds between Run All and the first control used (the fill runs meanwhile)")
    parser.add_argument("--fill-keys", type=int, default=5, help="live: key steps per control during a fill")
    parser.add_argument("--control", default=None,
                        help="drag: the slider to drag, by its control's name (default: the main slider)")
    parser.add_argument("--json", help="drag: write the raw results here")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    want = (lambda part: args.only in (None, part))
    set_scale(args.scale)

    if want("sliders"):
        rows = bench_sliders(args.repeats)
        print(f"\n## Slider update latency, {args.scale}x (median over {args.repeats} updates per control; "
              f"naive = new figure + tight PNG per change, same run; framed = main control with its frames)\n")
        print("| explorer | control | median ms | p90 ms | framed ms | naive median ms | naive/ours |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for r in rows:
            framed = "" if r["framed_ms"] is None else f"{r['framed_ms']:.2f}"
            print(f"| {r['explorer']} | {r['control']} | {r['median_ms']:.1f} | {r['p90_ms']:.1f} | {framed} | "
                  f"{r['naive_median_ms']:.1f} | {r['ratio']:.1f}x |")
        worst = max(rows, key=lambda r: r["median_ms"])
        print(f"\nworst median: {worst['explorer']}.{worst['control']} {worst['median_ms']:.1f} ms; "
              f"lowest ratio {min(r['ratio'] for r in rows):.1f}x; "
              f"median over controls {statistics.median(r['median_ms'] for r in rows):.1f} ms")
    if want("frames"):
        rows = bench_frames()
        print(f"\n## Frames, {args.scale}x (one frame rendered off screen; sizes as data: URLs)\n")
        print("| explorer | control | positions | frame ms | PNG KB | whole set MB | fill s | frames kept by the cap |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['explorer']} | {r['control']} | {r['positions']} | {r['frame_ms']:.1f} | {r['png_kb']:.0f} | "
                  f"{r['set_mb']:.1f} | {r['fill_s']:.1f} | {r['kept']} |")
    if want("encode"):
        rows = bench_encode()
        print(f"\n## Encoding an explorer's figure (every explorer's first figure; load {os.getloadavg()[0]:.1f})\n")
        print("| way | ms (median) | KB (median) | largest channel error | mean channel error | most pixels off by > 24 |")
        print("|---|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['way']} | {r['ms']:.2f} | {r['kb']:.0f} | {r['max_err']} | {r['mean_err']:.2f} | {r['off24']:.2%} |")
    if want("drag"):
        results = bench_drag(args.before, args.rounds, args.notebooks, args.keys, args.drags, args.dsf, args.scale,
                             args.cap_mb, args.control)
        _report(f"Drags in JupyterLab + headless Chromium ({args.scale}x figures, device scale {args.dsf:g}; "
                f"medians over {args.rounds} round(s), {args.drags} drags per driver)",
                drag_table(results), results, args.json)
    if args.only == "fill":  # not part of a full run: JupyterLab, several minutes per notebook
        results = bench_fill(args.before, args.rounds, args.notebooks, min(args.keys, 4), args.fill_wait)
        _report(f"Using every control during the frames' fill vs frames off (JupyterLab + headless Chromium; "
                f"medians over {args.rounds} round(s); controls used {args.fill_wait:g} s after Run All; "
                f"key = ms from input to new pixels, fps and release lag of one mouse drag)",
                fill_table(results), results, args.json)
    if args.only == "live":  # not part of a full run: JupyterLab, minutes per notebook
        results = bench_live(args.before, args.rounds, args.notebooks, args.keys, args.fill_keys)
        _report(f"Every live control: key -> painted figure in JupyterLab + headless Chromium (ms; medians and p90 "
                f"over {args.rounds} round(s) of {args.keys} steps idle and {args.fill_keys} during the fill; "
                f"load {os.getloadavg()[0]:.1f} at the end)", live_table(results), results, args.json)
    if want("import"):
        r = bench_import(7)
        print("\n## Import time (median of 7 fresh interpreters, interleaved)\n")
        print("| import posenc_lib | import numpy, matplotlib.pyplot, ipywidgets | ratio |")
        print("|---:|---:|---:|")
        print(f"| {r['posenc_lib_s'] * 1000:.0f} ms | {r['floor_s'] * 1000:.0f} ms | {r['ratio']:.2f} |")
    if want("training"):
        rows = bench_training()
        print("\n## Training (notebook 05 toy task)\n")
        if not rows:
            print("(posenc_lib has no train_order_model yet)")
        else:
            print("| pe | seconds | test accuracy |")
            print("|---|---:|---:|")
            for r in rows:
                print(f"| {r['pe']} | {r['seconds']:.2f} | {r['test_accuracy']:.3f} |")
    if args.only == "memory":  # not part of a full run: it starts JupyterLab twice
        rows = bench_memory(args.before, (args.notebooks or ["03"])[0], args.dsf, args.scale, args.cap_mb)
        print(f"\n## Memory, {rows[0]['notebook']} ({args.scale}x figures, device scale {args.dsf:g}): after Run All "
              f"and the fill, then six drags across the main slider\n")
        print("| code | frames MB | kernel RSS MB | renderer RSS MB | JS heap MB |")
        print("|---|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['mode']} | {r['frames_mb']:.1f} | {r['kernel_rss_mb']:.0f} | {r['renderer_rss_mb']:.0f} | "
                  f"{r['js_heap_mb']:.0f} |")
    if want("notebooks"):
        r = bench_notebooks()
        print("\n## Collection run time (nbclient, fresh kernel each, sequential)\n")
        print("| notebook | full s | setup cell only s |")
        print("|---|---:|---:|")
        for name in r["per_notebook"]:
            print(f"| {name} | {r['per_notebook'][name]:.1f} | {r['floor_per_notebook'][name]:.1f} |")
        print(f"| **total** | {r['total_s']:.1f} | {r['floor_s']:.1f} |")
        print(f"\nratio full / floor = {r['ratio']:.2f}")
    if args.only == "static":  # not part of a full run: it builds the static edition (minutes)
        r = bench_static(args.notebooks)
        rep = r["report"]
        import build_site
        print(f"\n## Static edition ({len(rep['pages'])} pages built in {rep['seconds']:.0f} s, "
              f"{rep['site_bytes'] / 1e6:.1f} MB in all; ready = navigation start -> every explorer's frames "
              f"and slider handle, median of 3 fresh tabs over loopback)\n")
        print("| page | MB | ready s | frames per explorer: main slider values held/all × the grid's other axes "
              "(values held) = frames, MB |")
        print("|---|---:|---:|---|")
        for row in rep["pages"]:
            t = r["ready_s"].get(row["page"])
            part = "; ".join(build_site.explorer_frames(e) for e in row["explorers"])
            print(f"| {row['page']} | {row['bytes'] / 1e6:.2f} | {'' if t is None else f'{t:.2f}'} | {part} |")
        if r["ready_s"]:
            vals = list(r["ready_s"].values())
            print(f"\nready: median over pages {statistics.median(vals):.2f} s, slowest {max(vals):.2f} s; "
                  f"largest page {max(row['bytes'] for row in rep['pages']) / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
