"""The fast paths of ``check`` for the shapes whose calls and results are blocks of a
message, answered in the very next message: Anthropic, Bedrock, Gemini (see
:mod:`toolaudit.history.fast`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolaudit.formats.base import OBJECT
from toolaudit.history.blocks import failed_response
from toolaudit.history.fast_loop import (
    RECEIVING,
    Loop,
    NotSure,
    Open,
    answered_in_c,
    reports_failure,
)
from toolaudit.history.model import ANTHROPIC, BEDROCK, GEMINI, Checked

#: A block's reading: ("call", id, name, the element holding its "input") or
#: ("result", id, failed), or
#: None for a block that is neither; a block it is not sure of raises NotSure.
_Block = Callable[[dict[str, Any]], tuple[Any, ...] | None]


def _anthropic_block(block: dict[str, Any]) -> tuple[Any, ...] | None:
    kind = block.get("type")
    if kind == "tool_use":
        return ("call", block.get("id"), block.get("name"), block)
    if kind == "tool_result":
        failed = block.get("is_error") is True or reports_failure(block.get("content"))
        return ("result", block.get("tool_use_id"), failed)
    return None


def _bedrock_block(block: dict[str, Any]) -> tuple[Any, ...] | None:
    use, result = block.get("toolUse"), block.get("toolResult")
    if use is not None:
        if type(use) is not dict:
            raise NotSure
        return ("call", use.get("toolUseId"), use.get("name"), use)
    if result is not None:
        if type(result) is not dict:
            raise NotSure
        failed = result.get("status") == "error" or reports_failure(result.get("content"))
        return ("result", result.get("toolUseId"), failed)
    return None


def _windowed_blocks(
    shape: str, read: _Block, where: str, messages: list[Any], path: str, calls: bool
) -> Checked | None:
    """Anthropic and Bedrock: a message's calls are answered in the very next message, a
    user's (Anthropic: its tool_result blocks before any other block)."""
    loop = Loop(path, calls, where)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    window: dict[str, Open] = {}  #: the calls of the message before
    leading_only = shape == ANTHROPIC
    for index, message in enumerate(messages):
        if type(message) is not dict:
            return None
        content = message.get("content")
        if type(content) is not list:
            if type(content) is not str:
                return None
            content = ()
        receiving = message.get("role") in RECEIVING
        made: dict[str, Open] = {}
        results = 0
        for j, block in enumerate(content):
            if type(block) is not dict:
                return None
            try:
                found = read(block)
            except NotSure:
                return None
            if found is None:
                continue
            call_id = found[1]
            if found[0] == "call":
                if type(call_id) is not str or call_id in seen:
                    return None
                seen.add(call_id)
                made[call_id] = at = (found[2], index, j, "")
                if held is not None or waiting:
                    loop.call(call_id, at, found[3], "input", OBJECT)
                continue
            if leading_only and j != results:
                return None
            call = window.pop(call_id, None) if receiving and type(call_id) is str else None
            if call is None:
                return None
            results += 1
            loop.outcomes.result(call, call[0], found[2])
        loop.unanswered.extend(window.items())  # the window is this one message
        window = made
    loop.unanswered.extend(window.items())
    return loop.checked(shape, len(messages))


#: Where each shape's calls are (a path, a message's index, a block's index).
ANTHROPIC_BLOCK = "{}[{}].content[{}]"
BEDROCK_BLOCK = "{}[{}].content[{}].toolUse"
GEMINI_PART = "{}[{}].parts[{}].{}"  # and the part's field


def anthropic(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """Anthropic Messages (see :func:`_windowed_blocks`)."""
    sped = answered_in_c("anthropic", ANTHROPIC, ANTHROPIC_BLOCK, messages, path, calls)
    if sped is not None:
        return sped
    return _windowed_blocks(ANTHROPIC, _anthropic_block, ANTHROPIC_BLOCK, messages, path, calls)


def bedrock(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """Bedrock Converse (see :func:`_windowed_blocks`)."""
    sped = answered_in_c("bedrock", BEDROCK, BEDROCK_BLOCK, messages, path, calls)
    if sped is not None:
        return sped
    return _windowed_blocks(BEDROCK, _bedrock_block, BEDROCK_BLOCK, messages, path, calls)


def gemini(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """Gemini: a content's calls are answered in the very next content, a user's; by id
    where every call and response has one, else by name, in order (a history that mixes
    the two, or a part without a name, is left to the full reading)."""
    sped = answered_in_c("gemini", GEMINI, GEMINI_PART, messages, path, calls)
    if sped is not None:
        return sped
    loop = Loop(path, calls, GEMINI_PART)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    window: dict[str, list[tuple[str | None, Open]]] = {}  #: by id or name: in order
    by_id: bool | None = None  #: how this history pairs, once its first call tells
    for index, content in enumerate(messages):
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is not list:
            if type(parts) is not str:
                return None
            parts = []
        receiving = content.get("role") in RECEIVING
        made: dict[str, list[tuple[str | None, Open]]] = {}
        for j, part in enumerate(parts):
            try:
                found = _gemini_part(part)
            except NotSure:
                return None
            if found is None:
                continue
            is_call, field, element, call_id, name = found
            if by_id is None:
                by_id = call_id is not None
            if by_id is not (call_id is not None):
                return None
            key = call_id if call_id is not None else name
            if is_call:
                if by_id and key in seen:
                    return None
                seen.add(key)
                at = (name, index, j, field)
                made.setdefault(key, []).append((call_id, at))
                if held is not None or waiting:
                    loop.call(call_id, at, element, "args", OBJECT)
                continue
            answered = window.get(key) if receiving else None
            if not answered or answered[0][1][0] != name:
                return None  # out of place, unpaired, or naming another tool
            call = answered.pop(0)[1]
            loop.outcomes.result(call, name, failed_response(element.get("response")))
        left = [call for calls in window.values() for call in calls]
        loop.unanswered.extend(sorted(left, key=lambda call: call[1][2]))
        window = made
    left = [call for calls in window.values() for call in calls]
    loop.unanswered.extend(sorted(left, key=lambda call: call[1][2]))
    return loop.checked(GEMINI, len(messages))


def _gemini_part(part: object) -> tuple[bool, str, dict[str, Any], str | None, str] | None:
    """A part's call or response: whether a call, its field, the element, its id and its
    name; None for a part that is neither. A part the fast path is not sure of raises
    NotSure."""
    if type(part) is not dict:
        raise NotSure
    call_field = "functionCall" if "functionCall" in part else "function_call"
    result_field = "functionResponse" if "functionResponse" in part else "function_response"
    call, response = part.get(call_field), part.get(result_field)
    field, element = (call_field, call) if call is not None else (result_field, response)
    if element is None:
        return None
    if type(element) is not dict:
        raise NotSure
    call_id, name = element.get("id"), element.get("name")
    if type(name) is not str or not (call_id is None or type(call_id) is str):
        raise NotSure
    return call is not None, field, element, call_id, name
