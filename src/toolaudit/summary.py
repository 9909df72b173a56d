"""The aggregate of an audit: counts that add up, merge, and round-trip as JSON.

The audit loop fills a :class:`Tally` (flat dicts keyed by tuples, cheap to
bump); :meth:`Tally.summary` turns it into a :class:`Summary`, the value users
see, save, merge and compare. Formatting happens once, at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from toolaudit.errors import ToolAuditError
from toolaudit.validate import PARAMETER_KINDS

#: by_tool key for calls whose name is missing or not a string.
NO_NAME = "<no name>"

Counts = dict[str, int]


class SummaryError(ToolAuditError):
    """A summary file cannot be read, or summaries cannot be merged honestly."""


@dataclass
class SourceStatus:
    """What happened to one input: how far it was read, and why it stopped."""

    path: str
    lines: int = 0
    complete: bool = True
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"path": self.path, "lines": self.lines, "complete": self.complete}
        if self.error is not None:
            entry["error"] = self.error
        return entry


@dataclass
class ToolSummary:
    """The calls to one tool name (declared or not) and what was wrong with them."""

    calls: int = 0
    ok: int = 0
    invalid: int = 0
    by_kind: Counts = field(default_factory=dict)
    by_param: dict[str, Counts] = field(default_factory=dict)

    @property
    def error_rate(self) -> float:
        return self.invalid / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "ok": self.ok,
            "invalid": self.invalid,
            "error_rate": self.error_rate,
            "by_kind": _sorted_counts(self.by_kind),
            "by_param": {p: _sorted_counts(k) for p, k in sorted(self.by_param.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolSummary:
        return cls(
            calls=int(data["calls"]),
            ok=int(data["ok"]),
            invalid=int(data["invalid"]),
            by_kind=dict(data.get("by_kind", {})),
            by_param={p: dict(k) for p, k in data.get("by_param", {}).items()},
        )

    def merged(self, other: ToolSummary) -> ToolSummary:
        by_param = {p: dict(k) for p, k in self.by_param.items()}
        for param, kinds in other.by_param.items():
            _add_counts(by_param.setdefault(param, {}), kinds)
        return ToolSummary(
            calls=self.calls + other.calls,
            ok=self.ok + other.ok,
            invalid=self.invalid + other.invalid,
            by_kind=_add_counts(dict(self.by_kind), other.by_kind),
            by_param=by_param,
        )


@dataclass
class Summary:
    """The aggregate of one audit (or of several merged).

    Invariants: ``lines == blank_lines + records``; ``calls == ok + invalid``;
    a record is malformed, holds no call, or holds calls (so ``records >=
    malformed_records + records_without_calls``);
    ``malformed_records`` is the sum of ``record_errors``; the ``by_tool``
    figures sum to ``calls``, ``ok``, ``invalid`` and ``by_kind``.
    """

    toolaudit_version: str
    schemas_digest: str | None = None
    complete: bool = True
    sources: list[SourceStatus] = field(default_factory=list)
    lines: int = 0
    blank_lines: int = 0
    records: int = 0
    records_without_calls: int = 0
    record_errors: Counts = field(default_factory=dict)
    calls: int = 0
    ok: int = 0
    invalid: int = 0
    by_kind: Counts = field(default_factory=dict)
    by_tool: dict[str, ToolSummary] = field(default_factory=dict)

    @property
    def malformed_records(self) -> int:
        return sum(self.record_errors.values())

    @property
    def error_rate(self) -> float:
        """Failed units over audited units: a malformed record counts as a
        failure, so a log of unreadable lines cannot pass as error-free."""
        failed = self.invalid + self.malformed_records
        audited = self.calls + self.malformed_records
        return failed / audited if audited else 0.0

    @property
    def all_valid(self) -> bool:
        return self.invalid == 0 and self.malformed_records == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "toolaudit_version": self.toolaudit_version,
            "schemas_digest": self.schemas_digest,
            "complete": self.complete,
            "sources": [s.to_dict() for s in self.sources],
            "lines": self.lines,
            "blank_lines": self.blank_lines,
            "records": self.records,
            "records_without_calls": self.records_without_calls,
            "malformed_records": self.malformed_records,
            "record_errors": _sorted_counts(self.record_errors),
            "calls": self.calls,
            "ok": self.ok,
            "invalid": self.invalid,
            "error_rate": self.error_rate,
            "by_kind": _sorted_counts(self.by_kind),
            "by_tool": {name: t.to_dict() for name, t in sorted(self.by_tool.items())},
        }

    @classmethod
    def from_dict(cls, data: object) -> Summary:
        """Rebuild a summary from its JSON; :class:`SummaryError` if it is not one."""
        if not isinstance(data, Mapping) or "toolaudit_version" not in data:
            raise SummaryError("not a toolaudit summary (no toolaudit_version)")
        try:
            return cls(
                toolaudit_version=str(data["toolaudit_version"]),
                schemas_digest=data.get("schemas_digest"),
                complete=bool(data["complete"]),
                sources=[
                    SourceStatus(
                        path=s["path"], lines=int(s["lines"]), complete=bool(s["complete"]), error=s.get("error")
                    )
                    for s in data["sources"]
                ],
                lines=int(data["lines"]),
                blank_lines=int(data["blank_lines"]),
                records=int(data["records"]),
                records_without_calls=int(data.get("records_without_calls", 0)),
                record_errors=dict(data["record_errors"]),
                calls=int(data["calls"]),
                ok=int(data["ok"]),
                invalid=int(data["invalid"]),
                by_kind=dict(data["by_kind"]),
                by_tool={name: ToolSummary.from_dict(t) for name, t in data["by_tool"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise SummaryError(f"not a toolaudit summary: missing or odd field ({error})") from error

    def merged(self, other: Summary) -> Summary:
        """The summary of both audits, as if their inputs had been audited together.

        Sources with the same path (byte ranges of one file, audited apart)
        become one entry. Refuses, with the reason, summaries that cannot be
        added honestly: other toolaudit versions, or other schemas.
        """
        if other.toolaudit_version != self.toolaudit_version:
            raise SummaryError(
                f"cannot merge summaries of toolaudit {self.toolaudit_version} and "
                f"{other.toolaudit_version}: re-audit with one version"
            )
        if other.schemas_digest != self.schemas_digest:
            raise SummaryError(
                "cannot merge summaries audited against different schemas "
                f"({self.schemas_digest} and {other.schemas_digest})"
            )
        sources = {s.path: replace(s) for s in self.sources}
        for status in other.sources:
            mine = sources.get(status.path)
            if mine is None:
                sources[status.path] = replace(status)
            else:
                mine.lines += status.lines
                mine.complete = mine.complete and status.complete
                mine.error = mine.error or status.error
        by_tool = dict(self.by_tool)
        for name, tool in other.by_tool.items():
            by_tool[name] = by_tool[name].merged(tool) if name in by_tool else tool
        return Summary(
            toolaudit_version=self.toolaudit_version,
            schemas_digest=self.schemas_digest,
            complete=self.complete and other.complete,
            sources=list(sources.values()),
            lines=self.lines + other.lines,
            blank_lines=self.blank_lines + other.blank_lines,
            records=self.records + other.records,
            records_without_calls=self.records_without_calls + other.records_without_calls,
            record_errors=_add_counts(dict(self.record_errors), other.record_errors),
            calls=self.calls + other.calls,
            ok=self.ok + other.ok,
            invalid=self.invalid + other.invalid,
            by_kind=_add_counts(dict(self.by_kind), other.by_kind),
            by_tool=by_tool,
        )


def merge_summaries(summaries: Iterable[Summary]) -> Summary:
    """Merge several summaries in order (see :meth:`Summary.merged`)."""
    iterator = iter(summaries)
    try:
        merged = next(iterator)
    except StopIteration:
        raise SummaryError("nothing to merge") from None
    for summary in iterator:
        merged = merged.merged(summary)
    return merged


class Tally:
    """Mutable counters for the audit loop; :meth:`summary` formats them once."""

    __slots__ = (
        "lines",
        "blank_lines",
        "records",
        "records_without_calls",
        "record_errors",
        "ok_by_tool",
        "invalid_by_tool",
        "problems",
    )

    def __init__(self) -> None:
        self.lines = 0
        self.blank_lines = 0
        self.records = 0
        self.records_without_calls = 0
        self.record_errors: Counts = {}
        self.ok_by_tool: Counter[str] = Counter()
        self.invalid_by_tool: Counts = {}
        #: (tool, kind, subject) -> occurrences
        self.problems: dict[tuple[str, str, str], int] = {}

    def count_problems(self, tool: str, problems: Iterable[tuple[str, str]]) -> None:
        self.invalid_by_tool[tool] = self.invalid_by_tool.get(tool, 0) + 1
        counts = self.problems
        for kind, subject in problems:
            key = (tool, kind, subject)
            counts[key] = counts.get(key, 0) + 1

    def summary(
        self,
        *,
        version: str,
        schemas_digest: str | None,
        sources: list[SourceStatus],
        complete: bool,
    ) -> Summary:
        by_tool: dict[str, ToolSummary] = {}
        for name, count in self.ok_by_tool.items():
            tool = by_tool.setdefault(name, ToolSummary())
            tool.ok += count
            tool.calls += count
        for name, count in self.invalid_by_tool.items():
            tool = by_tool.setdefault(name, ToolSummary())
            tool.invalid += count
            tool.calls += count
        by_kind: Counts = {}
        for (name, kind, subject), count in self.problems.items():
            tool = by_tool[name]
            tool.by_kind[kind] = tool.by_kind.get(kind, 0) + count
            by_kind[kind] = by_kind.get(kind, 0) + count
            if kind in PARAMETER_KINDS:
                params = tool.by_param.setdefault(subject, {})
                params[kind] = params.get(kind, 0) + count
        ok = sum(self.ok_by_tool.values())
        invalid = sum(self.invalid_by_tool.values())
        return Summary(
            toolaudit_version=version,
            schemas_digest=schemas_digest,
            complete=complete,
            sources=sources,
            lines=self.lines,
            blank_lines=self.blank_lines,
            records=self.records,
            records_without_calls=self.records_without_calls,
            record_errors=dict(self.record_errors),
            calls=ok + invalid,
            ok=ok,
            invalid=invalid,
            by_kind=by_kind,
            by_tool=by_tool,
        )


def _add_counts(into: Counts, other: Mapping[str, int]) -> Counts:
    for key, count in other.items():
        into[key] = into.get(key, 0) + count
    return into


def _sorted_counts(counts: Mapping[str, int]) -> Counts:
    return dict(sorted(counts.items()))
