"""Benchmarks for the course: slider latency, notebook run time, import time, training.

Run from the repository root (not part of the pass/fail tests; numbers are printed):

    python tools/benchmark.py                 # everything (a few minutes)
    python tools/benchmark.py --only sliders  # one part: sliders, notebooks, import, training

All comparisons are measured in the same run on the same machine: medians, and ratios
between our way and the naive way, never a bare absolute time as a verdict.
"""
from __future__ import annotations

import argparse
import io
import pathlib
import statistics
import subprocess
import sys
import time
import types

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def pct(values, q):
    return float(np.percentile(values, q)) * 1000


def sweep_values(control):
    """Distinct values spread over a control's range (same idea as the tests' sweep)."""
    if hasattr(control, "options"):
        return [o[1] if isinstance(o, tuple) else o for o in control.options]
    if isinstance(control.value, bool):
        return [False, True]
    lo, hi = control.min, control.max
    if type(control).__name__ == "FloatLogSlider":
        return [control.base ** e for e in np.linspace(lo, hi, 9)]
    values = np.linspace(lo, hi, 9)
    return [type(control.value)(round(v / control.step) * control.step) for v in values]


def naive_render(ex) -> bytes:
    """What `interact` + inline does on each change: a new figure, full draw, tight PNG."""
    import posenc_lib as pl

    clone = object.__new__(type(ex))
    clone.__dict__.update(ex.__dict__)  # same controls and settings; _build makes its own view
    clone.table = types.SimpleNamespace(value="")  # don't touch the live explorer's table widget
    with pl.figure_style():
        fig = clone._build()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()


def bench_sliders(repeats: int) -> list[dict]:
    import posenc_lib as pl

    rows = []
    for name in sorted(pl.EXPLORERS):
        ex = pl.EXPLORERS[name]()
        for cname, control in ex.controls.items():
            values = sweep_values(control)
            ours, naive = [], []
            for j in range(repeats):
                v = values[j % len(values)]
                if control.value == v:
                    v = values[(j + 1) % len(values)]
                t0 = time.perf_counter()
                control.value = v
                _ = ex.image.value  # the bytes the widget shows are ready
                t1 = time.perf_counter()
                naive_render(ex)
                t2 = time.perf_counter()
                ours.append(t1 - t0)
                naive.append(t2 - t1)
            rows.append({
                "explorer": name, "control": cname,
                "median_ms": pct(ours, 50), "p90_ms": pct(ours, 90),
                "naive_median_ms": pct(naive, 50), "ratio": statistics.median(naive) / statistics.median(ours),
            })
    return rows


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
    paths = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
             if any(c["cell_type"] == "code" for c in __import__("json").loads(p.read_text())["cells"])]
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
        ours.append(time_import("import posenc_lib"))
        floor.append(time_import("import numpy, matplotlib.pyplot, ipywidgets"))
    return {"posenc_lib_s": statistics.median(ours), "floor_s": statistics.median(floor),
            "ratio": statistics.median(ours) / statistics.median(floor)}


def bench_training() -> list[dict]:
    import posenc_lib as pl

    if not hasattr(pl, "train_order_model") and "train_order_model" not in dir(pl):
        return []
    rows = []
    for pe in ("none", "sinusoidal", "learned"):
        res = pl.train_order_model(pe)
        rows.append({"pe": pe, "seconds": res.seconds, "test_accuracy": res.test_accuracy})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["sliders", "notebooks", "import", "training"])
    parser.add_argument("--repeats", type=int, default=30, help="slider updates per control")
    args = parser.parse_args(argv)
    want = (lambda part: args.only in (None, part))

    if want("sliders"):
        rows = bench_sliders(args.repeats)
        print(f"\n## Slider update latency (median over {args.repeats} updates per control; "
              f"naive = new figure + tight PNG per change, same run)\n")
        print("| explorer | control | median ms | p90 ms | naive median ms | naive/ours |")
        print("|---|---|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['explorer']} | {r['control']} | {r['median_ms']:.1f} | {r['p90_ms']:.1f} | "
                  f"{r['naive_median_ms']:.1f} | {r['ratio']:.1f}x |")
        worst = max(rows, key=lambda r: r["median_ms"])
        print(f"\nworst median: {worst['explorer']}.{worst['control']} {worst['median_ms']:.1f} ms; "
              f"lowest ratio {min(r['ratio'] for r in rows):.1f}x")
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
    if want("notebooks"):
        r = bench_notebooks()
        print("\n## Collection run time (nbclient, fresh kernel each, sequential)\n")
        print("| notebook | full s | setup cell only s |")
        print("|---|---:|---:|")
        for name in r["per_notebook"]:
            print(f"| {name} | {r['per_notebook'][name]:.1f} | {r['floor_per_notebook'][name]:.1f} |")
        print(f"| **total** | {r['total_s']:.1f} | {r['floor_s']:.1f} |")
        print(f"\nratio full / floor = {r['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
