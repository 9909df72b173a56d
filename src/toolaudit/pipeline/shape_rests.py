"""Which typed shapes the typed path lets rest: a shape that took none of the lines it
was tried on, time after time, is not tried on the next records of its format for a while.

A typed shape can refuse every record of a log (a server's responses lacking a field the
shape requires, a pair whose response no inner shape reads): each line then costs a
decode that is thrown away before the general path reads it. Resting changes only which
path reads a line, never what it gives (the general path is the reference).
"""

from __future__ import annotations

#: How many lines in a row a shape may refuse, each the first it was tried on, before it rests.
REFUSED_IN_A_ROW = 16
#: How many records of its format a shape rests for the first time; twice as many each
#: time it is refused again after a rest, up to LONGEST_REST.
FIRST_REST = 64
LONGEST_REST = 4096


class ShapeRests:
    """The refusals of each typed shape (by format name), and its rest."""

    __slots__ = ("_refused", "_rest", "_resting")

    def __init__(self) -> None:
        self._refused: dict[str, int] = {}  #: lines refused in a row
        self._rest: dict[str, int] = {}  #: the length of its next rest
        self._resting: dict[str, int] = {}  #: records of its format still to let go

    def resting(self, format_name: str) -> bool:
        """Whether the shape of this format rests for the record just read (counted)."""
        left = self._resting.get(format_name)
        if not left:
            return False
        self._resting[format_name] = left - 1
        return True

    def tried(self, format_name: str, took: bool) -> None:
        """The shape was tried on lines, and took some (``took``) or refused the first."""
        if took:
            self._refused.pop(format_name, None)
            self._rest.pop(format_name, None)
            return
        refused = self._refused[format_name] = self._refused.get(format_name, 0) + 1
        if refused >= REFUSED_IN_A_ROW:
            rest = self._rest.get(format_name, FIRST_REST)
            self._resting[format_name] = rest
            self._rest[format_name] = min(2 * rest, LONGEST_REST)
            self._refused[format_name] = REFUSED_IN_A_ROW - 1  # one more refusal: rest again
