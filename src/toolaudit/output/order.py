"""The order things are listed in, the same in every output: kinds, tools, groups."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from toolaudit.contract import KINDS
from toolaudit.results.summary import Summary
from toolaudit.results.tool_summary import ToolSummary


def ordered_kinds(kinds: Iterable[str]) -> list[str]:
    """Error kinds in the order people read them: the contract's, then any others sorted
    (a summary file read back may name kinds this version does not know)."""
    present = set(kinds)
    return [k for k in KINDS if k in present] + sorted(present - set(KINDS))


def ranked_tools(by_tool: Mapping[str, ToolSummary]) -> list[tuple[str, ToolSummary]]:
    """Most invalid calls first, so that what most needs fixing leads; names break ties."""
    return sorted(by_tool.items(), key=lambda item: (-item[1].invalid, item[0]))


def ranked_groups(groups: Mapping[str, Summary]) -> list[tuple[str, Summary]]:
    """Most calls first, the groups that weigh most; names break ties."""
    return sorted(groups.items(), key=lambda item: (-item[1].calls, item[0]))
