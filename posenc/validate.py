"""The argument checks every public function and explorer shares: each returns the value it
checked (converted: ``int``, ``float``, an array) or raises an error that names the parameter
and the allowed range, in English and again in Chinese (``"... / ..."``, built by :func:`bilingual`).

The vocabulary: numbers (:func:`check_int`, :func:`check_real`, :func:`check_base`,
:func:`check_d_model`, :func:`check_bool`, :func:`check_one_of`), what a slider can show
(:func:`check_slider_value`: every explorer checks its arguments with these), arrays
(:func:`check_array`, :func:`check_positions`, :func:`check_int_array`, :func:`check_matrix`,
:func:`check_vector`, :func:`check_vector_pair`, :func:`check_qkv`, :func:`check_position_list`,
:func:`check_projections`, :func:`check_table_size`), text (:func:`check_tokens`), the 谁咬谁
task's length ranges (:func:`check_lengths`) and RoPE scaling (:func:`check_factor`,
:func:`check_betas`).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

#: Largest table (seq_len * d_model numbers) a function will build: 2**26 float64
#: values = 512 MiB. Anything larger is refused instead of killing the kernel.
MAX_TABLE_ELEMENTS = 2**26


def bilingual(en: str, zh: str) -> str:
    """An error message said twice, ``"English / 中文"``: every error a reader can meet is built by
    this one function, so the two halves stay apart (tests/test_error_messages.py checks the
    Chinese half of each)."""
    return f"{en} / {zh}"


def is_int(value) -> bool:
    """Is ``value`` an integer of any kind (Python or numpy), and not a bool?"""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _range_text(minimum, maximum, fmt: str = "") -> tuple[str, str]:
    """The allowed range in English and in Chinese, e.g. ("in [1, 5]", "必须在 [1, 5] 之间")."""
    lo = None if minimum is None else format(minimum, fmt)
    hi = None if maximum is None else format(maximum, fmt)
    if hi is None:
        return f">= {lo}", f"必须不小于 {lo}"
    if lo is None:
        return f"<= {hi}", f"不能大于 {hi}"
    return f"in [{lo}, {hi}]", f"必须在 [{lo}, {hi}] 之间"


def check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    """An integer (Python or numpy, not a bool) in ``[minimum, maximum]``, as an ``int``."""
    if not is_int(value):
        raise TypeError(bilingual(
            f"{name} must be an integer, got {value!r} ({type(value).__name__})",
            f"{name} 必须是整数，收到的是 {value!r}"
        ))
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        en, zh = _range_text(minimum, maximum)
        raise ValueError(bilingual(f"{name} must be {en}, got {value}", f"{name} {zh}，收到的是 {value}"))
    return value


def check_real(name: str, value, *, greater_than: float | None = None, minimum: float | None = None,
               maximum: float | None = None) -> float:
    """A finite real number (not a bool), as a ``float``: ``> greater_than`` and in
    ``[minimum, maximum]`` when those are given."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(bilingual(
            f"{name} must be a real number, got {value!r}", f"{name} 必须是实数，收到的是 {value!r}"
        ))
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(bilingual(f"{name} must be finite, got {value}", f"{name} 必须是有限数，收到的是 {value}"))
    if greater_than is not None and value <= greater_than:
        raise ValueError(bilingual(
            f"{name} must be > {greater_than:g}, got {value:g}",
            f"{name} 必须大于 {greater_than:g}，"
            f"收到的是 {value:g}"
        ))
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        en, zh = _range_text(minimum, maximum, "g")
        raise ValueError(bilingual(f"{name} must be {en}, got {value:g}", f"{name} {zh}，收到的是 {value:g}"))
    return value


def check_base(base, minimum: float | None = None, maximum: float | None = None) -> float:
    """The frequency base: a real number > 1 (and in ``[minimum, maximum]`` when given)."""
    base = check_real("base", base, greater_than=1.0)
    return check_real("base", base, minimum=minimum, maximum=maximum)


