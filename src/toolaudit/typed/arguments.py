"""A typed decoder of each tool's arguments: JSON text in, "valid" or "ask the contract" out.

:func:`arguments_decoder` builds, from a compiled tool, a msgspec struct whose
decoding succeeds only on arguments the contract calls valid; it may refuse
valid ones, which then go to :meth:`ToolValidator.check`, the only judge of
errors. :func:`accepts` is the way to ask a decoder: it adds the checks msgspec
leaves out. Nothing is executed: the structs are made with ``defstruct``.

What msgspec does that this relies on (msgspec 0.23; each has a test in
tests/typed/test_arguments.py):

- ``int`` refuses ``true``, ``1.0`` and ``1e2``, and reads integers of any size
  exactly; the decoders bound it to 64 signed bits (``msgspec.Meta``), so that a
  larger integer, which orjson would read as a float, is the general path's to judge.
  ``int | float`` (number) refuses booleans;
  ``float`` alone takes integers too, so it is never used without ``int``;
  as exact for number, it refuses integers beyond a double, which ``int | float``
  takes, at the same speed (measured).
  ``1e400`` is "out of range" where the standard library reads infinity, a
  number: refused, as valid calls may be.
- ``bool`` refuses ``0`` and ``1``; ``None`` takes ``null`` only.
- ``Literal`` keeps ``true`` apart from ``1`` and refuses ``1.0`` for ``1``; it holds
  strings, booleans, None and integers of 64 signed bits only. Any other enum
  value (a fraction, a huge integer, an array) is left out of the literal: a
  call sending it takes the general path.
- A key given twice: every value is validated and the last one kept, so an
  accepted call's last value (the one the contract judges) is valid.
- Unknown keys are refused (``forbid_unknown_fields``); a missing required one too.
- Strings: lone surrogate escapes are refused (the contract takes them: a
  refusal), raw control characters too, as by the standard library; a ``str``
  holding a lone surrogate cannot be encoded (``UnicodeEncodeError``).
- What a ``Raw`` holds is checked as JSON (structure, escapes, numbers) but its
  UTF-8 is not: :func:`accepts` checks the UTF-8 of bytes itself.
- ``NaN``, ``Infinity``, a byte order mark, a top level other than an object
  and trailing data are refused.
- Nesting: msgspec stops at the interpreter's recursion limit, a few levels
  deeper than the standard library, so :func:`accepts` leaves a text of more
  than 255 opening brackets to the general path.
- ``int`` refuses an integer of more digits than Python converts (4300 by
  default), as the standard library does; a ``Raw`` skips over it, so
  :func:`accepts` leaves a text holding such a run of digits to the general path.
- A renamed field may not hold ``\\``, ``"``, control characters or lone
  surrogates: such a parameter, when optional, is left out of the struct (a
  call using it is refused as holding an unknown field); required, it leaves
  the tool untyped. A parameter no value of which could be accepted (an empty
  enum or type list) is left out the same way.
- A struct's decoding time grows with its number of fields: past about a
  hundred, orjson and the contract's loop are faster (measured), so such tools
  are not typed.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

import msgspec

from toolaudit.contract import ToolValidator, Validator
from toolaudit.jsonutil import opening_brackets
from toolaudit.values import ALL_KINDS, value_kind

Decoder = msgspec.json.Decoder[Any]

#: The msgspec type that takes the JSON values of each value kind, and nothing else.
TYPE_OF_KIND: dict[str, Any] = {
    "string": str,
    # 64 signed bits: a larger integer is left to the general path, whose orjson parse
    # reads it as a float first (and then the line again, exactly).
    "integer": Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)],
    "float": float,
    "boolean": bool,
    "null": None,
    "array": list[msgspec.Raw],
    "object": dict[str, msgspec.Raw],
}

#: Tools with more parameters than this are left to the general path (faster there).
MOST_PARAMETERS = 100

#: Texts with more opening brackets than this may nest deeper than the standard
#: library can follow; orjson, the general path's first parser, stops at 255 too.
MOST_OPENING_BRACKETS = 255

#: A text no longer than this can neither nest that deep nor hold an integer too long
#: for Python: its decoder alone decides it (the reader's loop skips :func:`accepts`).
DECODER_DECIDES_LENGTH = 2 * MOST_OPENING_BRACKETS

# Python's limit on the digits of an int read from text (0: none; absent before 3.10.7).
_INT_DIGITS_LIMIT = getattr(sys, "get_int_max_str_digits", lambda: 0)

# What decoding raises for a text it refuses: msgspec's own errors (ValidationError
# among them), nesting beyond the recursion limit, a str holding a lone surrogate.
REFUSALS = (msgspec.DecodeError, RecursionError, UnicodeEncodeError)

_LITERAL_INTEGERS = range(-(2**63), 2**63)

#: What :func:`value_type` gives for a parameter none of whose values a decoder accepts.
REFUSED: Any = object()


def arguments_decoder(tool: ToolValidator) -> Decoder | None:
    """The typed decoder of ``tool``'s arguments; None when the tool cannot be typed
    (a subclass such as deep mode's, which checks more; a required name that no
    struct can hold; too many parameters)."""
    if type(tool) is not ToolValidator or len(tool.parameters) > MOST_PARAMETERS:
        return None
    required = set(tool.required)
    if not required <= tool.parameters.keys():
        return None  # a required name that is not declared: no call is valid
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    rename: dict[str, str] = {}
    for name, param in tool.parameters.items():
        if not isinstance(name, str):
            continue  # no JSON key equals it: it can never be given
        accepted = value_type(param.accepted_kinds, param.enum) if can_be_renamed(name) else REFUSED
        if accepted is REFUSED:
            if name in required:
                return None
            continue
        field = f"f{len(fields)}"
        rename[field] = name
        if name in required:
            fields.append((field, accepted))
        else:
            fields.append((field, accepted, msgspec.UNSET))
    struct = msgspec.defstruct(
        "Arguments", fields, kw_only=True, forbid_unknown_fields=True, rename=rename, gc=False
    )
    return msgspec.json.Decoder(struct, strict=True)


class DecodersOnDemand(dict[str, "Decoder | None"]):
    """The decoder of each of ``validator``'s tools by the name a call gives, built the
    first time a call names the tool (None: the tool cannot be typed, or there is no tool
    of that name): a schema set of thousands of tools costs only the ones a log calls.
    An alias shares its tool's decoder. Read it with ``decoders[name]``."""

    #: Names of no tool kept (as None), at most: models invent names without end.
    MOST_UNKNOWN = 10_000

    def __init__(
        self, validator: Validator, build: Callable[[ToolValidator], Decoder | None] | None = None
    ) -> None:
        super().__init__()
        self._tools = validator.tools
        #: Builds a tool's decoder: :func:`arguments_decoder`, or deep mode's.
        self._build = build if build is not None else arguments_decoder
        self._built: dict[int, Decoder | None] = {}
        self._unknown = 0

    def __missing__(self, name: str) -> Decoder | None:
        tool = self._tools.get(name)
        if tool is None:
            if self._unknown < self.MOST_UNKNOWN:
                self._unknown += 1
                self[name] = None
            return None
        if id(tool) not in self._built:
            self._built[id(tool)] = self._build(tool)
        decoder = self[name] = self._built[id(tool)]
        return decoder


