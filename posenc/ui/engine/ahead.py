"""Neighbours drawn ahead: after a reader moves a control outside the frame grid (a live
control), the figure at that control's next value each way is drawn in the background, so that
the next step onto one of them shows a figure already drawn instead of redrawing on the reader's
path.

A live control's move is a kernel round trip: the widget's message, the redraw (update the
artists, blit the parts the control changes, encode the PNG) and the image back to the browser.
On the 2-core machine the course is measured on, the redraw was 7-21 ms of a 28-47 ms
arrow-key press in JupyterLab (median per control, idle and during a fill; tools/benchmark.py
--only live), drawn while the browser paints the slider's moved handle; shown from ahead, the
kernel's part is 1-3 ms and the press 25-36 ms. A reader who steps a control with the arrow
keys, or clicks it one notch at a time, goes to a neighbour of the value before: :class:`Ahead` holds those two figures, drawn on a
figure of its own (:class:`~posenc.ui.engine.explorer.Drawing`, the same view and frozen axes
positions as the live one, so the same pixels), on the fill thread
(:meth:`FrameScheduler.ahead <posenc.ui.engine.scheduler.FrameScheduler.ahead>`) once the
kernel has been quiet for :data:`~posenc.ui.engine.scheduler.AHEAD_S`, giving way to a
reader's move at its next artist like a frame does. A step onto one of them shows its PNG and
moves the live artists only (what ``savefig`` writes stays what is shown); any other move is
drawn as before.

Only a browser's move plans neighbours (a cell's code sets values anywhere); any other move of
the explorer's controls forgets them. At most two figures per explorer are held.
"""
from __future__ import annotations

import math

from .canvas import data_url
from .controls import frame_options


def same_values(a: dict, b: dict) -> bool:
    """Do two sets of control values name the same figure? Numbers compare within a relative
    1e-9 (a log slider's value is a power computed by the browser, e.g. ``10 ** 3.1``, and by
    Python for the neighbour: the two may differ in the last bits, never in a shown digit)."""
    if a.keys() != b.keys():
        return False
    for k, x in a.items():
        y = b[k]
        if isinstance(x, float) or isinstance(y, float):
            if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, (int, float)) \
                    or not isinstance(y, (int, float)) or not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12):
                return False
        elif x != y:
            return False
    return True


def neighbours(control, widget, old, new) -> list:
    """The values one step from ``new`` that ``widget`` (the ipywidget of declared ``control``)
    offers, the one in the direction of the move from ``old`` first: a slider's value one
    ``step`` each way within its ``min`` and ``max`` (a log slider's exponent one step each
    way), a dropdown's or selection slider's options next to it, a checkbox's other state."""
    kind = control.kind
    if kind == "checkbox":
        return [not new]
    if kind in ("int", "float", "log"):
        lo, hi, step = widget.min, widget.max, widget.step
        if kind == "log":
            at = math.log10(new)
            up = at >= math.log10(old) if old else True
            steps = (at + step, at - step) if up else (at - step, at + step)
            return [10.0 ** e for e in steps if lo - 1e-9 <= e <= hi + 1e-9]
        up = new >= old if old is not None else True
        values = (new + step, new - step) if up else (new - step, new + step)
        if kind == "float":
            values = tuple(round(v, 10) for v in values)
        return [v for v in values if lo <= v <= hi]
    options = [v for _, v in frame_options(widget)]
    if new not in options:
        return []
    i = options.index(new)
    up = old not in options or options.index(old) <= i
    order = (i + 1, i - 1) if up else (i - 1, i + 1)
    return [options[j] for j in order if 0 <= j < len(options)]


class Ahead:
    """The figures at the neighbours of the control a reader moved last (:func:`neighbours`),
    each ``(values, data URL, PNG bytes)``. ``make_drawing()`` gives the figure they
    are drawn on (made at the first one). Every method runs holding the drawing lock (the
    reader's thread plans and takes, the fill thread renders). ``hits`` and ``misses`` count the
    moves :meth:`take` was asked about (tests and benchmarks)."""

    def __init__(self, make_drawing):
        self._make = make_drawing
        self.drawing = None
        self.name = None          # the control whose neighbours are wanted
        self.wanted: list = []    # full control values, nearest first
        self.ready: list = []     # (values, url, png)
        self._layer_for = None    # (control, the other controls' values) the drawing's layer holds
        self.hits = self.misses = 0
        self.broken = None        # the exception a figure drawn ahead raised: none is drawn again

    def plan(self, name: str, wanted: list) -> None:
        """Want the figures at these control values (``name``'s neighbours, every other control
        as now); figures held for other values are dropped. Nothing is wanted once one broke."""
        self.name, self.wanted = name, [] if self.broken is not None else list(wanted)
        self.ready = [r for r in self.ready if any(same_values(r[0], w) for w in self.wanted)]

    def forget(self) -> None:
        """Want nothing and hold nothing (a move that is not a reader's step)."""
        self.name, self.wanted, self.ready = None, [], []

    def _todo(self):
        return next((w for w in self.wanted if not any(same_values(w, r[0]) for r in self.ready)), None)

    def wants(self) -> bool:
        """Is a wanted figure not drawn yet (and none broke)?"""
        return self.broken is None and self._todo() is not None

    def render_next(self) -> bool:
        """Draw the first wanted figure not drawn yet (its control's parts over a layer of the
        rest, as a live move does); False: nothing to draw. May raise
        :class:`~posenc.ui.engine.lock.Interrupted` (inside ``interruptible()``): nothing is kept."""
        values = self._todo()
        if values is None:
            return False
        if self.drawing is None:
            self.drawing = self._make()
        d = self.drawing
        layer_for = (self.name, {k: v for k, v in values.items() if k != self.name})
        if layer_for != self._layer_for:
            d.canvas.forget_layer()   # its layer holds other settings
            self._layer_for = layer_for
        d.draw(values, changed=self.name)
        png = d.canvas.png()
        self.ready.append((values, data_url(png), png))
        return True

    def take(self, values: dict):
        """The figure held for ``values`` (``(values, url, png)``), or None."""
        hit = next((r for r in self.ready if same_values(r[0], values)), None)
        if hit is None:
            self.misses += 1
        else:
            self.hits += 1
        return hit
