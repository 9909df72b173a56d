"""The merge and compare commands: shard summaries merged into the whole, merges refused when
they cannot add up honestly, and comparisons in both directions, with a tolerance, by group."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolaudit.errors import SummaryError
from toolaudit.results.merging import merge_summaries
from toolaudit.results.summary import Summary

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


def write_scores(path: Path, verdicts: dict[str, bool], model: str = "m") -> str:
    """A score file as --scores writes it (only the fields compare reads matter)."""
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": id,
                    "category": "simple",
                    "model": model,
                    "outcome": "correct" if right else "incorrect",
                    "correct": right,
                    "mismatches": [] if right else ["value:x"],
                    "pairing": [[0, 0]],
                }
            )
            + "\n"
            for id, right in verdicts.items()
        )
    )
    return str(path)


@pytest.fixture
def score_files(tmp_path):
    """BASE right on 80 of 100 ids; NEW loses 3 of them (noise) or 12 (a real drop)."""
    base = {f"simple_{i}": i < 80 for i in range(100)}
    noise = {**base, **{f"simple_{i}": False for i in range(3)}}
    drop = {**base, **{f"simple_{i}": False for i in range(12)}}
    return {
        name: write_scores(tmp_path / f"{name}.jsonl", verdicts)
        for name, verdicts in (("base", base), ("noise", noise), ("drop", drop))
    }


def test_compare_score_files_pairs_them(score_files):
    result = invoke("compare", score_files["base"], score_files["drop"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[1] == "accuracy 80.0% -> 68.0% on 100 shared ids (-12.0 pp)"
    assert lines[2] == ("pairs: both right 68, only base right 12, only new right 0, both wrong 20")
    assert lines[3].startswith("exact McNemar: p = 0.000488; 95% CI -")
    assert lines[4] == "REGRESSED: the accuracy fell by 12.0 pp (tolerance 0.0 pp)"
    data = json.loads(
        invoke("compare", score_files["base"], score_files["drop"], "-f", "json").stdout
    )
    assert data["kind"] == "accuracy" and data["paired"] is True
    assert data["pairs"] == {
        "both_right": 68, "only_base_right": 12, "only_new_right": 0, "both_wrong": 20
    }  # fmt: skip
    assert data["p_value"] == 2 / 2**12


def test_fail_on_regression_passes_noise_and_fails_a_real_drop(score_files):
    base, noise, drop = score_files["base"], score_files["noise"], score_files["drop"]
    assert invoke("compare", base, noise).exit_code == 1  # the point estimate alone
    gated = invoke("compare", base, noise, "--fail-on-regression")
    assert gated.exit_code == 0
    assert "not significant at alpha 0.05, p = 0.25" in gated.stdout
    assert invoke("compare", base, drop, "--fail-on-regression").exit_code == 1
    # A stricter alpha than the drop's p lets it pass.
    assert invoke("compare", base, drop, "--fail-on-regression", "--alpha", "0.0001").exit_code == 0


def test_compare_says_when_the_ids_are_too_few(score_files):
    result = invoke(
        "compare",
        score_files["base"],
        score_files["noise"],
        "--fail-on-regression",
        "--tolerance",
        "0.05",
    )
    assert result.exit_code == 0
    assert (
        "note: 100 shared ids are too few to detect a drop of 5.0 pp at alpha 0.05 "
        "(the smallest it could detect is 6.0 pp)"
    ) in result.stdout


def test_compare_score_files_without_shared_ids_is_unpaired(tmp_path):
    base = write_scores(tmp_path / "a.jsonl", {f"a{i}": i < 9 for i in range(10)})
    new = write_scores(tmp_path / "b.jsonl", {f"b{i}": i < 3 for i in range(10)})
    result = invoke("compare", base, new)
    assert "on 10 and 10 ids, none shared" in result.stdout
    assert "two-proportion z-test (unpaired): p = " in result.stdout
    markdown = invoke("compare", base, new, "-f", "markdown").stdout
    assert "compared as independent samples" in markdown


def test_compare_score_files_by_model_and_refuses_mixed_kinds(in_repo, tmp_path, score_files):
    both = tmp_path / "both.jsonl"
    write_scores(tmp_path / "m1.jsonl", {"x": True, "y": True}, model="m1")
    write_scores(tmp_path / "m2.jsonl", {"x": False, "y": True}, model="m2")
    both.write_text((tmp_path / "m1.jsonl").read_text() + (tmp_path / "m2.jsonl").read_text())
    across = invoke("compare", str(both), str(both), "--base-group", "m1", "--new-group", "m2")
    assert "(group m1 -> m2)" in across.stdout and "only base right 1" in across.stdout
    twice = invoke("compare", str(both), str(both))
    assert twice.exit_code == 2 and "id 'x' is scored twice" in twice.stderr
    summary = tmp_path / "summary.json"
    invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--summary", str(summary))
    mixed = invoke("compare", score_files["base"], str(summary))
    assert mixed.exit_code == 2
    assert "is a score file and" in mixed.stderr and "is a summary" in mixed.stderr


def test_compare_score_files_writes_a_page(score_files, tmp_path):
    page = tmp_path / "page.html"
    invoke("compare", score_files["base"], score_files["drop"], "--html", str(page))
    text = page.read_text()
    assert "Regressed" in text and "exact McNemar" in text and "100 shared ids" in text


def test_summary_fail_on_regression_uses_the_two_proportion_test(model_summaries):
    claude, gpt = str(model_summaries["claude-sonnet-4-5"]), str(model_summaries["gpt-4o-mini"])
    result = invoke("compare", claude, gpt, "--fail-on-regression")
    assert result.exit_code == 1 and "significant at alpha 0.05, p < 0.0001" in result.stdout
    assert "two-proportion z-test (unpaired): p < 0.0001" in result.stdout
    data = json.loads(invoke("compare", claude, gpt, "-f", "json").stdout)
    assert data["overall"]["p_value"] < 0.0001 and data["fail_on_regression"] is False
