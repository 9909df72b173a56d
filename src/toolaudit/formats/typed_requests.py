"""A logged request's conversation, read from the typed path's decode of its pair, or of
the request itself where it was logged alone.

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
from toolaudit.formats.request_shapes import (
    BEDROCK,
    GEMINI,
    HISTORY_FIELDS,
    OPENAI_RESPONSES,
    TELLING_FIELDS,
    UNTOLD,
    VALUE_FIELDS,
    request_history,
    shape_by_fields,
    tools_shape,
)

#: The fields the pair's request struct has for its conversation (those it also reads
#: for its tools and model are its own: see :meth:`RequestHistories._view`).
OWN_FIELDS = frozenset({"tools", "functions", "toolConfig", "model", "modelId"})
CONVERSATION_FIELDS = tuple(sorted((set(VALUE_FIELDS) | TELLING_FIELDS) - OWN_FIELDS))
#: What the request struct declares for each of them: (name, type, default).
STRUCT_FIELDS = [(name, Raw | UnsetType, UNSET) for name in CONVERSATION_FIELDS]

#: The fields that hold a conversation, parsed when it is read.
_CONVERSATIONS = frozenset(HISTORY_FIELDS.values())
#: How many distinct tool lists the reader keeps parsed (a log repeats a few).
_TOOLS_KEPT = 64


class RequestHistories:
    """Reads the conversation of each request the typed path decoded, found ``at``
    ("request": a pair's; "": a request logged alone); keeps the tool lists it parsed (a
    log's requests repeat the same few), by their text."""

    __slots__ = ("_at", "_last_shape", "_last_tools", "_shapes", "_tools")

    def __init__(self, at: str = "request") -> None:
        self._at = at
        self._tools: dict[bytes, Any] = {}
        self._shapes: dict[bytes, str | UnsetType | None] = {}
        # The last request's tools (their text) and the shape they told: a log's requests
        # mostly repeat the tools of the one before, compared at once, not copied and hashed.
        self._last_tools: Raw | None = None
        self._last_shape: str | None = None

    def history(self, request: Any) -> History | None:
        """The conversation of a decoded request (its struct), as
        ``request_history(request, at)`` finds it in the parsed request; None where it
        carries none. Raises ``orjson.JSONDecodeError`` where orjson refuses one of its
        fields (the general path then reads the line)."""
        return request_history(self._view(request, _CONVERSATIONS), self._at)

    def told(self, request: Any) -> tuple[str, str, Raw] | None:
        """(its shape, the conversation's path, its JSON text) for a decoded request whose
        fields tell its API without its messages being read (its tools, or a field only
        one API has); None where only its messages can tell, or it holds none: then
        :meth:`history` reads it. Raises as :meth:`history` does."""
        tools = request.tools
        if request.contents is UNSET and request.messages is not UNSET and tools is not UNSET:
            # The commonest request: messages and tools, which tell its API before any
            # other field (request_shape reads them first): by their text, kept.
            if tools == self._last_tools:
                shape = self._last_shape
            else:
                shape = self.tools_shape(bytes(tools))
                self._last_tools, self._last_shape = tools, shape
            if shape is not None:
                return shape, request_path(self._at, "messages"), request.messages
        shape = _told_by_one_field(request) or shape_by_fields(self._view(request, frozenset()))
        if shape is None or shape == UNTOLD:
            return None
        field = HISTORY_FIELDS[shape]
        text = getattr(request, field)
        return None if text is UNSET else (shape, request_path(self._at, field), text)

    def _view(self, request: Any, parsed: frozenset[str]) -> dict[str, Any]:
        """The request as a dict of the fields ``request_history`` reads: those of
        ``parsed`` and the system prompt and tools parsed, the others present (None)."""
        view: dict[str, Any] = {}
        for name in CONVERSATION_FIELDS:
            text = getattr(request, name)
            if text is not UNSET:
                read = name == "system" or name in parsed
                view[name] = orjson.loads(memoryview(text)) if read else None
        tools = request.tools
        if tools is not UNSET:
            view["tools"] = self._parsed_tools(bytes(tools))
        if request.toolConfig is not UNSET:
            view["toolConfig"] = None
        if request.modelId is not UNSET:
            view["modelId"] = None
        return view

    def tools_shape(self, text: bytes) -> str | None:
        """The shape the tools of ``text`` tell (kept by their text), None where they tell
        none. Raises ``orjson.JSONDecodeError`` where orjson refuses them."""
        shapes = self._shapes
        shape = shapes.get(text, UNSET)
        if shape is UNSET:
            if len(shapes) >= _TOOLS_KEPT:
                shapes.clear()
            shape = shapes[text] = tools_shape(self._parsed_tools(text))
        return shape

    def _parsed_tools(self, text: bytes) -> Any:
        kept = self._tools
        tools = kept.get(text, UNSET)
        if tools is UNSET:
            if len(kept) >= _TOOLS_KEPT:
                kept.clear()
            tools = kept[text] = orjson.loads(text)
        return tools


def request_path(at: str, field: str) -> str:
    """The path of the ``field`` of a request found ``at``, as ``request_history`` writes
    it."""
    return f"{at}.{field}" if at else field


def _told_by_one_field(request: Any) -> str | None:
    """The API of a decoded request that one field tells, as :func:`shape_by_fields` tells
    it, with no field parsed: Gemini's ``contents``; Responses' ``input`` where there are
    no ``messages``; Bedrock's ``toolConfig`` or ``modelId`` beside messages with no
    ``tools`` (whose shape would come first). None where more must be read."""
    if request.contents is not UNSET:
        return GEMINI
    if request.messages is UNSET:
        return OPENAI_RESPONSES if request.input is not UNSET else None
    if request.tools is UNSET and (request.toolConfig is not UNSET or request.modelId is not UNSET):
        return BEDROCK
    return None