def check_d_model(d_model, maximum: int | None = None) -> int:
    """A positive even integer (each sin/cos pair needs two columns), at most ``maximum``."""
    d_model = check_int("d_model", d_model, 1, maximum)
    if d_model % 2:
        raise ValueError(bilingual(
            f"d_model must be a positive even integer (each sin/cos pair needs two columns), "
            f"got {d_model}",
            f"d_model 必须是正偶数（每对 sin/cos 占两列），收到的是 {d_model}"
        ))
    return d_model


def check_slider_value(name: str, value, minimum, maximum, step):
    """A value a slider from ``minimum`` to ``maximum`` in steps of ``step`` can show: an
    ``int`` when all three are integers, else a ``float`` on that grid."""
    if all(is_int(x) for x in (minimum, maximum, step)):
        value = check_int(name, value, minimum, maximum)
    else:
        value = check_real(name, value, minimum=minimum, maximum=maximum)
    k = (value - minimum) / step
    if abs(k - round(k)) > 1e-9:
        grid = f"{minimum:g}, {minimum + step:g}, ..., {maximum:g}"
        raise ValueError(bilingual(f"{name} must be one of {grid} (steps of {step:g}), got {value:g}",
                                   f"{name} 只能取 {grid} 中的值（步长 {step:g}），收到的是 {value:g}"))
    return value


def check_bool(name: str, value) -> bool:
    """True or False (a Python or numpy bool; 0 and 1 are refused), as a ``bool``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(bilingual(f"{name} must be True or False, got {value!r}",
                                  f"{name} 必须是 True 或 False，"
                                  f"收到的是 {value!r}"))
    return bool(value)


def check_one_of(name: str, value, allowed):
    """One of the values in ``allowed`` (a tuple of keywords or numbers), returned unchanged."""
    allowed = tuple(allowed)
    try:
        if all(is_int(a) for a in allowed):
            ok = is_int(value) and value in allowed          # 4.0 or True is not the integer option 4 / 1
        else:
            ok = not isinstance(value, (bool, np.bool_)) and value in allowed
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(bilingual(f"{name} must be one of {allowed}, got {value!r}",
                                   f"{name} 只能是 {allowed} 之一，"
                                   f"收到的是 {value!r}"))
    return value


def check_array(name: str, value, ndim: int | None = None, *, masked: bool = False) -> np.ndarray:
    """A float array; NaN and inf are refused (with ``masked``, -inf is allowed: a mask)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(bilingual(f"{name} must be an array of numbers ({exc})", f"{name} 必须是数值数组")) from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(bilingual(
            f"{name} must be a {ndim}-D array, got shape {arr.shape}",
            f"{name} 必须是 {ndim} 维数组，"
            f"收到的形状是 {arr.shape}"
        ))
    ok = np.isfinite(arr) | (np.isneginf(arr) if masked else False)
    if not np.all(ok):
        what, zh = ("NaN or +inf", "NaN 或 +inf") if masked else ("NaN or inf", "NaN 或 inf")
        raise ValueError(bilingual(f"{name} contains {what}", f"{name} 含有 {zh}"))
    return arr


def check_table_size(seq_len: int, d_model: int) -> None:
    """Refuse a table of more than :data:`MAX_TABLE_ELEMENTS` numbers."""
    if seq_len * d_model > MAX_TABLE_ELEMENTS:
        raise ValueError(bilingual(
            f"seq_len * d_model = {seq_len} * {d_model} = {seq_len * d_model:,} numbers is too "
            f"large (limit {MAX_TABLE_ELEMENTS:,}, about 512 MiB)",
            "表太大：seq_len × d_model = "
            f"{seq_len * d_model:,}，超过上限 {MAX_TABLE_ELEMENTS:,}（约 512 MiB）"
        ))


def check_positions(positions, name: str = "positions") -> np.ndarray:
    """A 1-D sequence of finite positions (any real numbers), as a float array."""
    arr = check_array(name, positions)
    if arr.ndim != 1:
        raise ValueError(bilingual(
            f"{name} must be a 1-D sequence, got shape {arr.shape}", f"{name} 必须是一维序列"
        ))
    return arr


