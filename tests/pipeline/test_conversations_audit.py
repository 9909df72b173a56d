"""Conversations in the audit: what the records' histories add to the report, the summary,
the exit code and the outputs, and that parts, groups and merges add up."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

import toolaudit
from toolaudit.results.summary import Summary
from toolaudit.runners import parallel

from ..conftest import REPO, assert_counts_add_up, invoke, rows_of

REQUESTS = REPO / "sample_logs" / "requests.jsonl"

#: What sample_logs/requests.jsonl holds, line by line (see the comments of the lines).
PROBLEMS = {
    2: ("pairing:unanswered", "messages[2].tool_calls[1]", "call_b2"),
    3: ("pairing:orphan_result", "messages[1]", "call_c1"),
    5: ("pairing:misplaced_result", "messages[4]", "call_e1"),
    6: ("pairing:duplicate_call_id", "messages[1].tool_calls[1]", "call_1"),
}


def audit(path: Path, tmp_path: Path, *args: str) -> tuple[int, list[dict], dict]:
    report, summary = tmp_path / "report.jsonl", tmp_path / "summary.json"
    result = invoke("audit", str(path), "-r", str(report), "--summary", str(summary), *args)
    return result.exit_code, rows_of(report), json.loads(summary.read_text())


def test_each_problem_is_a_located_row_and_counted(tmp_path: Path) -> None:
    code, rows, summary = audit(REQUESTS, tmp_path)
    assert code == 1  # a request the provider would refuse fails the audit
    problems = {row["line"]: (row["problem"], row["path"], row["id"]) for row in rows}
    assert problems == PROBLEMS
    assert all("refuses such a request" in row["detail"] for row in rows if row["line"] != 6)
    conversations = summary["conversations"]
    assert conversations["checked"] == 8
    assert conversations["with_problems"] == 4
    assert conversations["problems"] == {code: 1 for code, _, _ in PROBLEMS.values()}
    by_model = conversations["by_model"]
    assert sum(m["checked"] for m in by_model.values()) == 8
    assert by_model["gpt-4o"]["with_problems"] == 2
    assert conversations["by_tool"] == {
        "<no name>": {"pairing:orphan_result": 1},  # its call was trimmed away: no name
        "get_weather": {
            "pairing:duplicate_call_id": 1,
            "pairing:misplaced_result": 1,
            "pairing:unanswered": 1,
        },
    }
    # A request alone holds no call of the model's own: counted as a record without calls.
    assert summary["records_without_calls"] == 8 and summary["calls"] == 0
    assert_counts_add_up(Summary.from_dict(summary))


def test_tool_outcomes_count_failures_retries_and_recoveries(tmp_path: Path) -> None:
    _, _, summary = audit(REQUESTS, tmp_path)
    by_tool = summary["tool_results"]["by_tool"]
    assert by_tool["book_table"] == {"results": 2, "failures": 1, "retried": 1, "recovered": 1}
    assert by_tool["get_weather"]["failures"] == 1  # "Error: unknown city", not retried
    assert by_tool["get_weather"]["retried"] == 0


def test_no_conversations_leaves_the_audit_as_it_was(tmp_path: Path) -> None:
    code, rows, summary = audit(REQUESTS, tmp_path, "--no-conversations")
    assert code == 0 and rows == []
    assert not {"conversations", "tool_results", "history_calls"} & summary.keys()


def test_history_judges_the_calls_a_conversation_holds_apart(tmp_path: Path) -> None:
    _, rows, summary = audit(REQUESTS, tmp_path, "--history")
    failing = [row for row in rows if "errors" in row]
    assert [(row["line"], row["path"], row["errors"]) for row in failing] == [
        (4, "messages[2].tool_calls[0]", ["type:people"]),
        (8, "messages[2].tool_calls[0]", ["enum:unit"]),
    ]
    assert "index" not in failing[0]
    history = summary["history_calls"]
    assert (history["calls"], history["ok"], history["invalid"]) == (9, 7, 2)
    assert history["by_kind"] == {"enum": 1, "type": 1}
    assert summary["calls"] == 0  # the model's own calls alone


def test_a_pair_checks_its_request_and_judges_its_response(tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    request = {
        "model": "gpt-4o",
        "tools": tools,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "tool", "tool_call_id": "gone", "content": "done"},
        ],
    }
    made = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    response = {"choices": [{"message": {"role": "assistant", "tool_calls": [made]}}]}
    log = tmp_path / "pairs.jsonl"
    log.write_bytes(orjson.dumps({"request": request, "response": response}) + b"\n")
    code, rows, summary = audit(log, tmp_path)
    assert code == 1
    assert [row.get("problem") for row in rows] == [None, "pairing:orphan_result"]
    assert rows[0]["ok"] is True and rows[1]["path"] == "request.messages[1]"
    assert summary["calls"] == 1 and summary["conversations"]["checked"] == 1


@pytest.mark.parametrize("jobs", ["2"])
def test_parts_add_up_to_the_whole(
    tmp_path: Path, jobs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 2048)  # parts of a small log
    log = tmp_path / "many.jsonl"
    log.write_bytes(REQUESTS.read_bytes() * 40)
    whole = tmp_path / "whole"
    parts = tmp_path / "parts"
    whole.mkdir()
    parts.mkdir()
    one = audit(log, whole, "--history")
    two = audit(log, parts, "--history", "--jobs", jobs)
    assert len(two[2]["sources"]) == 1 and two[2]["sources"][0]["lines"] == 320
    assert one[0] == two[0] == 1
    assert one[1] == two[1]
    assert one[2]["conversations"] == two[2]["conversations"]
    assert one[2]["tool_results"] == two[2]["tool_results"]
    assert one[2]["history_calls"] == two[2]["history_calls"]


def test_groups_count_their_own_and_add_up() -> None:
    summary = toolaudit.audit([str(REQUESTS)], group_by=("model",)).run()
    assert summary.conversations is not None
    groups = summary.groups
    assert {key: g.conversations.all.checked for key, g in groups.items() if g.conversations} == {
        "gpt-4o": 5,
        "gpt-4o-mini": 3,
    }
    assert summary.conversations.all.checked == 8
    data = summary.to_dict()
    assert data["groups"]["gpt-4o-mini"]["conversations"]["with_problems"] == 2


def test_merged_summaries_keep_the_conversations(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for target in (first, second):
        invoke("audit", str(REQUESTS), "--summary", str(target))
    merged = tmp_path / "merged.json"
    invoke("merge", str(first), str(second), "-o", str(merged))
    data = json.loads(merged.read_text())
    assert data["conversations"]["checked"] == 16
    assert data["tool_results"]["by_tool"]["book_table"]["recovered"] == 2


def test_the_table_shows_the_conversations() -> None:
    result = invoke("audit", str(REQUESTS), "--history")
    assert "8 conversations checked, 4 with problems (50.0%)" in result.stdout
    assert "pairing:misplaced_result" in result.stdout
    assert "tool results: 9, 2 failures, 1 retried, 1 recovered" in result.stdout
    assert "calls held in conversations (--history): 9, 7 ok, 2 invalid" in result.stdout


def test_a_history_of_no_known_shape_is_a_located_problem_not_a_stop(tmp_path: Path) -> None:
    log = tmp_path / "odd.jsonl"
    odd = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}, 7, None]}
    log.write_bytes(orjson.dumps(odd) + b"\n" + REQUESTS.read_bytes().splitlines()[0] + b"\n")
    code, rows, summary = audit(log, tmp_path)
    assert code == 1
    assert {row["problem"] for row in rows} == {"malformed:history"}
    assert {row["path"] for row in rows} == {"messages[1]", "messages[2]"}
    assert summary["conversations"]["checked"] == 2
    assert summary["records"] == 2
