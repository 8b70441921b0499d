"""The permutation demo as a picture: attention weights and per-token outputs for a word
order, compared with another order of the same words.
"""
from __future__ import annotations

import numpy as np

from ..attention import AttentionDemo, attention_demo
from ..ui.engine.explorer import Explorer
from ..ui.engine.spec import Axis, ExplorerSpec, checkbox, dropdown, step
from ..validate import bilingual
from .style import new_axes, figure_style, label, token_label

#: Sentences the permutation explorer offers; each group shares its tokens.
PERMUTATION_SENTENCES = ("猫咬狗", "狗咬猫", "咬猫狗", "我爱你", "你爱我", "我打你", "你打我")


def _reference_sentence(tokens) -> str:
    """The first of PERMUTATION_SENTENCES with the same characters as ``tokens`` (else the
    tokens themselves): what a reordered sentence is compared with.
    """
    sentence = "".join(tokens)
    return next((s for s in PERMUTATION_SENTENCES if sorted(s) == sorted(sentence)), sentence)


class _PermutationView:
    """Attention weights (left) and per-token outputs + pooled vector (right)."""

    def __init__(self, ax_w, ax_o, d_model):
        self.ax_w, self.ax_o = ax_w, ax_o
        self.img_w = ax_w.imshow(np.zeros((3, 3)), cmap="Blues", vmin=0, vmax=1,
                                 extent=(0, 3, 3, 0))
        self.cell_text = [[ax_w.text(j + 0.5, r + 0.5, "", ha="center", va="center", fontsize=9)
                           for j in range(3)] for r in range(3)]
        self.img_o = ax_o.imshow(np.zeros((4, d_model)), cmap="RdBu_r", vmin=-1, vmax=1,
                                 extent=(0, d_model, 4, 0), aspect="auto")
        for ax in (ax_w, ax_o):
            ax.set_xticks([])
            ax.set_yticks([])
        ax_o.axhline(3, color="k", lw=1.5)
        ax_w.set_xlabel(label("被关注的词 (key)", "key token"))
        ax_o.set_xlabel(label("输出向量的维度", "output dimension"))
        self.w_rows = [ax_w.text(-0.1, r + 0.5, "", ha="right", va="center", fontsize=10) for r in range(3)]
        self.w_cols = [ax_w.text(j + 0.5, -0.1, "", ha="center", va="bottom", fontsize=10) for j in range(3)]
        self.o_rows = [ax_o.text(-0.1, r + 0.5, "", ha="right", va="center", fontsize=10) for r in range(4)]
        self.title_w = ax_w.set_title(" ", pad=26)
        self.title_o = ax_o.set_title(" ")

    def artists(self):
        return [self.img_w, self.img_o, *sum(self.cell_text, []), *self.w_rows, *self.w_cols,
                *self.o_rows, self.title_w, self.title_o]

    def parts(self):
        """The animated artists by what changes them (the controls' ``changes``)."""
        return {"weights": [self.img_w, *sum(self.cell_text, [])], "outputs": [self.img_o],
                "tokens": [*self.w_rows, *self.w_cols, *self.o_rows], "titles": [self.title_w, self.title_o]}

    def update(self, demo: AttentionDemo, reference: AttentionDemo):
        self.img_w.set_data(demo.weights)
        for r in range(3):
            for j in range(3):
                v = demo.weights[r, j]
                self.cell_text[r][j].set_text(f"{v:.2f}")
                self.cell_text[r][j].set_color("white" if v > 0.6 else "black")
        names = [token_label(t) for t in demo.tokens]
        for t, n in zip(self.w_rows, names):
            t.set_text(n)
        for t, n in zip(self.w_cols, names):
            t.set_text(n)
        scale = max(1e-9, np.abs(demo.outputs).max())
        self.img_o.set_data(np.vstack([demo.outputs, demo.pooled]) / scale)
        for t, n in zip(self.o_rows, names + [label("句向量(均值)", "mean")]):
            t.set_text(n)
        same_tok = max(np.abs(demo.output_of(t) - reference.output_of(t)).max() for t in demo.tokens)
        same_pool = np.abs(demo.pooled - reference.pooled).max()
        pe = label("加 PE", "with PE") if demo.use_pe else label("不加 PE", "no PE")
        self.title_w.set_text(label(f"{''.join(demo.tokens)}（{pe}）的注意力权重",
                                    f"{' '.join(names)} ({pe}): attention weights"))
        self.title_o.set_text(label(
            f"与 {''.join(reference.tokens)} 比：同一词输出差 {same_tok:.1e}，句向量差 {same_pool:.1e}",
            f"vs {' '.join(token_label(t) for t in reference.tokens)}: same-token diff {same_tok:.1e}, "
            f"pooled diff {same_pool:.1e}"))


def plot_attention(tokens="猫咬狗", use_pe: bool = False, d_model: int = 4, reference=None, ax=None):
    """Attention weights and outputs for a 3-token sentence, compared with ``reference``.

    ``reference`` is the word order the difference numbers in the right-hand title refer to;
    by default the first of :data:`PERMUTATION_SENTENCES` made of the same characters (so
    狗咬猫 is compared with 猫咬狗), or the sentence itself when none is.
    """
    demo = attention_demo(tokens, d_model, use_pe)
    if len(demo.tokens) != 3:
        raise ValueError(bilingual("plot_attention draws 3-token sentences", "只画三个词的句子"))
    ref = attention_demo(reference or _reference_sentence(demo.tokens), d_model, use_pe)
    if sorted(ref.tokens) != sorted(demo.tokens):
        raise ValueError(bilingual("reference must hold the same tokens", "reference 必须由相同的词组成"))
    with figure_style():
        fig, (ax_w, ax_o) = new_axes(ax, (8, 2.8), 1, 2, width_ratios=[1, 1.6])
        view = _PermutationView(ax_w, ax_o, d_model)
        view.update(demo, ref)
    return fig




#: Width of the permutation explorer's vectors.
_D_MODEL = 4


class PermutationExplorer(Explorer):
    """Pick a word order, toggle PE: attention weights and outputs side by side.

    The right-hand title compares with the first listed sentence made of the same
    characters (猫咬狗, 我爱你 or 我打你): without PE the same token's output and the
    pooled sentence vector match to ~1e-16; with PE they do not.
    """

    D_MODEL = _D_MODEL
    spec = ExplorerSpec(
        name="permutation", main="sentence", figsize=(8.4, 2.9),
        controls=(
            dropdown("sentence", "狗咬猫", PERMUTATION_SENTENCES, label="语序",
                     changes=("weights", "outputs", "tokens", "titles")),
            checkbox("use_pe", False, label="加位置编码", changes=("weights", "outputs", "titles")),
        ),
        view=lambda fig, p: _PermutationView(*fig.subplots(1, 2, width_ratios=[1, 1.6]), _D_MODEL),
        update=lambda view, v, p: view.update(attention_demo(v["sentence"], _D_MODEL, v["use_pe"]),
                                              attention_demo(_reference_sentence(v["sentence"]),
                                                             _D_MODEL, v["use_pe"])),
        grid=(Axis("use_pe"),),
        steps=(
            step(("use_pe", False), ("sentence", "猫咬狗"), ("sentence", "狗咬猫"), ("sentence", "咬猫狗"),
                 see="数字只是搬家，两个差值停在 1e-16 左右"),
            step(("use_pe", True), ("sentence", "狗咬猫"), ("sentence", "我打你"), ("sentence", "你打我"),
                 see="差值跳到 0.1 量级"),
        ),
    )
