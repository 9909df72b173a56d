"""Flat calls, ``{"name": ..., "arguments": {...}, ...}``, decoded whole by one typed
decoder: a tagged union of one struct per tool, picked by ``name``, whose
``arguments`` is that tool's arguments struct (see :mod:`toolaudit.typed.arguments`).

One decode of the line both reads it and validates the call, where reading the line
and then its arguments takes two (measured on the benchmark's flat log: 0.84x the
time orjson takes to parse the lines alone, against 2.5x for orjson and the
contract's check). As everywhere on the typed path, decoding succeeds only for a
call the contract calls valid; the reader judges any other flat call as the audit's
inline path does (orjson and the contract), and leaves any other line to the general
path.

The union holds the tools the log has called so far (:meth:`FlatCalls.add`), not
every tool of the schemas: a schema set of thousands of tools costs only those a
log calls. What msgspec does that this relies on (each has a test in
tests/typed/test_flat.py):

- the tag may come anywhere in the object, and its string is compared decoded
  (escapes read); a tag no struct has is refused, so is a missing or non-string one;
- a ``name`` given twice with another value is refused (orjson keeps the last);
- a single tagged struct would take a record without a tag: the union always holds
  one more struct, which no record can decode into (:data:`_NO_CALL`);
- unknown keys of the record are skipped, as the flat format ignores them.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET, Struct, UnsetType

from toolaudit.typed.arguments import DecodersOnDemand, encodes
from toolaudit.typed.deep_strings import DEC_HOOK

#: The struct no record decodes into (its arguments must be both given and absent),
#: under a tag that is no tool's: it keeps a union of one tool a union.
_NO_CALL_TAG = "\x00no tool"
_NO_CALL = msgspec.defstruct(
    "NoCall", [("arguments", UnsetType)], tag_field="name", tag=_NO_CALL_TAG, gc=False
)

#: What a flat record's fields are read as: an id or a model's name is a string or
#: null, as the inline path reads them; a value of another type is refused.
_Text = str | None


class FlatCall(Struct, gc=False):
    """A valid flat call, as decoded: the fields the flat format reads besides the
    arguments. ``tool`` (a class attribute of each tool's struct) is the tool's name.
    """

    tool = ""
    id: _Text = None
    #: An OpenAI Responses item logged alone names its call here (its id is the item's).
    call_id: _Text | UnsetType = UNSET
    model: _Text = None

    @property
    def call_id_or_id(self) -> object:
        """The call's id as :func:`toolaudit.formats.flat.call_id` reads it."""
        return self.id if self.call_id is UNSET else self.call_id


class FlatCalls:
    """The decoder of flat calls to the tools added so far (None before the first).

    The union is built again as tools are added: at once while it is small, then
    when the tools waiting reach an eighth of it, or have been called
    MOST_WAITING_CALLS times, so that a log calling thousands of tools rebuilds it
    a few dozen times, not thousands (a waiting tool's calls are judged by the
    contract meanwhile).
    """

    __slots__ = (
        "_decoders",
        "_structs",
        "_untyped",
        "_waiting",
        "_waiting_calls",
        "decode",
        "failing",
        "lines",
    )

    #: Names of tools that cannot be typed kept, at most (as in DecodersOnDemand).
    MOST_UNTYPED = 10_000
    #: The lines that decide whether decoding is worth trying: about the last this many.
    RECENT_LINES = 8192
    #: Calls to waiting tools that make the union be built again however few they are
    #: (about what one build of a thousand tools costs, in calls judged the slow way).
    MOST_WAITING_CALLS = 256

    def __init__(self, decoders: DecodersOnDemand) -> None:
        self._decoders = decoders
        self._structs: dict[str, type[FlatCall]] = {}
        self._waiting: dict[str, type[FlatCall]] = {}
        self._waiting_calls = 0
        self._untyped: set[str] = set()
        #: Decodes a line into its FlatCall; raises what msgspec raises for any other.
        self.decode: Any = None
        #: Lines read of late, and how many of them held a failing call (the reader
        #: counts them).
        self.lines = self.failing = 0

    def decoder_worth_trying(self) -> Any:
        """The decoder, unless a third of the recent calls or more failed: a decode that
        fails costs about twice what one that succeeds saves (a refusal is an exception
        msgspec words, about 1.6 us), so then orjson and the contract alone are faster."""
        if self.lines > self.RECENT_LINES:
            self.lines //= 2
            self.failing //= 2
        return self.decode if self.failing * 3 < self.lines or self.lines < 256 else None

    def __contains__(self, name: str) -> bool:
        return name in self._structs

    def add(self, name: str, tool: str) -> None:
        """The log called the tool ``tool`` by ``name`` (its own name or an alias), and its
        decoder did not read the call."""
        if name in self._structs or name in self._untyped:
            return
        if name in self._waiting:
            self._waiting_calls += 1
        else:
            struct = self._struct(name, tool)
            if struct is None:
                if len(self._untyped) < self.MOST_UNTYPED:
                    self._untyped.add(name)
                return
            self._waiting[name] = struct
        if (
            len(self._waiting) >= max(1, len(self._structs) // 8)
            or self._waiting_calls >= self.MOST_WAITING_CALLS
        ):
            self._structs.update(self._waiting)
            self._waiting.clear()
            self._waiting_calls = 0
            union: Any = Union[tuple([*self._structs.values(), _NO_CALL])]  # noqa: UP007
            self.decode = msgspec.json.Decoder(union, dec_hook=DEC_HOOK).decode

    def _struct(self, name: str, tool: str) -> type[FlatCall] | None:
        decoder = self._decoders[name]
        if decoder is None or name == _NO_CALL_TAG or not encodes(name):
            return None
        struct: type[FlatCall] = msgspec.defstruct(  # type: ignore[assignment]
            "FlatCall",
            [("arguments", decoder.type)],
            bases=(FlatCall,),
            namespace={"tool": tool},
            tag_field="name",
            tag=name,
            kw_only=True,
            gc=False,
        )
        return struct
