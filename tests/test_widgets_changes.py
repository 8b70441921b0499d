"""Each control declares the parts of its explorer's view it changes (``Control.changes`` in
posenc/ui/engine/spec.py, naming groups of the view's ``parts()``); a move of it redraws those
parts only and takes every other animated artist from a cached layer.

A declaration is held to the pixels: after every move of every control (the layer built at the
first move, reused from the second on) the live canvas must equal, byte for byte, a full
redraw of the same view at the same values on a second figure. A control that changes an
artist it did not declare leaves that artist stale in the layer and fails; so does one that
redraws an artist under another it did not declare (a full draw draws the view's artists in
``artists()`` order, so a part drawn over a changed one is part of what a move redraws). The
last test takes one part out of a declaration and sees the check fail.
"""
import dataclasses

import numpy as np
import pytest

import posenc_lib as pl
from posenc.ui.engine.explorer import Drawing, Explorer
from support import default_explorer

NAMES = sorted(pl.EXPLORERS)


def _ids(artists) -> set:
    return {id(a) for a in artists}


@pytest.mark.parametrize("name", NAMES)
def test_every_control_declares_parts_of_its_view(name):
    """Every control names what it changes; every name is a part of the view; the parts are
    the animated artists, all of them (an artist outside every part could change unseen)."""
    ex = default_explorer(name)
    parts = ex.view.parts()
    animated = _ids(ex.canvas.animated)
    for cname, c in ex.declared.items():
        assert c.changes, f"{name}.{cname} declares no changes"
        unknown = set(c.changes) - set(parts)
        assert not unknown, f"{name}.{cname}: {sorted(unknown)} are not parts of the view ({sorted(parts)})"
    for part, artists in parts.items():
        assert artists and _ids(artists) <= animated, f"{name}: part {part!r} holds an artist that is not animated"
    assert set().union(*(_ids(a) for a in parts.values())) == animated, f"{name}: an animated artist is in no part"


def _other_values(ex, cname, n=5) -> list:
    """Up to ``n`` values of ``cname`` over its range, none equal to the one before it."""
    values, out = ex.control_values(cname, n), []
    for v in values:
        if v != (out[-1] if out else ex.controls[cname].value):
            out.append(v)
    return out


def _buffer(canvas) -> np.ndarray:
    return np.asarray(canvas.agg.buffer_rgba()).copy()


def partial_vs_full(ex, cnames=None) -> list[str]:
    """Move each control (all, or ``cnames``) over its range, one value at a time; after each
    move compare the live canvas with a redraw of every animated artist of a second figure at
    the same values (over its background, drawn anew at each control's first move: a full
    draw of a log axis costs a second). Returns one line per move whose pixels differ."""
    ref = Drawing(ex.spec, ex.params, tuple(ex.declared.values()), ex.values, layout_of=ex.figure)
    problems = []
    for cname in cnames or ex.controls:
        for k, v in enumerate(_other_values(ex, cname)):
            ex.controls[cname].value = v
            ref.draw(ex.values, full=k == 0)
            live, full = _buffer(ex.canvas), _buffer(ref.canvas)
            differ = np.any(live != full, axis=-1)
            if differ.any():
                ys, xs = np.nonzero(differ)
                problems.append(f"{ex.name}.{cname} = {v!r}: {int(differ.sum())} pixels differ from a full "
                                f"redraw (x {xs.min()}..{xs.max()}, y {ys.min()}..{ys.max()})")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_move_draws_the_pixels_of_a_full_redraw(name):
    ex = pl.EXPLORERS[name]()
    assert partial_vs_full(ex) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_move_redraws_exactly_its_declared_parts(name):
    """The second move of a control in a row draws the artists of its declared parts and no
    other artist (the first builds the cached layer)."""
    ex = pl.EXPLORERS[name]()
    drawn: list = []

    def spy(artist):
        real = artist.draw

        def draw(renderer):
            drawn.append(artist)
            return real(renderer)
        artist.draw = draw

    for a in ex.canvas.animated:
        spy(a)
    for cname, c in ex.declared.items():
        start = ex.controls[cname].value
        first = _other_values(ex, cname, 3)[0]
        ex.controls[cname].value = first
        drawn.clear()
        ex.controls[cname].value = start
        expected = ex.spec.changed_artists(ex.view, cname)
        if not any(d.max_follows and d.max_follows[0] == cname for d in ex.declared.values()):
            # (a control another one's maximum follows may clamp it: then everything is redrawn)
            assert _ids(drawn) == _ids(expected), (
                f"{name}.{cname}: drew {len(drawn)} artists, declared {len(expected)}")


def test_an_undeclared_change_fails_the_pixel_check():
    """The clock's base changes each clock's w_i and wavelength captions; a declaration without
    them leaves them stale from the second move on, and the check sees it."""
    clock = pl.ClockExplorer.spec
    base = clock.control("base")
    assert "rate_captions" in base.changes
    short = dataclasses.replace(base, changes=tuple(p for p in base.changes if p != "rate_captions"))

    class Undeclared(Explorer):
        spec = dataclasses.replace(clock, name="clock_undeclared",
                                   controls=tuple(short if c.name == "base" else c for c in clock.controls))

    assert partial_vs_full(Undeclared(), ["base"]) != []
    assert partial_vs_full(pl.ClockExplorer(), ["base"]) == []

