"""The exercises each notebook asks, read from its cells: every code cell that starts by setting
its answer to None (``answer_2 = None  # ...``) is an exercise cell, and each ``pl.check_*`` call
in it is one exercise, keyed as the check records it (:func:`posenc.exercises.verdict.exercise_id`).

Nothing is kept by hand: :data:`EXERCISES` is computed on first use (see
:mod:`posenc.course.notebooks` for where the notebooks are).
"""
from __future__ import annotations

import ast
import functools
import re

from ..course.notebooks import cell_source, notebook_cells
from ..validate import bilingual
from .verdict import CHECKS

#: An exercise cell starts by setting its answer to None.
EXERCISE_CELL = re.compile(r"answer\w* = None")


class _Unknown:
    """An argument whose value is not written in the cell (the answer, a computed hint)."""

    def __repr__(self):
        return "<unknown>"


def _literals(tree) -> dict:
    """Names a cell binds to a literal (``options_4 = [...]``)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError):
                pass
    return out


def _value(node, names: dict):
    if isinstance(node, ast.Name):
        return names.get(node.id, _Unknown())
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return _Unknown()


def exercise_ids(source: str) -> list[str]:
    """The progress keys (:func:`posenc.exercises.verdict.exercise_id`) of the ``pl.check_*``
    calls in one exercise cell's code, as the checks themselves record them."""
    checks = _checks()
    tree = ast.parse(source)
    names = _literals(tree)
    ids = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "pl"
                and node.func.attr.startswith("check_")):
            continue
        check = checks[node.func.attr]
        args = [_value(a, names) for a in node.args]
        kwargs = {k.arg: _value(k.value, names) for k in node.keywords if k.arg is not None}
        key = check.exercise_id(*args, **kwargs)
        if "<unknown>" in key:
            raise ValueError(bilingual(f"{node.func.attr}: the exercise's arguments must be written in its cell",
                                       f"{node.func.attr} 的题目参数必须直接写在单元格里: {key}"))
        ids.append(key)
    return ids


def _checks() -> dict:
    """Every public check by name: the exercise modules imported, their registry read."""
    import importlib
    import pkgutil

    from .. import exercises

    for module in pkgutil.iter_modules(exercises.__path__):
        importlib.import_module(f"{exercises.__name__}.{module.name}")
    return CHECKS


@functools.cache
def _exercises() -> dict:
    out = {}
    for stem, cells in notebook_cells().items():
        ids = [i for c in cells if c["cell_type"] == "code" and EXERCISE_CELL.match(cell_source(c))
               for i in exercise_ids(cell_source(c))]
        if ids:
            out[stem] = tuple(ids)
    return out


def __getattr__(name):
    if name == "EXERCISES":
        #: File stem -> the progress keys of its 练习 section's exercises, in order.
        return _exercises()
    raise AttributeError(name)
