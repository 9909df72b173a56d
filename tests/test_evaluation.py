"""Offline evaluation: groups, compare, merge, markdown."""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

import toolaudit
from toolaudit.cli import app
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.results.compare import compare
from toolaudit.results.summary import MAX_GROUPS, OTHER, Summary, SummaryError, merge_summaries
from toolaudit.schemas.loading import load_schemas
from toolaudit.sources import Source

from .conftest import REPO, update_golden
from .test_auditor import assert_counts_add_up

GOLDEN = Path(__file__).parent / "golden"
SAMPLE = "sample_logs/calls.jsonl"
SAMPLE_SCHEMAS = "sample_logs/schemas.json"
FIXTURES = REPO / "tests" / "fixtures" / "formats"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def grouped(*fields: str, path: str = SAMPLE) -> Summary:
    return toolaudit.audit([path], SAMPLE_SCHEMAS, group_by=fields).run()


def test_groups_by_model_add_up_to_the_whole(in_repo):
    summary = grouped("model")
    assert set(summary.groups) == {"gpt-4o-mini", "claude-sonnet-4-5", "null"}
    assert_counts_add_up(summary)
    for group in summary.groups.values():
        assert_counts_add_up(group)
    assert sum(g.records for g in summary.groups.values()) == summary.records
    assert sum(g.calls for g in summary.groups.values()) == summary.calls
    assert sum(g.invalid for g in summary.groups.values()) == summary.invalid
    # The lines that are not JSON (no record, no field) fall into the null group.
    assert summary.groups["null"].malformed_records == summary.malformed_records
    gpt, claude = summary.groups["gpt-4o-mini"], summary.groups["claude-sonnet-4-5"]
    assert gpt.error_rate > claude.error_rate  # the sample makes gpt-4o-mini sloppier
    ungrouped = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS).run()
    assert summary.by_tool == ungrouped.by_tool and summary.by_kind == ungrouped.by_kind


def test_group_by_a_dotted_path_and_several_fields(tmp_path):
    log = tmp_path / "log.jsonl"
    records = [
        {"name": "ping", "model": "a", "metadata": {"prompt_version": "v1"}},
        {"name": "ping", "model": "a", "metadata": {"prompt_version": "v2"}},
        {"name": "nope", "model": "b", "metadata": {"prompt_version": 2}},
        {"name": "ping"},
    ]
    log.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    schemas = {"ping": {}}
    summary = toolaudit.audit([str(log)], schemas, group_by=("metadata.prompt_version",)).run()
    assert {k: g.calls for k, g in summary.groups.items()} == {"v1": 1, "v2": 1, "2": 1, "null": 1}
    summary = toolaudit.audit(
        [str(log)], schemas, group_by=("model", "metadata.prompt_version")
    ).run()
    assert set(summary.groups) == {"a | v1", "a | v2", "b | 2", "null | null"}
    assert summary.groups["b | 2"].by_kind == {"unknown_tool": 1}


def test_the_model_a_format_names_is_grouped_without_a_top_level_field():
    summary = toolaudit.audit(
        [str(FIXTURES / "anthropic.jsonl")], str(FIXTURES / "schemas.json"), group_by=("model",)
    ).run()
    assert {k: g.calls for k, g in summary.groups.items()} == {
        "claude-sonnet-4-5": 2,
        "claude-haiku-4-5": 2,
        "null": 0,
    }
    # The errored batch result names no model, nor does the stream event.
    assert (
        summary.groups["null"].records_without_calls,
        summary.groups["null"].malformed_records,
    ) == (1, 1)


def test_groups_are_bounded(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(
        b"".join(
            orjson.dumps({"name": "ping", "id": f"c{i}"}) + b"\n" for i in range(3 * MAX_GROUPS)
        )
    )
    summary = toolaudit.audit([str(log)], {"ping": {}}, group_by=("id",)).run()
    assert len(summary.groups) == MAX_GROUPS + 1 and OTHER in summary.groups
    assert sum(g.calls for g in summary.groups.values()) == 3 * MAX_GROUPS


def test_jobs_give_the_same_grouped_summary(in_repo, monkeypatch):
    from toolaudit.runners import parallel

    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 2048)
    schemas = load_schemas(SAMPLE_SCHEMAS)
    one = Audit([Source(SAMPLE)], schemas, AuditOptions(group_by=("model",))).run()
    from toolaudit.runners import AuditJob, runner_for

    two = runner_for(jobs=2).run(
        AuditJob([Source(SAMPLE)], schemas, AuditOptions(group_by=("model",)))
    )
    assert one.to_dict() == two.to_dict()


