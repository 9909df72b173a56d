"""Flat calls: ``{"name": ..., "arguments": ...}`` plus any other fields, the
shape of the contract itself (and of an OpenAI Responses item logged alone)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import ABSENT, JSON_STRING, Call, Extracted, UnknownShape
from toolaudit.formats.declaration import Format


def call_id(record: Mapping[str, Any]) -> object:
    """A flat record's call id: ``call_id`` where it has one (an OpenAI Responses
    item logged alone, whose ``id`` is the item's), else ``id``. The audit's
    inline fast path reads flat records itself, with this same function."""
    return record["call_id"] if "call_id" in record else record.get("id")


#: Where a call logged alone in another shape keeps its arguments, when it has no
#: ``arguments``: an Anthropic ``tool_use`` block's ``input``, a LangChain ToolCall's or
#: a Gemini functionCall's ``args``, a Llama JSON call's ``parameters``.
ARGUMENTS_ELSEWHERE = ("input", "args", "parameters")


def extract(record: Mapping[str, Any]) -> Extracted:
    """One call; ``arguments`` an object or a JSON string."""
    if "name" not in record and "arguments" not in record:
        raise UnknownShape("a flat record needs name and arguments")
    if "arguments" in record:
        arguments = record["arguments"]
    else:
        # Not a call without arguments, which is valid when none are required: its
        # arguments are elsewhere (only records no other format reads get here).
        elsewhere = [key for key in ARGUMENTS_ELSEWHERE if key in record]
        if len(elsewhere) > 1:
            keys = " and ".join(elsewhere)
            raise UnknownShape(f"a call with no arguments but both {keys}: which are they?")
        arguments = record[elsewhere[0]] if elsewhere else ABSENT
    call = Call(0, record.get("name"), arguments, id=call_id(record), encoding=JSON_STRING)
    return Extracted("flat", [call], model=record.get("model"))


def _recognises(record: Mapping[str, Any]) -> bool:
    return "name" in record and "arguments" in record


def _reply_shape(record: Mapping[str, Any]) -> str:
    # An OpenAI Responses function_call item logged alone is answered as Responses
    # answers it (a function_call_output), any other flat call as a chat tool message.
    if record.get("type") == "function_call" and "call_id" in record:
        return "openai-responses"
    return "openai-chat"


def _half_a_call(record: Mapping[str, Any]) -> bool:
    # A call missing its name or its arguments is still a (broken) call to report.
    return "name" in record or "arguments" in record


FLAT = Format(
    name="flat",
    summary="a tool call {name, arguments}, arguments an object or a JSON string",
    recognises=_recognises,
    keys=("name", "arguments"),
    extract=extract,
    fallback=_half_a_call,
    typed_shape="flat_calls",
    tool_result_messages=_reply_shape,
)
