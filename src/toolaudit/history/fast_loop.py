"""What every fast path of ``check`` (:mod:`toolaudit.history.fast`) keeps as it reads a
history: the calls waiting for results, the ids seen, the outcomes counted so far, the
calls to list, the calls left unanswered."""

from __future__ import annotations

from typing import Any

from toolaudit.compiled import speedups
from toolaudit.formats.base import ABSENT
from toolaudit.history.model import NO_NAME, Checked, HistoryCall, Problem, ToolOutcome
from toolaudit.history.pairing import unanswered
from toolaudit.history.signals import SUSPECT_STARTS, failed_payload

#: A call the loop holds: its name, its message's index, its index in the message, and
#: (Gemini) the field that holds it in its part.
Open = tuple[object, int, int, str]
#: Roles whose message can hold the results of the calls before it (blocks' shapes).
RECEIVING = ("user", "function", "tool", None)


class Outcomes:
    """Each tool's outcomes, counted as calls and results go by in history order, by the
    rules of :func:`toolaudit.history.outcomes.outcomes` (a call known by its Open)."""

    __slots__ = ("found", "retries", "waiting")

    def __init__(self) -> None:
        self.found: dict[str, ToolOutcome] = {}
        self.waiting: dict[str, int] = {}  #: failures not yet followed by a call of the tool
        #: by call (its place: a name may be a list, which no dict can hold as a key):
        #: how many failures it retries
        self.retries: dict[tuple[int, int, str], int] = {}

    def call(self, call: Open, name: object) -> None:
        tool = name if isinstance(name, str) else NO_NAME
        failures = self.waiting.pop(tool, 0)
        if failures:
            self.found[tool].retried += failures
            self.retries[call[1:]] = failures

    def result(self, call: Open, name: object, failed: bool) -> None:
        tool = name if isinstance(name, str) else NO_NAME
        outcome = self.found.get(tool)
        if outcome is None:
            outcome = self.found[tool] = ToolOutcome()
        outcome.results += 1
        if failed:
            outcome.failures += 1
            self.waiting[tool] = self.waiting.get(tool, 0) + 1
        elif self.retries:
            outcome.recovered += self.retries.pop(call[1:], 0)


class Loop:
    """What one history's loop keeps: the outcomes, the calls held, the ids seen, the
    calls left unanswered. ``where`` formats a call's path from the history's path, its
    message's index and its index in the message."""

    __slots__ = ("held", "outcomes", "path", "seen", "unanswered", "where")

    def __init__(self, path: str, calls: bool, where: str) -> None:
        self.path, self.where = path, where
        self.outcomes = Outcomes()
        self.held: list[HistoryCall] | None = [] if calls else None
        self.seen: set[str] = set()
        self.unanswered: list[tuple[str | None, Open]] = []

    def call(
        self, call_id: str | None, at: Open, element: dict[str, Any], field: str, encoding: str
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
        left = [(call_id, name, *where) for call_id, (name, *where) in self.unanswered]
        problems = unanswered_problems(shape, self.where, self.path, left, messages)
        return Checked(shape, messages, problems, self.outcomes.found, self.held or [])


def unanswered_problems(
    shape: str, where: str, path: str, left: list[tuple[Any, ...]], messages: int
) -> list[Problem]:
    """The problems of the calls ``left`` without a result, each (call id, name, its
    message's index, and what ``where`` needs after it to word the call's path)."""
    problems: list[Problem] = []
    for call_id, name, index, *rest in left:
        at = where.format(path, index, *rest)
        problems.append(unanswered(shape, at, call_id, name, index, messages))
    return problems


#: The commonest histories of every shape but LangChain's read in C, or None (see
#: :func:`toolaudit.compiled.speedups`; tests and benchmarks set it to None).
SPEEDUPS = speedups("toolaudit.history._speedups")


def answered_in_c(
    function: str, shape: str, where: str, messages: list[Any], path: str, calls: bool
) -> Checked | None:
    """The history of ``shape`` read by the C speedups' ``function``; None where they are
    off (the one switch: tests and benchmarks set :data:`SPEEDUPS` to None), where calls
    are listed, or where the speedups are not sure."""
    if calls:
        return None
    found = found_in_c(function, messages)
    return None if found is None else plainly_checked(shape, where, path, len(messages), found)


def found_in_c(function: str, messages: list[Any]) -> tuple[list[Any], dict[str, int]] | None:
    """What the C speedups' ``function`` answers of ``messages``: the calls left
    unanswered and the results per tool; None where they are off or not sure."""
    return None if SPEEDUPS is None else getattr(SPEEDUPS, function)(messages, NO_NAME)


def plainly_checked(
    shape: str, where: str, path: str, messages: int, found: tuple[list[Any], dict[str, int]]
) -> Checked:
    """A history the C speedups answered: its calls left unanswered, its results per tool
    (no failure among them: the speedups leave those to the loops)."""
    left, results = found
    problems = unanswered_problems(shape, where, path, left, messages) if left else []
    outcomes = {tool: ToolOutcome(count) for tool, count in results.items()}
    return Checked(shape, messages, problems, outcomes, [])


def reports_failure(content: object) -> bool:
    """:func:`failed_payload`, answered at once for the commonest content: a plain text."""
    if type(content) is str and content[:1] not in SUSPECT_STARTS:
        return False
    return failed_payload(content)


class NotSure(Exception):
    """Something a fast path leaves to the full reading."""
