"""Which shape a history is in, when the caller does not say: read from its messages.

The first message that tells decides, tested in this order: LangChain (``"lc": 1``, or a
``type`` of LangChain's: "ai", "human", "tool"...), OpenAI Responses (an item ``type``
such as "function_call" or "message", or a ``call_id``), then by ``parts``: OTel (parts
with a ``type``) or Gemini (parts without, or ``role`` "model"); OpenAI Chat (``tool_calls``,
``function_call``, ``role`` "tool" or "function"); then by content blocks: Anthropic
(``tool_use`` / ``tool_result`` blocks) or Bedrock (blocks keyed ``toolUse``,
``toolResult``, ``text`` with no ``type``). A history where nothing tells (plain text
messages only, nothing to pair) is read as OpenAI Chat: every shape's rules agree on it.
"""

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
)

_LANGCHAIN_TYPES = frozenset(
    {"ai", "human", "system", "tool", "function", "chat", "AIMessageChunk", "ToolMessageChunk"}
)
_RESPONSES_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "custom_tool_call",
        "custom_tool_call_output",
        "item_reference",
    }
)
_BEDROCK_BLOCKS = frozenset({"toolUse", "toolResult", "text", "image", "document", "json"})


def detect(messages: list[Any]) -> str:
    """The shape of ``messages`` (see the module's docstring for how)."""
    for message in messages:
        if isinstance(message, Mapping):
            shape = _shape_of(message)
            if shape is not None:
                return shape
    return OPENAI_CHAT


def _shape_of(message: Mapping[str, Any]) -> str | None:
    kind = message.get("type")
    if message.get("lc") == 1 or (isinstance(kind, str) and kind in _LANGCHAIN_TYPES):
        return LANGCHAIN
    if (isinstance(kind, str) and kind in _RESPONSES_TYPES) or "call_id" in message:
        return OPENAI_RESPONSES
    parts = message.get("parts")
    if isinstance(parts, list):
        if any(isinstance(part, Mapping) and "type" in part for part in parts):
            return OTEL
        return GEMINI
    if message.get("role") == "model":
        return GEMINI
    if "tool_calls" in message or "function_call" in message:
        return OPENAI_CHAT
    if message.get("role") in ("tool", "function"):
        return OPENAI_CHAT
    return _shape_of_blocks(message.get("content"))


def _shape_of_blocks(content: object) -> str | None:
    if not isinstance(content, list):
        return None
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("tool_use", "tool_result"):
            return ANTHROPIC
        if kind is None and any(key in _BEDROCK_BLOCKS for key in block):
            return BEDROCK
    return None
