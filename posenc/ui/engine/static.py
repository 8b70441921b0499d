"""Frames for a page no kernel answers (the static edition, ``tools/build_site.py``): the one
kernel-side switch, set by the builder and read by :class:`~posenc.ui.engine.explorer.Explorer`
alone.

* :data:`ENV` = ``POSENC_STATIC_FRAMES``: unset (or empty) means the normal live mode. Set to
  an integer ``N >= 3`` it is the most values of one main slider a page holds
  (:func:`frames_limit`; anything else is a ``ValueError`` naming the variable).
* Every explorer made while it is set renders the frames of its whole grid at construction
  (:attr:`ExplorerSpec.grid <posenc.ui.engine.spec.ExplorerSpec.grid>`: the main slider and the
  other controls the notebook's steps use), as PNG data: URLs, at the values each
  :class:`~posenc.ui.engine.spec.Axis` holds on a page (:meth:`~posenc.ui.engine.spec.Axis.page_values`:
  the values that teach; for the main slider at most ``N`` of them, both ends, the declared
  ones and the current value included). Every axis then steps through exactly the rendered
  values: the main slider is a ``SelectionSlider`` whose readout is the real value
  (:class:`SubsetSlider` when some values were left out), the other axes are frame controls
  over their page values (:func:`~posenc.ui.engine.controls.frame_control`). Code may still set
  the main slider to any value of its full range: the kept values re-form around the new one
  and the missing frames are rendered before the assignment returns. The frame on screen is
  always a rendered frame, never the kernel's live image. No IPython hook is installed.

Nothing else reads it: what each widget can do on a page — and what it says when it cannot —
the builder decides from the widgets' declarations (:mod:`posenc.ui.declare`).
"""
from __future__ import annotations

import functools
import os

from ...validate import bilingual
from .controls import frame_options, main_look, nearest_value
from .spec import spaced
from .internals import options_keep_index

#: The environment variable that switches static mode on (its value: the most values of a main slider).
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
        raise ValueError(bilingual(f"{ENV} must be an integer >= 3 (the most values of a main slider), got {raw!r}",
                                   f"{ENV} 必须是不小于 3 的整数（每个主滑块最多画几个取值），现在是 {raw!r}"))
    return n


def subset(n: int, limit: int, current: int) -> list[int]:
    """Indices of the values to render out of ``n``: all of them if ``n <= limit``, else
    exactly ``limit`` of them, both ends and ``current`` among them, the others spread evenly
    over the gaps (:func:`~posenc.ui.engine.spec.spaced`, the one rule).

    >>> subset(11, 5, 0)
    [0, 2, 5, 8, 10]
    >>> subset(11, 5, 4)
    [0, 2, 4, 7, 10]
    """
    if not 0 <= current < n:
        raise ValueError(bilingual(f"current must be in 0 .. {n - 1}, got {current}",
                                   f"current 必须在 0 到 {n - 1} 之间，现在是 {current}"))
    if limit < 3:
        raise ValueError(bilingual(f"limit must be >= 3 (both ends and the current value), got {limit}",
                                   f"limit 至少是 3（两端加当前值），现在是 {limit}"))
    return spaced(n, limit, [current])


#: ``(readout text, value)`` of each position of a main slider (what the browser suite matches
#: a page's readout against): :func:`posenc.ui.engine.controls.frame_options`.
option_pairs = frame_options


def subset_slider(axis, control, value, limit: int):
    """The static page's main slider of a declared control at ``value``: a :class:`SubsetSlider`
    over the values its grid :class:`~posenc.ui.engine.spec.Axis` holds on a page (at most
    ``limit``; its label, style and readout texts those of
    :func:`~posenc.ui.engine.controls.frame_slider`), or None when that is every value (then the
    live main slider serves)."""
    pairs = control.pairs()
    value = nearest_value([v for _, v in pairs], value)
    if len(axis.page_values(control, value, limit)) == len(pairs):
        return None
    return subset_slider_class()(pairs, lambda v: axis.page_values(control, v, limit), value=value,
                                 **main_look(control))


@functools.cache
def subset_slider_class():
    """:class:`SubsetSlider` (made on first use: importing this module does not import ipywidgets)."""
    import ipywidgets as w
    from traitlets import TraitError, observe, validate

    class SubsetSlider(w.SelectionSlider):
        """A SelectionSlider over some of ``pairs`` (label, value): ``choose(value)`` gives the
        values kept around ``value`` (a static page's :meth:`Axis.page_values
        <posenc.ui.engine.spec.Axis.page_values>`; an int ``n``: :func:`subset`'s ``n`` evenly
        spaced ones). Setting ``.value`` to any value of ``pairs`` works: the kept values
        re-form around it first (same count, both ends kept)."""

        def __init__(self, pairs, choose, value, **kwargs):
            self.all_options = list(pairs)
            if isinstance(choose, int):
                n, values = choose, [v for _, v in pairs]
                choose = lambda v: [values[j] for j in subset(len(values), n, values.index(v))]
            self.choose = choose
            self.kept = self._around(self._position(value))
            super().__init__(options=self.kept, value=value, **kwargs)

        def _position(self, value):
            return next((j for j, (_, v) in enumerate(self.all_options) if v == value), None)

        def _around(self, j) -> list:
            wanted = set(self.choose(self.all_options[j][1]))
            return [o for o in self.all_options if o[1] in wanted]

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
