"""Calls that take seconds, marked where they are defined.

A notebook runs such a call inside ``with pl.progress_bar(...)`` so that the reader sees the kernel
at work. The rule is derived from these marks (tests/test_notebooks.py reads every notebook's
code), not from a list kept by hand, and never from how long a cell took on some machine.
"""
from __future__ import annotations

#: ``takes_seconds`` values: every call works for seconds / only the first call with given
#: arguments does (later ones return the memoised result at once).
EVERY_CALL, FIRST_CALL = "every call", "first call"


def takes_seconds(func=None, *, memoised: bool = False):
    """Mark ``func`` as a call that takes seconds (it trains models or builds a table of trained
    ones): notebooks run it inside ``pl.progress_bar``. ``memoised=True``: a repeat call with the
    same arguments returns at once, so only a notebook's first call needs the bar. Returns
    ``func`` itself, with the attribute ``takes_seconds`` (its signature, caching and pickling
    are untouched)."""
    def mark(f):
        f.takes_seconds = FIRST_CALL if memoised else EVERY_CALL
        return f

    return mark if func is None else mark(func)
