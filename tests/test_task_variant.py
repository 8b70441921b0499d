"""The 谁咬谁 task's variant ("anywhere"), the causal mask and RoPE scaling at evaluation time
(notebook 09), and the promise that the default ("adjacent") task did not change."""
import math

import numpy as np
import pytest
import torch

import posenc_lib as pl
from posenc.task.evaluation import sentence_tokens
from posenc.task.training import finetune_order_model
from support import assert_refused_clearly

SMALL = dict(steps=5, n_train=64, n_test=64)


# ---------------------------------------------------------------------------
# The default task is exactly what notebooks 05 and 07 had
# ---------------------------------------------------------------------------

def test_adjacent_task_is_unchanged():
    """Sentences and losses captured from the code before the variant existed (commit 4c7a6fe)."""
    assert pl.make_bite_dataset(6, seed=0).sentences == [
        '鼠咬猫嗯嗯嗯嗯。', '猫咬鼠嗯嗯嗯嗯。', '嗯嗯猫咬狗嗯。', '嗯嗯狗咬猫嗯。', '啊兔咬牛啊。', '啊牛咬兔啊。']
    assert pl.make_bite_dataset(4, (16, 16), seed=1016, split="test").sentences == [
        '啊嗯嗯嗯嗯嗯啊鼠咬马啊啊嗯嗯啊。', '啊嗯嗯嗯嗯嗯啊马咬鼠啊啊嗯嗯啊。',
        '嗯啊嗯啊嗯嗯嗯啊啊嗯鸡咬马啊嗯。', '嗯啊嗯啊嗯嗯嗯啊啊嗯马咬鸡啊嗯。']
    assert pl.make_bite_dataset(4, (5, 9), seed=3, split="train", terminator=False).sentences == [
        '嗯嗯啊啊鸡咬鼠嗯嗯', '嗯嗯啊啊鼠咬鸡嗯嗯', '啊啊狗咬牛', '啊啊牛咬狗']
    losses = pl.train_order_model("rope", **SMALL).losses
    np.testing.assert_allclose(losses, [2.160553216934204, 1.8174340724945068, 1.6783603429794312,
                                        1.4952657222747803, 1.2266525030136108], rtol=1e-6)


def test_adjacent_dataset_knows_its_positions():
    ds = pl.make_bite_dataset(50, (4, 20), seed=2)
    assert ds.task == "adjacent"
    assert torch.equal(ds.verbs, ds.starts + 1) and torch.equal(ds.bitten, ds.starts + 2)


# ---------------------------------------------------------------------------
# The "anywhere" variant
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("lengths,terminator", [((4, 8), True), ((8, 16), True), ((64, 64), True), ((3, 10), False)])
def test_anywhere_sentences(lengths, terminator):
    ds = pl.make_bite_dataset(200, lengths, seed=4, task="anywhere", terminator=terminator)
    assert ds.task == "anywhere" and ds.tokens.shape == (200, lengths[1])
    for i, s in enumerate(ds.sentences):
        a, v, b = int(ds.starts[i]), int(ds.verbs[i]), int(ds.bitten[i])
        assert 0 <= a < v < b < int(ds.lengths[i]) - (1 if terminator else 0)
        assert len(s) == int(ds.lengths[i]) and s.count("咬") == 1 and s[v] == "咬"
        assert s.endswith("。") == terminator
        animals = [j for j, c in enumerate(s) if c in pl.ANIMALS]
        assert animals == [a, b] and s[a] != s[b]
        assert pl.ANIMALS[int(ds.labels[i])] == s[a]              # the label is the one before 咬
        assert set(s) - set(pl.ANIMALS) <= {"咬", "。", *pl.FILLERS}
    for k in range(0, 200, 2):                                     # mirror pairs
        assert sorted(ds.sentences[k]) == sorted(ds.sentences[k + 1]) and ds.sentences[k] != ds.sentences[k + 1]
        assert ds.labels[k] != ds.labels[k + 1] and ds.starts[k] == ds.starts[k + 1]


