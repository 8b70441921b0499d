"""Controls: slider style, the widget of a declared control, the values a control can take, a
slider the browser can follow, Play buttons linked in the browser, and a button that ignores
the clicks queued while its work ran."""
from __future__ import annotations

import time

from .internals import fall_back, from_browser


def slider_style(description: str | None = None) -> dict:
    """Widget style: labels as wide as their text (no truncation); with ``description``, that
    width given explicitly (:func:`label_width`), so the slider's box can be sized around it."""
    if description is None:
        return {"description_width": "initial"}
    return {"description_width": f"{label_width(description)}px"}


#: Pixels of track a slider keeps beside its label and readout (issue: a hand needs ≥ 200 px).
TRACK_PX = 240
#: Pixels a slider's readout and the gaps around it take.
READOUT_PX = 96


def label_width(text: str) -> int:
    """A generous width (px) for ``text`` as a widget label at JupyterLab's 13 px: 14 px per
    wide (CJK) character, 8 px per other character, plus the label's own margin."""
    import unicodedata

    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)
    return 14 * wide + 8 * (len(text) - wide) + 8


def slider_layout(description: str, main: bool = False):
    """The layout of a slider labelled ``description``: the main slider takes the whole row;
    every other slider is as wide as its label, readout and :data:`TRACK_PX` of track (never
    wider than the row), so a long Chinese label never eats the track."""
    import ipywidgets as w

    if main:
        return w.Layout(width="100%", min_width=f"min(100%, {label_width(description) + READOUT_PX + TRACK_PX}px)")
    return w.Layout(width=f"{label_width(description) + READOUT_PX + TRACK_PX}px", max_width="100%")


def slider_values(control) -> list | None:
    """Every value a slider can take, in index order (None: not a discrete slider)."""
    import ipywidgets as w

    if isinstance(control, w.SelectionSlider):
        return [o[1] if isinstance(o, tuple) else o for o in control.options]
    if isinstance(control, w.IntSlider):
        return list(range(control.min, control.max + 1, control.step))
    if isinstance(control, w.FloatSlider):
        n = int(round((control.max - control.min) / control.step))
        return [round(control.min + k * control.step, 10) for k in range(n + 1)]
    return None


def control_values(control, n: int, *, max_options: int | None = 24) -> list:
    """Values spread over a control's whole range, from one end to the other: what tests and
    tools/benchmark.py set a control to when they sweep it.

    A control with options (Dropdown, SelectionSlider, ...): every option, or ``n`` of them
    end to end when there are more than ``max_options`` (None: never fewer than all). A
    checkbox: the other state, then the current one. A slider: ``n`` values from min to max,
    evenly spaced (in the exponent for a FloatLogSlider), rounded to its step.
    """
    import numpy as np

    if hasattr(control, "options"):
        opts = [o[1] if isinstance(o, tuple) else o for o in control.options]
        if max_options is not None and len(opts) > max_options:
            return [opts[round(k * (len(opts) - 1) / (n - 1))] for k in range(n)]
        return opts
    if isinstance(control.value, bool):
        return [not control.value, control.value]
    lo, hi = control.min, control.max
    if type(control).__name__ == "FloatLogSlider":
        return [control.base ** e for e in np.linspace(lo, hi, n)]
    return [type(control.value)(round(v / control.step) * control.step) for v in np.linspace(lo, hi, n)]


def links_by_value(control) -> bool:
    """An IntSlider from 0 in steps of 1: its value is the frame index."""
    import ipywidgets as w

    return isinstance(control, w.IntSlider) and control.min == 0 and control.step == 1


def readout_text(control, value) -> str:
    """``value`` as ``control``'s readout in the browser writes it: its ``readout_format``, and
    the minus sign U+2212 (d3-format writes "\u2212", not "-")."""
    fmt = getattr(control, "readout_format", "") or ""
    return format(value, fmt).replace("-", "\u2212")


def frame_slider(control):
    """``control`` if a Stack can follow it in the browser, else an equivalent
    ``SelectionSlider`` (same description, style, layout, values and readout text).

    The browser can copy an IntSlider's value from 0 in steps of 1, or a SelectionSlider's
    index, into a Stack's ``selected_index``; any other slider (an IntSlider from -50, a
    FloatSlider) becomes a SelectionSlider over the very values it could take.
    """
    import ipywidgets as w

    if links_by_value(control) or isinstance(control, w.SelectionSlider):
        return control
    values = slider_values(control)
    if values is None:
        raise TypeError(f"{type(control).__name__} cannot drive frames: not a discrete slider")
    value = min(values, key=lambda v: abs(v - control.value))
    slider = w.SelectionSlider(options=[(readout_text(control, v), v) for v in values], value=value,
                               description=control.description, style=control.style, layout=control.layout,
                               continuous_update=control.continuous_update, disabled=control.disabled,
                               readout=control.readout)
    control.close()
    return slider


