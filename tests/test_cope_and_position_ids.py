"""CoPE and the ids built for length generalization (notebook 12), against the reference code's
definitions written as loops (tests/reference.py) and properties: all gates open gives token
counts back; Abacus ids of two aligned numbers match digit by digit; randomized positions are
sorted, distinct and inside the range."""
import numpy as np
import pytest

import posenc_lib as pl
import reference as ref


@pytest.mark.parametrize("seed", range(3))
def test_cope_positions_and_logits_are_the_loops(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=2, size=(6, 6))
    p = pl.cope_positions(z)
    np.testing.assert_allclose(p, ref.cope_positions(z.tolist()), atol=1e-12)
    q, e = rng.normal(size=(6, 4)), rng.normal(size=(8, 4))
    got = pl.cope_position_logits(q, e, p)
    for i in range(6):
        for j in range(i + 1):
            assert got[i, j] == pytest.approx(ref.cope_logit(list(q[i]), e.tolist(), p[i, j]), abs=1e-12)


def test_open_gates_count_tokens_and_closed_gates_count_nothing():
    p = pl.cope_positions(np.full((5, 5), 60.0))
    np.testing.assert_allclose(np.tril(p), np.tril(np.arange(5)[:, None] - np.arange(5)[None, :] + 1.0), atol=1e-12)
    assert pl.cope_positions(np.full((5, 5), -60.0)).max() < 1e-20
    assert pl.cope_positions(np.full((5, 5), 60.0), npos=3).max() == 2.0


def test_integer_positions_read_their_own_vector():
    rng = np.random.default_rng(0)
    q, e = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    p = np.array([[1.0, 0, 0], [2.0, 1.0, 0], [3.0, 2.0, 1.0]])
    np.testing.assert_allclose(pl.cope_position_logits(q, e, p)[2], [q[2] @ e[3], q[2] @ e[2], q[2] @ e[1]])


def test_abacus_ids_are_the_reference_and_align_digits():
    for text, k in (("321+54=975", 0), ("12a34", 3), ("+", 0), ("0", 99)):
        assert pl.abacus_positions(text, k).tolist() == ref.abacus_ids(text, k)
    ids = pl.abacus_positions("4321+8765=")
    assert ids[:4].tolist() == ids[5:9].tolist() == [1, 2, 3, 4]


def test_randomized_positions_are_sorted_distinct_and_in_range():
    for seed in range(20):
        pos = pl.randomized_positions(8, 64, seed)
        assert len(pos) == len(set(pos.tolist())) == 8
        assert (np.diff(pos) > 0).all() and pos.min() >= 0 and pos.max() < 64
    assert pl.randomized_positions(64, 64, 0).tolist() == list(range(64))
    seen = set()
    for seed in range(300):
        seen |= set(pl.randomized_positions(8, 64, seed).tolist())
    assert seen == set(range(64))


def test_pose_ids_are_the_reference_codes_two_chunks():
    """dwzhu-pku/PoSE train_preprocess_function_pose, written out: pos_ids = arange(L);
    pos_ids[:rt1] += 0; pos_ids[rt1:] += rt."""
    for L, target, split, skip in ((16, 64, 3, 0), (16, 64, 8, 48), (10, 10, 5, 0), (7, 100, 1, 50)):
        want = [p if p < split else p + skip for p in range(L)]
        assert pl.pose_position_ids(L, target, split=split, skip=skip).tolist() == want
    rng = np.random.default_rng(0)
    for _ in range(300):                                  # the draws stay in the code's ranges
        ids = pl.pose_position_ids(16, 64, rng)
        assert ids[0] == 0 and ids[-1] <= 63 and np.all(np.diff(ids) >= 1)
        jumps = np.flatnonzero(np.diff(ids) > 1)
        assert len(jumps) <= 1 and (len(jumps) == 0 or 1 <= jumps[0] + 1 <= 8)
    with pytest.raises(ValueError, match="split"):
        pl.pose_position_ids(16, 64, split=9)


def test_distances_seen_counts_every_causal_pair_like_the_loop():
    rows = [[0, 1, 2, 7, 8], [0, 3, 4], list(range(6))]
    want = [0] * 10
    for row in rows:
        for a in range(len(row)):
            for b in range(a + 1):
                if row[a] - row[b] <= 9:
                    want[row[a] - row[b]] += 1
    assert pl.distances_seen(rows, 9).tolist() == want
    with pytest.raises(ValueError, match="increasing"):
        pl.distances_seen([[0, 2, 1]], 5)
