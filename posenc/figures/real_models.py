"""Real models' RoPE as a picture: per pair, the wavelength against the model's training
context (which pairs complete a turn in it) and at the context length chosen, and what the
model's ``rope_scaling`` does to each pair.
"""
from __future__ import annotations

import math

import numpy as np

from ..encoding import frequencies
from ..real_models import (
    MODEL_CONFIGS,
    ROPE_TYPE_NAMES,
    model_frequencies,
    rope_type,
    rotary_dims,
    config_train_len,
)
from ..validate import check_one_of
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, choice_slider, dropdown, step
from .style import new_axes, figure_style, label

#: The context lengths the explorer offers (the dynamic type reads it; the lines show it).
SEQ_LENS = tuple(2 ** k for k in range(10, 21))


def _model_label(name: str) -> str:
    kind = rope_type(MODEL_CONFIGS[name])
    return label(f"{name}（{ROPE_TYPE_NAMES[kind]}）", f"{name} ({kind})")


class _RealModelView:
    """Two panels: wavelength per pair (before / after scaling) with the two lengths, slowdown per pair."""

    Y_LIM = (2.0, 1e8)
    X_LIM = (-0.02, 1.0)   # x = 2i/d: the exponent of w_i = θ^(-2i/d), the same axis for every head size

    def __init__(self, ax_wave, ax_slow):
        self.ax_wave, self.ax_slow = ax_wave, ax_slow
        ax_wave.set_yscale("log")
        ax_wave.set_ylim(*self.Y_LIM)
        ax_wave.set_xlim(*self.X_LIM)
        (self.turned,) = ax_wave.plot([], [], "o", color="C0", ms=3, zorder=3, label=label("训练长度内转满一圈", "full turn in training"))
        (self.unturned,) = ax_wave.plot([], [], "o", color="C3", ms=3, zorder=3, label=label("没转满一圈", "less than a turn"))
        (self.scaled,) = ax_wave.plot([], [], "-", color="C1", lw=1.2, label=label("缩放后的波长", "wavelength after scaling"))
        (self.train_line,) = ax_wave.plot(self.X_LIM, [1, 1], color="C0", lw=0.9, ls="--")
        (self.len_line,) = ax_wave.plot(self.X_LIM, [1, 1], color="0.3", lw=0.9, ls=":")
        self.train_text = ax_wave.text(0.01, 0.0, " ", transform=ax_wave.get_yaxis_transform(), fontsize=9,
                                       color="C0", va="bottom", clip_on=True,
                                       bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.75, "pad": 1})
        # both lengths are labelled at the left, where the wavelengths are short (the dots rise to
        # the right), on the sides of their lines facing away from each other
        self.len_text = ax_wave.text(0.01, 0.0, " ", transform=ax_wave.get_yaxis_transform(), fontsize=9,
                                     color="0.3", va="top", ha="left", clip_on=True,
                                     bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.75, "pad": 1})
        ax_wave.legend(fontsize=9, loc="lower right", frameon=False)   # the corner the data leaves empty
        ax_wave.set_xlabel(label("2i/d（第 i 对，d = 旋转的维数）", "2i/d (pair i, d = rotated dims)"), fontsize=9)
        ax_wave.set_ylabel(label("波长 2π/w_i（位置数）", "wavelength 2π/w_i (positions)"), fontsize=9)
        self.title_wave = ax_wave.set_title(" ", fontsize=9)
        ax_slow.set_yscale("log", base=2)
        ax_slow.set_ylim(0.8, 64)
        ax_slow.set_xlim(*self.X_LIM)
        ax_slow.set_yticks([1, 2, 4, 8, 16, 32], labels=["1", "2", "4", "8", "16", "32"])
        (self.slow,) = ax_slow.plot([], [], "o-", color="C1", ms=2.5, lw=1.0)
        ax_slow.set_xlabel(label("2i/d", "2i/d"), fontsize=9)
        ax_slow.set_ylabel(label("变慢的倍数 w_i / w'_i", "slowdown w_i / w'_i"), fontsize=9)
        self.title_slow = ax_slow.set_title(" ", fontsize=9)

    def artists(self):
        return [self.turned, self.unturned, self.scaled, self.train_line, self.len_line, self.train_text,
                self.len_text, self.title_wave, self.slow, self.title_slow]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``): the model's
        wavelengths, its training length's line (drawn over the scaled wavelengths), the
        scaled wavelengths and slowdown (dynamic scaling follows the context length), the
        context length's line and both labels."""
        return {"wavelengths": [self.turned, self.unturned, self.title_wave], "train_line": [self.train_line],
                "scaled": [self.scaled, self.slow, self.title_slow],
                "lengths": [self.len_line, self.train_text, self.len_text]}

    def update(self, model: str, seq_len: int) -> dict:
        cfg = MODEL_CONFIGS[model]
        dims = rotary_dims(cfg)
        base = cfg["rope_theta"]
        w = frequencies(dims, base)
        scaled, att = model_frequencies(model, seq_len)
        i = 2 * np.arange(len(w)) / dims
        wave, wave_scaled = 2 * math.pi / w, 2 * math.pi / scaled
        train = config_train_len(cfg)
        full = wave <= train
        self.turned.set_data(i[full], wave[full])
        self.unturned.set_data(i[~full], wave[~full])
        # without rope_scaling the scaled wavelengths are the dots themselves: no line over them
        same = np.allclose(wave_scaled, wave, rtol=1e-12, atol=0)
        self.scaled.set_data(*(([], []) if same else (i, wave_scaled)))
        self.train_line.set_ydata([train, train])
        self.len_line.set_ydata([seq_len, seq_len])
        self.train_text.set_position((0.01, train))
        self.train_text.set_text(label(f"训练长度 {train}", f"training {train}"))
        above = seq_len > train
        self.train_text.set_verticalalignment("top" if above else "bottom")
        self.len_text.set_verticalalignment("bottom" if above else "top")
        self.len_text.set_position((0.01, seq_len))
        self.len_text.set_text(label(f"上下文 {seq_len}", f"context {seq_len}"))
        new = int(np.sum(wave_scaled > seq_len))
        self.title_wave.set_text(label(
            f"{model}：{dims} 维旋转，θ = {base:g}；{int(full.sum())}/{len(w)} 对在 {train} 内转满一圈",
            f"{model}: {dims} rotated dims, θ = {base:g}; {int(full.sum())}/{len(w)} pairs turn in {train}"))
        slowdown = w / scaled
        self.slow.set_data(i, slowdown)
        kind = rope_type(cfg)
        self.title_slow.set_text(label(
            f"{ROPE_TYPE_NAMES[kind]}：变慢 1 … {slowdown.max():.3g} 倍，注意力因子 {att:.3f}",
            f"{kind}: slowdown 1 … {slowdown.max():.3g}, attention factor {att:.3f}"))
        return {"full_turn": full, "slowdown": slowdown, "attention_factor": att,
                "wavelength": wave, "scaled_wavelength": wave_scaled, "unturned_at_seq_len": new}


