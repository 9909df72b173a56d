"""The values of an expected-calls file: what each record should hold, by id.

Read by :mod:`toolaudit.truth.expected` (which also exports them), scored by
:mod:`toolaudit.truth.match`, and by BFCL's own checker under ``--match bfcl``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

#: How an argument's value may be compared with the accepted ones (``exact`` by default).
COMPARES = ("exact", "text", "number", "unordered", "subset", "pattern", "any")
#: The compare of a BFCL possible-answer list, kept as given for BFCL's own checker.
BFCL_COMPARE = "bfcl"
#: Whether parallel calls must come in the expected order.
ORDERS = ("any", "strict")
#: The two shapes of an expected line.
SHAPES = ("native", "bfcl")

#: A BFCL id: its category, then the entry's number (``live_multiple_12-3-0``).
_BFCL_ID = re.compile(r"^(.+?)_\d+(?:-\d+)*$")


# The values made for every expected line and every record scored are slotted
# dataclasses, not frozen ones: a frozen one costs about 1 us more to make (a
# object.__setattr__ per field). Nothing changes them once made.
@dataclass(slots=True)
class Accept:
    """The acceptable values of one argument, and how a value is compared with them.

    ``values`` may hold, inside objects, further :class:`Accept` (a nested argument with
    its own compare). ``compare`` is one of :data:`COMPARES`, or :data:`BFCL_COMPARE` for
    a BFCL possible-answer list, whose ``""`` is read as ``optional=True`` and left out of
    ``values``; ``raw`` keeps that list exactly as given (empty for native arguments).
    ``tolerance`` is the absolute tolerance of ``number``.
    """

    values: tuple[object, ...]
    compare: str = "exact"
    tolerance: float | None = None
    optional: bool = False
    raw: tuple[object, ...] = ()


class ExpectedCall:
    """One expected call: the tool's name and its expected arguments.

    ``literal``: the arguments as the expected file gives them, when each is one value
    compared ``exact`` (no accept object anywhere in it); then
    :attr:`arguments` is made from it only when first asked for, as most entries are
    answered right and told so from ``literal`` alone (see
    :func:`toolaudit.truth.match.surely_correct`).
    """

    __slots__ = ("_arguments", "literal", "name")

    def __init__(
        self,
        name: str,
        arguments: Mapping[str, Accept] | None = None,
        *,
        literal: Mapping[str, object] | None = None,
    ) -> None:
        if (arguments is None) == (literal is None):
            raise TypeError("an ExpectedCall takes its arguments or their literal values")
        self.name = name
        self._arguments = arguments
        self.literal = literal

    @property
    def arguments(self) -> Mapping[str, Accept]:
        """Each parameter's :class:`Accept`."""
        arguments = self._arguments
        if arguments is None:
            assert self.literal is not None
            arguments = self._arguments = {
                name: Accept((value,)) for name, value in self.literal.items()
            }
        return arguments

    @property
    def parameters(self) -> Iterable[str]:
        """The names of the expected parameters, in order (without making the Accepts)."""
        return self.literal if self.literal is not None else self.arguments

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExpectedCall):
            return NotImplemented
        return self.name == other.name and self.arguments == other.arguments

    __hash__ = None  # type: ignore[assignment]  # (as a dataclass's that is not frozen)

    def __repr__(self) -> str:
        return f"ExpectedCall(name={self.name!r}, arguments={self.arguments!r})"


@dataclass(slots=True)
class Expected:
    """What one record should hold.

    ``calls`` is None for "any call" (``"calls": "any"``, BFCL's relevance prompts) and
    empty when no call is expected. ``category`` is the native category, or for a BFCL
    line its id's prefix. ``source`` and ``line`` locate the entry in its file.
    """

    id: str
    calls: tuple[ExpectedCall, ...] | None
    order: str = "any"
    category: str | None = None
    shape: str = "native"
    source: str = ""
    line: int = 0


@dataclass(frozen=True)
class LocatedProblem:
    """An expected line that could not be read: the run goes on without it."""

    source: str
    line: int
    detail: str

    def __str__(self) -> str:
        return f"{self.source}, line {self.line}: {self.detail}"


@dataclass(frozen=True)
class ExpectedSet(Mapping[str, Expected]):
    """The expected entries of one file, by id, and the lines that could not be read."""

    entries: Mapping[str, Expected] = field(default_factory=dict)
    problems: list[LocatedProblem] = field(default_factory=list)

    def __getitem__(self, key: str) -> Expected:
        return self.entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def category_of(self, id: str) -> str | None:
        """The entry's category: its native ``category``, else the prefix of a BFCL id
        (``live_multiple_12-3`` -> ``live_multiple``); None when neither says one."""
        entry = self.entries.get(id)
        if entry is not None and entry.category is not None:
            return entry.category
        return bfcl_category(id)


def bfcl_category(id: str) -> str | None:
    """A BFCL id's category: ``simple_python_3`` -> ``simple_python``; None for other ids."""
    found = _BFCL_ID.match(id)
    return found.group(1) if found else None


def id_text(value: object) -> str | None:
    """An id as entries are keyed: a string as it is, an integer as its digits (so that
    ``3`` and ``"3"`` name one entry); None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


class UnreadableEntry(ValueError):
    """An expected line of neither shape; the message says what is wrong with it."""


def bfcl_accept(possible: list[object]) -> Accept:
    """A BFCL possible-answer list as an :class:`Accept`: its ``""`` (may be left out)
    read as ``optional``, the list kept as given in ``raw``."""
    # (Only a string equals "": no JSON value of another type does.)
    optional = "" in possible
    values = tuple(value for value in possible if value != "") if optional else tuple(possible)
    return Accept(values, BFCL_COMPARE, optional=optional, raw=tuple(possible))