def play_link(play, slider, attr: str = "value"):
    """Link a ``Play`` widget to ``slider.<attr>`` in the browser (``jslink``: playing needs
    no kernel round trip, so it steps through the frames), and in Python for changes made by
    code (``play.value = 3`` moves the slider before it returns, and the other way round).
    Returns the browser-side link.

    A ``SelectionSlider`` (e.g. a static page's subset of the values) is driven by its
    ``index``: the Play button then counts 0 .. len(options) - 1.
    """
    import ipywidgets as w

    if isinstance(slider, w.SelectionSlider) and attr == "value":
        attr = "index"
        play.min, play.max, play.value = 0, len(slider.options) - 1, slider.index
    link = w.jslink((play, "value"), (slider, attr))

    def follow(target, target_attr):
        def on_change(change):
            if not from_browser(change["owner"]) and getattr(target, target_attr) != change["new"]:
                setattr(target, target_attr, change["new"])
        return on_change

    play.observe(follow(slider, attr), names="value")
    slider.observe(follow(play, "value"), names=attr)
    return link


def control_widget(control, value, maximum=None):
    """The ipywidget for a :class:`~posenc.ui.engine.spec.Control` showing ``value``
    (``maximum``: a maximum that follows another control)."""
    import ipywidgets as w

    c = control
    d = c.description()
    kw = dict(c.widget)
    slider = c.kind in ("int", "float", "log", "choice")
    st = slider_style(d) if slider else slider_style()
    if c.width is not None:
        kw["layout"] = w.Layout(width=c.width)
    elif slider:
        kw["layout"] = slider_layout(d)
    if c.kind == "int":
        return w.IntSlider(value, min=c.lo, max=c.hi if maximum is None else maximum, step=c.step,
                           description=d, style=st, **kw)
    if c.kind == "float":
        return w.FloatSlider(value, min=c.lo, max=c.hi, step=c.step, description=d, style=st, **kw)
    if c.kind == "log":
        return w.FloatLogSlider(value, base=10, min=c.lo, max=c.hi, step=c.step, description=d, style=st, **kw)
    if c.kind == "checkbox":
        return w.Checkbox(value=value, description=d, **kw)
    options = [(c.text(v), v) for v in c.options] if c.option_labels else list(c.options)
    cls = w.SelectionSlider if c.kind == "choice" else w.Dropdown
    return cls(options=options, value=value, description=d, style=st, **kw)


# -- a button whose work takes a while -------------------------------------------------------
def message_sent_time() -> float | None:
    """When the browser sent the widget message the kernel is handling (seconds since the
    epoch, on the browser's clock, from the message header's ``date``), or None outside a
    kernel or without a date (logged once)."""
    try:
        from ipykernel.kernelbase import Kernel

        if not Kernel.initialized():
            return None
        date = Kernel.instance().get_parent("shell").get("header", {}).get("date")
    except Exception as exc:   # another kernel, or no parent message
        fall_back("click times", f"the kernel's parent message is not readable ({type(exc).__name__})")
        return None
    if date is None:
        fall_back("click times", "the message being handled carries no date")
        return None
    if isinstance(date, str):
        from datetime import datetime

        date = datetime.fromisoformat(date.replace("Z", "+00:00"))
    return date.timestamp()


class StaleClicks:
    """Tells a button's click handler which clicks to ignore: those the browser sent while
    the last run was going on.

    The kernel is busy while a click's work runs, so clicks made meanwhile wait in its queue
    and would start a second run the moment the first one ends. Each click message carries
    the time the browser sent it (``sent_time()``, :func:`message_sent_time`); a click sent
    before the last run finished (:meth:`finished`, on ``clock()``) is stale. The browser's
    clock may differ from the kernel's: the offset is measured on each click that starts a
    run (answered at once, so its delay is small). A click with no sent time is never stale.
    Tests pass a fake ``clock`` and ``sent_time``.
    """

    def __init__(self, clock=time.time, sent_time=message_sent_time):
        self.clock, self.sent_time = clock, sent_time
        self.finished_at = self.offset = None

    def stale(self) -> bool:
        """Is the click being handled one to ignore? (if not, its clock offset is noted)"""
        sent = self.sent_time()
        if self.finished_at is not None and sent is not None and self.offset is not None \
                and sent + self.offset < self.finished_at:
            return True
        if sent is not None:
            self.offset = self.clock() - sent
        return False

    def finished(self) -> None:
        """The run a click started has ended (clicks sent before now are stale)."""
        self.finished_at = self.clock()
