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
"""

from __future__ import annotations

import functools
from collections.abc import Callable
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
def decoders() -> tuple[Callable[[bytes], Any], Callable[[bytes], Any]]:
    """The decoders of native lines whose arguments are literal values only (most lines:
    nothing left to check in Python), and of those whose arguments are any values (then
    each to be checked by ``is_literal``)."""
    return (
        msgspec.json.Decoder(_line(_Literal)).decode,
        msgspec.json.Decoder(_line(_Argument)).decode,
    )


#: What the decoders raise for a line they refuse.
DecodeError = msgspec.DecodeError


def typed_entry(line: bytes, source: str, number: int) -> Expected | None:
    """The entry of one expected line (nesting less deep than the reading's limit), or
    None: :func:`~toolaudit.truth.expected.read_entry` reads it."""
    if not line.isascii() and not is_utf8(line):
        return None  # msgspec does not check the UTF-8 of what it skips
    if orjson_may_differ(line):
        return None  # an integer past 64 bits, 1e-400: read exactly by the reading
    literal, any_arguments = decoders()
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
    # (An integer id is read as its digits; msgspec refuses true.)
    id = read.id if type(read.id) is str else str(read.id)
    written = read.calls
    calls: tuple[ExpectedCall, ...] | None
    if written == "any":
        calls = None
    elif len(written) == 1:  # most lines (a generator costs more than the one call)
        calls = (ExpectedCall(written[0].name, literal=written[0].arguments),)
    else:
        calls = tuple([ExpectedCall(call.name, literal=call.arguments) for call in written])
    return Expected(id, calls, read.order, read.category, "native", source, number)
