"""Frames for a page no kernel answers (the static edition, ``tools/build_site.py``): the one
kernel-side switch, set by the builder and read by :class:`~posenc.ui.engine.explorer.Explorer`
alone.

* :data:`ENV` = ``POSENC_STATIC_FRAMES``: unset (or empty) means the normal live mode. Set to
  an integer ``N >= 3`` it is the most frames one explorer may hold (:func:`frames_limit`;
  anything else is a ``ValueError`` naming the variable).
* Every explorer made while it is set renders its main slider's frames at construction, as
  PNG data: URLs: every value if there are at most ``N``, else ``N`` values chosen by
  :func:`subset` (evenly spaced, both ends and the current value included). The main slider
  then steps through exactly the rendered values: a ``SelectionSlider`` whose readout is the
  real value (:class:`SubsetSlider` when some values were left out). Code may still set the
  slider to any value of its full range: the kept values re-form around the new one and the
  missing frames are rendered before the assignment returns. The frame on screen is always a
  rendered frame, never the kernel's live image. No IPython hook is installed.

Nothing else reads it: what each widget can do on a page — and what it says when it cannot —
the builder decides from the widgets' declarations (:mod:`posenc.ui.declare`).
"""
from __future__ import annotations

import functools
import os

from ...validate import bilingual
from .controls import frame_options, main_look, nearest_value
from .internals import options_keep_index

#: The environment variable that switches static mode on (its value: the most frames per explorer).
ENV = "POSENC_STATIC_FRAMES"


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
        raise ValueError(bilingual(f"{ENV} must be an integer >= 3 (the most frames per explorer), got {raw!r}",
                                   f"{ENV} 必须是不小于 3 的整数（每个探索器最多画几帧），现在是 {raw!r}"))
    return n


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
        raise ValueError(bilingual(f"current must be in 0 .. {n - 1}, got {current}",
                                   f"current 必须在 0 到 {n - 1} 之间，现在是 {current}"))
    if limit < 3:
        raise ValueError(bilingual(f"limit must be >= 3 (both ends and the current value), got {limit}",
                                   f"limit 至少是 3（两端加当前值），现在是 {limit}"))
    if n <= limit:
        return list(range(n))
    picks = [round(k * (n - 1) / (limit - 1)) for k in range(limit)]
    if current not in picks:
        inner = range(1, limit - 1)
        nearest = min(inner, key=lambda k: (abs(picks[k] - current), k))
        picks[nearest] = current
    return sorted(picks)


#: ``(readout text, value)`` of each position of a main slider (what the browser suite matches
#: a page's readout against): :func:`posenc.ui.engine.controls.frame_options`.
option_pairs = frame_options


def subset_slider(control, value, limit: int):
    """The static page's main slider of a declared control at ``value``: a
    :class:`SubsetSlider` over at most ``limit`` of its values (its label, style and readout
    texts those of :func:`~posenc.ui.engine.controls.frame_slider`), or None when it has no
    more than ``limit`` values (then the live main slider serves)."""
    pairs = control.pairs()
    if len(pairs) <= limit:
        return None
    value = nearest_value([v for _, v in pairs], value)
    return subset_slider_class()(pairs, limit, value=value, **main_look(control))


@functools.cache
def subset_slider_class():
    """:class:`SubsetSlider` (made on first use: importing this module does not import ipywidgets)."""
    import ipywidgets as w
    from traitlets import TraitError, observe, validate

    class SubsetSlider(w.SelectionSlider):
        """A SelectionSlider over ``limit`` of ``pairs`` (label, value), chosen by :func:`subset`
        around the current value. Setting ``.value`` to any value of ``pairs`` works: the kept
        values re-form around it first (same count, both ends kept)."""

        def __init__(self, pairs, limit, value, **kwargs):
            self.all_options = list(pairs)
            self.limit = int(limit)
            self.kept = self._around(self._position(value))
            super().__init__(options=self.kept, value=value, **kwargs)

        def _position(self, value):
            return next((j for j, (_, v) in enumerate(self.all_options) if v == value), None)

        def _around(self, j) -> list:
            return [self.all_options[k] for k in subset(len(self.all_options), self.limit, j)]

        def _kept(self, value):
            return next((v for _, v in self.kept if v == value), None)

        @validate("value")
        def _validate_value(self, proposal):   # in place of SelectionSlider's own check (same name)
            value = proposal.value
            if value is None or self._kept(value) is not None:
                return None if value is None else self._kept(value)
            j = self._position(value)
            if j is None:
                raise TraitError(bilingual("Invalid selection: value not found", f"选项里没有这个值：{value!r}"))
            # new options, same count, kept around the value; the index follows from it
            self.kept = self._around(j)
            with options_keep_index(self):
                self.options = self.kept
            return self._kept(value)

        @observe("value")
        def _label_follows(self, change):
            # (ipywidgets updates the label with the index: after a re-form the index may stay)
            label = next((t for t, v in self.kept if v == change["new"]), self.label)
            if self.label != label:
                self.label = label

    return SubsetSlider


def __getattr__(name):
    if name == "SubsetSlider":
        return subset_slider_class()
    raise AttributeError(name)
