"""The library's audit: rows, located malformed lines, and counts that add up."""

from __future__ import annotations

import io

import orjson
import pytest

from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.results.folding import NO_NAME
from toolaudit.results.summary import Summary
from toolaudit.sources import Source

from ..conftest import WEATHER_SCHEMAS, assert_counts_add_up


def audit_bytes(data: bytes, *, options: AuditOptions | None = None) -> tuple[list[dict], Summary]:
    run = Audit([Source("-")], WEATHER_SCHEMAS, options, stdin=io.BytesIO(data))
    rows = list(run)
    assert run.summary is not None
    assert_counts_add_up(run.summary)
    return rows, run.summary


def line(**record) -> bytes:
    return orjson.dumps(record) + b"\n"


def test_a_valid_call_gives_an_ok_row_with_its_location_and_id():
    rows, summary = audit_bytes(line(id="c1", name="get_weather", arguments={"city": "Paris"}))
    assert rows == [
        {
            "source": "-",
            "line": 1,
            "index": 0,
            "id": "c1",
            "tool": "get_weather",
            "ok": True,
            "errors": [],
        }
    ]
    assert (summary.calls, summary.ok, summary.invalid, summary.error_rate) == (1, 1, 0, 0.0)


def test_invalid_calls_carry_the_contract_errors_and_are_counted_per_tool_kind_and_param():
    rows, summary = audit_bytes(
        line(name="get_weather", arguments={"days": True, "tz": "UTC"})
        + line(name="get_weather", arguments={"city": "P", "units": "k"})
        + line(name="nope", arguments={})
    )
    assert [r["errors"] for r in rows] == [
        ["missing:city", "type:days", "unexpected:tz"],
        ["enum:units"],
        ["unknown_tool:nope"],
    ]
    assert [r["id"] for r in rows] == [None, None, None]
    assert summary.by_kind == {
        "missing": 1,
        "type": 1,
        "unexpected": 1,
        "enum": 1,
        "unknown_tool": 1,
    }
    weather = summary.by_tool["get_weather"]
    assert (weather.calls, weather.ok, weather.invalid) == (2, 0, 2)
    assert weather.by_param == {
        "city": {"missing": 1},
        "days": {"type": 1},
        "tz": {"unexpected": 1},
        "units": {"enum": 1},
    }
    assert summary.by_tool["nope"].by_kind == {"unknown_tool": 1}
    assert summary.by_tool["nope"].by_param == {}


@pytest.mark.parametrize(
    ("arguments", "expected_errors", "detail_words"),
    [
        ('{"city": "Paris"}', [], None),
        ('{"city": 3}', ["type:city"], None),
        ('{"city": "Par', ["malformed:arguments"], "not valid JSON"),
        ('"{\\"city\\": \\"Paris\\"}"', ["malformed:arguments"], "double-encoded"),
        ("[1, 2]", ["malformed:arguments"], "an array, not an object"),
        ("", ["malformed:arguments"], "empty string"),
        (None, ["malformed:arguments"], "null, not an object"),
        (7, ["malformed:arguments"], "a number, not an object"),
    ],
)
def test_arguments_logged_as_json_strings_are_decoded(arguments, expected_errors, detail_words):
    rows, _ = audit_bytes(line(name="get_weather", arguments=arguments))
    assert rows[0]["errors"] == expected_errors
    if detail_words is None:
        assert "detail" not in rows[0]
    else:
        assert detail_words in rows[0]["detail"]


def test_an_empty_argument_string_is_no_arguments_for_a_tool_that_requires_none():
    rows, _ = audit_bytes(line(name="ping", arguments=""))
    assert rows[0]["ok"] is True


def test_a_record_without_arguments_is_a_call_without_arguments():
    rows, _ = audit_bytes(line(name="get_weather") + line(name="ping"))
    assert [r["errors"] for r in rows] == [["missing:city"], []]


def test_a_call_without_a_name_is_malformed_and_counted_under_no_name():
    rows, summary = audit_bytes(line(arguments={}) + line(name=5))
    assert [(r["tool"], r["errors"]) for r in rows] == [
        (None, ["malformed:name"]),
        (None, ["malformed:name"]),
    ]
    assert summary.by_tool[NO_NAME].invalid == 2
    assert "not a string" in rows[1]["detail"]


