"""Which provider's API a logged request is for, and the conversation it carries.

A request names no provider: its shape is read from its fields, the most telling first
(where the conversation is kept, its tools' shape, top-level fields only one API has,
then its messages), so that every format that holds a request (a request logged alone,
a request/response pair's, a Batch input line's body) reads it the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import History, as_dict, as_list, is_one_of

OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
BEDROCK = "bedrock"
GEMINI = "gemini"

#: The field of a request each shape keeps its conversation in.
HISTORY_FIELDS = {
    OPENAI_CHAT: "messages",
    OPENAI_RESPONSES: "input",
    ANTHROPIC: "messages",
    BEDROCK: "messages",
    GEMINI: "contents",
}

#: Top-level fields of a Converse request that no other API has (botocore's
#: ``bedrock-runtime`` service model).
_BEDROCK_FIELDS = frozenset(
    {
        "modelId",
        "inferenceConfig",
        "toolConfig",
        "guardrailConfig",
        "additionalModelRequestFields",
        "promptVariables",
        "additionalModelResponseFieldPaths",
        "performanceConfig",
    }
)
#: Top-level fields of a Messages request that Chat Completions has not (``system``
#: too, which Converse shares: told apart by its blocks).
_ANTHROPIC_FIELDS = frozenset({"anthropic_version", "stop_sequences", "top_k", "thinking"})
#: What only Chat Completions has: its roles, and its fields that name calls.
_CHAT_ROLES = frozenset({"system", "developer", "tool", "function"})
_CHAT_MESSAGE_FIELDS = ("tool_calls", "tool_call_id", "function_call")
_CHAT_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_ANTHROPIC_BLOCKS = frozenset(
    {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "document",
        "server_tool_use",
        "web_search_tool_result",
        "image",  # Chat's image part is "image_url"
    }
)
#: A Converse content block is keyed by its kind, with no "type".
_BEDROCK_BLOCKS = frozenset(
    {"text", "toolUse", "toolResult", "image", "document", "reasoningContent", "cachePoint"}
)

#: Every field of a request that :func:`request_history` reads: those whose value it
#: reads, and those whose presence alone tells an API. A reader that keeps only these
#: (the typed path's) finds the same history.
VALUE_FIELDS = ("contents", "messages", "input", "tools", "system")
TELLING_FIELDS = _BEDROCK_FIELDS | _ANTHROPIC_FIELDS


def request_shape(request: Mapping[str, Any]) -> str | None:
    """The provider shape of a logged request's conversation (one of
    :data:`HISTORY_FIELDS`), or None where it keeps none (no ``messages``, ``input`` or
    ``contents``). A request that says nothing of its API (plain text messages, no
    tools) is read as Chat Completions, the API compatible servers take."""
    shape = shape_by_fields(request)
    if shape is not UNTOLD:
        return shape
    return _messages_shape(request.get("messages")) or OPENAI_CHAT


#: What :func:`shape_by_fields` says of a request only its messages can tell.
UNTOLD = "untold"


def shape_by_fields(request: Mapping[str, Any]) -> str | None:
    """:func:`request_shape` as far as the request's fields tell it, its messages unread
    (the value of ``messages`` is never looked at): :data:`UNTOLD` where only they can."""
    if "contents" in request:
        return GEMINI
    if "messages" not in request:
        return OPENAI_RESPONSES if "input" in request else None
    return tools_shape(request.get("tools")) or _fields_shape(request) or UNTOLD


def request_history(request: Mapping[str, Any], at: str) -> History | None:
    """The conversation a logged request carries, at ``at`` ("request", "body", or ""
    for a request logged alone); None where it carries none. A Responses ``input``
    that is one string is a single user turn, with no call or result to pair."""
    shape = request_shape(request)
    if shape is None:
        return None
    field = HISTORY_FIELDS[shape]
    messages = request.get(field)
    if messages is None or (shape == OPENAI_RESPONSES and isinstance(messages, str)):
        return None
    return History(shape, messages, f"{at}.{field}" if at else field)


def tools_shape(tools: object) -> str | None:
    """The API a request's first tool definition is shaped for."""
    first = as_dict(as_list(tools)[0]) if as_list(tools) else {}
    if "function" in first:
        return OPENAI_CHAT
    if "input_schema" in first:
        return ANTHROPIC
    if "toolSpec" in first:
        return BEDROCK
    return None


def _fields_shape(request: Mapping[str, Any]) -> str | None:
    """The API only one of whose top-level fields a request holds."""
    if not _BEDROCK_FIELDS.isdisjoint(request):
        return BEDROCK
    if not _ANTHROPIC_FIELDS.isdisjoint(request):
        return ANTHROPIC
    system = request.get("system")
    if system is not None:
        # Both keep a system prompt at the top: Converse's blocks have no "type".
        first = as_list(system)[0] if as_list(system) else None
        return BEDROCK if isinstance(first, Mapping) and "type" not in first else ANTHROPIC
    return None


def _messages_shape(messages: object) -> str | None:
    """The API the first telling message is of (a role, a field or a block only one
    API has); None if no message tells."""
    for message in as_list(messages):
        message = as_dict(message)
        if is_one_of(message.get("role"), _CHAT_ROLES):
            return OPENAI_CHAT
        if any(field in message for field in _CHAT_MESSAGE_FIELDS):
            return OPENAI_CHAT
        for block in as_list(message.get("content")):
            block = as_dict(block)
            kind = block.get("type")
            if kind is None:
                if not _BEDROCK_BLOCKS.isdisjoint(block):
                    return BEDROCK
            elif is_one_of(kind, _ANTHROPIC_BLOCKS):
                return ANTHROPIC
            elif is_one_of(kind, _CHAT_PARTS):
                return OPENAI_CHAT
    return None
