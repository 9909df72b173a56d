"""Markdown: a summary or a comparison, ready to paste into a pull request or a CI job summary."""

from __future__ import annotations

from typing import Any

from toolaudit.output import conversations as talk
from toolaudit.output import ground_truth as truth
from toolaudit.output.compare_table import (
    accuracy_notes,
    kind_cells,
    p_value,
    tested,
    tool_cells,
    verdict,
)
from toolaudit.output.order import ordered_kinds, ranked_groups, ranked_tools
from toolaudit.output.text import change, percent, printable
from toolaudit.results.conversations import Conversations
from toolaudit.results.ground_truth import GroundTruth
from toolaudit.results.score_compare import AccuracyComparison, AnyComparison
from toolaudit.results.summary import Summary
from toolaudit.values import text_of


def cell(text: str) -> str:
    """Text from a log, safe in a Markdown table cell: escaped, no pipe, no markup."""
    text = printable(text)
    for special in "\\`*_[]<>|":
        text = text.replace(special, "\\" + special)
    return text


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> list[str]:
    """A Markdown table; the columns from ``numeric_from`` on hold figures, aligned right."""
    align = ["---"] * numeric_from + ["---:"] * (len(header) - numeric_from)
    return [_row(header), _row(align), *map(_row, rows)]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_markdown(summary: Summary) -> str:
    """A summary as a Markdown section: the figures, then tables by tool and by group."""
    out = [
        "## toolaudit (deep validation)" if summary.deep else "## toolaudit",
        "",
        f"**{summary.calls:,} calls**: {summary.ok:,} ok, {summary.invalid:,} invalid; "
        f"**error rate {percent(summary.error_rate)}** (invalid calls and malformed records). "
        f"{summary.records:,} records, {summary.malformed_records:,} malformed, "
        f"{summary.records_without_calls:,} without calls.",
    ]
    if summary.streams:
        out[-1] += f" {summary.streams:,} streamed responses reassembled"
        out[-1] += (
            f", {summary.streams_incomplete:,} of them cut." if summary.streams_incomplete else "."
        )
    if summary.calls_in_text:
        out[-1] += (
            f" **{summary.calls_in_text:,} calls found in message text** "
            "(they never reached the tool)."
        )
    if summary.calls_cut_off:
        out[-1] += (
            f" **{summary.calls_cut_off:,} calls of responses that hit their length limit** "
            "(their arguments may be cut off)."
        )
    if not summary.complete:
        out += ["", "**Incomplete:** some input was not read to the end."]
    kinds = ordered_kinds(summary.by_kind)
    head = ["calls", "invalid", "error rate", *kinds]
    if summary.by_tool:
        rows = [
            [cell(name), *_figures(tool.calls, tool.invalid, tool.error_rate, tool.by_kind, kinds)]
            for name, tool in ranked_tools(summary.by_tool)
        ]
        out += ["", *_table(["tool", *head], rows)]
    if summary.group_by:
        out += ["", *_groups(summary, head, kinds)]
    if summary.record_errors:
        parts = ", ".join(
            f"{count:,} `{reason}`" for reason, count in sorted(summary.record_errors.items())
        )
        out += ["", f"Malformed records: {parts}."]
    if summary.ground_truth is not None:
        out += ["", *_ground_truth(summary.ground_truth)]
    if summary.conversations is not None:
        out += ["", *_conversations(summary.conversations)]
        if summary.history_calls is not None:
            out += ["", f"{talk.history_calls_line(summary.history_calls).capitalize()}."]
    return "\n".join(out) + "\n"


def _groups(summary: Summary, head: list[str], kinds: list[str]) -> list[str]:
    """The groups' table; with --expected, each group's entries scored and accuracy too."""
    by = cell(" | ".join(summary.group_by))
    scored = summary.ground_truth is not None
    rows = [
        [
            cell(key),
            *_figures(group.calls, group.invalid, group.error_rate, group.by_kind, kinds),
            *(truth.group_accuracy(group.ground_truth) if scored else []),
        ]
        for key, group in ranked_groups(summary.groups)
    ]
    head = [by, *head, *(["scored", "accuracy"] if scored else [])]
    return [f"### By {by}", "", *_table(head, rows)]


def _ground_truth(section: GroundTruth) -> list[str]:
    """The --expected section: the headline, then where the model fails most."""
    out = [
        "## Ground truth",
        "",
        f"**{truth.headline(section)}.** Outcomes: {truth.outcomes_line(section)}.",
    ]
    categories, more = truth.worst_categories(section)
    if categories:
        rows = [
            [cell(name), f"{t.total:,}", f"{t.correct:,}", truth.rate(t.accuracy())]
            for name, t in categories
        ]
        out += ["", *_table(["category", "entries", "correct", "accuracy"], rows)]
        if more:
            out += ["", f"And {more:,} more categories."]
    tools = truth.worst_tools(section)
    if tools:
        rows = [[cell(name), f"{t.total:,}", *map(truth.rate, _tool_rates(t))] for name, t in tools]
        head = ["tool (lowest accuracy)", "entries", "accuracy", "precision", "recall"]
        out += ["", *_table(head, rows)]
    params = truth.failing_parameters(section)
    if params:
        rows = [
            [
                cell(f.tool),
                cell(f.name),
                f"{f.failures:,}",
                truth.rate(f.accuracy),
                percent(f.share),
            ]
            for f in params
        ]
        head = ["tool", "parameter (most failures)", "failures", "accuracy", "of incorrect"]
        out += ["", *_table(head, rows, numeric_from=2)]
    if section.samples:
        out += ["", "Incorrect entries (sample):", "", *_samples(section.samples)]
    return out


