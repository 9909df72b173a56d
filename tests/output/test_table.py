"""The terminal table: a grouped audit shows its groups side by side."""

from __future__ import annotations

from ..conftest import SAMPLE, SAMPLE_SCHEMAS, invoke


def test_grouped_table_shows_the_groups_side_by_side(in_repo):
    table = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model").stdout
    assert "by model" in table
    header = next(line for line in table.splitlines() if line.startswith("error% (calls)"))
    assert "claude-sonnet-4-5" in header and "gpt-4o-mini" in header
