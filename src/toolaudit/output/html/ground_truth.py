"""The ground-truth section of the audit page (``--expected``): the accuracy first, the
outcomes, accuracy per category and per tool, the parameters that fail most, and the sample
incorrect entries. What is shown, and in which order, is decided in
:mod:`toolaudit.output.ground_truth`, as for the table and Markdown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Modules by their full names: the package's __init__ imports this module (see audit.py).
import toolaudit.output.html.parts as p
from toolaudit.output import ground_truth as truth
from toolaudit.output.html.audit import MAX_PARAM_ROWS, card
from toolaudit.results.ground_truth import GroundTruth
from toolaudit.results.significance import wilson_interval
from toolaudit.results.summary import Summary

#: Category and tool rows shown, the lowest accuracy first.
MAX_ACCURACY_ROWS = 50


def ground_truth(summary: Summary) -> str:
    """The section, or nothing for an audit without expected calls."""
    section = summary.ground_truth
    if section is None:
        return ""
    return p.section(
        "ground-truth",
        "Ground truth: did the model call the right tool?",
        _headline(section),
        _outcomes(section),
        _categories(section),
        _tools(section),
        _parameters(section),
        _samples(section.samples),
    )


def _headline(section: GroundTruth) -> str:
    total, correct = section.total, section.correct
    if total:
        low, high = wilson_interval(correct, total)
        macro = section.macro_accuracy()
        explain = f"95% CI {p.pct(low)} to {p.pct(high)}" + (
            f"; macro (mean of the categories) {p.pct(macro)}" if macro is not None else ""
        )
        accuracy = card("accuracy", p.pct(correct / total), explain, "main")
    else:
        accuracy = card("accuracy", p.DASH, "no expected entry was scored", "main")
    cards = [card("entries scored", p.num(total)), card("correct", p.num(correct)), accuracy]
    return f'<div class="cards">{"".join(cards)}</div>'


def _outcomes(section: GroundTruth) -> str:
    facts = [(p.esc(outcome), p.num(count)) for outcome, count in truth.outcome_counts(section)]
    if section.unscored:
        facts.append((f"records unscored ({truth.unscored_why(section)})", p.num(section.unscored)))
    items = "".join(
        f"<div><dt><code>{label}</code></dt><dd>{value}</dd></div>" for label, value in facts
    )
    return f'<dl class="facts">{items}</dl>'


def _accuracy(tally: truth.Entries) -> str:
    accuracy = tally.accuracy()
    if accuracy is None:
        return p.td(p.DASH, "num zero")
    return p.td(f"{p.pct(accuracy)} {p.meter(accuracy)}", "num")


def _rate(value: float | None) -> str:
    return p.td(p.DASH, "num zero") if value is None else p.td(p.pct(value), "num")


def _categories(section: GroundTruth) -> str:
    rows, more = truth.worst_categories(section, MAX_ACCURACY_ROWS)
    if not rows:
        return ""
    head = [p.th("category"), *(p.th(h, "num") for h in ("entries", "correct", "accuracy"))]
    body = [
        p.tr(
            [
                p.td(p.name(name, 40), "name"),
                p.td(p.num(tally.total), "num"),
                p.td(p.num(tally.correct), "num"),
                _accuracy(tally),
            ]
        )
        for name, tally in rows
    ]
    left = p.note(f"{p.num(more)} more categories are not shown.") if more else ""
    return "<h3>Accuracy by category, lowest first</h3>" + p.table(head, body) + left


def _tools(section: GroundTruth) -> str:
    rows = truth.worst_tools(section, MAX_ACCURACY_ROWS)
    if not rows:
        return ""
    figures = ("entries", "accuracy", "calls made", "expected", "precision", "recall")
    head = [p.th("tool"), *(p.th(h, "num") for h in figures)]
    body = []
    for name, tally in rows:
        selection = tally.selection()
        cells = [p.td(p.num(tally.total), "num"), _accuracy(tally)]
        cells += [p.td(p.num(tally.made), "num"), p.td(p.num(tally.expected), "num")]
        cells += [_rate(selection["precision"]), _rate(selection["recall"])]
        body.append(p.tr([p.td(p.name(name, 40), "name"), *cells]))
    return (
        "<h3>Accuracy by expected tool, lowest first</h3>"
        + p.note(
            "Entries: those that expect the tool. Precision: its calls that were expected; "
            "recall: its expected calls that were made."
        )
        + p.table(head, body)
    )


def _parameters(section: GroundTruth) -> str:
    rows = truth.failing_parameters(section, MAX_PARAM_ROWS)
    if not rows:
        return ""
    head = [p.th("tool"), p.th("parameter")]
    head += [p.th(h, "num") for h in ("failures", "accuracy", "share of incorrect entries")]
    body = [
        p.tr(
            [
                p.td(p.name(param.tool, 40), "name"),
                p.td(f"<code>{p.name(param.name, 40)}</code>", "name"),
                p.td(p.num(param.failures), "num"),
                _rate(param.accuracy),
                p.td(p.pct(param.share), "num"),
            ]
        )
        for param in rows
    ]
    return "<h3>Parameters that fail most</h3>" + p.table(head, body, "params")


def _samples(samples: list[dict[str, Any]]) -> str:
    if not samples:
        return ""
    with_model = any("model" in row for row in samples)
    head = [p.th("id"), *([p.th("model")] if with_model else []), p.th("outcome")]
    body = [_sample_row(row, with_model) for row in samples]
    return (
        "<h3>Sample of incorrect entries</h3>"
        + p.note(
            f"The first {p.num(len(samples))} incorrect entries, "
            "as their <code>--scores</code> lines have them."
        )
        + p.table([*head, p.th("mismatches")], body, "samples")
    )


def _sample_row(row: Mapping[str, Any], with_model: bool) -> str:
    found = row.get("mismatches")
    mismatches = found if isinstance(found, list) else []
    model = row.get("model")
    return p.tr(
        [
            p.td(f"<code>{p.name(row.get('id', '?'), 40)}</code>", "name"),
            *([p.td(p.DASH if model is None else p.name(model, 40), "name")] if with_model else []),
            p.td(f"<code>{p.esc(row.get('outcome', '?'))}</code>"),
            p.td("<br>".join(f'<code class="err">{p.name(m)}</code>' for m in mismatches)),
        ]
    )
