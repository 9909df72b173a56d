"""Repairing a history so that its provider would take it, saying what changed.

Per problem: an unanswered call is answered with an error result that says so; an
orphan result and a duplicate result (the later one) are dropped; a misplaced result
is moved to where its call's results go; a call whose id an earlier call has gets a
fresh id (``<id>_2``...), and so does its result; a result naming another tool than its
call is given the call's name. Nothing else changes: ``malformed:history`` problems stay
as they are. The given messages are never mutated: the repair copies what it edits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from toolaudit.formats.base import as_list
from toolaudit.history.answers import BLOCK_MESSAGE, error_result
from toolaudit.history.check import examine
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
from toolaudit.history.rules import WINDOWED


@dataclass(frozen=True, slots=True)
class Change:
    """One thing a repair did: what (``action``: "answered", "dropped", "moved",
    "renamed"), for which problem (``code``), where in the given history."""

    action: str
    code: str
    path: str
    call_id: str | None
    detail: str


@dataclass(slots=True)
class Repaired:
    """A repaired history, what was changed, and the problems the given one had."""

    #: The repaired list of messages (a history that is no list: as it was given).
    messages: Any
    changes: list[Change]
    problems: list[Problem]


def repair(
    messages: object, shape: str | None, path: str = "messages", *, batches: bool = True
) -> Repaired:
    """``messages`` repaired (see the module's docstring); a history that is no list is
    returned as it is, with its problems. LangSmith's list of lists is repaired list by
    list (``batches`` False: a list of lists is read as messages, as ``examine`` does)."""
    if batches and _is_batch(messages):
        parts = [
            repair(batch, shape, f"{path}[{j}]", batches=False) for j, batch in enumerate(messages)
        ]
        changes = [change for part in parts for change in part.changes]
        problems = [problem for part in parts for problem in part.problems]
        return Repaired([part.messages for part in parts], changes, problems)
    checked, turns = examine(messages, shape, path, batches=batches)
    if not turns or not isinstance(messages, list):
        return Repaired(messages, [], checked.problems)
    plan = _Plan(checked.shape, messages, turns)
    unpaired = {
        problem.path: problem.code
        for problem in checked.problems
        if problem.code in (ORPHAN_RESULT, DUPLICATE_RESULT)
    }
    plan.rename_repeated_ids()
    plan.fix_names()
    plan.place_results(unpaired)
    changes = [change for _, change in sorted(plan.changes, key=lambda pair: pair[0])]
    return Repaired(plan.rebuild(), changes, checked.problems)


def _is_batch(messages: object) -> TypeGuard[list[Any]]:
    """LangSmith's list of histories (what ``examine`` checks list by list)."""
    if not isinstance(messages, list) or not messages:
        return False
    return all(isinstance(batch, list) for batch in messages)


def _call_id(item: Item) -> str | None:
    return item.id if isinstance(item.id, str) else None


def _set(value: Any, keys: tuple[Any, ...], new: object) -> Any:
    """``value`` with the element at ``keys`` replaced, copied along the way."""
    if not keys:
        return new
    copy: Any = list(value) if isinstance(value, list) else dict(value)
    # (the last key may be missing: an id given to a result that had none)
    copy[keys[0]] = new if len(keys) == 1 else _set(value[keys[0]], keys[1:], new)
    return copy


def _get(value: Any, keys: tuple[Any, ...]) -> Any:
    for key in keys:
        value = value[key]
    return value


def _is_result_block(block: object, shape: str) -> bool:
    """A block that holds a result (Anthropic, Bedrock, Gemini): what stays first."""
    if not isinstance(block, Mapping):
        return False
    if shape == ANTHROPIC:  # (another shape's result block is a block like any other)
        return block.get("type") == "tool_result"
    return block.get("type") == "tool_result" or any(key in block for key in _RESULT_KEYS)


_RESULT_KEYS = ("toolResult", "functionResponse", "function_response")


def _element(item: Item) -> tuple[Any, ...]:
    """Where the result's element is in its message: a block, or () for the message."""
    where = item.where
    return where[:2] if len(where) >= 2 and isinstance(where[1], int) else ()


class _Plan:
    def __init__(self, shape: str, messages: list[Any], turns: list[Turn]) -> None:
        self.shape = shape
        self.messages: list[Any] = list(messages)
        self.turns = turns
        self.changes: list[tuple[int, Change]] = []  #: by the seq of what they change
        self.removed: dict[int, set[int]] = {}  #: by message: indexes of blocks removed
        self.dropped: set[int] = set()  #: whole messages removed
        self.lead: dict[int, list[Any]] = {}  #: blocks put first in a message
        self.trail: dict[int, list[Any]] = {}  #: blocks put last in a message
        self.after: dict[int, list[Any]] = {}  #: new messages after a message

    def change(self, action: str, code: str, item: Item, detail: str) -> None:
        self.changes.append((item.seq, Change(action, code, item.path, _call_id(item), detail)))

    def rewrite(self, item: Item, at: tuple[Any, ...], value: object) -> None:
        self.messages[item.message] = _set(self.messages[item.message], item.where + at, value)

    def rename_repeated_ids(self) -> None:
        calls = [call for turn in self.turns for call in turn.calls]
        taken = {call.id for call in calls if isinstance(call.id, str)}  # a list is no key
        seen: set[object] = set()
        for call in calls:
            if call.key is None:
                continue
            if call.key not in seen:
                seen.add(call.key)
                continue
            number = 2
            while f"{call.id}_{number}" in taken:
                number += 1
            fresh = f"{call.id}_{number}"
            taken.add(fresh)
            self.rewrite(call, call.id_at, fresh)
            detail = f"the call's id {call.id} was an earlier call's too: it is now {fresh}"
            if call.answer is not None:
                self.rewrite(call.answer, call.answer.id_at, fresh)
                detail += f", and so is its result's, at {call.answer.path}"
            self.change("renamed", DUPLICATE_CALL_ID, call, detail)
            call.id = fresh  # what an error result answering it must name

    def fix_names(self) -> None:
        for turn in self.turns:
            for result in turn.results:
                call = result.answer
                if call is None or not isinstance(result.name, str):
                    continue
                if isinstance(call.name, str) and result.name != call.name:
                    assert result.name_at is not None  # a result has a name only there
                    self.rewrite(result, result.name_at, call.name)
                    detail = f"the result now names `{call.name}`, as its call does"
                    self.change("renamed", NAME_MISMATCH, result, detail)

    def place_results(self, unpaired: dict[str, str]) -> None:
        reach = -1  #: the last message holding a result of a call made so far
        for index, turn in enumerate(self.turns):
            for result in turn.results:
                self._settle(result, unpaired)
            answered = [call.answer.message for call in turn.calls if call.answer is not None]
            reach = max(reach, index, *answered)
            answers: list[Any] = []
            late: list[Any] = []  #: answers by order: after the results already there
            for call in turn.calls:
                if call.answer is None:
                    answer = error_result(self.shape, call, self.messages[index])
                    # With no id, it answers the oldest unanswered call (of its name), so
                    # it goes after the results that answer older calls (so does a result
                    # moved below that has no id).
                    (late if call.key is None else answers).append(answer)
                    detail = "answered by an error result that says it was never answered"
                    self.change("answered", UNANSWERED, call, detail)
                elif call.answer.misplaced:
                    moved = self._element_of(call.answer)
                    (late if call.answer.key is None else answers).append(moved)
            if self.shape in WINDOWED:  # in the window: those by order after its results
                self._put(index, answers, late)
            else:  # no window: after every result of an earlier call
                self._put(index, answers, [])
                self._put(reach, late, [])

    def _settle(self, result: Item, unpaired: dict[str, str]) -> None:
        call = result.answer
        if call is None:
            code = unpaired.get(result.path, ORPHAN_RESULT)
            self.change("dropped", code, result, "the result was dropped")
            self._remove(result)
            return
        if result.misplaced:
            # Taken out here; put back where its call's results go (place_results).
            detail = f"the result was moved to where the results of the call at {call.path} go"
            self.change("moved", MISPLACED_RESULT, result, detail)

    def _element_of(self, result: Item) -> Any:
        element = _get(self.messages[result.message], _element(result))
        self._remove(result)
        return element

    def _remove(self, result: Item) -> None:
        where = _element(result)
        if where:
            self.removed.setdefault(result.message, set()).add(where[1])
        else:
            self.dropped.add(result.message)

    def _put(self, index: int, answers: list[Any], last: list[Any]) -> None:
        """Results for the calls of message ``index``: whole messages right after it, or
        blocks first in the next message when that is the turn they go in (``last``:
        after the results already there)."""
        if not answers and not last:
            return
        if self.shape not in BLOCK_MESSAGE:
            if self.shape == OPENAI_CHAT:  # after the tool messages already there, in order
                while index + 1 < len(self.turns) and self.turns[index + 1].role == "tool":
                    index += 1
            self.after.setdefault(index, []).extend([*answers, *last])
            return
        following = index + 1
        if (
            self.shape in WINDOWED
            and following < len(self.turns)
            and self.turns[following].role == "user"
            and isinstance(self.messages[following], Mapping)
        ):
            self.lead.setdefault(following, []).extend(answers)
            self.trail.setdefault(following, []).extend(last)
            return
        role, field = BLOCK_MESSAGE[self.shape]
        self.after.setdefault(index, []).append({"role": role, field: [*answers, *last]})

    def rebuild(self) -> list[Any]:
        rebuilt: list[Any] = []
        for index, message in enumerate(self.messages):
            if index not in self.dropped:
                message = self._edited(index, message)
                if message is not None:
                    rebuilt.append(message)
            rebuilt.extend(self.after.get(index, ()))
        return rebuilt

    def _edited(self, index: int, message: Any) -> Any:
        removed, lead = self.removed.get(index), self.lead.get(index)
        trail = self.trail.get(index, ())
        if not removed and not lead and not trail:
            return message
        field = BLOCK_MESSAGE[self.shape][1]
        blocks = message.get(field)
        if isinstance(blocks, str):  # Anthropic's text shorthand, kept after the results
            blocks = [{"type": "text", "text": blocks}]
        gone = removed or set()
        kept = [block for j, block in enumerate(as_list(blocks)) if j not in gone]
        # After the results already first in the message: the turn's results in order.
        at = 0
        while at < len(kept) and _is_result_block(kept[at], self.shape):
            at += 1
        kept[at:at] = lead or ()
        kept.extend(trail)
        if not kept and removed:
            return None  # its every block was a result taken away: no empty turn is left
        return {**message, field: kept}
