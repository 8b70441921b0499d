"""Controls: slider style, the widget of a declared control, the main slider the browser can
follow (frames), Play buttons linked in the browser, and a button that ignores the clicks queued
while its work ran.

What a control can take is not derived here: a widget is built from its declared
:class:`~posenc.ui.engine.spec.Control` (its values, maximum and readout texts come from it).
"""
from __future__ import annotations

import functools
import time

from ...validate import bilingual
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


def links_by_value(slider) -> bool:
    """An IntSlider from 0 in steps of 1: its value is the frame index."""
    import ipywidgets as w

    return isinstance(slider, w.IntSlider) and slider.min == 0 and slider.step == 1


def frame_attr(slider) -> str:
    """The attribute of ``slider`` the browser copies into a Stack's ``selected_index``:
    ``value`` (an IntSlider from 0 in steps of 1) or ``index`` (a selection widget: a
    SelectionSlider, a Dropdown, ToggleButtons)."""
    import ipywidgets as w

    if links_by_value(slider):
        return "value"
    if isinstance(slider, (w.SelectionSlider, w.Dropdown, w.ToggleButtons)):
        return "index"
    raise TypeError(f"{type(slider).__name__} cannot drive frames: use frame_slider() or frame_control()")


def frame_options(slider) -> list[tuple[str, object]]:
    """``(readout text, value)`` of each position of a widget that can drive frames, in index
    order: what the widget holds (its options; an IntSlider from 0: 0 .. max), not a derivation."""
    if frame_attr(slider) == "value":
        return [(str(v), v) for v in range(slider.max + 1)]
    return [o if isinstance(o, tuple) else (str(o), o) for o in slider.options]


def nearest_value(values: list, value):
    """The value of ``values`` nearest to ``value`` (``value`` itself when it is not a number)."""
    if isinstance(value, str):
        return value
    return min(values, key=lambda v: abs(v - value))


def main_look(control) -> dict:
    """The keyword arguments every main slider of ``control`` gets (its label and style, and
    the declared ``continuous_update`` / ``readout``); its layout takes the whole row."""
    d = control.description()
    return {"description": d, "style": slider_style(d), "layout": slider_layout(d, main=True),
            **{k: control.widget[k] for k in ("continuous_update", "readout") if k in control.widget}}


def frame_slider(control, value):
    """The main slider of a declared :class:`~posenc.ui.engine.spec.Control` at ``value``: one
    a Stack can follow in the browser, taking the whole row (:func:`frame_control`)."""
    return frame_control(control, value, main=True)


def frame_control(control, value, values=None, main: bool = False, top=None):
    """The widget of a frame-grid axis (:class:`~posenc.ui.engine.spec.Axis`): a declared
    :class:`~posenc.ui.engine.spec.Control` at ``value`` as a widget whose position a Stack can
    follow in the browser, over ``values`` (None: every value the control can take).

    The browser can copy an IntSlider's value from 0 in steps of 1, or a selection widget's
    index, into a Stack's ``selected_index``: an integer control from 0 in steps of 1 over all
    its values keeps its IntSlider, a dropdown stays a Dropdown (over ``values``), a checkbox
    becomes two ToggleButtons (its off and on states: a bool cannot select a Stack's child), and
    any other control (an integer from -50, a float, a log slider, a ``choice``) is a
    SelectionSlider over its values labelled with its readout texts (:meth:`Control.pairs
    <posenc.ui.engine.spec.Control.pairs>`). ``main``: the layout takes the whole row. (A
    static page's main slider over some of the values, which re-forms around a value set in
    code: :func:`posenc.ui.engine.static.subset_slider`.) ``top``: the control's maximum now
    (:meth:`Control.top <posenc.ui.engine.spec.Control.top>`): only the values up to it are offered.
    """
    import ipywidgets as w

    c = control
    every = c.values()
    values = every if values is None else [v for v in every if v in set(values)]
    if top is not None and c.max_follows is not None:
        values = [v for v in values if v <= top]
    value = c.nearest(value)
    if c.max_follows is not None and values and value not in values and value > values[-1]:
        value = values[-1]
    if value not in values:
        raise ValueError(bilingual(f"{c.name}: {value!r} is not one of the values {values!r}",
                                   f"{c.name} 的取值里没有 {value!r}，只有 {values!r}"))
    d = c.description()
    if main and c.kind not in ("dropdown", "checkbox"):
        look = main_look(c)
    else:
        look = {"description": d, "style": slider_style(d) if c.kind not in ("dropdown", "checkbox") else slider_style(),
                **{k: c.widget[k] for k in ("continuous_update", "readout") if k in c.widget and c.kind != "dropdown"}}
        if c.width is not None:
            look["layout"] = w.Layout(width=c.width)
        elif c.kind not in ("dropdown", "checkbox"):
            look["layout"] = slider_layout(d)
    disabled = c.widget.get("disabled", False)
    if c.kind == "int" and c.lo == 0 and c.step == 1 and values == every and c.max_follows is None:   # links_by_value
        slider = control_widget(c, value)
        slider.layout = look["layout"]
        return slider
    pairs = [(c.text(v), v) for v in values]
    if c.kind == "dropdown":
        return w.Dropdown(options=pairs, value=value, disabled=disabled, **look)
    if c.kind == "checkbox":
        return w.ToggleButtons(options=pairs, value=value, disabled=disabled,
                               style={"button_width": "auto", **look.pop("style")}, **look)
    cls = clamping_selection_slider() if c.max_follows is not None else w.SelectionSlider
    return cls(options=pairs, value=value, disabled=disabled, **look)


