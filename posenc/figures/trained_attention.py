"""Where trained models look: the attention maps of the 谁咬谁 models on one sentence, side
by side for models with and without position information.
"""
from __future__ import annotations

import numpy as np

from ..task.evaluation import attention_maps, sentence_tokens
from ..validate import bilingual, check_int
from .style import GLOSS, new_axes, cjk_font, figure_style, label

#: Glosses of the task's filler tokens, for machines without a CJK font.
_TASK_GLOSS = {**GLOSS, "嗯": "um", "啊": "ah"}


def _token_name(token: str) -> str:
    return token if cjk_font() else _TASK_GLOSS.get(token, "?")


def _check_models(models) -> dict:
    if not isinstance(models, dict) or not models:
        raise ValueError(bilingual("models must be a non-empty dict {name: OrderModel or TrainResult}",
                                   "models 必须是非空 dict：{名字: 模型}"))
    return models


def plot_trained_attention(models, sentences=("嗯猫咬狗啊。", "嗯狗咬猫啊。"), layer: int = 0,
                           head: int | None = None, ax=None):
    """Attention maps of trained models: one row per sentence, one column per model.

    ``models`` maps a name to an OrderModel or TrainResult; ``sentences`` are strings of task
    tokens (default: a sentence and its mirror). Each panel shows layer ``layer``'s weights
    (query position m down, key position n across), averaged over the heads, or head ``head``
    (0-based) alone. A model with no position information gives a mirror sentence the same
    map with the rows and columns of the two animals swapped.
    """
    models = _check_models(models)
    if isinstance(sentences, str):
        sentences = (sentences,)
    sentences = tuple(sentences)
    if not sentences:
        raise ValueError(bilingual("sentences must not be empty", "sentences 不能为空"))
    for s in sentences:
        sentence_tokens(s)
    maps = {}
    for name, model in models.items():
        m = getattr(model, "model", model)
        layer = check_int("layer", layer, 0, m.num_layers - 1)
        if head is not None:
            head = check_int("head", head, 0, m.num_heads - 1)
        for s in sentences:
            w = attention_maps(m, s)[layer]
            maps[name, s] = w.mean(axis=0) if head is None else w[head]
    rows, cols = len(sentences), len(models)
    with figure_style():
        width = max(len(s) for s in sentences)
        size = 0.28 * width + 0.9
        fig, axes = new_axes(ax, (size * cols + 0.8, size * rows + 0.5), rows, cols)
        axes = np.asarray(axes).reshape(rows, cols)
        image = None
        for r, s in enumerate(sentences):
            names = [_token_name(t) for t in s]
            for c, name in enumerate(models):
                a = axes[r, c]
                image = a.imshow(maps[name, s], cmap="Blues", vmin=0, vmax=1)
                a.set_xticks(range(len(s)), labels=names, fontsize=9)
                a.set_yticks(range(len(s)), labels=names, fontsize=9)
                a.tick_params(length=0, pad=2)
                if r == 0:
                    a.set_title(str(name), fontsize=9)
                if c == 0:
                    a.set_ylabel(label("query（位置 m）", "query (position m)"), fontsize=9)
                if r == rows - 1:
                    a.set_xlabel(label("key（位置 n）", "key (position n)"), fontsize=9)
        which = label("各头平均", "mean over heads") if head is None else label(f"第 {head} 个头", f"head {head}")
        fig.suptitle(label(f"第 {layer} 层的注意力权重（{which}）", f"attention weights of layer {layer} ({which})"),
                     fontsize=9.5)
        fig.colorbar(image, ax=list(axes.ravel()), shrink=0.8, pad=0.02)
    return fig
