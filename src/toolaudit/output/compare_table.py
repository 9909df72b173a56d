"""The terminal view of a comparison: the verdict first, then what changed, worst first."""

from __future__ import annotations

from toolaudit.output.text import NAME_WIDTH, change, grid, percent, points, printable
from toolaudit.results.compare import RateChange
from toolaudit.results.score_compare import AccuracyComparison, AnyComparison
from toolaudit.results.significance import Test


def p_value(p: float) -> str:
    """A p-value as people read it: three significant digits, tiny ones bounded."""
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.3g}"


def tested(test: Test) -> str:
    """A test's figures in one phrase: its name, p, and the interval of the change."""
    return f"{test.name}: {p_value(test.p_value)}; 95% CI {change(test.low)} to {change(test.high)}"


def verdict(comparison: AnyComparison) -> str:
    """One line that says whether NEW is worse than BASE, and by how much."""
    if isinstance(comparison, AccuracyComparison):
        return accuracy_verdict(comparison)
    overall = comparison.overall
    tolerance = points(comparison.tolerance)
    gate = _gate(comparison.fail_on_regression, comparison.overall_test, comparison.alpha)
    if comparison.regressed:
        return (
            f"REGRESSED: the error rate rose by {points(overall.change)} "
            f"(tolerance {tolerance}{gate})"
        )
    return f"ok: the error rate changed by {change(overall.change)} (tolerance {tolerance}{gate})"


def accuracy_verdict(comparison: AccuracyComparison) -> str:
    """The verdict on two score files: the accuracy's change against the tolerance."""
    tolerance = points(comparison.tolerance)
    gate = _gate(comparison.fail_on_regression, comparison.test, comparison.alpha)
    if comparison.regressed:
        fell = points(-comparison.change)
        return f"REGRESSED: the accuracy fell by {fell} (tolerance {tolerance}{gate})"
    return f"ok: the accuracy changed by {change(comparison.change)} (tolerance {tolerance}{gate})"


def _gate(significance: bool, test: Test, alpha: float) -> str:
    """What --fail-on-regression adds to the verdict: whether the change is significant."""
    if not significance:
        return ""
    word = "significant" if test.p_value < alpha else "not significant"
    return f"; {word} at alpha {alpha:g}, {p_value(test.p_value)}"


def accuracy_lines(comparison: AccuracyComparison) -> list[str]:
    """The figures of two score files, one phrase a line: accuracies, pairs, test, notes."""
    on = (
        f"on {comparison.base_total:,} shared ids"
        if comparison.paired
        else f"on {comparison.base_total:,} and {comparison.new_total:,} ids, none shared"
    )
    lines = [
        f"accuracy {percent(comparison.base_accuracy)} -> {percent(comparison.new_accuracy)} "
        f"{on} ({change(comparison.change)})"
    ]
    if comparison.paired:
        pairs = comparison.paired
        lines.append(
            f"pairs: both right {pairs.both_right:,}, only base right "
            f"{pairs.only_base_right:,}, only new right {pairs.only_new_right:,}, "
            f"both wrong {pairs.both_wrong:,}"
        )
    lines.append(tested(comparison.test))
    return lines


def accuracy_notes(comparison: AccuracyComparison) -> list[str]:
    """What limits the verdict: too few ids to detect a drop of the tolerance (a pass
    then says little), ids on one side only."""
    notes = []
    # After a regression was found, that a smaller one could not be is beside the point.
    if comparison.too_few_ids and not comparison.regressed:
        smallest = comparison.smallest_detectable_drop
        least = (
            f"the smallest it could detect is {points(smallest)}"
            if smallest is not None
            else "no drop at all could be significant"
        )
        target = f"a drop of {points(comparison.tolerance)}" if comparison.tolerance else "a drop"
        notes.append(
            f"{comparison.base_total:,} shared ids are too few to detect {target} "
            f"at alpha {comparison.alpha:g} ({least})"
        )
    if comparison.paired and (comparison.only_in_base or comparison.only_in_new):
        notes.append(
            f"{comparison.only_in_base:,} ids only in base and {comparison.only_in_new:,} "
            "only in new are left out of the paired comparison"
        )
    return notes


def row_change(row: RateChange) -> str:
    """The change of one row, or which side alone had calls (no rate to compare)."""
    if not row.base_calls:
        return "only in new"
    if not row.new_calls:
        return "only in base"
    return change(row.change)


def render_comparison_table(comparison: AnyComparison) -> str:
    """A comparison for people: the two sides, the verdict, then the changes by tool and
    kind (of summaries), or the accuracies and their test (of score files)."""
    heading = f"{printable(comparison.base_label)} -> {printable(comparison.new_label)}"
    if comparison.group is not None:
        heading += f" (group {printable(comparison.group)})"
    if isinstance(comparison, AccuracyComparison):
        notes = [f"note: {note}" for note in accuracy_notes(comparison)]
        lines = [heading, *accuracy_lines(comparison), verdict(comparison), *notes]
        return "\n".join(lines) + "\n"
    overall = comparison.overall
    out = [
        heading,
        f"error rate {percent(overall.base_rate)} -> {percent(overall.new_rate)}"
        f" ({overall.base_calls:,} -> {overall.new_calls:,} calls and malformed records)",
        verdict(comparison),
        tested(comparison.overall_test),
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
