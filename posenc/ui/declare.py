"""What a displayed object declares about itself, for the static edition's builder
(``tools/build_site.py``): beside its usual MIME bundle, each reader-facing object puts one JSON
object of its own MIME type. JupyterLab and nbconvert ignore these types; the builder reads them
and decides from them alone what the page can do — the kernel never asks whether it runs for a
static page (that switch, :mod:`posenc.ui.engine.static`, only says how many frames to render).

* :data:`EXERCISE` (a :class:`~posenc.exercises.verdict.Verdict`): its exercise key, whether it
  is answered, and its rule — the page grades answers with that rule.
* :data:`EXPLORER`: the explorer's name, its main slider (which works on the page) and every
  other control (which does not), by widget model id, and how many of the main slider's values
  have frames.
* :data:`QUIZ`: the questions as the kernel's quiz shows them (citations written out).
* :data:`WORKSHEET`: a set of cases, each with its boxes' rules.
* :data:`PROGRESS`: the notebooks, their exercise keys and quiz questions (the page fills the
  table from the reader's browser).
* :data:`STATIC`: any other widget's own hint for a page without a kernel (the training panel
  says its results were trained at build time).

Widgets that declare nothing are shown with every input disabled under the one static hint.
"""
from __future__ import annotations

import functools

from ..exercises.verdict import MIME as EXERCISE

EXPLORER = "application/vnd.posenc.explorer+json"
QUIZ = "application/vnd.posenc.quiz+json"
WORKSHEET = "application/vnd.posenc.worksheet+json"
PROGRESS = "application/vnd.posenc.progress+json"
STATIC = "application/vnd.posenc.static+json"

__all__ = ["EXERCISE", "EXPLORER", "QUIZ", "WORKSHEET", "PROGRESS", "STATIC", "declared_box"]


def declared_box(children, mime: str, declare, **kwargs):
    """A ``VBox`` of ``children`` that declares itself when displayed: its MIME bundle is the
    box's view plus ``declare()`` under ``mime``. So a notebook may display the object
    (``ex``) or its widget (``ex.widget``): either way the builder reads the declaration."""
    box = _declared_box_class()(children, **kwargs)
    box.declaration = (mime, declare)
    return box


@functools.cache
def _declared_box_class():
    import ipywidgets as widgets

    class DeclaredBox(widgets.VBox):
        """A VBox whose displayed bundle carries a declaration (:func:`declared_box`)."""

        declaration = None

        def _repr_mimebundle_(self, **kwargs):
            bundle = super()._repr_mimebundle_(**kwargs)
            if isinstance(bundle, tuple):        # (data, metadata)
                bundle = bundle[0]
            bundle = dict(bundle or {})
            if self.declaration is not None and bundle:
                mime, declare = self.declaration
                bundle[mime] = declare()
            return bundle

    return DeclaredBox
