"""Requests logged alone, as gateways and proxies log what they forward: one format per
API. A request holds no call of the model's own: its conversation is its history (the
calls and results it replays), and its tools are those it offered.

Which API a request is for is read from its fields (see request_shapes.py), so that a
body any of these formats could take is taken by exactly one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolaudit.formats.base import Extracted, History, UnknownShape, first_present
from toolaudit.formats.declaration import Format
from toolaudit.formats.openai import request_tools
from toolaudit.formats.request_shapes import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    HISTORY_FIELDS,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    request_shape,
)


def _reader(name: str, shape: str) -> Callable[[Mapping[str, Any]], Extracted]:
    """The extractor of the requests of one API: no call, the tools, the history."""
    field = HISTORY_FIELDS[shape]

    def extract(record: Mapping[str, Any]) -> Extracted:
        messages = record.get(field)
        if messages is None:
            raise UnknownShape(f"a request logged alone ({name}) needs its {field}")
        # A Responses input of one string is one user turn: nothing to pair.
        history = None if isinstance(messages, str) else History(shape, messages, field)
        return Extracted(
            name,
            model=first_present(record, "model", "modelId"),
            tools=request_tools(record),
            history=history,
        )

    return extract


def _shape_alone(record: Mapping[str, Any]) -> str | None:
    # Half a call ({"name"} or {"arguments"} with anything else) is a flat call's,
    # as a last resort: a request never takes it.
    if "name" in record or "arguments" in record:
        return None
    return request_shape(record)


def _recogniser(shape: str) -> Callable[[Mapping[str, Any]], bool]:
    field = HISTORY_FIELDS[shape]

    def recognises(record: Mapping[str, Any]) -> bool:
        held = record.get(field)
        # A Responses input may be one string, in a request that names its model.
        one_string = shape == OPENAI_RESPONSES and isinstance(held, str) and "model" in record
        if not isinstance(held, list) and not one_string:
            return False
        return _shape_alone(record) == shape

    return recognises


def _request_format(name: str, shape: str, summary: str, tools: str) -> Format:
    return Format(
        name=name,
        summary=summary,
        recognises=_recogniser(shape),
        keys=(HISTORY_FIELDS[shape],),
        extract=_reader(name, shape),
        tools=tools,
        carries_tools=True,
        history=HISTORY_FIELDS[shape],
        # Read by the typed path, its conversation checked from its text.
        typed_shape=name.replace("-", "_"),
    )


OPENAI_CHAT_REQUEST = _request_format(
    "openai-chat-request",
    OPENAI_CHAT,
    "OpenAI Chat Completions requests logged alone",
    "tools (or functions)",
)
OPENAI_RESPONSES_REQUEST = _request_format(
    "openai-responses-request",
    OPENAI_RESPONSES,
    "OpenAI Responses requests logged alone",
    "tools",
)
ANTHROPIC_REQUEST = _request_format(
    "anthropic-request", ANTHROPIC, "Anthropic Messages requests logged alone", "tools"
)
BEDROCK_REQUEST = _request_format(
    "bedrock-request", BEDROCK, "Bedrock Converse requests logged alone", "toolConfig.tools"
)
GEMINI_REQUEST = _request_format(
    "gemini-request", GEMINI, "Gemini generateContent requests logged alone", "tools"
)

#: Every format of requests logged alone.
REQUEST_FORMATS = (
    OPENAI_CHAT_REQUEST,
    OPENAI_RESPONSES_REQUEST,
    ANTHROPIC_REQUEST,
    BEDROCK_REQUEST,
    GEMINI_REQUEST,
)
