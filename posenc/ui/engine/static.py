"""Static mode: widgets for a page that no kernel answers (the static edition,
``tools/build_site.py``), switched on by one environment variable.

The interface (the whole of it; any explorer engine honours exactly this):

* :data:`ENV` = ``POSENC_STATIC_FRAMES``: unset (or empty) means the normal live mode. Set to
  an integer ``N >= 3`` it is the most frames one explorer may hold, and
  :func:`frames_limit` returns it (anything else is a ``ValueError`` naming the variable).
* Every explorer made while it is set renders its main slider's frames at construction, as
  PNG data: URLs: every value if there are at most ``N``, else ``N`` values chosen by
  :func:`subset` (evenly spaced, both ends and the current value included). The main slider
  then steps through exactly the rendered values: a ``SelectionSlider`` whose readout is the
  real value (:class:`SubsetSlider` when some values were left out). Code may still set the
  slider to any value of its full range: the kept values then re-form around the new one and
  the missing frames are rendered before the assignment returns. Another control moved by
  code redraws every frame before the assignment returns.
* The frame on screen is always a rendered frame, never the kernel's live image.
* Every other control (and every other input of the widget: a checkbox, a button) is shown
  with ``disabled=True``, and the explorer's box gets a one-line Chinese hint,
  :func:`hint`: an ``HTML`` widget with the class :data:`HINT_CLASS`.
* No IPython hook is installed and nothing is scheduled on the event loop.
* The self-check quiz and the training panel follow the same rule: their inputs are disabled
  and they say so with the same kind of hint. (Exercises are the builder's: tools/build_site.py.)

The builder chooses ``N`` per notebook to keep each page within its budget.
"""
from __future__ import annotations

import functools
import os

#: The environment variable that switches static mode on (its value: the most frames per explorer).
ENV = "POSENC_STATIC_FRAMES"
#: The CSS class of every static-mode hint.
HINT_CLASS = "posenc-static-hint"
#: The hint of an explorer whose main slider works in the page.
HINT = "静态网页：只有主滑块能拖动；其余控件要在 JupyterLab 里运行笔记本才能用。"
#: The hint of a widget none of whose inputs work in the page.
HINT_NONE = "静态网页：这里的控件要在 JupyterLab 里运行笔记本才能用。"

#: The self-check quiz's hint (its answers are behind a click instead).
QUIZ_HINT = "静态网页：这里不能作答，要在 JupyterLab 里运行笔记本才能选；每题下面可以点开看答案和解析。"
#: The training panel's hint (what it shows was trained when the page was built).
TRAINING_HINT = ("静态网页：按钮和参数要在 JupyterLab 里运行笔记本才能用；"
                 "下面是构建网页时训练的结果。")


