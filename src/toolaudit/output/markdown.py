"""Markdown: a summary or a comparison, ready to paste into a pull request or a CI job summary."""

from __future__ import annotations

from toolaudit.results.compare import Comparison
from toolaudit.output.compare_table import kind_cells, tool_cells, verdict
from toolaudit.output.table import ordered_kinds
from toolaudit.output.text import change, percent, printable
from toolaudit.results.summary import Summary


def cell(text: str) -> str:
    """Text from a log, safe in a Markdown table cell: escaped, no pipe, no markup."""
    text = printable(text)
    for special in "\\`*_[]<>|":
        text = text.replace(special, "\\" + special)
    return text


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> list[str]:
    align = ["---"] * numeric_from + ["---:"] * (len(header) - numeric_from)
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |", *("| " + " | ".join(row) + " |" for row in rows)]


def render_markdown(summary: Summary) -> str:
    out = [
        "## toolaudit",
        "",
        f"**{summary.calls:,} calls**: {summary.ok:,} ok, {summary.invalid:,} invalid; "
        f"**error rate {percent(summary.error_rate)}** (invalid calls and malformed records). "
        f"{summary.records:,} records, {summary.malformed_records:,} malformed, "
        f"{summary.records_without_calls:,} without calls.",
    ]
    if not summary.complete:
        out += ["", "**Incomplete:** some input was not read to the end."]
    kinds = ordered_kinds(summary.by_kind)
    if summary.by_tool:
        rows = [
            [cell(name), f"{tool.calls:,}", f"{tool.invalid:,}", percent(tool.error_rate), *(f"{tool.by_kind.get(k, 0):,}" for k in kinds)]
            for name, tool in sorted(summary.by_tool.items(), key=lambda item: (-item[1].invalid, item[0]))
        ]
        out += ["", *_table(["tool", "calls", "invalid", "error rate", *kinds], rows)]
    if summary.group_by:
        by = cell(" | ".join(summary.group_by))
        keys = sorted(summary.groups, key=lambda key: (-summary.groups[key].calls, key))
        rows = []
        for key in keys:
            group = summary.groups[key]
            rows.append([cell(key), f"{group.calls:,}", f"{group.invalid:,}", percent(group.error_rate),
                         *(f"{group.by_kind.get(k, 0):,}" for k in kinds)])
        out += ["", f"### By {by}", "", *_table([by, "calls", "invalid", "error rate", *kinds], rows)]
    if summary.record_errors:
        parts = ", ".join(f"{count:,} `{reason}`" for reason, count in sorted(summary.record_errors.items()))
        out += ["", f"Malformed records: {parts}."]
    return "\n".join(out) + "\n"


def render_comparison_markdown(comparison: Comparison) -> str:
    overall = comparison.overall
    title = f"## toolaudit compare: {cell(comparison.base_label)} → {cell(comparison.new_label)}"
    if comparison.group is not None:
        title += f" (group {cell(comparison.group)})"
    out = [
        title,
        "",
        f"Error rate **{percent(overall.base_rate)} → {percent(overall.new_rate)}** ({change(overall.change)}). "
        + ("**" + verdict(comparison) + "**" if comparison.regressed else verdict(comparison)),
    ]
    if not comparison.same_schemas:
        out += ["", "Note: the two summaries were audited against different schemas."]
    tools = [tool_cells(row, cell(row.name)) for row in comparison.by_tool]
    kinds = [kind_cells(row) for row in comparison.by_kind]
    out += ["", *_table(["tool", "base calls", "base error rate", "new calls", "new error rate", "change"], tools)]
    out += ["", *_table(["error kind", "base", "per call", "new", "per call", "change"], kinds)]
    return "\n".join(out) + "\n"
