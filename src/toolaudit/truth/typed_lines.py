"""Most lines of a production eval set decoded and checked in C, by msgspec: native
lines whose arguments are each one literal value (no accept object), where reading a
line with orjson and checking it in Python cost most of what loading an eval set
costs.

A line is read here only where that gives the entry
:func:`toolaudit.truth.expected.read_entry` gives it; any other line (not JSON, of
another shape, a BFCL line, an accept object among the arguments, a value of another
type, a number beyond a double's range) is left to that reading, which then
words what is wrong, if anything is, exactly as ever. So are lines the two parsers
might read apart: invalid UTF-8 where msgspec skips it, an integer past 64 bits (a
float to orjson, an integer to msgspec). The
values read are orjson's (msgspec keeps the last of keys given twice, as it does):
tests/truth/test_typed_lines.py compares the two readings.

A file of such lines alone (most eval sets) is decoded in one call
(:func:`typed_file`, msgspec's ``decode_lines``), where decoding line by line spent
about as long in the loop as in msgspec; the test compares that reading too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from itertools import repeat
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from toolaudit.jsonutil import orjson_may_differ
from toolaudit.truth.entries import Expected, ExpectedCall
from toolaudit.truth.native import is_literal
from toolaudit.typed.arguments import is_utf8

#: An argument that is its own expected value, told by its type.
_Literal = str | int | float | bool | None | list[Any]
#: Any argument (an object among them may hold accept objects, or be one).
_Argument = _Literal | dict[str, Any]


def _line(argument: Any) -> type[Struct]:
    """A native line whose arguments are of the type ``argument``."""
    call = msgspec.defstruct(
        "Call", [("name", str), ("arguments", dict[str, argument], {})], gc=False
    )
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        ("id", str | int),
        ("calls", list[call] | Literal["any"]),  # type: ignore[valid-type]
        ("order", Literal["any", "strict"], "any"),
        ("category", str | None, None),
        # Both shapes in one line: read_entry says so.
        ("ground_truth", UnsetType, UNSET),
    ]
    return msgspec.defstruct("Line", fields, gc=False)


@functools.cache
def _line_decoders() -> tuple[msgspec.json.Decoder[Any], msgspec.json.Decoder[Any]]:
    """Decoders of lines of literal arguments only (most lines: nothing left to check in
    Python), and of any arguments."""
    return msgspec.json.Decoder(_line(_Literal)), msgspec.json.Decoder(_line(_Argument))


def _decoders() -> tuple[Callable[[bytes], Any], Callable[[bytes], Any]]:
    literal, any_arguments = _line_decoders()
    return literal.decode, any_arguments.decode


def typed_entry(line: bytes, source: str, number: int) -> Expected | None:
    """The entry of one expected line (nesting less deep than the reading's limit), or
    None: :func:`~toolaudit.truth.expected.read_entry` reads it."""
    if not line.isascii() and not is_utf8(line):
        return None  # msgspec does not check the UTF-8 of what it skips
    if orjson_may_differ(line):
        return None  # an integer past 64 bits, 1e-400: read exactly by the reading
    literal, any_arguments = _decoders()
    try:
        read = literal(line)
    except (msgspec.DecodeError, RecursionError):
        try:
            read = any_arguments(line)
        except (msgspec.DecodeError, RecursionError):
            return None
        if read.calls != "any" and not all(
            is_literal(value) for call in read.calls for value in call.arguments.values()
        ):
            return None  # accept objects to read and check
    return _entry_of(read, source, number)


def _entry_of(read: Any, source: str, number: int) -> Expected:
    """The entry of a line decoded by one of the decoders."""
    # (An integer id is read as its digits; msgspec refuses true.)
    id = read.id if type(read.id) is str else str(read.id)
    written = read.calls
    calls = (
        None
        if written == "any"
        else tuple(ExpectedCall(call.name, literal=call.arguments) for call in written)
    )
    return Expected(id, calls, read.order, read.category, "native", source, number)


def typed_file(data: bytes, source: str, max_depth: int) -> dict[str, Expected] | None:
    """Every entry of an expected file, by id, where each line is one that
    :func:`typed_entry` reads (the file's lines decoded in one call, not one by one);
    None for any other file (a line that is not, an id expected twice, a blank line):
    then read line by line. ``max_depth``: the reading's nesting limit."""
    body = data[:-1] if data.endswith(b"\n") else data
    breaks = body.count(b"\n")
    # Each line an object alone ({ first and } last: a value cannot then go on past
    # its line, nor a line hold two when there are as many values as lines), no blank
    # line, no carriage return (a line break to splitlines, a space to JSON).
    if (
        not body.startswith(b"{")
        or not body.endswith(b"}")
        or body.count(b"\n{") != breaks
        or body.count(b"}\n") != breaks
        or b"\r" in body
    ):
        return None
    if not body.isascii() and not is_utf8(body):
        return None
    if orjson_may_differ(body):
        return None
    lines = body.split(b"\n")
    braces = map(bytes.count, lines, repeat(b"{"))
    brackets = map(bytes.count, lines, repeat(b"["))
    if any(a + b > max_depth for a, b in zip(braces, brackets, strict=True)):
        return None  # nested deeper than the reading may allow: read line by line
    literal, any_arguments = _line_decoders()
    try:
        reads = literal.decode_lines(body)
    except (msgspec.DecodeError, RecursionError):
        try:
            reads = any_arguments.decode_lines(body)
        except (msgspec.DecodeError, RecursionError):
            return None
        if _may_hold_accept_objects(body) and not all(
            is_literal(value)
            for read in reads
            if read.calls != "any"
            for call in read.calls
            for value in call.arguments.values()
        ):
            return None
    if len(reads) != len(lines):
        return None
    entries: dict[str, Expected] = {}
    for number, read in enumerate(reads, start=1):
        entry = _entry_of(read, source, number)
        entries[entry.id] = entry
    return entries if len(entries) == len(reads) else None


def _may_hold_accept_objects(text: bytes) -> bool:
    """Whether an object of this JSON text may be an accept object: one of its keys may
    be ``accept`` or ``compare`` (written so, or with a ``\\u`` escape in it)."""
    return b'"accept"' in text or b'"compare"' in text or b"\\u" in text