def test_malformed_lines_are_located_and_the_run_goes_on():
    data = (
        line(name="ping")
        + b"this is not json\n"
        + b"\n"
        + b"   \r\n"
        + b"[1, 2]\n"
        + b'{"name": "ping", "argu\n'
        + line(name="ping")
    )
    rows, summary = audit_bytes(data)
    located = [(r["line"], r["errors"], r["index"]) for r in rows]
    assert located == [
        (1, [], 0),
        (2, ["malformed:json"], None),
        (5, ["malformed:record"], None),
        (6, ["malformed:json"], None),
        (7, [], 0),
    ]
    assert "column" in rows[1]["detail"]
    assert "an array" in rows[2]["detail"]
    assert (summary.lines, summary.blank_lines, summary.records) == (7, 2, 5)
    assert summary.record_errors == {"malformed:json": 2, "malformed:record": 1}
    assert summary.malformed_records == 3
    assert summary.calls == 2
    # Malformed records count as failures, so all-broken logs cannot pass.
    assert summary.error_rate == pytest.approx(3 / 5)


def test_a_byte_order_mark_on_the_first_line_is_ignored():
    rows, _ = audit_bytes(b"\xef\xbb\xbf" + line(name="ping"))
    assert rows[0]["ok"] is True


def test_a_last_line_without_newline_is_audited():
    rows, summary = audit_bytes(line(name="ping") + b'{"name": "ping"}')
    assert [r["line"] for r in rows] == [1, 2]
    assert summary.lines == 2


def test_lines_over_the_limit_are_reported_not_parsed():
    long_line = line(name="get_weather", arguments={"city": "x" * 500})
    rows, summary = audit_bytes(
        line(name="ping") + long_line + line(name="ping"), options=AuditOptions(max_line_bytes=100)
    )
    assert [r["errors"] for r in rows] == [[], ["malformed:json"], []]
    assert "max-line-bytes" in rows[1]["detail"]
    assert summary.lines == 3


def test_errors_only_keeps_failing_rows_but_counts_everything():
    data = line(name="ping") + line(name="get_weather") + b"oops\n"
    rows, summary = audit_bytes(data, options=AuditOptions(errors_only=True))
    assert [r["line"] for r in rows] == [2, 3]
    assert summary.calls == 2 and summary.ok == 1


def test_run_writes_the_same_rows_as_jsonl():
    data = line(id=1, name="ping") + line(name="get_weather", arguments='{"days": 1}') + b"{bad\n"
    rows, summary = audit_bytes(data)
    out = io.BytesIO()
    written = Audit([Source("-")], WEATHER_SCHEMAS, stdin=io.BytesIO(data)).run(out)
    assert [orjson.loads(x) for x in out.getvalue().splitlines()] == rows
    assert written == summary


def test_an_audit_runs_once():
    # A second pass would add every count again.
    run = Audit([Source("-")], WEATHER_SCHEMAS, stdin=io.BytesIO(line(name="ping")))
    assert len(list(run)) == 1
    with pytest.raises(RuntimeError, match="an Audit runs once"):
        list(run)
    with pytest.raises(RuntimeError, match="an Audit runs once"):
        run.run()
    assert run.summary is not None and run.summary.calls == 1


def test_other_record_fields_are_ignored_but_the_id_is_kept():
    rows, _ = audit_bytes(line(id={"nested": [1]}, model="m", timestamp="t", name="ping"))
    assert rows[0]["id"] == {"nested": [1]}


def test_summary_round_trips_through_json():
    _, summary = audit_bytes(
        line(name="get_weather", arguments={"days": "x"}) + b"{\n" + line(name="zz")
    )
    assert Summary.from_dict(orjson.loads(orjson.dumps(summary.to_dict()))) == summary


