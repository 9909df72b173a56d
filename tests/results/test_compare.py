"""Comparing two summaries: tools sorted by their weight in the change, and a tool called on one
side only has no change to compare."""

from __future__ import annotations

from toolaudit.results.compare import compare

from ..conftest import grouped


def test_the_comparison_sorts_tools_by_their_weight_in_the_change():
    base = grouped("model").groups["claude-sonnet-4-5"]
    new = grouped("model").groups["gpt-4o-mini"]
    rows = compare(base, new).by_tool
    weights = [row.new_count / new.calls - row.base_count / base.calls for row in rows]
    assert weights == sorted(weights, reverse=True)


def test_a_tool_called_on_one_side_only_has_no_change_to_compare(in_repo):
    summary = grouped("model")
    comparison = compare(summary.groups["claude-sonnet-4-5"], summary.groups["gpt-4o-mini"])
    only_new = next(row for row in comparison.by_tool if row.name == "browse")
    assert not only_new.comparable and only_new.to_dict()["change"] is None
