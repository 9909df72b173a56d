"""Whether a tool's result reports a failure: the flags providers and MCP define, and the
error texts common agent frameworks write into a result (docs/conversations.md lists them).
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

#: How the result texts of common frameworks begin when the tool failed: LangGraph's
#: ToolNode ("Error: ... Please fix your mistakes.", toolaudit's own tool_result_messages
#: too) and the OpenAI Agents SDK's default failure text.
ERROR_TEXT_PREFIXES = (
    "Error: ",
    "An error occurred while running the tool.",
)
#: How a text that may report a failure begins: an error text's first character, or a
#: JSON object's (MCP's result); a text beginning otherwise reports none.
SUSPECT_STARTS = frozenset({prefix[0] for prefix in ERROR_TEXT_PREFIXES} | {"{"})
#: MCP's CallToolResult flag, and the snake_case spelling Python frameworks log.
_ERROR_FLAGS = ("isError", "is_error")


#: How deep a result's content is looked into (a block in a list in a result object...).
_DEPTH = 4


def failed_payload(payload: object, depth: int = _DEPTH) -> bool:
    """Whether a result's content says the tool failed: an MCP ``isError`` (the result
    object, or JSON text of it), or text that begins as a framework's error text. Of a
    list of content blocks only the first is read: it carries the flag or the text."""
    if depth <= 0:
        return False
    if type(payload) is str:  # the commonest, tested first (an ABC's isinstance is slow)
        return payload.startswith(ERROR_TEXT_PREFIXES) or _is_mcp_error_text(payload)
    if isinstance(payload, list):
        return bool(payload) and failed_payload(payload[0], depth - 1)
    if isinstance(payload, Mapping):
        if any(payload.get(flag) is True for flag in _ERROR_FLAGS):
            return True
        for key in ("text", "json", "content"):  # a content block, Bedrock's json block
            if key in payload:
                return failed_payload(payload[key], depth - 1)
        return False
    if isinstance(payload, str):
        return payload.startswith(ERROR_TEXT_PREFIXES) or _is_mcp_error_text(payload)
    return False


def _is_mcp_error_text(text: str) -> bool:
    # Parsed only when the flag is there to find: most results are not MCP's JSON.
    if not text.startswith("{") or '"isError"' not in text:
        return False
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, Mapping) and value.get("isError") is True
