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

import contextlib
import gc
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

import orjson

from toolaudit.compiled import speedups
from toolaudit.errors import ExpectedError
from toolaudit.jsonutil import (
    NUMBER_MARKS_IN_C,
    ORJSON_MAY_DIFFER_MARKS,
    BeyondExactReading,
    loads_exact,
    orjson_may_differ,
)
from toolaudit.schemas.files import loads_json, read_whole
from toolaudit.truth.entries import (
    BFCL_COMPARE,
    COMPARES,
    ORDERS,
    SHAPES,
    Accept,
    Expected,
    ExpectedCall,
    ExpectedSet,
    LocatedProblem,
    UnreadableEntry,
    bfcl_accept,
    bfcl_category,
    id_text,
)
from toolaudit.truth.native import ACCEPT_KEYS, is_accept_object, native_calls
from toolaudit.values import shown, value_kind

__all__ = [
    "BFCL_COMPARE",
    "COMPARES",
    "ORDERS",
    "SHAPES",
    "Accept",
    "Expected",
    "ExpectedCall",
    "ExpectedSet",
    "LocatedProblem",
    "UnreadableEntry",
    "bfcl_accept",
    "bfcl_category",
    "id_text",
    "is_accept_object",
    "read_entry",
    "read_expected",
]


def read_expected(path: str, *, storage_options: Mapping[str, Any] | None = None) -> ExpectedSet:
    """Read an expected-calls file (a path, or a URL read with ``storage_options``).

    Raises :class:`~toolaudit.errors.InputError` for a file that cannot be read and
    :class:`~toolaudit.errors.ExpectedError` for an id expected twice; every other bad
    line is one of the set's ``problems``.
    """
    where = f"expected file {path}"
    data = read_whole(path, storage_options, where)
    # The entries are kept, and hold no cycles: the collector, run as they are made,
    # would only walk them again and again (a third of the reading's time).
    with no_collection():
        return _read_lines(data, path, where)


