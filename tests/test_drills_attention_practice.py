"""Drills on causal attention, the KV-cache step with grouped heads, and position ids in practice
(left padding, packing): a right function written as plain loops is 正确; every declared slip,
written as plain loops (never imported from the library), is named by its own message."""
import math

import numpy as np
import pytest

import reference as ref
from support import assert_every_slip_tested, assert_names
from posenc.exercises.drills import attention as AT
from posenc.exercises.drills import inference as KV
from posenc.exercises.drills import practice as P


def test_every_slip_of_these_drills_has_a_test():
    assert_every_slip_tested(((AT.CAUSAL_ATTENTION, ATTENTION_SLIPS), (KV.KV_CACHE_STEP, STEP_SLIPS),
                              (P.POSITION_IDS, ID_SLIPS), (P.PACK, PACK_SLIPS)))


# ---------------------------------------------------------------------------
# Causal attention
# ---------------------------------------------------------------------------
def attention_loops(q, key, value, *, sees="past", mask="before", scale="sqrt", along="keys"):
    q, k, v = (np.asarray(a, dtype=float) for a in (q, key, value))
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    n, d = q.shape[-2], q.shape[-1]
    divisor = {"sqrt": math.sqrt(d), "none": 1.0, "d": float(d)}[scale]
    visible = {"past": lambda m, j: j <= m, "future": lambda m, j: j >= m, "all": lambda m, j: True,
               "strict": lambda m, j: j < m}[sees]
    for lead in np.ndindex(*q.shape[:-2]):
        scores = [[sum(q[lead + (m, c)] * k[lead + (j, c)] for c in range(d)) / divisor for j in range(n)] for m in range(n)]
        weights = [[0.0] * n for _ in range(n)]
        if along == "queries":
            for j in range(n):
                ms = [m for m in range(n) if visible(m, j)]
                top = max(scores[m][j] for m in ms)
                total = sum(math.exp(scores[m][j] - top) for m in ms)
                for m in ms:
                    weights[m][j] = math.exp(scores[m][j] - top) / total
        else:
            for m in range(n):
                if mask == "zeros":
                    row = [scores[m][j] if visible(m, j) else 0.0 for j in range(n)]
                    keys = range(n)
                elif mask == "after":
                    row, keys = scores[m], range(n)
                else:
                    keys = [j for j in range(n) if visible(m, j)]
                    row = scores[m]
                if not keys:
                    weights[m] = [math.nan] * n
                    continue
                top = max(row[j] for j in keys)
                total = sum(math.exp(row[j] - top) for j in keys)
                for j in keys:
                    weights[m][j] = math.exp(row[j] - top) / total
                if mask == "after":
                    weights[m] = [w if visible(m, j) else 0.0 for j, w in enumerate(weights[m])]
        for m in range(n):
            for c in range(v.shape[-1]):
                out[lead + (m, c)] = sum(weights[m][j] * v[lead + (j, c)] for j in range(n))
    return out


ATTENTION_SLIPS = {
    "mask_after_softmax": dict(mask="after"),
    "zeros_for_future": dict(mask="zeros"),
    "future_visible": dict(sees="future"),
    "no_mask": dict(sees="all"),
    "no_sqrt_d": dict(scale="none"),
    "divided_by_d": dict(scale="d"),
    "softmax_over_queries": dict(along="queries"),
    "diagonal_masked": dict(sees="strict"),
}


def test_causal_attention_written_as_loops_is_right():
    assert AT.check_drill_causal_attention(attention_loops)


@pytest.mark.parametrize("name", ATTENTION_SLIPS)
def test_each_attention_slip_is_named(name):
    knobs = ATTENTION_SLIPS[name]
    assert_names(AT.check_drill_causal_attention, AT.CAUSAL_ATTENTION, lambda q, k, v: attention_loops(q, k, v, **knobs), name)


def test_the_mask_after_the_softmax_shows_the_first_query_is_not_its_own_value():
    message = AT.check_drill_causal_attention(lambda q, k, v: attention_loops(q, k, v, mask="after")).message
    assert "位置 m = 0 的查询（只能看见键 0，也就是它自己：输出就是 value 的第 0 行）" in message


# ---------------------------------------------------------------------------
# One decoding step with a KV cache and grouped KV heads
# ---------------------------------------------------------------------------
def step_loops(q, key, value, pos, key_cache, value_cache, base=10000.0, *, q_at=0, k_at=0, rotate_q=True, rotate_k=True,
               rerotate=False, tiled=False, scale="sqrt", rotate_v=False):
    k, v = key, value
    heads, d = q.shape
    kv = k.shape[0]
    keys = [[list(row) if not rerotate else ref.rope_vector(list(row), pos, base) for row in key_cache[g]] for g in range(kv)]
    values = [[list(row) for row in value_cache[g]] for g in range(kv)]
    for g in range(kv):
        keys[g].append(ref.rope_vector(list(k[g]), pos + k_at, base) if rotate_k else list(k[g]))
        values[g].append(ref.rope_vector(list(v[g]), pos, base) if rotate_v else list(v[g]))
    divisor = {"sqrt": math.sqrt(d), "none": 1.0, "d": float(d)}[scale]
    out = []
    for h in range(heads):
        g = h % kv if tiled else h // (heads // kv)
        qh = ref.rope_vector(list(q[h]), pos + q_at, base) if rotate_q else list(q[h])
        weights = ref.softmax([ref.dot(qh, key) / divisor for key in keys[g]])
        out.append([sum(w * val[c] for w, val in zip(weights, values[g])) for c in range(len(values[g][0]))])
    return np.array(out), np.array(keys).reshape(kv, -1, d), np.array(values).reshape(kv, len(values[0]), -1)


