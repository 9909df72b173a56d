"""The terminal table: totals, error rate, a tool-by-error-kind matrix, and groups side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolaudit.output import conversations as talk
from toolaudit.output.order import ordered_kinds, ranked_groups, ranked_tools
from toolaudit.output.text import NAME_WIDTH, grid, percent, printable
from toolaudit.results.conversations import Conversations
from toolaudit.results.summary import Summary
from toolaudit.values import text_of

if TYPE_CHECKING:
    from toolaudit.results.ground_truth import GroundTruth

#: Group labels are column headers side by side, so they are cut shorter than names.
GROUP_LABEL_WIDTH = 24


def render_table(summary: Summary) -> str:
    """A compact, readable account of a summary, for people (not for parsing)."""
    out = [*_headline(summary), ""]
    if summary.by_tool:
        out.extend(_matrix(summary))
        out.append("")
    if summary.ground_truth is not None:
        out.extend(_ground_truth(summary.ground_truth))
        out.append("")
    if summary.conversations is not None:
        out.extend(_conversations(summary.conversations))
        if summary.history_calls is not None:
            out.append(talk.history_calls_line(summary.history_calls))
        out.append("")
    if summary.group_by:
        out.extend(_groups(summary))
        out.append("")
    if summary.record_errors:
        parts = ", ".join(
            f"{count} {reason}" for reason, count in sorted(summary.record_errors.items())
        )
        out.append(f"malformed records: {parts}")
    if summary.folded_tools or summary.folded_params:
        out.append(
            f"folded into <other> (--max-keys): about {summary.folded_tools:,} tool names"
            f" and {summary.folded_params:,} parameter names"
        )
    for source in summary.sources:
        if not source.complete:
            why = printable(source.error or "not read to the end")
            out.append(f"incomplete: {printable(source.path)}: {why}")
    if not summary.complete:
        out.append("the audit is INCOMPLETE: some input was not read to the end")
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def _headline(summary: Summary) -> list[str]:
    sources = len(summary.sources)
    without_calls = (
        f", {summary.records_without_calls:,} without calls"
        if summary.records_without_calls
        else ""
    )
    headline = [
        f"{_counted(summary.lines, 'line')} in {_counted(sources, 'source')}"
        f" ({summary.blank_lines:,} blank), {_counted(summary.records, 'record')}"
        f" ({summary.malformed_records:,} malformed{without_calls})",
        f"{_counted(summary.calls, 'call')}: {summary.ok:,} ok, {summary.invalid:,} invalid"
        f" | error rate {percent(summary.error_rate)} (invalid calls and malformed records)"
        + (" | deep validation" if summary.deep else ""),
    ]
    extra = _streams_and_text(summary)
    if extra:
        headline.append(extra)
    return headline


def _counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _streams_and_text(summary: Summary) -> str:
    """What only some logs have: reassembled streams, calls found in message text."""
    said = []
    if summary.streams:
        cut = f" ({summary.streams_incomplete:,} cut)" if summary.streams_incomplete else ""
        said.append(f"{summary.streams:,} streamed responses reassembled{cut}")
    if summary.calls_in_text:
        said.append(
            f"{summary.calls_in_text:,} calls found in message text (never reached the tool)"
        )
    if summary.calls_cut_off:
        said.append(
            f"{_counted(summary.calls_cut_off, 'call')} of responses that hit their length "
            "limit (arguments may be cut off)"
        )
    return "; ".join(said)


def _matrix(summary: Summary) -> list[str]:
    kinds = ordered_kinds(summary.by_kind)

    def cells(calls: int, ok: int, invalid: int, rate: float, by_kind: dict[str, int]) -> list[str]:
        counts = (f"{by_kind[k]:,}" if by_kind.get(k) else "-" for k in kinds)
        return [f"{calls:,}", f"{ok:,}", f"{invalid:,}", percent(rate), *counts]

    rows = [["tool", "calls", "ok", "invalid", "error%", *kinds]]
    for name, tool in ranked_tools(summary.by_tool):
        figures = cells(tool.calls, tool.ok, tool.invalid, tool.error_rate, tool.by_kind)
        rows.append([printable(name, NAME_WIDTH), *figures])
    # The total row's rate is over calls only: malformed records belong to no tool.
    call_rate = summary.invalid / summary.calls if summary.calls else 0.0
    total = cells(summary.calls, summary.ok, summary.invalid, call_rate, summary.by_kind)
    rows.append(["total", *total])
    return grid(rows)


def _groups(summary: Summary) -> list[str]:
    """The groups side by side: overall, per tool (calls, error%) and per error kind."""
    ranked = ranked_groups(summary.groups)
    labels = [printable(key, GROUP_LABEL_WIDTH) for key, _ in ranked]
    groups = [group for _, group in ranked]
    by = " | ".join(summary.group_by)
    scored = summary.ground_truth is not None
    if scored:
        from toolaudit.output import ground_truth as truth  # (see _ground_truth)
    overall = [
        [f"by {printable(by)}", "records", "calls", "invalid", "error%"]
        + (["scored", "accuracy"] if scored else [])
    ]
    for label, group in zip(labels, groups, strict=True):
        figures = [f"{group.records:,}", f"{group.calls:,}", f"{group.invalid:,}"]
        accuracy = truth.group_accuracy(group.ground_truth) if scored else []
        overall.append([label, *figures, percent(group.error_rate), *accuracy])
    tools = sorted({name for group in groups for name in group.by_tool})
    per_tool = [["error% (calls)", *labels]]
    for name in tools:
        cells = []
        for group in groups:
            tool = group.by_tool.get(name)
            cells.append(f"{percent(tool.error_rate)} ({tool.calls:,})" if tool else "-")
        per_tool.append([printable(name, NAME_WIDTH), *cells])
    per_kind = [["errors", *labels]]
    for kind in ordered_kinds({k for group in groups for k in group.by_kind}):
        per_kind.append([kind, *(f"{group.by_kind.get(kind, 0):,}" for group in groups)])
    return [*grid(overall), "", *grid(per_tool), "", *grid(per_kind)]


def _ground_truth(section: GroundTruth) -> list[str]:
    """The --expected block: the headline and outcomes, then where the model fails most."""
    # Imported here: with it, the truth modules load for every table, and a plain audit's
    # start-up paid for them (tests/cli/test_start_up.py).
    from toolaudit.output import ground_truth as truth

    out = [f"ground truth: {truth.headline(section)}", f"outcomes: {truth.outcomes_line(section)}"]
    categories, more = truth.worst_categories(section)
    if categories:
        rows = [["category", "entries", "correct", "accuracy"]]
        for name, tally in categories:
            figures = [f"{tally.total:,}", f"{tally.correct:,}", truth.rate(tally.accuracy())]
            rows.append([printable(name, NAME_WIDTH), *figures])
        out += ["", *grid(rows)]
        if more:
            out.append(f"... and {more:,} more categories")
    tools = truth.worst_tools(section)
    if tools:
        rows = [["tool (lowest accuracy)", "entries", "accuracy", "precision", "recall"]]
        for name, tally in tools:
            selection = tally.selection()
            figures = [truth.rate(tally.accuracy())]
            figures += [truth.rate(selection["precision"]), truth.rate(selection["recall"])]
            rows.append([printable(name, NAME_WIDTH), f"{tally.total:,}", *figures])
        out += ["", *grid(rows)]
    params = truth.failing_parameters(section)
    if params:
        rows = [["parameter (most failures)", "failures", "accuracy", "of incorrect"]]
        for param in params:
            name = printable(f"{param.tool}.{param.name}", NAME_WIDTH)
            rows.append(
                [name, f"{param.failures:,}", truth.rate(param.accuracy), percent(param.share)]
            )
        out += ["", *grid(rows)]
    samples = section.samples[: truth.MAX_SAMPLES_SHOWN]
    if samples:
        out += ["", "incorrect entries (sample):"]
        for row in samples:
            said = printable(truth.mismatches(row), 200)
            out.append(f"  {printable(text_of(row.get('id', '?')), NAME_WIDTH)}: {said}")
    return out


def _conversations(section: Conversations) -> list[str]:
    """The conversations' block: the headline, the problems by code and by model, then
    the tools that fail at run time."""
    out = [talk.headline(section)]
    problems = talk.problems(section)
    if problems:
        out += ["", *grid([["problem", "count"], *([code, f"{n:,}"] for code, n in problems)])]
    models = talk.models_with_problems(section)
    if models:
        rows = [["model (with problems)", "checked", "with problems"]]
        for name, histories in models:
            figures = [f"{histories.checked:,}", f"{histories.with_problems:,}"]
            rows.append([printable(name, NAME_WIDTH), *figures])
        out += ["", *grid(rows)]
    out += ["", talk.results_line(section)]
    tools = talk.failing_tools(section)
    if tools:
        rows = [["tool (most failures)", *talk.TOOL_HEAD]]
        rows += [[printable(name, NAME_WIDTH), *talk.tool_figures(o)] for name, o in tools]
        out += ["", *grid(rows)]
    return out