def test_anywhere_positions_are_uniform_and_distances_grow_with_length():
    ds = pl.make_bite_dataset(4000, (16, 16), seed=0, task="anywhere")
    # body of 15 tokens: the biter's position is the smallest of 3 of 15 -> P(a = 0) = C(14, 2) / C(15, 3)
    a = ds.starts.numpy()
    assert abs((a == 0).mean() - math.comb(14, 2) / math.comb(15, 3)) < 0.03
    mean_dist = {L: (lambda d: float((d.verbs - d.starts).double().mean()))(
        pl.make_bite_dataset(2000, (L, L), seed=1, task="anywhere")) for L in (8, 16, 32, 64)}
    # expected gap between consecutive order statistics of 3 out of n = body: (n + 1) / 4
    for L, got in mean_dist.items():
        assert abs(got - L / 4) < 0.1 * L / 4, (L, got)


def test_anywhere_split_is_disjoint_and_deterministic():
    train = pl.make_bite_dataset(512, (8, 16), seed=0, split="train", task="anywhere")
    test = pl.make_bite_dataset(512, (8, 16), seed=1, split="test", task="anywhere")
    assert not set(train.sentences) & set(test.sentences)
    again = pl.make_bite_dataset(512, (8, 16), seed=0, split="train", task="anywhere")
    assert train.sentences == again.sentences
    assert pl.make_bite_dataset(64, (8, 16), seed=5, task="anywhere").sentences != \
        pl.make_bite_dataset(64, (8, 16), seed=6, task="anywhere").sentences
    # a large test draw and an independent train draw never share a sentence
    held_out = set(pl.make_bite_dataset(20000, (8, 16), seed=2, split="test", task="anywhere").sentences)
    train_side = set(pl.make_bite_dataset(2000, (8, 16), seed=3, split="train", task="anywhere").sentences)
    assert not held_out & train_side


def test_max_length_is_64():
    assert pl.MAX_LENGTH == 64
    assert pl.make_bite_dataset(2, (64, 64), task="anywhere").tokens.shape == (2, 64)
    assert_refused_clearly(lambda: pl.make_bite_dataset(2, (4, 65)), ValueError, "lengths[1]")


def test_order_blind_bound_holds_for_the_variant():
    model = pl.train_order_model("none", task="anywhere", **SMALL).model
    test = pl.make_bite_dataset(200, (8, 16), seed=9, split="test", task="anywhere")
    assert pl.mirror_agreement(model, test) == 1.0


# ---------------------------------------------------------------------------
# Causal mask
# ---------------------------------------------------------------------------

def test_causal_mask_hides_the_future_and_breaks_order_blindness():
    torch.manual_seed(0)
    data = pl.make_bite_dataset(8, (6, 8), seed=3)
    blind = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="none").eval()
    torch.manual_seed(0)
    causal = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="none", causal=True).eval()
    with torch.no_grad():
        weights = causal.attention_weights(data.tokens, data.mask)
        for w in weights:
            assert torch.all(w.triu(1) == 0)                    # no query attends to a later key
        lb, lc = blind(data.tokens, data.mask), causal(data.tokens, data.mask)
    assert torch.allclose(lb[0::2], lb[1::2], atol=1e-5)        # mirror pairs: the same input for it
    assert not torch.allclose(lc[0::2], lc[1::2], atol=1e-3)    # not for the causal model


def test_causal_output_at_a_position_ignores_later_tokens():
    torch.manual_seed(1)
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="rope", causal=True).eval()
    a = torch.tensor([[3, 5, 1, 6, 4, 2]])
    b = a.clone()
    b[0, 4] = 8                                                 # change a later token
    with torch.no_grad():
        wa, wb = model.attention_weights(a), model.attention_weights(b)
    for la, lb in zip(wa, wb):
        assert torch.allclose(la[..., :4, :4], lb[..., :4, :4], atol=1e-6)


@pytest.mark.slow
def test_causal_none_model_learns_order():
    res = pl.trained_run("none", causal=True)
    assert res.test_accuracy > 0.9 and res.config["causal"] is True
    assert pl.trained_run("none", causal=True) is res
    assert pl.trained_run("none").test_accuracy < 0.6


# ---------------------------------------------------------------------------
# RoPE scaling at evaluation time
# ---------------------------------------------------------------------------

def _rope_model(seed=0):
    torch.manual_seed(seed)
    return pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="rope").eval()


def rotated_by(model, x):
    """q (or κ) as the model rotates it: the one torch RoPE with the model's scaled frequencies."""
    return pl.rope_torch(x, torch.arange(x.shape[-2]), model.base, inv_freq=model._rope_inv_freq,
                         attention_factor=model._rope_attention_factor)