STEP_SLIPS = {
    "cache_rotated_again": dict(rerotate=True),
    "new_key_not_rotated": dict(rotate_k=False),
    "query_not_rotated": dict(rotate_q=False),
    "positions_from_1": dict(q_at=1, k_at=1),
    "heads_tiled": dict(tiled=True),
    "no_sqrt_d": dict(scale="none"),
    "divided_by_d": dict(scale="d"),
    "value_rotated": dict(rotate_v=True),
}


def test_the_step_written_as_loops_is_right():
    assert KV.check_drill_kv_cache_step(step_loops)


@pytest.mark.parametrize("name", STEP_SLIPS)
def test_each_step_slip_is_named(name):
    knobs = STEP_SLIPS[name]
    fn = lambda q, key, value, pos, key_cache, value_cache, base=10000.0: step_loops(q, key, value, pos, key_cache, value_cache, base, **knobs)
    assert_names(KV.check_drill_kv_cache_step, KV.KV_CACHE_STEP, fn, name)


def test_a_rerotated_cache_is_shown_at_its_first_old_key():
    fn = lambda q, key, value, pos, key_cache, value_cache, base=10000.0: step_loops(q, key, value, pos, key_cache, value_cache, base, rerotate=True)
    assert "key_cache 里 KV 头 0 的第 0 行（位置 0 的旧键）被改了" in KV.check_drill_kv_cache_step(fn).message


# ---------------------------------------------------------------------------
# Position ids of a left-padded batch
# ---------------------------------------------------------------------------
def ids_loops(attention_mask, *, mode="right"):
    mask = np.asarray(attention_mask)
    rows, cols = mask.shape
    if mode == "flat":
        out, count = [], 0
        for value in mask.ravel():
            count += int(value)
            out.append(count - 1)
        return np.array(out)
    out = np.ones((rows, cols), dtype=int)
    for b in range(rows):
        count = 0
        for t in range(cols):
            if mode == "arange":
                out[b, t] = t
            elif mode == "axis0":
                out[b, t] = sum(int(mask[r, t]) for r in range(b + 1)) - 1
            elif mask[b, t]:
                out[b, t] = count + (1 if mode == "from1" else 0)
                count += 1
    return out


ID_SLIPS = {"arange": dict(mode="arange"), "cumsum_from_1": dict(mode="from1"), "cumsum_axis_0": dict(mode="axis0"),
            "cumsum_flattened": dict(mode="flat")}


def test_position_ids_written_as_loops_are_right_whatever_the_pads_hold():
    assert P.check_drill_position_ids(ids_loops)
    assert P.check_drill_position_ids(lambda mask: ids_loops(mask) * np.asarray(mask) - 7 * (1 - np.asarray(mask)))


@pytest.mark.parametrize("name", ID_SLIPS)
def test_each_position_id_slip_is_named(name):
    knobs = ID_SLIPS[name]
    assert_names(P.check_drill_position_ids, P.POSITION_IDS, lambda mask: ids_loops(mask, **knobs), name)


def test_a_position_id_slip_shows_the_first_real_token():
    message = P.check_drill_position_ids(lambda mask: ids_loops(mask, mode="arange")).message
    assert "第 0 行（mask = [0, 0, 1, 1, 1]）第 2 列（第一个真实的词，前面有 2 个填充）的位置是 2，应为 0" in message


# ---------------------------------------------------------------------------
# Packing: position ids and the block-diagonal causal mask
# ---------------------------------------------------------------------------
def pack_loops(lengths, *, ids="restart", sees="same_document_past"):
    total = sum(lengths)
    doc, within = [], []
    for j, n in enumerate(lengths):
        for t in range(n):
            doc.append(j)
            within.append(t)
    position_ids = np.array([len(within[:m]) if ids == "continue" else within[m] + (ids == "from1")
                             for m in range(total)])
    rule = {"same_document_past": lambda m, n: doc[m] == doc[n] and n <= m,
            "past": lambda m, n: n <= m,
            "same_document": lambda m, n: doc[m] == doc[n],
            "same_document_future": lambda m, n: doc[m] == doc[n] and n >= m,
            "same_document_before": lambda m, n: doc[m] == doc[n] and n < m}[sees]
    visible = np.array([[rule(m, n) for n in range(total)] for m in range(total)])
    return position_ids, visible


PACK_SLIPS = {
    "ids_continue": dict(ids="continue"),
    "ids_from_1": dict(ids="from1"),
    "mask_causal_only": dict(sees="past"),
    "mask_not_causal": dict(sees="same_document"),
    "mask_transposed": dict(sees="same_document_future"),
    "mask_no_diagonal": dict(sees="same_document_before"),
}


def test_packing_written_as_loops_is_right():
    assert P.check_drill_packed_positions(pack_loops)


@pytest.mark.parametrize("name", PACK_SLIPS)
def test_each_packing_slip_is_named(name):
    knobs = PACK_SLIPS[name]
    assert_names(P.check_drill_packed_positions, P.PACK, lambda lengths: pack_loops(lengths, **knobs), name)


def test_a_packing_slip_says_which_document_sees_which():
    message = P.check_drill_packed_positions(lambda lengths: pack_loops(lengths, sees="past")).message
    assert "visible[3, 0]（第 2 篇的第 1 个词看第 1 篇的第 1 个词）是 True，应为 False" in message
