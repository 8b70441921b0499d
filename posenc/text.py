"""Plain-text and markdown tables for printed output: columns aligned by display width
(a CJK character takes two columns in a terminal).
"""
from __future__ import annotations

from .validate import bilingual, check_array, check_int


def _text_width(text: str) -> int:
    """Columns a string takes in a monospace font (CJK characters take two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` display columns."""
    return " " * (width - _text_width(text)) + text


def _ljust(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` display columns."""
    return text + " " * (width - _text_width(text))


def format_vector(v, decimals: int = 4) -> str:
    """``[0.8415, 0.5403]``: a vector as the course prints it."""
    return "[" + ", ".join(f"{x:.{decimals}f}" for x in v) + "]"


def aligned_table(head, rows, right=()) -> list[str]:
    """Lines of a text table: a header, a rule, one line per row, columns two spaces apart and
    aligned by display width; the columns listed in ``right`` are right-aligned."""
    rows = [tuple(str(c) for c in head)] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(_text_width(r[j]) for r in rows) for j in range(len(rows[0]))]
    fmt = lambda r: "  ".join((_pad if j in right else _ljust)(c, w)
                              for j, (c, w) in enumerate(zip(r, widths))).rstrip()
    return [fmt(rows[0]), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows[1:]]


def format_matrix(m, row_labels=None, col_labels=None, *, decimals: int = 4, name: str = "") -> str:
    """A small matrix as aligned text, rows (and columns) labelled, e.g. by tokens.

    ``row_labels`` / ``col_labels`` may be a string (one label per character, so
    ``"猫咬狗"`` works) or a sequence of labels; a 1-D ``m`` is shown as one row.
    Returns the text; show it with ``print(pl.format_matrix(...))``.
    """
    m = check_array("m", m)
    if m.ndim == 1:
        m = m[None, :]
    if m.ndim != 2:
        raise ValueError(bilingual(f"m must be 1-D or 2-D, got shape {m.shape}", "m 必须是一维或二维数组"))
    decimals = check_int("decimals", decimals, 0, 12)
    labels = {}
    for which, given, n in (("row_labels", row_labels, m.shape[0]), ("col_labels", col_labels, m.shape[1])):
        if given is None:
            labels[which] = None
            continue
        given = [str(t) for t in (tuple(given) if isinstance(given, str) else given)]
        if len(given) != n:
            raise ValueError(bilingual(f"{which} has {len(given)} labels for {n} entries",
                                       f"{which} 的个数"
                                       f"（{len(given)}）必须等于 {n}"))
        labels[which] = given
    cells = [[f"{v:.{decimals}f}" for v in row] for row in m]
    rows, cols = labels["row_labels"], labels["col_labels"]
    width = max(_text_width(c) for row in cells for c in row)
    if cols:
        width = max(width, *(_text_width(c) for c in cols))
    lead = max((_text_width(r) for r in rows), default=0) if rows else 0
    lines = [name] if name else []
    if cols:
        lines.append(" " * lead + "".join("  " + _pad(c, width) for c in cols))
    for r, row in enumerate(cells):
        head = _pad(rows[r], lead) if rows else ""
        lines.append(head + "".join("  " + _pad(c, width) for c in row))
    return "\n".join(lines)


def markdown_table(header, rows) -> str:
    """A markdown table (GitHub style) from a header and rows; cells go through ``str``.

    Display it with ``IPython.display.Markdown(pl.markdown_table(...))``. ``|`` inside a
    cell is escaped; every row must have as many cells as the header.
    """
    header = [str(h) for h in header]
    if not header:
        raise ValueError(bilingual("header must not be empty", "header 不能为空"))
    lines = []
    for n, row in enumerate([header, *rows]):
        cells = [str(c).replace("|", "\\|").replace("\n", " ") for c in row]
        if len(cells) != len(header):
            raise ValueError(bilingual(f"row {n} has {len(cells)} cells, the header has {len(header)}",
                                       f"第 {n} 行有 {len(cells)} 格，表头有 {len(header)} 格"))
        lines.append("| " + " | ".join(cells) + " |")
        if n == 0:
            lines.append("|" + "---|" * len(header))
    return "\n".join(lines)
