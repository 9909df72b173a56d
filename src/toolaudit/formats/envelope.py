"""Request/response pairs: ``{"request": {...}, "response": {...}}``, whose request's
tools judge its response's calls (also Gemini batch lines, ``{"key", "request", "response"}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import Extracted, UnknownShape, as_dict, first_present
from toolaudit.formats.declaration import Format, Inner
from toolaudit.formats.openai import request_tools
from toolaudit.formats.request_shapes import request_history


def pair(record: Mapping[str, Any], inner: Inner) -> Extracted:
    """The response's calls, judged by the request's tools when it has any; the
    request's conversation is the pair's history."""
    request = as_dict(record.get("request"))
    response = record.get("response")
    tools = request_tools(request)
    history = request_history(request, "request")
    if not isinstance(response, Mapping):
        # A request alone (or a failed one) holds no call of the model's.
        model = first_present(request, "model", "modelId")
        return Extracted("request", model=model, tools=tools, history=history)
    kind = inner.detect(response)
    if kind in ("flat", "envelope"):
        raise UnknownShape(
            f"the response of a request/response pair must be a provider response; {inner.expected}"
        )
    found = inner.extract(response, kind)
    if found.stream is not None:
        raise UnknownShape(
            "the response of a request/response pair is one chunk of a streamed response: "
            "log the assembled response, or the chunks alone, one a line, to be reassembled"
        )
    model = found.model or first_present(request, "model", "modelId")
    return Extracted(
        found.format,
        found.calls,
        model=model,
        tools=tools or found.tools,
        key=record.get("key"),
        container="envelope",
        history=history,
    )


def _recognises(record: Mapping[str, Any]) -> bool:
    return isinstance(record.get("request"), Mapping) or isinstance(record.get("response"), Mapping)


ENVELOPE = Format(
    name="envelope",
    summary="request/response pairs",
    recognises=_recognises,
    keys=("request", "response"),
    extract_nested=pair,
    tools="request.tools, request.functions or request.toolConfig.tools",
    history="request.messages, request.input or request.contents",
    # Its records yield their response's format, whose replies answer them.
    typed_shape="envelope",
    carries_tools=True,
)
