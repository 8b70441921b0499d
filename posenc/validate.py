"""Argument checks shared by every public function: each names the parameter, the allowed
range, and says it again in Chinese.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

#: Largest table (seq_len * d_model numbers) a function will build: 2**26 float64
#: values = 512 MiB. Anything larger is refused instead of killing the kernel.
MAX_TABLE_ELEMENTS = 2**26
LAYOUTS = ("interleaved", "split")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    if not _is_int(value):
        raise TypeError(
            f"{name} must be an integer, got {value!r} ({type(value).__name__}) / "
            f"{name} 必须是整数，收到的是 {value!r}"
        )
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        allowed = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(
            f"{name} must be {allowed}, got {value} / {name} 必须 {allowed}，收到的是 {value}"
        )
    return value


def _check_d_model(d_model) -> int:
    d_model = _check_int("d_model", d_model, 1)
    if d_model % 2:
        raise ValueError(
            f"d_model must be a positive even integer (each sin/cos pair needs two columns), "
            f"got {d_model} / d_model 必须是正偶数（每对 sin/cos 占两列），收到的是 {d_model}"
        )
    return d_model


def _check_real(name: str, value, *, greater_than: float | None = None) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} / {name} 必须是实数，收到的是 {value!r}"
        )
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value} / {name} 必须是有限数，收到的是 {value}")
    if greater_than is not None and value <= greater_than:
        raise ValueError(
            f"{name} must be > {greater_than:g}, got {value:g} / {name} 必须大于 {greater_than:g}，"
            f"收到的是 {value:g}"
        )
    return value


def _check_base(base) -> float:
    return _check_real("base", base, greater_than=1.0)


def _check_layout(layout) -> str:
    if layout not in LAYOUTS:
        raise ValueError(
            f"layout must be one of {LAYOUTS}, got {layout!r} / layout 只能是 {LAYOUTS} 之一，"
            f"收到的是 {layout!r}"
        )
    return layout


def _check_array(name: str, value, ndim: int | None = None, *, masked: bool = False) -> np.ndarray:
    """A float array; NaN and inf are refused (with ``masked``, -inf is allowed: a mask)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers / {name} 必须是数值数组: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(
            f"{name} must be a {ndim}-D array, got shape {arr.shape} / {name} 必须是 {ndim} 维数组，"
            f"收到的形状是 {arr.shape}"
        )
    ok = np.isfinite(arr) | (np.isneginf(arr) if masked else False)
    if not np.all(ok):
        what = "NaN or +inf" if masked else "NaN or inf"
        raise ValueError(f"{name} contains {what} / {name} 含有 {what}")
    return arr


def _check_table_size(seq_len: int, d_model: int) -> None:
    if seq_len * d_model > MAX_TABLE_ELEMENTS:
        raise ValueError(
            f"seq_len * d_model = {seq_len} * {d_model} = {seq_len * d_model:,} numbers is too "
            f"large (limit {MAX_TABLE_ELEMENTS:,}, about 512 MiB) / 表太大：seq_len × d_model = "
            f"{seq_len * d_model:,}，超过上限 {MAX_TABLE_ELEMENTS:,}（约 512 MiB）"
        )


def _check_positions(positions) -> np.ndarray:
    arr = _check_array("positions", positions)
    if arr.ndim != 1:
        raise ValueError(
            f"positions must be a 1-D sequence, got shape {arr.shape} / positions 必须是一维序列"
        )
    return arr


def _check_tokens(tokens) -> tuple[str, ...]:
    if isinstance(tokens, str):
        tokens = tuple(tokens)
    try:
        tokens = tuple(tokens)
    except TypeError:
        raise TypeError("tokens must be a string or a sequence of strings / tokens 必须是字符串或字符串序列") from None
    if not tokens:
        raise ValueError("tokens must not be empty / tokens 不能为空")
    for t in tokens:
        if not isinstance(t, str) or not t:
            raise TypeError(f"every token must be a non-empty string, got {t!r} / 每个词必须是非空字符串")
    return tokens


class PositionLimitError(IndexError):
    """A position table was asked for a position it has no row for."""


def _check_position_limit(seq_len: int, max_len: int, *, learned: bool) -> None:
    """Raise PositionLimitError when a table of ``max_len`` rows is asked for ``seq_len``."""
    if seq_len <= max_len:
        return
    if learned:
        raise PositionLimitError(
            f"sequence length {seq_len} exceeds max_len={max_len}: the learned table has rows for "
            f"positions 0..{max_len - 1} only (like GPT-2's n_positions = 1024) / 序列长度 {seq_len} "
            f"超过 max_len = {max_len}：可学习位置表只有位置 0..{max_len - 1} 的行")
    raise PositionLimitError(
        f"sequence length {seq_len} exceeds max_len={max_len}; build the module with a larger "
        f"max_len (the formula itself has no limit) / 序列长度 {seq_len} 超过 max_len = {max_len}")
