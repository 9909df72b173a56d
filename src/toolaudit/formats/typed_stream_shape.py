"""What the typed stream shapes share (:mod:`toolaudit.formats.typed_streams`): the shape,
the lanes a decoded line may take into the open streams
(:mod:`toolaudit.formats.stream_lanes`), the types of indices and texts, and the quick
decoders.

A shape's full record forbids every other format's gate keys (:func:`typed.gated_record`): its
struct has a field for each of them, some thirty, and msgspec looks each key of a line up
among them and fills every one a line lacks, a quarter of a chunk's decode. Its quick
record has only the fields the shape reads and the other keys its lines commonly hold
(``Extra``: skipped, not read), and refuses any other key: what it decodes, the full record
decodes to the same values (the same fields, of the same types; the keys it allows are no
gate keys), and a line it refuses goes to the full decoder
(:class:`QuickDecoding`), which reads it as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from msgspec import Raw, UnsetType

from toolaudit.formats.registry import Registry
from toolaudit.formats.stream_steps import MOST_INDEX, StreamStep
from toolaudit.formats.typed import DECODE_FAILURES, gated_record

#: The lanes, each the first item of its tuples, the rest the arguments of the
#: StreamLanes method it names, the line and its context left out:
APPEND = 0  # append(key, slot, group, text, model)
ACCOMPANY = 1  # touch(key, model, accompanies=True)
CONTINUE = 2  # touch(key, model, accompanies=False)
BEGIN_CALL = 3  # begin_call(key, slot, group, call_id, name, text, placeholder, model, may_begin)
BEGIN_STREAM = 4  # begin_stream(key, model)
END = 5  # end(key, group, model)
Lane = tuple[Any, ...]

#: A choice, call or block index, as :func:`~toolaudit.formats.stream_steps.is_index`
#: takes one (msgspec's strict ``int`` refuses booleans).
Index = Annotated[int, msgspec.Meta(ge=0, le=MOST_INDEX)]
#: A text read as it is: any other type is refused, never converted.
Text = str | None
#: A key a record's lines commonly hold beside what the shape reads: in the quick record
#: only, taken as it is and never read (the full record ignores it as any unknown key).
Extra = Raw | UnsetType
#: A record's field: (its key, its type[, its default]).
Field = tuple[Any, ...]

#: After this many lines its quick record refused, a reader decodes with the full one
#: alone: a log whose lines hold another key pays for refused quick decodes (each some
#: 8,000 instructions, beside the full decode's 13,000) a bounded number of times.
MOST_QUICK_MISSES = 1_000


def full_record(name: str, fields: list[Field], registry: Registry) -> type[msgspec.Struct]:
    """The record of ``fields`` but the extras, every other gate key forbidden."""
    return gated_record(name, [field for field in fields if field[1] is not Extra], registry)


def quick_decoder(name: str, fields: list[Field], registry: Registry) -> msgspec.json.Decoder[Any]:
    """The decoder of ``fields`` (in the order lines commonly hold them) that refuses any
    other key: an extra the registry gates on is left out (a line holding it is the full
    record's to decode, or refuse)."""
    kept = [
        field for field in fields if field[1] is not Extra or field[0] not in registry.gate_keys
    ]
    struct = msgspec.defstruct(
        f"Quick{name}", kept, kw_only=True, gc=False, forbid_unknown_fields=True
    )
    return msgspec.json.Decoder(struct)


class TypedStreamShape:
    """One stream format's typed line: its decoder, its lane, its step."""

    __slots__ = ("decoder", "format", "lane", "quick", "step")

    def __init__(
        self,
        format: str,  # shadows the builtin: the format's name
        decoder: msgspec.json.Decoder[Any],
        lane: Callable[[Any], Lane | None],
        step: Callable[[Any], StreamStep | None],
        quick: msgspec.json.Decoder[Any] | None = None,
    ) -> None:
        self.format = format
        self.decoder = decoder
        #: The quick decoder (None: none), tried first; its records read as the full ones.
        self.quick = quick
        #: The lane of a decoded line, or None: make its step.
        self.lane = lane
        #: The step of a decoded line, or None: the general path reads the line.
        self.step = step


class QuickDecoding:
    """A reader's decoding of its shape's lines: by the quick decoder, a line it refuses by
    the full one; after MOST_QUICK_MISSES refusals, by the full one alone."""

    __slots__ = ("first", "full", "misses")

    def __init__(self, shape: TypedStreamShape) -> None:
        self.full = shape.decoder.decode
        #: What to decode a line with first (the C speedups decode with it alone, and
        #: hand a line it refuses back to decode()).
        self.first = self.full if shape.quick is None else shape.quick.decode
        self.misses = 0

    def decode(self, line: bytes) -> Any:
        """The line's record, or the full decoder's exception."""
        first = self.first
        if first is not self.full:
            try:
                return first(line)
            except DECODE_FAILURES:
                self.misses += 1
                if self.misses >= MOST_QUICK_MISSES:
                    self.first = self.full
        return self.full(line)
