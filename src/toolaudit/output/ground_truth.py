"""What every output shows of a summary's ``ground_truth`` section, in one order: the
headline, the outcomes, the worst categories and tools, the parameters that fail most, and
the sample incorrect entries. The table, Markdown and HTML outputs lay these out; the
figures and their order are decided here once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolaudit.output.text import percent
from toolaudit.results.ground_truth import OUTCOMES, GroundTruth
from toolaudit.results.score_counts import EntryTally as Entries
from toolaudit.results.significance import wilson_interval

#: Categories listed, worst first; the rest are counted in one line.
MAX_CATEGORIES = 10
#: Tools listed, lowest accuracy first.
MAX_TOOLS = 5
#: Parameters listed, most failures first.
MAX_PARAMETERS = 5
#: Sample incorrect entries shown by the terminal table (the section keeps up to 5).
MAX_SAMPLES_SHOWN = 3


@dataclass(frozen=True)
class FailingParameter:
    """One parameter of one tool, with the figures the outputs show."""

    tool: str
    name: str
    failures: int
    accuracy: float | None
    #: Its failures over every ``incorrect`` entry.
    share: float


def headline(section: GroundTruth) -> str:
    """``812/1000 correct (81.2%, 95% CI 78.7-83.5%), macro 79.0%``: the answer first."""
    total, correct = section.total, section.correct
    said = f"{correct:,}/{total:,} correct"
    if not total:
        return said
    low, high = wilson_interval(correct, total)
    said += f" ({percent(correct / total)}, 95% CI {low * 100:.1f}-{high * 100:.1f}%)"
    macro = section.macro_accuracy()
    return said + (f", macro {percent(macro)}" if macro is not None else "")


def outcome_counts(section: GroundTruth) -> list[tuple[str, int]]:
    """The outcomes that occurred, in the summary's order (any unknown one after, by name)."""
    known = [(outcome, section.outcomes.get(outcome, 0)) for outcome in OUTCOMES]
    others = sorted((o, n) for o, n in section.outcomes.items() if o not in OUTCOMES)
    return [(outcome, count) for outcome, count in [*known, *others] if count]


def outcomes_line(section: GroundTruth) -> str:
    """``812 correct, 120 incorrect, ...``, and the records no expected entry named."""
    said = ", ".join(f"{count:,} {outcome}" for outcome, count in outcome_counts(section))
    if section.unscored:
        said += f"; {section.unscored:,} records unscored ({unscored_why(section)})"
    return said or "no entry scored"


def unscored_why(section: GroundTruth) -> str:
    """Why records went unscored: ``2 with no id, 1 repeating a scored id, 4 with no
    expected entry`` (the parts that occurred)."""
    no_id, repeated = section.without_id.records, section.repeated_id.records
    parts = [
        (no_id, "with no id"),
        (repeated, "repeating a scored id"),
        (section.unscored - no_id - repeated, "with no expected entry"),
    ]
    return ", ".join(f"{count:,} {why}" for count, why in parts if count)


def worst_categories(
    section: GroundTruth, limit: int = MAX_CATEGORIES
) -> tuple[list[tuple[str, Entries]], int]:
    """The categories with the lowest accuracy first (most entries, then names, break ties),
    at most ``limit``, and how many more there are."""
    ranked = _worst(section.by_category)
    return ranked[:limit], max(0, len(ranked) - limit)


def worst_tools(section: GroundTruth, limit: int = MAX_TOOLS) -> list[tuple[str, Entries]]:
    """The expected tools with the lowest accuracy first; a tool only called, never
    expected, has no accuracy and is left out."""
    return _worst(section.by_tool)[:limit]


def _worst(tallies: Mapping[str, Entries]) -> list[tuple[str, Entries]]:
    measured = [(name, tally) for name, tally in tallies.items() if tally.total]
    return sorted(
        measured, key=lambda item: (item[1].correct / item[1].total, -item[1].total, item[0])
    )


def failing_parameters(section: GroundTruth, limit: int = MAX_PARAMETERS) -> list[FailingParameter]:
    """The parameters in most ``incorrect`` entries' mismatches, most first."""
    incorrect = section.outcomes.get("incorrect", 0)
    failing = [
        FailingParameter(
            tool,
            name,
            figures.failures,
            figures.matched / figures.expected if figures.expected else None,
            figures.failures / incorrect if incorrect else 0.0,
        )
        for tool, names in section.by_parameter.items()
        for name, figures in names.items()
        if figures.failures
    ]
    failing.sort(key=lambda param: (-param.failures, param.tool, param.name))
    return failing[:limit]


def mismatches(row: Mapping[str, Any]) -> str:
    """What went wrong with a sample entry: its mismatches, or its outcome when it has
    none (``missed`` of an ``any`` entry, ``no_record``...)."""
    found = row.get("mismatches")
    if isinstance(found, list) and found:
        return ", ".join(str(mismatch) for mismatch in found)
    return str(row.get("outcome", "?"))


def group_accuracy(section: GroundTruth | None) -> list[str]:
    """A group's cells in a table of groups: the entries scored and their accuracy."""
    if section is None or not section.total:
        return ["-", "-"]
    return [f"{section.total:,}", percent(section.correct / section.total)]


def rate(value: float | None) -> str:
    """An accuracy or share as the outputs print it; ``-`` when there is nothing to measure."""
    return "-" if value is None else percent(value)
