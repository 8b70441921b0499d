"""Pixel hashes of what every explorer shows: the check that a restructuring of the engine left
the pixels alone (each image is decoded first: the hash is the pixels', not the encoder's bytes).

For every explorer of ``posenc_lib.EXPLORERS`` (default arguments): its first figure, three
frames of its main slider (first, a third of the way, last; rendered by its frame set's
render callable), then a sweep of every control (4 values each, from
:meth:`posenc.ui.engine.explorer.Explorer.control_values`, in control order, each value kept while the
next control is swept); and the training panel's loss figure (empty, then with made-up
losses: no training). Writes ``{key: sha256}`` as JSON; with ``--compare OLD.json`` it also
lists the keys whose hash differs (exit status 1 if any).

    PYTHONPATH=$PWD python tools/pixel_hashes.py /tmp/hashes_before.json
    PYTHONPATH=$PWD python tools/pixel_hashes.py /tmp/hashes_after.json --compare /tmp/hashes_before.json

Not a test: the hashes depend on the installed matplotlib and fonts; compare two runs on one machine.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys


def _h(image: bytes) -> str:
    """SHA-256 of the image's RGB pixels (and its size)."""
    import io

    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(image)).convert("RGB"))
    return hashlib.sha256(repr(rgb.shape).encode() + rgb.tobytes()).hexdigest()


def explorer_hashes(name, make) -> dict:
    out = {}
    ex = make()
    out[f"{name}/first"] = _h(ex.shown_png())
    fs = ex.frames
    if fs is not None:
        n = len(fs.values)
        for i in sorted({0, n // 3, n - 1}):
            png, _ = fs.render(fs.values[i])
            out[f"{name}/frame/{i}"] = _h(png)
    for cname in list(ex.controls):
        control = ex.controls[cname]
        for k, v in enumerate(ex.control_values(cname, 4)):
            control.value = v
            out[f"{name}/sweep/{cname}/{k}"] = _h(ex.shown_png())
    return out


def panel_hashes() -> dict:
    import posenc_lib as pl
    from posenc.ui.engine.canvas import png_of

    panel = pl.TrainingPanel(steps=20)
    out = {"training/first": _h(png_of(panel.image.value))}
    panel.monitor.reset(20)
    for j, pe in enumerate(panel.pes):
        panel.monitor.set_losses(pe, [2.0 / (1 + 0.1 * (j + 1) * s) for s in range(21)])
    panel.monitor.live.refresh()
    out["training/losses"] = _h(png_of(panel.image.value))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--compare", default=None)
    args = ap.parse_args(argv)
    import posenc_lib as pl

    hashes = {}
    for name, make in pl.EXPLORERS.items():
        hashes.update(explorer_hashes(name, make))
        print(name, "done", file=sys.stderr)
    hashes.update(panel_hashes())
    with open(args.out, "w") as f:
        json.dump(hashes, f, indent=1, sort_keys=True)
    print(f"{len(hashes)} hashes -> {args.out}")
    if args.compare:
        with open(args.compare) as f:
            old = json.load(f)
        differ = sorted(k for k in old.keys() | hashes.keys() if old.get(k) != hashes.get(k))
        print(f"{len(old)} before, {len(hashes)} now, {len(differ)} differ")
        for k in differ:
            print("  ", k)
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