def test_scaled_rotation_equals_rope_torch_at_interpolated_positions():
    model = _rope_model()
    x = torch.randn(2, 4, 10, model.head_dim)
    model.set_rope_scaling("none")
    assert model._rope_inv_freq is None and model._rope_attention_factor == 1.0
    assert torch.equal(rotated_by(model, x), pl.rope_torch(x, torch.arange(10)))
    model.set_rope_scaling("pi", 4.0)
    want = pl.rope_torch(x, torch.arange(10, dtype=torch.float64) / 4)   # positions divided by s
    assert torch.allclose(rotated_by(model, x), want, atol=1e-6)
    model.set_rope_scaling("yarn", 4.0, 16)
    inv, att = pl.rope_frequencies(model.head_dim, 10000.0, "yarn", 4.0, 16)
    t = np.arange(10)[:, None] * inv[None, :]
    x0, x1 = x[..., 0::2].double().numpy(), x[..., 1::2].double().numpy()
    ref = np.stack([x0 * np.cos(t) - x1 * np.sin(t), x0 * np.sin(t) + x1 * np.cos(t)], axis=-1).reshape(x.shape)
    assert np.allclose(rotated_by(model, x).double().numpy(), att * ref, atol=1e-5)


def test_the_model_rotates_q_and_k_with_rope_torch():
    """The attention weights of a scaled RoPE model, recomputed by hand from its q, k and
    pl.rope_torch with the model's frequencies, match the model's own."""
    model = _rope_model()
    model.set_rope_scaling("yarn", 4.0, 16)
    data = pl.make_bite_dataset(4, (20, 24), seed=0, task="anywhere")
    with torch.no_grad():
        weights = model.attention_weights(data.tokens, data.mask)[0]
        x = model.tok_emb(data.tokens)
        bsz, seq, _ = x.shape
        q, k, _ = model.blocks[0].qkv(x).view(bsz, seq, 3, model.num_heads, model.head_dim).permute(2, 0, 3, 1, 4)
        q, k = rotated_by(model, q), rotated_by(model, k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(model.head_dim)
        scores = scores.masked_fill(~data.mask[:, None, None, :], float("-inf"))
    assert torch.allclose(weights, torch.softmax(scores, -1), atol=1e-6)


def test_scaling_changes_the_logits_and_none_restores_them_exactly():
    model = _rope_model()
    data = pl.make_bite_dataset(16, (20, 40), seed=0, task="anywhere")
    with torch.no_grad():
        plain = model(data.tokens, data.mask)
        with model.rope_scaling("ntk", 4.0):
            assert model.rope_scaling_config["rope_type"] == "ntk"
            scaled = model(data.tokens, data.mask)
        assert model.rope_scaling_config is None
        again = model(data.tokens, data.mask)
    assert torch.equal(plain, again) and not torch.allclose(plain, scaled)
    model.set_rope_scaling("yarn", 2.0, 16)
    model.set_rope_scaling("none")
    with torch.no_grad():
        assert torch.equal(model(data.tokens, data.mask), plain)


def test_scaling_context_restores_a_previous_setting():
    model = _rope_model()
    model.set_rope_scaling("pi", 2.0)
    with model.rope_scaling("yarn", 4.0, 16):
        assert model.rope_scaling_config["rope_type"] == "yarn"
    assert model.rope_scaling_config["rope_type"] == "linear" and model.rope_scaling_config["factor"] == 2.0


def test_scaling_is_for_rope_models_only():
    torch.manual_seed(0)
    model = pl.OrderModel(len(pl.VOCAB), len(pl.ANIMALS), pe="alibi")
    assert_refused_clearly(lambda: model.set_rope_scaling("pi", 2.0), ValueError, "pe='rope'")


# ---------------------------------------------------------------------------
# Training, memoisation and the experiments with the variant
# ---------------------------------------------------------------------------

def test_training_with_the_variant_is_deterministic():
    a = pl.train_order_model("rope", task="anywhere", causal=True, **SMALL)
    b = pl.train_order_model("rope", task="anywhere", causal=True, **SMALL)
    assert a.losses == b.losses and a.config["task"] == "anywhere"
    c = pl.train_order_model("rope", **SMALL)
    assert c.losses != a.losses and c.config["task"] == "adjacent" and c.config["causal"] is False


@pytest.mark.slow
def test_trained_run_memoises_per_variant():
    default = pl.trained_run("rope")
    assert pl.trained_run("rope", task="adjacent", train_lengths=pl.DEFAULT_TRAIN_LENGTHS) is default
    run = pl.trained_run("rope", task="anywhere", train_lengths=(8, 16))
    assert run is not default and pl.trained_run("rope", task="anywhere", train_lengths=(8, 16)) is run
    assert run.config["train_lengths"] == (8, 16) and run.config["task"] == "anywhere"
    assert_refused_clearly(lambda: pl.trained_run("rope", bogus=1), TypeError, "bogus")
    assert_refused_clearly(lambda: pl.trained_run("rope", task="far"), ValueError, "task")


@pytest.mark.slow
def test_length_accuracy_and_extrapolation_table_use_the_variant():
    model = pl.trained_run("rope", task="anywhere", train_lengths=(8, 16)).model
    acc = pl.length_accuracy(model, (16, 17), task="anywhere")
    ds = pl.make_bite_dataset(512, (16, 16), 1016, split="test", task="anywhere")
    assert acc[16] == pl.evaluate(model, ds)
    rows = pl.extrapolation_table(pes=("rope",), include_none=False, test_lengths=(9, 10), task="anywhere",
                                  steps=5, n_train=64, n_test=64)
    assert rows[0]["task"] == "anywhere" and set(rows[0]["by_length"]) == {9, 10}


@pytest.mark.slow  # trains several models (the README's rule for slow)
def test_context_extension_table_evaluates_one_model_under_each_scaling():
    rows = pl.context_extension_table(factors=(2,), n_per_length=64)
    assert [r["rope_type"] for r in rows] == list(pl.ROPE_TYPES)
    model = pl.trained_run("rope", task="anywhere", train_lengths=(8, 16)).model
    for r in rows:
        with model.rope_scaling(r["rope_type"], 2, 16):
            ds = pl.make_bite_dataset(64, (32, 32), 1032, split="test", task="anywhere")
            assert r["by_factor"][2]["target"] == pl.evaluate(model, ds)
        assert r["attention_factor"][2] == pl.rope_frequencies(8, 10000.0, r["rope_type"], 2, 16)[1]
    text = pl.format_context_table(rows)
    assert "长度 16" in text and "长度 32" in text and "YaRN" in text
    assert_refused_clearly(lambda: pl.context_extension_table(factors=(8,)), ValueError, "factor")


def test_finetuning_copies_the_model():
    run = pl.trained_run("rope", task="anywhere", train_lengths=(8, 16))
    before = {k: v.clone() for k, v in run.model.state_dict().items()}
    tuned = finetune_order_model(run, lengths=(17, 32), steps=2, task="anywhere", rope_type="pi", factor=2,
                                    train_len=16, n_train=32, n_test=32)
    assert all(torch.equal(before[k], v) for k, v in run.model.state_dict().items())
    assert run.model.rope_scaling_config is None
    assert tuned.model.rope_scaling_config["rope_type"] == "linear" and len(tuned.losses) == 2
    assert not all(torch.equal(before[k], v) for k, v in tuned.model.state_dict().items())


def test_attention_maps_are_the_model_weights():
    run = pl.trained_run("sinusoidal")
    maps = pl.attention_maps(run, "嗯猫咬狗啊。")
    ids = torch.tensor([sentence_tokens("嗯猫咬狗啊。")])
    with torch.no_grad():
        want = run.model.attention_weights(ids)
    assert maps.shape == (2, 4, 6, 6)
    for layer in range(2):
        np.testing.assert_allclose(maps[layer], want[layer][0].numpy(), atol=0)
    np.testing.assert_allclose(maps.sum(-1), 1.0, atol=1e-5)
    assert_refused_clearly(lambda: sentence_tokens("猫咬X"), ValueError, "vocabulary")


@pytest.mark.slow  # trains several models (the README's rule for slow)
def test_context_table_reports_progress_for_every_step():
    calls = []
    pl.context_extension_table(factors=(2, 4), n_per_length=32, callback=lambda label, i: calls.append(i))
    assert calls == list(range(1 + 4 * 2))
