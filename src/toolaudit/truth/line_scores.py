"""A flat call's line scored at once when its score is sure: one call that reads the
line's id, name and arguments and compares them with the entry's literal values, without
parsing the line into Python objects (``_line_scores.c``; this module is its pure twin,
which answers alike: tests/truth/test_line_scores.py).

Most scored records of a flat log are entries of one call answered by one call. The
Python scorer parses such a line again, makes its call, compares it with the expected
one, makes a Score and counts it (a dozen counters and multisets). Here the line's text
is compared with the literal values themselves, and the entry counted by its shape
(:class:`~toolaudit.results.entry_shapes.EntryShapes`), when nothing can differ from
that path:

- the line is one JSON object (UTF-8: the reader has checked it) with no backslash
  anywhere (no escape to decode), no run of :data:`LONG_RUN` digits (an integer orjson
  may read as a float), no exponent of three digits (a number orjson may refuse),
  nesting less deep than :data:`MAX_DEPTH`, objects of at most :data:`MAX_KEYS` keys in
  its arguments, its id key, ``name``, ``arguments`` and ``model`` each given once, the
  name a string and the arguments an object;
- the id (a string, or an integer's digits; not ``-0``) names an entry not yet scored,
  of one expected call given as literal values (``ExpectedCall.literal``), or of none;
- the entry is then ``correct`` (the same tool; its parameters, none missing, none
  unexpected, each the same JSON type and value at every depth: strings byte for byte,
  integers as integers, fractions as the same double bit for bit, objects' keys in any
  order but none given twice), ``incorrect`` (the same tool and parameters, some
  values surely different, as :func:`compare` tells; or another tool) or an
  ``unwanted_call`` (none expected);
- an entry not correct comes once the section holds its samples (the first incorrect
  entries are kept whole, by Python); with ``--scores``, only a correct one, whose line
  is written here (its category, if any, a string orjson writes as it is).

It is then counted by its shape (:class:`EntryShapes`): the shape's count raised, or its
first entry added by :meth:`~toolaudit.results.ground_truth.GroundTruth.add` (which
keeps the order of the section's tallies) through ``first``.

:func:`score_call` answers alike for a provider record's one call as the typed decode
named it (its id, tool, arguments' JSON text and model), the compare and the count
shared with :func:`score_flat`.

Anything else answers False with nothing changed, and the scorer reads the line as
before: ``1`` against ``1.0``, ``-0.0`` against ``0.0``, a parameter left out that may
have a schema default, an escape, are the Python comparison's to decide.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from toolaudit.compiled import speedups
from toolaudit.jsonutil import may_hold_long_integers
from toolaudit.truth.entries import id_text

if TYPE_CHECKING:
    from toolaudit.truth.entries import Expected

#: Digits in a row from which a line is left to Python (orjson reads 19 as a float).
LONG_RUN = 16
#: Keys an object of the arguments may have (one with more is left to Python).
MAX_KEYS = 64
#: Containers nested this deep (the line's object at depth 0) are left to Python.
MAX_DEPTH = 64

#: Whether the scorer uses the kernel at all (tests turn it off, to compare).
KERNEL_ON = True

#: The C kernel (its ``score_flat`` is this module's), or None.
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


#: What a value of the line is to a literal value (see :func:`compare`).
UNSURE, DIFFERENT, SAME = -1, 0, 1

_SINGLETONS = (True, False, None)


def compare(made: object, literal: object) -> int:
    """What a value of the line (as :func:`_parsed` reads it) is to a literal value, as
    the exact comparison (:func:`~toolaudit.values.json_equal`) tells them apart:
    SAME (equal, and of the same JSON type at every depth), DIFFERENT (surely not
    equal), or UNSURE: ``1`` against ``1.0``, ``-0.0`` against ``0.0``, a key given
    twice, a literal of a type the expected file does not give."""
    kind = type(literal)
    if kind not in (str, int, float, list, dict) and not any(literal is one for one in _SINGLETONS):
        return UNSURE
    if isinstance(made, _Object):
        return _compare_object(made, literal, None) if kind is dict else DIFFERENT
    if isinstance(made, list):
        if kind is not list:
            return DIFFERENT
        assert isinstance(literal, list)
        answer = SAME
        for item, one in zip(made, literal, strict=False):
            found = compare(item, one)
            if found == UNSURE:
                return UNSURE
            answer = min(answer, found)
        return answer if len(made) == len(literal) else DIFFERENT
    if isinstance(made, _Number):
        if type(literal) is int:
            if made.fractional or not -(2**63) <= literal < 2**63:  # (C's long long)
                return UNSURE
            return SAME if int(made.text) == literal else DIFFERENT
        if type(literal) is float:
            if not made.fractional:
                return UNSURE
            value = float(made.text)
            if struct.pack("<d", value) == struct.pack("<d", literal):
                return SAME
            return UNSURE if value == literal else DIFFERENT
        return DIFFERENT
    if type(made) is str:
        return SAME if kind is str and made == literal else DIFFERENT
    return SAME if made is literal else DIFFERENT  # true, false, null


def _compare_object(made: _Object, literal: Any, failed: list[int] | None) -> int:
    """:func:`compare` of an object; with ``failed`` (the call's arguments themselves),
    its keys must be the literal's (else UNSURE: Python knows the defaults), and the
    positions of the parameters that differ are added to it."""
    keys = [key for key, _ in made]
    if len(made) > MAX_KEYS or len(set(keys)) != len(keys):
        return UNSURE
    positions = {key: index for index, key in enumerate(literal)}
    answer = SAME
    for key, value in made:
        if key not in literal:
            if failed is not None:
                return UNSURE
            answer = min(answer, DIFFERENT)
            continue
        found = compare(value, literal[key])
        if found == UNSURE:
            return UNSURE
        if found == DIFFERENT and failed is not None:
            failed.append(positions[key])
        answer = min(answer, found)
    if len(made) != len(literal):
        return UNSURE if failed is not None else DIFFERENT
    return answer


def _id_text(value: object) -> str | None:
    if type(value) is str:
        return value
    if isinstance(value, _Number) and not value.fractional and value.text != "-0":
        return value.text
    return None


def score_flat(
    key: str,
    entries: dict[str, Any],
    scored: dict[str, None],
    shapes: dict[Any, Any],
    most_samples: int,
    first: Callable[..., object],
    write: Callable[[bytes], object] | None,
    source: bytes | None,
    line: bytes,
    tally: Any,
    line_number: int,
) -> bool:
    """The kernel's answer for one line (see the module docstring): True when it has
    scored and counted the line's record (and, with ``write``, written its
    ``--scores`` line: ``source`` is its source's JSON)."""
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
        field = "id" if name == key else name if name in _FIELDS else None
        if field is None:
            continue
        if field in fields:
            return False
        fields[field] = value
    section = tally.ground_truth
    if not {"id", "name", "arguments"} <= fields.keys() or section is None:
        return False
    entry_id = _id_text(fields["id"])
    if entry_id is None or type(fields["name"]) is not str:
        return False
    model = fields.get("model")
    context = (entries, scored, shapes, most_samples, first, write, source)
    made = (entry_id, fields["name"], fields["arguments"], model if type(model) is str else None)
    return _count_scored(context, *made, section, line_number)


def score_call(
    entries: dict[str, Any],
    scored: dict[str, None],
    shapes: dict[Any, Any],
    most_samples: int,
    first: Callable[..., object],
    write: Callable[[bytes], object] | None,
    source: bytes | None,
    id: str,
    name: str,
    arguments: str | bytes,
    model: str | None,
    tally: Any,
    line_number: int,
) -> bool:
    """:func:`score_flat`'s answer for a record's one call as a typed decode named it
    (a provider's record): its id (read at --expected-key), its tool's name, its
    arguments' JSON text (a str: a JSON string's value; else bytes, the JSON value itself
    as the line gives it, from its ``{``), the model that made it. The text must be one
    object (space around it) and, as a flat line is, hold no backslash and no run of
    :data:`LONG_RUN` digits; with ``write``, the id and the model (if any) strings
    orjson writes as they are."""
    if type(id) is not str or type(name) is not str or not (model is None or type(model) is str):
        return False
    if write is not None and not (_plain(id) and (model is None or _plain(model))):
        return False
    try:
        name.encode()
        text = arguments.encode() if isinstance(arguments, str) else bytes(arguments)
    except UnicodeEncodeError:  # (a lone surrogate)
        return False
    if not isinstance(arguments, str) and not text.startswith(b"{"):
        return False  # (bytes are the value as the line gives it: the typed path's test)
    if b"\\" in text or _LONG_DIGITS.search(text):
        return False
    try:
        value = _parsed(text)
    except (_Refused, ValueError, RecursionError):
        return False
    section = tally.ground_truth
    if not (isinstance(value, _Object) and _depth_ok(value, 1)) or section is None:
        return False
    context = (entries, scored, shapes, most_samples, first, write, source)
    return _count_scored(context, id, name, value, model, section, line_number)


#: What :func:`score_flat` and :func:`score_call` are given past the record: entries,
#: scored, shapes, most_samples, first, write, source.
_Context = tuple[
    dict[str, Any],
    dict[str, None],
    dict[Any, Any],
    int,
    Callable[..., object],
    Callable[[bytes], object] | None,
    bytes | None,
]


def _count_scored(
    context: _Context,
    entry_id: str,
    made: str,
    arguments: object,
    model: str | None,
    section: Any,
    line_number: int,
) -> bool:
    """The part of :func:`score_flat` and :func:`score_call` past the record's reading:
    the entry of ``entry_id`` scored against the call made (``arguments`` as
    :func:`_parsed` reads them) and counted in ``section``."""
    entries, scored, shapes, most_samples, first, write, source = context
    entry = entries.get(entry_id)
    if entry is None or entry_id in scored:
        return False
    shape = _shape_of(entry, made, arguments)
    if shape is None:
        return False
    correct, tool, parameters, made, mask = shape
    if not correct and len(section.samples) < most_samples:
        return False
    category = entry.category
    if write is not None and not (correct and (category is None or _plain(category))):
        return False  # (a --scores line: the correct one's, written here)
    counted = shapes.get((id(section), entry.category, tool, parameters, made, mask))
    if counted is not None:
        counted.waiting += 1
    else:  # the shape's first entry: added by GroundTruth.add, the shape kept
        first(section, entry.category, tool, parameters, made, mask)
    scored[entry_id] = None
    if write is not None:
        assert source is not None
        row = correct_row(entry, 0, model, (orjson.loads(source), line_number))
        write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
    return True


#: The fields of the line read besides the id (a model given twice is left to Python).
_FIELDS = ("name", "arguments", "model")


def _plain(text: str) -> bool:
    """Whether orjson writes the str as its UTF-8 between quotes (nothing escaped)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return not any(character < " " or character in '"\\' for character in text)


def _shape_of(
    entry: Any, made: object, arguments: object
) -> tuple[bool, str | None, tuple[str, ...], str, int] | None:
    """Whether the entry is correct, and its shape's key past its section and category,
    where it is sure; else None."""
    calls = entry.calls
    if type(calls) is not tuple or len(calls) > 1:
        return None
    if type(made) is not str or not isinstance(arguments, _Object):
        return None
    if not calls:
        return False, None, (), made, 0
    literal, tool = calls[0].literal, calls[0].name
    if type(literal) is not dict or type(tool) is not str or len(literal) > 64:
        return None
    parameters = tuple(literal)
    if made != tool:
        return False, tool, parameters, made, (1 << len(parameters)) - 1
    failed: list[int] = []
    found = _compare_object(arguments, literal, failed)
    if found == UNSURE:
        return None
    if found == DIFFERENT and any("." in name or "[" in name for name in parameters):
        return None  # another parameter's mismatch paths could name this one
    return found == SAME, tool, parameters, tool, sum(1 << index for index in failed)


def correct_row(
    entry: Expected, index: int, model: object, where: tuple[str | None, int | None]
) -> dict[str, Any]:
    """The ``--scores`` line of an entry of one call answered right by the call at
    ``index`` (what :func:`toolaudit.pipeline.scoring.score_row` makes of its Score;
    the C kernel writes the same bytes)."""
    return {
        "id": entry.id,
        "category": entry.category,
        "model": model,
        "outcome": "correct",
        "correct": True,
        "mismatches": [],
        "pairing": [[index, 0]],
        "source": where[0],
        "line": where[1],
    }


class CallKernel:
    """The typed reader's scoring of a provider record's one call (``CallKernel`` of
    ``_line_scores.c``, which answers alike): :func:`score_call`'s arguments kept once,
    ``key`` the id's top-level key (--expected-key). The reader asks :meth:`id_of` before
    it counts a line and :meth:`score` once it has."""

    __slots__ = ("_context", "key")

    def __init__(
        self,
        key: str,
        entries: dict[str, Any],
        scored: dict[str, None],
        shapes: dict[Any, Any],
        most_samples: int,
        first: Callable[..., object],
        write: Callable[[bytes], object] | None,
        source: bytes | None,
    ) -> None:
        self.key = key
        self._context = (entries, scored, shapes, most_samples, first, write, source)

    def id_of(self, line: bytes, calls: object) -> str | bool | None:
        """False where the line may hold an integer past 64 bits (the general path's, as
        ``may_hold_long_integers`` tells it: before the line is counted); the id at the
        key (a string, or an integer's digits) where ``calls`` is one call whose
        arguments' text the kernel takes (a str, or bytes from ``{``), whether the id has
        an entry or not (:meth:`score` looks it up); else None, and the scorer reads the
        line (``Scorer.typed_calls``: a key that is a dotted path too). The C answers None
        also where ``id_at`` does (an escape in a top-level key or in the id)."""
        if may_hold_long_integers(line):
            return False
        if "." in self.key or type(calls) is not list or len(calls) != 1:
            return None
        call = calls[0]
        if type(call) is not tuple or len(call) != 3:
            return None
        arguments = call[2]
        if type(arguments) is not str and not bytes(arguments).startswith(b"{"):
            return None
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        return id_text(record.get(self.key)) if type(record) is dict else None

    def score(
        self, id: str, calls: object, model: str | None, tally: Any, line_number: int
    ) -> bool:
        """:func:`score_call`'s answer for the one call of ``calls``."""
        if type(calls) is not list or len(calls) != 1:
            return False
        _, name, arguments = calls[0]
        return score_call(*self._context, id, name, arguments, model, tally, line_number)


def kernel() -> Callable[..., bool]:
    """``score_flat`` in C where it was built, else this module's."""
    return SPEEDUPS.score_flat if SPEEDUPS is not None else score_flat


def call_kernel_type() -> type[CallKernel]:
    """``CallKernel`` in C where it was built, else this module's."""
    return SPEEDUPS.CallKernel if SPEEDUPS is not None else CallKernel
