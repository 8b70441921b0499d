"""Benchmarks for the course: slider latency, frames, drags in JupyterLab, notebook run
time, import time, training, the static edition.

Run from the repository root (not part of the pass/fail tests; numbers are printed):

    python tools/benchmark.py                 # everything (several minutes)
    python tools/benchmark.py --only sliders  # one part: sliders, frames, encode, drag, notebooks, import, training
    python tools/benchmark.py --only drag --before main --rounds 2   # JupyterLab drags, before/after
    python tools/benchmark.py --only sliders --scale 2                # figures at 2x pixel density
    python tools/benchmark.py --only fill --notebooks 03 04 --before main   # controls during the fill vs frames off
    python tools/benchmark.py --only live --before main            # every live control, idle and during a fill
    python tools/benchmark.py --only reply --notebooks 02 09        # a live press's reply, kernel -> server -> page
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

from bench_lab import bench_drag, bench_fill, bench_live, bench_memory, drag_table, fill_table, live_table

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
    parser.add_argument("--only", choices=["sliders", "frames", "encode", "drag", "fill", "live", "reply", "memory",
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
                        help="drag: the slider to drag, by its control's name (default: the main slider); "
                             "reply: the live control, by the start of its label (default: the first)")
    parser.add_argument("--presses", type=int, default=30, help="reply: key steps of the live control")
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
    if args.only == "reply":  # not part of a full run: JupyterLab, a minute per notebook
        import reply_path

        results = reply_path.bench_reply(args.notebooks or ["02"], args.presses, args.control)
        print(f"\n## Where a live press's reply goes (ms after the keydown, median / p90 of {args.presses} "
              f"steps, kernel idle; load {os.getloadavg()[0]:.1f} at the end)\n")
        print("\n".join(f"{name}: {what}" for name, what in reply_path.HOPS) + "\n")
        print("\n".join(reply_path.table(results)))
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