@contextlib.contextmanager
def no_collection() -> Iterator[None]:
    """The cyclic garbage collector off (if it was on) for the block."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_lines(data: bytes, path: str, where: str) -> ExpectedSet:
    from toolaudit.truth.typed_lines import DecodeError, decoders

    reading = _Reading(path, where)

    if _LINES_IN_C is not None and NUMBER_MARKS_IN_C is not None:
        # The commonest lines read in C, any other handed to read_line, in order.
        _LINES_IN_C.read_lines(
            data,
            path,
            *decoders(),
            ACCEPT_KEYS,
            NUMBER_MARKS_IN_C,
            ORJSON_MAY_DIFFER_MARKS,
            reading.entries,
            reading.unread_line_of,
            reading.read_line,
            reading.expected_twice,
            DecodeError,
            Expected,
            ExpectedCall,
        )
    else:
        for number, line in enumerate(data.splitlines(), start=1):
            reading.read_line(line, number)
    return ExpectedSet(reading.entries, reading.problems)


#: The expected file's lines walked in C (``_expected_lines.c``), or None: the loop
#: over them above is its twin (tests/truth/test_expected_lines.py).
_LINES_IN_C = speedups("toolaudit.truth._expected_lines")


class _Reading:
    """The entries and problems of one expected file, read a line at a time."""

    __slots__ = ("entries", "path", "problems", "typed_entry", "unread_line_of", "where")

    def __init__(self, path: str, where: str) -> None:
        # (msgspec is loaded only for an expected file, never for a plain audit.)
        from toolaudit.truth.typed_lines import typed_entry

        self.typed_entry = typed_entry
        self.path = path
        self.where = where
        self.entries: dict[str, Expected] = {}
        self.problems: list[LocatedProblem] = []
        # The line of each id whose line could not be read (an entry's is its own).
        self.unread_line_of: dict[str, int] = {}

    def read_line(self, line: bytes, number: int) -> None:
        """Read the line numbered ``number``: its entry, or its problem."""
        if not line.strip():
            return
        entries, unread_line_of, path = self.entries, self.unread_line_of, self.path
        # A line of fewer brackets than the limit cannot nest deeper: most lines.
        shallow = line.count(b"{") + line.count(b"[") <= MAX_DEPTH
        # Most lines: decoded and checked by msgspec; any other is read below.
        entry = self.typed_entry(line, path, number) if shallow else None
        if entry is not None:
            if entry.id in entries or entry.id in unread_line_of:
                self.expected_twice(entry.id, number)
            entries[entry.id] = entry
            return
        try:
            document = _loaded(line)
        except orjson.JSONDecodeError as error:
            self.problems.append(LocatedProblem(path, number, f"not valid JSON ({error})"))
            return
        except BeyondExactReading as error:
            self.problems.append(LocatedProblem(path, number, f"not read: {error}"))
            return
        id = id_text(document.get("id")) if isinstance(document, Mapping) else None
        if id is not None and (id in entries or id in unread_line_of):
            self.expected_twice(id, number)
        try:
            entries[_id_of(id)] = read_entry(
                document, source=path, line=number, check_depth=not shallow
            )
        except UnreadableEntry as error:
            self.problems.append(LocatedProblem(path, number, str(error)))
            if id is not None:
                unread_line_of[id] = number

    def expected_twice(self, id: str, number: int) -> NoReturn:
        """Raise the error of an id expected again on line ``number``."""
        entry = self.entries.get(id)
        first = entry.line if entry is not None else self.unread_line_of[id]
        raise ExpectedError(
            f"{self.where}: id {id!r} is expected twice, on lines {first} and {number}"
        )


def _loaded(line: bytes) -> Any:
    """A line's value, its numbers read as the audit reads a log's: exactly where orjson
    may round one (an integer past 64 bits) or read it as 0 (``1e-400``), so that a
    value in the log and the same in the expected file are equal. Raises orjson's error,
    or :class:`BeyondExactReading` for a number past what is read exactly."""
    if orjson_may_differ(line):
        try:
            return loads_exact(line)
        except BeyondExactReading:
            raise
        except (ValueError, RecursionError):
            pass  # not JSON, or nested too deep for it: orjson reads it, or says why not
    return loads_json(line)


def _id_of(id: str | None) -> str:
    if id is None:
        raise UnreadableEntry('no "id" (a string or an integer)')
    return id


def read_entry(
    document: object, *, source: str = "", line: int = 0, check_depth: bool = True
) -> Expected:
    """One expected line's value -> its entry. Raises :class:`UnreadableEntry` (a ValueError)
    saying what is wrong. (``check_depth``: False when the line is known to nest less
    than :data:`MAX_DEPTH` levels.)"""
    if not isinstance(document, Mapping):
        raise UnreadableEntry(f"expected a JSON object, got {value_kind(document) or 'no JSON'}")
    id = _id_of(id_text(document.get("id")))
    if check_depth and _deeper_than(document, MAX_DEPTH):
        raise UnreadableEntry(f"nested more than {MAX_DEPTH} levels deep")
    if ("ground_truth" in document) == ("calls" in document):
        raise UnreadableEntry(
            'of neither shape: expected {"id", "ground_truth": [...]} (BFCL) or '
            '{"id", "calls": [...]} (native)'
        )
    if "ground_truth" in document:
        calls = _bfcl_calls(document["ground_truth"])
        return Expected(id, calls, "any", bfcl_category(id), "bfcl", source, line)
    order = document.get("order", "any")
    if order not in ORDERS:
        raise UnreadableEntry(f'"order" must be "any" or "strict", not {shown(order)}')
    category = document.get("category")
    if category is not None and not isinstance(category, str):
        raise UnreadableEntry('"category" must be a string')
    return Expected(id, native_calls(document["calls"]), order, category, "native", source, line)


#: How deep an expected line may nest: reading and comparing recurse, and no eval set
#: needs more (a hostile line must not exhaust the interpreter's stack).
MAX_DEPTH = 64


def _deeper_than(value: object, limit: int) -> bool:
    """Whether a JSON value nests lists and objects more than ``limit`` levels deep."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth > limit:
            return True
        kind = type(item)
        # (Scalars, most values, are told apart by their type alone: the ABC test costs.)
        if kind is dict or (kind is not list and isinstance(item, Mapping)):
            pending.extend((child, depth + 1) for child in item.values() if _nests(child))
        elif kind is list:
            pending.extend((child, depth + 1) for child in item if _nests(child))
    return False


def _nests(value: object) -> bool:
    """Whether a value may hold others (a scalar never makes a line deeper)."""
    kind = type(value)
    return kind is dict or kind is list or (kind not in _SCALARS and isinstance(value, Mapping))


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _bfcl_calls(ground_truth: object) -> tuple[ExpectedCall, ...]:
    if not isinstance(ground_truth, list):
        raise UnreadableEntry('"ground_truth" must be a list of calls')
    calls = []
    for index, call in enumerate(ground_truth):
        if isinstance(call, list):
            raise UnreadableEntry("multi-turn ground truth (turns of call strings) is not scored")
        if not (isinstance(call, Mapping) and len(call) == 1):
            raise UnreadableEntry(f"ground_truth[{index}] must be an object of one tool name")
        ((name, parameters),) = call.items()
        if not isinstance(parameters, Mapping):
            raise UnreadableEntry(f"ground_truth[{index}] ({name}): parameters must be an object")
        arguments = {}
        for parameter, possible in parameters.items():
            if not isinstance(possible, list):
                raise UnreadableEntry(
                    f"ground_truth[{index}] ({name}): parameter {parameter!r} must list "
                    "its possible answers"
                )
            arguments[parameter] = bfcl_accept(possible)
        calls.append(ExpectedCall(name, arguments))
    return tuple(calls)