def arguments_decoders(validator: Validator) -> dict[str, Decoder]:
    """The decoder of each of ``validator``'s tools that can be typed, under every name
    the tool is called by (an alias shares its tool's decoder), all built now."""
    on_demand = DecodersOnDemand(validator)
    return {name: decoder for name in validator.tools if (decoder := on_demand[name]) is not None}


JSONText = str | bytes | bytearray | memoryview | msgspec.Raw


def accepts(decoder: Decoder, arguments: JSONText) -> bool:
    """Whether ``decoder`` takes this arguments JSON text: True only for arguments the
    contract calls valid; False means "ask the contract" (which may still find them valid)."""
    if not isinstance(arguments, str):
        arguments = bytes(arguments)  # no copy when it is bytes already
        if not arguments.isascii() and not is_utf8(arguments):
            return False
    # Both need long texts (nesting twice as many characters as its depth; Python's digit
    # limit is 640 at least): most texts are shorter, and cost one comparison.
    if len(arguments) > DECODER_DECIDES_LENGTH and beyond_decoders(arguments):
        return False
    try:
        decoder.decode(arguments)
    except REFUSALS:
        return False
    return True


#: A line with fewer opening brackets than this cannot nest as deep as the standard
#: library's limit (about 990 levels), where it and msgspec part ways by a few levels.
MOST_LINE_BRACKETS = 900


