"""Frames: the figures of an explorer's main slider, rendered ahead of time and switched in
the browser, so that a drag never waits for the kernel.

Without frames every slider move is a kernel round trip (widget message -> update the
artists -> blit -> PNG -> message back), and ipywidgets sends the next value only after the
kernel answered: a drag gets 7-14 figures a second. With frames, the figure an explorer
shows is an ``ipywidgets.Stack`` of ``Image`` widgets, one per position of its main slider
(``Explorer.FRAMES``), each holding a ``data:image/png;base64,...`` URL; the Stack's
``selected_index`` is ``jsdlink``-ed to the slider's ``value`` (an ``IntSlider`` from 0 in
steps of 1) or ``index`` (a ``SelectionSlider``; other sliders are replaced by one), so the
browser switches the figure itself.

* A position whose frame is not rendered yet shows the live image: the explorer's own
  ``Image``, redrawn by the kernel as before. (data: URLs, not PNG bytes: the browser shows
  a data: URL at once, a PNG widget's ``blob:`` URL loads asynchronously and blanks the
  figure for a moment on every switch.)
* Frames are rendered on an off-screen copy of the explorer (:meth:`Explorer._offscreen`),
  in the kernel's event loop, one frame per callback, and only once the kernel has been
  quiet (no cell run, no control moved) for :data:`QUIET_S`; widget messages are handled
  between two frames. The explorer moved last is filled first, then the others in the
  order they were made (higher on the page first). With no running event loop (plain
  Python, pytest) nothing is scheduled: call :meth:`FrameSet.fill`. A notebook run by
  nbclient never leaves the kernel quiet that long between cells, so it renders no frame.
* Moving any other control drops the frames (every position shows the live image again)
  and starts a new fill.
* Memory: at most :data:`MAX_BYTES` of data: URLs per explorer, the frames nearest the
  slider's current position first (when the reader moves on, the farthest frames make room
  for nearer ones), and at most :data:`MAX_TOTAL_BYTES` in one kernel (the explorer used
  least recently gives its frames up first).
* Setting a control's ``.value`` in code stays synchronous: the Stack's index and the
  figure's artists follow before the assignment returns, so ``savefig`` writes what is shown.
"""
from __future__ import annotations

import asyncio
import base64
import time
import weakref

#: The kernel must have been quiet this long (s) before a frame is rendered.
QUIET_S = 0.25
#: Pause (s) after each frame: callbacks that are ready (a widget message being handled)
#: run before the next frame.
YIELD_S = 0.002
#: Frames rendered meanwhile are sent to the browser at most this often (s) during a fill.
PUBLISH_S = 0.15
#: Data: URL bytes one explorer's frames may hold (kernel memory; the browser keeps about
#: as much again in decoded images while they are shown).
MAX_BYTES = 24 * 2**20
#: Data: URL bytes all frames of one kernel may hold (a re-run cell leaves its old explorer
#: behind, as every ipywidget that is not closed stays alive).
MAX_TOTAL_BYTES = 4 * MAX_BYTES


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


def _links_by_value(control) -> bool:
    """An IntSlider from 0 in steps of 1: its value is the frame index."""
    import ipywidgets as w

    return isinstance(control, w.IntSlider) and control.min == 0 and control.step == 1


def frame_slider(control):
    """``control`` if the Stack can follow it in the browser, else an equivalent
    ``SelectionSlider`` (same description, style, layout, values and readout text).

    The browser can copy an IntSlider's value from 0 in steps of 1, or a SelectionSlider's
    index, into the Stack's ``selected_index``; any other slider (an IntSlider from -50, a
    FloatSlider) becomes a SelectionSlider over the very values it could take.
    """
    import ipywidgets as w

    if _links_by_value(control) or isinstance(control, w.SelectionSlider):
        return control
    values = slider_values(control)
    if values is None:
        raise TypeError(f"{type(control).__name__} cannot drive frames: not a discrete slider")
    fmt = getattr(control, "readout_format", "") or ""
    value = min(values, key=lambda v: abs(v - control.value))
    slider = w.SelectionSlider(options=[(format(v, fmt), v) for v in values], value=value,
                               description=control.description, style=control.style, layout=control.layout,
                               continuous_update=control.continuous_update, disabled=control.disabled,
                               readout=control.readout)
    control.close()
    return slider


