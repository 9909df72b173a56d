"""Chunks of bytes -> batches of lines, without their ``\\n``; a line longer than the
limit is not kept but stands in its batch as an :class:`OversizedLine`, so that memory
stays bounded whatever the input."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from toolaudit.compiled import speedups

DEFAULT_MAX_LINE_BYTES = 64 << 20

#: ``chunk.split(b"\n")`` in C (``_text_speedups.c``, by memchr), or None: bytes.split.
_TEXT_SPEEDUPS = speedups("toolaudit._text_speedups")
_SPLIT = None if _TEXT_SPEEDUPS is None else _TEXT_SPEEDUPS.split_newlines


class OversizedLine(bytes):
    """Stands in a line list for a line longer than the limit; holds its length.

    It is empty bytes, so a batch stays a list of bytes; orjson refuses it (by
    its type) like any malformed line, so it costs the audit loop nothing until
    it is met; the error path then says what it was.
    """

    length: int

    def __new__(cls, length: int) -> OversizedLine:
        line = super().__new__(cls)
        line.length = length
        return line


def split_lines(chunks: Iterable[bytes], max_line_bytes: int) -> Iterator[list[bytes]]:
    """Chunks -> batches of lines. A line over ``max_line_bytes`` is not kept:
    it becomes an :class:`OversizedLine` and its bytes are skipped as they come."""
    head: list[bytes] = []  # pieces of a line that spans chunks
    head_bytes = 0
    oversized = False
    split = _SPLIT
    for chunk in chunks:
        lines = chunk.split(b"\n") if split is None or type(chunk) is not bytes else split(chunk)
        tail = lines.pop()
        if len(lines) == 0:  # no newline in this chunk: the open line grows
            head_bytes += len(tail)
            if head_bytes > max_line_bytes:
                oversized = True
                head.clear()
            elif tail:
                head.append(tail)
            continue
        first = lines[0]
        if oversized or head_bytes + len(first) > max_line_bytes:
            lines[0] = OversizedLine(head_bytes + len(first))
        elif head:
            head.append(first)
            lines[0] = b"".join(head)
        if len(chunk) > max_line_bytes:  # only then can a whole line inside it be too long
            for index in range(1, len(lines)):
                line = lines[index]
                if len(line) > max_line_bytes:
                    lines[index] = OversizedLine(len(line))
        head.clear()
        oversized = False
        head_bytes = len(tail)
        if head_bytes > max_line_bytes:
            oversized = True
        elif tail:
            head.append(tail)
        yield lines
    if oversized:
        yield [OversizedLine(head_bytes)]
    elif head:
        yield [b"".join(head)]
