"""The drill machinery (posenc/exercises/drill.py), on one drill (RoPE, interleaved): a stub is
neutral whatever its body's placeholder, a function that raises shows its own line and not the
checker's, a slow or endless function is stopped (a tiny real limit, or a fake clock), the stop
button gives a neutral verdict, and what is returned is read with a clear message when it is not
what the drill asks for."""
import math
import signal
import textwrap
import time

import numpy as np
import pytest

from posenc.exercises.drill import (DRILL_PROMPT, INTERRUPTED, READ_ONLY_HINT, TimeLimitExceeded, is_stub,
                                    reader_lines, run_drill, time_limit)
from posenc.exercises.drills.rope import ROPE_INTERLEAVED, check_drill_rope_interleaved


def rope_loops(x, positions, base=10000.0):
    """RoPE, interleaved pairs, written as plain loops over rows and pairs (any leading axes)."""
    x = np.asarray(x, dtype=float)
    out = x.copy()
    d = x.shape[-1]
    for lead in np.ndindex(*x.shape[:-2]):
        for r, pos in enumerate(positions):
            for i in range(d // 2):
                a = pos * base ** (-2 * i / d)
                x0, x1 = x[lead + (r, 2 * i)], x[lead + (r, 2 * i + 1)]
                out[lead + (r, 2 * i)] = x0 * math.cos(a) - x1 * math.sin(a)
                out[lead + (r, 2 * i + 1)] = x0 * math.sin(a) + x1 * math.cos(a)
    return out


def defined(source: str, name: str = "rope_interleaved"):
    """A function defined by exec'd source (no file behind it: inspect cannot read it)."""
    namespace = {"np": np, "math": math, "time": time}
    exec(compile(textwrap.dedent(source), "<string>", "exec"), namespace)
    return namespace[name]


# ---------------------------------------------------------------------------
# Not written yet: the neutral prompt
# ---------------------------------------------------------------------------
def stub_raise(x, positions, base=10000.0):
    """x: (..., seq_len, d) -> the rotated x."""
    raise NotImplementedError  # your code


def stub_ellipsis(x, positions, base=10000.0):
    ...


def stub_pass(x, positions, base=10000.0):
    pass


@pytest.mark.parametrize("fn", [stub_raise, stub_ellipsis, stub_pass, None,
                                defined("def rope_interleaved(x, positions, base=10000.0):\n    pass\n"),
                                defined("def rope_interleaved(x, positions, base=10000.0):\n"
                                        "    raise NotImplementedError('your code')\n")],
                         ids=["raise", "ellipsis", "pass", "None", "pass-no-source", "raise-no-source"])
def test_an_unfinished_drill_gets_the_neutral_prompt(fn):
    verdict = check_drill_rope_interleaved(fn)
    assert verdict.pending and not verdict and verdict.kind == "pending"
    assert verdict.message == (DRILL_PROMPT if fn is not None else verdict.message)
    assert "再想想" not in repr(verdict) + verdict._repr_html_()


def test_stubs_are_read_from_source_and_a_real_body_is_not_a_stub():
    assert is_stub(stub_raise) and is_stub(stub_ellipsis) and is_stub(stub_pass)
    assert not is_stub(rope_loops)
    assert not is_stub(defined("def rope_interleaved(x, positions, base=10000.0):\n    return x\n"))


def test_a_body_that_forgets_return_is_told_so_not_prompted():
    def forgets(x, positions, base=10000.0):
        out = rope_loops(x, positions, base)      # noqa: F841 (the slip: no return)

    verdict = check_drill_rope_interleaved(forgets)
    assert not verdict.pending and "返回了 None" in verdict.message and "return" in verdict.message


def test_not_a_function_is_refused_with_what_to_pass():
    verdict = check_drill_rope_interleaved(rope_loops(np.ones((2, 2)), [0, 1]))
    assert not verdict and not verdict.pending and verdict.kind == "refused"
    assert "不要加括号" in verdict.message and "ndarray" in verdict.message


# ---------------------------------------------------------------------------
# The reader's own lines, not the checker's
# ---------------------------------------------------------------------------
def test_an_exception_shows_the_readers_line_and_not_the_checkers():
    def broken(x, positions, base=10000.0):
        angles = np.asarray(positions)[:, None] * np.ones(x.shape[-1] + 1)
        return np.concatenate([x, angles], axis=0)      # the reader's bug, raised inside numpy

    verdict = check_drill_rope_interleaved(broken)
    assert verdict.kind == "error" and not verdict.pending
    assert "ValueError" in verdict.message
    assert "broken 第" in verdict.message and "return np.concatenate([x, angles], axis=0)" in verdict.message
    assert "drill.py" not in verdict.message and "posenc" not in verdict.message
    lines = verdict.message.split("\n")[1:]
    assert len(lines) == 1 and lines[0].startswith("broken 第")          # no frame of numpy's own files


def test_an_exception_in_a_helper_shows_both_of_the_readers_frames():
    def helper(x):
        return x[..., 0::2] @ x                           # shapes do not fit

    def calls_a_helper(x, positions, base=10000.0):
        return helper(x)

    lines = check_drill_rope_interleaved(calls_a_helper).message.split("\n")[1:]
    assert lines[0].startswith("calls_a_helper 第") and "return helper(x)" in lines[0]
    assert lines[1].startswith("helper 第") and "x[..., 0::2] @ x" in lines[1]


def test_an_exception_without_a_source_file_still_names_the_line_number():
    fn = defined("def rope_interleaved(x, positions, base=10000.0):\n    y = 1\n    return x[99]\n")
    verdict = check_drill_rope_interleaved(fn)
    assert "IndexError" in verdict.message and "rope_interleaved 第 3 行" in verdict.message


def test_a_call_with_the_wrong_arguments_says_the_signature():
    def two_arguments(x, positions):
        return rope_loops(x, positions)

    verdict = check_drill_rope_interleaved(two_arguments)
    assert "TypeError" in verdict.message and "rope_interleaved(x, positions, base=10000.0)" in verdict.message


def test_writing_into_an_input_is_refused_with_a_hint():
    def in_place(x, positions, base=10000.0):
        x[..., 0] = 0.0
        return x

    verdict = check_drill_rope_interleaved(in_place)
    assert verdict.kind == "error" and READ_ONLY_HINT in verdict.message and "x[..., 0] = 0.0" in verdict.message


def test_reader_lines_leave_out_library_frames():
    import posenc_lib as pl

    def calls_the_library():
        return pl.sinusoidal_encoding(0, 4)

    with pytest.raises(ValueError) as info:
        calls_the_library()
    lines = reader_lines(info.value)
    assert lines[-1].startswith("calls_the_library 第") and "pl.sinusoidal_encoding(0, 4)" in lines[-1]
    assert not any("check_int" in line or "validate" in line for line in lines)


# ---------------------------------------------------------------------------
# A slow or endless function cannot hang the check
# ---------------------------------------------------------------------------
def endless(x, positions, base=10000.0):
    while True:
        try:
            pass
        except Exception:                                  # cannot swallow the time limit
            pass


def test_an_endless_function_is_stopped_by_the_alarm_with_a_clear_message():
    before = signal.getsignal(signal.SIGALRM)
    verdict = check_drill_rope_interleaved(endless, time_limit=0.05)
    assert verdict.kind == "timeout" and not verdict and not verdict.pending
    assert "0.05 秒还没结束" in verdict.message and "死循环" in verdict.message
    assert signal.getsignal(signal.SIGALRM) is before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_sleeping_function_is_stopped_too():
    def sleeps(x, positions, base=10000.0):
        time.sleep(3600)

    assert check_drill_rope_interleaved(sleeps, time_limit=0.05).kind == "timeout"


class FakeClock:
    """A clock that moves one second each time it is read."""

    def __init__(self):
        self.now, self.reads = 0.0, 0

    def __call__(self):
        self.reads += 1
        self.now += 1.0
        return self.now


def test_the_trace_limit_stops_an_endless_loop_on_a_fake_clock():
    clock = FakeClock()
    verdict = run_drill(ROPE_INTERLEAVED, endless, time_limit_s=10.0, clock=clock)
    assert verdict.kind == "timeout" and "10 秒" in verdict.message
    assert 10 <= clock.reads <= 12          # stopped as soon as the fake clock passed the limit


def test_the_trace_limit_lets_a_quick_function_finish_and_restores_tracing():
    import sys

    clock = FakeClock()
    before = sys.gettrace()
    with time_limit(1000.0, clock=clock):
        total = sum(range(10))
    assert total == 45 and sys.gettrace() is before
    with pytest.raises(TimeLimitExceeded):
        with time_limit(3.0, clock=FakeClock()):
            endless(None, None)


def test_the_stop_button_gives_a_neutral_verdict():
    def interrupted(x, positions, base=10000.0):
        raise KeyboardInterrupt

    verdict = check_drill_rope_interleaved(interrupted)
    assert verdict.pending and verdict.message == INTERRUPTED


# ---------------------------------------------------------------------------
# Reading what comes back
# ---------------------------------------------------------------------------
def test_a_wrong_shape_says_the_expected_shape():
    verdict = check_drill_rope_interleaved(lambda x, positions, base=10000.0: rope_loops(x, positions, base).T)
    assert verdict.kind == "wrong" and "形状是 (4, 3)，应为 (3, 4)" in verdict.message


def test_a_tuple_where_one_array_is_asked_for_is_told():
    verdict = check_drill_rope_interleaved(lambda x, positions, base=10000.0: (x, x))
    assert "应返回一个数组" in verdict.message and "2 个值" in verdict.message


def test_a_tensor_like_result_is_read_through_numpy():
    class Tensor:                                   # what torch.Tensor offers, without importing torch
        def __init__(self, a):
            self.a = a

        def detach(self):
            return self

        def cpu(self):
            return self

        def numpy(self):
            return self.a

    assert check_drill_rope_interleaved(lambda x, positions, base=10000.0: Tensor(rope_loops(x, positions, base)))


def test_the_right_function_is_right_and_says_on_what():
    verdict = check_drill_rope_interleaved(rope_loops)
    assert verdict and verdict.kind == "right"
    assert "5 组输入" in verdict.message and "(2, 4, 6)" in verdict.message and "pl.rope" in verdict.message


def test_a_wrong_function_without_a_named_slip_shows_numbers_and_the_hint():
    verdict = check_drill_rope_interleaved(lambda x, positions, base=10000.0: rope_loops(x, positions, base) * 2)
    assert verdict.kind == "wrong" and "与 pl.rope 的结果不一致" in verdict.message
    assert "逐项核对" in verdict.message and "应为" in verdict.message


def test_several_lines_keep_their_breaks_in_html():
    verdict = check_drill_rope_interleaved(lambda x, positions, base=10000.0: x[99])
    assert "\n" in verdict.message and "white-space:pre-line" in verdict._repr_html_()
