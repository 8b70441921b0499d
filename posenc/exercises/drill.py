"""Drills: the reader writes a function, the check runs it and names the slip.

A :class:`Drill` declares the function a reader writes (its name and call signature), the inputs
it is run on (:attr:`Drill.cases`: several shapes, from a seeded generator), the library's own
implementation it is held against (:attr:`Drill.reference`; the test suite holds the library
against the real libraries' code where a peer exists), the known-wrong implementations declared
beside it (:class:`Slip`) and how a difference is shown in numbers (:attr:`Drill.where`).
:func:`run_drill` grades a function, case by case:

1. ``None`` or an unfinished stub (a body of ``...``, ``pass`` or ``raise NotImplementedError``)
   gets the neutral prompt (a pending :class:`~posenc.exercises.verdict.Verdict`); something
   that is not a function is refused.
2. The function is called with read-only copies of the case's inputs, positionally, under a
   time limit (:func:`time_limit`). An exception shows the reader's own traceback lines (frames
   of the library, the standard library and installed packages are left out); the time limit
   or the kernel's stop button (KeyboardInterrupt) stops it with a clear message.
3. Its output is compared with the reference's. When they differ, each declared slip runs on
   the same inputs; one that agrees with the reader's output is named, with the numbers that
   show it (``where``). Otherwise a wrong shape says the expected shape, and any other
   difference is shown in numbers with the drill's hint.
"""
from __future__ import annotations

import ast
import contextlib
import dis
import functools
import inspect
import math
import os
import pathlib
import signal
import sys
import textwrap
import threading
import time
import traceback
import warnings
from dataclasses import dataclass
from collections.abc import Callable

import numpy as np

from .verdict import Verdict

#: Seconds one call of the reader's function may take. The inputs are tiny: a right function,
#: even written as plain Python loops, needs milliseconds.
TIME_LIMIT_S = 5.0
#: What an unfinished drill shows (neutral: no verdict, no hint).
DRILL_PROMPT = "把函数体写完（删掉 raise NotImplementedError），再运行这个单元格。"
#: What a check stopped by the kernel's stop button (KeyboardInterrupt) shows.
INTERRUPTED = "检查被中断了（停止按钮或 Ctrl-C）：这次不算。改好函数后再运行这个单元格。"
#: Added to an error raised by writing into an input: the checker passes read-only arrays.
READ_ONLY_HINT = "检查传进来的数组是只读的：函数不要改动输入，需要改时先 .copy() 一份。"


@dataclass(frozen=True)
class Slip:
    """A known-wrong implementation declared beside a drill.

    ``run`` is called like the reader's function (same arguments, in order); ``message`` says
    what it does wrong and what is right; ``name`` is a short stable name (tests and docs).
    """

    name: str
    run: Callable
    message: str


@dataclass(frozen=True)
class Drill:
    """One function to write, as data (see the module docstring for how it is graded).

    ``cases(rng)`` returns the inputs: a list of dicts, argument name -> value, in call order.
    ``reference`` is the library's implementation, called like the reader's function.
    ``outputs`` names the values returned when there are several (a tuple), else ``()``.
    ``where(case, got, expected)`` describes the first difference in numbers (both already
    normalised and of the expected shapes). ``graded(case)`` (optional) marks which elements of
    the first output count (the others, e.g. padding, are free). ``ok`` is added to the right
    verdict's message. The minutes an interview allows are declared with the drill's id
    (:mod:`posenc.course.catalogue`).
    """

    name: str
    signature: str
    reference: Callable
    reference_name: str
    cases: Callable
    slips: tuple = ()
    outputs: tuple = ()
    where: Callable | None = None
    hint: str = ""
    graded: Callable | None = None
    seed: int = 0
    ok: str = ""

    def inputs(self) -> list[dict]:
        """The cases, from the drill's seeded generator (the same every run)."""
        return self.cases(np.random.default_rng(self.seed))


# ---------------------------------------------------------------------------
# Stopping a function that runs too long
# ---------------------------------------------------------------------------
class TimeLimitExceeded(BaseException):
    """Raised inside the reader's function when its time is up (a BaseException, so that an
    ``except Exception`` in the reader's code cannot swallow it)."""


def _signals_usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def time_limit(seconds: float, clock: Callable | None = None):
    """Stop the code in the ``with`` block after ``seconds`` by raising :class:`TimeLimitExceeded`.

    In the main thread of a POSIX process, without a ``clock``: a real-time alarm (``SIGALRM``
    by ``setitimer``), which also interrupts ``time.sleep`` and returns after a long numpy call.
    Otherwise (another thread, Windows, or a ``clock`` given, as tests give a fake one): a trace
    function that reads ``clock()`` on every line of Python code run inside the block.
    """
    if clock is None and _signals_usable():
        def alarm(signum, frame):
            raise TimeLimitExceeded

        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    clock = clock or time.monotonic
    end = clock() + seconds

    def tracer(frame, event, arg):
        if clock() > end:
            raise TimeLimitExceeded
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


