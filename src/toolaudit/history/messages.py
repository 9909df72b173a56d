"""Shapes whose results are whole messages: OpenAI Chat (``tool`` and legacy ``function``
messages), OpenAI Responses (``function_call_output`` items) and LangChain (``ToolMessage``
in each of its serialised forms)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import JSON_STRING, OBJECT_ONLY, as_dict, as_list, is_one_of
from toolaudit.history.model import Turn
from toolaudit.history.reader import Reader
from toolaudit.history.signals import failed_payload

ASSISTANT_ROLES = frozenset({"assistant", "ai", "AIMessage", "AIMessageChunk"})
TOOL_ROLES = frozenset({"tool", "ToolMessage", "ToolMessageChunk"})
_USER_ROLES = frozenset({"user", "human", "HumanMessage", "HumanMessageChunk"})


def chat(reader: Reader, index: int, message: Mapping[str, Any]) -> Turn:
    """An OpenAI Chat message: an assistant's ``tool_calls`` (or legacy ``function_call``),
    a ``tool`` message's ``tool_call_id``, a legacy ``function`` message's ``name``."""
    role = message.get("role")
    if role == "assistant":
        turn = Turn("assistant")
        _chat_calls(reader, turn, index, message, ())
        legacy = message.get("function_call")
        if isinstance(legacy, Mapping):  # answered by a "function" message, by name
            reader.call(
                turn,
                index,
                ("function_call",),
                legacy,
                ("id", "name", "arguments"),
                JSON_STRING,
                id_required=False,
            )
        return turn
    if role == "tool":
        turn = Turn("tool")
        failed = failed_payload(message.get("content"))
        fields = ("tool_call_id", "name")
        reader.result(turn, index, (), message, fields, failed, id_required=True)
        return turn
    if role == "function":
        turn = Turn("tool")
        failed = failed_payload(message.get("content"))
        reader.result(turn, index, (), message, ("id", "name"), failed, id_required=False)
        return turn
    return Turn("user" if role == "user" else "other")


def _chat_calls(
    reader: Reader, turn: Turn, index: int, message: Mapping[str, Any], prefix: tuple[str, ...]
) -> None:
    tool_calls = message.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, list):
        reader.malformed(f"{reader.path_of(index, prefix)}.tool_calls", "tool_calls must be a list")
    for j, tool_call in enumerate(as_list(tool_calls)):
        where = (*prefix, "tool_calls", j)
        if not isinstance(tool_call, Mapping):
            reader.not_an_object(reader.path_of(index, where), "a tool call", tool_call)
            continue
        function = tool_call.get("function", tool_call.get("custom"))
        if not isinstance(function, Mapping):
            reader.not_an_object(reader.path_of(index, where), "a tool call's function", function)
            continue
        # The id is the tool call's, the name and arguments its function's: read the id
        # from a view that holds all three where the element is the tool call.
        merged = {**function, "id": tool_call.get("id")}
        names = ("id", "name", "arguments")
        custom = "function" not in tool_call  # a custom tool's input is text, not JSON
        reader.call(
            turn, index, where, merged, names, JSON_STRING, id_required=True, listed=not custom
        )


def responses(reader: Reader, index: int, item: Mapping[str, Any]) -> Turn:
    """A Responses input item: ``function_call`` / ``function_call_output`` (and the
    custom tools' twins) by ``call_id``; any other item is a message between."""
    kind = item.get("type")
    if kind in ("function_call", "custom_tool_call"):
        turn = Turn("assistant")
        fields = ("call_id", "name", "arguments")
        custom = kind != "function_call"  # a custom tool's input is text, not JSON
        reader.call(turn, index, (), item, fields, JSON_STRING, id_required=True, listed=not custom)
        return turn
    if kind in ("function_call_output", "custom_tool_call_output"):
        turn = Turn("tool")
        failed = failed_payload(item.get("output"))
        reader.result(turn, index, (), item, ("call_id", None), failed, id_required=True)
        return turn
    return Turn("user" if item.get("role") == "user" else "other")


def langchain(reader: Reader, index: int, message: Mapping[str, Any]) -> Turn:
    """A LangChain message: ``model_dump`` (fields at the top), ``messages_to_dict``
    (in ``data``), ``dumpd`` (in ``kwargs``), or the role form of OpenAI's dicts."""
    kind, fields, prefix = _langchain_fields(message)
    if is_one_of(kind, ASSISTANT_ROLES):
        turn = Turn("assistant")
        calls = as_list(fields.get("tool_calls"))
        if calls and isinstance(as_dict(calls[0]).get("function"), Mapping):
            _chat_calls(reader, turn, index, fields, prefix)  # OpenAI's dicts, as logged
            return turn
        for j, tool_call in enumerate(calls):
            where = (*prefix, "tool_calls", j)
            if not isinstance(tool_call, Mapping):
                reader.not_an_object(reader.path_of(index, where), "a tool call", tool_call)
                continue
            reader.call(
                turn,
                index,
                where,
                tool_call,
                ("id", "name", "args"),
                OBJECT_ONLY,
                id_required=False,
            )
        return turn
    if is_one_of(kind, TOOL_ROLES):
        turn = Turn("tool")
        failed = fields.get("status") == "error" or failed_payload(fields.get("content"))
        reader.result(
            turn, index, prefix, fields, ("tool_call_id", "name"), failed, id_required=False
        )
        return turn
    return Turn("user" if is_one_of(kind, _USER_ROLES) else "other")


def _langchain_fields(
    message: Mapping[str, Any],
) -> tuple[object, Mapping[str, Any], tuple[str, ...]]:
    """The message's class (or type, or role), its fields, and where they are in it."""
    if message.get("lc") == 1:
        class_path = as_list(message.get("id"))
        return (class_path[-1] if class_path else None), as_dict(message.get("kwargs")), ("kwargs",)
    data = message.get("data")
    if isinstance(data, Mapping) and "type" in message:
        return message.get("type"), data, ("data",)
    return message.get("type", message.get("role")), message, ()
