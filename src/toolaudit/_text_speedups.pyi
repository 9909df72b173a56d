"""Searches of a JSON text's bytes, in C (``_text_speedups.c``; see toolaudit.jsonutil)."""

from collections.abc import Callable

from typing_extensions import Buffer

def number_marks(data: Buffer, /) -> int:
    """1: a run of 19 digits or more; 2: an exponent of three digits."""

def tiny_numbers(data: Buffer, /) -> bool:
    """Whether an exponent after a digit is a minus sign and three digits (a number below
    a double's range)."""

def misread_numbers(data: Buffer, /) -> bool:
    """Whether a typed decode may read a number otherwise than the exact parse: an exponent
    after a digit of a minus sign and three digits, or of four digits or more ending the
    number, or a run of 2,500 digits (``_misread_numbers.h``)."""

# The tests' alone: misread_numbers less its runs of digits, each by one way of finding the
# exponents' marks (one by one; SSE2, where the build has it; AVX2, where the build and the
# CPU have it (RuntimeError where the CPU has not), for texts of more than 64 bytes).
def _plain_misread_exponents(data: Buffer, /) -> bool: ...
def _narrow_misread_exponents(data: Buffer, /) -> bool: ...
def _wide_misread_exponents(data: Buffer, /) -> bool: ...
def opening_brackets(data: Buffer, /) -> int:
    """How many ``[`` and ``{`` the text holds."""

def split_newlines(chunk: bytes, /) -> list[bytes]:
    """``chunk.split(b"\\n")``, each line found by memchr."""

def valid_row_line(
    parts: tuple[
        bytes,
        dict[str, bytes],
        dict[str | None, bytes],
        Callable[[int, int, object, str, str | None], bytes],
    ],
    line: int,
    index: int,
    call_id: object,
    tool: str,
    model: str | None,
    /,
) -> bytes:
    """A valid call's report line: ``head``, the line, the index, the id as orjson writes it,
    ``tools[tool]`` and ``models[model]`` (``parts``: head, tools, models, otherwise), where
    the id is a string or null and both are kept; else ``otherwise(line, index, call_id,
    tool, model)``."""

def failing_row_line(parts: tuple[bytes, Callable[..., bytes]], /, *row: object) -> bytes:
    """A failing call's report line of ``row`` (line, index, call_id, tool, model, errors,
    why; ``parts``: the head, and what writes any other), where its id and model are
    strings or null, its errors and reasons strings with UTF-8 and its numbers within 64
    bits; else ``otherwise(*row)``."""
