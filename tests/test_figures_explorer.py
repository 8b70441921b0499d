"""posenc/ui/engine/:  the explorer contract, for every explorer in ``EXPLORERS``, and
the glyph cache behind it.

Contract: ``.controls`` (name -> widget), ``.widget``, ``.figure``; every control moves the
figure; setting a control's ``.value`` in code redraws before the assignment returns; the
widget image (blitted, cached layers and glyphs) equals an independent full render of
``.figure``. The glyph cache replays text only when ``GlyphCache.works()`` proved it gives
the very pixels of a normal draw on this matplotlib; otherwise it stays out of the way.
"""
import inspect
import warnings

import numpy as np
import pytest

import posenc_lib as pl
from posenc.ui.engine.canvas import GlyphCache
from support import full_render, pixels, rgb, share_differing


def sweep(ex, name):
    """Values across a control's whole range, from one end to the other (4 of a long slider)."""
    return ex.control_values(name, 4)


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------
def test_every_public_explorer_is_registered():
    public = {name for name in pl.__all__
              if inspect.isclass(getattr(pl, name)) and issubclass(getattr(pl, name), pl.Explorer)
              and getattr(pl, name) is not pl.Explorer}
    assert public, "no Explorer subclass found in posenc_lib.__all__"
    assert {cls.__name__ for cls in pl.EXPLORERS.values()} == public
    for key, cls in pl.EXPLORERS.items():
        assert cls.name == key, f"EXPLORERS[{key!r}] is {cls.__name__}, whose name is {cls.name!r}"


# ---------------------------------------------------------------------------
# The contract, for every explorer
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_every_control_moves_the_figure(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Glyph missing", no layout warnings
        ex = pl.EXPLORERS[name]()
        assert set(ex.controls) and ex.figure is not None and ex.widget is not None
        for cname, control in ex.controls.items():
            values = sweep(ex, cname)
            assert len(values) >= 2, cname
            control.value = values[0]
            before_px, before_png = pixels(ex.figure), ex.shown_png()
            for v in values[1:]:
                control.value = v
                after_px, after_png = pixels(ex.figure), ex.shown_png()
                assert not np.array_equal(before_px, after_px), f"{name}.{cname} = {v!r} left the figure unchanged"
                assert after_png != before_png, f"{name}.{cname} = {v!r} left the widget image unchanged"
                before_px, before_png = after_px, after_png
        assert ex.redraws == 1, "updates should blit, not redraw the whole figure"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_explorer_image_is_what_the_figure_shows(name):
    """After every move (first and repeated, so cached layers and cached glyphs are used)
    the blitted widget image equals an independent full render: an unpickled copy of the
    figure, drawn on a fresh canvas with no caches. No artist is left stale."""
    ex = pl.EXPLORERS[name]()
    for cname, control in ex.controls.items():
        for v in sweep(ex, cname)[-3:]:
            control.value = v
            differ = share_differing(rgb(ex.shown_png()), full_render(ex.figure))
            assert differ < 0.002, f"{name}.{cname}={v!r}: {differ:.2%} of pixels differ from a full render"


@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_setting_a_value_redraws_before_it_returns(name):
    """No event loop runs between the assignment and the checks: the widget already holds
    new bytes, and they are the canvas as it is now (not a frame behind)."""
    ex = pl.EXPLORERS[name]()
    for cname, control in ex.controls.items():
        values = [v for v in sweep(ex, cname) if v != control.value]
        before = ex.shown_png()
        control.value = values[-1]
        assert ex.shown_png() != before, f"{name}.{cname}: the widget image did not change"
        assert ex.shown_png() == ex.png(), f"{name}.{cname}: the widget image is not the current canvas"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(pl.EXPLORERS))
def test_explorer_without_cjk_font_draws_no_tofu(name, no_cjk_verdicts):
    assert no_cjk_verdicts[f"explorer {name}"] == "ok"


# ---------------------------------------------------------------------------
# The glyph cache
# ---------------------------------------------------------------------------
@pytest.fixture
def fresh_glyph_check():
    """Forget ``GlyphCache.works()``'s verdict before and after the test."""
    GlyphCache.works.cache_clear()
    yield
    GlyphCache.works.cache_clear()


