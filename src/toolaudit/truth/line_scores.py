"""A flat call's line scored at once when its entry is surely answered right: one call
that reads the line's id, name and arguments and compares them with the entry's literal
values, without parsing the line into Python objects (``_line_scores.c``; this module
is its pure twin, which answers alike: tests/truth/test_line_scores.py).

Most scored records of a flat log are entries of one call answered right. The Python
scorer parses such a line again, makes its call, dumps both argument objects sorted and
compares the texts (:func:`~toolaudit.truth.match.surely_correct`), then counts the
entry per shape (:class:`~toolaudit.results.correct_calls.CorrectCalls`). Here the
line's text is compared with the literal values themselves, and the shape's count
raised, when nothing can differ from that path:

- the line is one JSON object (UTF-8: the reader has checked it) with no backslash
  anywhere (no escape to decode), no run of :data:`LONG_RUN` digits (an integer orjson
  may read as a float), no exponent of three digits (a number orjson may refuse),
  nesting less deep than :data:`MAX_DEPTH`, objects of at most :data:`MAX_KEYS` keys in
  its arguments, and its id key, ``name`` and ``arguments`` each given once;
- the id (a string, or an integer's digits; not ``-0``) names an entry not yet scored,
  of one expected call given as literal values (``ExpectedCall.literal``);
- the name is the call's, and the arguments are its values: the same JSON type and
  value at every depth (strings byte for byte, integers as integers, fractions as the
  same double bit for bit, objects' keys in any order but none given twice);
- the entry's shape is one :class:`CorrectCalls` counts already (its first entry is
  added by :meth:`~toolaudit.results.ground_truth.GroundTruth.add`, which keeps the
  order of the section's tallies).

Anything else answers False with nothing changed, and the scorer reads the line as
before: ``1`` against ``1.0``, ``-0.0`` against ``0.0``, a parameter left out that may
have a schema default, an escape, are the Python comparison's to decide.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable
from typing import Any

from toolaudit.compiled import speedups

#: Digits in a row from which a line is left to Python (orjson reads 19 as a float).
LONG_RUN = 16
#: Keys an object of the arguments may have (one with more is left to Python).
MAX_KEYS = 64
#: Containers nested this deep (the line's object at depth 0) are left to Python.
MAX_DEPTH = 64

#: Whether the scorer uses the kernel at all (tests turn it off, to compare).
KERNEL_ON = True

#: ``correct_flat(key, entries, scored, shapes, line, tally)``: the C kernel, or None.
SPEEDUPS = speedups("toolaudit.truth._line_scores")

_LONG_DIGITS = re.compile(rb"[0-9]{%d}" % LONG_RUN)
_BIG_EXPONENT = re.compile(r"[eE][+-]?[0-9]{3}")


class _Refused(Exception):
    """A line the kernel does not read."""


class _Object(list[tuple[str, object]]):
    """An object's (key, value) pairs as the line gives them, repeated keys kept."""


class _Number:
    """A number token's text, kept to be compared as the kernel compares it."""

    __slots__ = ("fractional", "text")

    def __init__(self, text: str, fractional: bool) -> None:
        if fractional and _BIG_EXPONENT.search(text):
            raise _Refused
        self.text = text
        self.fractional = fractional


def _refuse(text: str) -> object:
    raise _Refused


def _parsed(line: bytes) -> object:
    return json.loads(
        line.decode("utf-8"),
        object_pairs_hook=_Object,
        parse_int=lambda text: _Number(text, False),
        parse_float=lambda text: _Number(text, True),
        parse_constant=_refuse,
    )


def _depth_ok(value: object, depth: int) -> bool:
    if isinstance(value, _Object):
        return depth < MAX_DEPTH and all(_depth_ok(item, depth + 1) for _, item in value)
    if isinstance(value, list):
        return depth < MAX_DEPTH and all(_depth_ok(item, depth + 1) for item in value)
    return True


def same_value(made: object, literal: object) -> bool:
    """Whether a value of the line (as :func:`_parsed` reads it) is the literal value."""
    if isinstance(made, _Object):
        if type(literal) is not dict or len(made) != len(literal) or len(made) > MAX_KEYS:
            return False
        keys = [key for key, _ in made]
        if len(set(keys)) != len(keys):
            return False
        return all(key in literal and same_value(value, literal[key]) for key, value in made)
    if isinstance(made, list):
        return (
            type(literal) is list
            and len(made) == len(literal)
            and all(same_value(item, one) for item, one in zip(made, literal, strict=True))
        )
    if isinstance(made, _Number):
        if made.fractional:
            return type(literal) is float and struct.pack("<d", float(made.text)) == struct.pack(
                "<d", literal
            )
        return type(literal) is int and int(made.text) == literal
    if type(made) is str:
        return type(literal) is str and made == literal
    return made is literal  # true, false, null


def _id_text(value: object) -> str | None:
    if type(value) is str:
        return value
    if isinstance(value, _Number) and not value.fractional and value.text != "-0":
        return value.text
    return None


def correct_flat(
    key: str,
    entries: dict[str, Any],
    scored: dict[str, None],
    shapes: dict[Any, Any],
    line: bytes,
    tally: Any,
) -> bool:
    """The kernel's answer for one line (see the module docstring): True when it has
    scored and counted the line's record."""
    if b"\\" in line or _LONG_DIGITS.search(line):
        return False
    try:
        record = _parsed(line)
    except (_Refused, ValueError, RecursionError):
        return False
    if not isinstance(record, _Object) or not _depth_ok(record, 0):
        return False
    fields: dict[str, object] = {}
    for name, value in record:
        field = "id" if name == key else name if name in ("name", "arguments") else None
        if field is None:
            continue
        if field in fields:
            return False
        fields[field] = value
    if len(fields) != 3 or tally.ground_truth is None:
        return False
    entry_id = _id_text(fields["id"])
    if entry_id is None:
        return False
    entry = entries.get(entry_id)
    if entry is None or entry_id in scored:
        return False
    calls = entry.calls
    if type(calls) is not tuple or len(calls) != 1:
        return False
    call = calls[0]
    literal, tool = call.literal, call.name
    made_name, arguments = fields["name"], fields["arguments"]
    if type(literal) is not dict or type(tool) is not str or made_name != tool:
        return False
    if not isinstance(arguments, _Object) or not same_value(arguments, literal):
        return False
    shape = shapes.get((id(tally.ground_truth), entry.category, tool, tuple(literal)))
    if shape is None:
        return False
    shape.waiting += 1
    scored[entry_id] = None
    return True


def kernel() -> Callable[[str, dict[str, Any], dict[str, None], dict[Any, Any], bytes, Any], bool]:
    """``correct_flat`` in C where it was built, else this module's."""
    return SPEEDUPS.correct_flat if SPEEDUPS is not None else correct_flat
