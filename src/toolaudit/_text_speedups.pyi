"""Searches of a JSON text's bytes, in C (``_text_speedups.c``; see toolaudit.jsonutil)."""

from typing_extensions import Buffer

def number_marks(data: Buffer, /) -> int:
    """1: a run of 19 digits or more; 2: an exponent of three digits; 4: a minus exponent
    of three digits after a digit (a number below a double's range)."""

def opening_brackets(data: Buffer, /) -> int:
    """How many ``[`` and ``{`` the text holds."""
