"""The C speedups of the typed stream reader (``_stream_speedups.c``): the commonest
stream lines (a piece of a call's arguments, a line that only accompanies or continues an
open stream, one that begins a call or a stream, one that ends a stream) decoded and placed
in the open streams without a turn of the reader's Python loop.

Each placer reads lines from ``progress[0]`` on and returns either a stream a line ended
(an :data:`~toolaudit.formats.stream_lanes.OpenStream`, for the reader to judge; the line
not counted) or the decoded record of the first line it leaves to the reader (None when
that line needs the line check, does not decode, or the lines ran out), ``progress``
saying where it stopped, how many lines it placed that began no stream and how many that
began one, and the name of an ended stream's one call when that tool's typed decoder takes
its arguments (the reader then counts it valid without judging it); without the speedups
the reader places every line itself, to the same streams.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from toolaudit.compiled import speedups
from toolaudit.formats import anthropic_stream, openai_chat_stream
from toolaudit.formats.anthropic_stream import stop_notes
from toolaudit.formats.stream_lanes import OpenCall, OpenStream, StreamLanes

#: ``placer(lines, decode, progress)``: the stream it ended (``progress[3]``: the name its
#: one valid call gives, else None), or the record of the line it stops at.
Placer = Callable[[list[bytes], Callable[[bytes], Any], list[int]], Any]

#: The extension, or None (tests and benchmarks set it to None to turn it off).
SPEEDUPS = speedups("toolaudit.formats._stream_speedups")


def placer(
    format: str,  # shadows the builtin: the format's name
    most: int,
    lanes: StreamLanes,
    first_line: int,
    context: object,
    decoders: Mapping[str, Any],
    longest: int,
) -> Placer | None:
    """The speedups' placer of the lines of ``format`` into ``lanes``' streams, or None
    (off, not built, or a format they do not read). A line not ASCII or longer than
    ``most`` it leaves to the reader's line check; ``first_line`` is the number of the
    first of the lines it is given, ``context`` what the streams it begins hold. The one
    call of a stream it ends it decodes with ``decoders[name]`` (a msgspec decoder or None),
    as the reader's accepts() would for arguments of at most ``longest`` characters."""
    compiled = SPEEDUPS
    if compiled is None:
        return None
    made = (OpenStream, OpenCall)  # (what the lanes make, here without their __init__)
    judging = (decoders, longest)
    if format == openai_chat_stream.NAME:
        return functools.partial(
            compiled.chat, format, most, lanes, *made, first_line, context, *judging
        )
    if format == anthropic_stream.NAME:
        # (Unwrapped, an Anthropic event carries no stream id: one key, as its lanes'.)
        key = (format, None)
        return functools.partial(
            compiled.anthropic,
            key,
            most,
            stop_notes,
            lanes,
            *made,
            first_line,
            context,
            *judging,
        )
    return None
