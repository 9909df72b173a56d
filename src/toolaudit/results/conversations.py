"""What the audit counts of the conversations its records carry: the histories read,
their pairing problems (by code, by model), and the outcomes of the tools they ran.

A summary's ``conversations`` and ``tool_results`` sections. Model and tool names come
from logs, so both tables are bounded as the tool table is (see
:mod:`toolaudit.results.folding`). An agent logs its whole history again with every
turn, so a problem is counted once per record that holds it (see docs/conversations.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, Protocol

from toolaudit.results.counts import Counts, merged_counts, sorted_counts
from toolaudit.results.folding import (
    DEFAULT_MAX_TOOLS,
    NO_NAME,
    NOT_OWN_KEY_STARTS,
    Folding,
    table_key,
)


class ProblemLike(Protocol):
    """A pairing problem as the history check finds it (``toolaudit.history.Problem``)."""

    @property
    def code(self) -> str: ...
    @property
    def tool(self) -> str | None: ...


class OutcomeLike(Protocol):
    """A tool's outcomes in one history (``toolaudit.history.ToolOutcome``)."""

    @property
    def results(self) -> int: ...
    @property
    def failures(self) -> int: ...
    @property
    def retried(self) -> int: ...
    @property
    def recovered(self) -> int: ...


class CountedProblem(NamedTuple):
    """A problem as the tables count it: its code and its call's tool, not where it is
    or why (a :class:`ProblemLike`)."""

    code: str
    tool: str | None


