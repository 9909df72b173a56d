"""Log formats: one record (a parsed JSON line) -> the calls the model made in it.

Each line's format is recognised from its own shape (:func:`detect`), so one
file may mix them; ``--input-format`` forces one. Every extractor returns the
calls of the *response* (what the model emitted), never the calls replayed
from the conversation history in a request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolaudit.formats import anthropic, bfcl, gemini, langchain, mcp, openai
from toolaudit.formats.base import (
    ABSENT,
    JSON_STRING,
    OBJECT,
    OBJECT_ONLY,
    Call,
    Extracted,
    UnknownShape,
    as_dict,
    first_present,
    get_path,
    is_one_of,
)

Extractor = Callable[[Mapping[str, Any]], Extracted]

EXPECTED = (
    "expected a tool call {name, arguments} or a record of OpenAI (chat, responses, batch), "
    "Anthropic (message, batch), Gemini, MCP, LangChain/LangSmith, BFCL, Bedrock or Ollama"
)


def flat(record: Mapping[str, Any]) -> Extracted:
    """The seed's shape: ``{"name": ..., "arguments": ...}`` plus any other fields."""
    if "name" not in record and "arguments" not in record:
        raise UnknownShape("a flat record needs name and arguments")
    arguments = record.get("arguments", ABSENT)
    # An OpenAI Responses item logged alone keeps the call's id in call_id ("id" is the item's).
    call_id = record["call_id"] if "call_id" in record else record.get("id")
    call = Call(0, record.get("name"), arguments, id=call_id, encoding=JSON_STRING)
    return Extracted("flat", [call], model=record.get("model"))


def bedrock(record: Mapping[str, Any]) -> Extracted:
    """AWS Bedrock Converse: ``output.message.content[].toolUse`` ({toolUseId, name, input})."""
    content = get_path(record, "output", "message", "content")
    if not isinstance(content, list):
        raise UnknownShape("a Bedrock Converse response needs output.message.content")
    stop = record.get("stopReason")
    note = openai.CUT_OFF.format('stopReason "max_tokens"') if stop == "max_tokens" else None
    failure = f'Bedrock reports stopReason "{stop}"' if stop in ("malformed_tool_use", "malformed_model_output") else None
    calls = []
    for block in content:
        use = as_dict(block).get("toolUse")
        if isinstance(use, Mapping):
            calls.append(
                Call(len(calls), use.get("name"), use.get("input", ABSENT), id=use.get("toolUseId"), encoding=OBJECT, note=note, failure=failure)
            )
    if not calls and failure:
        calls.append(Call(0, None, failure=failure))
    return Extracted("bedrock", calls)


def envelope(record: Mapping[str, Any]) -> Extracted:
    """A logged request/response pair, ``{"request": {...}, "response": {...}}``
    (also Gemini batch lines, ``{"key", "request", "response"}``): the request's
    tools judge the response's calls."""
    request = as_dict(record.get("request"))
    response = record.get("response")
    tools = openai.request_tools(request)
    if not isinstance(response, Mapping):
        # A request alone (or a failed one) holds no call of the model's.
        return Extracted("request", model=first_present(request, "model", "modelId"), tools=tools)
    kind = detect(response)
    if kind in ("flat", "envelope"):
        raise UnknownShape(f"the response of a request/response pair must be a provider response; {EXPECTED}")
    inner = EXTRACTORS[kind](response)
    model = inner.model or first_present(request, "model", "modelId")
    return Extracted(inner.format, inner.calls, model=model, tools=tools or inner.tools, key=record.get("key"))


def _batch_output(record: Mapping[str, Any]) -> Extracted:
    return openai.batch_output(record, _response_body)


def _response_body(body: Mapping[str, Any]) -> Extracted:
    kind = detect(body)
    if kind not in ("openai-chat", "openai-responses"):
        raise UnknownShape("a Batch output body must be a chat completion or a response")
    return EXTRACTORS[kind](body)


#: --input-format choices -> extractor.
EXTRACTORS: dict[str, Extractor] = {
    "flat": flat,
    "openai-chat": openai.chat_completion,
    "openai-responses": openai.responses,
    "openai-batch": _batch_output,
    "openai-batch-input": openai.batch_input,
    "anthropic": anthropic.message,
    "anthropic-batch": anthropic.batch_result,
    "gemini": gemini.generate_content,
    "mcp": mcp.message,
    "langchain": langchain.message,
    "langsmith": langchain.run,
    "bfcl": bfcl.result,
    "bedrock": bedrock,
    "ollama": openai.ollama_chat,
    "envelope": envelope,
}


def detect(record: Mapping[str, Any]) -> str:
    """The name of the format this record is shaped as; raises :class:`UnknownShape`.

    A record with both ``name`` and ``arguments`` is a flat call whatever else
    it holds: the audit's fast path relies on exactly that rule.
    """
    if "name" in record and "arguments" in record:
        return "flat"
    if "custom_id" in record:
        if "result" in record:
            return "anthropic-batch"
        if "body" in record and "method" in record:
            return "openai-batch-input"
        if "response" in record or "error" in record:
            return "openai-batch"
    if isinstance(record.get("request"), Mapping) or isinstance(record.get("response"), Mapping):
        return "envelope"
    if record.get("jsonrpc") == "2.0":
        return "mcp"
    if "choices" in record:
        return "openai-chat"
    if record.get("object") == "response" or ("output" in record and isinstance(record["output"], list)):
        return "openai-responses"
    if record.get("type") == "message" or is_one_of(record.get("type"), anthropic.STREAM_EVENTS):
        return "anthropic"
    if "candidates" in record:
        return "gemini"
    if "run_type" in record:
        return "langsmith"
    if record.get("lc") == 1 or record.get("type") in ("ai", "AIMessageChunk"):
        return "langchain"
    if "result" in record and "id" in record:
        return "bfcl"
    if isinstance(get_path(record, "output", "message"), Mapping):
        return "bedrock"
    if isinstance(record.get("message"), Mapping):
        return "ollama"
    if "name" in record or "arguments" in record:
        return "flat"
    raise UnknownShape(f"no known log format: {EXPECTED}")


def extract(record: Mapping[str, Any], forced: str | None = None) -> Extracted:
    """The calls (and context) of one record; :class:`UnknownShape` if it has none."""
    return EXTRACTORS[forced or detect(record)](record)


__all__ = [
    "ABSENT",
    "EXTRACTORS",
    "JSON_STRING",
    "OBJECT",
    "OBJECT_ONLY",
    "Call",
    "Extracted",
    "UnknownShape",
    "detect",
    "extract",
]