# ---------------------------------------------------------------------------
# Reading the reader's function: stubs, tracebacks
# ---------------------------------------------------------------------------
def _is_placeholder(node) -> bool:
    """``pass``, ``...``, a docstring or ``raise NotImplementedError(...)``."""
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
            (node.value.value is Ellipsis or isinstance(node.value.value, str)):
        return True
    if isinstance(node, ast.Raise) and node.exc is not None:
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def is_stub(fn) -> bool:
    """Is ``fn`` unfinished: a body of only a docstring, ``pass``, ``...`` or ``raise
    NotImplementedError``? Read from its source (IPython keeps a cell's source); without a source,
    from its bytecode (nothing but ``return None``)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        tree = None
    if tree is not None and tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return all(_is_placeholder(node) for node in tree.body[0].body)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    trivial = {"RESUME", "NOP", "RETURN_CONST", "RETURN_VALUE", "LOAD_CONST"}
    ops = list(dis.get_instructions(code))
    return all(op.opname in trivial for op in ops) and \
        all(op.argval is None for op in ops if op.opname in ("LOAD_CONST", "RETURN_CONST"))


_LIBRARY = pathlib.Path(__file__).resolve().parents[1]


@functools.cache
def _installed() -> tuple:
    """Where the standard library and installed packages live (read on first use: sysconfig loads
    a module of its own)."""
    import sysconfig

    return tuple({os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                  if (p := sysconfig.get_paths().get(key))})


def _is_readers(filename: str) -> bool:
    """A traceback frame of the reader's code: not the library's, not the standard library's,
    not an installed package's (numpy's own frames say nothing about the reader's line)."""
    if filename.startswith("<"):                     # <string>, <stdin>: exec'd code is the reader's
        return not filename.startswith("<frozen")
    path = os.path.realpath(filename)
    return not (path.startswith(str(_LIBRARY) + os.sep) or any(path.startswith(p + os.sep) for p in _installed()))


def reader_lines(exc: BaseException, limit: int = 3) -> list[str]:
    """The last ``limit`` frames of ``exc``'s traceback that are the reader's own code, as
    「函数名 第 N 行：源代码」 (N counts from the top of the cell or file)."""
    out = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if _is_readers(frame.filename):
            line = (frame.line or "").strip()
            out.append(f"{frame.name} 第 {frame.lineno} 行" + (f"：{line}" if line else ""))
    return out[-limit:]


def _raised_by(exc: BaseException, fn) -> bool:
    """Was ``exc`` raised in ``fn``'s own frame (its last traceback frame runs ``fn``'s code)?"""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code is getattr(fn, "__code__", None)


# ---------------------------------------------------------------------------
# Values: copies, normalising, agreeing, describing
# ---------------------------------------------------------------------------
def _copy(value, read_only: bool = False):
    if isinstance(value, np.ndarray):
        out = value.copy()
        if read_only:
            out.setflags(write=False)
        return out
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _array(value):
    """A returned value as a numpy array (a torch tensor too, without importing torch), or None."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach().cpu().numpy()
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        return None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        return None
    return arr


def _normalise(drill: Drill, value):
    """``(arrays, problem)``: the returned value as a tuple of arrays, or a message why not."""
    if drill.outputs:
        n = len(drill.outputs)
        names = "、".join(drill.outputs)
        if not isinstance(value, (tuple, list)) or len(value) != n:
            got = f"{len(value)} 个值" if isinstance(value, (tuple, list)) else f"一个 {type(value).__name__}"
            return None, f"应返回 {n} 个值 ({names})，你的函数返回了{got}。"
        arrays = tuple(_array(v) for v in value)
        for name, arr, v in zip(drill.outputs, arrays, value):
            if arr is None:
                return None, f"返回值 {name} 应是数组或数，你的函数给的是 {type(v).__name__}。"
        return arrays, None
    if isinstance(value, tuple):
        return None, f"应返回一个数组，你的函数返回了 {len(value)} 个值（一个 tuple）。"
    arr = _array(value)
    if arr is None:
        return None, f"应返回一个数组，你的函数返回的是 {type(value).__name__}。"
    return (arr,), None


def _tolerance(case: dict) -> tuple[float, float]:
    """(rtol, atol): looser when an input is float32 (the reader may keep float32)."""
    if any(isinstance(v, np.ndarray) and v.dtype == np.float32 for v in case.values()):
        return 1e-4, 1e-5
    return 1e-6, 1e-9


def _agree(got: tuple, expected: tuple, case: dict, graded=None) -> bool:
    rtol, atol = _tolerance(case)
    for n, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape:
            return False
        g, e = g.astype(float), e.astype(float)
        if n == 0 and graded is not None and np.shape(graded) == g.shape:
            g = np.where(graded, g, e)
        if not np.allclose(g, e, rtol=rtol, atol=atol * max(1.0, float(np.nanmax(np.abs(e), initial=0.0))),
                           equal_nan=True):
            return False
    return True


def fmt(value) -> str:
    """A number as the messages print it: whole numbers as such, else 4 significant digits."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    text = f"{value:.4g}"
    if float(text) == round(float(text)):          # 0.99995 would read as the whole number 1
        text = f"{value:.6g}"
    return text