@dataclass(slots=True)
class Histories:
    """The histories of one model (or of all): how many were read, how many had a
    problem, and the problems by code."""

    checked: int = 0
    with_problems: int = 0
    problems: Counts = field(default_factory=dict)

    def count(self, problems: Iterable[ProblemLike]) -> None:
        self.checked += 1
        codes = [problem.code for problem in problems]
        if codes:
            self.with_problems += 1
            for code in codes:
                self.problems[code] = self.problems.get(code, 0) + 1

    def merged(self, other: Histories) -> Histories:
        return Histories(
            self.checked + other.checked,
            self.with_problems + other.with_problems,
            merged_counts(self.problems, other.problems),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "with_problems": self.with_problems,
            "problems": sorted_counts(self.problems),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Histories:
        problems = {str(code): int(count) for code, count in data.get("problems", {}).items()}
        return cls(int(data["checked"]), int(data["with_problems"]), problems)


@dataclass(slots=True)
class Outcomes:
    """One tool's results in the histories read: how many, how many reported a failure,
    how many failures the model called the tool again after (``retried``), and how many
    of those it then ran without failure (``recovered``)."""

    results: int = 0
    failures: int = 0
    retried: int = 0
    recovered: int = 0

    def add(self, other: OutcomeLike) -> None:
        self.results += other.results
        self.failures += other.failures
        self.retried += other.retried
        self.recovered += other.recovered

    def merged(self, other: Outcomes) -> Outcomes:
        both = Outcomes()
        both.add(self)
        both.add(other)
        return both

    def to_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcomes:
        return cls(*(int(data.get(f.name, 0)) for f in fields(cls)))


class Conversations:
    """The conversations counted in one tally (or summary): all histories, per model,
    and the tools' outcomes. Made by the audit; merged across parts and groups."""

    __slots__ = (
        "_model_folding",
        "_problem_folding",
        "_tool_folding",
        "all",
        "by_model",
        "by_tool",
        "problems_by_tool",
    )

    def __init__(self, max_keys: int = DEFAULT_MAX_TOOLS) -> None:
        self.all = Histories()
        self.by_model: dict[str, Histories] = {}
        self.by_tool: dict[str, Outcomes] = {}
        #: The problems by the tool of the call (or result) each is about, code -> count.
        self.problems_by_tool: dict[str, Counts] = {}
        self._model_folding = Folding(max_keys)
        self._tool_folding = Folding(max_keys)
        self._problem_folding = Folding(max_keys)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Conversations):
            return NotImplemented
        return self.to_dicts() == other.to_dicts()

    __hash__ = None  # type: ignore[assignment]

    def count(
        self,
        model: str | None,
        problems: Sequence[ProblemLike],
        outcomes: Mapping[str, OutcomeLike],
    ) -> None:
        """One history read: its problems, counted for all and for its model, and the
        outcomes of its tools."""
        histories = self._histories_of(model)
        if problems:
            self.all.count(problems)
            histories.count(problems)
            for problem in problems:
                _, codes = self._problem_folding.entry(
                    self.problems_by_tool, table_key(problem.tool), dict, merged_counts
                )
                codes[problem.code] = codes.get(problem.code, 0) + 1
        else:
            self.all.checked += 1
            histories.checked += 1
        for tool, outcome in outcomes.items():
            self._outcomes_of(tool).add(outcome)

    def count_all_answered(self, model: str | None, results: Mapping[str, int]) -> None:
        """:meth:`count` of a history with no problem and no failure among its results:
        only how many results each tool had (the commonest history, counted without an
        outcome made for each of its tools)."""
        self.all.checked += 1
        # (a name that is its own key looked up at once: this runs for every history)
        histories = (
            self.by_model.get(model) if model and model[:1] not in NOT_OWN_KEY_STARTS else None
        )
        (self._histories_of(model) if histories is None else histories).checked += 1
        self._count_results(results)

    def count_results(
        self, model: str | None, problems: Sequence[ProblemLike], results: Mapping[str, int]
    ) -> None:
        """:meth:`count` of a history with ``problems`` and no failure among its results:
        only how many results each tool had."""
        self.count(model, problems, {})
        self._count_results(results)

    def _count_results(self, results: Mapping[str, int]) -> None:
        """How many results each tool had, none a failure."""
        by_tool = self.by_tool
        for tool, count in results.items():
            outcomes = by_tool.get(tool) if tool[:1] not in NOT_OWN_KEY_STARTS else None
            (self._outcomes_of(tool) if outcomes is None else outcomes).results += count

    # (Each table is looked in first: the folding's own way, for a name not in it yet, is
    # a call too many for every history of a log.)

    def _histories_of(self, model: str | None) -> Histories:
        key = table_key(model)
        kept = self.by_model.get(key)
        if kept is not None:
            return kept
        return self._model_folding.entry(self.by_model, key, Histories, Histories.merged)[1]

    def _outcomes_of(self, tool: str) -> Outcomes:
        key = table_key(tool) if tool else NO_NAME
        kept = self.by_tool.get(key)
        if kept is not None:
            return kept
        return self._tool_folding.entry(self.by_tool, key, Outcomes, Outcomes.merged)[1]

    def merged(self, other: Conversations) -> Conversations:
        """Both counts added up, in a new value (neither is changed)."""
        both = Conversations(self._tool_folding.limit)
        both.all = self.all.merged(other.all)
        for name, histories in [*self.by_model.items(), *other.by_model.items()]:
            key, entry = both._model_folding.entry(both.by_model, name, Histories, Histories.merged)
            both.by_model[key] = entry.merged(histories)
        for name, outcomes in [*self.by_tool.items(), *other.by_tool.items()]:
            key, mine = both._tool_folding.entry(both.by_tool, name, Outcomes, Outcomes.merged)
            both.by_tool[key] = mine.merged(outcomes)
        for name, codes in [*self.problems_by_tool.items(), *other.problems_by_tool.items()]:
            key, counts = both._problem_folding.entry(
                both.problems_by_tool, name, dict, merged_counts
            )
            both.problems_by_tool[key] = merged_counts(counts, codes)
        return both

    @property
    def with_problems(self) -> int:
        return self.all.with_problems

    def to_dicts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The summary's ``conversations`` and ``tool_results`` sections (each table cut to
        its limit first, as the summary's tool table is: the same names whatever the order
        the parts came in)."""
        self._model_folding.compact(self.by_model, Histories.merged)
        self._tool_folding.compact(self.by_tool, Outcomes.merged)
        self._problem_folding.compact(self.problems_by_tool, merged_counts)
        conversations = {
            **self.all.to_dict(),
            "by_model": {name: h.to_dict() for name, h in sorted(self.by_model.items())},
            "by_tool": {
                name: sorted_counts(codes) for name, codes in sorted(self.problems_by_tool.items())
            },
        }
        tool_results = {"by_tool": {name: o.to_dict() for name, o in sorted(self.by_tool.items())}}
        return conversations, tool_results

    @classmethod
    def from_dicts(
        cls, conversations: Mapping[str, Any], tool_results: Mapping[str, Any] | None
    ) -> Conversations:
        made = cls()
        made.all = Histories.from_dict(conversations)
        for name, histories in conversations.get("by_model", {}).items():
            made.by_model[str(name)] = Histories.from_dict(histories)
        for name, codes in conversations.get("by_tool", {}).items():
            made.problems_by_tool[str(name)] = {str(c): int(n) for c, n in codes.items()}
        for name, outcomes in (tool_results or {}).get("by_tool", {}).items():
            made.by_tool[str(name)] = Outcomes.from_dict(outcomes)
        return made


def either_or_both(
    first: Conversations | None, second: Conversations | None
) -> Conversations | None:
    """Both parts' conversations added up: a part that read no history has none."""
    if first is None or second is None:
        return first if second is None else second
    return first.merged(second)