def line_beyond_decoders(line: bytes) -> bool:
    """Whether a log line is the general path's to read whatever a typed decode of it says:
    UTF-8 msgspec does not check (in what it skips), or brackets enough to nest deeper
    than the standard library, which parses the lines orjson refuses, follows."""
    if not line.isascii() and not is_utf8(line):
        return True
    return len(line) > MOST_LINE_BRACKETS and (opening_brackets(line) > MOST_LINE_BRACKETS)


def is_utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def beyond_decoders(text: str | bytes) -> bool:
    """Whether ``text`` may nest deeper than the standard library follows, or hold an
    integer of more digits than Python reads: then no decoder may decide it alone.
    Only a text longer than DECODER_DECIDES_LENGTH can."""
    return _may_nest_deeply(text) or _may_hold_huge_integer(text)


def _may_nest_deeply(text: str | bytes) -> bool:
    """Whether ``text`` holds more opening brackets than MOST_OPENING_BRACKETS (in strings too)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") > MOST_OPENING_BRACKETS
    return opening_brackets(text) > MOST_OPENING_BRACKETS


def _may_hold_huge_integer(text: str | bytes) -> bool:
    """Whether ``text`` holds a run of more digits than Python turns into an int (4300 by
    default): the standard library refuses such an integer, a Raw skips over it."""
    limit = _INT_DIGITS_LIMIT()
    if not limit or len(text) <= limit:
        return False
    run = f"[0-9]{{{limit + 1}}}"
    if isinstance(text, str):
        return re.search(run, text) is not None
    return re.search(run.encode(), text) is not None


def can_be_renamed(name: str) -> bool:
    """Whether msgspec takes ``name`` as a field's JSON name."""
    return not ('"' in name or "\\" in name or any(ord(char) < 0x20 for char in name)) and (
        encodes(name)
    )


def value_type(accepted_kinds: frozenset[str] | None, enum: tuple[object, ...] | None) -> Any:
    """The msgspec type of the values a decoder accepts for a parameter, or REFUSED."""
    kinds = accepted_kinds if accepted_kinds is not None else ALL_KINDS
    if enum is not None:
        literals = _literals(enum, kinds)
        return Literal[literals] if literals else REFUSED
    if not kinds or ("float" in kinds and "integer" not in kinds):
        return REFUSED  # nothing is accepted, or msgspec's float would take integers
    if kinds >= ALL_KINDS:
        return msgspec.Raw
    return Union[tuple(TYPE_OF_KIND[kind] for kind in TYPE_OF_KIND if kind in kinds)]  # noqa: UP007


def _literals(enum: tuple[object, ...], kinds: frozenset[str]) -> tuple[object, ...]:
    """The enum values a ``Literal`` can hold exactly, of the kinds the type accepts;
    keyed by type too, since ``True`` and ``1`` are one dict key."""
    literals: dict[tuple[type, object], object] = {}
    for allowed in enum:
        literal = literal_of(allowed)
        if literal is not REFUSED and value_kind(literal) in kinds:
            literals[(type(literal), literal)] = literal
    return tuple(literals.values())


def literal_of(allowed: object) -> object:
    """The one value of a ``Literal`` that accepts what JSON-equals ``allowed``, or REFUSED."""
    allowed_type = type(allowed)
    if allowed_type is str:
        assert isinstance(allowed, str)
        return allowed if encodes(allowed) else REFUSED
    if allowed_type is bool or allowed is None:
        return allowed
    if allowed_type is float:
        assert isinstance(allowed, float)
        if not (math.isfinite(allowed) and allowed.is_integer()):
            return REFUSED  # a fraction, NaN or infinity: no Literal holds it
        allowed = int(allowed)  # 2.0 JSON-equals 2, which Literal[2] takes (and refuses 2.0)
        allowed_type = int
    if allowed_type is int and allowed in _LITERAL_INTEGERS:
        return allowed
    return REFUSED


def encodes(text: str) -> bool:
    """Whether ``text`` is UTF-8 (holds no lone surrogate)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True
