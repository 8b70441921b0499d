"""tools/benchmark.py's families still find what they measure: each family's setup runs here
(never its timing loop), so a renamed module, control or notebook fails a test instead of the
next benchmark run (``--only fill`` named a frames module that had moved, and nobody knew).
"""
import importlib.util
import subprocess
import sys

import bench_lab  # tools/bench_lab.py (pyproject puts tools/ on the test path)
import benchmark  # tools/benchmark.py
import posenc_lib as pl

#: The families whose setups the tests below run (a new ``--only`` choice needs a test here).
FAMILIES = ("sliders", "frames", "encode", "drag", "fill", "live", "reply", "memory", "notebooks", "import", "training",
            "static")


def test_every_family_of_the_command_line_has_its_setup_tested_here():
    choices = next(a.choices for a in benchmark.build_parser()._actions if a.dest == "only")
    assert set(choices) == set(FAMILIES)


def test_sliders_and_frames_set_up_an_explorer():
    name = next(n for n, cls in sorted(pl.EXPLORERS.items()) if cls.main)
    ex, sweeps = benchmark.slider_setup(name)
    assert set(sweeps) == set(ex.controls) and all(len(v) >= 2 for v in sweeps.values())
    ex.close()
    fs = benchmark.frames_setup(name)
    assert fs.main == pl.EXPLORERS[name].main and len(fs.values) >= 2


