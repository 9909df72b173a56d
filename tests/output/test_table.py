"""The terminal table: a grouped audit shows its groups side by side."""

from __future__ import annotations

from ..conftest import SAMPLE, SAMPLE_SCHEMAS, invoke


def test_grouped_table_shows_the_groups_side_by_side(in_repo):
    table = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model").stdout
    assert "by model" in table
    header = next(line for line in table.splitlines() if line.startswith("error% (calls)"))
    assert "claude-sonnet-4-5" in header and "gpt-4o-mini" in header


def test_the_headline_counts_in_the_singular_when_there_is_one(tmp_path):
    schemas, log = tmp_path / "s.json", tmp_path / "log.jsonl"
    schemas.write_text('{"ping": {}}')
    log.write_text('{"name": "ping"}\n')
    lines = invoke("audit", str(log), "-s", str(schemas)).stdout.splitlines()
    assert lines[0] == "1 line in 1 source (0 blank), 1 record (0 malformed)"
    assert lines[1].startswith("1 call: 1 ok, 0 invalid")
