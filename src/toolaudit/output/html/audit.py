"""The sections of the audit page, one function each, in page order.

The groups side by side are in :mod:`~toolaudit.output.html.groups`.

Each takes the :class:`~toolaudit.results.summary.Summary` and returns a string of
HTML built from :mod:`~toolaudit.output.html.parts`, so every log-borne string
is escaped in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The module by its full name: `from toolaudit.output.html import parts` would depend on
# the package, whose __init__ imports this module (a cycle).
import toolaudit.output.html.parts as p
from toolaudit.output.order import ranked_tools
from toolaudit.results.summary import Summary
from toolaudit.results.tool_summary import ToolSummary

#: Tool rows shown; the rest are added up into one "more tools" row, so totals still add up.
MAX_TOOL_ROWS = 100
#: Failing (tool, parameter, kind) combinations shown.
MAX_PARAM_ROWS = 15

#: Sources named in the header.
MAX_HEADER_SOURCES = 3
#: Incomplete sources listed in the warning.
MAX_SOURCE_ROWS = 20


def header(summary: Summary) -> str:
    sources = summary.sources
    where = ", ".join(f"<code>{p.name(s.path, 120)}</code>" for s in sources[:MAX_HEADER_SOURCES])
    if len(sources) > MAX_HEADER_SOURCES:
        more = p.num(len(sources) - MAX_HEADER_SOURCES)
        where = f"{p.num(len(sources))} sources: {where} and {more} more"
    grouped = ""
    if summary.group_by:
        fields = ", ".join(f"<code>{p.esc(field)}</code>" for field in summary.group_by)
        grouped = f" \u00b7 grouped by {fields}"
    return f'<header><h1>Tool-call audit</h1><p class="sub">{where}{grouped}</p></header>'


def status(summary: Summary) -> str:
    """Whether the figures cover every input: an incomplete audit must not pass for a clean one."""
    if summary.complete:
        count = len(summary.sources)
        every = "the input was" if count == 1 else f"all {p.num(count)} inputs were"
        return p.note(f"\u2713 Complete: {every} read to the end.", "status good")
    broken = [s for s in summary.sources if not s.complete or s.error]
    items = "".join(
        f"<li><code>{p.name(s.path, 120)}</code> (read {p.num(s.lines)} lines): "
        f"{p.esc(s.error or 'not read to the end')}</li>"
        for s in broken[:MAX_SOURCE_ROWS]
    )
    more = (
        f"<li>and {p.num(len(broken) - MAX_SOURCE_ROWS)} more</li>"
        if len(broken) > MAX_SOURCE_ROWS
        else ""
    )
    return (
        '<div class="status bad" role="alert"><p><strong>\u26a0 Incomplete audit:</strong> '
        "some input was not read to the end, so these figures cover only what was read.</p>"
        f"<ul>{items}{more}</ul></div>"
    )


def headline(summary: Summary) -> str:
    failed = summary.invalid + summary.malformed_records
    audited = summary.calls + summary.malformed_records
    cards = [
        card("calls", p.num(summary.calls)),
        card("ok", p.num(summary.ok)),
        card("invalid", p.num(summary.invalid)),
        card(
            "error rate",
            p.pct(summary.error_rate),
            f"{p.num(failed)} failed of {p.num(audited)}: invalid calls and malformed records "
            "(a malformed record counts as a failure)",
            "main",
        ),
    ]
    return (
        f'<section id="headline"><div class="cards">{"".join(cards)}</div>'
        f"{_facts(summary)}</section>"
    )


def card(label: str, value: str, explain: str = "", css_class: str = "") -> str:
    """A figure in a box; ``label``, ``value`` and ``explain`` are markup, already escaped."""
    small = f'<div class="explain">{explain}</div>' if explain else ""
    klass = f"card {css_class}".strip()
    return (
        f'<div class="{klass}"><div class="label">{label}</div>'
        f'<div class="value">{value}</div>{small}</div>'
    )


def _facts(summary: Summary) -> str:
    """What was read: lines, records, and what became of the records that held no call."""
    reasons = ", ".join(
        f"{p.num(count)} <code>{p.esc(reason)}</code>"
        for reason, count in sorted(summary.record_errors.items())
    )
    malformed = p.num(summary.malformed_records) + (f" ({reasons})" if reasons else "")
    facts = [
        ("lines", f"{p.num(summary.lines)} ({p.num(summary.blank_lines)} blank)"),
        ("records", p.num(summary.records)),
        ("malformed records", malformed),
        ("records without calls", p.num(summary.records_without_calls)),
    ]
    if summary.streams:
        cut = summary.streams_incomplete
        facts.append(
            ("streamed responses", p.num(summary.streams) + (f" ({p.num(cut)} cut)" if cut else ""))
        )
    if summary.calls_in_text:
        facts.append(("calls found in text", p.num(summary.calls_in_text)))
    if summary.calls_cut_off:
        facts.append(
            ("calls of responses cut off at their length limit", p.num(summary.calls_cut_off))
        )
    items = "".join(f"<div><dt>{label}</dt><dd>{value}</dd></div>" for label, value in facts)
    return f'<dl class="facts">{items}</dl>'


def tools(summary: Summary) -> str:
    if not summary.by_tool:
        return p.section("tools", "Errors by tool", p.note("No tool calls in the input."))
    kinds = p.kind_classes(summary.by_kind)
    rows = ranked_tools(summary.by_tool)
    shown = [(p.name(tool), figures, "") for tool, figures in rows[:MAX_TOOL_ROWS]]
    if len(rows) > MAX_TOOL_ROWS:
        rest = ToolSummary()
        for _, figures in rows[MAX_TOOL_ROWS:]:
            rest = rest.merged(figures)
        shown.append((f"{p.num(len(rows) - MAX_TOOL_ROWS)} more tools", rest, "more"))
    scale = max(sum(figures.by_kind.values()) for _, figures, _ in shown) or 1
    head = [
        p.th("tool"),
        *(p.th(h, "num") for h in ("calls", "ok", "invalid", "error rate")),
        p.th("errors by kind"),
        *(p.th(p.kind_label(kind, css), "num") for kind, css in kinds.items()),
    ]
    body = [_tool_row(label, figures, kinds, scale, css) for label, figures, css in shown]
    body.append(_total_row(summary, kinds))
    return p.section(
        "tools",
        "Errors by tool",
        p.note(
            "A call can have several errors, so a bar (errors by kind, to one scale) may hold "
            "more errors than the row has invalid calls. Error rate: invalid calls over calls."
        ),
        p.table(head, body, "matrix"),
        _unattributed(summary),
    )


def _tool_row(
    label: str, figures: ToolSummary, kinds: Mapping[str, str], scale: int, css: str
) -> str:
    words = ", ".join(
        f"{p.num(figures.by_kind[k])} {p.esc(k)}" for k in kinds if figures.by_kind.get(k)
    )
    return p.tr(
        [
            p.td(label, "name"),
            p.td(p.num(figures.calls), "num"),
            p.td(p.num(figures.ok), "num"),
            p.td(p.num(figures.invalid), "num"),
            p.td(f"{p.pct(figures.error_rate)} {p.meter(figures.error_rate)}", "num"),
            p.td(p.stacked_bar(figures.by_kind, kinds, scale, words or "no errors"), "barcell"),
            *(_count_cell(figures.by_kind.get(kind, 0)) for kind in kinds),
        ],
        css,
    )


def _count_cell(count: int) -> str:
    return p.td(p.num(count), "num") if count else p.td(p.DASH, "num zero")


def _total_row(summary: Summary, kinds: Mapping[str, str]) -> str:
    rate = summary.invalid / summary.calls if summary.calls else 0.0
    return p.tr(
        [
            p.td("total", "name"),
            p.td(p.num(summary.calls), "num"),
            p.td(p.num(summary.ok), "num"),
            p.td(p.num(summary.invalid), "num"),
            p.td(
                p.pct(rate),
                "num",
                "invalid calls over calls: malformed records are not in this table",
            ),
            p.td(""),
            *(_count_cell(summary.by_kind.get(kind, 0)) for kind in kinds),
        ],
        "total",
    )


def _unattributed(summary: Summary) -> str:
    """Malformed records belong to no tool; say where they went, since the headline counts them."""
    if not summary.malformed_records:
        return ""
    return p.note(
        f"Not in this table: {p.num(summary.malformed_records)} malformed record"
        f"{'s' if summary.malformed_records != 1 else ''}, which held no readable call. "
        f"The headline error rate ({p.pct(summary.error_rate)}) counts them as failures; "
        "the total row above counts calls only."
    )


def params(summary: Summary) -> str:
    """The parameters that fail most often: where a schema or a prompt most needs a look."""
    counted = [
        (count, tool, param, kind)
        for tool, figures in summary.by_tool.items()
        for param, kinds in figures.by_param.items()
        for kind, count in kinds.items()
        if count
    ]
    if not counted:
        return p.section(
            "params", "Most frequent failing parameters", p.note("No parameter failed.")
        )
    counted.sort(key=lambda entry: (-entry[0], entry[1], entry[2], entry[3]))
    top = counted[:MAX_PARAM_ROWS]
    classes = p.kind_classes(kind for *_, kind in counted)
    scale = top[0][0]
    body = [
        p.tr(
            [
                p.td(p.name(tool, 40), "name"),
                p.td(f"<code>{p.name(param, 40)}</code>", "name"),
                p.td(p.kind_label(kind, classes[kind]), "kind"),
                p.td(p.num(count), "num"),
                p.td(
                    p.stacked_bar({kind: count}, classes, scale, f"{p.num(count)} {p.esc(kind)}"),
                    "barcell small-bar",
                ),
            ]
        )
        for count, tool, param, kind in top
    ]
    head = [p.th("tool"), p.th("parameter"), p.th("kind"), p.th("count", "num"), p.th("")]
    shown = (
        f"the top {p.num(len(top))} of {p.num(len(counted))}" if len(counted) > len(top) else "all"
    )
    return p.section(
        "params",
        "Most frequent failing parameters",
        p.note(
            f"(tool, parameter, error kind) by count: {shown}. "
            "Unknown tools and malformed calls have no parameter."
        ),
        p.table(head, body, "params"),
    )


def samples(summary: Summary) -> str:
    rows = summary.samples
    if not rows:
        text = (
            "No failing calls."
            if summary.all_valid
            else "This summary kept no sample of failing calls."
        )
        return p.section("samples", "Sample of failing calls", p.note(text))
    with_model = any("model" in row for row in rows)
    head = [
        p.th("where"),
        p.th("index", "num"),
        p.th("id"),
        p.th("tool"),
        *([p.th("model")] if with_model else []),
        p.th("errors"),
        p.th("detail"),
    ]
    body = [_sample_row(row, with_model) for row in rows]
    return p.section(
        "samples",
        "Sample of failing calls",
        p.note(
            f"The first {p.num(len(rows))} failing report rows, "
            "in input order (<code>source:line</code>)."
        ),
        p.table(head, body, "samples"),
    )


def _sample_row(row: Mapping[str, Any], with_model: bool) -> str:
    errors = row.get("errors") or []
    if isinstance(errors, str):
        errors = [errors]
    where = f"{p.name(row.get('source', '?'), 60)}:{p.esc(row.get('line', '?'))}"
    return p.tr(
        [
            p.td(f"<code>{where}</code>", "where"),
            p.td(_optional(row.get("index")), "num"),
            p.td(
                f"<code>{p.name(row['id'], 40)}</code>" if row.get("id") is not None else p.DASH,
                "name",
            ),
            p.td(p.name(row["tool"], 40) if row.get("tool") is not None else p.DASH, "name"),
            *([p.td(_optional(row.get("model")), "name")] if with_model else []),
            p.td("<br>".join(_error_with_reason(error, row) for error in errors)),
            p.td(p.name(row["detail"], 300) if row.get("detail") else "", "detail"),
        ]
    )


def _error_with_reason(error: object, row: Mapping[str, Any]) -> str:
    """An error and, after it, its reason (the row's ``why``), unless the row's
    detail already says the same."""
    code = f'<code class="err">{p.name(error, p.NAME_WIDTH)}</code>'
    why = row.get("why")
    reason = why.get(error) if isinstance(why, Mapping) and isinstance(error, str) else None
    if not isinstance(reason, str) or reason == row.get("detail"):
        return code
    return f'{code} <span class="why">{p.name(reason, 300)}</span>'


def _optional(value: object) -> str:
    return p.DASH if value is None else p.name(value, 40)


def footer(summary: Summary) -> str:
    parts = [f"toolaudit {p.esc(summary.toolaudit_version)}"]
    parts.append(
        f"schemas <code>{p.esc(summary.schemas_digest)}</code>"
        if summary.schemas_digest
        else "no schemas file"
    )
    folded = summary.folded_tools + summary.folded_params
    if folded:
        parts.append(
            f"about {p.num(summary.folded_tools)} tool and "
            f"{p.num(summary.folded_params)} parameter names "
            "folded into <code>&lt;other&gt;</code> (--max-keys)"
        )
    return " \u00b7 ".join(parts)
