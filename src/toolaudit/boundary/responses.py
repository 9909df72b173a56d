"""A provider's response, as an agent holds it -> the calls the model made.

An agent holds what its SDK returned: a pydantic model (openai, anthropic,
google-genai, MCP, LangChain), a dict (boto3's Converse), or the JSON text of
either. All become one JSON object, which the log-format registry reads like
a line of a log. Agents also hold a bare assistant message (``choices[0].message``,
an Anthropic message without its envelope): those are wrapped into the response
they came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from toolaudit.errors import ResponseError
from toolaudit.formats import (
    FALLBACK_REPLY_SHAPE,
    Extracted,
    UnknownShape,
    extract,
    get_format,
    is_format,
)
from toolaudit.jsonutil import loads_exact
from toolaudit.values import kind_phrase


def as_json_value(value: object) -> Any:
    """An SDK object (``model_dump``), JSON text or bytes -> plain JSON values."""
    if type(value) is dict:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        # mode="json": enums and bytes as JSON has them; by_alias: the wire's field names
        # (google-genai's camelCase, LangChain's and MCP's own).
        try:
            return dump(mode="json", by_alias=True, exclude_none=True)
        except TypeError:  # a model_dump without pydantic's keywords
            return dump()
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as error:
            try:  # valid JSON orjson refuses (1e400, a lone surrogate escape)
                return loads_exact(bytes(value) if not isinstance(value, str) else value)
            except (ValueError, RecursionError):
                raise ResponseError(f"the response is not valid JSON: {error}") from None
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, Mapping):
        return to_dict()
    return value


def calls_in(response: object) -> tuple[Extracted, str]:
    """The calls in a response, and the shape its tool results take (see messages.py);
    :class:`ResponseError` when it is of no known shape."""
    record = as_json_value(response)
    if not isinstance(record, Mapping):
        raise ResponseError(
            f"expected a provider's response (an object), got {kind_phrase(record)}"
        )
    try:
        extracted = extract(record)
    except UnknownShape as shape:
        wrapped = _as_response(record) or _as_gemini_response(record)
        if wrapped is not None:
            try:
                extracted = extract(wrapped)
            except UnknownShape:
                pass
            else:
                return extracted, reply_shape(wrapped, extracted.format)
        raise ResponseError(f"not a provider's response: {shape}") from None
    if extracted.stream is not None:
        raise ResponseError(
            "one chunk of a streamed response holds fragments of calls: check the response "
            "once assembled (the SDK's stream helpers assemble it; toolaudit audit reassembles "
            "logged streams)"
        )
    if is_format(extracted.format):
        response_format = get_format(extracted.format)
        if response_format.tool_result_messages is None:
            # A trace records calls after the fact: there is no reply to make to it.
            raise ResponseError(
                f"not a provider's response: a {response_format.summary} record "
                "(audit such logs with toolaudit audit)"
            )
    return extracted, reply_shape(record, extracted.format)


def reply_shape(record: Mapping[str, Any], response_format: str) -> str:
    """How the calls of this record, of this format, are answered: the shape its format
    declares (``Format.tool_result_messages``), which may depend on the record (a Batch
    line holding a Responses response, a lone Responses item read as a flat call)."""
    if not is_format(response_format):
        return FALLBACK_REPLY_SHAPE
    return get_format(response_format).reply_shape(record) or FALLBACK_REPLY_SHAPE


def _as_response(message: Mapping[str, Any]) -> dict[str, Any] | None:
    """A bare assistant message, wrapped as the response it came in; None if it is none."""
    if message.get("role") != "assistant":
        return None
    if "tool_calls" in message or isinstance(message.get("content"), str | None):
        # OpenAI Chat's message (choices[0].message).
        return {"object": "chat.completion", "choices": [{"index": 0, "message": dict(message)}]}
    if isinstance(message.get("content"), list):
        # Anthropic's message param ({"role": "assistant", "content": [blocks]}).
        return {"type": "message", **message}
    return None


def _as_gemini_response(content: Mapping[str, Any]) -> dict[str, Any] | None:
    """Gemini's ``candidates[0].content`` ({"role": "model", "parts": [...]}), wrapped."""
    if content.get("role") == "model" and isinstance(content.get("parts"), list):
        return {"candidates": [{"content": dict(content)}]}
    return None
