"""The audit loop's counters: cheap to bump, bounded in size, made a Summary once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolaudit.contract import MALFORMED, PARAMETER_KINDS, UNEXPECTED, UNKNOWN_TOOL
from toolaudit.results.conversations import Conversations, either_or_both
from toolaudit.results.counts import Counts, RecordCounts, merged_counts
from toolaudit.results.folding import (
    DEFAULT_MAX_PARAMS,
    DEFAULT_MAX_TOOLS,
    NOT_OWN_KEY_STARTS,
    OTHER,
    Folding,
    table_key,
)
from toolaudit.results.source_status import SourceStatus
from toolaudit.results.summary import SAMPLE_ROWS, Summary
from toolaudit.results.tool_summary import ToolSummary, param_declared, tool_declared

if TYPE_CHECKING:
    from toolaudit.results.ground_truth import GroundTruth

#: The subject of ``malformed:text``: a call found in a message's text.
IN_TEXT = "text"


class Tally(RecordCounts):
    """Mutable counters for one audit: the record counts (``tally.records += 1``, plain
    attributes inherited from :class:`~toolaudit.results.counts.RecordCounts`) and the
    calls by tool.

    Tool names and parameter names come from logs, so both tables are bounded
    (see :mod:`toolaudit.results.folding`): memory does not grow with the number of
    names a model invents. Names are given as logged (None: the call gave no
    usable name) and counted under their :func:`~toolaudit.results.folding.table_key`.
    """

    __slots__ = (
        "_param_foldings",
        "_tool_folding",
        "by_tool",
        "conversations",
        "ground_truth",
        "history_calls",
        "max_params",
        "samples",
    )
    # A tally is a running count, not a value: equal only to itself, as a plain object.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self, max_tools: int = DEFAULT_MAX_TOOLS, max_params: int = DEFAULT_MAX_PARAMS
    ) -> None:
        super().__init__()
        self.by_tool: dict[str, ToolSummary] = {}
        #: The first failing report rows, in input order (see summary.SAMPLE_ROWS).
        self.samples: list[dict[str, Any]] = []
        self.max_params = max_params
        self._tool_folding = Folding(max_tools, tool_declared)
        self._param_foldings: dict[str, Folding] = {}  # by tool name, once it has a parameter error
        #: With --expected: the expected entries scored on these records.
        self.ground_truth: GroundTruth | None = None
        #: The conversations the records carry, once one was read.
        self.conversations: Conversations | None = None
        #: With --history: the calls those conversations hold, counted apart.
        self.history_calls: Tally | None = None

    def _tool(self, name: str, *, declared: bool = True) -> tuple[str, ToolSummary]:
        """The table entry that counts calls to ``name`` (``declared``: not an unknown
        tool): its own, or <other>'s."""
        return self._tool_folding.entry(
            self.by_tool, name, ToolSummary, ToolSummary.merged, declared=declared
        )

    def count_ok(self, names: Iterable[str]) -> None:
        """Count valid calls, given their tools' names (many at once: counted in C)."""
        for name, count in Counter(names).items():
            _, tool = self._tool(table_key(name))
            tool.calls += count
            tool.ok += count

    def count_one_ok(self, name: str | None) -> None:
        """Count one valid call (where batching them is not possible)."""
        # Only a name that starts like a bucket's key can need escaping: skip the call.
        name = name if name and name[0] not in NOT_OWN_KEY_STARTS else table_key(name)
        tool = self.by_tool.get(name)
        if tool is None:
            _, tool = self._tool(name)
        tool.calls += 1
        tool.ok += 1

    def count_cut_off(self, name: str | None) -> None:
        """Count, besides, that a call just counted came from a response that hit its
        length limit."""
        name = name if name and name[0] not in NOT_OWN_KEY_STARTS else table_key(name)
        tool = self.by_tool.get(name)
        if tool is None:  # folded into <other>, where it was counted
            tool = self.by_tool[OTHER]
        tool.calls_cut_off += 1

    def count_problems(self, name: str | None, problems: Iterable[tuple[str, str]]) -> None:
        """Count one invalid call and its problems."""
        name = name if name and name[0] not in NOT_OWN_KEY_STARTS else table_key(name)
        tool = self.by_tool.get(name)
        key = name
        if tool is None:
            problems = list(problems)
            unknown = any(kind == UNKNOWN_TOOL for kind, _ in problems)
            key, tool = self._tool(name, declared=not unknown)
        tool.calls += 1
        tool.invalid += 1
        by_kind = tool.by_kind
        for kind, subject in problems:
            by_kind[kind] = by_kind.get(kind, 0) + 1
            if kind == MALFORMED and subject == IN_TEXT:
                tool.calls_in_text += 1
            elif kind in PARAMETER_KINDS:
                # Parameter names come from JSON objects: always strings.
                if subject[:1] in NOT_OWN_KEY_STARTS:
                    subject = table_key(subject)
                kinds = tool.by_param.get(subject)
                if kinds is None:
                    kinds = self._new_param(key, tool, subject, declared=kind != UNEXPECTED)
                kinds[kind] = kinds.get(kind, 0) + 1

    def _new_param(self, key: str, tool: ToolSummary, param: str, *, declared: bool) -> Counts:
        folding = self._param_foldings.get(key)
        if folding is None:
            folding = self._param_foldings[key] = Folding(self.max_params, param_declared)
        return folding.entry(tool.by_param, param, dict, merged_counts, declared=declared)[1]

    def absorbed(self, other: Tally) -> Tally:
        """This tally, with ``other``'s counts added (for folding groups together)."""
        for name, count in (self + other).record_counts().items():
            setattr(self, name, count)
        for name, tool in other.by_tool.items():
            key, mine = self._tool(name, declared=tool_declared(tool))
            self.by_tool[key] = mine.merged(tool)
        self.samples.extend(other.samples[: SAMPLE_ROWS - len(self.samples)])
        if other.ground_truth is not None:
            # Imported here, as only an audit with --expected has a section: the ground-truth
            # machinery is a start-up cost a plain audit would pay for nothing.
            from toolaudit.results.ground_truth import GroundTruth

            scored = self.ground_truth or GroundTruth()
            self.ground_truth = scored.merged(other.ground_truth)
        self.conversations = either_or_both(self.conversations, other.conversations)
        if other.history_calls is not None:
            self.history_tally().absorbed(other.history_calls)
        return self

    def history_tally(self) -> Tally:
        """The tally of the calls the records' conversations hold (--history), new if none."""
        if self.history_calls is None:
            self.history_calls = Tally(self._tool_folding.limit, self.max_params)
        return self.history_calls

    def tools(self) -> dict[str, ToolSummary]:
        """Copies of the per-tool counts (the summary's are its own)."""
        return {name: tool.merged(ToolSummary()) for name, tool in self.by_tool.items()}

    def wants_sample(self) -> bool:
        return len(self.samples) < SAMPLE_ROWS

    def summary(
        self,
        *,
        version: str,
        schemas_digest: str | None,
        sources: list[SourceStatus],
        complete: bool,
        deep: bool = False,
    ) -> Summary:
        return Summary(
            toolaudit_version=version,
            schemas_digest=schemas_digest,
            deep=deep,
            complete=complete,
            sources=sources,
            **self.record_counts(),
            by_tool=self.tools(),
            max_tools=self._tool_folding.limit,
            max_params=self.max_params,
            samples=list(self.samples),
            ground_truth=self.ground_truth,
            conversations=self.conversations,
            history_calls=(
                None
                if self.history_calls is None
                else {
                    name: t.merged(ToolSummary()) for name, t in self.history_calls.by_tool.items()
                }
            ),
        )
