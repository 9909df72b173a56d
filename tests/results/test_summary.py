"""Summary values: made without changing what they were made from; loaded with located errors;
the summaries of shards merged into the summary of the whole."""

from __future__ import annotations

import itertools
import json

import pytest

import toolaudit
from toolaudit.errors import SummaryError
from toolaudit.output.json import render_json
from toolaudit.results.folding import NO_NAME, OTHER, table_key
from toolaudit.results.merging import merge_summaries
from toolaudit.results.summary import SAMPLE_ROWS, Summary
from toolaudit.results.tally import Tally
from toolaudit.results.tool_summary import ToolSummary

from ..conftest import REPO, SAMPLE, SAMPLE_LOGS, SAMPLE_SCHEMAS, invoke


def test_making_a_summary_leaves_the_callers_tables_and_lists_alone():
    by_tool = {f"t{i}": ToolSummary(calls=1, ok=1) for i in range(10)}
    many_params = ToolSummary(
        calls=1, invalid=1, by_param={f"p{i}": {"type": 1} for i in range(10)}
    )
    by_tool["wide"] = many_params
    samples = [{"line": i} for i in range(SAMPLE_ROWS + 5)]
    summary = Summary("0", by_tool=by_tool, max_tools=3, max_params=3, samples=samples)
    assert len(by_tool) == 11 and len(many_params.by_param) == 10
    assert len(samples) == SAMPLE_ROWS + 5
    assert len(summary.samples) == SAMPLE_ROWS and OTHER in summary.by_tool


def test_real_names_are_never_counted_with_the_buckets():
    tally = Tally(max_tools=100, max_params=100)
    tally.count_one_ok(None)  # a call with no usable name
    tally.count_one_ok("<no name>")  # a tool really called that
    tally.count_problems("<other>", [("type", "<other>")])
    tally.count_ok(["\\<other>", "plain"])
    keys = set(tally.by_tool)
    assert keys == {NO_NAME, "\\<no name>", "\\<other>", "\\\\<other>", "plain"}
    assert tally.by_tool["\\<other>"].by_param == {"\\<other>": {"type": 1}}
    assert (
        len({table_key(n) for n in ("<other>", "\\<other>", "\\\\<other>", None, "<no name>")}) == 5
    )


def test_summary_load_names_the_file(tmp_path):
    good = tmp_path / "summary.json"
    summary = toolaudit.audit(
        [str(SAMPLE_LOGS / "calls.jsonl")], str(SAMPLE_LOGS / "schemas.json")
    ).run()
    good.write_text(render_json(summary))
    assert Summary.load(str(good)) == summary
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(SummaryError, match=r"broken.json: not valid JSON"):
        Summary.load(str(broken))
    other = tmp_path / "other.json"
    other.write_text("{}")
    with pytest.raises(SummaryError, match=r"other.json: not a toolaudit summary"):
        Summary.load(str(other))
    with pytest.raises(SummaryError, match=r"missing.json: cannot read"):
        Summary.load(str(tmp_path / "missing.json"))


def test_shard_summaries_merge_into_the_summary_of_the_whole(in_repo, tmp_path):
    lines = (REPO / SAMPLE).read_bytes().splitlines(keepends=True)
    cuts = [0, 97, 250, len(lines)]
    shards = []
    for number, (start, end) in enumerate(itertools.pairwise(cuts)):
        shard = tmp_path / f"shard{number}.jsonl"
        shard.write_bytes(b"".join(lines[start:end]))
        shards.append(shard)
    summaries = []
    for shard in [*shards, REPO / SAMPLE]:
        out = tmp_path / f"{shard.name}.summary.json"
        invoke("audit", str(shard), "-s", SAMPLE_SCHEMAS, "--summary", str(out))
        summaries.append(Summary.from_dict(json.loads(out.read_text())))
    *parts, whole = summaries
    merged = merge_summaries(parts)
    assert [s.path for s in merged.sources] == [str(s) for s in shards]
    assert len(merged.samples) == len(whole.samples)
    # Sources and sample rows name the shard files and their lines; all else is the whole's.
    merged.sources = whole.sources = merged.samples = whole.samples = []
    assert merged == whole


@pytest.mark.parametrize(
    ("place", "words"),
    [
        ("by_kind", "unknown error kind '\\x1b[31mtype'"),
        ("record_errors", "unknown record error '\\x1b[31mtype'"),
        ("by_param", "unknown error kind '\\x1b[31mtype'"),
    ],
)
def test_a_summary_file_with_kinds_of_no_known_name_is_refused(tmp_path, place, words):
    # Kinds are shown as they are in tables and headings: a file cannot smuggle in
    # a terminal escape, or Markdown, as one.
    summary = toolaudit.audit(
        [str(SAMPLE_LOGS / "calls.jsonl")], str(SAMPLE_LOGS / "schemas.json")
    ).run()
    data = summary.to_dict()
    hostile = "\x1b[31mtype"
    if place == "record_errors":
        data["record_errors"] = {hostile: 1}
    elif place == "by_kind":
        data["by_tool"]["get_weather"]["by_kind"] = {hostile: 1}
    else:
        data["by_tool"]["get_weather"]["by_param"] = {"city": {hostile: 1}}
    with pytest.raises(SummaryError) as raised:
        Summary.from_dict(data)
    assert words in str(raised.value)
    assert Summary.from_dict(summary.to_dict()) == summary
