"""The merge and compare commands: shard summaries merged into the whole, merges refused when
they cannot add up honestly, and comparisons in both directions, with a tolerance, by group."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolaudit.results.summary import Summary, SummaryError, merge_summaries

from ..conftest import SAMPLE, SAMPLE_SCHEMAS, grouped, invoke


def test_merged_shards_equal_the_whole_groups_included(in_repo, tmp_path):
    lines = Path(SAMPLE).read_bytes().splitlines(keepends=True)
    paths = []
    for number, (start, end) in enumerate([(0, 120), (120, 250), (250, len(lines))]):
        shard = tmp_path / f"shard{number}.jsonl"
        shard.write_bytes(b"".join(lines[start:end]))
        summary_path = tmp_path / f"shard{number}.json"
        invoke(
            "audit", str(shard), "-s", SAMPLE_SCHEMAS, "-g", "model", "--summary", str(summary_path)
        )
        paths.append(str(summary_path))
    merged_path = tmp_path / "merged.json"
    assert invoke("merge", *paths, "-o", str(merged_path)).exit_code == 0
    merged = Summary.from_dict(json.loads(merged_path.read_text()))
    whole = grouped("model")
    assert merged.groups.keys() == whole.groups.keys()
    # Sources, and the sample rows (which name them), differ by construction; all else is equal.
    for summary in (merged, whole, *merged.groups.values(), *whole.groups.values()):
        summary.sources, summary.samples = [], []
    assert merged == whole


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"toolaudit_version": "0.0.1"}, "different toolaudit versions"),
        ({"schemas_digest": "sha256:0000"}, "different schemas"),
        ({"group_by": ["metadata.run"]}, "different --group-by fields (model and metadata.run)"),
        (
            {"max_keys": {"tools": 5, "params": 5}},
            "different --max-keys limits (10000,1000 and 5,5)",
        ),
    ],
)
def test_merge_refuses_what_cannot_be_added_honestly(in_repo, tmp_path, change, words):
    base = grouped("model").to_dict()
    other = {**base, **change}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(base))
    b.write_text(json.dumps(other))
    result = invoke("merge", str(a), str(b))
    assert result.exit_code == 2 and words in result.stderr
    with pytest.raises(SummaryError, match=re.escape(words)):
        merge_summaries([Summary.from_dict(base), Summary.from_dict(other)])


def test_merge_names_the_file_that_is_not_a_summary(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(grouped("model").to_dict()))
    bad.write_text('{"hello": 1}')
    result = invoke("merge", str(good), str(bad))
    assert result.exit_code == 2 and f"{bad}: not a toolaudit summary" in result.stderr


def test_merge_refuses_a_summary_given_twice_and_notes_a_shared_input(in_repo, tmp_path):
    summary = tmp_path / "s.json"
    invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--summary", str(summary))
    twice = invoke("merge", str(summary), str(tmp_path / "." / "s.json"))
    assert twice.exit_code == 2
    assert "given twice: its counts would be added twice" in twice.stderr
    # A copy is another file: merged (it may be a part of the same input audited apart),
    # and said so.
    copy = tmp_path / "copy.json"
    copy.write_bytes(summary.read_bytes())
    merged = invoke("merge", str(summary), str(copy))
    assert merged.exit_code == 0
    assert json.loads(merged.stdout)["calls"] == 2 * 361
    assert f"note: {SAMPLE} is in {summary} and in {copy}: its counts are added" in merged.stderr


def test_compare_warns_of_a_summary_of_an_audit_that_did_not_finish(model_summaries, tmp_path):
    claude, gpt = model_summaries["claude-sonnet-4-5"], model_summaries["gpt-4o-mini"]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({**json.loads(gpt.read_text()), "complete": False}))
    result = invoke("compare", str(claude), str(cut))
    assert f"warning: {cut}: its audit did not read all of its input" in result.stderr
    assert "warning" not in invoke("compare", str(claude), str(gpt)).stderr


@pytest.fixture
def model_summaries(in_repo, tmp_path):
    """The sample split by model into two summaries, as two evaluation runs would give."""
    paths = {}
    for model in ("claude-sonnet-4-5", "gpt-4o-mini"):
        log = tmp_path / f"{model}.jsonl"
        log.write_bytes(
            b"".join(
                line
                for line in Path(SAMPLE).read_bytes().splitlines(keepends=True)
                if model.encode() in line
            )
        )
        paths[model] = tmp_path / f"{model}.json"
        invoke("audit", str(log), "-s", SAMPLE_SCHEMAS, "--summary", str(paths[model]))
    return paths


def test_compare_in_both_directions_and_its_exit_code(model_summaries):
    claude, gpt = str(model_summaries["claude-sonnet-4-5"]), str(model_summaries["gpt-4o-mini"])
    worse = invoke("compare", claude, gpt)
    assert worse.exit_code == 1
    assert "REGRESSED" in worse.stdout
    better = invoke("compare", gpt, claude)
    assert better.exit_code == 0
    assert better.stdout.splitlines()[2].startswith("ok: the error rate changed by -")
    data = json.loads(invoke("compare", claude, gpt, "--format", "json").stdout)
    assert data["regressed"] is True and data["overall"]["change"] > 0.1
    assert {row["name"] for row in data["by_kind"]} >= {"missing", "type", "enum"}


def test_tolerance_lets_a_small_regression_pass(model_summaries):
    claude, gpt = str(model_summaries["claude-sonnet-4-5"]), str(model_summaries["gpt-4o-mini"])
    change = json.loads(invoke("compare", claude, gpt, "-f", "json").stdout)["overall"]["change"]
    assert invoke("compare", claude, gpt, "--tolerance", f"{change + 0.001:.4f}").exit_code == 0
    assert invoke("compare", claude, gpt, "--tolerance", f"{change - 0.001:.4f}").exit_code == 1


def test_compare_groups_of_grouped_summaries(in_repo, tmp_path):
    path = tmp_path / "grouped.json"
    invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model", "--summary", str(path))
    same = invoke("compare", str(path), str(path), "--group", "gpt-4o-mini")
    assert same.exit_code == 0 and "(group gpt-4o-mini)" in same.stdout
    across = invoke(
        "compare",
        str(path),
        str(path),
        "--base-group",
        "claude-sonnet-4-5",
        "--new-group",
        "gpt-4o-mini",
    )
    assert across.exit_code == 1
    missing = invoke("compare", str(path), str(path), "--group", "gpt-5")
    assert missing.exit_code == 2 and "no group 'gpt-5'" in missing.stderr
