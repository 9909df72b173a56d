"""Pairing each result with its call, as the provider of the shape pairs them, in one
pass over the turns: every call and result is looked at once, and every lookup is a
dict or the head of a queue, so a history costs time linear in its length.

A windowed shape (rules.WINDOWED) looks for a message's results in its window first
(the next message; OpenAI Chat: the run of tool messages right after); a result that
answers an earlier call from anywhere else is misplaced. Other shapes pair a result
with the oldest unanswered earlier call of its id. Without an id (Gemini, LangChain,
OTel, Chat's legacy function messages), a result answers the oldest unanswered call of
its name, or with no name either, the oldest unanswered call.
"""

from __future__ import annotations

from collections import deque

from toolaudit.history.model import (
    ANTHROPIC,
    DUPLICATE_CALL_ID,
    DUPLICATE_RESULT,
    MISPLACED_RESULT,
    NAME_MISMATCH,
    OPENAI_CHAT,
    ORPHAN_RESULT,
    UNANSWERED,
    Item,
    Problem,
    Turn,
)
from toolaudit.history.rules import BY_ID_ONLY, WHERE_RESULTS_GO, WINDOWED, provider_says
from toolaudit.values import text_of

_ANY = object()  #: the queue of every unanswered call, for results with neither id nor name


class _Open:
    """Unanswered calls by id, by name and in order; answered ones leave lazily. With
    ``by_id_only`` (every result of the shape has an id) only the ids are kept."""

    __slots__ = ("by_id_only", "queues")

    def __init__(self, by_id_only: bool) -> None:
        self.by_id_only = by_id_only
        self.queues: dict[object, deque[Item]] = {}

    def add(self, call: Item) -> None:
        if self.by_id_only:
            self.queues.setdefault(call.key, deque()).append(call)
            return
        for key in self._keys_of(call):
            self.queues.setdefault(key, deque()).append(call)

    def oldest(self, result: Item) -> Item | None:
        key = self._key_of(result)
        queue = self.queues.get(key)
        while queue:
            if queue[0].answer is None:
                return queue[0]
            queue.popleft()
        return None

    @staticmethod
    def _keys_of(call: Item) -> list[object]:
        keys: list[object] = [_ANY]
        if call.key is not None:
            keys.append(call.key)
        if isinstance(call.name, str):
            keys.append(("name", call.name))
        return keys

    @staticmethod
    def _key_of(result: Item) -> object:
        if result.key is not None:
            return result.key
        return ("name", result.name) if isinstance(result.name, str) else _ANY


