"""The commonest stream lines placed in C (``_stream_speedups.c``; see stream_speedups)."""

from collections.abc import Callable
from typing import Any

def chat(
    format: str,
    most: int,
    lanes: Any,
    stream_type: type,
    call_type: type,
    first_line: int,
    context: object,
    decoders: Any,
    longest: int,
    lines: list[bytes],
    decode: Callable[[bytes], Any],
    progress: list[int],
    /,
) -> Any:
    """Place OpenAI chunks in their streams; the first other line's record, or an ended
    stream."""

def anthropic(
    key: tuple[str, None],
    most: int,
    stop_notes: Callable[[object], tuple[tuple[int, str], ...]],
    lanes: Any,
    stream_type: type,
    call_type: type,
    first_line: int,
    context: object,
    decoders: Any,
    longest: int,
    lines: list[bytes],
    decode: Callable[[bytes], Any],
    progress: list[int],
    /,
) -> Any:
    """Place Anthropic events in their stream; the first other one's record, or an ended
    stream."""
