"""The audit's typed fast path: a line decoded into its format's typed shape, and each
call's arguments into its tool's typed struct, by msgspec, without the general path.

It only ever says "valid": a call whose arguments its tool's decoder does not take is
handed back, as the :class:`~toolaudit.formats.Call` the format's extractor would have
made, for the general judge to decide; a line it cannot read as a whole goes to the
general path unread. So the rows and the summary are the general path's, byte for byte
(tests/pipeline/test_typed_path.py compares them on every case, the real corpus and
generated records).
"""

from __future__ import annotations

import msgspec
import orjson

from toolaudit.contract import Validator
from toolaudit.formats import OBJECT, Call
from toolaudit.formats.typed import TypedShape, typed_shapes
from toolaudit.jsonutil import orjson_may_differ
from toolaudit.typed.arguments import accepts, arguments_decoders

#: A call the typed path read: (its index, its id, and the tool it counts under when
#: it is valid, or else the call for the general judge).
Found = tuple[int, object, "str | Call"]

_FAILED = (msgspec.DecodeError, RecursionError)
#: Fewer opening brackets than this cannot nest as deep as the standard library's
#: limit (about 990 levels), where it and msgspec part ways by a few levels.
MOST_OPENING_BRACKETS = 900


class TypedReader:
    """Reads lines of the formats with a typed shape, against one validator's tools."""

    __slots__ = ("_by_format", "_decoders", "_off", "_tools", "current")

    def __init__(self, validator: Validator, input_format: str | None = None) -> None:
        shapes = [
            shape
            for shape in typed_shapes()
            if input_format is None or shape.format == input_format
        ]
        self._by_format = {shape.format: shape for shape in shapes}
        #: The shape lines are tried as: the format the last line read was of.
        self.current: TypedShape | None = shapes[0] if shapes else None
        self._tools = {name: tool.name for name, tool in validator.tools.items()}
        self._decoders = arguments_decoders(validator)
        self._off = False

    @property
    def formats(self) -> frozenset[str]:
        return frozenset(self._by_format)

    def seen(self, format_name: str) -> None:
        """The general path read a record of this format: try its shape next (or none)."""
        if not self._off:
            self.current = self._by_format.get(format_name)

    def stop(self) -> None:
        """A record defined tools for the records after it (an MCP tools/list result, a
        batch input line): those are not the validator's, so the general path reads
        every line from now on."""
        self.current, self._off = None, True

    def read(self, line: bytes) -> tuple[str | None, list[Found]] | None:
        """(the model, the calls) of a line the typed path can read; None: the general
        path reads it."""
        shape = self.current
        assert shape is not None
        # msgspec does not check the UTF-8 of what it skips; the general path does.
        if not line.isascii():
            try:
                line.decode()
            except UnicodeDecodeError:
                return None
        if line.count(b"[") + line.count(b"{") > MOST_OPENING_BRACKETS:
            # Nesting this deep may be refused by the standard library, which parses
            # the lines orjson refuses, and not by msgspec: the general path decides.
            return None
        try:
            record = shape.decoder.decode(line)
        except _FAILED:
            return None
        named = shape.calls(record)
        if named is None:
            return None
        model, calls = named
        found: list[Found] = []
        tools, decoders = self._tools, self._decoders
        for index, (call_id, name, arguments) in enumerate(calls):
            decoder = decoders.get(name)
            if decoder is not None and accepts(decoder, arguments):
                # Exact: integers bounded to 64 bits, 1e400 refused. So valid here is
                # valid for the general path, whichever way it parses the line.
                found.append((index, call_id, tools[name]))
            elif orjson_may_differ(line):
                # orjson, the general path's parser, may refuse a number of this line or
                # round one: its verdict on this call is then the standard library's.
                return None
            elif isinstance(arguments, str):
                found.append((index, call_id, Call(index, name, arguments, id=call_id)))
            else:
                try:
                    value = orjson.loads(bytes(arguments))  # as the line's parse made it
                except orjson.JSONDecodeError:
                    return None  # orjson refuses the line: the general path is exact then
                found.append(
                    (index, call_id, Call(index, name, value, id=call_id, encoding=OBJECT))
                )
        return model, found
