"""Regenerate the static figures in images/ from posenc_lib's plot functions.

Run from the repository root:  python tools/make_figures.py
The README and the notebooks reference these files by their stable names.
"""
from __future__ import annotations

import pathlib
import sys

import posenc_lib as pl

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "images"

FIGURES = {
    "pe_heatmap.png": lambda: pl.plot_pe_heatmap(seq_len=64, d_model=128),
    "clock_hands.png": lambda: pl.plot_clock(pos=5, d_model=16),
}


def main() -> int:
    OUT.mkdir(exist_ok=True)
    if pl.cjk_font() is None:
        print(pl.CJK_INSTALL_HINT, file=sys.stderr)
    for name, make in FIGURES.items():
        fig = make()
        # Fixed metadata keeps the files byte-stable between runs.
        fig.savefig(OUT / name, dpi=100, metadata={"Software": None})
        print(f"wrote images/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