def check_int_array(name: str, value) -> np.ndarray:
    """Whole numbers (an int, or an array / list of ints) as an int64 array."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(bilingual(f"{name} must be integers, got {value!r}", f"{name} 必须是整数，收到的是 {value!r}"))
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(bilingual(f"{name} must be integers (offsets k = n - m), got dtype {arr.dtype}",
                                  f"{name} 必须是整数（偏移 k = n − m），收到的类型是 {arr.dtype}"))
    return arr.astype(np.int64)


def check_matrix(name: str, value, rows: int | None = None, cols: int | None = None) -> np.ndarray:
    """A non-empty 2-D float array, with ``rows`` rows and ``cols`` columns when given."""
    arr = check_array(name, value, ndim=2)
    if (rows is not None and arr.shape[0] != rows) or (cols is not None and arr.shape[1] != cols):
        want = f"({'any' if rows is None else rows}, {'any' if cols is None else cols})"
        want_zh = f"({'任意' if rows is None else rows}, {'任意' if cols is None else cols})"
        raise ValueError(bilingual(f"{name} must have shape {want}, got {arr.shape}",
                                   f"{name} 的形状必须是 {want_zh}，"
                                   f"收到的是 {arr.shape}"))
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(bilingual(f"{name} must not be empty, got shape {arr.shape}", f"{name} 不能为空"))
    return arr


def check_qkv(q, key, value) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries, keys and values of one shape ``(seq_len, d)``, one row per token, as float arrays."""
    q, key, value = (check_array(name, a, ndim=2) for name, a in (("q", q), ("key", key), ("value", value)))
    if not q.shape == key.shape == value.shape:
        raise ValueError(bilingual(f"q, key and value must have one shape (seq_len, d), got {q.shape}, {key.shape}, "
                                   f"{value.shape}",
                                   "q、key、value 的形状必须相同"))
    return q, key, value


def check_vector(name: str, value, length: int) -> np.ndarray:
    """A 1-D float array of ``length`` entries."""
    arr = check_array(name, value, ndim=1)
    if len(arr) != length:
        raise ValueError(bilingual(f"{name} must have length {length}, got {len(arr)}",
                                   f"{name} 的长度必须是 {length}，"
                                   f"收到的是 {len(arr)}"))
    return arr


def check_vector_pair(q, key, names=("q", "key")) -> tuple[np.ndarray, np.ndarray]:
    """Two 1-D float arrays of the same even length (a query and a key vector)."""
    q = check_array(names[0], q, ndim=1)
    key = check_array(names[1], key, ndim=1)
    if q.shape != key.shape:
        raise ValueError(bilingual(f"{names[0]} and {names[1]} must have the same length, got {len(q)} and "
                                   f"{len(key)}",
                                   f"{names[0]} 与 {names[1]} 的长度必须相同"))
    check_d_model(len(q))
    return q, key


def check_position_list(name: str, value, length: int) -> np.ndarray:
    """``length`` integer positions as an int64 array (None: 0 .. length-1)."""
    if value is None:
        return np.arange(length)
    arr = check_int_array(name, value)
    if arr.ndim != 1 or len(arr) != length:
        raise ValueError(bilingual(f"{name} must be {length} integer positions, got shape {arr.shape}",
                                   f"{name} 必须是 {length} 个整数位置"))
    return arr


def _check_projection(name: str, w, d_model: int):
    if w is None:
        return None
    w = check_array(name, w, ndim=2)
    if w.shape[0] != d_model:
        raise ValueError(bilingual(
            f"{name} must have d_model = {d_model} rows, got shape {w.shape}",
            f"{name} 的行数必须是 "
            f"d_model = {d_model}"
        ))
    return w


def check_projections(d_model: int, w_q, w_k) -> tuple:
    """Both projections ``w_q``, ``w_k`` as ``(d_model, d_k)`` arrays of one shape, or both None."""
    w_q, w_k = _check_projection("w_q", w_q, d_model), _check_projection("w_k", w_k, d_model)
    if (w_q is None) != (w_k is None) or (w_q is not None and w_q.shape != w_k.shape):
        raise ValueError(bilingual("give both w_q and w_k with the same shape, or neither",
                                   "w_q 与 w_k 要么都给（形状相同），要么都不给"))
    return w_q, w_k


