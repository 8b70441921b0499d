"""posenc.exercises.context: every check accepts the right answer (computed independently here)
and names what was entered and the slip it shows."""
import math

import posenc_lib as pl


def wrong_names(verdict, entered, words):
    assert not verdict.ok
    assert f"你填的是 {entered}" in verdict.message, verdict.message
    assert words in verdict.message, verdict.message


def test_check_rotations():
    w = 10000 ** (-80 / 128)
    right = 4096 * w / (2 * math.pi)
    assert pl.check_rotations(right, i=40, d_model=128, length=4096)
    assert pl.check_rotations(round(right, 3), i=40, d_model=128, length=4096)
    assert "超过一圈" in pl.check_rotations(right, i=40, d_model=128, length=4096).message
    assert "不到一圈" in pl.check_rotations(4096 * 10000 ** (-120 / 128) / (2 * math.pi), i=60, d_model=128, length=4096).message
    wrong_names(pl.check_rotations(round(4096 * w, 2), i=40, d_model=128, length=4096), f"{round(4096 * w, 2):g}", "2π")
    wrong_names(pl.check_rotations(round(2 * math.pi / w / 4096, 4), i=40, d_model=128, length=4096),
                f"{round(2 * math.pi / w / 4096, 4):g}", "倒过来")
    wrong_names(pl.check_rotations(4096 * 10000 ** (-40 / 128) / (2 * math.pi), i=40, d_model=128, length=4096),
                "", "−i/d_model")
    wrong_names(pl.check_rotations(7, i=40, d_model=128, length=4096), "7", "L·w_40 / 2π")
    assert not pl.check_rotations(None, i=40, d_model=128, length=4096)
    wrong_names(pl.check_rotations("two", i=40, d_model=128, length=4096), "two", "一个数")


def test_check_ntk_base():
    right = 10000 * 4 ** (128 / 126)
    assert pl.check_ntk_base(right, d_model=128, factor=4) and pl.check_ntk_base(round(right), d_model=128, factor=4)
    wrong_names(pl.check_ntk_base(40000, d_model=128, factor=4), "40000", "少了指数")
    wrong_names(pl.check_ntk_base(10000 * 4 ** (126 / 128), d_model=128, factor=4), "", "倒过来")
    wrong_names(pl.check_ntk_base(1e16, d_model=128, factor=4), "10000000000000000", "ρ 次方")
    wrong_names(pl.check_ntk_base(123, d_model=128, factor=4), "123", "d/(d−2)")


def test_check_yarn_attention_factor():
    right = 0.1 * math.log(4) + 1
    assert pl.check_yarn_attention_factor(round(right, 4), factor=4)
    assert pl.check_yarn_attention_factor(round(right, 3), factor=4)            # 3 significant digits: the one rule
    assert not pl.check_yarn_attention_factor(round(right, 4) + 0.02, factor=4)
    wrong_names(pl.check_yarn_attention_factor(round(0.1 * math.log10(4) + 1, 4), factor=4), "", "以 10 为底")
    wrong_names(pl.check_yarn_attention_factor(round(0.1 * math.log2(4) + 1, 4), factor=4), "1.2", "以 2 为底")
    wrong_names(pl.check_yarn_attention_factor(round(round(right, 4) ** 2, 4), factor=4), "", "平方")
    wrong_names(pl.check_yarn_attention_factor(round(0.1 * math.log(4), 4), factor=4), "", "+ 1")


def test_check_unseen_pairs():
    # never a full turn in 4096 positions: (L - 1) w_i < 2π  <=>  i > 64 ln(4095/2π) / ln(10000)
    first = math.floor(64 * math.log(4095 / (2 * math.pi)) / math.log(10000)) + 1
    right = 64 - first
    assert right == 18
    assert pl.check_unseen_pairs(right, d_model=128, train_len=4096, target_len=16384)
    wrong_names(pl.check_unseen_pairs(64, d_model=128, train_len=4096, target_len=16384), "64", "全部 64 对")
    wrong_names(pl.check_unseen_pairs(64 - right, d_model=128, train_len=4096, target_len=16384), str(64 - right), "转满一圈的对数")
    reach = sum(1 for i in range(first, 64) if 16383 * 10000 ** (-i / 64) >= 2 * math.pi)
    wrong_names(pl.check_unseen_pairs(reach, d_model=128, train_len=4096, target_len=16384), str(reach), "才转满一圈")
    wrong_names(pl.check_unseen_pairs(2.5, d_model=128, train_len=4096, target_len=16384), "2.5", "整数")


def test_check_beta_ratio():
    # β = base^(2/d); the highest digit i = d/2 − 1 = 7 slowed by ρ = 4: (β'/β)^7 = 4
    right = 4 ** (1 / 7)
    assert pl.check_beta_ratio(round(right, 4), d_model=16, factor=4)
    assert pl.check_beta_ratio(round(right, 3), d_model=16, factor=4)
    wrong_names(pl.check_beta_ratio(round(4 ** (2 / 16), 4), d_model=16, factor=4), "1.1892", "第 d/2 − 1 = 7 位")
    wrong_names(pl.check_beta_ratio(round(4 ** (16 / 14), 4), d_model=16, factor=4), "4.8", "base 的倍数")
    wrong_names(pl.check_beta_ratio(4, d_model=16, factor=4), "4", "PI")
    wrong_names(pl.check_beta_ratio(0.25, d_model=16, factor=4), "0.25", "方向反了")
    wrong_names(pl.check_beta_ratio(1.5, d_model=16, factor=4), "1.5", "(β'/β)^7")
    assert not pl.check_beta_ratio(None, d_model=16, factor=4) and "None" in pl.check_beta_ratio(None, d_model=16, factor=4).message
