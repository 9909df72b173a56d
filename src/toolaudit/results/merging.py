"""Merging many summaries in order: those of whole inputs or shards as they are, and
those of blocks numbered from 1, whose samples move down by the lines before them.

Two summaries add up by :meth:`~toolaudit.results.summary.Summary.merged`, which
refuses those that cannot be added honestly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace

from toolaudit.errors import SummaryError
from toolaudit.results.summary import Summary

__all__ = ["merge_blocks", "merge_summaries", "renumbered"]


def merge_summaries(summaries: Iterable[Summary]) -> Summary:
    """Merge several summaries in order (see :meth:`Summary.merged`)."""
    iterator = iter(summaries)
    try:
        merged = next(iterator)
    except StopIteration:
        raise SummaryError("nothing to merge") from None
    for summary in iterator:
        merged = merged.merged(summary)
    return merged


def merge_blocks(summaries: Iterable[Summary]) -> Summary:
    """Merge, in input order, the summaries of consecutive blocks whose lines were each
    numbered from 1 (their starting lines unknown when they were audited): the samples
    of each are moved down by the lines its inputs had in the summaries before it.

    An input's lines are found by path, so no two inputs may share one. Summaries
    numbered from their inputs' first lines merge here too, unmoved, when none of
    their paths came before (a file audited whole, among blocks of others).
    """
    before: Counter[str] = Counter()
    placed = []
    for summary in summaries:
        placed.append(renumbered(summary, before))
        for status in summary.sources:
            before[status.path] += status.lines
    return merge_summaries(placed)


def renumbered(summary: Summary, lines_before: Mapping[str, int]) -> Summary:
    """``summary`` with its samples (and its groups') moved ``lines_before[path]`` lines
    down their inputs: that of a block numbered from 1, once the lines before it are
    known (see :func:`merge_blocks`)."""
    moved = [
        {**row, "line": row["line"] + lines_before[row["source"]]}
        if lines_before.get(row["source"])
        else row
        for row in summary.samples
    ]
    groups = {key: renumbered(group, lines_before) for key, group in summary.groups.items()}
    unmoved = all(row is mine for row, mine in zip(moved, summary.samples, strict=True))
    if unmoved and all(groups[key] is summary.groups[key] for key in groups):
        return summary
    return replace(summary, samples=moved, groups=groups)
