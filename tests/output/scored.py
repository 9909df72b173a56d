"""A summary with a ground_truth section, for the outputs' tests: six expected entries
scored, three of them right, in four categories."""

from __future__ import annotations

import functools
from dataclasses import replace

from toolaudit.results.ground_truth import GroundTruth
from toolaudit.results.summary import Summary
from toolaudit.truth.match import Score

W = "get_weather"


def _score(id: str, outcome: str, mismatches: tuple[str, ...] = (), city: bool | None = None):
    """An entry of the category its id names, with ``city`` of get_weather (un)matched."""
    right = outcome in ("correct", "correct_abstention")
    params = () if city is None else ((W, "city", city),)
    return Score(id, id.rpartition("_")[0], outcome, right, mismatches, (), None, params)


def _entries() -> list[tuple[Score, list[str], list[str]]]:
    """(score, tools made, tools expected) of each entry."""
    return [
        (_score("simple_1", "correct", city=True), [W], [W]),
        (_score("simple_2", "incorrect", ("value:city",), city=False), [W], [W]),
        (_score("parallel_1", "incorrect", ("missing_call:ping",), city=True), [W], [W, "ping"]),
        (_score("irrelevance_1", "correct_abstention"), [], []),
        (_score("multiple_1", "missed", (f"missing_call:{W}",), city=False), [], [W]),
        (_score("simple_3", "correct", city=True), [W], [W]),
    ]


def section(model: str = "m1", entries: int = 6) -> GroundTruth:
    """The first ``entries`` of the six, as an audit of ``model`` would count them."""
    scored = GroundTruth()
    for score, made, expected in _entries()[:entries]:
        scored.add(score, made, expected, row={**score.to_dict(), "model": model})
    scored.add_unscored(2)
    return scored


def scored_summary(summary: Summary | None = None) -> Summary:
    """``summary`` (an empty one by default) with the section; a grouped summary's groups
    each get one, fewer entries the later their key (6 for the first, then 5, 4...; the
    model their key), and the whole their sum."""
    base = summary if summary is not None else Summary("0")
    if not base.groups:
        return replace(base, ground_truth=section())
    sections = {key: section(key, 6 - i) for i, key in enumerate(sorted(base.groups))}
    groups = {key: replace(group, ground_truth=sections[key]) for key, group in base.groups.items()}
    whole = functools.reduce(GroundTruth.merged, sections.values())
    return replace(base, groups=groups, ground_truth=whole)
