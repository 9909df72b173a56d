"""Deep mode through the audit: rows, counts, the summary's mode, and the CLI flags."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import toolaudit
from toolaudit import OptionError, SummaryError
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.pipeline.recorder import Recorder
from toolaudit.pipeline.rows import dump_row
from toolaudit.results.compare import compare
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source

from ..conftest import SAMPLE, SAMPLE_SCHEMAS, assert_counts_add_up, invoke

SCHEMAS = {
    "book": {
        "parameters": {
            "type": "object",
            "properties": {
                "passengers": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/Passenger"},
                    "minItems": 1,
                },
                "filters": {"type": "object", "properties": {"date": {"type": "string"}}},
                "seats": {"type": "integer", "minimum": 1},
            },
            "required": ["passengers"],
            "$defs": {
                "Passenger": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                    "required": ["name"],
                }
            },
        }
    }
}

CALLS = [
    {"name": "book", "arguments": {"passengers": [{"name": "Ada"}], "seats": 1}},
    {"name": "book", "arguments": {"passengers": [{"age": 3}, {"name": "Bo", "age": "4"}]}},
    {"name": "book", "arguments": {"passengers": [{}], "filters": {"date": 20261201}}},
    {"name": "book", "arguments": {"passengers": [], "seats": 0}},
]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "calls.jsonl"
    path.write_bytes(b"".join(orjson.dumps(call) + b"\n" for call in CALLS))
    return path


def test_plain_mode_sees_only_the_top_level(log: Path) -> None:
    run = toolaudit.audit([str(log)], SCHEMAS)
    rows = list(run)
    assert [row["errors"] for row in rows] == [[], [], [], []]
    assert run.summary is not None and run.summary.deep is False
    assert run.summary.to_dict()["deep"] is False


def test_deep_mode_finds_errors_inside_arguments_with_paths_and_reasons(log: Path) -> None:
    run = toolaudit.audit([str(log)], SCHEMAS, deep=True)
    rows = list(run)
    assert [row["errors"] for row in rows] == [
        [],
        ["missing:passengers[0].name", "type:passengers[1].age"],
        ["missing:passengers[0].name", "type:filters.date"],
        ["constraint:passengers", "constraint:seats"],
    ]
    assert "why" not in rows[0]
    assert rows[1]["why"] == {
        "missing:passengers[0].name": "required",
        "type:passengers[1].age": 'expected integer, got string "4"',
    }
    assert rows[3]["why"]["constraint:seats"] == "minimum 1, got 0"
    summary = run.summary
    assert summary is not None and summary.deep is True
    assert_counts_add_up(summary)
    tool = summary.by_tool["book"]
    assert (tool.calls, tool.invalid) == (4, 3)
    # Per parameter, array indices are counted together: passengers[].name twice.
    assert tool.by_param["passengers[].name"] == {"missing": 2}
    assert tool.by_param["passengers[].age"] == {"type": 1}
    assert summary.by_kind == {"constraint": 2, "missing": 2, "type": 2}


def test_a_huge_integer_nested_in_the_arguments_is_judged_exactly(tmp_path: Path) -> None:
    # orjson reads 2**70 as a float, which is not an integer: the line is read again exactly.
    schemas = {
        "t": {
            "parameters": {
                "properties": {"o": {"type": "object", "properties": {"n": {"type": "integer"}}}}
            }
        }
    }
    path = tmp_path / "big.jsonl"
    path.write_text('{"name": "t", "arguments": {"o": {"n": 1180591620717411303424}}}\n')
    rows = list(toolaudit.audit([str(path)], schemas, deep=True))
    assert rows[0]["errors"] == []


def test_schemas_compiled_for_one_mode_are_refused_by_the_other(log: Path) -> None:
    plain = toolaudit.load_schemas(SAMPLE_SCHEMAS)
    deep = toolaudit.load_schemas(SAMPLE_SCHEMAS, deep=True)
    assert deep.deep and not plain.deep
    with pytest.raises(OptionError, match="deep=True"):
        toolaudit.audit([str(log)], plain, deep=True)
    with pytest.raises(OptionError, match="compiled for deep validation"):
        toolaudit.audit([str(log)], deep)


def test_merge_and_compare_refuse_to_mix_modes() -> None:
    plain = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS).run()
    deep = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS, deep=True).run()
    with pytest.raises(SummaryError, match="validation modes"):
        plain.merged(deep)
    with pytest.raises(SummaryError, match="--deep"):
        compare(plain, deep)
    # The mode survives the summary file; older files without it read as plain.
    again = toolaudit.Summary.from_dict(json.loads(json.dumps(deep.to_dict())))
    assert again.deep is True
    old = deep.to_dict()
    del old["deep"]
    assert toolaudit.Summary.from_dict(old).deep is False
    old["deep"] = "yes"
    with pytest.raises(SummaryError, match="deep"):
        toolaudit.Summary.from_dict(old)


def test_the_cli_audits_and_validates_in_deep_mode(log: Path, tmp_path: Path) -> None:
    schemas = tmp_path / "schemas.json"
    schemas.write_text(json.dumps(SCHEMAS))
    summary = tmp_path / "summary.json"
    result = invoke("audit", str(log), "-s", str(schemas), "--deep", "--summary", str(summary))
    assert result.exit_code == 1
    assert json.loads(summary.read_text())["deep"] is True
    call = json.dumps(CALLS[3])
    result = invoke("validate", call, "-s", str(schemas), "--deep", "--explain")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "ok": False,
        "errors": ["constraint:passengers", "constraint:seats"],
        "why": {
            "constraint:passengers": "at least 1 item, got 0",
            "constraint:seats": "minimum 1, got 0",
        },
    }
    plain = invoke("validate", call, "-s", str(schemas))
    assert plain.exit_code == 0
    assert json.loads(plain.stdout) == {"ok": True, "errors": []}


def test_merge_on_the_command_line_refuses_mixed_modes(log: Path, tmp_path: Path) -> None:
    schemas = tmp_path / "schemas.json"
    schemas.write_text(json.dumps(SCHEMAS))
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    invoke("audit", str(log), "-s", str(schemas), "--deep", "--summary", str(one))
    invoke("audit", str(log), "-s", str(schemas), "--summary", str(two))
    result = invoke("merge", str(one), str(two))
    assert result.exit_code == 2
    assert "validation modes" in result.stderr


def test_the_human_outputs_say_a_summary_is_deep() -> None:
    from toolaudit.output.markdown import render_markdown
    from toolaudit.output.table import render_table

    plain = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS).run()
    deep = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS, deep=True).run()
    assert "deep validation" not in render_table(plain) + render_markdown(plain)
    assert "| deep validation" in render_table(deep).splitlines()[1]
    assert render_markdown(deep).startswith("## toolaudit (deep validation)\n")


@pytest.mark.parametrize("typed", [True, False])
@pytest.mark.parametrize("group_by", [(), ("model",)])
def test_a_summary_alone_counts_the_failing_calls_as_a_report_run_does(
    typed: bool, group_by: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the samples are full, a run with no report counts a failing call with no row
    made (Recorder.count_failing): its summary is the one a run writing the report gives."""
    calls = [dict(call, model=f"m{i % 3}") for i in range(40) for call in CALLS]
    data = b"".join(orjson.dumps(call) + b"\n" for call in calls)
    schemas = schema_set(SCHEMAS, deep=True)

    def summary(report: io.BytesIO | None) -> dict[str, object]:
        options = AuditOptions(deep=True, group_by=group_by)
        run = Audit([Source("-")], schemas, options, stdin=io.BytesIO(data))
        run.typed_fast_path = typed
        return run.run(report).to_dict()

    counted = []
    count_failing = Recorder.count_failing

    def spied(self: Recorder, *args: Any) -> bool:
        counted.append(count_failing(self, *args))
        return counted[-1]

    monkeypatch.setattr(Recorder, "count_failing", spied)
    alone = summary(None)
    assert alone["invalid"] == 120
    assert counted.count(True) >= 60  # the failing calls past the samples
    assert alone == summary(io.BytesIO())