def _samples(samples: list[dict[str, Any]]) -> list[str]:
    with_model = any("model" in row for row in samples)
    rows = [
        [
            cell(text_of(row.get("id", "?"))),
            *([cell(text_of(row.get("model")))] if with_model else []),
            cell(truth.mismatches(row)),
        ]
        for row in samples
    ]
    head = ["id", *(["model"] if with_model else []), "mismatches"]
    return _table(head, rows, numeric_from=len(head))  # no column of figures


def _tool_rates(tally: truth.Entries) -> list[float | None]:
    selection = tally.selection()
    return [tally.accuracy(), selection["precision"], selection["recall"]]


def _figures(
    calls: int, invalid: int, rate: float, by_kind: dict[str, int], kinds: list[str]
) -> list[str]:
    return [f"{calls:,}", f"{invalid:,}", percent(rate), *(f"{by_kind.get(k, 0):,}" for k in kinds)]


def render_comparison_markdown(comparison: AnyComparison) -> str:
    """A comparison as a Markdown section: the verdict, then the changes by tool and kind
    (of summaries), or the accuracies, their pairs and test (of score files)."""
    title = f"## toolaudit compare: {cell(comparison.base_label)} → {cell(comparison.new_label)}"
    if comparison.group is not None:
        title += f" (group {cell(comparison.group)})"
    said = verdict(comparison)
    said = f"**{said}**" if comparison.regressed else said
    if isinstance(comparison, AccuracyComparison):
        return _accuracy_markdown(title, said, comparison)
    overall = comparison.overall
    rates = f"Error rate **{percent(overall.base_rate)} → {percent(overall.new_rate)}**"
    out = [
        title,
        "",
        f"{rates} ({change(overall.change)}; {tested(comparison.overall_test)}). {said}",
    ]
    if not comparison.same_schemas:
        out += ["", "Note: the two summaries were audited against different schemas."]
    tools = [tool_cells(row, cell(row.name)) for row in comparison.by_tool]
    kinds = [kind_cells(row) for row in comparison.by_kind]
    tool_head = ["tool", "base calls", "base error rate", "new calls", "new error rate", "change"]
    kind_head = ["error kind", "base", "per call", "new", "per call", "change"]
    out += ["", *_table(tool_head, tools)]
    out += ["", *_table(kind_head, kinds)]
    return "\n".join(out) + "\n"


def _accuracy_markdown(title: str, said: str, comparison: AccuracyComparison) -> str:
    test = comparison.test
    rates = (
        f"Accuracy **{percent(comparison.base_accuracy)} → {percent(comparison.new_accuracy)}** "
        f"({change(comparison.change)}; 95% CI {change(test.low)} to {change(test.high)}), "
        f"{cell(test.name)}, {p_value(test.p_value)}."
    )
    out = [title, "", f"{rates} {said}"]
    if comparison.paired:
        pairs = comparison.paired
        rows = [
            ["base right", f"{pairs.both_right:,}", f"{pairs.only_base_right:,}"],
            ["base wrong", f"{pairs.only_new_right:,}", f"{pairs.both_wrong:,}"],
        ]
        head = [f"{comparison.base_total:,} shared ids", "new right", "new wrong"]
        out += ["", *_table(head, rows)]
    else:
        out += [
            "",
            f"No shared ids: {comparison.base_total:,} and {comparison.new_total:,} entries "
            "compared as independent samples.",
        ]
    out += [f"\nNote: {note}." for note in accuracy_notes(comparison)]
    return "\n".join(out) + "\n"


def _conversations(section: Conversations) -> list[str]:
    """The conversations' section: the headline, the problems by code and by model, then
    the tools that fail at run time."""
    out = ["## Conversations", "", f"**{talk.headline(section)}.**"]
    problems = talk.problems(section)
    if problems:
        out += ["", *_table(["problem", "count"], [[f"`{c}`", f"{n:,}"] for c, n in problems])]
    models = talk.models_with_problems(section)
    if models:
        rows = [
            [cell(name), f"{histories.checked:,}", f"{histories.with_problems:,}"]
            for name, histories in models
        ]
        out += ["", *_table(["model", "checked", "with problems"], rows)]
    out += ["", f"{talk.results_line(section).capitalize()}."]
    tools = talk.failing_tools(section)
    if tools:
        rows = [[cell(name), *talk.tool_figures(o)] for name, o in tools]
        out += ["", *_table(["tool", *talk.TOOL_HEAD], rows)]
    return out
