"""The commonest stream lines placed in C (``_stream_speedups.c``; see stream_speedups)."""

from collections.abc import Callable
from typing import Any

def chat(
    format: str,
    most: int,
    lines: list[bytes],
    decode: Callable[[bytes], Any],
    open: dict[Any, Any],
    progress: list[int],
    /,
) -> Any:
    """Place OpenAI chunks' appends and usage-only chunks; the first other line's record."""

def anthropic(
    key: tuple[str, None],
    most: int,
    stop_notes: Callable[[object], tuple[tuple[int, str], ...]],
    lines: list[bytes],
    decode: Callable[[bytes], Any],
    open: dict[Any, Any],
    progress: list[int],
    /,
) -> Any:
    """Place Anthropic events that add to an open stream; the first other one's record."""
