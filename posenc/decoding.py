"""Positions when several new tokens are checked in one forward pass: speculative decoding's
draft tokens and a tree of candidate continuations (Medusa's "tree attention").

A tree is given as Medusa gives it (``medusa_choices`` in FasterDecoding/Medusa
``medusa/model/medusa_choices.py``): a list of paths, each a tuple of child indices from the
root, e.g. ``[(0,), (1,), (0, 0), (0, 1), (1, 0)]``; every proper prefix of a path is a path
too. The root (path ``()``) is the last token the model produced, not yet in the KV cache.
``medusa/model/utils.py`` ``generate_medusa_buffers`` orders the nodes by (depth, path), gives
node i the position id ``depth`` (added to the cache length in ``tree_decoding``) and lets
each node attend to itself and its ancestors (``medusa_attn_mask``); these functions follow it.
A draft of k tokens from a small model is the tree with one branch.
"""
from __future__ import annotations

import numpy as np

from .validate import bilingual, check_int


def _paths(paths) -> list[tuple[int, ...]]:
    try:
        nodes = [tuple(p) for p in paths]
    except TypeError:
        raise TypeError(bilingual("paths must be a list of tuples of child indices, e.g. [(0,), (0, 1)]",
                                  "paths 必须是由子节点序号组成的元组列表，例如 [(0,), (0, 1)]")) from None
    if not nodes:
        raise ValueError(bilingual("paths must not be empty", "paths 不能为空"))
    for p in nodes:
        if not p or not all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) and c >= 0 for c in p):
            raise ValueError(bilingual(f"every path is a non-empty tuple of indices >= 0, got {p!r}",
                                       f"每条路径必须是非空的、由不小于 0 的整数组成的元组，收到的是 {p!r}"))
    if len(set(nodes)) != len(nodes):
        raise ValueError(bilingual("paths must not repeat", "paths 不能重复"))
    known = set(nodes)
    for p in nodes:
        if len(p) > 1 and p[:-1] not in known:
            raise ValueError(bilingual(f"the parent {p[:-1]!r} of {p!r} is missing",
                                       f"路径 {p!r} 的父节点 {p[:-1]!r} 不在 paths 里"))
    return nodes


def tree_nodes(paths) -> list[tuple[int, ...]]:
    """The tree's nodes in Medusa's order: the root ``()`` first, then the paths sorted by
    (depth, path), as ``generate_medusa_buffers`` sorts ``medusa_choices``.
    """
    return [()] + sorted(_paths(paths), key=lambda p: (len(p), p))


def tree_position_ids(paths, start: int = 0) -> np.ndarray:
    """Each node's position id, in :func:`tree_nodes` order: ``start + depth`` (the root at
    ``start``, its children at ``start + 1`` …), not its index in the flattened list.
    ``start`` is the number of tokens already in the KV cache (Medusa:
    ``medusa_position_ids + input_ids.shape[1]``).
    """
    start = check_int("start", start, 0)
    return np.array([start + len(p) for p in tree_nodes(paths)], dtype=np.int64)


def tree_attention_mask(paths) -> np.ndarray:
    """Which tree nodes each node may see (True = visible), shape (nodes, nodes) in
    :func:`tree_nodes` order: node a sees node b when b is a's ancestor or a itself (the
    root is everyone's ancestor). Every node also sees the whole KV cache, which this mask
    leaves out.
    """
    nodes = tree_nodes(paths)
    return np.array([[a[:len(b)] == b for b in nodes] for a in nodes])


def tree_branches(paths) -> list[list[int]]:
    """Every root-to-leaf branch as node indices (into :func:`tree_nodes`), leaves in node
    order: decoding a branch as an ordinary sequence must give its nodes the outputs the tree
    gives them.
    """
    nodes = tree_nodes(paths)
    index = {p: i for i, p in enumerate(nodes)}
    leaves = [p for p in nodes if not any(len(q) == len(p) + 1 and q[:len(p)] == p for q in nodes)]
    return [[index[leaf[:d]] for d in range(len(leaf) + 1)] for leaf in leaves]
