"""posenc/ui/engine/canvas.py: a figure redrawn by blitting gives the pixels of a full draw.

The reference is matplotlib drawing the same figure on a fresh canvas (an unpickled copy:
no background, no cached layer, no glyph cache), not the blitting code under test.
"""
import ast
import pathlib

import numpy as np

from posenc.ui.engine.canvas import BlitCanvas, copy_layout, data_url, freeze_layout, new_figure, png_bytes, png_of
from support import full_render, rgb, share_differing

ROOT = pathlib.Path(__file__).resolve().parents[1]


def two_lines():
    """A figure with a still line and two lines an update moves."""
    fig = new_figure((3.0, 2.0))
    canvas = BlitCanvas(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot([0, 1], [0, 0], color="0.5")
    (a,) = ax.plot([0, 1], [0.2, 0.2], color="C0")
    (b,) = ax.plot([0, 1], [0.8, 0.8], color="C1")
    ax.set_ylim(0, 1)
    freeze_layout(fig)
    canvas.set_animated([a, b])
    return fig, canvas, a, b


def test_a_blitted_update_equals_a_full_draw_of_the_same_figure():
    fig, canvas, a, b = two_lines()
    canvas.draw()
    for y in (0.1, 0.5, 0.9):
        a.set_ydata([y, y])
        canvas.draw(moving=[a], key="a")     # b comes from the cached layer
        assert share_differing(rgb(canvas.png()), full_render(fig)) == 0
    assert canvas.redraws == 1, "moving one line must blit, not redraw the figure"


def test_the_layer_is_rebuilt_when_another_control_moves_or_it_is_forgotten():
    fig, canvas, a, b = two_lines()
    canvas.draw(moving=[a], key="a")
    b.set_ydata([0.3, 0.3])                  # b changed, but "a" still keys the old layer...
    canvas.forget_layer()                    # ...so the owner forgets it
    canvas.draw(moving=[a], key="a")
    assert share_differing(rgb(canvas.png()), full_render(fig)) == 0
    b.set_ydata([0.6, 0.6])
    canvas.draw(moving=[b], key="b")         # another key: a new layer
    assert share_differing(rgb(canvas.png()), full_render(fig)) == 0


def test_forget_background_makes_the_next_draw_a_full_one():
    fig, canvas, a, b = two_lines()
    canvas.draw()
    fig.axes[0].set_title("changed")         # outside the animated artists
    canvas.forget_background()
    canvas.draw()
    assert canvas.redraws == 2
    assert share_differing(rgb(canvas.png()), full_render(fig)) == 0


def test_png_and_data_url_round_trip():
    fig, canvas, a, b = two_lines()
    canvas.draw()
    png = canvas.png()
    assert png.startswith(b"\x89PNG") and png_of(data_url(png)) == png
    w, h = canvas.size()
    assert rgb(png).shape == (h, w, 3)
    # the PNG holds the canvas buffer (RGB of the RGBA the Agg canvas drew)
    assert np.array_equal(rgb(png), np.asarray(canvas.agg.buffer_rgba())[..., :3].astype(int))


def test_png_bytes_hold_every_pixel_s_red_green_and_blue_for_any_width():
    """Random pixels (every byte value, alpha ignored) decoded by Pillow: each pixel's three
    colour bytes in place, also for widths whose rows are not a multiple of 2 or 4 bytes and for
    a buffer that is not contiguous (a crop of a larger one)."""
    gen = np.random.default_rng(7)   # a fixed random seed
    for h, w in ((1, 1), (3, 5), (17, 2), (40, 123), (64, 64)):
        rgba = gen.integers(0, 256, (h, w, 4), dtype=np.uint8)
        assert np.array_equal(rgb(png_bytes(rgba)), rgba[..., :3].astype(int)), (h, w)
    big = gen.integers(0, 256, (30, 50, 4), dtype=np.uint8)
    crop = big[3:20, 7:38]
    assert np.array_equal(rgb(png_bytes(crop)), crop[..., :3].astype(int))


def test_copy_layout_gives_a_second_figure_the_same_axes_positions_without_a_draw():
    fig, canvas, a, b = two_lines()
    other = new_figure((3.0, 2.0))
    other.add_subplot(1, 1, 1)
    copy_layout(other, fig)
    assert np.allclose(other.axes[0].get_position().bounds, fig.axes[0].get_position().bounds)


def test_no_figure_family_reaches_into_the_engine_s_private_names():
    """Not even on ``self``, where a family's explorer inherits them (other objects' private
    attributes are ruff's SLF001; underscore names imported across modules, test_facade's)."""
    for path in (ROOT / "posenc" / "figures").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in {"_live_png", "_twin", "_background", "_layer",
                                                                 "_layer_key", "_init_args"}:
                raise AssertionError(f"{path.name} uses the engine's {node.attr}")
