"""The expected file's lines walked in C (``_expected_lines.c``; its pure twin, the loop of
toolaudit.truth.expected over ``data.splitlines()``)."""

from collections.abc import Callable
from typing import Any

def read_lines(
    data: bytes,
    source: str,
    literal: Callable[[bytes], Any],
    any_arguments: Callable[[bytes], Any],
    accept_keys: frozenset[str],
    marks: Callable[[bytes], int],
    mask: int,
    entries: dict[str, Any],
    unread_line_of: dict[str, int],
    other: Callable[[bytes, int], object],
    twice: Callable[[str, int], object],
    decode_error: type[BaseException],
    expected_type: type,
    call_type: type,
    /,
) -> None: ...
def is_literal(value: object, accept_keys: frozenset[str], /) -> bool: ...
