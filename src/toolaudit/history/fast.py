"""The fast path of ``check`` for the history most logs hold: every call with a string id
of its own, every result where its provider wants it. One loop over the raw dicts pairs
the ids, checks the provider's placement rule and counts the outcomes, with no object per
message and no path string but for the calls and problems it returns.

Anything unusual (a result out of place or unpaired, a repeated id, an id missing or not
a string, a block of another shape, a legacy or custom tool, a name that disagrees) makes
it return None, "not sure", and the full reading (:mod:`toolaudit.history.check`) runs
and decides. The one problem it reports itself is the commonest, a call left without a
result, built by the same function the full reading uses. Its answers are therefore the
full reading's; tests/history/test_fast.py holds the two to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolaudit.formats.base import ABSENT, JSON_STRING, OBJECT
from toolaudit.history.blocks import failed_response
from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    NO_NAME,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    Checked,
    HistoryCall,
    Problem,
    ToolOutcome,
)
from toolaudit.history.pairing import unanswered
from toolaudit.history.signals import SUSPECT_STARTS, failed_payload

#: A call the loop holds: its name, its message's index, its index in the message, and
#: (Gemini) the field that holds it in its part.
_Open = tuple[object, int, int, str]
#: Roles whose message can hold the results of the calls before it (blocks' shapes).
_RECEIVING = ("user", "function", "tool", None)


class _Outcomes:
    """Each tool's outcomes, counted as calls and results go by in history order, by the
    rules of :func:`toolaudit.history.outcomes.outcomes` (a call known by its _Open)."""

    __slots__ = ("found", "retries", "waiting")

    def __init__(self) -> None:
        self.found: dict[str, ToolOutcome] = {}
        self.waiting: dict[str, int] = {}  #: failures not yet followed by a call of the tool
        self.retries: dict[_Open, int] = {}  #: by call: how many failures it retries

    def call(self, call: _Open, name: object) -> None:
        tool = name if isinstance(name, str) else NO_NAME
        failures = self.waiting.pop(tool, 0)
        if failures:
            self.found[tool].retried += failures
            self.retries[call] = failures

    def result(self, call: _Open, name: object, failed: bool) -> None:
        tool = name if isinstance(name, str) else NO_NAME
        outcome = self.found.get(tool)
        if outcome is None:
            outcome = self.found[tool] = ToolOutcome()
        outcome.results += 1
        if failed:
            outcome.failures += 1
            self.waiting[tool] = self.waiting.get(tool, 0) + 1
        elif self.retries:
            outcome.recovered += self.retries.pop(call, 0)


class _Loop:
    """What one history's loop keeps: the outcomes, the calls held, the ids seen, the
    calls left unanswered. ``where`` formats a call's path from the history's path, its
    message's index and its index in the message."""

    __slots__ = ("held", "outcomes", "path", "seen", "unanswered", "where")

    def __init__(self, path: str, calls: bool, where: str) -> None:
        self.path, self.where = path, where
        self.outcomes = _Outcomes()
        self.held: list[HistoryCall] | None = [] if calls else None
        self.seen: set[str] = set()
        self.unanswered: list[tuple[str | None, _Open]] = []

    def call(
        self, call_id: str | None, at: _Open, element: dict[str, Any], field: str, encoding: str
    ) -> None:
        """A call with ``call_id`` (a string not seen before), its arguments in
        ``element[field]``; only a failure before it, or calls to list, need more."""
        if self.outcomes.waiting:
            self.outcomes.call(at, at[0])
        if self.held is not None:
            path = self.where.format(self.path, *at[1:])
            arguments = element.get(field, ABSENT)
            self.held.append(HistoryCall(at[0], arguments, call_id, path, encoding))

    def checked(self, shape: str, messages: int) -> Checked:
        problems: list[Problem] = []
        for call_id, (name, index, *where) in self.unanswered:
            path = self.where.format(self.path, index, *where)
            problems.append(unanswered(shape, path, call_id, name, index, messages))
        return Checked(shape, messages, problems, self.outcomes.found, self.held or [])


