"""The conversation check on the records the typed path reads: a request/response pair's
request, decoded with its conversation kept as text, checked as the general path checks
it (the same history, the same rules, the same rows), so that with the check on such a
log still takes the typed path.

A line whose history it cannot read as the general path would (orjson refusing a field,
a number orjson may read otherwise than the exact parse the general path may make) is
left to the general path whole: :data:`UNREAD`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import orjson

from toolaudit.formats.typed_requests import RequestHistories
from toolaudit.history import Checked
from toolaudit.history import check as check_history
from toolaudit.history.fast import (
    AllAnswered,
    LeftUnanswered,
    checked_from_text,
    history_prefixes,
)
from toolaudit.jsonutil import orjson_may_differ

if TYPE_CHECKING:
    from toolaudit.results.conversations import Conversations

#: What :meth:`TypedHistories.check` says of a line the general path must read.
UNREAD = object()


class TypedHistories:
    """Checks the conversations of the requests the typed path decoded."""

    __slots__ = ("_prefixes", "_requests")

    def __init__(self) -> None:
        self._requests = RequestHistories()
        # A log's lines often carry one session's history again, a turn longer each time:
        # each is read on from the last one's end (history_prefixes).
        self._prefixes = history_prefixes()

    def check(
        self,
        request: Any,
        line: bytes,
        worded: bool = True,
        tables: Conversations | None = None,
        model: str | None = None,
    ) -> Checked | AllAnswered | LeftUnanswered | Literal[True] | object | None:
        """The checked conversation of a decoded ``request`` found on ``line`` (where
        every call was answered and no result failed, read from its text, only its results
        per tool: ``AllAnswered``; not ``worded``, no report row to write, one whose only
        problems are calls left unanswered: ``LeftUnanswered``); None where it carries
        none; :data:`UNREAD` where the general path must read the line. Nothing is counted
        here unless ``tables`` are given (the reader has read the line whole, and counts
        nothing after it that may fail): then a history whose every call was answered,
        read from its text, may be counted there for ``model`` by the C reader itself, as
        ``Recorder.all_answered_history`` counts it: True."""
        try:
            told = self._requests.told(request)
        except orjson.JSONDecodeError:
            return UNREAD
        if told is not None:
            # Read straight from its text where the C speedups can: they are not sure of
            # a text with a number orjson may read otherwise, so what they answer is
            # what the general path finds, whichever way it parses the line.
            shape, path, text = told
            found = checked_from_text(text, shape, path, worded, tables, model, self._prefixes)
            if found is not None:
                return found
        if orjson_may_differ(line):
            # The general path may read this line again exactly (an integer past 64
            # bits, a number past a double's range), and its history with it.
            return UNREAD
        try:
            history = self._requests.history(request)
        except orjson.JSONDecodeError:
            return UNREAD
        if history is None:
            return None
        return check_history(history.messages, history.shape, path=history.path, calls=False)