@functools.cache
def clamping_selection_slider():
    """A SelectionSlider over the first values of a control whose maximum follows another
    (ALiBi's ``head`` up to ``num_heads``): a value past its last option is taken as the last,
    as an IntSlider clamps to its ``max`` (made on first use)."""
    import ipywidgets as w
    from traitlets import TraitError, validate

    class ClampingSelectionSlider(w.SelectionSlider):
        @validate("value")
        def _validate_value(self, proposal):   # in place of the selection's own check (same name)
            value = proposal.value
            values = [o[1] if isinstance(o, tuple) else o for o in self.options]
            if value is None or value in values:
                return value
            if values and isinstance(value, (int, float)) and not isinstance(value, bool) and value > values[-1]:
                return values[-1]
            raise TraitError(bilingual("Invalid selection: value not found", f"选项里没有这个值：{value!r}"))

    return ClampingSelectionSlider


def play_link(play, slider):
    """Link a ``Play`` widget to a frame slider in the browser (``jslink``: playing needs no
    kernel round trip, so it steps through the frames), and in Python for changes made by
    code (``play.value = 3`` moves the slider before it returns, and the other way round).
    The Play counts through the slider's positions: its value (an IntSlider from 0) or its
    ``index`` (a SelectionSlider, e.g. a static page's subset of the values), 0 .. the last.
    Returns the browser-side link.
    """
    import ipywidgets as w

    attr = frame_attr(slider)
    play.min, play.max, play.value = 0, len(frame_options(slider)) - 1, getattr(slider, attr)
    link = w.jslink((play, "value"), (slider, attr))

    def follow(target, target_attr):
        def on_change(change):
            if not from_browser(change["owner"]) and getattr(target, target_attr) != change["new"]:
                setattr(target, target_attr, change["new"])
        return on_change

    play.observe(follow(slider, attr), names="value")
    slider.observe(follow(play, "value"), names=attr)
    return link


def control_widget(control, value, top=None):
    """The ipywidget for a :class:`~posenc.ui.engine.spec.Control` showing ``value``
    (``top``: its maximum now, :meth:`Control.top <posenc.ui.engine.spec.Control.top>`)."""
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
    hi = c.hi if top is None else top
    if c.kind == "int":
        return w.IntSlider(value, min=c.lo, max=hi, step=c.step, description=d, style=st, **kw)
    if c.kind == "float":
        return w.FloatSlider(value, min=c.lo, max=hi, step=c.step, description=d, style=st, **kw)
    if c.kind == "log":
        return w.FloatLogSlider(value, base=10, min=c.lo, max=hi, step=c.step, description=d, style=st, **kw)
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
