"""Making log content safe to show on a terminal."""

from __future__ import annotations

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
