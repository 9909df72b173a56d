"""MCP (JSON-RPC 2.0): ``tools/call`` requests, and ``tools/list`` results as schemas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import ABSENT, OBJECT, Call, Extracted, as_dict, get_path
from toolaudit.formats.declaration import STREAM, Format


def message(record: Mapping[str, Any]) -> Extracted:
    """One JSON-RPC message. A ``tools/call`` request is a call (its id is the
    request id, not a model's call id); a result holding ``tools`` is a
    ``tools/list`` page, whose tools judge the calls that follow in the stream.
    Everything else (responses, notifications, errors) holds no call."""
    if record.get("method") == "tools/call":
        params = as_dict(record.get("params"))
        call = Call(
            0,
            params.get("name"),
            params.get("arguments", ABSENT),
            id=record.get("id"),
            encoding=OBJECT,
        )
        return Extracted("mcp", [call])
    tools = get_path(record, "result", "tools")
    if isinstance(tools, list):
        more = bool(get_path(record, "result", "nextCursor"))
        return Extracted("mcp", tools=tools, defines=STREAM, more_pages=more)
    return Extracted("mcp")


def _recognises(record: Mapping[str, Any]) -> bool:
    return record.get("jsonrpc") == "2.0"


MCP = Format(
    name="mcp",
    summary="MCP JSON-RPC",
    recognises=_recognises,
    keys=("jsonrpc",),
    extract=message,
    tools="result.tools of a tools/list result: they judge the calls after it",
    family="MCP",
    typed_shape="mcp",
    tool_result_messages="mcp",
    defines_tools=STREAM,
    uses_defined_tools=STREAM,
)
