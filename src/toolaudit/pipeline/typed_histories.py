"""The conversation check on the records the typed path reads: a request/response pair's
request, or a request logged alone, decoded with its conversation kept as text, checked
as the general path checks it (the same history, the same rules, the same rows), so that
with the check on such a log still takes the typed path.

A line whose history it cannot read as the general path would (orjson refusing a field,
a number orjson may read otherwise than the exact parse the general path may make) is
left to the general path whole: :data:`UNREAD`.

Where the C speedups are built, the commonest requests are checked by their
``PairHistories`` (``_speedups_pairs.c``), with no Python frame: the shape told, the
history read from its text, its answer finished, as :class:`PythonHistories` does it;
they hand anything else to it, their exact twin (tests/pipeline/test_pair_histories.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import orjson
from msgspec import UNSET

import toolaudit.history.fast_loop as fast_loop
from toolaudit.formats.request_shapes import HISTORY_FIELDS
from toolaudit.formats.typed_requests import RequestHistories, request_path
from toolaudit.history import Checked
from toolaudit.history import check as check_history
from toolaudit.history.fast import (
    FROM_TEXT,
    AllAnswered,
    LeftUnanswered,
    checked_from_text,
    history_prefixes,
)
from toolaudit.history.fast_loop import plainly_checked
from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    NO_NAME,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)
from toolaudit.jsonutil import orjson_may_differ

if TYPE_CHECKING:
    from toolaudit.results.conversations import Conversations

#: What :meth:`TypedHistories.check` says of a line the general path must read.
UNREAD = object()


#: What :meth:`TypedHistories.check` answers of a line.
Answer = Checked | AllAnswered | LeftUnanswered | Literal[True] | object | None

#: The shapes ``PairHistories`` reads, in the order of its text readers (JsonShape).
PAIR_SHAPES = (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, BEDROCK, GEMINI)


class TypedHistories:
    """Checks the conversations of the requests the typed path decoded: ``check`` is the
    C speedups' where they are on when it is made (``fast_loop.SPEEDUPS``), else
    :meth:`PythonHistories.check`; both answer the same."""

    __slots__ = ("check", "twin")

    check: Callable[..., Answer]

    def __init__(self, at: str = "request") -> None:
        """``at``: where the requests are, as ``request_history`` takes it ("request": a
        pair's; "": a request logged alone, the record itself)."""
        twin = self.twin = PythonHistories(at)
        speedups = fast_loop.SPEEDUPS
        if speedups is None:
            self.check = twin.check
            return
        shapes = tuple(
            (shape, request_path(at, HISTORY_FIELDS[shape]), FROM_TEXT[shape][1])
            for shape in PAIR_SHAPES
        )
        pairs = speedups.PairHistories(
            twin.check,
            twin.parsed,
            twin.requests.tools_shape,
            plainly_checked,
            UNREAD,
            orjson.JSONDecodeError,
            NO_NAME,
            UNSET,
            shapes,
            twin.prefixes,
        )
        self.check = pairs.check


class PythonHistories:
    """The conversation check of :class:`TypedHistories` in Python: the C speedups' twin,
    and what they hand all but the commonest requests to."""

    __slots__ = ("prefixes", "requests")

    def __init__(self, at: str = "request") -> None:
        self.requests = RequestHistories(at)
        # A log's lines often carry one session's history again, a turn longer each time:
        # each is read on from the last one's end (history_prefixes; None without the
        # speedups). The C twin reads with the same.
        self.prefixes = history_prefixes()

    def check(
        self,
        request: Any,
        line: bytes,
        worded: bool = True,
        tables: Conversations | None = None,
        model: str | None = None,
    ) -> Answer:
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
            told = self.requests.told(request)
        except orjson.JSONDecodeError:
            return UNREAD
        if told is not None:
            # Read straight from its text where the C speedups can: they are not sure of
            # a text with a number orjson may read otherwise, so what they answer is
            # what the general path finds, whichever way it parses the line.
            shape, path, text = told
            found = checked_from_text(text, shape, path, worded, tables, model, self.prefixes)
            if found is not None:
                return found
        return self.parsed(request, line)

    def parsed(self, request: Any, line: bytes) -> Checked | object | None:
        """The rest of :meth:`check` where the history was not read from its text: its
        request's conversation parsed and checked; :data:`UNREAD` where the general path
        must read the line."""
        if orjson_may_differ(line):
            # The general path may read this line again exactly (an integer past 64
            # bits, a number past a double's range), and its history with it.
            return UNREAD
        try:
            history = self.requests.history(request)
        except orjson.JSONDecodeError:
            return UNREAD
        if history is None:
            return None
        return check_history(history.messages, history.shape, path=history.path, calls=False)
