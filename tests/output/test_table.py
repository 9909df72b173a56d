"""The terminal table: a grouped audit shows its groups side by side; an audit with
expected calls, its ground truth."""

from __future__ import annotations

from dataclasses import replace

import toolaudit
from toolaudit.output.table import render_table
from toolaudit.results.ground_truth import GroundTruth
from toolaudit.results.score_counts import Skipped
from toolaudit.results.summary import Summary
from toolaudit.truth.match import Score

from ..conftest import REPO, SAMPLE, SAMPLE_SCHEMAS, grouped, invoke
from .scored import scored_summary


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


def test_the_ground_truth_block_shows_its_figures():
    table = render_table(scored_summary())
    block = table[table.index("ground truth:") :]
    lines = block.splitlines()
    assert lines[0] == "ground truth: 3/6 correct (50.0%, 95% CI 18.8-81.2%), macro 41.7%"
    assert lines[1] == (
        "outcomes: 2 correct, 2 incorrect, 1 missed, 1 correct_abstention; "
        "2 records unscored (2 with no expected entry)"
    )
    # Records unscored for want of an id, or repeating one, are told apart.
    section = scored_summary().ground_truth
    assert section is not None
    section.unscored, section.without_id, section.repeated_id = 4, Skipped(2), Skipped(1)
    assert "; 4 records unscored (2 with no id, 1 repeating a scored id, 1 with no " in (
        render_table(replace(scored_summary(), ground_truth=section))
    )
    # Worst first: 0% categories (ties by size, then name) before 66.7% and 100%.
    categories = lines[lines.index("") + 1 :][:5]
    assert [line.split()[0] for line in categories] == [
        "category", "multiple", "parallel", "simple", "irrelevance"
    ]  # fmt: skip
    assert categories[3].split() == ["simple", "3", "2", "66.7%"]
    assert "ping                          1      0.0%          -     0.0%" in lines
    assert any(line.split() == ["get_weather", "5", "40.0%", "100.0%", "80.0%"] for line in lines)
    assert any(line.split() == ["get_weather.city", "1", "60.0%", "50.0%"] for line in lines)
    assert lines[-3:] == [
        "  simple_2: value:city",
        "  parallel_1: missing_call:ping",
        "  multiple_1: missing_call:get_weather",
    ]


def test_the_ground_truth_block_is_all_that_an_ungrouped_table_gains():
    plain = toolaudit.audit([str(REPO / SAMPLE)], str(REPO / SAMPLE_SCHEMAS)).run()
    scored = render_table(scored_summary(plain))
    start = scored.index("ground truth:")
    end = scored.index("  multiple_1: missing_call:get_weather\n") + len(
        "  multiple_1: missing_call:get_weather\n\n"
    )
    assert scored[:start] + scored[end:] == render_table(plain)


def test_groups_gain_their_accuracy_only_with_ground_truth():
    plain = grouped("model")
    assert "accuracy" not in render_table(plain) and "ground truth" not in render_table(plain)
    table = render_table(scored_summary(plain)).splitlines()
    header = next(line for line in table if line.startswith("by model"))
    assert header.split()[-2:] == ["scored", "accuracy"]
    rows = {line.split()[0]: line.split()[-2:] for line in table if line.startswith(("c", "g"))}
    assert rows["claude-sonnet-4-5"] == ["6", "50.0%"] and rows["gpt-4o-mini"] == ["5", "40.0%"]


def test_made_up_names_and_ids_are_shown_escaped():
    section = GroundTruth()
    score = Score("id\x1b[31m", "cat\nx", "incorrect", False, ("value:a\u202eb",), ())
    section.add(score, ["f"], ["f"], row={**score.to_dict(), "model": "m"})
    table = render_table(Summary("0", ground_truth=section))
    assert "\x1b" not in table and "\u202e" not in table
    assert "  id\\x1b[31m: value:a\\u202eb" in table and "cat\\nx" in table