def fmt_pair(got, expected) -> tuple[str, str]:
    """Two numbers printed with enough digits that they read differently (up to 12)."""
    for digits in range(4, 13):
        a, b = (fmt(got), fmt(expected)) if digits == 4 else (f"{float(got):.{digits}g}", f"{float(expected):.{digits}g}")
        if a != b:
            return a, b
    return a, b


def _values(arr: np.ndarray) -> str:
    return str(np.vectorize(fmt, otypes=[str])(arr).tolist()).replace("'", "")


def describe(case: dict) -> str:
    """The inputs of a case in words: small arrays by value, others by shape, scalars by value."""
    parts = []
    for name, value in case.items():
        if isinstance(value, (np.ndarray, list)):
            arr = np.asarray(value)
            if arr.size <= 12 and arr.ndim <= 2 and arr.dtype.kind in "biu":
                parts.append(f"{name} = {_values(arr)}")
            else:
                parts.append(f"{name} 的形状 {tuple(arr.shape)}" + ("，float32" if arr.dtype == np.float32 else ""))
        elif isinstance(value, (bool, np.bool_)):
            parts.append(f"{name} = {bool(value)}")
        elif isinstance(value, str):
            parts.append(f'{name} = "{value}"')
        else:
            shown = fmt(value) if isinstance(value, (int, float, np.integer, np.floating)) else repr(value)
            parts.append(f"{name} = {shown}")
    return "，".join(parts)


def first_difference(got: np.ndarray, expected: np.ndarray, case: dict, graded=None) -> tuple:
    """The index of the first element where ``got`` and ``expected`` differ (by the drill's
    tolerance)."""
    rtol, atol = _tolerance(case)
    g, e = got.astype(float), expected.astype(float)
    bad = ~np.isclose(g, e, rtol=rtol, atol=atol * max(1.0, float(np.nanmax(np.abs(e), initial=0.0))), equal_nan=True)
    if graded is not None:
        bad &= np.asarray(graded, bool)
    return tuple(int(i) for i in np.argwhere(bad)[0])


def generic_where(drill: Drill, case: dict, got: tuple, expected: tuple) -> str:
    """The first differing element of the first differing output, by index."""
    for n, (g, e) in enumerate(zip(got, expected)):
        graded = drill.graded(case) if (n == 0 and drill.graded) else None
        if not _agree((g,), (e,), case, graded):
            idx = first_difference(g, e, case, graded)
            name = drill.outputs[n] if drill.outputs else "结果"
            a, b = fmt_pair(g[idx], e[idx])
            return f"{name}[{', '.join(map(str, idx))}] 是 {a}，应为 {b}"
    return "结果不同"


# ---------------------------------------------------------------------------
# Grading
# ---------------------------------------------------------------------------
def drill_prompt(message: str = DRILL_PROMPT) -> Verdict:
    """The verdict of a drill not written yet (or a check that was interrupted): neutral."""
    return Verdict(False, message, pending=True, kind="pending")


def _wrong(message: str, kind: str = "wrong") -> Verdict:
    return Verdict(False, message, kind=kind)


def _run_slip(slip: Slip, case: dict):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return slip.run(*[_copy(v) for v in case.values()])
        except Exception:
            return None


def _error_message(drill: Drill, fn, exc: BaseException, where: str) -> str:
    lines = reader_lines(exc)
    text = f"你的函数在{where}上出错了：{type(exc).__name__}: {exc}"
    if lines:
        text += "\n" + "\n".join(lines)
    elif isinstance(exc, TypeError):
        text += f"\n检查按 {drill.signature} 的顺序传入参数。"
    if isinstance(exc, ValueError) and "read-only" in str(exc):
        text += "\n" + READ_ONLY_HINT
    return text