class Pairing:
    """Pairs the results of one history's turns with their calls, and finds what is wrong."""

    def __init__(self, shape: str) -> None:
        self.shape = shape
        self.windowed = shape in WINDOWED
        self.problems: list[tuple[int, Problem]] = []
        self.by_id_only = shape in BY_ID_ONLY
        self.open = _Open(self.by_id_only)
        self.window = _Open(self.by_id_only)
        self.window_from = -1  #: the message whose calls the window answers
        self.window_to = -1  #: the last message inside the window so far
        self.first_call: dict[object, Item] = {}  #: by id, for repeated ids and late results
        self.first_named: dict[str, Item] = {}
        self.first: Item | None = None  #: for results with neither id nor name

    def read(self, turns: list[Turn]) -> None:
        for index, turn in enumerate(turns):
            in_window = self._in_window(index, turn)
            if in_window:
                self.window_to = index
            for result in turn.results:
                self._result(result, in_window)
            if turn.calls:
                self.window = _Open(self.by_id_only)
                self.window_from = self.window_to = index
            for call in turn.calls:
                self._call(call)
        for turn in turns:
            for call in turn.calls:
                if call.answer is None:
                    self._unanswered(call, len(turns))

    def _in_window(self, index: int, turn: Turn) -> bool:
        if not self.windowed or self.window_from < 0 or index != self.window_to + 1:
            return False
        if self.shape == OPENAI_CHAT:
            return turn.role == "tool"
        return index == self.window_from + 1 and turn.role == "user"

    def _call(self, call: Item) -> None:
        if call.key is not None:
            first = self.first_call.setdefault(call.key, call)
            if first is not call:
                detail = (
                    f"another call, at {first.path}, has the same id {call.id}: "
                    "its results cannot tell the two apart"
                )
                self._problem(DUPLICATE_CALL_ID, call, call, detail)
        if isinstance(call.name, str):
            self.first_named.setdefault(call.name, call)
        if self.first is None:
            self.first = call
        self.open.add(call)
        if self.windowed:
            self.window.add(call)

    def _result(self, result: Item, in_window: bool) -> None:
        call = self.window.oldest(result) if in_window else None
        placed = call is not None
        if call is None:
            call = self.open.oldest(result)
        if call is None:
            self._not_paired(result)
            return
        call.answer = result
        result.answer = call
        if self.windowed and not placed:
            self._misplaced(result, call, f"it is out of place: {WHERE_RESULTS_GO[self.shape]}")
        elif self.shape == ANTHROPIC and not result.leading:
            self._misplaced(result, call, f"another block comes before it: {_ANTHROPIC_FIRST}")
        if isinstance(result.name, str) and isinstance(call.name, str) and result.name != call.name:
            named, of = result.name, call.name
            detail = f"this result names `{named}`, but its call at {call.path} is of `{of}`"
            self._problem(NAME_MISMATCH, result, call, detail)

    def _not_paired(self, result: Item) -> None:
        """A result no unanswered call takes: its call is answered already, or none was made."""
        earlier = (
            self.first_call.get(result.key)
            if result.key is not None
            else self.first_named.get(result.name)
            if isinstance(result.name, str)
            else self.first
        )
        if earlier is not None:
            detail = f"its call, at {earlier.path}, is answered already"
            if result.key is None and not isinstance(result.name, str):
                detail = "it names no call, and every call before it is answered already"
            self._problem(DUPLICATE_RESULT, result, earlier, detail)
            return
        which = (
            f"the id {text_of(result.id)}"
            if result.key is not None
            else f"the name {text_of(result.name)}"
        )
        detail = f"this result answers no earlier call (no call before it has {which})"
        self._problem(ORPHAN_RESULT, result, None, detail)

    def _misplaced(self, result: Item, call: Item, why: str) -> None:
        result.misplaced = True
        detail = f"this result answers the call at {call.path}, but {why}"
        self._problem(MISPLACED_RESULT, result, call, detail)

    def _unanswered(self, call: Item, messages: int) -> None:
        problem = unanswered(self.shape, call.path, call.id, call.name, call.message, messages)
        self.problems.append((call.seq, problem))

    def _problem(self, code: str, item: Item, call: Item | None, detail: str) -> None:
        tool = call.name if call is not None else item.name
        said = provider_says(self.shape, code, item.id, f"messages.{item.message}")
        problem = Problem(
            code,
            item.path,
            item.id if isinstance(item.id, str) else None,
            tool if isinstance(tool, str) else None,
            detail + said,
        )
        self.problems.append((item.seq, problem))


def unanswered(
    shape: str, path: str, call_id: object, name: object, message: int, messages: int
) -> Problem:
    """The problem of a call left without a result: the call at ``path``, in message
    ``message`` of ``messages`` (the fast path builds it too, with the same words)."""
    where = "right after it" if shape in WINDOWED else "later in the history"
    last = " (the history ends with its message)" if message == messages - 1 else ""
    said = provider_says(shape, UNANSWERED, call_id, f"messages.{message}")
    return Problem(
        UNANSWERED,
        path,
        call_id if isinstance(call_id, str) else None,
        name if isinstance(name, str) else None,
        f"the call has no result {where}{last}{said}",
    )


_ANTHROPIC_FIRST = "Anthropic wants the tool_result blocks first in their message"