@pytest.mark.parametrize("deep", [True, False])
@pytest.mark.parametrize("typed", [True, False])
@pytest.mark.parametrize("group_by", [(), ("model",)])
def test_a_failing_calls_row_written_at_once_is_the_row_the_audit_yields(
    deep: bool, typed: bool, group_by: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the samples, a written report makes a failing call's line from its reasons
    with no verdict or dict (Recorder.failing_call): the lines and the summary are those
    of the rows an iterated audit yields, which are made as dicts."""
    calls = [
        dict(call, id=f"c{i}", model=f"m{i % 3}", arguments={**call["arguments"], "x": i})
        if i % 5 == 0
        else dict(call, model=f"m{i % 3}")
        for i in range(100)
        for call in CALLS
    ]
    data = b"".join(orjson.dumps(call) + b"\n" for call in calls)
    schemas = schema_set(SCHEMAS, deep=deep)

    def audit() -> Audit:
        options = AuditOptions(deep=deep, group_by=group_by)
        run = Audit([Source("-")], schemas, options, stdin=io.BytesIO(data))
        run.typed_fast_path = typed
        return run

    at_once = []
    failing_call, call = Recorder.failing_call, Recorder.call
    calls = []

    def spied_call(self: Recorder, *args: Any) -> None:
        calls.append(True)
        call(self, *args)

    def spied(self: Recorder, *args: Any) -> None:
        before = len(calls)
        failing_call(self, *args)
        at_once.append(len(calls) == before)

    monkeypatch.setattr(Recorder, "call", spied_call)
    monkeypatch.setattr(Recorder, "failing_call", spied)
    report = io.BytesIO()
    summary = audit().run(report).to_dict()
    assert at_once.count(True) >= 20  # (some of) the failing calls past the samples
    yielded = audit()
    rows = list(yielded)
    assert report.getvalue() == b"".join(dump_row(row) for row in rows)
    assert yielded.summary is not None
    assert summary == yielded.summary.to_dict()
