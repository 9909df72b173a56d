"""The expected-calls file: which calls each record should hold, keyed by record id.

One entry per line, in either of two shapes, recognised line by line:

- BFCL's possible answers as they are: ``{"id": "simple_python_2", "ground_truth":
  [{"math.hypot": {"x": [4], "z": ["", 0]}}]}``: one object per expected call, the
  acceptable values of each parameter in a list, ``""`` among them meaning that the
  parameter may be left out; an empty list expects no call.
- the native shape of a production eval set: ``{"id": ..., "calls": [{"name": ...,
  "arguments": {...}}], "order": "any" | "strict", "category": ...}``, an argument being
  its expected value or ``{"accept": [v1, v2], "compare": C}``; ``"calls": []`` expects
  no call, ``"calls": "any"`` at least one call, whichever.

A line that is not JSON or of neither shape is a :class:`LocatedProblem` (the run goes
on); an id expected twice stops the run with :class:`ExpectedError` before anything is
audited. See docs/evaluation.md, "Expected calls".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolaudit.deep.patterns import UnusablePattern, compile_pattern
from toolaudit.errors import ExpectedError
from toolaudit.schemas.files import loads_json, read_whole
from toolaudit.values import NUMERIC_KINDS, shown, value_kind

#: How an argument's value may be compared with the accepted ones (``exact`` by default).
COMPARES = ("exact", "text", "number", "unordered", "subset", "pattern", "any")
#: The compare of a BFCL possible-answer list, kept as given for BFCL's own checker.
BFCL_COMPARE = "bfcl"
#: Whether parallel calls must come in the expected order.
ORDERS = ("any", "strict")
#: The two shapes of an expected line.
SHAPES = ("native", "bfcl")

#: The keys of an accept object (``{"accept": [...], "compare": "text"}``).
_ACCEPT_KEYS = frozenset({"accept", "compare", "tolerance", "optional"})
#: A BFCL id: its category, then the entry's number (``live_multiple_12-3-0``).
_BFCL_ID = re.compile(r"^(.+?)_\d+(?:-\d+)*$")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class ExpectedCall:
    """One expected call: the tool's name and its expected arguments."""

    name: str
    arguments: Mapping[str, Accept]


@dataclass(frozen=True)
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


class _Unreadable(ValueError):
    """An expected line of neither shape; the message says what is wrong with it."""


def read_expected(path: str, *, storage_options: Mapping[str, Any] | None = None) -> ExpectedSet:
    """Read an expected-calls file (a path, or a URL read with ``storage_options``).

    Raises :class:`~toolaudit.errors.InputError` for a file that cannot be read and
    :class:`~toolaudit.errors.ExpectedError` for an id expected twice; every other bad
    line is one of the set's ``problems``.
    """
    where = f"expected file {path}"
    data = read_whole(path, storage_options, where)
    entries: dict[str, Expected] = {}
    problems: list[LocatedProblem] = []
    first_line_of: dict[str, int] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            document = loads_json(line)
        except orjson.JSONDecodeError as error:
            problems.append(LocatedProblem(path, number, f"not valid JSON ({error})"))
            continue
        id = id_text(document.get("id")) if isinstance(document, Mapping) else None
        if id is not None:
            if id in first_line_of:
                raise ExpectedError(
                    f"{where}: id {id!r} is expected twice, on lines {first_line_of[id]} "
                    f"and {number}"
                )
            first_line_of[id] = number
        try:
            entries[_id_of(id)] = read_entry(document, source=path, line=number)
        except _Unreadable as error:
            problems.append(LocatedProblem(path, number, str(error)))
    return ExpectedSet(entries, problems)


def _id_of(id: str | None) -> str:
    if id is None:
        raise _Unreadable('no "id" (a string or an integer)')
    return id


def read_entry(document: object, *, source: str = "", line: int = 0) -> Expected:
    """One expected line's value -> its entry. Raises ValueError saying what is wrong."""
    if not isinstance(document, Mapping):
        raise _Unreadable(f"expected a JSON object, got {value_kind(document) or 'no JSON'}")
    id = _id_of(id_text(document.get("id")))
    if ("ground_truth" in document) == ("calls" in document):
        raise _Unreadable(
            'of neither shape: expected {"id", "ground_truth": [...]} (BFCL) or '
            '{"id", "calls": [...]} (native)'
        )
    if "ground_truth" in document:
        calls = _bfcl_calls(document["ground_truth"])
        return Expected(id, calls, "any", bfcl_category(id), "bfcl", source, line)
    order = document.get("order", "any")
    if order not in ORDERS:
        raise _Unreadable(f'"order" must be "any" or "strict", not {shown(order)}')
    category = document.get("category")
    if category is not None and not isinstance(category, str):
        raise _Unreadable('"category" must be a string')
    return Expected(id, _native_calls(document["calls"]), order, category, "native", source, line)


