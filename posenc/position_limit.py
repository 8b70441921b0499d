"""The position limit of the torch layers' tables: :class:`PositionLimitError` and its check.

It lives beside ``torch_layers.py`` and not in it because that module imports torch at the
top (its classes subclass ``nn.Module`` at module level, so models that use them pickle),
while ``posenc_lib`` exports ``PositionLimitError`` without loading torch: a notebook can
write ``except pl.PositionLimitError`` before any model exists.
"""
from __future__ import annotations

from .validate import bilingual


class PositionLimitError(IndexError):
    """A position table was asked for a position it has no row for.

    A subclass of ``IndexError`` (what ``nn.Embedding`` raises), so code that catches
    ``IndexError`` keeps working.
    """


def check_position_limit(seq_len: int, max_len: int, *, learned: bool) -> None:
    """Raise PositionLimitError when a table of ``max_len`` rows is asked for ``seq_len``."""
    if seq_len <= max_len:
        return
    if learned:
        raise PositionLimitError(bilingual(
            f"sequence length {seq_len} exceeds max_len={max_len}: the learned table has rows for "
            f"positions 0..{max_len - 1} only (like GPT-2's n_positions = 1024)",
            f"序列长度 {seq_len} "
            f"超过 max_len = {max_len}：可学习位置表只有位置 0..{max_len - 1} 的行"))
    raise PositionLimitError(bilingual(
        f"sequence length {seq_len} exceeds max_len={max_len}; build the module with a larger "
        "max_len (the formula itself has no limit)",
        f"序列长度 {seq_len} 超过 max_len = {max_len}"))
