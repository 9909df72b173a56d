"""A line is the unit of failure: whatever one line holds, or whatever goes wrong in
reading it, it becomes its own located row and the next line is read."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from toolaudit.contract import Validator
from toolaudit.pipeline import general_reader
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.pipeline.recorder import Recorder
from toolaudit.pipeline.rows import UNWRITABLE_ID, dump_row
from toolaudit.schemas import load_schemas
from toolaudit.sources import Source

from ..conftest import REPO, WEATHER_SCHEMAS, assert_counts_add_up, invoke

VALID = b'{"name": "get_weather", "arguments": {"city": "Oslo"}, "model": "m1"}\n'
FAILING = b'{"name": "get_weather", "arguments": {"city": 1}, "model": "m2"}\n'


def audit(data: bytes, schemas=WEATHER_SCHEMAS, **options) -> tuple[list[dict], Audit]:
    run = Audit([Source("-")], schemas, AuditOptions(**options), stdin=io.BytesIO(data))
    rows = list(run)
    assert run.summary is not None
    assert_counts_add_up(run.summary)
    for group in run.summary.groups.values():
        assert_counts_add_up(group)
    return rows, run


def openai_chat(call_id: object, arguments: str = '{"city": "Oslo"}') -> bytes:
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    message = {"role": "assistant", "tool_calls": [call]}
    record = {
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    return orjson.dumps(record) + b"\n"


def deep_list(levels: int) -> bytes:
    """JSON text of a list nested ``levels`` deep (orjson writes 254 levels at most)."""
    return b"[" * levels + b"]" * levels


@pytest.mark.parametrize("group_by", [(), ("model",)])
@pytest.mark.parametrize("typed", [True, False])
def test_a_bug_met_on_one_line_is_that_lines_row_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch, group_by: tuple[str, ...], typed: bool
) -> None:
    extract = general_reader.extract

    def extract_with_a_bug(record, forced=None):
        if record.get("bug"):
            raise ValueError("a bug")
        return extract(record, forced)

    monkeypatch.setattr(general_reader, "extract", extract_with_a_bug)
    monkeypatch.setattr(Audit, "typed_fast_path", typed)
    bug = b'{"choices": [], "bug": true, "model": "m3"}\n'
    rows, run = audit(VALID + bug + FAILING + VALID, group_by=group_by)
    assert [row["line"] for row in rows] == [1, 2, 3, 4]
    assert rows[1]["errors"] == ["malformed:internal"]
    assert "ValueError" in rows[1]["detail"] and "bug" in rows[1]["detail"]
    assert "test_hostile_records.py" in rows[1]["detail"]  # where it was raised
    assert run.summary is not None
    assert run.summary.record_errors == {"malformed:internal": 1}
    assert (run.summary.ok, run.summary.invalid) == (2, 1)


def test_a_line_whose_judging_raises_in_the_inline_reader_is_judged_once_by_the_general_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def verdict_with_a_bug(*_: object) -> None:
        raise KeyError("a bug")

    data = VALID * 3 + FAILING + VALID
    for group_by in ((), ("model",)):
        expected, _ = audit(data, group_by=group_by, max_tools=2)
        with monkeypatch.context() as patched:
            # The inline reader records a failing call (its verdict, its row) after its
            # group counted it.
            patched.setattr(Recorder, "failing_call", verdict_with_a_bug)
            patched.setattr(Audit, "typed_fast_path", False)
            rows, run = audit(data, group_by=group_by, max_tools=2)
        assert rows == expected  # the general reader judged it, and counted it once
        assert run.summary is not None and rows[3]["errors"] == ["type:city"]


def test_a_call_id_nested_too_deeply_to_write_is_named_so() -> None:
    deep_id = openai_chat("@id", arguments='{"city": 1}').replace(b'"@id"', deep_list(600))
    for typed in (True, False):
        run = Audit([Source("-")], WEATHER_SCHEMAS, stdin=io.BytesIO(deep_id + VALID))
        run.typed_fast_path = typed
        report = io.BytesIO()
        summary = run.run(report)
        rows = [orjson.loads(line) for line in report.getvalue().splitlines()]
        assert rows[0]["id"] == UNWRITABLE_ID and rows[0]["errors"] == ["type:city"]
        assert summary.samples[0]["id"] == UNWRITABLE_ID
        orjson.dumps(summary.to_dict())  # the summary can be written


def test_dump_row_writes_an_id_it_can_as_it_came() -> None:
    row = {"source": "-", "line": 1, "index": 0, "id": [[1, "\ud800"]], "tool": None}
    assert b'"\\ud800"' in dump_row(row)  # the standard library writes a lone surrogate
    deep_id = orjson.loads(deep_list(300))
    assert orjson.loads(dump_row({**row, "id": deep_id}))["id"] == UNWRITABLE_ID


def test_a_value_nested_deeper_than_the_walk_goes_is_a_located_record_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def recursing(*_: object) -> Validator:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(general_reader, "extract", recursing)
    deep = b'{"name": "get_weather", "arguments": {"city": %s}}\n' % deep_list(900)
    rows, _ = audit(deep + VALID, input_format="openai-chat")
    assert rows[0]["errors"] == ["malformed:record"]
    assert rows[0]["detail"].startswith("nested 902 levels deep, deeper than the audit walks")


def test_a_bfcl_result_whose_id_is_mangled_is_its_own_problem_not_the_runs() -> None:
    case = REPO / "tests" / "cases" / "formats" / "bfcl"
    schemas = load_schemas(str(case / "schemas.jsonl"))
    good = (case / "input.jsonl").read_bytes().splitlines()[0]
    mangled = good.replace(b'"id": "simple_python_1"', b'"id": [["simple_python_1"]]')
    assert mangled != good
    rows, run = audit(mangled + b"\n" + good + b"\n", schemas)
    assert rows[0]["errors"][0].startswith("unknown_tool:")
    assert rows[0]["detail"] == "the record's id is an array: no question has such an id"
    assert run.summary is not None and run.summary.lines == 2


def test_the_command_line_ends_a_run_with_a_bug_on_a_line_with_exit_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    def extract_with_a_bug(record, forced=None):
        raise TypeError("a bug")

    monkeypatch.setattr(general_reader, "extract", extract_with_a_bug)
    log = tmp_path / "log.jsonl"
    log.write_bytes(openai_chat("c1"))
    schemas = REPO / "sample_logs" / "schemas.json"
    result = invoke(
        "audit", str(log), "--schemas", str(schemas), "--no-progress", "--format", "json"
    )
    assert result.exit_code == 1
    assert orjson.loads(result.stdout)["record_errors"] == {"malformed:internal": 1}


TINY_SCHEMAS = {"f": {"parameters": {"properties": {"x": {"type": "number", "multipleOf": 0.01}}}}}


@pytest.mark.parametrize("inline", [True, False])
def test_numbers_past_a_doubles_range_are_judged_exactly_in_deep_mode(inline: bool) -> None:
    from toolaudit.schemas.loading import schema_set

    schemas = schema_set(TINY_SCHEMAS, deep=True)
    lines = [
        b'{"name": "f", "arguments": {"x": %s}}\n' % number
        for number in (b"1e-400", b"0.0", b"2e308", b"1E-400")
    ]
    run = Audit([Source("-")], schemas, AuditOptions(deep=True), stdin=io.BytesIO(b"".join(lines)))
    run.inline_fast_path = inline
    rows = list(run)
    # orjson reads 1e-400 as 0, a multiple of anything; it is not one of 0.01.
    assert [row["ok"] for row in rows] == [False, True, True, False]
    assert rows[0]["errors"] == ["constraint:x"]


def test_a_number_past_what_is_read_exactly_is_a_located_json_error() -> None:
    rows, _ = audit(
        b'{"name": "get_weather", "arguments": {"days": 1%s}}\n' % (b"0" * 10_001) + VALID
    )
    assert rows[0]["errors"] == ["malformed:json"]
    assert rows[0]["detail"].startswith("not audited: the number ")
    assert "10,002 digits" in rows[0]["detail"]
    assert rows[1]["ok"]


def _from_deeper(frames: int, function: Any) -> Any:
    """``function()`` called ``frames`` frames deeper down the stack (a generator's each,
    as the audit's rows are pulled through generators)."""

    def deeper() -> Iterator[Any]:
        yield function() if frames == 0 else _from_deeper(frames - 1, function)

    return next(deeper())


@pytest.mark.parametrize("levels", range(880, 1000, 8))
def test_a_line_gives_the_same_rows_however_deep_the_audit_is_called(levels: int) -> None:
    # A --jobs worker reads its part from deeper (or shallower) in its stack than one
    # process does: a value nested near the recursion limit was shown as "[[[[…" or as
    # "nested too deeply to show", a record walked or refused, by where the audit ran.
    deep = deep_list(levels)
    data = b"".join(
        [
            b'{"name": %s, "arguments": {}}\n' % deep,
            b'{"name": "get_weather", "arguments": {"city": %s}}\n' % deep,
            b'{"id": "x", "result": [{"f": {"a": %s}}]}\n' % deep,
            VALID,
        ]
    )

    def rows() -> list[dict]:
        return audit(data)[0]

    assert _from_deeper(0, rows) == _from_deeper(60, rows) == _from_deeper(150, rows)
