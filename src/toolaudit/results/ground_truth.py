"""The summary's ``ground_truth`` section: how many expected entries were answered right,
by outcome, category, tool and parameter; counts that add up, merge and round-trip as JSON.

Only counts are kept; every rate (accuracy, precision, recall, F1, their intervals) is
derived from them when written, so merged parts (``--jobs``, ``--dask``, ``merge``) give
the figures of the whole.

Tool selection compares the multiset of tool names called with the multiset expected,
per entry: ``matched`` is the size of their intersection (two expected calls of a tool
and one made count one match), precision is matched over made, recall matched over
expected. Micro figures pool every entry; macro figures are the mean over categories.

The section stays bounded: tool names a model made up (logs can hold any number) join
``by_tool`` only while it has fewer than ``max_tools`` names, then count under
:data:`~toolaudit.results.folding.OTHER`; names an entry expects (from the user's file) are
never folded. It keeps the ``--scores`` lines of the first :data:`SAMPLE_ENTRIES` incorrect
entries, for people to look at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from toolaudit.results.folding import DEFAULT_MAX_TOOLS, OTHER, table_key
from toolaudit.results.score_counts import (
    EntryTally,
    Parameter,
    Skipped,
    added_tallies,
    mean_present,
    tally_of,
)
from toolaudit.results.significance import wilson_interval
from toolaudit.truth.match import OUTCOMES

#: The category of entries that have none.
NO_CATEGORY = "null"
#: Incorrect entries kept (their ``--scores`` lines), in input order.
SAMPLE_ENTRIES = 5

__all__ = ["NO_CATEGORY", "OUTCOMES", "SAMPLE_ENTRIES", "GroundTruth", "ScoreLike"]


class ScoreLike(Protocol):
    """What the section reads of a score (``toolaudit.truth.match.Score``)."""

    @property
    def category(self) -> str | None: ...
    @property
    def outcome(self) -> str: ...
    @property
    def correct(self) -> bool: ...
    @property
    def parameters(self) -> tuple[tuple[str, str, bool], ...]: ...


@dataclass
class GroundTruth:
    """The ``ground_truth`` section: counts of scored entries, and of records with no
    expected entry (``unscored``). Fill it with :meth:`add` and :meth:`add_unscored`.

    ``max_tools`` bounds the tool names a model made up (see the module docstring);
    ``samples`` holds the ``--scores`` lines of the first incorrect entries."""

    outcomes: dict[str, int] = field(default_factory=dict)
    by_category: dict[str, EntryTally] = field(default_factory=dict)
    by_tool: dict[str, EntryTally] = field(default_factory=dict)
    by_parameter: dict[str, dict[str, Parameter]] = field(default_factory=dict)
    unscored: int = 0
    max_tools: int = DEFAULT_MAX_TOOLS
    samples: list[dict[str, Any]] = field(default_factory=list)
    #: Among the unscored: records with no id at the expected key, and records whose id
    #: an earlier record was scored under.
    without_id: Skipped = field(default_factory=Skipped)
    repeated_id: Skipped = field(default_factory=Skipped)

    def add(
        self,
        score: ScoreLike,
        made_tools: Iterable[str],
        expected_tools: Iterable[str],
        *,
        row: Mapping[str, Any] | None = None,
    ) -> None:
        """Count one scored entry; ``made_tools`` and ``expected_tools`` are the names of
        the calls made and expected (repeated names counted as often as they occur).
        ``row``: the entry's ``--scores`` line, kept as a sample if the entry is one of
        the first incorrect ones."""
        outcomes = self.outcomes
        outcomes[score.outcome] = outcomes.get(score.outcome, 0) + 1
        correct = int(score.correct)
        category = score.category if score.category is not None else NO_CATEGORY
        if (
            type(made_tools) is list
            and type(expected_tools) is list
            and len(made_tools) == len(expected_tools) == 1
            and made_tools[0] == expected_tools[0]
        ):
            # Most entries: one call expected and one made, to that tool: what
            # _count_tools counts then, without its multisets.
            tally_of(self.by_category, category).count(1, correct, 1, 1, 1)
            tally_of(self.by_tool, table_key(expected_tools[0])).count(1, correct, 1, 1, 1)
        else:
            self._count_tools(correct, category, made_tools, expected_tools)
        self._count_parameters(score)
        if row is not None and self.wants_sample(score):
            self.samples.append(dict(row))

    def _count_tools(
        self, correct: int, category: str, made_tools: Iterable[str], expected_tools: Iterable[str]
    ) -> None:
        """The entry's tool selection, in its category and per tool."""
        expected = _counts(map(table_key, expected_tools))
        made = _counts(self._made_keys(map(table_key, made_tools), expected))
        matched = {tool: min(count, made[tool]) for tool, count in expected.items() if tool in made}
        tally_of(self.by_category, category).count(
            1, correct, sum(made.values()), sum(expected.values()), sum(matched.values())
        )
        tools = made.keys() | expected.keys()
        for tool in sorted(tools) if len(tools) > 1 else tools:
            # Entry counts go to the tools expected: a tool only called (wrongly) has
            # selection counts but no entries of its own.
            wanted = int(tool in expected)
            tally_of(self.by_tool, tool).count(
                wanted,
                wanted and correct,
                made.get(tool, 0),
                expected.get(tool, 0),
                matched.get(tool, 0),
            )

    def _count_parameters(self, score: ScoreLike) -> None:
        """Each expected parameter: matched, or among the failures of an incorrect entry."""
        failed = score.outcome == "incorrect"
        by_parameter = self.by_parameter
        for tool, name, ok in score.parameters:
            params = by_parameter.get(tool)
            if params is None:
                params = by_parameter[tool] = {}
            parameter = params.get(name)
            if parameter is None:
                parameter = params[name] = Parameter()
            parameter.expected += 1
            if ok:
                parameter.matched += 1
            elif failed:
                parameter.failures += 1

    def wants_sample(self, score: ScoreLike) -> bool:
        """Whether :meth:`add` would keep this entry's line as a sample."""
        return not score.correct and len(self.samples) < SAMPLE_ENTRIES

    def _made_keys(self, names: Iterable[str], expected: Mapping[str, int]) -> list[str]:
        """The ``by_tool`` key of each call made: its name, unless the model made it up
        and the table (with this entry's expected names) is full: then :data:`OTHER`."""
        new_expected = sum(name not in self.by_tool for name in expected)
        room = self.max_tools - len(self.by_tool) - new_expected
        admitted: set[str] = set()
        keys = []
        for name in names:
            if name not in expected and name not in self.by_tool and name not in admitted:
                if len(admitted) >= room:
                    name = OTHER
                else:
                    admitted.add(name)
            keys.append(name)
        return keys

    def add_unscored(self, records: int = 1) -> None:
        """Count records that no expected entry names."""
        self.unscored += records

    @property
    def total(self) -> int:
        return sum(self.outcomes.values())

    @property
    def correct(self) -> int:
        return sum(tally.correct for tally in self.by_category.values())

    def macro_accuracy(self) -> float | None:
        """The mean of the categories' accuracies (None with no entry)."""
        # Sorted: merged parts must sum their floats in the order the whole does.
        return mean_present([tally.accuracy() for _, tally in sorted(self.by_category.items())])

    def merged(self, other: GroundTruth) -> GroundTruth:
        """The section of both (neither is changed), with ``self``'s ``max_tools`` and
        samples first."""
        # New tallies throughout: add() counts in place, and must not count into either.
        params = {
            tool: {name: parameter.added(Parameter()) for name, parameter in names.items()}
            for tool, names in self.by_parameter.items()
        }
        for tool, names in other.by_parameter.items():
            mine = params.setdefault(tool, {})
            for name, parameter in names.items():
                mine[name] = mine.get(name, Parameter()).added(parameter)
        return GroundTruth(
            outcomes=dict(Counter(self.outcomes) + Counter(other.outcomes)),
            by_category=added_tallies(self.by_category, other.by_category),
            by_tool=self._tools_added(other.by_tool),
            by_parameter=params,
            unscored=self.unscored + other.unscored,
            max_tools=self.max_tools,
            samples=[*self.samples, *other.samples][:SAMPLE_ENTRIES],
            without_id=self.without_id.added(other.without_id),
            repeated_id=self.repeated_id.added(other.repeated_id),
        )

    def _tools_added(self, theirs: Mapping[str, EntryTally]) -> dict[str, EntryTally]:
        """``by_tool`` of both, bounded as :meth:`add` bounds it: a name no entry expected
        (``total`` 0) and new to a full table counts under :data:`OTHER`."""
        both = {name: tally.added(EntryTally()) for name, tally in self.by_tool.items()}
        for name, tally in theirs.items():
            full = len(both) >= self.max_tools
            key = OTHER if full and not tally.total and name not in both else name
            both[key] = both.get(key, EntryTally()).added(tally)
        return both

    def to_dict(self) -> dict[str, Any]:
        """The section as the summary holds it (documented in docs/report-and-summary.md)."""
        whole = EntryTally()
        for tally in self.by_category.values():
            whole = whole.added(tally)
        # Sorted: merged parts must sum their floats in the order the whole does.
        selections = [tally.selection() for _, tally in sorted(self.by_category.items())]
        failures = self.outcomes.get("incorrect", 0)
        return {
            "total": self.total,
            "correct": self.correct,
            "accuracy": whole.accuracy(),
            "accuracy_95": list(wilson_interval(whole.correct, whole.total)),
            "macro_accuracy": self.macro_accuracy(),
            "outcomes": {outcome: self.outcomes.get(outcome, 0) for outcome in _outcomes(self)},
            "selection": {
                "made": whole.made,
                "expected": whole.expected,
                "matched": whole.matched,
                "micro": whole.selection(),
                "macro": {
                    key: mean_present([figures[key] for figures in selections])
                    for key in ("precision", "recall", "f1")
                },
            },
            "by_category": {name: t.to_dict() for name, t in sorted(self.by_category.items())},
            "by_tool": {name: t.to_dict() for name, t in sorted(self.by_tool.items())},
            "by_parameter": {
                tool: {name: p.to_dict(failures) for name, p in sorted(names.items())}
                for tool, names in sorted(self.by_parameter.items())
            },
            "unscored": self.unscored,
            "without_id": self.without_id.to_dict(),
            "repeated_id": self.repeated_id.to_dict(),
            "max_tools": self.max_tools,
            "samples": [dict(row) for row in self.samples],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GroundTruth:
        """Rebuild the section from its JSON (KeyError, TypeError or ValueError if it is
        not one: the summary's loader turns them into its error)."""
        return cls(
            outcomes={str(k): int(v) for k, v in data["outcomes"].items() if int(v)},
            by_category={str(k): EntryTally.from_dict(v) for k, v in data["by_category"].items()},
            by_tool={str(k): EntryTally.from_dict(v) for k, v in data["by_tool"].items()},
            by_parameter={
                str(tool): {str(name): Parameter.from_dict(p) for name, p in names.items()}
                for tool, names in data["by_parameter"].items()
            },
            unscored=int(data["unscored"]),
            max_tools=int(data.get("max_tools", DEFAULT_MAX_TOOLS)),
            samples=[dict(row) for row in data.get("samples", [])],
            without_id=Skipped.from_dict(data.get("without_id")),
            repeated_id=Skipped.from_dict(data.get("repeated_id")),
        )


def _counts(names: Iterable[str]) -> dict[str, int]:
    """How often each name occurs (a Counter costs more for the one or two names of an
    entry)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return counts


def _outcomes(section: GroundTruth) -> list[str]:
    """Every known outcome in its order (zeros too), then any other seen, by name."""
    return [*OUTCOMES, *sorted(set(section.outcomes) - set(OUTCOMES))]