def run_drill(drill: Drill, fn, time_limit_s: float = TIME_LIMIT_S, clock: Callable | None = None) -> Verdict:
    """Grade the reader's function ``fn`` on the drill's cases (see the module docstring); the
    verdict declares itself a drill's (:attr:`~posenc.exercises.verdict.Verdict.drill`).

    ``time_limit_s`` bounds each call; ``clock`` (tests) makes :func:`time_limit` read a given
    clock instead of the real-time alarm.
    """
    verdict = _grade(drill, fn, time_limit_s, clock)
    verdict.drill = True
    return verdict


def _grade(drill: Drill, fn, time_limit_s: float, clock: Callable | None) -> Verdict:
    if fn is None:
        return drill_prompt()
    if not callable(fn):
        return _wrong(f"这里要传入函数本身：pl.check(…, {drill.name})，不要加括号调用它"
                      f"（你传入的是 {type(fn).__name__}）。", kind="refused")
    if is_stub(fn):
        return drill_prompt()
    try:
        cases = drill.inputs()
        for n, case in enumerate(cases, 1):
            where = f"第 {n} 组输入（{describe(case)}）"
            expected, _ = _normalise(drill, drill.reference(*[_copy(v) for v in case.values()]))
            try:
                with time_limit(time_limit_s, clock):
                    value = fn(*[_copy(v, read_only=True) for v in case.values()])
            except TimeLimitExceeded:
                return _wrong(f"在{where}上运行了 {time_limit_s:g} 秒还没结束，检查把它停下了。输入都很小，"
                              "正确的写法只要几毫秒：看看有没有死循环（while 的条件一直成立），"
                              "或者循环次数是不是随数值而不是随形状增长。", kind="timeout")
            except NotImplementedError as exc:
                if _raised_by(exc, fn):
                    return drill_prompt()
                return _wrong(_error_message(drill, fn, exc, where), kind="error")
            except Exception as exc:
                return _wrong(_error_message(drill, fn, exc, where), kind="error")
            if value is None:
                return _wrong(f"你的函数在{where}上返回了 None：最后是不是忘了 return？")
            got, problem = _normalise(drill, value)
            if problem:
                return _wrong(f"在{where}上：{problem}")
            graded = drill.graded(case) if drill.graded else None
            if _agree(got, expected, case, graded):
                continue
            show = lambda g: _where(drill, case, g, expected)
            for slip in drill.slips:
                value = _run_slip(slip, case)
                slipped, _ = _normalise(drill, value) if value is not None else (None, None)
                if slipped is not None and _agree(got, slipped, case, graded):
                    return _wrong(f"{slip.message}\n在{where}上：{show(got)}。", kind="slip")
            for k, (g, e) in enumerate(zip(got, expected)):
                if g.shape != e.shape:
                    name = f"返回值 {drill.outputs[k]} 的" if drill.outputs else "返回的"
                    return _wrong(f"在{where}上，{name}形状是 {tuple(g.shape)}，应为 {tuple(e.shape)}。")
            return _wrong(f"与 {drill.reference_name} 的结果不一致。在{where}上：{show(got)}。"
                          + (f"\n{drill.hint}" if drill.hint else ""))
    except KeyboardInterrupt:
        return drill_prompt(INTERRUPTED)
    return Verdict(True, f"{len(cases)} 组输入（{summary(cases)}）都与 {drill.reference_name} 一致。"
                   + (drill.ok or ""), kind="right")


def _where(drill: Drill, case: dict, got: tuple, expected: tuple) -> str:
    """The drill's description of the first difference; the generic one if it has none or fails
    on an odd output."""
    for n, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape:
            name = f"{drill.outputs[n]} 的" if drill.outputs else ""
            return f"{name}形状是 {tuple(g.shape)}，应为 {tuple(e.shape)}"
    if drill.where is not None:
        try:
            with np.errstate(all="ignore"):
                return drill.where(case, got, expected)
        except Exception:
            pass
    return generic_where(drill, case, got, expected)


def summary(cases: list[dict]) -> str:
    """The cases in a few words: the first argument's shape (an array) or value, case by case."""
    name = next(iter(cases[0]))
    seen = []
    for case in cases:
        value = case[name]
        if isinstance(value, list):
            text = str(value)
        else:
            text = str(tuple(np.shape(value))) if isinstance(value, np.ndarray) else fmt(value)
        if text not in seen:
            seen.append(text)
    what = f"{name} 的形状" if isinstance(cases[0][name], np.ndarray) else f"{name} ="
    return f"{what} {'、'.join(seen)}"
