"""LangChain messages (dumpd, messages_to_dict, model_dump) and LangSmith runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import (
    ABSENT,
    CUT_OFF,
    OBJECT_ONLY,
    Call,
    Extracted,
    History,
    UnknownShape,
    as_dict,
    as_list,
    first_present,
    get_path,
    is_one_of,
)
from toolaudit.formats.declaration import Format
from toolaudit.formats.openai import chat_completion, chat_message_calls, invalid_call
from toolaudit.formats.request_shapes import request_shape
from toolaudit.formats.text_calls import append_calls_in_text

AI_MESSAGE_CLASSES = frozenset({"AIMessage", "AIMessageChunk"})


def message(record: Mapping[str, Any]) -> Extracted:
    """An AI message in any of LangChain's serialised forms."""
    fields = message_fields(record)
    if fields is None:
        raise UnknownShape(
            "a LangChain record must be an AI message (type 'ai', or a dumpd AIMessage)"
        )
    calls = message_calls(fields)
    metadata = as_dict(fields.get("response_metadata"))
    return Extracted("langchain", calls, model=first_present(metadata, "model_name", "model"))


def message_fields(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The fields of an AI message: ``dumpd`` keeps them in ``kwargs``,
    ``messages_to_dict`` in ``data``, ``model_dump`` at the top."""
    if record.get("lc") == 1:
        class_path = as_list(record.get("id"))
        if not class_path or not is_one_of(class_path[-1], AI_MESSAGE_CLASSES):
            return None
        return as_dict(record.get("kwargs"))
    if record.get("type") in ("ai", "AIMessageChunk"):
        data = record.get("data")
        return data if isinstance(data, Mapping) else record
    return None


def message_calls(fields: Mapping[str, Any]) -> list[Call]:
    """``tool_calls`` (args an object) and ``invalid_tool_calls`` (args a raw string
    that failed to parse). Provider payloads kept in ``content`` are the same
    calls again and are not counted twice."""
    metadata = as_dict(fields.get("response_metadata"))
    finish = first_present(metadata, "finish_reason", "stop_reason")
    note = CUT_OFF.format(f'"{finish}"') if finish in ("length", "max_tokens") else None
    calls: list[Call] = []
    for tool_call in as_list(fields.get("tool_calls")):
        tool_call = as_dict(tool_call)
        calls.append(
            Call(
                len(calls),
                tool_call.get("name"),
                tool_call.get("args", ABSENT),
                id=tool_call.get("id"),
                encoding=OBJECT_ONLY,
                note=note,
            )
        )
    for invalid in as_list(fields.get("invalid_tool_calls")):
        calls.append(invalid_call(as_dict(invalid), len(calls), "LangChain", note))
    if not calls:
        # Older logs keep raw OpenAI tool calls (string arguments) here instead.
        chat_message_calls(as_dict(fields.get("additional_kwargs")), calls, note)
    if not calls:
        # No structured call: the model may have written one into its text, unparsed.
        append_calls_in_text(calls, fields.get("content"), note)
    return calls


def run(record: Mapping[str, Any]) -> Extracted:
    """A LangSmith run. A chat-model run (``run_type`` "llm") holds the model's calls
    in its generations, and its tools in ``extra.invocation_params``; runs made
    by ``wrap_openai`` hold a raw chat completion instead. Tool and chain runs
    hold executions, not the model's calls."""
    params = as_dict(get_path(record, "extra", "invocation_params"))
    model = first_present(params, "model", "model_name") or get_path(
        record, "outputs", "llm_output", "model_name"
    )
    outputs = as_dict(record.get("outputs"))
    tools = params.get("tools") if isinstance(params.get("tools"), list) else None
    if record.get("run_type") != "llm":
        return Extracted("langsmith", model=model)
    history = run_history(as_dict(record.get("inputs")))
    if "choices" in outputs:
        inner = chat_completion(outputs)
        inputs_tools = get_path(record, "inputs", "tools")
        return Extracted(
            "langsmith",
            inner.calls,
            model=inner.model or model,
            tools=tools or (inputs_tools if isinstance(inputs_tools, list) else None),
            history=history,
        )
    calls: list[Call] = []
    for generation_list in as_list(outputs.get("generations")):
        for generation in as_list(generation_list):
            generation = as_dict(generation)
            fields = message_fields(as_dict(generation.get("message")))
            if fields is not None:
                for call in message_calls(fields):
                    call.index = len(calls)
                    calls.append(call)
            elif "message" not in generation:  # a completion model's: text alone
                append_calls_in_text(calls, generation.get("text"))
    return Extracted("langsmith", calls, model=model, tools=tools, history=history)


def run_history(inputs: Mapping[str, Any]) -> History | None:
    """The conversation a chat-model run was given: ``inputs.messages``, LangChain's
    serialised messages (a chat model's run holds one list per prompt: a run of one
    prompt is read as its list), or a provider's own messages where a wrapper
    (``wrap_openai``, ``wrap_anthropic``) logged the request it sent."""
    messages = inputs.get("messages")
    if messages is None:
        return None
    path = "inputs.messages"
    if isinstance(messages, list) and len(messages) == 1 and isinstance(messages[0], list):
        messages, path = messages[0], "inputs.messages[0]"
    first = as_dict(messages[0]) if isinstance(messages, list) and messages else {}
    if "role" in first and "lc" not in first:
        return History(request_shape(inputs) or "openai-chat", messages, path)
    return History("langchain", messages, path)


def _is_message(record: Mapping[str, Any]) -> bool:
    return record.get("lc") == 1 or record.get("type") in ("ai", "AIMessageChunk")


def _is_run(record: Mapping[str, Any]) -> bool:
    return "run_type" in record


LANGCHAIN = Format(
    name="langchain",
    summary="LangChain messages",
    recognises=_is_message,
    keys=("lc", "type"),
    extract=message,
    family="LangChain/LangSmith",
    tool_result_messages="langchain",
)
LANGSMITH = Format(
    name="langsmith",
    summary="LangSmith runs",
    recognises=_is_run,
    keys=("run_type",),
    extract=run,
    tools="extra.invocation_params.tools (or inputs.tools)",
    history="inputs.messages (of a chat model's run)",
    family="LangChain/LangSmith",
    tool_result_messages="langchain",
    carries_tools=True,
)
