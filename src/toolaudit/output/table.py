"""The terminal table: totals, error rate, a tool-by-error-kind matrix, and groups side by side."""

from __future__ import annotations

from toolaudit.output.text import grid, percent, printable
from toolaudit.results.summary import Summary

#: Column order of the error kinds; kinds not listed follow, sorted.
KIND_ORDER = ("missing", "unexpected", "type", "enum", "unknown_tool", "malformed")
MAX_NAME_WIDTH = 40


def render_table(summary: Summary) -> str:
    """A compact, readable account of a summary, for people (not for parsing)."""
    out = [*_headline(summary), ""]
    if summary.by_tool:
        out.extend(_matrix(summary))
        out.append("")
    if summary.group_by:
        out.extend(_groups(summary))
        out.append("")
    if summary.record_errors:
        parts = ", ".join(f"{count} {reason}" for reason, count in sorted(summary.record_errors.items()))
        out.append(f"malformed records: {parts}")
    if summary.folded_tools or summary.folded_params:
        out.append(
            f"folded into <other> (--max-keys): about {summary.folded_tools:,} tool names"
            f" and {summary.folded_params:,} parameter names"
        )
    for source in summary.sources:
        if not source.complete:
            out.append(f"incomplete: {printable(source.path)}: {printable(source.error or 'not read to the end')}")
    if not summary.complete:
        out.append("the audit is INCOMPLETE: some input was not read to the end")
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def ordered_kinds(kinds: object) -> list[str]:
    """Error kinds in the order people read them: the contract's, then others sorted."""
    present = set(kinds)  # type: ignore[call-overload]
    return [k for k in KIND_ORDER if k in present] + sorted(present - set(KIND_ORDER))


def _headline(summary: Summary) -> list[str]:
    sources = len(summary.sources)
    without_calls = f", {summary.records_without_calls:,} without calls" if summary.records_without_calls else ""
    return [
        f"{summary.lines:,} lines in {sources} source{'s' if sources != 1 else ''}"
        f" ({summary.blank_lines:,} blank), {summary.records:,} records"
        f" ({summary.malformed_records:,} malformed{without_calls})",
        f"{summary.calls:,} calls: {summary.ok:,} ok, {summary.invalid:,} invalid"
        f" | error rate {percent(summary.error_rate)} (invalid calls and malformed records)",
    ]


def _matrix(summary: Summary) -> list[str]:
    kinds = ordered_kinds(summary.by_kind)

    def cells(calls: int, ok: int, invalid: int, rate: float, by_kind: dict[str, int]) -> list[str]:
        counts = (f"{by_kind[k]:,}" if by_kind.get(k) else "-" for k in kinds)
        return [f"{calls:,}", f"{ok:,}", f"{invalid:,}", percent(rate), *counts]

    rows = [["tool", "calls", "ok", "invalid", "error%", *kinds]]
    for name, tool in sorted(summary.by_tool.items(), key=lambda item: (-item[1].invalid, item[0])):
        rows.append([printable(name, MAX_NAME_WIDTH), *cells(tool.calls, tool.ok, tool.invalid, tool.error_rate, tool.by_kind)])
    call_rate = summary.invalid / summary.calls if summary.calls else 0.0
    rows.append(["total", *cells(summary.calls, summary.ok, summary.invalid, call_rate, summary.by_kind)])
    return grid(rows, min_width=7)


def _groups(summary: Summary) -> list[str]:
    """The groups side by side: overall, per tool (calls, error%) and per error kind."""
    keys = sorted(summary.groups, key=lambda key: (-summary.groups[key].calls, key))
    labels = [printable(key, 24) for key in keys]
    groups = [summary.groups[key] for key in keys]
    by = " | ".join(summary.group_by)
    overall = [[f"by {printable(by)}", "records", "calls", "invalid", "error%"]]
    for label, group in zip(labels, groups):
        overall.append([label, f"{group.records:,}", f"{group.calls:,}", f"{group.invalid:,}", percent(group.error_rate)])
    tools = sorted({name for group in groups for name in group.by_tool})
    per_tool = [["error% (calls)", *labels]]
    for name in tools:
        cells = []
        for group in groups:
            tool = group.by_tool.get(name)
            cells.append(f"{percent(tool.error_rate)} ({tool.calls:,})" if tool else "-")
        per_tool.append([printable(name, MAX_NAME_WIDTH), *cells])
    per_kind = [["errors", *labels]]
    for kind in ordered_kinds({k for group in groups for k in group.by_kind}):
        per_kind.append([kind, *(f"{group.by_kind.get(kind, 0):,}" for group in groups)])
    return [*grid(overall, min_width=7), "", *grid(per_tool, min_width=7), "", *grid(per_kind, min_width=7)]
