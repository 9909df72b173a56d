"""The counts the ``ground_truth`` section is made of: an :class:`EntryTally` per category
and per tool (entries, and the calls made, expected and matched), a :class:`Parameter`'s
counts, the records :class:`Skipped` for one reason; and the figures derived from counts.

Each adds up into a new value (``added``), so merged parts give the counts of the whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolaudit.results.significance import wilson_interval

__all__ = [
    "EntryTally",
    "Parameter",
    "Skipped",
    "added_tallies",
    "f1_score",
    "mean_present",
    "tally_of",
]


@dataclass(slots=True)
class EntryTally:
    """Entries and tool selection of one category or one tool: counts only."""

    total: int = 0
    correct: int = 0
    #: Calls made, calls expected, and the size of their multiset intersection.
    made: int = 0
    expected: int = 0
    matched: int = 0

    def added(self, other: EntryTally) -> EntryTally:
        return EntryTally(
            *(mine + theirs for mine, theirs in zip(_fields(self), _fields(other), strict=True))
        )

    def count(self, total: int, correct: int, made: int, expected: int, matched: int) -> None:
        """Add these counts to this tally, in place."""
        self.total += total
        self.correct += correct
        self.made += made
        self.expected += expected
        self.matched += matched

    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None

    def selection(self) -> dict[str, float | None]:
        precision = self.matched / self.made if self.made else None
        recall = self.matched / self.expected if self.expected else None
        return {"precision": precision, "recall": recall, "f1": f1_score(precision, recall)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "correct": self.correct,
            "accuracy": self.accuracy(),
            "accuracy_95": list(wilson_interval(self.correct, self.total)),
            "made": self.made,
            "expected": self.expected,
            "matched": self.matched,
            **self.selection(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EntryTally:
        return cls(
            *(int(data[name]) for name in ("total", "correct", "made", "expected", "matched"))
        )


@dataclass(slots=True)
class Parameter:
    """One parameter of one tool: how often it was expected, matched, and was among the
    mismatches of an ``incorrect`` entry."""

    expected: int = 0
    matched: int = 0
    failures: int = 0

    def added(self, other: Parameter) -> Parameter:
        return Parameter(
            self.expected + other.expected,
            self.matched + other.matched,
            self.failures + other.failures,
        )

    def to_dict(self, incorrect: int) -> dict[str, Any]:
        """The parameter's figures; ``incorrect``: the section's incorrect entries."""
        return {
            "expected": self.expected,
            "matched": self.matched,
            "accuracy": self.matched / self.expected if self.expected else None,
            "failures": self.failures,
            "share_of_failures": self.failures / incorrect if incorrect else 0.0,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Parameter:
        return cls(int(data["expected"]), int(data["matched"]), int(data["failures"]))


@dataclass(slots=True)
class Skipped:
    """Records left unscored for one reason: how many, and where the first met is."""

    records: int = 0
    first: str | None = None

    def count(self, where: str) -> None:
        self.records += 1
        if self.first is None:
            self.first = where

    def added(self, other: Skipped) -> Skipped:
        return Skipped(self.records + other.records, self.first or other.first)

    def to_dict(self) -> dict[str, Any]:
        return {"records": self.records, "first": self.first}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Skipped:
        if data is None:
            return cls()
        first = data["first"]
        return cls(int(data["records"]), None if first is None else str(first))


def _fields(tally: EntryTally) -> tuple[int, ...]:
    return (tally.total, tally.correct, tally.made, tally.expected, tally.matched)


def tally_of(tallies: dict[str, EntryTally], key: str) -> EntryTally:
    """The tally of ``key``, new if it has none."""
    tally = tallies.get(key)
    if tally is None:
        tally = tallies[key] = EntryTally()
    return tally


def added_tallies(
    mine: Mapping[str, EntryTally], theirs: Mapping[str, EntryTally]
) -> dict[str, EntryTally]:
    """Both, added: new tallies (adding to the result never changes ``mine`` or ``theirs``)."""
    both = {key: tally.added(EntryTally()) for key, tally in mine.items()}
    for key, tally in theirs.items():
        both[key] = both.get(key, EntryTally()).added(tally)
    return both


def f1_score(precision: float | None, recall: float | None) -> float | None:
    """The harmonic mean of precision and recall (None when either is unknown)."""
    if precision is None or recall is None:
        return None
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def mean_present(values: list[float | None]) -> float | None:
    """The mean of the figures that exist (a category with nothing to measure is left out)."""
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None