def _bfcl_calls(ground_truth: object) -> tuple[ExpectedCall, ...]:
    if not isinstance(ground_truth, list):
        raise _Unreadable('"ground_truth" must be a list of calls')
    calls = []
    for index, call in enumerate(ground_truth):
        if isinstance(call, list):
            raise _Unreadable("multi-turn ground truth (turns of call strings) is not scored")
        if not (isinstance(call, Mapping) and len(call) == 1):
            raise _Unreadable(f"ground_truth[{index}] must be an object of one tool name")
        ((name, parameters),) = call.items()
        if not isinstance(parameters, Mapping):
            raise _Unreadable(f"ground_truth[{index}] ({name}): parameters must be an object")
        arguments = {}
        for parameter, possible in parameters.items():
            if not isinstance(possible, list):
                raise _Unreadable(
                    f"ground_truth[{index}] ({name}): parameter {parameter!r} must list "
                    "its possible answers"
                )
            arguments[parameter] = bfcl_accept(possible)
        calls.append(ExpectedCall(name, arguments))
    return tuple(calls)


def bfcl_accept(possible: list[object]) -> Accept:
    """A BFCL possible-answer list as an :class:`Accept`: its ``""`` (may be left out)
    read as ``optional``, the list kept as given in ``raw``."""
    return Accept(
        tuple(value for value in possible if not _is_blank(value)),
        BFCL_COMPARE,
        optional=any(_is_blank(value) for value in possible),
        raw=tuple(possible),
    )


def _is_blank(value: object) -> bool:
    """BFCL's "may be left out": the empty string among the possible answers."""
    return isinstance(value, str) and value == ""


def _native_calls(calls: object) -> tuple[ExpectedCall, ...] | None:
    if calls == "any":
        return None
    if not isinstance(calls, list):
        raise _Unreadable('"calls" must be a list of calls or "any"')
    expected = []
    for index, call in enumerate(calls):
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise _Unreadable(f'calls[{index}] must be an object with a "name" string')
        arguments = call.get("arguments", {})
        if not isinstance(arguments, Mapping):
            raise _Unreadable(f'calls[{index}]: "arguments" must be an object')
        try:
            accepts = {key: _accept(value) for key, value in arguments.items()}
        except _Unreadable as error:
            raise _Unreadable(f"calls[{index}] ({call['name']}): {error}") from None
        expected.append(ExpectedCall(call["name"], accepts))
    return tuple(expected)


def is_accept_object(value: object) -> bool:
    """Whether a native expected value is an accept object rather than a literal object:
    only the keys ``accept``, ``compare``, ``tolerance``, ``optional``, and one of the
    first two. (A literal object of only such keys is written ``{"accept": [it]}``.)"""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and value.keys() <= _ACCEPT_KEYS
        and ("accept" in value or "compare" in value)
    )


def _accept(value: object) -> Accept:
    """A native argument -> its :class:`Accept` (nested accept objects read as well)."""
    if not is_accept_object(value):
        return Accept((_nested(value),))
    assert isinstance(value, Mapping)
    compare = value.get("compare", "exact")
    if compare not in COMPARES:
        raise _Unreadable(f"unknown compare {shown(compare)} (known: {', '.join(COMPARES)})")
    accepted = value.get("accept", [])
    if not isinstance(accepted, list) or (not accepted and compare != "any"):
        raise _Unreadable('"accept" must be a non-empty list of the acceptable values')
    for one in accepted:
        _check_kind(compare, one)
    tolerance = value.get("tolerance")
    if tolerance is not None and (
        compare != "number" or value_kind(tolerance) not in NUMERIC_KINDS or tolerance < 0
    ):
        raise _Unreadable('"tolerance" is a number >= 0, for compare "number" only')
    optional = value.get("optional", False)
    if not isinstance(optional, bool):
        raise _Unreadable('"optional" must be true or false')
    nests = compare in ("exact", "subset")
    values = tuple(_nested(one) if nests else one for one in accepted)
    return Accept(values, compare, tolerance, optional)


def _nested(value: object) -> object:
    """An expected value with the accept objects inside its objects read as Accept."""
    if isinstance(value, Mapping):
        return {
            key: _accept(item) if is_accept_object(item) else _nested(item)
            for key, item in value.items()
        }
    return value


_KIND_OF_COMPARE = {"number": NUMERIC_KINDS, "unordered": {"array"}, "subset": {"object"}}


def _check_kind(compare: str, value: object) -> None:
    kinds = _KIND_OF_COMPARE.get(compare)
    if kinds is not None and value_kind(value) not in kinds:
        raise _Unreadable(f"compare {compare!r} cannot accept {shown(value)}")
    if compare == "text" and not isinstance(value, str):
        raise _Unreadable(f"compare 'text' accepts strings, not {shown(value)}")
    if compare == "pattern":
        if not isinstance(value, str):
            raise _Unreadable(f"compare 'pattern' accepts patterns (strings), not {shown(value)}")
        try:
            compile_pattern(value)
        except UnusablePattern as error:
            raise _Unreadable(f"pattern {value!r} cannot be used: {error}") from None
