"""The calls of one tool name in a summary (:class:`ToolSummary`): their counts by error
kind and parameter, how two add up, and which names were declared when tables fold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolaudit.contract import KINDS, UNEXPECTED, UNKNOWN_TOOL
from toolaudit.errors import SummaryError
from toolaudit.results.counts import Counts, add_counts, sorted_counts

__all__ = [
    "ToolSummary",
    "history_calls_section",
    "merged_history_calls",
    "merged_tools",
    "param_declared",
    "tool_declared",
]


@dataclass(slots=True)
class ToolSummary:
    """The calls to one tool name (declared or not) and what was wrong with them."""

    calls: int = 0
    ok: int = 0
    invalid: int = 0
    #: Calls found in a message's text, which never reached the tool (all invalid).
    calls_in_text: int = 0
    #: Calls of a response that hit its length limit: their arguments may be incomplete
    #: (valid or not, they are counted here too).
    calls_cut_off: int = 0
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
            "calls_in_text": self.calls_in_text,
            "calls_cut_off": self.calls_cut_off,
            "error_rate": self.error_rate,
            "by_kind": sorted_counts(self.by_kind),
            "by_param": {p: sorted_counts(k) for p, k in sorted(self.by_param.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolSummary:
        return cls(
            calls=int(data["calls"]),
            ok=int(data["ok"]),
            invalid=int(data["invalid"]),
            calls_in_text=int(data.get("calls_in_text", 0)),
            calls_cut_off=int(data.get("calls_cut_off", 0)),
            by_kind={_kind(k): int(v) for k, v in data.get("by_kind", {}).items()},
            by_param={
                p: {_kind(k): int(v) for k, v in kinds.items()}
                for p, kinds in data.get("by_param", {}).items()
            },
        )

    def merged(self, other: ToolSummary) -> ToolSummary:
        """A new summary of both (neither is changed)."""
        by_param = {p: dict(k) for p, k in self.by_param.items()}
        for param, kinds in other.by_param.items():
            add_counts(by_param.setdefault(param, {}), kinds)
        return ToolSummary(
            calls=self.calls + other.calls,
            ok=self.ok + other.ok,
            invalid=self.invalid + other.invalid,
            calls_in_text=self.calls_in_text + other.calls_in_text,
            calls_cut_off=self.calls_cut_off + other.calls_cut_off,
            by_kind=add_counts(dict(self.by_kind), other.by_kind),
            by_param=by_param,
        )


def _kind(name: object) -> str:
    """An error kind read from a summary file: one this version counts, or refused
    (a kind is shown as it is, in tables and headings, so it must be a known word)."""
    if name not in KINDS:
        raise SummaryError(f"not a toolaudit summary: unknown error kind {name!r}")
    return str(name)


def tool_declared(tool: ToolSummary) -> bool:
    """Whether a tool's name was declared where its calls were judged: some call of it was
    not refused as an unknown tool. Declared names are kept apart from invented ones
    when tables are folded (see results/folding.py)."""
    return tool.calls > tool.by_kind.get(UNKNOWN_TOOL, 0)


def param_declared(counts: Counts) -> bool:
    """Whether a parameter's name was declared: it has errors other than being unexpected."""
    return any(kind != UNEXPECTED for kind in counts)


def merged_tools(
    first: Mapping[str, ToolSummary], second: Mapping[str, ToolSummary]
) -> dict[str, ToolSummary]:
    """Per-tool summaries of both, added name by name (neither is changed)."""
    tools = dict(first)
    for name, tool in second.items():
        tools[name] = tools[name].merged(tool) if name in tools else tool.merged(ToolSummary())
    return tools


def merged_history_calls(
    first: Mapping[str, ToolSummary] | None, second: Mapping[str, ToolSummary] | None
) -> dict[str, ToolSummary] | None:
    """Both parts' history calls (--history) added up; None when neither judged any."""
    if first is None and second is None:
        return None
    return merged_tools(first or {}, second or {})


def history_calls_section(by_tool: Mapping[str, ToolSummary]) -> dict[str, Any]:
    """The ``history_calls`` section: the totals, the kinds and the tools."""
    kinds: Counts = {}
    for tool in by_tool.values():
        add_counts(kinds, tool.by_kind)
    return {
        "calls": sum(tool.calls for tool in by_tool.values()),
        "ok": sum(tool.ok for tool in by_tool.values()),
        "invalid": sum(tool.invalid for tool in by_tool.values()),
        "by_kind": sorted_counts(kinds),
        "by_tool": {name: tool.to_dict() for name, tool in sorted(by_tool.items())},
    }