def assert_moves_draw_what_a_full_render_shows(ex, name):
    """Move every control to its last two values in turn (texts change, blits and cached
    layers are used); then the widget image must equal an independent full render."""
    for cname, control in ex.controls.items():
        for v in sweep(ex, cname)[-2:]:
            control.value = v
    differ = share_differing(rgb(ex.shown_png()), full_render(ex.figure))
    assert differ < 0.002, f"{name} {ex.values}: {differ:.2%} of pixels differ from a full render"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["permutation", "hand_calc"])
def test_glyph_cache_works_and_replays_the_pixels_of_a_full_render(name, fresh_glyph_check):
    assert GlyphCache.works() is True
    ex = pl.EXPLORERS[name]()
    cache = ex.canvas.agg.get_renderer()._posenc_glyph_cache
    assert cache is not None and cache.entries, "the explorer's renderer should record its texts"
    for cname, control in ex.controls.items():
        a, b = sweep(ex, cname)[-2:]
        control.value = a
        control.value = b                       # both states drawn once: their strings recorded
        recorded = len(cache.entries)
        for v in (a, b):                        # drawn again: replayed from the cache
            control.value = v
            differ = share_differing(rgb(ex.shown_png()), full_render(ex.figure))
            assert differ < 0.002, f"{name}.{cname}={v!r}: {differ:.2%} of pixels differ from a full render"
        assert len(cache.entries) == recorded, f"{name}.{cname}: strings drawn before were recorded again"


def _draw_text_as_paths(renderer, gc, x, y, s, prop, angle, ismath=False, mtext=None):
    """A text path that never calls ``_renderer.draw_text_image``: a matplotlib whose Agg
    renderer draws text some other way."""
    return renderer._draw_text_as_path(gc, x, y, s, prop, angle, ismath, mtext)


def _without_glyph_helper(monkeypatch):
    """A matplotlib whose RendererAgg has no ``_draw_text_glyphs_and_boxes`` (text still drawn
    through ``draw_text_image``): the helper is lent to each draw_text call only."""
    import types

    from matplotlib.backends.backend_agg import RendererAgg

    helper, draw_text = RendererAgg._draw_text_glyphs_and_boxes, RendererAgg.draw_text
    monkeypatch.delattr(RendererAgg, "_draw_text_glyphs_and_boxes")

    def patched(self, *args, **kwargs):
        self._draw_text_glyphs_and_boxes = types.MethodType(helper, self)
        try:
            return draw_text(self, *args, **kwargs)
        finally:
            del self._draw_text_glyphs_and_boxes

    monkeypatch.setattr(RendererAgg, "draw_text", patched)


@pytest.mark.parametrize("change,names", [
    # text drawn another way: every explorer must still show what a full render shows
    ("text drawn without draw_text_image", sorted(pl.EXPLORERS)),
    # text drawn as before, one internal gone: the cache must not be trusted all the same
    ("no _draw_text_glyphs_and_boxes", ["permutation", "hand_calc", "clock"]),
], ids=["draw_text_image unused", "glyph helper removed"])
@pytest.mark.slow
def test_glyph_cache_stays_out_when_matplotlib_internals_change(change, names, monkeypatch, fresh_glyph_check):
    from matplotlib.backends.backend_agg import RendererAgg

    if change == "text drawn without draw_text_image":
        monkeypatch.setattr(RendererAgg, "draw_text", _draw_text_as_paths)
    else:
        _without_glyph_helper(monkeypatch)
    assert GlyphCache.works() is False
    for name in names:
        ex = pl.EXPLORERS[name]()
        renderer = ex.canvas.agg.get_renderer()
        assert getattr(renderer, "_posenc_glyph_cache", None) is None, f"{name}: a cache was installed"
        assert "draw_text" not in vars(renderer), f"{name}: draw_text was replaced"
        assert GlyphCache.install(renderer) is False
        assert_moves_draw_what_a_full_render_shows(ex, name)
        assert getattr(renderer, "_posenc_glyph_cache", None) is None
