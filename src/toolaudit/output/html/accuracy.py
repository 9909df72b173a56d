"""The sections of the page comparing two score files (``toolaudit compare BASE.jsonl
NEW.jsonl``): the verdict, the accuracies with their paired counts, the test."""

from __future__ import annotations

# Modules by their full names: the package's __init__ imports this module (see compare.py).
import toolaudit.output.html.compare as c
import toolaudit.output.html.parts as p
from toolaudit.output.compare_table import accuracy_notes
from toolaudit.results.score_compare import AccuracyComparison


def accuracy_verdict(comparison: AccuracyComparison) -> str:
    """The answer first for two score files: did NEW's accuracy fall, and is it significant."""
    base, new = c.sides(comparison)
    rates = (
        f"{new} {p.pct(comparison.new_accuracy)} against {base} {p.pct(comparison.base_accuracy)}"
    )
    within = f"tolerance {p.tolerance_points(comparison.tolerance)}"
    significance = f"{p.esc(comparison.test.name)}, p = {comparison.test.p_value:.3g}"
    if comparison.regressed:
        return (
            '<div class="verdict bad" role="alert"><div class="word">\u2717 Regressed</div>'
            f"<p>The accuracy fell by {c.magnitude(comparison.change)}: {rates}; "
            f"more than the {within} ({significance}).</p></div>"
        )
    if comparison.change < 0:
        how = f"fell by {c.magnitude(comparison.change)}"
    elif comparison.change > 0:
        how = f"rose by {c.magnitude(comparison.change)}"
    else:
        how = "did not change"
    return (
        '<div class="verdict good"><div class="word">\u2713 Not regressed</div>'
        f"<p>The accuracy {how}: {rates} ({within}; {significance}).</p></div>"
    )


def accuracy_overall(comparison: AccuracyComparison) -> str:
    """The accuracies, the paired counts (or that the samples are unpaired), the test."""
    base_name, new_name = c.sides(comparison)
    head = [p.th(""), p.th(base_name, "num"), p.th(new_name, "num")]
    body = [
        p.tr(
            [
                p.th("<strong>accuracy</strong>", "rowhead", "row"),
                c.rate_cell(comparison.base_accuracy),
                c.rate_cell(comparison.new_accuracy),
            ],
            "rate",
        ),
        _pair_row("correct", comparison.base_correct, comparison.new_correct),
        _pair_row("scored", comparison.base_total, comparison.new_total),
    ]
    parts = [p.table(head, body, "overall")]
    if comparison.paired:
        pairs = comparison.paired
        shared = f"{p.num(pairs.total)} shared ids"
        pair_head = [
            p.th(shared),
            p.th(f"{new_name} right", "num"),
            p.th(f"{new_name} wrong", "num"),
        ]
        pair_rows = [
            _pair_row(f"{base_name} right", pairs.both_right, pairs.only_base_right),
            _pair_row(f"{base_name} wrong", pairs.only_new_right, pairs.both_wrong),
        ]
        parts.append(p.table(pair_head, pair_rows, "overall"))
    else:
        parts.append(p.note("No shared ids: the two files are compared as independent samples."))
    parts.append(c.test_note(comparison.test))
    parts.extend(p.note(p.esc(note) + ".", "note warn") for note in accuracy_notes(comparison))
    return p.section("overall", "Accuracy", *parts)


def _pair_row(label: str, base: int, new: int) -> str:
    return p.tr([p.th(label, "rowhead", "row"), p.td(p.num(base), "num"), p.td(p.num(new), "num")])


def accuracy_sections(comparison: AccuracyComparison) -> list[str]:
    """The page of two score files compared, section by section."""
    return [c.header(comparison), accuracy_verdict(comparison), accuracy_overall(comparison)]