def test_the_package_level_audit_function(in_repo):
    import toolaudit

    run = toolaudit.audit(["sample_logs/calls.jsonl"], "sample_logs/schemas.json", errors_only=True)
    rows = list(run)
    assert rows and all(not row["ok"] for row in rows)
    assert run.summary is not None and run.summary.invalid + run.summary.malformed_records == len(
        rows
    )
    from_mapping = toolaudit.audit(
        ["sample_logs/calls.jsonl"],
        orjson.loads((in_repo / "sample_logs/schemas.json").read_bytes()),
    )
    assert from_mapping.run() == run.summary


def test_importing_the_contract_loads_nothing_heavy():
    import subprocess
    import sys

    heavy = "('orjson', 'typer', 'tqdm', 'toolaudit.pipeline.audit')"
    code = f"import sys, toolaudit; print(sorted(m for m in {heavy} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

RECORD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(max_size=3),
    st.sampled_from(["get_weather", "ping", "nope", '{"city": "P"}', "", "[]"]),
    st.dictionaries(
        st.sampled_from(["city", "days", "units", "x"]),
        st.one_of(st.text(max_size=2), st.integers(-9, 9), st.booleans()),
        max_size=3,
    ),
)
RECORDS = st.dictionaries(
    st.sampled_from(
        [
            "name",
            "arguments",
            "id",
            "call_id",
            "model",
            "choices",
            "jsonrpc",
            "run_type",
            "result",
            "type",
            "content",
        ]
    ),
    RECORD_VALUES,
    max_size=5,
).map(
    lambda record: (
        {"name": "get_weather", **record} if "arguments" in record and len(record) < 3 else record
    )
)


@settings(max_examples=300, deadline=None)
@given(st.lists(RECORDS, max_size=6), st.sampled_from([(), ("model",), ("model", "id")]))
def test_the_inline_fast_path_changes_nothing(records, group_by):
    data = b"".join(orjson.dumps(record) + b"\n" for record in records)
    options = AuditOptions(group_by=group_by)
    fast = Audit([Source("-")], WEATHER_SCHEMAS, options, stdin=io.BytesIO(data))
    fast_rows = list(fast)
    slow = Audit([Source("-")], WEATHER_SCHEMAS, options, stdin=io.BytesIO(data))
    slow.inline_fast_path = False
    slow.typed_fast_path = False  # which reads flat calls too
    slow_rows = list(slow)
    assert fast_rows == slow_rows
    assert fast.summary == slow.summary
    assert_counts_add_up(fast.summary)


def _chat(finish: str, arguments: str) -> dict:
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    message = {"role": "assistant", "tool_calls": [call]}
    return {"object": "chat.completion", "model": "m", "choices": [
        {"finish_reason": finish, "message": message}]}  # fmt: skip


def _anthropic(stop: str) -> dict:
    block = {"type": "tool_use", "id": "t", "name": "get_weather", "input": {"city": "Oslo"}}
    return {"type": "message", "role": "assistant", "model": "m", "content": [block],
            "stop_reason": stop}  # fmt: skip


def _bedrock(stop: str) -> dict:
    block = {"toolUse": {"toolUseId": "t", "name": "get_weather", "input": {}}}
    return {"output": {"message": {"role": "assistant", "content": [block]}}, "stopReason": stop}


def test_calls_of_a_response_cut_off_at_its_length_limit_are_counted_valid_or_not():
    """Flagged on their rows, and counted in the summary (per tool), so that CI sees them."""
    records = [
        _chat("length", '{"city": "Paris"}'),  # valid, but maybe cut: counted
        _chat("length", '{"city": "Par'),  # cut mid-text: malformed, and counted
        _chat("tool_calls", '{"city": "Rome"}'),  # not cut
        _anthropic("max_tokens"),
        _anthropic("tool_use"),
        _bedrock("max_tokens"),  # missing:city, and counted
    ]
    rows, summary = audit_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    assert [("length limit" in row.get("detail", "")) for row in rows] == [
        True, True, False, True, False, True]  # fmt: skip
    assert summary.calls_cut_off == 4
    assert summary.by_tool["get_weather"].calls_cut_off == 4
    again = Summary.from_dict(orjson.loads(orjson.dumps(summary.to_dict())))
    assert again.calls_cut_off == 4 and again.merged(again).calls_cut_off == 8
