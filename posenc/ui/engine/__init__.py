"""The widget engine every explorer runs on, apart from what any explorer draws.

* :mod:`~posenc.ui.engine.spec`: what an explorer is, as data (no widgets):
  :class:`~posenc.ui.engine.spec.ExplorerSpec` with its controls (name, kind, range or options,
  default, label, declared checks and constraints between controls), its main slider, its frame
  grid and the values each axis holds on a page (:class:`~posenc.ui.engine.spec.Axis`), the
  steps its notebook asks for (:class:`~posenc.ui.engine.spec.Step`), figure size and view. The values a control can take, its maximum now and its readout text are
  derived there, once.
* :mod:`~posenc.ui.engine.internals`: every use of matplotlib's and ipywidgets' private parts,
  each checked once per process with a public fallback that logs (the glyph cache, telling a
  browser update from code, options that keep their index).
* :mod:`~posenc.ui.engine.canvas`: a figure on an Agg canvas that redraws only what moved
  (cached background and layer, blitting, the glyph cache for repeated strings) and encodes
  PNG bytes; :func:`~posenc.ui.engine.canvas.new_figure` and the pixel density. A control's
  move redraws the parts of the view it declares it changes (``Control.changes``).
* :mod:`~posenc.ui.engine.controls`: the widget of a declared control, the main slider the
  browser can follow, Play links, a button's stale clicks (its clock an argument).
* :mod:`~posenc.ui.engine.frames`: pre-rendered figures of a frame grid (the main slider and
  the controls the steps use), switched in the browser by nested Stacks; they take a render
  callable and know nothing of explorers.
* :mod:`~posenc.ui.engine.scheduler`: the process's
  :class:`~posenc.ui.engine.scheduler.FrameScheduler` fills the frame sets while the kernel is
  quiet, one frame per callback, within the kernel's memory cap (its clock and its
  ``call_later`` are arguments).
* :mod:`~posenc.ui.engine.fill_thread`: the thread the fill runs on, never one that handles the
  reader's messages.
* :mod:`~posenc.ui.engine.ahead`: after a reader's step of a control outside the grid, the
  figures at its next value each way, drawn by the scheduler on the fill thread once the kernel
  has been quiet for a moment; a step onto one of them shows it without a redraw.
* :mod:`~posenc.ui.engine.explorer`: :class:`~posenc.ui.engine.explorer.Explorer`, derived from a
  spec (constructor and argument checks, widgets, the view drawn on the live figure and on a
  second figure for the frames, the static page's frames), and
  :class:`~posenc.ui.engine.explorer.LiveFigure`, a blitted figure in an image with no controls.
* :mod:`~posenc.ui.engine.lock`: one drawing at a time in the process
  (:data:`~posenc.ui.engine.lock.DRAWING`): JupyterLab's widget messages arrive on a subshell
  thread beside the cells; a frame the fill is drawing gives way to a thread that waits for it
  (:func:`~posenc.ui.engine.lock.interruptible`).
* :mod:`~posenc.ui.engine.static`: frames for a page with no kernel (the static edition), the
  one switch the builder sets; its docstring is the interface.

A figure family (``posenc/figures/<family>.py``) declares its explorer's spec and writes its
view; nothing here imports a figure family.
"""
