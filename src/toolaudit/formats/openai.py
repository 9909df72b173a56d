"""OpenAI: Chat Completions (and compatible servers), Responses, and Batch lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import (
    ABSENT,
    CUT_OFF,
    JSON_STRING,
    OBJECT,
    Call,
    Extracted,
    UnknownShape,
    as_dict,
    as_list,
    ends_with,
    get_path,
)
from toolaudit.formats.declaration import KEY, Format, Inner
from toolaudit.formats.request_shapes import request_history
from toolaudit.formats.text_calls import append_calls_in_text


def chat_completion(record: Mapping[str, Any]) -> Extracted:
    """``choices[].message.tool_calls[]`` (and legacy ``function_call``); vLLM and
    other OpenAI-compatible servers write the same shape."""
    choices = record.get("choices")
    if not isinstance(choices, list):
        raise UnknownShape("an OpenAI chat completion needs a choices array")
    calls: list[Call] = []
    for choice in choices:
        choice = as_dict(choice)
        finish = choice.get("finish_reason")
        note = CUT_OFF.format('finish_reason "length"') if finish == "length" else None
        chat_message_calls(as_dict(choice.get("message")), calls, note)
    return Extracted("openai-chat", calls, model=record.get("model"))


def chat_message_calls(message: Mapping[str, Any], calls: list[Call], note: str | None) -> None:
    """Append the calls of one chat message (also Ollama's, and LangChain's raw ones),
    or, when it has none, those written into its text."""
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
    # Calls the server (a LangChain-backed one, say) could not parse, set apart.
    for invalid in as_list(message.get("invalid_tool_calls")):
        calls.append(invalid_call(as_dict(invalid), len(calls), "the server", note))
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping):
        arguments = legacy.get("arguments", ABSENT)
        calls.append(Call(len(calls), legacy.get("name"), arguments, note=note))
    elif not message.get("tool_calls") and not message.get("invalid_tool_calls"):
        # No structured call: the model may have written one into its text, unparsed.
        append_calls_in_text(calls, message.get("content"), note)


def invalid_call(invalid: Mapping[str, Any], index: int, who: str, note: str | None) -> Call:
    """A call its framework or server set apart as invalid (LangChain's
    ``InvalidToolCall``: ``{name, args, id, error}``, ``args`` the raw text that failed to
    parse), with its error text; ``note`` says where the response was cut off."""
    error = invalid.get("error")
    return Call(
        index,
        invalid.get("name"),
        invalid.get("args", ABSENT),
        id=invalid.get("id"),
        failure=(
            f"{who} could not parse these arguments: {error}"
            if error
            else f"{who} marked this call invalid"
        ),
        note=note,
    )


def responses(record: Mapping[str, Any]) -> Extracted:
    """Responses API: ``output[]`` items of type ``function_call``; the id is ``call_id``."""
    output = record.get("output")
    if not isinstance(output, list):
        raise UnknownShape("an OpenAI Responses object needs an output array")
    incomplete = record.get("status") == "incomplete"
    reason = get_path(record, "incomplete_details", "reason")
    reason = reason if isinstance(reason, str) else None  # as the stream's reader says it
    calls: list[Call] = []
    for item in output:
        item = as_dict(item)
        if item.get("type") != "function_call":
            continue
        cut = incomplete or item.get("status") == "incomplete"
        signal = f'status "incomplete", {reason or "no reason given"}'
        calls.append(
            Call(
                len(calls),
                item.get("name"),
                item.get("arguments", ABSENT),
                id=item.get("call_id"),
                note=CUT_OFF.format(signal) if cut else None,
            )
        )
    if not any(ends_with(as_dict(item).get("type"), "_call") for item in output):
        # No call of any kind: the model may have written one into its text, unparsed.
        signal = f'status "incomplete", {reason or "no reason given"}'
        note = CUT_OFF.format(signal) if incomplete else None
        for item in output:
            if as_dict(item).get("type") == "message":
                append_calls_in_text(calls, as_dict(item).get("content"), note)
    return Extracted("openai-responses", calls, model=record.get("model"))


def batch_output(record: Mapping[str, Any], inner: Inner) -> Extracted:
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
    kind = inner.detect(body)
    if kind not in ("openai-chat", "openai-responses"):
        raise UnknownShape("a Batch output body must be a chat completion or a response")
    found = inner.extract(body, kind)
    return Extracted("openai-batch", found.calls, model=found.model, key=key)


def batch_input(record: Mapping[str, Any]) -> Extracted:
    """A Batch input line: a request, whose tools apply to the output line with
    the same ``custom_id``. It holds no call of the model's; its body's conversation
    is its history."""
    body = as_dict(record.get("body"))
    return Extracted(
        "openai-batch",
        model=body.get("model"),
        tools=request_tools(body),
        key=record.get("custom_id"),
        defines=KEY,
        history=request_history(body, "body"),
    )


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
    # The google-genai SDK takes a Gemini request's tools in its config: logs of its
    # keyword arguments (``model``, ``contents``, ``config``) keep them there.
    sdk = get_path(request, "config", "tools") if "contents" in request else None
    if isinstance(sdk, list):
        tools.extend(sdk)
    return tools or None


def _batch_reply_shape(record: Mapping[str, Any]) -> str:
    # A Batch line's calls are answered in the shape of the API its body is from.
    body = as_dict(as_dict(record.get("response")).get("body"))
    return "openai-responses" if body.get("object") == "response" else "openai-chat"


def _is_chat(record: Mapping[str, Any]) -> bool:
    return "choices" in record


def _is_response(record: Mapping[str, Any]) -> bool:
    return record.get("object") == "response" or (
        "output" in record and isinstance(record["output"], list)
    )


def _is_batch_output(record: Mapping[str, Any]) -> bool:
    return "custom_id" in record and ("response" in record or "error" in record)


def _is_batch_input(record: Mapping[str, Any]) -> bool:
    return "custom_id" in record and "body" in record and "method" in record


OPENAI_CHAT = Format(
    name="openai-chat",
    summary="OpenAI Chat Completions, vLLM and other compatible servers",
    recognises=_is_chat,
    keys=("choices",),
    extract=chat_completion,
    family="OpenAI",
    variant="chat",
    typed_shape="openai_chat",
    tool_result_messages="openai-chat",
)
OPENAI_RESPONSES = Format(
    name="openai-responses",
    summary="OpenAI Responses",
    recognises=_is_response,
    keys=("object", "output"),
    extract=responses,
    family="OpenAI",
    variant="responses",
    typed_shape="openai_responses",
    tool_result_messages="openai-responses",
)
OPENAI_BATCH = Format(
    name="openai-batch",
    summary="OpenAI Batch output lines",
    recognises=_is_batch_output,
    keys=("custom_id",),
    extract_nested=batch_output,
    family="OpenAI",
    variant="batch",
    typed_shape="openai_batch",
    tool_result_messages=_batch_reply_shape,
    uses_defined_tools=KEY,
)
OPENAI_BATCH_INPUT = Format(
    name="openai-batch-input",
    summary="OpenAI Batch input lines",
    recognises=_is_batch_input,
    keys=("custom_id",),
    extract=batch_input,
    tools="body.tools: they judge the output line with the same custom_id",
    history="body.messages or body.input",
    family="OpenAI",
    variant="batch",
    defines_tools=KEY,
)
