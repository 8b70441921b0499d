"""The widget engine every explorer runs on, apart from what any explorer draws.

* :mod:`~posenc.widgets.canvas`: a figure on an Agg canvas that redraws only what moved
  (cached background and layer, blitting, a glyph cache for repeated strings) and encodes
  PNG bytes; :func:`~posenc.widgets.canvas.new_figure` and the pixel density.
* :mod:`~posenc.widgets.controls`: slider helpers (style, the ``base`` slider, the values a
  control can take, a slider the browser can follow, Play links).
* :mod:`~posenc.widgets.frames`: pre-rendered figures of a main slider, switched in the
  browser; they take a render callable and know nothing of explorers. The
  :class:`~posenc.widgets.frames.FrameScheduler` fills them while the kernel is quiet.
* :mod:`~posenc.widgets.explorer`: :class:`~posenc.widgets.explorer.Explorer`, the base class
  of every explorer (controls -> update artists -> blit -> image, frames for the main slider,
  an off-screen twin built from the constructor's own arguments), and
  :class:`~posenc.widgets.explorer.LiveFigure`, a blitted figure in an image with no controls.

* :mod:`~posenc.widgets.static`: static mode for a page with no kernel (the static edition):
  ``POSENC_STATIC_FRAMES=N`` renders every explorer's main-slider frames at construction (at
  most ``N``, evenly spaced with both ends and the current value), disables every other
  control with a one-line hint, and installs no hook. Its docstring is the interface.

A figure family (``posenc/figures/<family>.py``) subclasses ``Explorer`` and writes only its
view and update; nothing here imports a figure family.
"""