def _data_url(png: bytes) -> bytes:
    return b"data:image/png;base64," + base64.b64encode(png)


def _png_of(url) -> bytes:
    url = bytes(url)
    return base64.b64decode(url[url.index(b",") + 1:])


def _from_browser(widget) -> bool:
    """Is ``widget`` being updated by a message from the browser (not by Python code)?"""
    return bool(getattr(widget, "_property_lock", None))


def play_link(play, slider, attr: str = "value"):
    """Link a ``Play`` widget to ``slider.<attr>`` in the browser (``jslink``: playing needs
    no kernel round trip, so it steps through the frames), and in Python for changes made by
    code (``play.value = 3`` moves the slider before it returns, and the other way round).
    Returns the browser-side link."""
    import ipywidgets as w

    link = w.jslink((play, "value"), (slider, attr))

    def follow(target, target_attr):
        def on_change(change):
            if not _from_browser(change["owner"]) and getattr(target, target_attr) != change["new"]:
                setattr(target, target_attr, change["new"])
        return on_change

    play.observe(follow(slider, attr), names="value")
    slider.observe(follow(play, "value"), names=attr)
    return link


class _Scheduler:
    """One per process: renders frames in the running event loop when the kernel is quiet."""

    def __init__(self):
        self._sets: list = []  # weak references, in creation order
        self.last_activity = time.monotonic()
        self.handle = None
        self.loop = None
        self._hooked = False
        self.rendered = 0  # frames rendered by the background fill (tests, benchmarks)

    def add(self, fs) -> None:
        self._sets = [r for r in self._sets if r() is not None]
        self._sets.append(weakref.ref(fs))

    def sets(self) -> list:
        """Every frame set alive, in the order their explorers were made."""
        return [s for s in (r() for r in self._sets) if s is not None]

    def touch(self) -> None:
        """Something happened (a cell ran, a control moved): wait QUIET_S again."""
        self.last_activity = time.monotonic()

    def _hook_cells(self) -> None:
        if self._hooked:
            return
        self._hooked = True
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - ipywidgets needs IPython
            return
        ip = get_ipython()
        if ip is None:
            return
        ip.events.register("pre_run_cell", lambda *a: self.touch())
        ip.events.register("post_run_cell", lambda *a: (self.touch(), self.wake()))

    def wake(self) -> None:
        """Make sure a fill is scheduled; nothing happens without a running event loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # plain Python / pytest: frames are rendered only by fill()
        self._hook_cells()
        if self.handle is not None and self.loop is loop and not self.handle.cancelled():
            return
        self.loop = loop
        self.handle = loop.call_later(QUIET_S, self._tick)

    def _tick(self) -> None:
        self.handle = None
        wait = self.last_activity + QUIET_S - time.monotonic()
        if wait > 0:
            self.handle = self.loop.call_later(wait, self._tick)
            return
        fs = self._choose()
        if fs is None:
            for s in self.sets():
                s.publish()
            return
        try:
            if fs.render_next():
                self.rendered += 1
        except Exception as exc:  # never break the kernel's loop: this explorer stays live
            fs.broken = exc
        self.handle = self.loop.call_later(YIELD_S, self._tick)

    def _choose(self):
        """The frame set to render for next: the one used last; room made if needed."""
        sets = self.sets()
        wanting = [s for s in sets if s.wants_frame()]
        if not wanting:
            return None
        fs = max(wanting, key=lambda s: s.last_used)
        while sum(s.bytes for s in sets) + fs.frame_size() > MAX_TOTAL_BYTES:
            older = [s for s in sets if s is not fs and s.frames and s.last_used < fs.last_used]
            if not older:
                return None
            min(older, key=lambda s: s.last_used).drop()
        return fs


SCHEDULER = _Scheduler()


class FrameSet:
    """The frames of one explorer's main control, and the Stack(s) that show them.

    Made by :class:`~posenc.figures.explorer.Explorer` when the class names its main control
    in ``FRAMES``; ``explorer.frames`` is this object. ``extras`` names attributes holding
    widgets whose ``.value`` also follows the main control (e.g. an HTML table): each gets a
    Stack of its own, switched by the same slider.
    """

    def __init__(self, explorer, name: str, extras=()):
        import ipywidgets as w

        self.ex, self.name = explorer, name
        self.slider = explorer.controls[name]
        self.values = slider_values(self.slider)
        self.attr = "value" if _links_by_value(self.slider) else "index"
        self.live = explorer.image
        self.extra_names = tuple(extras)
        self.live_extras = tuple(getattr(explorer, a) for a in self.extra_names)
        self.max_bytes = MAX_BYTES
        self.frames: dict = {}  # index -> Image widget holding a data: URL
        self.extras: dict = {}  # index -> one widget per extra
        self.sizes: dict = {}   # index -> bytes held
        self.bytes = 0
        self.broken = None  # the exception that stopped this set's fill, if any
        # fill order: moved last first; never moved: made first (higher on the page) first
        self.last_used = -time.monotonic()
        self._renderer = None
        self._dirty = False
        self._closing: list = []
        self._full_at = None
        self._last_publish = 0.0
        n, i = len(self.values), self.index()
        self.stack = w.Stack(children=[self.live] * n, selected_index=i, _dom_classes=("posenc-frames",))
        self.extra_stacks = [w.Stack(children=[x] * n, selected_index=i) for x in self.live_extras]
        self.links = [w.jsdlink((self.slider, self.attr), (s, "selected_index"))
                      for s in (self.stack, *self.extra_stacks)]
        self.slider.add_class("posenc-frames-control")
        SCHEDULER.add(self)
        SCHEDULER.wake()

    # -- state ------------------------------------------------------------------
    def index(self) -> int:
        """The slider's position (= the Stack index it selects)."""
        return self.slider.value if self.attr == "value" else self.slider.index

    def shown(self, i: int) -> bool:
        """Does the browser have a frame at position ``i`` (published, not the live image)?"""
        return self.stack.children[i] is not self.live

    def shown_png(self) -> bytes:
        """The PNG bytes of the image the Stack shows now."""
        i = self.stack.selected_index
        child = self.live if i is None else self.stack.children[i]
        return self.ex._live_png if child is self.live else _png_of(child.value)

    def frame_size(self) -> int:
        """Bytes one more frame will probably take (the mean so far; 0 before the first)."""
        return self.bytes // len(self.sizes) if self.sizes else 0

    def _missing(self):
        """The position nearest the slider that has no frame (None: all have one)."""
        i0 = self.index()
        for d in range(len(self.values)):
            for i in (i0 - d, i0 + d):
                if 0 <= i < len(self.values) and i not in self.frames:
                    return i
        return None

    def _farthest(self):
        i0 = self.index()
        return max(self.frames, key=lambda i: (abs(i - i0), i)) if self.frames else None

    def wants_frame(self) -> bool:
        """Is there a frame to render now (within the memory cap)?"""
        if self.broken is not None or self.max_bytes <= 0:
            return False
        i = self._missing()
        if i is None or self._full_at == self.index():
            return False
        if self.bytes + self.frame_size() <= self.max_bytes:
            return True
        far = self._farthest()
        i0 = self.index()
        return far is not None and abs(far - i0) > abs(i - i0)

    # -- moves ------------------------------------------------------------------
    def on_main(self) -> None:
        """The main control moved (browser or code): show its frame, keep the figure in step."""
        SCHEDULER.touch()
        self.last_used = time.monotonic()
        if self._dirty:
            self.publish()
        i = self.index()
        if self.shown(i):
            # the browser shows the frame: only move the artists, so savefig equals it
            self.ex._set_artists()
        else:
            self.ex.refresh(changed=self.name)
        if not _from_browser(self.slider):  # from the browser, the jsdlink has switched already
            for s in (self.stack, *self.extra_stacks):
                s.selected_index = i
        SCHEDULER.wake()

    def drop(self) -> None:
        """Forget every frame: each position shows the live image again."""
        self._closing += [*self.frames.values(), *(x for xs in self.extras.values() for x in xs)]
        self.frames.clear()
        self.extras.clear()
        self.sizes.clear()
        self.bytes = 0
        self._full_at = None
        # (while another control is dragged the Stack already shows the live image only:
        # don't send the children list again on every move)
        self._dirty = any(c is not self.live for c in self.stack.children)
        self.publish()

    def invalidate(self) -> None:
        """Another control moved: the frames are stale; start a new fill."""
        SCHEDULER.touch()
        self.last_used = time.monotonic()
        self.drop()
        if self._renderer is not None:
            self._renderer._layer_key = None  # its cached layer holds the old settings
        SCHEDULER.wake()

    # -- rendering ----------------------------------------------------------------
    def render_frame(self, i: int):
        """Render position ``i`` off screen: its PNG and the values of the extras."""
        if self._renderer is None:
            self._renderer = self.ex._offscreen()
        r = self._renderer
        for k, c in self.ex.controls.items():
            r.controls[k].value = c.value
        r.controls[self.name].value = self.values[i]
        r._draw(changed=self.name)
        return r.png(), tuple(getattr(r, a).value for a in self.extra_names)

    def render_next(self) -> bool:
        """Render the frame nearest the slider (making room if needed); False: nothing to do."""
        import ipywidgets as w

        if not self.wants_frame():
            self._maybe_publish(force=True)
            return False
        i, i0 = self._missing(), self.index()
        png, values = self.render_frame(i)
        url = _data_url(png)
        size = len(url) + sum(len(str(v).encode()) for v in values)
        layout = {} if self.live.width == "" else {"width": self.live.width, "height": self.live.height}
        self.frames[i] = w.Image(value=url, format="url", _dom_classes=("posenc-figure",), **layout)
        self.extras[i] = tuple(type(x)(value=v, layout=x.layout) for x, v in zip(self.live_extras, values))
        self.sizes[i] = size
        self.bytes += size
        self._dirty = True
        while self.bytes > self.max_bytes:  # the farthest frames make room
            far = self._farthest()
            self._evict(far)
            if far == i:
                self._full_at = i0
                break
        self._maybe_publish()
        return True

    def _evict(self, i: int) -> None:
        self._closing += [self.frames.pop(i), *self.extras.pop(i)]
        self.bytes -= self.sizes.pop(i)
        self._dirty = True

    def _maybe_publish(self, force: bool = False) -> None:
        if self._dirty and (force or time.monotonic() - self._last_publish > PUBLISH_S
                            or not self.wants_frame()):
            self.publish()

    def publish(self) -> None:
        """Send the Stack(s) every frame rendered so far; close the frames dropped."""
        if self._dirty:
            n = len(self.values)
            self.stack.children = [self.frames.get(i, self.live) for i in range(n)]
            for j, s in enumerate(self.extra_stacks):
                s.children = [self.extras[i][j] if i in self.extras else self.live_extras[j] for i in range(n)]
            self._dirty = False
            self._last_publish = time.monotonic()
        for x in self._closing:
            x.close()
        self._closing = []

    def fill(self, limit: int | None = None) -> "FrameSet":
        """Render frames now, nearest the slider first (all, or ``limit`` of them), and
        publish them: for tests and for code that runs with no event loop."""
        count = 0
        while (limit is None or count < limit) and self.render_next():
            count += 1
        self.publish()
        return self


def status() -> list[dict]:
    """One row per frame set alive: explorer, control, frames rendered, positions, bytes,
    whether more frames are wanted (for tests and benchmarks)."""
    return [{"explorer": s.ex.name, "control": s.name, "frames": len(s.frames), "positions": len(s.values),
             "bytes": s.bytes, "pending": s.wants_frame() or s._dirty, "broken": repr(s.broken) if s.broken else None}
            for s in SCHEDULER.sets()]
