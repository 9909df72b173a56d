"""Searches of a JSON text's bytes, in C (``_text_speedups.c``; see toolaudit.jsonutil)."""

from typing_extensions import Buffer

def number_marks(data: Buffer, /) -> int:
    """1: a run of 19 digits or more; 2: an exponent of three digits."""

def tiny_numbers(data: Buffer, /) -> bool:
    """Whether an exponent after a digit is a minus sign and three digits (a number below
    a double's range)."""

def opening_brackets(data: Buffer, /) -> int:
    """How many ``[`` and ``{`` the text holds."""

def split_newlines(chunk: bytes, /) -> list[bytes]:
    """``chunk.split(b"\\n")``, each line found by memchr."""
