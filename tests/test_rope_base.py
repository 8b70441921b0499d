"""posenc.rope_base: the margin B(m) = Σ_i cos(m·w_i) and the bases that keep it ≥ 0 (Men et al.
2024). Every expected value comes from ``reference.pe_dot_by_offset``, the margin written as a
plain loop with the math module, evaluated at the bases the code under test returns."""
import math

import numpy as np
import pytest

import posenc_lib as pl
import reference as ref
from posenc.rope_base import base_passes
from support import assert_refused_clearly


def plain_margin(seq_len, d_model, base):
    """(min, argmin) of B(m) over m = 0 … seq_len, one offset at a time."""
    values = [ref.pe_dot_by_offset(m, d_model, base) for m in range(seq_len + 1)]
    low = min(values)
    return low, values.index(low)


@pytest.mark.parametrize("seq_len,d_model,base", [(64, 16, 50.0), (300, 32, 900.0), (512, 64, 3e3), (512, 64, 1e5)])
def test_margin_is_the_plain_loops_minimum_and_where_it_is(seq_len, d_model, base):
    low, at = pl.rope_base_margin(seq_len, d_model, base)
    want, want_at = plain_margin(seq_len, d_model, base)
    assert low == pytest.approx(want, abs=1e-9) and at == want_at


def test_the_issues_example_base_35000_fails_at_4096():
    """d = 128, L = 4096: base 3.5e4 dips to −2.51 at m = 4006 (the plain loop says so)."""
    low, at = pl.rope_base_margin(4096, 128, 3.5e4)
    assert at == 4006 and ref.pe_dot_by_offset(4006, 128, 3.5e4) == pytest.approx(low, abs=1e-9)
    assert round(low, 2) == -2.51
    assert not base_passes(4096, 128, 3.5e4)


def test_the_float32_pass_decides_like_float64_on_many_bases():
    """The fast test (float32 with a guard band, float64 near 0) agrees with the exact margin."""
    rng = np.random.default_rng(3)
    for base in np.exp(rng.uniform(np.log(2e3), np.log(2e5), 300)):
        assert base_passes(1024, 128, base) == (pl.rope_base_margin(1024, 128, base)[0] >= 0), base


@pytest.mark.parametrize("seq_len,d_model", [(256, 32), (512, 64)])
def test_bounds_against_the_plain_loop(seq_len, d_model):
    b = pl.rope_base_bounds(seq_len, d_model, step=1.002)
    passes = lambda base: plain_margin(seq_len, d_model, base)[0] >= 0
    assert passes(b.smallest) and not passes(b.smallest * (1 - 3e-4))
    assert passes(b.all_pass) and not passes(b.all_pass * (1 - 3e-4))
    assert b.smallest <= b.all_pass <= b.checked_to
    grid = 2.0 * b.step ** np.arange(0, math.log(b.smallest / 2.0) / math.log(b.step) - 1)
    for base in grid[::11]:                       # no grid base below the smallest passes
        assert not passes(base), base
    k = math.ceil(math.log(b.all_pass / b.smallest) / math.log(b.step))
    above = b.smallest * b.step ** np.arange(k + 1, math.log(b.checked_to / b.smallest) / math.log(b.step))
    for base in above[::13]:                      # every grid base above all_pass passes
        assert passes(base), base
    for first, last in b.failing:                 # the recorded failing runs fail
        assert not passes(first) and not passes(last)
        assert b.smallest < first <= last < b.all_pass


def test_the_passing_set_is_fragmented_at_4096():
    """The issue's finding: for d = 128, L = 4096, bases above the smallest passing one fail again
    up to about 5.9e4; the runs of failing bases and the two bounds agree with the plain loop."""
    b = pl.rope_base_bounds(4096, 128, start=2.5e4)
    assert len(b.failing) >= 5
    assert 2.6e4 < b.smallest < 2.9e4 and 5.8e4 < b.all_pass < 6.0e4
    assert plain_margin(4096, 128, b.all_pass)[0] >= 0
    assert plain_margin(4096, 128, b.failing[-1][1])[0] < 0


@pytest.mark.parametrize("call,words", [
    (lambda: pl.rope_base_bounds(0, 64), "seq_len"),
    (lambda: pl.rope_base_bounds(64, 2), "d_model"),
    (lambda: pl.rope_base_bounds(64, 64, step=1.0), "step"),
    (lambda: pl.rope_base_margin(64, 64, 1.0), "base"),
])
def test_bad_arguments_are_refused_with_their_name(call, words):
    assert_refused_clearly(call, ValueError, words)
