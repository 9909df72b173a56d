"""What the scorer reads of a line the typed path read: the general path's reading of
it (the record and its extraction), or, where that gives the same score, only the
record's id and the calls the typed decode named, without parsing the whole line (an
OpenAI response is parsed in about twice the time its typed decode takes).

See :meth:`toolaudit.pipeline.scoring.Scorer.typed_calls`; tests/truth/
test_typed_scoring.py scores every typed format both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from toolaudit.formats import Extracted
from toolaudit.jsonutil import may_be_misread_by_orjson
from toolaudit.schemas.files import loads_json
from toolaudit.truth import line_scores
from toolaudit.truth.entries import id_text
from toolaudit.truth.match import UNREADABLE, MadeCall

#: Reads a line's id at a top-level key in C where it is sure (``id_at`` of
#: ``_line_scores.c``), else None: :meth:`LineIds.id_of` is its pure twin.
ID_AT: Callable[[bytes, str], str | None] | None = (
    line_scores.SPEEDUPS.id_at if line_scores.SPEEDUPS is not None else None
)


class TypedLine:
    """A line ready to score: ``record`` and ``extracted`` (the general path's reading),
    or the record's ``id``, its ``made`` calls (None when the id has no entry: nothing
    to score) and ``model``."""

    __slots__ = ("extracted", "id", "made", "model", "record")

    def __init__(
        self,
        *,
        record: dict[str, Any] | None = None,
        extracted: Extracted | None = None,
        id: str | None = None,
        made: list[MadeCall] | None = None,
        model: str | None = None,
    ) -> None:
        self.record = record
        self.extracted = extracted
        self.id = id
        self.made = made
        self.model = model


def read_exactly(line: bytes) -> bool:
    """Whether the general path reads this line again exactly (a long integer, a number
    below a double's range) and scores that reading: the typed path leaves it to it."""
    # The general reader's own test (GeneralReader._read), so that the two agree.
    return may_be_misread_by_orjson(line)


class LineIds:
    """Reads a line's id at a dotted field path (``metadata.eval_id``) as
    :meth:`toolaudit.truth.expectations.Expectations.id_of` finds it in the parsed
    record: the first field decoded alone by msgspec (the rest of the line skipped),
    the path's rest looked up in its value. For lines the typed path read: UTF-8 that
    decodes, a JSON object. At a key of one step, the id is read in C first
    (:data:`ID_AT`), where that reads it surely."""

    __slots__ = ("_at", "_decode", "_first", "_rest", "_unset")

    def __init__(self, key: str) -> None:
        import msgspec
        from msgspec import UNSET, Raw, UnsetType

        first, *self._rest = key.split(".")
        self._first = first
        self._at = ID_AT if not self._rest else None
        field = msgspec.defstruct(
            "Key", [("value", Raw | UnsetType, UNSET)], rename={"value": first}
        )
        self._decode: Callable[[bytes], Any] = msgspec.json.Decoder(field).decode
        self._unset = UNSET

    def id_of(self, line: bytes) -> str | None:
        if self._at is not None:
            found = self._at(line, self._first)
            if found is not None:
                return found
        raw = self._decode(line).value
        if raw is self._unset:
            return None
        text = bytes(raw)
        # Most ids: a string, which holds no number to read exactly (nor a lone
        # surrogate, which orjson refuses: msgspec has refused the line).
        value: object = orjson.loads(text) if text[:1] == b'"' else loads_json(text)
        for step in self._rest:
            value = value.get(step) if isinstance(value, dict) else None
        return id_text(value)


def typed_made_calls(calls: Sequence[tuple[object, str, Any]]) -> list[MadeCall] | None:
    """The calls the typed decode named (id, name, arguments as JSON text: a string's
    value or a slice of the line) as the scorer reads the general path's; None where
    that reading could differ (arguments that are no JSON object in the line, which
    the extractor may decode from a string)."""
    made = []
    for index, (_, name, arguments) in enumerate(calls):
        if type(arguments) is str:
            text = arguments.encode("utf-8", "surrogatepass")
        else:
            text = bytes(arguments)
            if not text.startswith(b"{"):
                return None
        try:
            value = loads_json(text)
        except (ValueError, RecursionError):
            value = UNREADABLE
        made.append(MadeCall(index, name, value if type(value) is dict else UNREADABLE))
    return made
