"""Each control declares the parts of its explorer's view it changes (``Control.changes`` in
posenc/ui/engine/spec.py, naming groups of the view's ``parts()``); a move of it redraws those
parts only and takes every other animated artist from a cached layer.

A declaration is held to the pixels: after every move of every control (the layer built at the
first move, reused from the second on) the live canvas must equal, byte for byte, a full
redraw of the same view at the same values on a second figure. A control that changes an
artist it did not declare leaves that artist stale in the layer and fails; so does one that
redraws an artist under another it did not declare (a full draw draws the view's artists in
``artists()`` order, so a part drawn over a changed one is part of what a move redraws). From
a control's second move on, the move must also have drawn exactly the artists of its declared
parts, no more. The last test takes one part out of a declaration and sees the check fail.
"""
import dataclasses

import numpy as np
import pytest

import posenc_lib as pl
from posenc.ui.engine.explorer import Drawing, Explorer
from support import default_explorer

NAMES = sorted(pl.EXPLORERS)


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


def _other_values(ex, cname, n=4) -> list:
    """Up to ``n`` values of ``cname`` over its range, none equal to the one before it (a
    control with two values goes there and back)."""
    values, out = ex.control_values(cname, n), []
    for v in values:
        if v != (out[-1] if out else ex.controls[cname].value):
            out.append(v)
    if len(out) == 1:
        out.append(ex.controls[cname].value)
    return out


def _buffer(canvas) -> np.ndarray:
    return np.asarray(canvas.agg.buffer_rgba()).copy()


def _ids(artists) -> set:
    return {id(a) for a in artists}


def moves_vs_full_redraws(ex, cnames=None) -> list[str]:
    """Move each control (all, or ``cnames``) over its range, one value at a time. After each
    move: the live canvas must equal a redraw of every animated artist of a second figure at
    the same values (over its background, drawn anew at each control's first move: a full
    draw of a log axis costs a second), and from the second move of a control on (the layer
    built) the move must have drawn exactly the artists of the parts it declares. Returns one
    line per move that broke either."""
    ref = Drawing(ex.spec, ex.params, tuple(ex.declared.values()), ex.values, layout_of=ex.figure)
    drawn: list = []

    def spy(artist):
        real = artist.draw

        def draw(renderer):
            drawn.append(artist)
            return real(renderer)
        artist.draw = draw

    for a in ex.canvas.animated:
        spy(a)
    # a control another one's maximum follows may clamp it: then everything is redrawn
    followed = {d.max_follows[0] for d in ex.declared.values() if d.max_follows}
    problems = []
    for cname in cnames or ex.controls:
        for k, v in enumerate(_other_values(ex, cname)):
            drawn.clear()
            ex.controls[cname].value = v
            expected = ex.spec.changed_artists(ex.view, cname)
            if k > 0 and cname not in followed and _ids(drawn) != _ids(expected):
                problems.append(f"{ex.name}.{cname} = {v!r}: drew {len(drawn)} artists, its parts hold {len(expected)}")
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
def test_a_move_redraws_its_parts_only_and_draws_the_pixels_of_a_full_redraw(name):
    assert moves_vs_full_redraws(pl.EXPLORERS[name]()) == []


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

    assert any("pixels differ" in p for p in moves_vs_full_redraws(Undeclared(), ["base"]))
    assert moves_vs_full_redraws(pl.ClockExplorer(), ["base"]) == []

