"""The record-level counters of an audit (lines, records, streams, record errors), declared
once: their addition, their JSON and the group merge are derived from the fields.

A :class:`~toolaudit.results.summary.Summary` and a :class:`~toolaudit.results.tally.Tally`
are both :class:`RecordCounts`, so the audit loop bumps ``tally.records`` as a plain
attribute and outputs read ``summary.records``. A new counter is one field here, and a
column where an output shows it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from toolaudit.contract import MALFORMED
from toolaudit.errors import SummaryError

__all__ = ["Counts", "RecordCounts", "merged_counts", "sorted_counts"]

Counts = dict[str, int]

#: What a record error reads like: "malformed:" and a word ("json", "record").
_RECORD_ERROR = re.compile(rf"{MALFORMED}:[a-z_]+")
#: Metadata of a counter of the input's lines, counted once for the whole audit: a group
#: (see grouping.py) has records, not lines, and the whole keeps its own figure.
_OF_THE_INPUT = "of_the_input"
#: Metadata of a counter every summary file holds: a file that lacks it is not a summary.
#: Files from before a later counter existed lack it, and read as its default.
_ALWAYS_SAVED = "always_saved"


def _counter(*, of_the_input: bool = False, always_saved: bool = False) -> Any:
    return field(default=0, metadata={_OF_THE_INPUT: of_the_input, _ALWAYS_SAVED: always_saved})


@dataclass(slots=True, kw_only=True)
class RecordCounts:
    """What an audit counted of its lines and records (its calls are counted by tool,
    in :class:`~toolaudit.results.tool_summary.ToolSummary`).

    Invariant: ``lines == blank_lines + records``. Addition makes a new value, and every
    method here reads :func:`dataclasses.fields`, so a new field is added, saved, loaded
    and merged with the others. Mutable, so that the tally's counters are plain attributes
    (a summary's are not changed once it is made): a frozen dataclass's fields are
    read-only in its subclasses too, for Python and mypy alike, and a frozen value beside
    a mutable twin would list the fields twice.
    """

    lines: int = _counter(of_the_input=True, always_saved=True)
    blank_lines: int = _counter(of_the_input=True, always_saved=True)
    records: int = _counter(of_the_input=True, always_saved=True)
    records_without_calls: int = _counter()
    #: Streamed responses reassembled from their chunks, and how many of them were
    #: cut before they finished (the log ended, or --max-open-streams evicted them).
    streams: int = _counter()
    streams_incomplete: int = _counter()
    #: Malformed records by reason (``malformed:json``); saved after their total,
    #: ``malformed_records``. The one counter that is a table, not a number.
    record_errors: Counts = field(default_factory=dict, metadata={_ALWAYS_SAVED: True})

    @property
    def malformed_records(self) -> int:
        return sum(self.record_errors.values())

    def __add__(self, other: RecordCounts) -> RecordCounts:
        """The counts of both (neither is changed; a summary's or a tally's add up to
        their counts alone)."""
        return RecordCounts(
            **{name: getattr(self, name) + getattr(other, name) for name in _NUMBERS},
            record_errors=merged_counts(self.record_errors, other.record_errors),
        )

    def record_counts(self) -> dict[str, Any]:
        """These counters by name (their tables copied): keyword arguments that make a
        Summary of a tally's counts, or of a sum."""
        return {
            **{name: getattr(self, name) for name in _NUMBERS},
            "record_errors": dict(self.record_errors),
        }

    def of_the_input(self) -> RecordCounts:
        """Only the counters of the input's lines (the others zero)."""
        return RecordCounts(**{name: getattr(self, name) for name in _OF_INPUT})

    def of_the_records(self) -> RecordCounts:
        """Only the counters of records (those of the input's lines zero): what a group
        adds to the whole, which counted the lines itself."""
        kept = self.record_counts()
        return RecordCounts(**{name: kept[name] for name in kept if name not in _OF_INPUT})

    def record_counts_dict(self) -> dict[str, Any]:
        """The counters as a summary file holds them, in its order."""
        return {
            **{name: getattr(self, name) for name in _NUMBERS},
            "malformed_records": self.malformed_records,
            "record_errors": sorted_counts(self.record_errors),
        }

    @staticmethod
    def record_counts_from(data: Mapping[str, Any]) -> RecordCounts:
        """The counters of a summary file's dict (``KeyError`` and the like if it is not
        one: the summary reading it names the field)."""
        return RecordCounts(
            **{
                name: int(data[name] if name in _SAVED else data.get(name, _DEFAULTS[name]))
                for name in _NUMBERS
            },
            record_errors={_record_error(k): int(v) for k, v in data["record_errors"].items()},
        )


_NUMBERS = tuple(f.name for f in fields(RecordCounts) if f.name != "record_errors")
_OF_INPUT = frozenset(f.name for f in fields(RecordCounts) if f.metadata.get(_OF_THE_INPUT))
_SAVED = frozenset(f.name for f in fields(RecordCounts) if f.metadata.get(_ALWAYS_SAVED))
_DEFAULTS = {f.name: f.default for f in fields(RecordCounts)}


def _record_error(name: object) -> str:
    """A record error read from a summary file, such as ``malformed:json``."""
    if not isinstance(name, str) or _RECORD_ERROR.fullmatch(name) is None:
        raise SummaryError(f"not a toolaudit summary: unknown record error {name!r}")
    return name


def add_counts(into: Counts, other: Mapping[str, int]) -> Counts:
    """``into``, with ``other``'s counts added key by key."""
    for key, count in other.items():
        into[key] = into.get(key, 0) + count
    return into


def merged_counts(first: Counts, second: Counts) -> Counts:
    """A new table of both counts (neither is changed)."""
    return add_counts(dict(first), second)


def sorted_counts(counts: Mapping[str, int]) -> Counts:
    return dict(sorted(counts.items()))
