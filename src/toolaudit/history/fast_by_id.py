"""The fast paths of ``check`` for the shapes whose results may come anywhere after their
calls, paired by id: OpenTelemetry GenAI messages and LangChain's (see
:mod:`toolaudit.history.fast`). Each answers only the plainest history, every call with a
string id of its own and every result answering an earlier call by it (LangChain's
naming the same tool); anything else, None: the full reading decides."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import OBJECT, OBJECT_ONLY, as_dict, as_list, is_one_of
from toolaudit.history.blocks import failed_response
from toolaudit.history.fast_loop import Loop, Open, answered_in_c, reports_failure
from toolaudit.history.messages import ASSISTANT_ROLES, TOOL_ROLES
from toolaudit.history.model import LANGCHAIN, OTEL, Checked

OTEL_PART = "{}[{}].parts[{}]"
#: A LangChain call's place: its message, where its fields are ("", ".kwargs", ".data": the
#: Open's last element), its index among the message's tool calls.
_LANGCHAIN_CALL = "{0}[{1}]{3}.tool_calls[{2}]"


def otel(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """OpenTelemetry GenAI: ``tool_call`` parts, answered by ``tool_call_response`` parts
    of any later message (not of their own: a message's results are paired before its
    calls are made, as the full reading pairs them)."""
    sped = answered_in_c("otel", OTEL, OTEL_PART, messages, path, calls)
    if sped is not None:
        return sped
    loop = Loop(path, calls, OTEL_PART)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    unpaired: dict[str, Open] = {}  #: calls not answered yet, in order
    for index, message in enumerate(messages):
        if type(message) is not dict:
            return None
        parts = message.get("parts")
        if type(parts) is not list:
            if type(parts) is not str:
                return None
            continue
        made: list[tuple[str, Open]] = []  #: answered from the next message on
        for j, part in enumerate(parts):
            if type(part) is not dict:
                return None
            kind, call_id = part.get("type"), part.get("id")
            if kind == "tool_call":
                if type(call_id) is not str or call_id in seen:
                    return None
                seen.add(call_id)
                at = (part.get("name"), index, j, "")
                made.append((call_id, at))
                if held is not None or waiting:  # (outcomes in the parts' order)
                    loop.call(call_id, at, part, "arguments", OBJECT)
            elif kind == "tool_call_response":
                call = unpaired.pop(call_id, None) if type(call_id) is str else None
                if call is None:
                    return None
                answer = part["response"] if "response" in part else part.get("result")
                # (a text, the commonest, is read as failed_response reads it, at once)
                failed = reports_failure(answer) if type(answer) is str else failed_response(answer)
                loop.outcomes.result(call, call[0], failed)
        unpaired.update(made)
    loop.unanswered.extend(unpaired.items())
    return loop.checked(OTEL, len(messages))


def langchain(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """LangChain: an ``AIMessage``'s ``tool_calls``, answered by ``ToolMessage``s of any
    later message, in each of the forms the full reading reads (``model_dump``,
    ``messages_to_dict``, ``dumpd``); OpenAI's dicts logged as LangChain messages are left
    to it."""
    loop = Loop(path, calls, _LANGCHAIN_CALL)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    unpaired: dict[str, Open] = {}  #: calls not answered yet, in order
    for index, message in enumerate(messages):
        if type(message) is not dict:
            return None
        kind, fields, prefix = _langchain_fields(message)
        if is_one_of(kind, ASSISTANT_ROLES):
            tool_calls = as_list(fields.get("tool_calls"))
            if tool_calls and isinstance(as_dict(tool_calls[0]).get("function"), Mapping):
                return None  # OpenAI's dicts: the full reading reads them as Chat's
            for j, tool_call in enumerate(tool_calls):
                call_id = tool_call.get("id") if type(tool_call) is dict else None
                if type(call_id) is not str or call_id in seen:
                    return None
                seen.add(call_id)
                unpaired[call_id] = at = (tool_call.get("name"), index, j, prefix)
                if held is not None or waiting:
                    loop.call(call_id, at, tool_call, "args", OBJECT_ONLY)
        elif is_one_of(kind, TOOL_ROLES):
            call_id = fields.get("tool_call_id")
            call = unpaired.pop(call_id, None) if type(call_id) is str else None
            if call is None:
                return None
            name = fields.get("name")
            if isinstance(name, str) and isinstance(call[0], str) and name != call[0]:
                return None  # a result naming another tool: the full reading words it
            failed = fields.get("status") == "error" or reports_failure(fields.get("content"))
            loop.outcomes.result(call, call[0], failed)
    loop.unanswered.extend(unpaired.items())
    return loop.checked(LANGCHAIN, len(messages))


def _langchain_fields(message: dict[str, Any]) -> tuple[object, Mapping[str, Any], str]:
    """messages._langchain_fields, with where the fields are as a path's text."""
    if message.get("lc") == 1:
        class_path = as_list(message.get("id"))
        return (class_path[-1] if class_path else None), as_dict(message.get("kwargs")), ".kwargs"
    data = message.get("data")
    if isinstance(data, Mapping) and "type" in message:
        return message.get("type"), data, ".data"
    return message.get("type", message.get("role")), message, ""
