"""Plain text for a terminal: log content made safe to show, figures formatted, columns aligned.

The Markdown and HTML outputs format their figures with these too, so that
every output rounds a rate the same way.
"""

from __future__ import annotations

#: Names (of tools, mostly) are cut to this in a column; a model can invent a huge one.
NAME_WIDTH = 40
#: Columns of figures are at least this wide, so that small counts do not crowd together.
MIN_COLUMN_WIDTH = 7

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def printable(text: str, max_width: int | None = None) -> str:
    """``text`` with every control, format (bidi) and separator character escaped.

    A name from a log may hold ANSI escapes, newlines or bidi overrides; shown
    raw they would repaint the terminal or reorder the table. Escaped text is
    never longer than ``max_width`` (it ends in an ellipsis when cut).
    """
    if not text.isprintable() or "\\" in text:
        text = "".join(ch if ch.isprintable() and ch != "\\" else _escape(ch) for ch in text)
    if max_width is not None and len(text) > max_width:
        text = text[: max_width - 1] + "…"
    return text


def _escape(ch: str) -> str:
    known = _ESCAPES.get(ch)
    if known is not None:
        return known
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def grid(rows: list[list[str]], *, min_width: int = MIN_COLUMN_WIDTH) -> list[str]:
    """Lay rows of cells out as aligned columns: the first left, the others right.

    Every column but the first is at least ``min_width`` wide; the first (names)
    is as wide as its longest cell.
    """
    if not rows:
        return []
    columns = max(len(row) for row in rows)
    widths = [max(len(row[i]) if i < len(row) else 0 for row in rows) for i in range(columns)]
    widths[1:] = [max(width, min_width) for width in widths[1:]]
    lines = []
    for row in rows:
        # A short row simply ends: its missing cells would only be trailing blanks.
        cells = [
            row[0].ljust(widths[0]),
            *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=False)),
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def percent(rate: float) -> str:
    return f"{rate:.1%}"


def change(points: float) -> str:
    """A change of rate in percentage points, with its sign: "+2.5 pp", "-0.3 pp",
    "+<0.1 pp" (small, but not nothing), "0.0 pp" (none at all)."""
    value = points * 100
    if value == 0:
        return "0.0 pp"
    if abs(value) < 0.05:
        return "+<0.1 pp" if value > 0 else "-<0.1 pp"
    return f"{value:+.1f} pp"


def points(rate: float) -> str:
    """A rate as percentage points without a sign: "15.7 pp", "<0.1 pp"."""
    return change(abs(rate)).lstrip("+")