def chat(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """OpenAI Chat: a call's results are the run of tool messages right after its message."""
    loop = _Loop(path, calls, "{}[{}].tool_calls[{}]")
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    result = loop.outcomes.result
    #: the calls of the last message not answered yet, while tool messages follow it
    window: dict[str, _Open] = {}
    for index, message in enumerate(messages):
        if type(message) is not dict:
            return None
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            call = window.pop(call_id, None) if type(call_id) is str else None
            if call is None:
                return None
            name = message.get("name")
            if name is not None and name != call[0] and _both_names(name, call[0]):
                return None
            result(call, call[0], _failed(message.get("content")))
            continue
        if window:  # any other message ends the run of tool messages
            loop.unanswered.extend(window.items())
            window = {}
        if role == "assistant":
            if message.get("function_call") is not None:
                return None  # legacy functions pair by name: the full reading does that
            tool_calls = message.get("tool_calls")
            if tool_calls is None:
                continue
            if type(tool_calls) is not list:
                return None
            for j, tool_call in enumerate(tool_calls):
                function = tool_call.get("function") if type(tool_call) is dict else None
                if type(function) is not dict:
                    return None  # not an object, or a custom tool's call
                call_id = tool_call.get("id")
                if type(call_id) is not str or call_id in seen:
                    return None
                seen.add(call_id)
                window[call_id] = at = (function.get("name"), index, j, "")
                if held is not None or waiting:
                    loop.call(call_id, at, function, "arguments", JSON_STRING)
        elif role == "function":
            return None
    loop.unanswered.extend(window.items())
    return loop.checked(OPENAI_CHAT, len(messages))


def _failed(content: object) -> bool:
    """:func:`failed_payload`, answered at once for the commonest content: a plain text."""
    if type(content) is str and content[:1] not in SUSPECT_STARTS:
        return False
    return failed_payload(content)


def _both_names(name: object, called: object) -> bool:
    return isinstance(name, str) and isinstance(called, str)


def responses(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """OpenAI Responses: a ``function_call_output`` anywhere after its ``function_call``."""
    loop = _Loop(path, calls, "{}[{}]")
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    unpaired: dict[str, _Open] = {}  #: calls not answered yet, in order
    for index, item in enumerate(messages):
        if type(item) is not dict:
            return None
        kind = item.get("type")
        if kind == "function_call":
            call_id = item.get("call_id")
            if type(call_id) is not str or call_id in seen:
                return None
            seen.add(call_id)
            unpaired[call_id] = at = (item.get("name"), index, 0, "")
            if held is not None or waiting:
                loop.call(call_id, at, item, "arguments", JSON_STRING)
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            call = unpaired.pop(call_id, None) if type(call_id) is str else None
            if call is None:
                return None
            loop.outcomes.result(call, call[0], _failed(item.get("output")))
        elif kind in ("custom_tool_call", "custom_tool_call_output"):
            return None
    loop.unanswered.extend(unpaired.items())
    return loop.checked(OPENAI_RESPONSES, len(messages))


#: A block's reading: ("call", id, name, the element holding its "input") or
#: ("result", id, failed), or
#: None for a block that is neither; a block it is not sure of raises _NotSure.
_Block = Callable[[dict[str, Any]], tuple[Any, ...] | None]


class _NotSure(Exception):
    """A block the fast path leaves to the full reading."""


def _anthropic_block(block: dict[str, Any]) -> tuple[Any, ...] | None:
    kind = block.get("type")
    if kind == "tool_use":
        return ("call", block.get("id"), block.get("name"), block)
    if kind == "tool_result":
        failed = block.get("is_error") is True or _failed(block.get("content"))
        return ("result", block.get("tool_use_id"), failed)
    return None


def _bedrock_block(block: dict[str, Any]) -> tuple[Any, ...] | None:
    use, result = block.get("toolUse"), block.get("toolResult")
    if use is not None:
        if type(use) is not dict:
            raise _NotSure
        return ("call", use.get("toolUseId"), use.get("name"), use)
    if result is not None:
        if type(result) is not dict:
            raise _NotSure
        failed = result.get("status") == "error" or _failed(result.get("content"))
        return ("result", result.get("toolUseId"), failed)
    return None


def _windowed_blocks(
    shape: str, read: _Block, where: str, messages: list[Any], path: str, calls: bool
) -> Checked | None:
    """Anthropic and Bedrock: a message's calls are answered in the very next message, a
    user's (Anthropic: its tool_result blocks before any other block)."""
    loop = _Loop(path, calls, where)
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    window: dict[str, _Open] = {}  #: the calls of the message before
    leading_only = shape == ANTHROPIC
    for index, message in enumerate(messages):
        if type(message) is not dict:
            return None
        content = message.get("content")
        if type(content) is not list:
            if type(content) is not str:
                return None
            content = ()
        receiving = message.get("role") in _RECEIVING
        made: dict[str, _Open] = {}
        results = 0
        for j, block in enumerate(content):
            if type(block) is not dict:
                return None
            try:
                found = read(block)
            except _NotSure:
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


def anthropic(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """Anthropic Messages (see :func:`_windowed_blocks`)."""
    where = "{}[{}].content[{}]"
    return _windowed_blocks(ANTHROPIC, _anthropic_block, where, messages, path, calls)


def bedrock(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """Bedrock Converse (see :func:`_windowed_blocks`)."""
    where = "{}[{}].content[{}].toolUse"
    return _windowed_blocks(BEDROCK, _bedrock_block, where, messages, path, calls)


def gemini(messages: list[Any], path: str, calls: bool) -> Checked | None:
    """Gemini: a content's calls are answered in the very next content, a user's; by id
    where every call and response has one, else by name, in order (a history that mixes
    the two, or a part without a name, is left to the full reading)."""
    loop = _Loop(path, calls, "{}[{}].parts[{}].{}")
    seen, held, waiting = loop.seen, loop.held, loop.outcomes.waiting
    window: dict[str, list[tuple[str | None, _Open]]] = {}  #: by id or name: in order
    by_id: bool | None = None  #: how this history pairs, once its first call tells
    for index, content in enumerate(messages):
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is not list:
            if type(parts) is not str:
                return None
            parts = []
        receiving = content.get("role") in _RECEIVING
        made: dict[str, list[tuple[str | None, _Open]]] = {}
        for j, part in enumerate(parts):
            try:
                found = _gemini_part(part)
            except _NotSure:
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
    _NotSure."""
    if type(part) is not dict:
        raise _NotSure
    call_field = "functionCall" if "functionCall" in part else "function_call"
    result_field = "functionResponse" if "functionResponse" in part else "function_response"
    call, response = part.get(call_field), part.get(result_field)
    field, element = (call_field, call) if call is not None else (result_field, response)
    if element is None:
        return None
    if type(element) is not dict:
        raise _NotSure
    call_id, name = element.get("id"), element.get("name")
    if type(name) is not str or not (call_id is None or type(call_id) is str):
        raise _NotSure
    return call is not None, field, element, call_id, name


#: The shapes with a fast path, and theirs.
FAST: dict[str, Callable[[list[Any], str, bool], Checked | None]] = {
    OPENAI_CHAT: chat,
    OPENAI_RESPONSES: responses,
    ANTHROPIC: anthropic,
    BEDROCK: bedrock,
    GEMINI: gemini,
}
