"""Speculative and tree decoding (notebook 11): the tree's ids and mask against Medusa's
``generate_medusa_buffers`` written out in tests/reference.py, and the identity that makes tree
attention right: each node's output with the tree mask equals decoding its branch as a sequence."""
import numpy as np
import pytest

import posenc_lib as pl
import reference as ref

TREE = [(0,), (1,), (0, 0), (0, 1), (1, 0), (0, 0, 0)]


@pytest.mark.parametrize("paths", [TREE, [(0,), (0, 0), (0, 0, 0)], [(2,), (0,), (1,), (0, 3)]])
def test_ids_and_mask_are_medusas(paths):
    ids, mask = ref.medusa_buffers(paths)
    assert pl.tree_position_ids(paths).tolist() == ids
    assert pl.tree_attention_mask(paths).astype(int).tolist() == mask
    assert (pl.tree_position_ids(paths, start=7) - 7).tolist() == ids


def test_hand_worked_tree():
    assert pl.tree_nodes(TREE) == [(), (0,), (1,), (0, 0), (0, 1), (1, 0), (0, 0, 0)]
    assert pl.tree_position_ids(TREE, start=10).tolist() == [10, 11, 11, 12, 12, 12, 13]
    mask = pl.tree_attention_mask(TREE)
    assert np.flatnonzero(mask[6]).tolist() == [0, 1, 3, 6]          # (0,0,0) sees (), (0,), (0,0), itself
    assert np.flatnonzero(mask[5]).tolist() == [0, 2, 5]             # (1,0) sees (), (1,), itself
    assert pl.tree_branches(TREE) == [[0, 1, 4], [0, 2, 5], [0, 1, 3, 6]]    # leaves in node order


def test_a_chain_is_an_ordinary_causal_draft():
    chain = [(0,), (0, 0), (0, 0, 0)]
    assert pl.tree_position_ids(chain, start=5).tolist() == [5, 6, 7, 8]
    np.testing.assert_array_equal(pl.tree_attention_mask(chain), np.tril(np.ones((4, 4), dtype=bool)))


@pytest.mark.parametrize("seed", range(3))
def test_tree_attention_equals_decoding_each_branch(seed):
    rng = np.random.default_rng(seed)
    n_cache, d = 5, 8
    nodes = pl.tree_nodes(TREE)
    q, k, v = rng.normal(size=(3, n_cache + len(nodes), d))
    ids = np.concatenate([np.arange(n_cache), pl.tree_position_ids(TREE, start=n_cache)])
    visible = np.zeros((len(ids), len(ids)), dtype=bool)
    visible[:, :n_cache] = np.tril(np.ones((len(ids), n_cache), dtype=bool))
    visible[n_cache:, n_cache:] = pl.tree_attention_mask(TREE)
    tree_out, _ = pl.masked_rope_attention(q, k, v, ids, visible)
    for branch in pl.tree_branches(TREE):
        rows = list(range(n_cache)) + [n_cache + b for b in branch]
        seq_out, _ = pl.masked_rope_attention(q[rows], k[rows], v[rows], np.arange(len(rows)),
                                              np.tril(np.ones((len(rows), len(rows)), dtype=bool)))
        np.testing.assert_allclose(tree_out[rows[n_cache:]], seq_out[n_cache:], atol=1e-12)
    flat = np.arange(len(ids))                                     # ids by order in the flattened list
    wrong, _ = pl.masked_rope_attention(q, k, v, flat, visible)
    assert np.abs(wrong[n_cache:] - tree_out[n_cache:]).max() > 1e-3


@pytest.mark.parametrize("paths, message", [([], "empty"), ([(0, 1)], "parent"), ([(0,), (0,)], "repeat"),
                                            ([(0,), ()], "non-empty"), ([(-1,)], ">= 0"), (5, "list")])
def test_bad_trees_are_refused(paths, message):
    with pytest.raises((ValueError, TypeError), match=message):
        pl.tree_nodes(paths)
