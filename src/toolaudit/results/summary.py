"""The aggregate of an audit: counts that add up, merge, and round-trip as JSON.

The audit loop fills a :class:`~toolaudit.results.tally.Tally`; it becomes a
:class:`Summary`, the value users see, save, merge and compare. The totals
(``calls``, ``ok``, ``invalid``, ``by_kind``) are derived from ``by_tool``, so
the per-tool figures sum to them by construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from toolaudit.errors import SummaryError
from toolaudit.results.conversations import Conversations, either_or_both
from toolaudit.results.counts import Counts, RecordCounts, add_counts, merged_counts, sorted_counts
from toolaudit.results.folding import (
    DEFAULT_MAX_PARAMS,
    DEFAULT_MAX_TOOLS,
    Folding,
    folded_estimate,
)
from toolaudit.results.source_status import SourceStatus
from toolaudit.results.summary_file import counts_fields, decoded_summary, read_summary_file
from toolaudit.results.tool_summary import (
    ToolSummary,
    history_calls_section,
    merged_history_calls,
    merged_tools,
    param_declared,
    tool_declared,
)

if TYPE_CHECKING:
    from toolaudit.results.ground_truth import GroundTruth

#: Failing report rows kept in a summary (and in each group's), in input order.
SAMPLE_ROWS = 20
#: Distinct groups kept by --group-by; the others are folded into "<other>".
MAX_GROUPS = 1_000
#: The group of records that lack a --group-by field.
NULL_GROUP = "null"

__all__ = ["MAX_GROUPS", "NULL_GROUP", "SAMPLE_ROWS", "Summary"]


@dataclass
class Summary(RecordCounts):
    """The aggregate of one audit (or of several merged): its record counts (inherited
    from :class:`~toolaudit.results.counts.RecordCounts`, keyword arguments) and its calls.

    Invariants: ``lines == blank_lines + records``; ``calls == ok + invalid``;
    a record is malformed, holds no call, or holds calls; the ``by_tool``
    figures sum to the totals. At most ``max_tools`` tool names and
    ``max_params`` parameter names per tool are kept; the others are folded
    into ``<other>`` (see :mod:`toolaudit.results.folding`), here on creation.
    """

    toolaudit_version: str
    schemas_digest: str | None = None
    #: Whether calls were judged in deep mode (errors inside the arguments too).
    deep: bool = False
    complete: bool = True
    sources: list[SourceStatus] = field(default_factory=list)
    by_tool: dict[str, ToolSummary] = field(default_factory=dict)
    max_tools: int = DEFAULT_MAX_TOOLS
    max_params: int = DEFAULT_MAX_PARAMS
    #: The first failing report rows (at most SAMPLE_ROWS), for people to look at.
    samples: list[dict[str, Any]] = field(default_factory=list)
    #: The --group-by fields, and a summary per value (see :func:`group_key`).
    group_by: tuple[str, ...] = ()
    groups: dict[str, Summary] = field(default_factory=dict)
    #: With --expected: how many expected entries were answered right (see
    #: :mod:`toolaudit.results.ground_truth`); None for an audit without expected calls.
    ground_truth: GroundTruth | None = None
    #: The conversations the records carried: their pairing problems and the tools'
    #: outcomes (see :mod:`toolaudit.results.conversations`); None when no record held one.
    conversations: Conversations | None = None
    #: With --history: the calls those conversations hold, by tool, counted apart from
    #: the model's own calls (``by_tool`` and the totals count only those).
    history_calls: dict[str, ToolSummary] | None = None

    def __post_init__(self) -> None:
        # Compact copies: the caller's tables and lists are left as they were given.
        self.by_tool = dict(self.by_tool)
        Folding(self.max_tools, tool_declared).compact(self.by_tool, ToolSummary.merged)
        for name, tool in self.by_tool.items():
            if len(tool.by_param) > self.max_params:
                tool = self.by_tool[name] = replace(tool, by_param=dict(tool.by_param))
                Folding(self.max_params, param_declared).compact(tool.by_param, merged_counts)
        self.groups = dict(self.groups)
        Folding(MAX_GROUPS).compact(self.groups, Summary.merged)
        self.samples = self.samples[:SAMPLE_ROWS]
        self.sources = list(self.sources)

    @property
    def calls(self) -> int:
        return sum(t.calls for t in self.by_tool.values())

    @property
    def ok(self) -> int:
        return sum(t.ok for t in self.by_tool.values())

    @property
    def invalid(self) -> int:
        return sum(t.invalid for t in self.by_tool.values())

    @property
    def calls_in_text(self) -> int:
        return sum(t.calls_in_text for t in self.by_tool.values())

    @property
    def calls_cut_off(self) -> int:
        return sum(t.calls_cut_off for t in self.by_tool.values())

    @property
    def by_kind(self) -> Counts:
        kinds: Counts = {}
        for tool in self.by_tool.values():
            add_counts(kinds, tool.by_kind)
        return kinds

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

    @property
    def folded_tools(self) -> int:
        """About how many distinct tool names were folded into ``<other>``."""
        return folded_estimate(self.by_tool, self.max_tools, tool_declared)

    @property
    def folded_params(self) -> int:
        """About how many distinct (tool, parameter) names were folded."""
        return sum(
            folded_estimate(tool.by_param, self.max_params, param_declared)
            for tool in self.by_tool.values()
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "toolaudit_version": self.toolaudit_version,
            "schemas_digest": self.schemas_digest,
            "deep": self.deep,
            "complete": self.complete,
            "sources": [s.to_dict() for s in self.sources],
            **self._counts_dict(),
        }
        if self.group_by:
            data["group_by"] = list(self.group_by)
            data["groups"] = {
                key: group._counts_dict() for key, group in sorted(self.groups.items())
            }
        return data

    def _counts_dict(self) -> dict[str, Any]:
        """Everything but what identifies the run: the shape a group has too."""
        return {
            **self.record_counts_dict(),
            "calls": self.calls,
            "ok": self.ok,
            "invalid": self.invalid,
            "calls_in_text": self.calls_in_text,
            "calls_cut_off": self.calls_cut_off,
            "error_rate": self.error_rate,
            "by_kind": sorted_counts(self.by_kind),
            "by_tool": {name: t.to_dict() for name, t in sorted(self.by_tool.items())},
            "max_keys": {"tools": self.max_tools, "params": self.max_params},
            "folded": {"tools": self.folded_tools, "params": self.folded_params},
            "samples": self.samples,
            **({} if self.ground_truth is None else {"ground_truth": self.ground_truth.to_dict()}),
            **self._conversations_dict(),
        }

    def _conversations_dict(self) -> dict[str, Any]:
        if self.conversations is None:
            return {}
        conversations, tool_results = self.conversations.to_dicts()
        data = {"conversations": conversations, "tool_results": tool_results}
        if self.history_calls is not None:
            data["history_calls"] = history_calls_section(self.history_calls)
        return data

    @classmethod
    def from_dict(cls, data: object) -> Summary:
        """Rebuild a summary from its JSON; :class:`SummaryError` if it is not one."""
        if not isinstance(data, Mapping) or "toolaudit_version" not in data:
            raise SummaryError("not a toolaudit summary (no toolaudit_version)")
        try:
            version, digest = str(data["toolaudit_version"]), data.get("schemas_digest")
            deep = data.get("deep", False)  # summaries from before deep mode were plain
            if type(deep) is not bool:
                raise SummaryError(f"not a toolaudit summary: deep is {deep!r}, not true or false")
            return cls(
                **counts_fields(data, version, digest, deep),
                complete=bool(data["complete"]),
                sources=[SourceStatus.from_dict(status) for status in data["sources"]],
                group_by=tuple(str(field) for field in data.get("group_by", ())),
                groups={
                    str(key): cls(**counts_fields(group, version, digest, deep))
                    for key, group in data.get("groups", {}).items()
                },
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise SummaryError(
                f"not a toolaudit summary: missing or odd field ({error})"
            ) from error

    @classmethod
    def load(cls, path: str, *, storage_options: Mapping[str, Any] | None = None) -> Summary:
        """Read a summary file written by ``toolaudit audit --summary`` (or ``merge``), or
        a URL (``storage_options`` for its filesystem); :class:`SummaryError` names the
        file and what is wrong with it."""
        return cls.from_bytes(read_summary_file(path, storage_options), path)

    @classmethod
    def from_bytes(cls, raw: bytes, path: str) -> Summary:
        """A summary file's bytes, read already (``path`` names it in errors)."""
        data = decoded_summary(raw, path)
        try:
            return cls.from_dict(data)
        except SummaryError as error:
            raise SummaryError(f"{path}: {error}") from None

    def merged(self, other: Summary) -> Summary:
        """The summary of both audits, as if their inputs had been audited together.

        Sources with the same path (byte ranges of one file, audited apart)
        become one entry. Refuses, with the reason, summaries that cannot be
        added honestly: other toolaudit versions, other schemas, other limits.
        """
        self._refuse_unmergeable(other)
        # (Copies: a summary's statuses are its own.)
        sources = {s.path: replace(s) for s in self.sources}
        for status in other.sources:
            known = sources.get(status.path)
            sources[status.path] = replace(status) if known is None else known.continued(status)
        by_tool = merged_tools(self.by_tool, other.by_tool)
        groups = dict(self.groups)
        for key, group in other.groups.items():
            groups[key] = groups[key].merged(group) if key in groups else group
        return Summary(
            toolaudit_version=self.toolaudit_version,
            schemas_digest=self.schemas_digest,
            deep=self.deep,
            complete=self.complete and other.complete,
            sources=list(sources.values()),
            **(self + other).record_counts(),
            by_tool=by_tool,
            max_tools=self.max_tools,
            max_params=self.max_params,
            samples=self.samples + other.samples[: SAMPLE_ROWS - len(self.samples)],
            group_by=self.group_by,
            groups=groups,
            ground_truth=(
                None
                if self.ground_truth is None or other.ground_truth is None
                else self.ground_truth.merged(other.ground_truth)
            ),
            conversations=either_or_both(self.conversations, other.conversations),
            history_calls=merged_history_calls(self.history_calls, other.history_calls),
        )

    def _refuse_unmergeable(self, other: Summary) -> None:
        """Raise :class:`SummaryError`, with the reason, when ``other`` cannot be added to
        this summary honestly."""
        for what, mine, theirs in (
            ("toolaudit versions", self.toolaudit_version, other.toolaudit_version),
            ("schemas", self.schemas_digest, other.schemas_digest),
            ("validation modes", _mode(self), _mode(other)),
            (
                "--max-keys limits",
                (self.max_tools, self.max_params),
                (other.max_tools, other.max_params),
            ),
            ("--group-by fields", self.group_by, other.group_by),
            ("expected calls", _scored(self), _scored(other)),
        ):
            if mine != theirs:
                raise SummaryError(
                    f"cannot merge summaries made with different {what} "
                    f"({_shown(mine)} and {_shown(theirs)})"
                )


def _scored(summary: Summary) -> str:
    """How messages name whether a summary scored expected calls."""
    return "none" if summary.ground_truth is None else "--expected"


def _shown(value: object) -> str:
    """A setting as a message shows it: ``--group-by`` fields and ``--max-keys`` limits
    as the command line writes them, not as Python tuples."""
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value) if value else "none"
    return str(value)


def _mode(summary: Summary) -> str:
    """How messages name a summary's validation mode."""
    return "deep" if summary.deep else "plain"
