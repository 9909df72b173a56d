"""A logged request's conversation, read from the typed path's decode of its pair.

The request's struct (formats/typed.py) keeps every field that tells its API or holds
its messages (request_shapes.VALUE_FIELDS and TELLING_FIELDS) as JSON text, a msgspec
``Raw`` that costs a slice of the line; only when the conversation is checked are they
parsed, into a dict of just those fields, which :func:`request_history` reads exactly as
it reads the whole request on the general path. So the history checked is the same.
"""

from __future__ import annotations

from typing import Any

import orjson
from msgspec import UNSET, Raw, UnsetType

from toolaudit.formats.base import History
from toolaudit.formats.request_shapes import TELLING_FIELDS, VALUE_FIELDS, request_history

#: The fields the pair's request struct has for its conversation (those it also reads
#: for its tools and model are its own: see :func:`request_view`).
OWN_FIELDS = frozenset({"tools", "functions", "toolConfig", "model", "modelId"})
HISTORY_FIELDS = tuple(sorted((set(VALUE_FIELDS) | TELLING_FIELDS) - OWN_FIELDS))
#: What the request struct declares for each of them: (name, type, default).
STRUCT_FIELDS = [(name, Raw | UnsetType, UNSET) for name in HISTORY_FIELDS]

#: The fields whose presence alone is read (their value never is).
_PRESENCE_ONLY = frozenset(TELLING_FIELDS - set(VALUE_FIELDS))
#: How many distinct tool lists the reader keeps parsed (a log repeats a few).
_TOOLS_KEPT = 64


class RequestHistories:
    """Reads the conversation of each request the typed path decoded; keeps the tool
    lists it parsed (a log's requests repeat the same few), by their text."""

    __slots__ = ("_tools",)

    def __init__(self) -> None:
        self._tools: dict[bytes, Any] = {}

    def history(self, request: Any) -> History | None:
        """The conversation of a decoded request (its struct), as
        ``request_history(request, "request")`` finds it in the parsed request; None where
        it carries none. Raises ``orjson.JSONDecodeError`` where orjson refuses one of
        its fields (the general path then reads the line)."""
        view: dict[str, Any] = {}
        for name in HISTORY_FIELDS:
            text = getattr(request, name)
            if text is not UNSET:
                view[name] = None if name in _PRESENCE_ONLY else orjson.loads(memoryview(text))
        tools = request.tools
        if tools is not UNSET:
            view["tools"] = self._parsed_tools(bytes(tools))
        if request.toolConfig is not UNSET:
            view["toolConfig"] = None
        if request.modelId is not UNSET:
            view["modelId"] = None
        return request_history(view, "request")

    def _parsed_tools(self, text: bytes) -> Any:
        kept = self._tools
        tools = kept.get(text, UNSET)
        if tools is UNSET:
            if len(kept) >= _TOOLS_KEPT:
                kept.clear()
            tools = kept[text] = orjson.loads(text)
        return tools
