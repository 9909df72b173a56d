"""The C speedups of the typed stream reader (``_stream_speedups.c``): the commonest
stream lines (a piece of a call's arguments, a line that only accompanies or continues an
open stream, an Anthropic tool_use block's start) decoded and placed in the open streams
without a turn of the reader's Python loop.

Each placer reads lines from ``progress[0]`` on and returns the decoded record of the
first line it leaves to the reader (None when that line needs the line check, does not
decode, or the lines ran out), ``progress`` saying where it stopped and how many lines it
placed; without the speedups the reader places every line itself, to the same streams.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from toolaudit.compiled import speedups
from toolaudit.formats import anthropic_stream, openai_chat_stream
from toolaudit.formats.anthropic_stream import stop_notes

#: ``placer(lines, decode, open streams, progress)``: the record of the line it stops at.
Placer = Callable[[list[bytes], Callable[[bytes], Any], dict[Any, Any], list[int]], Any]

#: The extension, or None (tests and benchmarks set it to None to turn it off).
SPEEDUPS = speedups("toolaudit.formats._stream_speedups")


def placer(format: str, most: int) -> Placer | None:  # shadows the builtin: the format's name
    """The speedups' placer of the lines of ``format``, or None (off, not built, or a
    format they do not read). A line not ASCII or longer than ``most`` it leaves to the
    reader's line check."""
    compiled = SPEEDUPS
    if compiled is None:
        return None
    if format == openai_chat_stream.NAME:
        return functools.partial(compiled.chat, format, most)
    if format == anthropic_stream.NAME:
        # (Unwrapped, an Anthropic event carries no stream id: one key, as its lanes'.)
        key = (format, None)
        return functools.partial(compiled.anthropic, key, most, stop_notes)
    return None