def kernel_state(setup: str) -> list:
    """What ``setup`` leaves in a fresh interpreter: the frames' caps and the figures' pixel scale."""
    code = (setup + "import posenc.ui.engine.frames as F, posenc.ui.engine.scheduler as S, "
            "posenc.ui.engine.canvas as C\n"
            "print(F.MAX_BYTES, S.MAX_TOTAL_BYTES, C.PIXEL_SCALE)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [float(x) for x in out.stdout.split()]


def test_the_kernel_setups_of_drag_fill_and_memory_run_and_do_what_they_say():
    from posenc.ui.engine import canvas, frames, scheduler

    default = [frames.MAX_BYTES, scheduler.MAX_TOTAL_BYTES, canvas.PIXEL_SCALE]
    assert bench_lab.kernel_setup() == ""
    assert kernel_state(bench_lab.kernel_setup(frames_off=True)) == [0, default[1], default[2]]
    assert kernel_state(bench_lab.kernel_setup(scale=2, cap_mb=1)) == [2**20, 4 * 2**20, 2]


def test_drag_fill_and_memory_find_their_notebooks():
    every = bench_lab.lab_notebooks([])
    assert every and all(n.endswith(".ipynb") for n in every)
    assert bench_lab.lab_notebooks([every[-1][:2]]) == [every[-1]]


def test_notebooks_import_training_and_static_find_what_they_time():
    paths = benchmark.notebook_paths()
    assert paths[0].name == "00_index.ipynb" and len(paths) >= 14
    for statement in benchmark.IMPORTS.values():
        modules = statement.removeprefix("import ").split(", ")
        assert all(importlib.util.find_spec(m) is not None for m in modules), statement
    assert set(benchmark.TRAINED_PES) <= set(pl.PE_KINDS)      # what train_order_model accepts
    build_site, pages = benchmark.static_setup(["03"])
    assert [p.name[:2] for p in pages] == ["03"] and callable(build_site.build)


def test_live_finds_every_explorer_s_notebook_and_its_kernel_timing_records_what_it_reads():
    """``live``: the notebooks with any explorer (since the frame grids, every explorer has a main
    control: 01's is its sentence dropdown), and the timing code it runs in the kernel records a
    live redraw (with its draw and its encoding) and a frame."""
    import live_metrics as lm

    every = bench_lab.lab_notebooks([], any_explorer=True)
    assert set(bench_lab.lab_notebooks([])) == set(every) and any(n.startswith("01") for n in every)
    code = ("import posenc_lib as pl\n" + lm.KERNEL_TIMING
            + "\nex = pl.ClockExplorer(); ex.controls['base'].value = 100.0; ex.frames.fill(limit=1)\n"
              "print(sorted({(r['what'], r['explorer']) for r in __posenc_times}),"
              " all(r['draw_ms'] > 0 and r['encode_ms'] > 0 for r in __posenc_times if r['what'] == 'refresh'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[('fill',", "'clock'),", "('refresh',", "'clock')]", "True"]


def test_encode_s_ways_each_give_an_image_of_the_figure_s_size():
    import io

    import numpy as np
    from PIL import Image

    rgba = np.zeros((30, 40, 4), np.uint8)
    rgba[..., 3] = 255
    rgba[5:9, :, 0] = 200
    for way, encode in benchmark.encodings().items():
        decoded = np.asarray(Image.open(io.BytesIO(encode(rgba))).convert("RGB"))
        assert decoded.shape == (30, 40, 3), way
        if "PNG" in way and "palette" not in way or "engine" in way:
            assert (decoded == rgba[..., :3]).all(), f"{way} is lossless"


def test_live_summary_takes_numpy_s_median_and_p90_of_the_presses_that_count():
    """Idle presses all count; of the presses made for a fill, only those that landed while the
    kernel was rendering a frame."""
    import live_metrics as lm
    import numpy as np

    idle, fill, missed = [5, 1, 9, 3, 7, 2, 8, 4, 6], [40, 10, 30], [1000]
    presses = ([{"mode": "idle", "painted_ms": x} for x in idle]
               + [{"mode": "fill", "during_fill": True, "painted_ms": x} for x in fill]
               + [{"mode": "fill", "during_fill": False, "painted_ms": x} for x in missed])
    s = lm.live_summary({"explorer": "e", "control": "c", "kind": "slider", "fill_threads": [], "presses": presses})
    assert (s["idle_painted_ms"], s["idle_painted_ms_p90"]) == (np.median(idle), np.percentile(idle, 90))
    assert (s["fill_painted_ms"], s["fill_painted_ms_p90"], s["n_fill"]) == (np.median(fill), np.percentile(fill, 90), 3)


def test_live_table_joins_before_and_after_by_control_not_by_row():
    """A control framed after the change is live only before it: its row says so, and the
    controls after it are not shifted onto another control's numbers."""
    def row(control, ms):
        return {"explorer": "clock", "control": control, "kind": "slider", "fill_threads": [],
                "presses": [{"mode": "idle", "painted_ms": ms}]}

    results = {"03.ipynb": {"before": [[row("d_model", 11), row("base", 22)]], "after": [[row("base", 33)]]}}
    lines = bench_lab.live_table(results)
    by_control = {line.split(" | ")[1]: line for line in lines[2:]}
    assert set(by_control) == {"d_model", "base"}
    assert "| 11 / 11 |" in by_control["d_model"] and "framed" in by_control["d_model"]
    assert by_control["base"].startswith("| clock | base | 22 / 22 |") and "| 33 / 33 |" in by_control["base"]


def test_fill_table_joins_the_modes_by_control_not_by_position():
    def run(*controls):
        return {"explorer": "clock", "fill": "done",
                "controls": [{"control": c, "key_ms": ms, "fps": None, "lag_ms": 0} for c, ms in controls]}

    results = {"03.ipynb": {"before": [run(("d_model", 11), ("base", 22))], "frames": [run(("base", 33))]}}
    lines = bench_lab.fill_table(results)
    assert lines[2:] == ["| 03 (clock) | d_model | 11 | - |", "| 03 (clock) | base | 22 | 33 |"]


def test_reply_joins_each_hop_from_what_the_four_places_recorded():
    """``reply``: one press (keydown at 1000 ms) joined by hand-made records: the first message
    of each place is the first reply's, the largest the figure's; records outside the window
    (before the keydown, 250 ms after) do not count."""
    import reply_path

    redraw = {"t": 1.0032, "ms": 12.0, "entered": 1.0030}              # seconds, as the kernel records
    kernel_io = [["sent", 999.0, 900_000], ["queued", 1002.9, 300], ["sent", 1003.0, 300],
                 ["queued", 1015.0, 70_000], ["sent", 1015.4, 70_000], ["sent", 1016.0, 200],
                 ["sent", 1300.0, 900_000]]
    server = [(995.0, 995.5, 900_000), (1006.0, 1006.2, 300), (1017.0, 1017.5, 70_000), (1018.0, 1018.1, 200)]
    frames = [(998.0, 900_000), (1019.0, 400), (1024.0, 93_000), (1025.0, 260), (1251.0, 900_000)]
    row = reply_path.join(1000.0, redraw, kernel_io, server, frames, src_ms=24.6, painted_ms=33.0)
    expected = {"arrival": 3.0, "first_server": 6.0, "first_page": 19.0, "redraw_end": 15.2, "figure_sent": 15.4,
                "figure_server_in": 17.0, "figure_server_out": 17.5, "figure_page": 24.0, "src": 24.6, "painted": 33.0}
    assert row.keys() == expected.keys() == {name for name, _ in reply_path.HOPS}
    assert all(abs(row[k] - v) < 1e-6 for k, v in expected.items()), row
    assert reply_path.join(1000.0, None, kernel_io, server, frames, 24.6, 33.0) is None
    assert reply_path.join(1000.0, redraw, kernel_io, [], frames, 24.6, 33.0) is None


def test_reply_s_hooks_time_the_methods_they_name(tmp_path):
    """The kernel's and the server's timing code patch methods that exist in the installed
    ipykernel and jupyter_server, and each call of them leaves a record (fresh interpreters:
    the patches are global)."""
    import reply_path

    kernel = (reply_path.KERNEL_IO + "\nimport types\nfrom ipykernel import iostream\n"
              "iostream.IOPubThread.send_multipart(types.SimpleNamespace(schedule=lambda f: None), [b'ab', b'cde'])\n"
              "iostream.IOPubThread._really_send(types.SimpleNamespace(closed=True), [b'abcd'])\n"
              "print([(k, n) for k, t, n in __posenc_io])")
    out = subprocess.run([sys.executable, "-c", kernel], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[('queued', 5), ('sent', 4)]"
    log = tmp_path / "server.log"
    server = (reply_path.SERVER_HOOK + "\nimport types\n"
              "try:\n"
              "    _channels.ZMQChannelsWebsocketConnection.handle_outgoing_message(types.SimpleNamespace(), 'iopub', [b'ab', b'cde'])\n"
              "except Exception:\n"
              "    pass\n")
    out = subprocess.run([sys.executable, "-c", server], capture_output=True, text=True,
                         env={**__import__("os").environ, reply_path.SERVER_LOG_ENV: str(log)})
    assert out.returncode == 0, out.stderr
    t_in, t_out, size = (float(x) for x in log.read_text().split())
    assert size == 5 and t_in <= t_out
