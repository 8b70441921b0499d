"""Drill: one decoding step with a KV cache and grouped KV heads (``decode_step``): the new key is
rotated at its own position and appended, the cached keys stay as they are."""
from __future__ import annotations

import math

import numpy as np

from ...attention import scaled_dot_product_attention
from ...inference import decode_step
from ...rope import rope
from ..drill import TIME_LIMIT_S, Drill, Slip, first_difference, fmt_pair, run_drill
from ..verdict import Verdict


def _turn(y, pos, base):
    """Rows of ``y`` (heads, d) rotated at ``pos``."""
    return rope(y[:, None, :], [pos], base)[:, 0, :]


def _step(q, key, value, pos, key_cache, value_cache, base, *, q_at=None, k_at=None, old_keys=None, group="repeat",
          scale=None, rotate_v=False):
    """A decoding step with one thing done wrong (a slip): the query turned at ``q_at``, the new
    key at ``k_at`` (None: not turned), the cached keys replaced by ``old_keys``, KV heads shared
    by ``group`` ("repeat": h // g, "tile": h % n_kv), scores times ``scale`` · sqrt(d)."""
    heads, d = q.shape
    kv = key.shape[0]
    new_k = key if k_at is None else _turn(key, k_at, base)
    new_v = _turn(value, pos, base) if rotate_v else value
    keys = np.concatenate([key_cache if old_keys is None else old_keys, new_k[:, None, :]], axis=1)
    values = np.concatenate([value_cache, new_v[:, None, :]], axis=1)
    which = np.arange(heads) // (heads // kv) if group == "repeat" else np.arange(heads) % kv
    query = q if q_at is None else _turn(q, q_at, base)
    if scale is not None:
        query = query * scale * math.sqrt(d)
    out, _ = scaled_dot_product_attention(query[:, None, :], keys[which], values[which])
    return out[:, 0, :], keys, values


SLIPS = (
    Slip("cache_rotated_again",
         lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p, k_at=p, old_keys=rope(kc, np.full(kc.shape[1], p), b)),
         "缓存里的旧键又被转了一次：缓存存的就是在各自位置上转好的键，新的一步只转新来的键 κ（位置 pos），旧键原样不动。"),
    Slip("new_key_not_rotated", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p, k_at=None),
         "新的键 κ 没有旋转就存进了缓存：缓存里的键都是转好的，新键要先在它自己的位置 pos 上转好再追加。"),
    Slip("query_not_rotated", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=None, k_at=p),
         "查询 q 没有旋转：q 也要在当前位置 pos 上转，分数才只依赖偏移。"),
    Slip("positions_from_1", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p + 1, k_at=p + 1),
         "位置多算了 1：新词的位置就是 pos（缓存里已有 pos 个词，位置 0 … pos − 1）。q、κ 一起错开时分数不变，"
         "但缓存里存下的键转错了，以后的每一步都会错。"),
    Slip("heads_tiled", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p, k_at=p, group="tile"),
         "查询头和 KV 头的对应错了：查询头 h 用 KV 头 h // (num_heads // num_kv_heads)（相邻的几个查询头共用一个 "
         "KV 头，Hugging Face 的 repeat_kv），你的是 h % num_kv_heads。"),
    Slip("no_sqrt_d", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p, k_at=p, scale=1.0),
         "分数没有除以 √d：scores = q·κ / √d。"),
    Slip("divided_by_d", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p, k_at=p,
                                                            scale=1.0 / q.shape[1]),
         "分数除以了 d：要除以 √d。"),
    Slip("value_rotated", lambda q, key, value, p, kc, vc, b: _step(q, key, value, p, kc, vc, b, q_at=p, k_at=p, rotate_v=True),
         "v 也转了：RoPE 只转 q 和 κ，v 原样存进缓存。"),
)


def _where(case, got, expected) -> str:
    pos = case["pos"]
    for n, name in ((1, "key_cache"), (2, "value_cache")):
        if not np.allclose(got[n], expected[n], rtol=1e-6, atol=1e-9):
            g, t, j = first_difference(got[n], expected[n], case)
            mine, right = fmt_pair(got[n][g, t, j], expected[n][g, t, j])
            if t < pos:
                return (f"{name} 里 KV 头 {g} 的第 {t} 行（位置 {t} 的旧{'键' if n == 1 else '值'}）被改了："
                        f"第 {j} 维是 {mine}，应保持 {right}")
            what = "在位置 pos 上转好的 κ" if n == 1 else "原样的 v"
            return f"{name} 里 KV 头 {g} 新追加的第 {t} 行第 {j} 维是 {mine}，应为 {right}（{what}）"
    h, j = first_difference(got[0], expected[0], case)
    heads, kv = case["q"].shape[0], case["key"].shape[0]
    mine, right = fmt_pair(got[0][h, j], expected[0][h, j])
    return f"查询头 {h}（用 KV 头 {h // (heads // kv)}）的输出第 {j} 维是 {mine}，应为 {right}"


def _cases(rng) -> list[dict]:
    cases = []
    for heads, kv, d, pos, d_v in ((1, 1, 4, 3, 4), (4, 2, 6, 5, 3), (3, 1, 8, 9, 8), (2, 2, 4, 0, 4)):
        old = rng.normal(size=(kv, pos, d))
        cases.append(dict(q=rng.normal(size=(heads, d)), key=rng.normal(size=(kv, d)), value=rng.normal(size=(kv, d_v)),
                          pos=pos, key_cache=rope(old, np.arange(pos)), value_cache=rng.normal(size=(kv, pos, d_v)),
                          base=10000.0))
    return cases


KV_CACHE_STEP = Drill(
    name="decode_step",
    signature="decode_step(q, key, value, pos, key_cache, value_cache, base=10000.0)",
    reference=decode_step,
    reference_name="pl.decode_step",
    cases=_cases,
    slips=SLIPS,
    outputs=("out", "key_cache", "value_cache"),
    where=_where,
    hint="顺序：q、κ 在位置 pos 上转（交错配对，pl.rope）；κ、v 追加到缓存末尾；查询头 h 对 KV 头 "
         "h // (num_heads // num_kv_heads) 的整个缓存做 softmax(q·κ/√d)·v。",
)


def check_drill_kv_cache_step(fn, time_limit: float = TIME_LIMIT_S) -> Verdict:
    """Check the reader's ``decode_step(q, key, value, pos, key_cache, value_cache, base)`` (returning
    ``(out, key_cache, value_cache)``) against :func:`posenc.inference.decode_step`, naming the slips
    of :data:`SLIPS`."""
    return run_drill(KV_CACHE_STEP, fn, time_limit)
