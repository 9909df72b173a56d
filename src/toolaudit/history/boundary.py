"""``check_history``: the history check at an agent's boundary, before a request is sent.

An agent holds its history as its SDK builds it: dicts, SDK objects (pydantic models,
``to_dict()`` objects) or a mix, such as an Anthropic message whose ``content`` is the
list of blocks a response returned. All become plain JSON values first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from toolaudit.history.check import check
from toolaudit.history.model import Problem
from toolaudit.history.repair import Repaired
from toolaudit.history.repair import repair as repaired

#: Where a request body holds its history: Chat, Anthropic, Bedrock; Responses; Gemini.
_HISTORY_FIELDS = ("messages", "input", "contents")
#: How deep SDK objects are looked for: a message, its content list, a block, and its
#: content (a tool_result's blocks). Deeper values are dumped with their object.
_DEPTH = 4


def check_history(
    messages: object, *, provider: str | None = None, repair: bool = False
) -> list[Problem] | Repaired:
    """The problems of a history about to be sent (see docs/conversations.md), or with
    ``repair`` a :class:`Repaired`: the history as its provider would take it, each
    change made, and the problems found.

    ``messages`` is the list of messages (dicts or SDK objects, in any provider's shape),
    its JSON text, or a whole request body (its ``messages``, ``input`` or ``contents``);
    ``provider`` is the shape (one of ``toolaudit.history.SHAPES``; None: read from the
    messages; anything else is an :class:`~toolaudit.OptionError`). The given messages are
    never changed; a repaired history is made of plain dicts.
    """
    history, path = _history_of(messages)
    if repair:
        return repaired(history, provider, path)
    return check(history, provider, path=path).problems


def _history_of(messages: object) -> tuple[object, str]:
    if isinstance(messages, (str, bytes, bytearray)):
        try:
            messages = orjson.loads(messages)
        except orjson.JSONDecodeError:
            return messages, "messages"  # checked as it is: not a list, so a problem
    if isinstance(messages, Mapping) or _is_sdk_object(messages):
        body = plain(messages, 1)
        for field in _HISTORY_FIELDS:
            if isinstance(body, Mapping) and isinstance(body.get(field), list):
                return plain(body[field], _DEPTH + 1), field
        return body, "messages"
    return plain(messages, _DEPTH + 1), "messages"


def _is_sdk_object(value: object) -> bool:
    return callable(getattr(value, "model_dump", None)) or callable(getattr(value, "to_dict", None))


def plain(value: object, depth: int) -> Any:
    """``value`` with its SDK objects dumped to JSON values, down to ``depth`` levels of
    lists and dicts (a tuple becomes a list); copies, so the caller's values stay as they are."""
    if isinstance(value, Mapping):
        if depth <= 0:
            return value
        return {key: plain(item, depth - 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        if depth <= 0:
            return value
        return [plain(item, depth - 1) for item in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            # mode="json": enums and bytes as JSON has them; by_alias: the wire's names
            # (google-genai's camelCase); exclude_none: no null where the API omits a field.
            return dump(mode="json", by_alias=True, exclude_none=True)
        except TypeError:  # a model_dump without pydantic's keywords
            return dump()
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return value
