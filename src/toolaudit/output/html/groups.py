"""The groups of an audit side by side (``--group-by``): one column per group.

Rows: each group's totals and error rate, then its error rate per tool, then
its errors per kind, so two models (or prompt versions) read across a line.
"""

from __future__ import annotations

# The module by its full name: `from toolaudit.output.html import parts` would depend on
# the package, whose __init__ imports this module (a cycle).
import toolaudit.output.html.parts as p
from toolaudit.output.html.audit import MAX_TOOL_ROWS
from toolaudit.output.order import ranked_tools
from toolaudit.results.summary import NULL_GROUP, Summary

#: Groups shown side by side; more would not fit a screen (the biggest are kept).
MAX_GROUP_COLUMNS = 12

_NONE = f'<span class="zero">{p.DASH}</span>'
_NOT_CALLED = f'<span class="zero" title="not called">{p.DASH}</span>'


def groups(summary: Summary) -> str:
    """The groups side by side: their totals, then error rate per tool and errors per kind."""
    if not summary.group_by:
        return ""
    fields = ", ".join(p.esc(field) for field in summary.group_by)
    # Biggest first, malformed records included, since the columns show them (the table
    # and Markdown rank by calls alone: order.ranked_groups).
    ranked = sorted(
        summary.groups.items(),
        key=lambda item: (-(item[1].calls + item[1].malformed_records), item[0]),
    )
    if not ranked:
        return p.section("groups", f"By {fields}", p.note("No groups: nothing was audited."))
    shown = ranked[:MAX_GROUP_COLUMNS]
    more = ""
    if len(ranked) > MAX_GROUP_COLUMNS:
        more = p.note(f"{p.num(len(ranked) - MAX_GROUP_COLUMNS)} smaller groups are not shown.")
    head = [p.th(""), *(p.th(p.name(key, 40), "num group") for key, _ in shown)]
    width = len(shown) + 1
    body = [
        _group_row("calls", [p.num(g.calls) for _, g in shown]),
        _group_row("invalid calls", [p.num(g.invalid) for _, g in shown]),
        _group_row("malformed records", [p.num(g.malformed_records) for _, g in shown]),
        _group_row(
            "<strong>error rate</strong>",
            [f"<strong>{p.pct(g.error_rate)}</strong> {p.meter(g.error_rate)}" for _, g in shown],
            "rate",
        ),
        *_accuracy_rows(summary, shown),
        _subhead("error rate per tool (invalid / calls)", width),
        *_group_tool_rows(summary, shown),
        _subhead("errors per kind (share of the group's calls)", width),
        *_group_kind_rows(summary, shown),
    ]
    return p.section(
        "groups", f"By {fields}", p.table(head, body, "groups"), more, _null_note(summary)
    )


def _null_note(summary: Summary) -> str:
    """The null group surprises: lines that are not JSON land there, having no fields."""
    if NULL_GROUP not in summary.groups:
        return ""
    return p.note(
        f"<code>{NULL_GROUP}</code>: records without the field, such as lines that are not JSON "
        "(they have no fields to group them by)."
    )


def _group_row(label: str, cells: list[str], css: str = "") -> str:
    return p.tr([p.th(label, "rowhead", "row"), *(p.td(cell, "num") for cell in cells)], css)


def _subhead(text: str, span: int) -> str:
    return f'<tr class="subhead"><th scope="colgroup" colspan="{span}">{text}</th></tr>'


def _accuracy_rows(summary: Summary, shown: list[tuple[str, Summary]]) -> list[str]:
    """With --expected: each group's entries scored and their accuracy."""
    if summary.ground_truth is None:
        return []
    scored, accuracy = [], []
    for _, group in shown:
        section = group.ground_truth
        if section is None or not section.total:
            scored.append(_NONE)
            accuracy.append(_NONE)
            continue
        rate = section.correct / section.total
        scored.append(p.num(section.total))
        accuracy.append(f"<strong>{p.pct(rate)}</strong> {p.meter(rate)}")
    return [
        _group_row("expected entries scored", scored),
        _group_row("<strong>accuracy</strong>", accuracy, "rate"),
    ]


def _group_tool_rows(summary: Summary, shown: list[tuple[str, Summary]]) -> list[str]:
    rows = []
    for tool, _ in ranked_tools(summary.by_tool)[:MAX_TOOL_ROWS]:
        cells = []
        for _, group in shown:
            figures = group.by_tool.get(tool)
            if figures is None or not figures.calls:
                cells.append(_NOT_CALLED)
                continue
            cells.append(
                f'<span class="small">{p.num(figures.invalid)} / {p.num(figures.calls)}</span> '
                f"{p.pct(figures.error_rate)} {p.meter(figures.error_rate)}"
            )
        rows.append(_group_row(p.name(tool, 40), cells))
    return rows


def _group_kind_rows(summary: Summary, shown: list[tuple[str, Summary]]) -> list[str]:
    rows = []
    for kind, css in p.kind_classes(summary.by_kind).items():
        cells = []
        for _, group in shown:
            count = group.by_kind.get(kind, 0)
            share = count / group.calls if group.calls else 0.0
            cells.append(
                f'{p.num(count)} <span class="small">({p.pct(share)})</span>' if count else _NONE
            )
        rows.append(_group_row(p.kind_label(kind, css), cells))
    return rows
