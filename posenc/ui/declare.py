"""What a displayed object declares about itself, for the static edition's builder
(``tools/build_site.py``): beside its usual MIME bundle, each reader-facing object puts one JSON
object of its own MIME type. JupyterLab and nbconvert ignore these types; the builder reads them
and decides from them alone what the page can do — the kernel never asks whether it runs for a
static page (that switch, :mod:`posenc.ui.engine.static`, only says how many frames to render).

* :data:`EXERCISE` (a :class:`~posenc.exercises.verdict.Verdict`): its exercise key, whether it
  is answered, and its rule — the page grades answers with that rule; a drill's says so (its
  answer is a function, which only a kernel runs).
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

What the page shows of these objects is rendered by the same Python that renders them in the
kernel (``page_html`` beside each widget: :mod:`posenc.ui.quiz`, :mod:`posenc.ui.worksheet`,
:mod:`posenc.ui.progress`); the page's script (``tools/site/course.js``) only fills in what the
reader did: the numbers (:class:`Slot`), and messages into the templates given here
(:func:`verdict_looks`) and beside each widget. It writes no text of its own.
"""
from __future__ import annotations

import functools
import html
import json

from ..exercises.verdict import MIME as EXERCISE
from ..exercises.verdict import Verdict

EXPLORER = "application/vnd.posenc.explorer+json"
QUIZ = "application/vnd.posenc.quiz+json"
WORKSHEET = "application/vnd.posenc.worksheet+json"
PROGRESS = "application/vnd.posenc.progress+json"
STATIC = "application/vnd.posenc.static+json"

__all__ = ["EXERCISE", "EXPLORER", "QUIZ", "WORKSHEET", "PROGRESS", "STATIC", "declared_box", "Slot",
           "verdict_looks", "data_attr", "fill"]

#: Where a template takes the text it is filled with (the page's script replaces ``{name}`` the same way).
MESSAGE = "{message}"


class Slot:
    """A number the page's script fills in. Formatted into a template (``"{right} / {total}"
    .format(right=Slot("right"), total=5)``) it is an empty span named by ``data-n``; the script
    writes the reader's number into every span of that name. The kernel formats the same
    template with the number itself."""

    CLASS = "posenc-n"

    def __init__(self, name: str):
        self.name = name

    def __format__(self, spec: str) -> str:
        return f'<span class="{self.CLASS}" data-n="{html.escape(self.name)}">–</span>'


def fill(template: str, **values) -> str:
    """``template`` with each ``{name}`` replaced by its value, as the page's script fills it (no
    format specs, no other braces: what both sides can do the same way)."""
    import re

    return re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), template)


def verdict_looks() -> dict:
    """How a verdict looks, as templates of the one renderer (:meth:`Verdict._repr_html_`) with
    :data:`MESSAGE` where the message goes: ``right``, ``wrong`` (any verdict that is not right)
    and ``pending``. The page shows its verdicts through these, never through markup of its own."""
    return {"right": Verdict(True, MESSAGE)._repr_html_(), "wrong": Verdict(False, MESSAGE)._repr_html_(),
            "pending": Verdict(False, MESSAGE, pending=True)._repr_html_()}


def data_attr(name: str, data) -> str:
    """``data-<name>='<data as JSON>'``, what the page's script reads: the JSON in single quotes,
    so its double quotes stay as they are (only ``&``, ``<``, ``>`` and ``'`` are escaped)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"data-{name}='{html.escape(text, quote=False).replace(chr(39), '&#x27;')}'"


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
