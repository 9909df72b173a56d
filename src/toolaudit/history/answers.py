"""The error result a repair answers an unanswered call with, in each shape, and the
message that holds results where a shape puts them in a message of their own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    LANGCHAIN,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    OTEL,
    Item,
)

#: What the added result tells the model (it begins as the error texts that count as a
#: failure do, so the repaired history counts it as one).
UNANSWERED_TEXT = (
    "Error: this call was never answered: its result is missing from the history, so "
    "whether the tool ran is unknown. (Added by toolaudit's check_history repair.)"
)
#: Shapes whose results are blocks inside a message: the message such blocks go in.
BLOCK_MESSAGE = {
    ANTHROPIC: ("user", "content"),
    BEDROCK: ("user", "content"),
    GEMINI: ("user", "parts"),
    OTEL: ("tool", "parts"),
}


def error_result(shape: str, call: Item, message: Mapping[str, Any]) -> dict[str, Any]:
    """The result that says ``call`` (of ``message``) was never answered: a whole message
    for Chat, Responses and LangChain, a block for the others."""
    call_id, name = call.id, call.name
    if shape == OPENAI_CHAT:
        if call.key is None:  # a legacy function_call: answered by name
            return {"role": "function", "name": name, "content": UNANSWERED_TEXT}
        return {"role": "tool", "tool_call_id": call_id, "content": UNANSWERED_TEXT}
    if shape == OPENAI_RESPONSES:
        return {"type": "function_call_output", "call_id": call_id, "output": UNANSWERED_TEXT}
    if shape == ANTHROPIC:
        return {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": UNANSWERED_TEXT,
            "is_error": True,
        }
    if shape == BEDROCK:
        content = [{"text": UNANSWERED_TEXT}]
        return {"toolResult": {"toolUseId": call_id, "content": content, "status": "error"}}
    if shape == GEMINI:
        response: dict[str, Any] = {"name": name, "response": {"error": UNANSWERED_TEXT}}
        if call.key is not None:
            response["id"] = call_id
        # The spelling of the call's own part: camelCase (REST) or snake_case (Python).
        field = "functionResponse" if call.where[-1] == "functionCall" else "function_response"
        return {field: response}
    if shape == OTEL:
        part = {"type": "tool_call_response", "response": UNANSWERED_TEXT}
        return part if call.key is None else {**part, "id": call_id}
    assert shape == LANGCHAIN, shape
    return _langchain_tool_message(call, message)


def _langchain_tool_message(call: Item, message: Mapping[str, Any]) -> dict[str, Any]:
    """A ToolMessage in the serialised form of the AI message it answers."""
    fields: dict[str, Any] = {"content": UNANSWERED_TEXT, "status": "error"}
    if isinstance(call.name, str):
        fields["name"] = call.name
    if call.key is not None:
        fields["tool_call_id"] = call.id
    if call.where[0] == "kwargs":  # dumpd
        class_path = ["langchain", "schema", "messages", "ToolMessage"]
        return {"lc": 1, "type": "constructor", "id": class_path, "kwargs": fields}
    if call.where[0] == "data":  # messages_to_dict
        return {"type": "tool", "data": {"type": "tool", **fields}}
    if "role" in message and "type" not in message:  # OpenAI's dicts
        return {"role": "tool", **fields}
    return {"type": "tool", **fields}


def block_message(shape: str, blocks: list[Any]) -> dict[str, Any]:
    """A new message holding result blocks (a user turn; OTel: a tool message)."""
    role, field = BLOCK_MESSAGE[shape]
    return {"role": role, field: blocks}
