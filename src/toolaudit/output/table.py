"""The terminal table: totals, error rate, and a tool-by-error-kind matrix."""

from __future__ import annotations

from toolaudit.output.text import printable
from toolaudit.summary import Summary

#: Column order of the error kinds; kinds not listed follow, sorted.
KIND_ORDER = ("missing", "unexpected", "type", "enum", "unknown_tool", "malformed")
MAX_NAME_WIDTH = 40


def render_table(summary: Summary) -> str:
    """A compact, readable account of a summary, for people (not for parsing)."""
    out = [_headline(summary), ""]
    if summary.by_tool:
        out.extend(_matrix(summary))
        out.append("")
    if summary.record_errors:
        parts = ", ".join(f"{count} {reason}" for reason, count in sorted(summary.record_errors.items()))
        out.append(f"malformed records: {parts}")
    for source in summary.sources:
        if not source.complete:
            out.append(f"incomplete: {printable(source.path)}: {printable(source.error or 'not read to the end')}")
    if not summary.complete:
        out.append("the audit is INCOMPLETE: some input was not read to the end")
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def _headline(summary: Summary) -> str:
    sources = len(summary.sources)
    without_calls = f", {summary.records_without_calls:,} without calls" if summary.records_without_calls else ""
    first = (
        f"{summary.lines:,} lines in {sources} source{'s' if sources != 1 else ''}"
        f" ({summary.blank_lines:,} blank), {summary.records:,} records"
        f" ({summary.malformed_records:,} malformed{without_calls})"
    )
    second = (
        f"{summary.calls:,} calls: {summary.ok:,} ok, {summary.invalid:,} invalid"
        f" | error rate {summary.error_rate:.1%} (invalid calls and malformed records)"
    )
    return f"{first}\n{second}"


def _matrix(summary: Summary) -> list[str]:
    kinds = [k for k in KIND_ORDER if k in summary.by_kind]
    kinds += sorted(k for k in summary.by_kind if k not in KIND_ORDER)
    names = {name: printable(name, MAX_NAME_WIDTH) for name in summary.by_tool}
    name_width = max([len("tool"), len("total"), *map(len, names.values())])
    header = ["calls", "ok", "invalid", "error%", *kinds]
    widths = [max(len(h), 7) for h in header]

    def line(label: str, cells: list[str]) -> str:
        return "  ".join([label.ljust(name_width), *(c.rjust(w) for c, w in zip(cells, widths))]).rstrip()

    def cells(calls: int, ok: int, invalid: int, rate: float, by_kind: dict[str, int]) -> list[str]:
        return [
            f"{calls:,}",
            f"{ok:,}",
            f"{invalid:,}",
            f"{rate:.1%}",
            *(f"{by_kind[k]:,}" if by_kind.get(k) else "-" for k in kinds),
        ]

    rows = [line("tool", header)]
    for name, tool in sorted(summary.by_tool.items(), key=lambda item: (-item[1].invalid, item[0])):
        rows.append(line(names[name], cells(tool.calls, tool.ok, tool.invalid, tool.error_rate, tool.by_kind)))
    call_rate = summary.invalid / summary.calls if summary.calls else 0.0
    rows.append(line("total", cells(summary.calls, summary.ok, summary.invalid, call_rate, summary.by_kind)))
    return rows
