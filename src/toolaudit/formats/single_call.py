"""One call logged alone, in the shape its provider's response holds it: an OpenAI
``tool_calls`` item, a Gemini ``functionCall`` part, a Bedrock ``toolUse`` block.

(A call logged alone with its name at the top level, an Anthropic ``tool_use`` block or
a LangChain ToolCall, is a flat record: see flat.py.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import ABSENT, JSON_STRING, OBJECT, Call, Extracted, UnknownShape
from toolaudit.formats.declaration import Format

#: The key that holds the call -> (where its arguments are, their encoding, its id's key).
_SHAPES = {
    "function": ("arguments", JSON_STRING, None),  # the item's id is beside "function"
    "functionCall": ("args", OBJECT, "id"),
    "toolUse": ("input", OBJECT, "toolUseId"),
}


def extract(record: Mapping[str, Any]) -> Extracted:
    """The one call of the record, under whichever of its keys holds it."""
    for key, (arguments_key, encoding, id_key) in _SHAPES.items():
        held = record.get(key)
        if isinstance(held, Mapping):
            call_id = record.get("id") if id_key is None else held.get(id_key)
            arguments = held.get(arguments_key, ABSENT)
            call = Call(0, held.get("name"), arguments, id=call_id, encoding=encoding)
            return Extracted("single-call", [call])
    raise UnknownShape(
        "a call logged alone needs function (an OpenAI tool_calls item), functionCall "
        "(a Gemini part) or toolUse (a Bedrock block) holding it"
    )


def _recognises(record: Mapping[str, Any]) -> bool:
    # Exactly one of the keys, holding an object with a name: BFCL's records hold a list
    # under "function", and nothing else puts these keys at the top level.
    held = [record[key] for key in _SHAPES if key in record]
    return len(held) == 1 and isinstance(held[0], Mapping) and "name" in held[0]


SINGLE_CALL = Format(
    name="single-call",
    summary="one call logged alone: an OpenAI tool_calls item, a Gemini functionCall part, "
    "a Bedrock toolUse block",
    recognises=_recognises,
    keys=tuple(_SHAPES),
    extract=extract,
)