# -- merge --------------------------------------------------------------------------------


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
        ({"group_by": ["metadata.run"]}, "different --group-by fields"),
        ({"max_keys": {"tools": 5, "params": 5}}, "different --max-keys limits"),
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
    with pytest.raises(SummaryError, match=words):
        merge_summaries([Summary.from_dict(base), Summary.from_dict(other)])


def test_merge_names_the_file_that_is_not_a_summary(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    result = invoke("merge", str(bad), str(bad))
    assert result.exit_code == 2 and f"{bad}: not a toolaudit summary" in result.stderr


# -- compare -----------------------------------------------------------------------------


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


def test_the_comparison_sorts_tools_by_their_weight_in_the_change():
    base = grouped("model").groups["claude-sonnet-4-5"]
    new = grouped("model").groups["gpt-4o-mini"]
    rows = compare(base, new).by_tool
    weights = [row.new_count / new.calls - row.base_count / base.calls for row in rows]
    assert weights == sorted(weights, reverse=True)


# -- markdown ------------------------------------------------------------------------------


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if update_golden():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed (TOOLAUDIT_UPDATE_GOLDEN=1 rewrites it)"
    )


def test_markdown_golden_files(in_repo, tmp_path, monkeypatch):
    check_golden(
        "sample_grouped.md",
        invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model", "-f", "markdown").stdout,
    )
    invoke(
        "audit",
        SAMPLE,
        "-s",
        SAMPLE_SCHEMAS,
        "-g",
        "model",
        "--summary",
        str(tmp_path / "grouped.json"),
    )
    monkeypatch.chdir(tmp_path)  # so that the labels are the short names people type
    compared = invoke(
        "compare",
        "grouped.json",
        "grouped.json",
        "--base-group",
        "claude-sonnet-4-5",
        "--new-group",
        "gpt-4o-mini",
        "-f",
        "markdown",
    )
    check_golden("sample_compare.md", compared.stdout)


def test_markdown_escapes_names_from_logs():
    from toolaudit.output.markdown import cell

    assert cell("a|b") == "a\\|b"
    assert cell("<script>") == "\\<script\\>"
    assert cell("x\ny") == "x\\\\ny"  # the newline is escaped (printable), then its backslash
    assert "\n" not in cell("x\ny")


def test_grouped_table_shows_the_groups_side_by_side(in_repo):
    table = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model").stdout
    assert "by model" in table
    header = next(line for line in table.splitlines() if line.startswith("error% (calls)"))
    assert "claude-sonnet-4-5" in header and "gpt-4o-mini" in header


def test_stdin_records_can_be_grouped():
    data = b'{"name": "ping", "model": "m"}\n'
    run = Audit(
        [Source("-")],
        load_schemas(str(FIXTURES / "schemas.json")),
        AuditOptions(group_by=("model",)),
        stdin=io.BytesIO(data),
    )
    assert set(run.run().groups) == {"m"}


def test_small_changes_are_not_shown_as_none():
    from toolaudit.output.text import change, points

    assert change(0.0) == "0.0 pp"
    assert change(0.0001) == "+<0.1 pp" and change(-0.0001) == "-<0.1 pp"
    assert (
        change(0.157) == "+15.7 pp" and points(0.157) == "15.7 pp" and points(-0.0001) == "<0.1 pp"
    )


def test_a_tool_called_on_one_side_only_has_no_change_to_compare(in_repo):
    summary = grouped("model")
    comparison = compare(summary.groups["claude-sonnet-4-5"], summary.groups["gpt-4o-mini"])
    only_new = next(row for row in comparison.by_tool if row.name == "browse")
    assert not only_new.comparable and only_new.to_dict()["change"] is None
