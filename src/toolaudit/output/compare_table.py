"""The terminal view of a comparison: the verdict first, then what changed, worst first."""

from __future__ import annotations

from toolaudit.output.text import NAME_WIDTH, change, grid, percent, points, printable
from toolaudit.results.compare import Comparison, RateChange


def verdict(comparison: Comparison) -> str:
    """One line that says whether NEW is worse than BASE, and by how much."""
    overall = comparison.overall
    tolerance = points(comparison.tolerance)
    if comparison.regressed:
        return f"REGRESSED: the error rate rose by {points(overall.change)} (tolerance {tolerance})"
    return f"ok: the error rate changed by {change(overall.change)} (tolerance {tolerance})"


def row_change(row: RateChange) -> str:
    """The change of one row, or which side alone had calls (no rate to compare)."""
    if not row.base_calls:
        return "only in new"
    if not row.new_calls:
        return "only in base"
    return change(row.change)


def render_comparison_table(comparison: Comparison) -> str:
    """A comparison for people: the two sides, the verdict, then the changes by tool and kind."""
    overall = comparison.overall
    heading = f"{printable(comparison.base_label)} -> {printable(comparison.new_label)}"
    if comparison.group is not None:
        heading += f" (group {printable(comparison.group)})"
    out = [
        heading,
        f"error rate {percent(overall.base_rate)} -> {percent(overall.new_rate)}"
        f" ({overall.base_calls:,} -> {overall.new_calls:,} calls and malformed records)",
        verdict(comparison),
    ]
    if not comparison.same_schemas:
        out.append("note: the two summaries were audited against different schemas")
    out.append("")
    out.extend(grid(_tool_rows(comparison.by_tool)))
    out.append("")
    out.extend(grid(_kind_rows(comparison.by_kind)))
    return "\n".join(out) + "\n"


def tool_cells(row: RateChange, name: str) -> list[str]:
    """A tool's line of a comparison: calls and the share of them that failed, then the change.

    ``name`` is the tool's name already made safe for the output at hand.
    """
    base = [f"{row.base_calls:,}", percent(row.base_rate)]
    new = [f"{row.new_calls:,}", percent(row.new_rate)]
    return [name, *base, *new, row_change(row)]


def kind_cells(row: RateChange) -> list[str]:
    """An error kind's line: occurrences, and occurrences per call, then the change."""
    base = [f"{row.base_count:,}", percent(row.base_rate)]
    new = [f"{row.new_count:,}", percent(row.new_rate)]
    return [row.name, *base, *new, change(row.change)]


def _tool_rows(rows: list[RateChange]) -> list[list[str]]:
    header = ["tool", "base calls", "base err%", "new calls", "new err%", "change"]
    return [header, *(tool_cells(row, printable(row.name, NAME_WIDTH)) for row in rows)]


def _kind_rows(rows: list[RateChange]) -> list[list[str]]:
    header = ["error kind", "base count", "per call", "new count", "per call", "change"]
    return [header, *map(kind_cells, rows)]
