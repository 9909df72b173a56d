"""Fuzzing: whatever the input, the audit finishes, raises nothing, and every count adds up."""

from __future__ import annotations

import io

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source

from .conftest import WEATHER_SCHEMAS, assert_counts_add_up

# Keys of every supported format, so that random records look like real ones often.
FORMAT_KEYS = [
    "name",
    "arguments",
    "args",
    "id",
    "call_id",
    "model",
    "type",
    "choices",
    "message",
    "tool_calls",
    "function",
    "function_call",
    "finish_reason",
    "content",
    "input",
    "stop_reason",
    "candidates",
    "parts",
    "functionCall",
    "function_call",
    "finishReason",
    "jsonrpc",
    "method",
    "params",
    "result",
    "tools",
    "nextCursor",
    "custom_id",
    "response",
    "body",
    "status_code",
    "error",
    "request",
    "output",
    "object",
    "status",
    "run_type",
    "outputs",
    "generations",
    "extra",
    "invocation_params",
    "lc",
    "kwargs",
    "data",
    "invalid_tool_calls",
    "toolUse",
    "toolSpec",
    "inputSchema",
    "input_schema",
    "parameters",
    "properties",
    "required",
    "functionDeclarations",
    "key",
    "delta",
    "done_reason",
]
KEYS = st.one_of(st.sampled_from(FORMAT_KEYS), st.text(max_size=4))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.sampled_from(
        [
            "get_weather",
            "ping",
            "function",
            "tool_use",
            "message",
            "2.0",
            "tools/call",
            "llm",
            "ai",
            "succeeded",
            "length",
            "MALFORMED_FUNCTION_CALL",
            '{"city": "P"}',
            "[f(x=1)]",
        ]
    ),
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=6)
    ),
    max_leaves=25,
)


def audit(data: bytes, **options) -> tuple[list[dict], object]:
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(data))
    rows = list(run)
    assert_counts_add_up(run.summary)
    for row in rows:
        orjson.dumps(row)  # every row can be written
    return rows, run.summary


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(JSON, max_size=8))
def test_random_json_records_never_break_the_audit(records):
    lines = [orjson.dumps(record) for record in records]
    rows, summary = audit(b"".join(line + b"\n" for line in lines))
    assert summary.lines == len(lines)
    reported_lines = {row["line"] for row in rows}
    assert reported_lines <= set(range(1, len(lines) + 1))


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=1, max_value=64))
def test_random_bytes_never_break_the_audit(data, max_line_bytes):
    _, summary = audit(data, max_line_bytes=max_line_bytes)
    if data.startswith(b"\x1f\x8b"):  # gzip magic: read as (most likely damaged) gzip
        assert summary.complete or summary.lines == 0
        return
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    assert summary.lines == len(lines)
    assert summary.complete


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(KEYS, JSON, max_size=4), max_size=3), JSON)
def test_random_tools_carried_by_records_never_break_the_audit(tools, call):
    # A logged request whose tool definitions are anything at all.
    record = {
        "request": {"tools": tools},
        "response": {"choices": [{"message": {"tool_calls": [call]}}]},
    }
    audit(orjson.dumps(record) + b"\n")


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=5),
        st.dictionaries(st.sampled_from(["parameters", "x"]), JSON, max_size=2),
        max_size=3,
    )
)
def test_random_schemas_compile_or_raise_a_schema_error(schemas):
    from toolaudit.errors import SchemaError

    try:
        compiled = schema_set(schemas)
    except SchemaError:
        return
    validator = compiled.validator
    assert validator is not None
    for name in schemas:
        result = validator.validate({"name": name, "arguments": {"a": 1}})
        assert set(result) == {"ok", "errors"}
