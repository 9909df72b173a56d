"""OpenAI: Chat Completions (and compatible servers), Responses, and Batch lines."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolaudit.formats.base import (
    ABSENT,
    JSON_STRING,
    OBJECT,
    Call,
    Extracted,
    UnknownShape,
    as_dict,
    as_list,
    get_path,
)

CUT_OFF = "the response hit its length limit ({}), so these arguments may be cut off"


def chat_completion(record: Mapping[str, Any]) -> Extracted:
    """``choices[].message.tool_calls[]`` (and legacy ``function_call``); vLLM and
    other OpenAI-compatible servers write the same shape, Ollama's native API too."""
    choices = record.get("choices")
    if not isinstance(choices, list):
        raise UnknownShape("an OpenAI chat completion needs a choices array")
    if record.get("object") == "chat.completion.chunk" or any("delta" in as_dict(c) for c in choices):
        raise UnknownShape(
            "an OpenAI stream chunk holds fragments of calls; audit the assembled response instead"
        )
    calls: list[Call] = []
    for choice in choices:
        choice = as_dict(choice)
        finish = choice.get("finish_reason")
        note = CUT_OFF.format('finish_reason "length"') if finish == "length" else None
        chat_message_calls(as_dict(choice.get("message")), calls, note)
    return Extracted("openai-chat", calls, model=record.get("model"))


def ollama_chat(record: Mapping[str, Any]) -> Extracted:
    """Ollama's native ``/api/chat``: one ``message`` whose arguments are objects."""
    calls: list[Call] = []
    note = CUT_OFF.format('done_reason "length"') if record.get("done_reason") == "length" else None
    chat_message_calls(as_dict(record.get("message")), calls, note)
    return Extracted("ollama", calls, model=record.get("model"))


def chat_message_calls(message: Mapping[str, Any], calls: list[Call], note: str | None) -> None:
    for tool_call in as_list(message.get("tool_calls")):
        tool_call = as_dict(tool_call)
        if tool_call.get("type") == "custom":
            continue  # a custom tool takes free text, not JSON: nothing to validate
        function = as_dict(tool_call.get("function"))
        arguments = function.get("arguments", ABSENT)
        calls.append(
            Call(
                len(calls),
                function.get("name"),
                arguments,
                id=tool_call.get("id"),
                # Ollama and Hugging Face rows keep an object; the wire sends a string.
                encoding=JSON_STRING if isinstance(arguments, str) else OBJECT,
                note=note,
            )
        )
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping):
        calls.append(Call(len(calls), legacy.get("name"), legacy.get("arguments", ABSENT), note=note))


def responses(record: Mapping[str, Any]) -> Extracted:
    """Responses API: ``output[]`` items of type ``function_call``; the id is ``call_id``."""
    output = record.get("output")
    if not isinstance(output, list):
        raise UnknownShape("an OpenAI Responses object needs an output array")
    incomplete = record.get("status") == "incomplete"
    reason = get_path(record, "incomplete_details", "reason")
    calls: list[Call] = []
    for item in output:
        item = as_dict(item)
        if item.get("type") != "function_call":
            continue
        cut = incomplete or item.get("status") == "incomplete"
        calls.append(
            Call(
                len(calls),
                item.get("name"),
                item.get("arguments", ABSENT),
                id=item.get("call_id"),
                note=CUT_OFF.format(f'status "incomplete", {reason or "no reason given"}') if cut else None,
            )
        )
    return Extracted("openai-responses", calls, model=record.get("model"))


def batch_output(record: Mapping[str, Any], response_body: Callable[[Mapping[str, Any]], Extracted]) -> Extracted:
    """A Batch output (or error) line: the completion sits in ``response.body``.

    A failed request (``response: null``, or a non-200 status) holds no call:
    it is a request error, not a tool-call error.
    """
    key = record.get("custom_id")
    response = record.get("response")
    if not isinstance(response, Mapping):
        return Extracted("openai-batch", key=key)
    body = response.get("body")
    if response.get("status_code", 200) != 200 or not isinstance(body, Mapping):
        return Extracted("openai-batch", key=key)
    inner = response_body(body)
    return Extracted("openai-batch", inner.calls, model=inner.model, key=key)


def batch_input(record: Mapping[str, Any]) -> Extracted:
    """A Batch input line: a request, whose tools apply to the output line with
    the same ``custom_id``. It holds no call of the model's."""
    body = as_dict(record.get("body"))
    return Extracted("openai-batch", model=body.get("model"), tools=request_tools(body), key=record.get("custom_id"), defines="key")


def request_tools(request: Mapping[str, Any]) -> list[Any] | None:
    """The tool definitions a logged request carries, in whatever provider shape."""
    tools: list[Any] = []
    for field in ("tools", "functions"):
        value = request.get(field)
        if isinstance(value, list):
            tools.extend(value)
    bedrock = get_path(request, "toolConfig", "tools")
    if isinstance(bedrock, list):
        tools.extend(bedrock)
    return tools or None