def plot_real_model(model: str = "Llama-3.1-8B", seq_len: int = 131072, ax=None):
    """One model's RoPE per pair. Left: each rotated pair's wavelength (blue: it completes a turn
    inside the training context; red: it does not), the dashed line the training context, the
    dotted one ``seq_len``, orange the wavelength after the model's ``rope_scaling`` (none for a
    model without it: it would lie on the dots). Right: the
    slowdown ``w_i / w'_i`` the scaling applies to each pair.
    """
    model = check_one_of("model", model, tuple(MODEL_CONFIGS))
    seq_len = check_one_of("seq_len", seq_len, SEQ_LENS)
    with figure_style():
        fig, axes = new_axes(ax, (10.7, 3.4), 1, 2, width_ratios=[1.3, 1])
        _RealModelView(*axes).update(model, seq_len)
    return fig


class RealModelsExplorer(Explorer):
    """Pick a real model and a context length: which of its pairs complete a turn inside its
    training context, where the chosen length sits among the wavelengths, and what its
    ``rope_scaling`` does to each pair.
    """

    #: The context length is the slider a reader drags: its figures are drawn ahead (frames).
    spec = ExplorerSpec(
        name="real_models", main="seq_len", figsize=(10.7, 3.4),
        controls=(
            dropdown("model", "Llama-3.1-8B", tuple(MODEL_CONFIGS), label="模型",
                     option_labels=lambda p: tuple(_model_label(m) for m in MODEL_CONFIGS),
                     changes=("wavelengths", "train_line", "scaled", "lengths")),
            choice_slider("seq_len", 131072, SEQ_LENS, label="上下文长度", changes=("train_line", "scaled", "lengths")),
        ),
        view=lambda fig, p: _RealModelView(*fig.subplots(1, 2, width_ratios=[1.3, 1])),
        update=lambda view, v, p: {"result": view.update(v["model"], v["seq_len"])},
        grid=(Axis("model"), Axis("seq_len", count=6)),   # every model; 6 of the 11 lengths on a page
        steps=(
            step(("model", "Llama-2-7B"), ("seq_len", 4096), ("seq_len", 1048576), see="换模型、拖上下文长度"),
        ),
    )
