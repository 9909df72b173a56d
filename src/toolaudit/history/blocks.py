"""Shapes whose calls and results are blocks inside a message: Anthropic (``tool_use`` /
``tool_result``), Bedrock Converse (``toolUse`` / ``toolResult``), Gemini
(``functionCall`` / ``functionResponse`` parts) and OpenTelemetry GenAI messages
(``tool_call`` / ``tool_call_response`` parts)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolaudit.formats.base import OBJECT, first_present
from toolaudit.history.model import Turn
from toolaudit.history.reader import Reader
from toolaudit.history.signals import failed_payload
from toolaudit.values import kind_phrase


def _blocks(reader: Reader, index: int, message: Mapping[str, Any], field: str) -> list[Any]:
    """The message's blocks; a string content is text alone; anything else is a problem."""
    content = message.get(field)
    if isinstance(content, list):
        return content
    if not isinstance(content, str):
        reader.malformed(
            f"{reader.at(index)}.{field}",
            f"{field} must be a list of blocks (or text), got {kind_phrase(content)}",
        )
    return []


def _objects(
    reader: Reader, index: int, message: Mapping[str, Any], field: str
) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Each block that is an object, with its index; any other is a problem."""
    what = "a part" if field == "parts" else "a content block"
    for j, block in enumerate(_blocks(reader, index, message, field)):
        if isinstance(block, Mapping):
            yield j, block
        else:
            reader.not_an_object(reader.path_of(index, (field, j)), what, block)


def _turn(role: object) -> Turn:
    if role in ("assistant", "model"):
        return Turn("assistant")
    return Turn("user" if role in ("user", "function", "tool", None) else "other")


def anthropic(reader: Reader, index: int, message: Mapping[str, Any]) -> Turn:
    """Anthropic Messages: results must come first in their user message."""
    turn = _turn(message.get("role"))
    results = 0  # results so far: a result is first in its message when all before it are
    for j, block in _objects(reader, index, message, "content"):
        kind = block.get("type")
        if kind == "tool_use":
            fields = ("id", "name", "input")
            reader.call(turn, index, ("content", j), block, fields, OBJECT, id_required=True)
        elif kind == "tool_result":
            failed = block.get("is_error") is True or failed_payload(block.get("content"))
            reader.result(
                turn,
                index,
                ("content", j),
                block,
                ("tool_use_id", None),
                failed,
                id_required=True,
                leading=j == results,
            )
            results += 1
    return turn


def bedrock(reader: Reader, index: int, message: Mapping[str, Any]) -> Turn:
    """Bedrock Converse: ``toolUse`` and ``toolResult`` blocks, by ``toolUseId``."""
    turn = _turn(message.get("role"))
    for j, block in _objects(reader, index, message, "content"):
        use, result = block.get("toolUse"), block.get("toolResult")
        if use is not None:
            where = ("content", j, "toolUse")
            if not isinstance(use, Mapping):
                reader.not_an_object(reader.path_of(index, where), "toolUse", use)
                continue
            fields = ("toolUseId", "name", "input")
            reader.call(turn, index, where, use, fields, OBJECT, id_required=True)
        elif result is not None:
            where = ("content", j, "toolResult")
            if not isinstance(result, Mapping):
                reader.not_an_object(reader.path_of(index, where), "toolResult", result)
                continue
            failed = result.get("status") == "error" or failed_payload(result.get("content"))
            by_id = ("toolUseId", None)
            reader.result(turn, index, where, result, by_id, failed, id_required=True)
    return turn


def gemini(reader: Reader, index: int, content: Mapping[str, Any]) -> Turn:
    """Gemini contents: ``functionCall`` / ``functionResponse`` parts (or the Python
    SDK's snake_case), by id where given, else by name and order."""
    turn = _turn(content.get("role"))
    for j, part in _objects(reader, index, content, "parts"):
        call_field = "functionCall" if "functionCall" in part else "function_call"
        result_field = "functionResponse" if "functionResponse" in part else "function_response"
        call, response = part.get(call_field), part.get(result_field)
        if call is not None:
            where = ("parts", j, call_field)
            if not isinstance(call, Mapping):
                reader.not_an_object(reader.path_of(index, where), call_field, call)
                continue
            fields = ("id", "name", "args")
            reader.call(turn, index, where, call, fields, OBJECT, id_required=False)
        elif response is not None:
            where = ("parts", j, result_field)
            if not isinstance(response, Mapping):
                reader.not_an_object(reader.path_of(index, where), result_field, response)
                continue
            failed = failed_response(response.get("response"))
            reader.result(turn, index, where, response, ("id", "name"), failed, id_required=False)
    return turn


def failed_response(response: object) -> bool:
    """Whether a Gemini (or OTel) response reports a failure."""
    # Gemini's own convention, which OTel exporters keep: the "error" key holds a failure.
    if isinstance(response, Mapping) and response.get("error") is not None:
        return True
    return failed_payload(response)


def otel(reader: Reader, index: int, message: Mapping[str, Any]) -> Turn:
    """OpenTelemetry GenAI messages: ``tool_call`` / ``tool_call_response`` parts, by id."""
    turn = _turn(message.get("role"))
    for j, part in _objects(reader, index, message, "parts"):
        kind = part.get("type")
        if kind == "tool_call":
            fields = ("id", "name", "arguments")
            reader.call(turn, index, ("parts", j), part, fields, OBJECT, id_required=False)
        elif kind == "tool_call_response":
            failed = failed_response(first_present(part, "response", "result"))
            reader.result(turn, index, ("parts", j), part, ("id", None), failed, id_required=False)
    return turn