def check_tokens(tokens) -> tuple[str, ...]:
    """A string (one token per character) or a sequence of non-empty strings, as a tuple."""
    if isinstance(tokens, str):
        tokens = tuple(tokens)
    try:
        tokens = tuple(tokens)
    except TypeError:
        raise TypeError(bilingual("tokens must be a string or a sequence of strings", "tokens 必须是字符串或字符串序列")) from None
    if not tokens:
        raise ValueError(bilingual("tokens must not be empty", "tokens 不能为空"))
    for t in tokens:
        if not isinstance(t, str) or not t:
            raise TypeError(bilingual(f"every token must be a non-empty string, got {t!r}", "每个词必须是非空字符串"))
    return tokens


def check_callback(name: str, value, signature: str):
    """None or a callable (``signature`` says how it is called, e.g. ``"(step, loss)"``)."""
    if value is not None and not callable(value):
        raise TypeError(bilingual(f"{name} must be a function {name}{signature} or None, got {value!r}",
                                  f"{name} 必须是可调用的函数 {name}{signature} 或 None，收到的是 {value!r}"))
    return value


def check_rows(rows, keys, produced_by: str) -> list:
    """The rows a table function returned: a non-empty list of dicts that have ``keys``."""
    try:
        rows = list(rows)
    except TypeError:
        raise TypeError(bilingual(f"rows must be the list returned by {produced_by}",
                                  "rows 必须是 "
                                  f"{produced_by} 返回的列表")) from None
    if not rows or not all(isinstance(r, dict) and set(keys) <= set(r) for r in rows):
        raise ValueError(bilingual(f"rows must be the non-empty list returned by {produced_by}",
                                   "rows 必须是 "
                                   f"{produced_by} 返回的非空列表"))
    return rows


def check_lengths(name: str, lengths, min_length: int, max_length: int) -> tuple[int, int]:
    """A ``(lo, hi)`` pair of sentence lengths with ``min_length <= lo <= hi <= max_length``."""
    if not isinstance(lengths, (tuple, list)) or len(lengths) != 2:
        raise ValueError(bilingual(f"{name} must be a pair of integers (lo, hi), got {lengths!r}",
                                   f"{name} 必须是整数对 (lo, hi)"))
    lo = check_int(f"{name}[0]", lengths[0], min_length, max_length)
    hi = check_int(f"{name}[1]", lengths[1], lo, max_length)
    return lo, hi


def check_factor(factor, name: str = "factor") -> float:
    """RoPE's context-extension factor s = L' / L: a real number >= 1.

    s < 1 would ask for a target context shorter than the training one: there is nothing to
    extend, so it is refused rather than silently speeding the pairs up.
    """
    factor = check_real(name, factor)
    if factor < 1.0:
        raise ValueError(bilingual(f"{name} must be >= 1 (s = target length / training length stretches the "
                                   f"context; a shorter target needs no scaling), got {factor:g}",
                                   f"{name} 必须不小于 1（s = 目标长度 / 训练长度，是把上下文拉长的倍数；"
                                   f"目标比训练短时不需要缩放），收到的是 {factor:g}"))
    return factor


def check_betas(beta_fast, beta_slow) -> tuple[float, float]:
    """YaRN's two thresholds (turns in the training context), ``0 < beta_slow < beta_fast``."""
    beta_fast = check_real("beta_fast", beta_fast, greater_than=0.0)
    beta_slow = check_real("beta_slow", beta_slow, greater_than=0.0)
    if beta_slow >= beta_fast:
        raise ValueError(bilingual(f"beta_slow ({beta_slow:g}) must be smaller than beta_fast ({beta_fast:g})",
                                   "beta_slow 必须小于 beta_fast"))
    return beta_fast, beta_slow
