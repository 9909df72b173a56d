"""Comparing two summaries: tools sorted by their weight in the change, a tool called on one
side only has no change to compare, and the tolerance is checked as the CLI checks it."""

from __future__ import annotations

import pytest

from toolaudit.errors import OptionError
from toolaudit.results.compare import compare
from toolaudit.results.summary import Summary

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


@pytest.mark.parametrize("tolerance", [-0.1, 1.5, float("nan"), True, "0.1"])
def test_a_tolerance_outside_0_to_1_is_refused_as_the_cli_refuses_it(tolerance):
    summary = Summary("0")
    with pytest.raises(OptionError, match="tolerance must be a rate from 0 to 1"):
        compare(summary, summary, tolerance=tolerance)
    assert compare(summary, summary, tolerance=0.5).regressed is False
