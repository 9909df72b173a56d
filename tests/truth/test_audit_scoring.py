"""``toolaudit audit --expected``: every record scored as it is read, every count adding up.

Through the command line and the runners, as a user runs it: BFCL's score files
reproduced by the audit itself (``--match bfcl``), a production eval set in the native
shape (each outcome), ``--group-by``, ``--jobs``, and bad input.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolaudit.pipeline import AuditOptions
from toolaudit.runners import AuditJob, Interrupted, RunHooks, parallel, runner_for
from toolaudit.schemas import schema_set
from toolaudit.sources import Source
from toolaudit.truth.expectations import Expectations, load_expectations

from ..conftest import invoke

REPRODUCE = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl" / "reproduce"
RUNS = sorted(p.name.removesuffix(".result.jsonl.gz") for p in REPRODUCE.glob("*.result.jsonl.gz"))


def _unzipped(name: str, into: Path) -> Path:
    path = into / name.removesuffix(".gz")
    path.write_bytes(gzip.decompress((REPRODUCE / name).read_bytes()))
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("run", RUNS)
def test_the_audit_reproduces_bfcl_score_files_entry_for_entry(run, tmp_path):
    category = run.rsplit(".", 1)[1]
    results = _unzipped(f"{run}.result.jsonl.gz", tmp_path)
    if "relevance" in category:  # no possible answers: the ids say what is wanted
        expected = tmp_path / "none.jsonl"
        expected.write_text("")
        # Their questions' functions are not among the fixtures: the scores do not need
        # them, the schema checks of the calls need some.
        questions = tmp_path / "questions.jsonl"
        stand_in = [{"name": "stand_in", "parameters": {"type": "dict", "properties": {}}}]
        questions.write_text(
            "".join(
                json.dumps({"id": r["id"], "function": stand_in}) + "\n" for r in _lines(results)
            )
        )
    else:
        expected = _unzipped(f"{category}.possible_answer.jsonl.gz", tmp_path)
        questions = _unzipped(f"{category}.function.jsonl.gz", tmp_path)
    schemas_args = ["-s", str(questions)]
    scores, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    result = invoke(
        "audit", str(results), *schemas_args, "--expected", str(expected), "--match", "bfcl",
        "--scores", str(scores), "--summary", str(summary), "--format", "json",
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    bfcl_summary, *failed = [
        json.loads(line) for line in gzip.decompress(
            (REPRODUCE / f"{run}.score.jsonl.gz").read_bytes()
        ).splitlines()
    ]  # fmt: skip
    rows = _lines(scores)
    assert [row["id"] for row in rows] == [row["id"] for row in _lines(results)]
    ours = {row["id"]: row.get("bfcl_error_type") for row in rows if not row["correct"]}
    assert ours == {line["id"]: line["error_type"] for line in failed}
    truth = json.loads(summary.read_text())["ground_truth"]
    assert (truth["correct"], truth["total"]) == (
        bfcl_summary["correct_count"],
        bfcl_summary["total_count"],
    )
    assert truth["accuracy"] == bfcl_summary["accuracy"]
    assert truth["unscored"] == 0 and truth["outcomes"]["no_record"] == 0


# -- a production eval set, in the native shape ---------------------------------------

TOOLS = {
    "get_weather": {
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
            },
            "required": ["city"],
        }
    },
    "book_table": {
        "parameters": {
            "type": "object",
            "properties": {"guests": {"type": "integer"}, "time": {"type": "string"}},
            "required": ["guests"],
        }
    },
}


def _response(eval_id: object, calls: list[tuple[str, str]] | None, model: str = "m-1") -> bytes:
    """An OpenAI chat completion holding these calls (name, arguments as JSON text)."""
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else "No call."}
    if calls:
        message["tool_calls"] = [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)
        ]
    record = {
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "metadata": {"eval_id": eval_id},
    }
    return orjson.dumps(record) + b"\n"


EXPECTED = [
    {"id": "right", "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {
        "id": "wrong",
        "category": "booking",
        "calls": [{"name": "book_table", "arguments": {"guests": 2, "time": "19:00"}}],
    },
    {"id": "missed", "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
    {"id": "abstained", "calls": []},
    {"id": "unwanted", "calls": []},
    {"id": "unreadable", "calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]},
    {"id": "never-logged", "calls": "any"},
    {
        "id": "default-counts",
        "calls": [{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "c"}}],
    },
]  # fmt: skip

LOG = b"".join(
    [
        _response("right", [("get_weather", '{"city": "Paris"}')]),
        _response("wrong", [("book_table", '{"guests": 3, "time": "19:00"}')], model="m-2"),
        _response("missed", None),
        _response("abstained", None),
        _response("unwanted", [("get_weather", '{"city": "Lima"}')]),
        orjson.dumps({"metadata": {"eval_id": "unreadable"}, "not": "a response"}) + b"\n",
        _response("no-entry", [("get_weather", '{"city": "Lima"}')]),
        _response(None, None),
        _response("right", [("get_weather", '{"city": "Nice"}')]),  # scored once already
        _response("default-counts", [("get_weather", '{"city": "Oslo"}')]),
    ]
)


@pytest.fixture
def eval_set(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(LOG)
    expected = tmp_path / "expected.jsonl"
    expected.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in EXPECTED))
    schemas = tmp_path / "tools.json"
    schemas.write_bytes(orjson.dumps(TOOLS))
    return log, expected, schemas


def test_each_outcome_of_a_native_eval_set_and_counts_that_add_up(eval_set, tmp_path):
    log, expected, schemas = eval_set
    scores, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    result = invoke(
        "audit", str(log), "-s", str(schemas), "-e", str(expected),
        "--expected-key", "metadata.eval_id", "--scores", str(scores), "--summary", str(summary),
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr  # one record is malformed
    rows = {row["id"]: row for row in _lines(scores)}
    assert {id: row["outcome"] for id, row in rows.items()} == {
        "right": "correct",
        "wrong": "incorrect",
        "missed": "missed",
        "abstained": "correct_abstention",
        "unwanted": "unwanted_call",
        "unreadable": "unparseable",
        "default-counts": "correct",  # the unit left out is its schema's default
        "never-logged": "no_record",
    }
    assert rows["wrong"]["mismatches"] == ["value:guests"]
    assert rows["wrong"]["model"] == "m-2" and rows["wrong"]["category"] == "booking"
    assert rows["unwanted"]["mismatches"] == ["extra_call:get_weather"]
    assert (rows["right"]["source"], rows["right"]["line"]) == (str(log), 1)
    assert rows["never-logged"]["line"] is None
    # The line order of the file, then the entries no record had.
    assert list(rows)[-1] == "never-logged"
    truth = json.loads(summary.read_text())["ground_truth"]
    assert truth["total"] == len(EXPECTED)  # every entry in exactly one count
    assert sum(truth["outcomes"].values()) == len(EXPECTED)
    # Every record in exactly one count: 7 scored, 3 not (no entry, no id, a repeat).
    assert truth["unscored"] == 3
    assert truth["without_id"] == {"records": 1, "first": f"{log}:8"}
    assert truth["repeated_id"] == {"records": 1, "first": f"{log}:9 (id 'right')"}
    assert truth["correct"] == 3 and truth["by_category"]["booking"]["correct"] == 0
    # Both are told, located; a run that scored records says nothing more.
    told = result.stderr.replace("\n", " ")
    assert f"no id at --expected-key metadata.eval_id: 1 (the first at {log}:8)" in told
    assert f"an id already scored: 1 (the first at {log}:9 (id 'right'))" in told
    assert "no record was scored" not in result.stderr


def test_a_run_that_scores_no_record_says_why(eval_set):
    log, expected, schemas = eval_set
    # The records' ids are under metadata.eval_id: `id` holds none of them.
    result = invoke("audit", str(log), "-s", str(schemas), "-e", str(expected))
    assert "records with no id at their format's id or `id`: 10" in result.stderr
    wrong_key = invoke(
        "audit", str(log), "-s", str(schemas), "-e", str(expected), "--expected-key", "model"
    )
    assert "no record was scored: none of the records read has an id" in wrong_key.stderr


def test_scores_per_group_add_up_to_the_whole(eval_set):
    log, expected, _ = eval_set
    expectations = load_expectations(
        str(expected), key="metadata.eval_id", schemas=schema_set(TOOLS)
    )
    job = AuditJob(
        [Source(str(log))], schema_set(TOOLS), AuditOptions(group_by=("model",)), expectations
    )
    summary = runner_for().run(job)
    whole = summary.ground_truth
    assert whole is not None
    groups = {key: group.ground_truth for key, group in summary.groups.items()}
    assert set(groups) == {"m-1", "m-2", "null"}
    scored = sum(g.total for g in groups.values() if g is not None)
    assert scored + whole.outcomes.get("no_record", 0) == whole.total == len(EXPECTED)
    assert sum(g.unscored for g in groups.values() if g is not None) == whole.unscored == 3
    assert groups["m-2"] is not None and groups["m-2"].outcomes == {"incorrect": 1}


def _run(job: AuditJob, jobs: int) -> tuple[bytes, bytes, dict[str, Any]]:
    report, scores = io.BytesIO(), io.BytesIO()
    summary = runner_for(jobs=jobs).run(job, report, RunHooks(notify=lambda _: None), scores)
    return report.getvalue(), scores.getvalue(), summary.to_dict()


def test_jobs_give_the_scores_and_summary_of_one_process(eval_set, tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 1024)
    log, expected, _ = eval_set
    # Many records, each id once: ranges score apart, the whole counts what none had.
    lines = LOG.splitlines(keepends=True)
    many = b"".join(
        line.replace(b'"eval_id":"', f'"eval_id":"{n}-'.encode())
        for n in range(60)
        for line in lines
    )
    log.write_bytes(many)
    entries = [{**entry, "id": f"{n}-{entry['id']}"} for n in range(61) for entry in EXPECTED]
    expected.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    expectations = load_expectations(
        str(expected), key="metadata.eval_id", schemas=schema_set(TOOLS)
    )
    job = AuditJob([Source(str(log))], schema_set(TOOLS), AuditOptions(), expectations)
    assert len(parallel.plan_parts(list(job.sources), 2)) > 4
    one = _run(job, 1)
    assert _run(job, 2) == one
    truth = one[2]["ground_truth"]
    assert truth["total"] == len(entries) and truth["outcomes"]["no_record"] == 8 + 60
    # An id scored in two ranges: done again in one process, which scores the first.
    log.write_bytes(many + many)
    assert _run(job, 2) == _run(job, 1)


def _write_copies(log: Path, expected: Path, copies: int) -> list[dict[str, Any]]:
    """``copies`` of the eval set, each id once (an id scored in two ranges would have
    the run done in one process); the expected entries."""
    lines = [line for line in LOG.splitlines(keepends=True) if b"Nice" not in line]
    log.write_bytes(
        b"".join(
            line.replace(b'"eval_id":"', f'"eval_id":"{n}-'.encode())
            for n in range(copies)
            for line in lines
        )
    )
    entries = [{**e, "id": f"{n}-{e['id']}"} for n in range(copies) for e in EXPECTED]
    expected.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in entries))
    return entries


def test_jobs_without_a_report_give_score_lines_numbered_as_one_process(eval_set, monkeypatch):
    # Score lines carry the line of their record: the ranges' lines are counted first
    # for them as for report rows (a later range's lines were numbered from 1).
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 1024)
    log, expected, _ = eval_set
    _write_copies(log, expected, 40)  # each id once: no range scores one twice
    expectations = load_expectations(
        str(expected), key="metadata.eval_id", schemas=schema_set(TOOLS)
    )
    job = AuditJob([Source(str(log))], schema_set(TOOLS), AuditOptions(), expectations)
    assert len(parallel.plan_parts(list(job.sources), 2)) > 4
    scores = {}
    for jobs in (1, 2):
        scores[jobs] = io.BytesIO()
        runner_for(jobs=jobs).run(job, None, RunHooks(notify=lambda _: None), scores[jobs])
    assert scores[2].getvalue() == scores[1].getvalue()


def test_an_interrupted_jobs_run_keeps_the_score_lines_its_summary_counts(eval_set, monkeypatch):
    # The ranges finished in order are kept: their rows, their counts, their score lines.
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 1024)
    log, expected, _ = eval_set
    entries = _write_copies(log, expected, 60)
    expectations = load_expectations(
        str(expected), key="metadata.eval_id", schemas=schema_set(TOOLS)
    )
    job = AuditJob([Source(str(log))], schema_set(TOOLS), AuditOptions(), expectations)
    finished = []

    def stop_after_two(size: int) -> None:
        finished.append(size)
        if len(finished) == 2:
            raise KeyboardInterrupt

    report, scores = io.BytesIO(), io.BytesIO()
    hooks = RunHooks(on_bytes=stop_after_two, notify=lambda _: None)
    with pytest.raises(Interrupted) as stopped:
        runner_for(jobs=2).run(job, report, hooks, scores)
    truth = stopped.value.summary.to_dict()["ground_truth"]
    scored = [orjson.loads(line) for line in scores.getvalue().splitlines()]
    assert 0 < len(scored) == truth["total"] < len(entries)
    assert sum(line["correct"] for line in scored) == truth["correct"]


def test_an_expectations_object_refuses_an_unknown_match():
    from toolaudit.errors import OptionError
    from toolaudit.truth import ExpectedSet

    with pytest.raises(OptionError, match="--match"):
        Expectations(ExpectedSet(), match="fuzzy")


# -- bad input ------------------------------------------------------------------------


def test_unreadable_expected_lines_are_told_with_file_and_line_and_the_run_goes_on(eval_set):
    log, expected, schemas = eval_set
    expected.write_bytes(expected.read_bytes() + b"{not json\n" + b'{"id": "x"}\n')
    result = invoke(
        "audit", str(log), "-s", str(schemas), "-e", str(expected),
        "--expected-key", "metadata.eval_id", "--format", "json",
    )  # fmt: skip
    assert f"toolaudit: warning: expected file {expected}, line 9: not valid JSON" in result.stderr
    assert f"expected file {expected}, line 10: of neither shape" in result.stderr
    assert json.loads(result.stdout)["ground_truth"]["total"] == len(EXPECTED)


def test_an_id_expected_twice_stops_before_anything_is_read(eval_set, tmp_path):
    log, expected, schemas = eval_set
    second = tmp_path / "more.jsonl"
    second.write_bytes(orjson.dumps(EXPECTED[0]) + b"\n")
    report = tmp_path / "report.jsonl"
    result = invoke(
        "audit", str(log), "-s", str(schemas), "-e", str(expected), "-e", str(second),
        "-r", str(report),
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.startswith("toolaudit: error: id 'right' is expected twice: in expected")
    assert not report.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scores", "s.jsonl"], "--scores is for --expected"),
        (["--expected-key", "a.b"], "--expected-key is for --expected"),
        (["--match", "bfcl"], "--match is for --expected"),
    ],
)
def test_scoring_options_without_expected_calls_are_refused(eval_set, args, message):
    log, _, schemas = eval_set
    result = invoke("audit", str(log), "-s", str(schemas), *args)
    assert result.exit_code == 2
    assert (
        result.stderr == f"toolaudit: error: {message}: give the expected calls to score against\n"
    )


def test_the_scores_file_may_not_overwrite_an_input(eval_set):
    log, expected, schemas = eval_set
    result = invoke(
        "audit", str(log), "-s", str(schemas), "-e", str(expected), "--scores", str(expected)
    )
    assert result.exit_code == 2
    assert result.stderr.endswith(": is the expected-calls file; refusing to overwrite it\n")
    assert expected.read_bytes().count(b"\n") == len(EXPECTED)


def test_an_expected_file_in_the_logs_directory_is_not_read_as_a_log(eval_set):
    log, expected, schemas = eval_set
    result = invoke(
        "audit", str(log.parent), "-s", str(schemas), "-e", str(expected),
        "--expected-key", "metadata.eval_id", "--format", "json",
    )  # fmt: skip
    summary = json.loads(result.stdout)
    assert [s["path"] for s in summary["sources"]] == [str(log)]