def frames_limit() -> int | None:
    """The most frames per explorer when static mode is on (:data:`ENV`), else None."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return None
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 3:
        raise ValueError(f"{ENV} must be an integer >= 3 (the most frames per explorer), got {raw!r} / "
                         f"{ENV} 必须是不小于 3 的整数（每个探索器最多画几帧），现在是 {raw!r}")
    return n


def active() -> bool:
    """Is static mode on?"""
    return frames_limit() is not None


def subset(n: int, limit: int, current: int) -> list[int]:
    """Indices of the values to render out of ``n``: all of them if ``n <= limit``, else
    exactly ``limit`` of them, evenly spaced from the first to the last, with ``current``
    in place of the spaced index nearest to it (never an end, which stay).

    >>> subset(11, 5, 0)
    [0, 2, 5, 8, 10]
    >>> subset(11, 5, 4)
    [0, 2, 4, 8, 10]
    """
    if not 0 <= current < n:
        raise ValueError(f"current must be in 0 .. {n - 1}, got {current} / current 必须在 0 到 {n - 1} 之间，现在是 {current}")
    if limit < 3:
        raise ValueError(f"limit must be >= 3 (both ends and the current value), got {limit} / "
                         f"limit 至少是 3（两端加当前值），现在是 {limit}")
    if n <= limit:
        return list(range(n))
    picks = [round(k * (n - 1) / (limit - 1)) for k in range(limit)]
    if current not in picks:
        inner = range(1, limit - 1)
        nearest = min(inner, key=lambda k: (abs(picks[k] - current), k))
        picks[nearest] = current
    return sorted(picks)


def explorer_hint(main: str | None, frames=None, others: bool = True):
    """The hint widget of an explorer whose main slider is ``main`` (None: it has none), with
    ``frames`` (its FrameSet) and ``others`` (has it other controls?). Its ``<span>`` carries
    ``data-frames`` (frames rendered) and ``data-values`` (values of the full slider): the
    builder reads them to report subsets and to size pages."""
    if main is None:
        return hint(HINT_NONE)
    slider = frames.slider
    total = len(slider.all_options) if hasattr(slider, "all_options") else len(option_pairs(slider))
    rendered = len(frames.values)
    note = "" if rendered == total else f"（{total} 个取值里均匀取了 {rendered} 个）"
    if others:
        text = f"静态网页：只有主滑块 {main} 能拖动{note}；其余控件要在 JupyterLab 里运行笔记本才能用。"
    else:
        text = f"静态网页：滑块 {main} 的每个位置都是构建网页时画好的图{note}；要重新计算，请在 JupyterLab 里运行笔记本。"
    return hint(text, frames=rendered, values=total)


def hint(text: str = HINT, **data):
    """The one-line hint a static page shows beside controls that need a kernel (``data``:
    ``data-*`` attributes of its span)."""
    import html

    import ipywidgets as w

    attrs = "".join(f' data-{k}="{html.escape(str(v))}"' for k, v in data.items())
    return w.HTML(f"<span{attrs}>{html.escape(text)}</span>", _dom_classes=(HINT_CLASS,))


def disable(widgets) -> None:
    """``disabled = True`` on every widget that has it."""
    for x in widgets:
        if hasattr(x, "disabled"):
            x.disabled = True


def option_pairs(control) -> list[tuple[str, object]]:
    """Every (readout label, value) a discrete slider can take, in order (labels as the
    browser's readout writes them: U+2212 for a minus)."""
    import ipywidgets as w

    from .controls import readout_text, slider_values

    if isinstance(control, w.SelectionSlider):
        return [o if isinstance(o, tuple) else (str(o), o) for o in control.options]
    return [(readout_text(control, v), v) for v in slider_values(control)]


def subset_slider(control, limit: int):
    """``control`` as a :class:`SubsetSlider` over at most ``limit`` of its values (same
    description, style, layout, readout), or None when it has no more than ``limit`` values."""
    pairs = option_pairs(control)
    if len(pairs) <= limit:
        return None
    values = [v for _, v in pairs]
    current = min(range(len(values)), key=lambda j: abs(values[j] - control.value)) \
        if not isinstance(control.value, str) else values.index(control.value)
    slider = subset_slider_class()(pairs, limit, value=values[current], description=control.description,
                          style=control.style, layout=control.layout,
                          continuous_update=control.continuous_update, readout=control.readout)
    control.close()
    return slider


@functools.cache
def subset_slider_class():
    """:class:`SubsetSlider` (made on first use: importing this module does not import ipywidgets)."""
    import ipywidgets as w
    from traitlets import validate

    class SubsetSlider(w.SelectionSlider):
        """A SelectionSlider over ``limit`` of ``pairs`` (label, value), chosen by :func:`subset`
        around the current value. Setting ``.value`` to any value of ``pairs`` works: the kept
        values re-form around it first (same count, both ends kept)."""

        def __init__(self, pairs, limit, value, **kwargs):
            self.all_options = list(pairs)
            self.limit = int(limit)
            j = self._position(value)
            keep = subset(len(self.all_options), self.limit, j)
            super().__init__(options=[self.all_options[k] for k in keep], value=value, **kwargs)

        def _position(self, value):
            return next((j for j, (_, v) in enumerate(self.all_options) if v == value), None)

        @validate("value")
        def _validate_value(self, proposal):
            value = proposal.value
            if value is not None and value not in self._options_values:
                j = self._position(value)
                if j is not None:
                    # new options, same count; the index follows from the value just below
                    self._initializing_traits_ = True
                    try:
                        self.options = [self.all_options[k] for k in subset(len(self.all_options), self.limit, j)]
                    finally:
                        self._initializing_traits_ = False
            return super()._validate_value(proposal)

    return SubsetSlider


def __getattr__(name):
    if name == "SubsetSlider":
        return subset_slider_class()
    raise AttributeError(name)
