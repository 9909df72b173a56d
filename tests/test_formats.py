"""Real-world log formats: fixtures shaped as the providers' SDKs serialise them.

Each fixture line is audited through the library; the expected rows give
(line, index, id, tool, model, errors, words the detail must hold).
Lines that hold no call (text answers, failed batch requests, tool runs,
tools/list results...) have no row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import toolaudit
from toolaudit.pipeline.audit import AuditOptions
from toolaudit.formats import EXTRACTORS, detect

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
SCHEMAS = str(FIXTURES / "schemas.json")

CASES = {
    "openai_chat.jsonl": [
        (1, 0, "call_abc123", "get_weather", "gpt-4o-2024-08-06", [], None),
        (1, 1, "call_def456", "get_weather", "gpt-4o-2024-08-06", [], None),
        (2, 0, None, "get_weather", "gpt-3.5-turbo-0613", [], None),  # legacy function_call
        (3, 0, "chatcmpl-tool-6d2b0c1f9a3e4b7c8d9e0f1a2b3c4d5e", "get_weather", "Qwen/Qwen2.5-7B-Instruct", [], None),
        (4, 0, "call_cut", "get_weather", "gpt-4o-mini", ["malformed:arguments"], 'finish_reason "length"'),
        (5, 0, "call_dbl", "get_weather", "gpt-4o-mini", ["malformed:arguments"], "double-encoded"),
        (5, 1, "call_arr", "get_weather", "gpt-4o-mini", ["malformed:arguments"], "an array"),
        (6, 0, "call_u", "get_forecast", "gpt-4o-mini", ["unknown_tool:get_forecast"], None),
        (6, 1, "call_x", "get_weather", "gpt-4o-mini", [], None),
        # line 7: a text answer, no call
        (8, 0, "call_n0", "get_weather", "gpt-4o-mini", [], None),  # n=2: both choices' calls
        (8, 1, "call_n1", "get_weather", "gpt-4o-mini", ["type:city"], None),
        # line 9: a custom (free-text) tool call: nothing to validate
        (10, None, None, None, None, ["malformed:record"], "stream chunk"),
        (11, 0, None, "get_weather", "qwen3:8b", [], None),  # Ollama: arguments an object
    ],
    "openai_responses_batch.jsonl": [
        (1, 0, "call_123", "get_weather", "gpt-4.1-2025-04-14", [], None),
        (2, 0, "call_456", "get_weather", "gpt-4.1-2025-04-14", ["malformed:arguments"], "max_output_tokens"),
        (3, 0, "call_789", "get_weather", None, ["unexpected:units"], None),  # an output item logged alone
        # line 4: a Batch input line: its tools judge line 5 (same custom_id)
        (5, 0, "call_1", "lookup_weather", "gpt-4o-mini-2024-07-18", ["missing:town", "unexpected:city"], None),
        # line 6: an expired request: a request error, no call
        (7, 0, "call_9", "get_weather", "gpt-4o-mini-2024-07-18", [], None),
    ],
    "anthropic.jsonl": [
        (1, 0, "toolu_01A09q90qw90lq917835lq9", "get_weather", "claude-sonnet-4-5", [], None),
        # a batch result carries no tools: --schemas (city, not location) judges it
        (2, 0, "toolu_01A09q90qw90lq917835lq9", "get_weather", "claude-sonnet-4-5", ["missing:city", "unexpected:location"], None),
        # line 3: an errored batch result
        (4, 0, "toolu_a", "get_weather", "claude-haiku-4-5", [], 'stop_reason "max_tokens"'),
        (4, 1, "toolu_b", "get_weather", "claude-haiku-4-5", ["missing:city", "unexpected:location"], "logged as a JSON string"),
        (5, None, None, None, None, ["malformed:record"], "stream event"),
    ],
    "gemini.jsonl": [
        (1, 0, None, "get_weather", "gemini-2.5-flash", [], None),  # STRING, nullable INTEGER
        (2, 0, "fc-1", "get_weather", "gemini-2.5-pro", [], None),  # snake_case SDK dump
        (2, 1, None, "get_weather", "gemini-2.5-pro", ["type:city"], None),
        (3, 0, None, None, "gemini-2.5-flash", ["malformed:call"], "MALFORMED_FUNCTION_CALL"),
        # line 4: a text answer
        (5, 0, None, "get_weather", "gemini-2.5-flash", ["missing:city"], None),  # a batch line with its request
    ],
    "mcp.jsonl": [
        (1, 0, 2, "get_weather", None, [], None),  # before any tools/list: --schemas judges it
        # lines 2-3: a tools/list result in two pages, merged
        (4, 0, 2, "get_weather", None, [], None),
        (7, 0, 4, "get_time", None, [], None),  # arguments may be omitted
        (8, 0, 5, "get_weather", None, ["malformed:arguments"], "an array"),
        (9, 0, 6, "invalid_tool_name", None, ["unknown_tool:invalid_tool_name"], None),
    ],
    "langchain.jsonl": [
        (1, 0, "call_abc123", "get_weather", "gpt-4o", [], None),  # LangSmith llm run
        # line 2: a tool run is an execution, not a call of the model's
        (3, 0, "call_1", "get_weather", "gpt-4o-2024-08-06", [], None),  # dumpd AIMessage
        (3, 1, "call_2", "get_weather", "gpt-4o-2024-08-06", ["malformed:arguments"], "not valid JSON"),
        (4, 0, "toolu_1", "get_weather", "claude-sonnet-4-5", ["malformed:arguments"], "double-encoded"),
        (5, 0, "call_3", "get_weather", None, ["missing:city", "unexpected:town"], None),  # model_dump
    ],
    "bedrock.jsonl": [
        (1, 0, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "get_weather", "anthropic.claude-3-5-sonnet-20240620-v1:0", [], None),
    ],
}


def audit_rows(path: Path, schemas: str) -> list[tuple]:
    rows = list(toolaudit.audit([str(path)], schemas))
    return [
        (r["line"], r["index"], r["id"], r["tool"], r.get("model"), r["errors"], r.get("detail"))
        for r in rows
    ]


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_format_fixtures(fixture):
    actual = audit_rows(FIXTURES / fixture, SCHEMAS)
    expected = CASES[fixture]
    assert [row[:6] for row in actual] == [row[:6] for row in expected]
    for got, want in zip(actual, expected):
        if want[6] is not None:
            assert got[6] is not None and want[6] in got[6], (got, want)


def test_bfcl_results_are_judged_by_their_question_and_dotted_names_are_mapped_back():
    actual = audit_rows(FIXTURES / "bfcl_result.jsonl", str(FIXTURES / "bfcl_questions.jsonl"))
    assert [row[:6] for row in actual] == [
        (1, 0, "simple_python_1", "math.factorial", None, []),  # sent as math_factorial
        (2, 0, "simple_python_1", "math.factorial", None, []),  # prompt mode: Python call syntax
        # line 3: a text answer
        (4, 0, "simple_python_1", "math.factorial", None, ["type:number"]),
        (4, 1, "simple_python_1", "math_hypot", None, ["unknown_tool:math_hypot"]),  # not this question's
        (5, 0, "simple_python_1", None, None, ["malformed:call"]),
        (6, 0, "nonexistent_question", "math_factorial", None, ["unknown_tool:math_factorial"]),
    ]
    assert "not a Python literal: true" in actual[4][6]
    assert "no question with id" in actual[5][6]


def test_records_without_calls_are_counted():
    run = toolaudit.audit([str(FIXTURES / "openai_chat.jsonl")], SCHEMAS)
    list(run)
    summary = run.summary
    assert summary.records_without_calls == 2  # the text answer and the custom tool call
    assert summary.record_errors == {"malformed:record": 1}


def test_a_forced_format_reads_every_line_as_that_format(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"name": "get_weather", "arguments": {"city": "P"}}\n')
    rows = list(toolaudit.audit([str(log)], SCHEMAS, input_format="anthropic"))
    assert rows[0]["errors"] == ["malformed:record"]
    assert "content array" in rows[0]["detail"]


def test_a_call_without_schemas_stops_the_run_with_its_location(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text((FIXTURES / "openai_chat.jsonl").read_text().splitlines()[2] + "\n")
    with pytest.raises(toolaudit.ToolAuditError, match=r"log.jsonl:1: no tool schemas"):
        list(toolaudit.Audit.of_paths([str(log)]))


def test_records_carrying_tools_need_no_schemas_file():
    rows = list(toolaudit.Audit.of_paths([str(FIXTURES / "bedrock.jsonl")]))
    assert rows[0]["ok"] is True


@pytest.mark.parametrize(
    ("record", "kind"),
    [
        ({"name": "x", "arguments": {}}, "flat"),
        ({"name": "x", "arguments": "{}", "choices": []}, "flat"),  # name + arguments always wins
        ({"choices": []}, "openai-chat"),
        ({"object": "response", "output": []}, "openai-responses"),
        ({"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {}}, "openai-batch-input"),
        ({"custom_id": "a", "response": None, "error": {}}, "openai-batch"),
        ({"custom_id": "a", "result": {"type": "expired"}}, "anthropic-batch"),
        ({"type": "message", "content": []}, "anthropic"),
        ({"candidates": []}, "gemini"),
        ({"jsonrpc": "2.0", "method": "ping"}, "mcp"),
        ({"run_type": "llm"}, "langsmith"),
        ({"type": "ai", "content": ""}, "langchain"),
        ({"id": "q", "result": []}, "bfcl"),
        ({"output": {"message": {}}}, "bedrock"),
        ({"model": "m", "message": {"role": "assistant"}}, "ollama"),
        ({"request": {}, "response": {}}, "envelope"),
    ],
)
def test_detection(record, kind):
    assert detect(record) == kind
    assert kind in EXTRACTORS


def test_a_record_of_no_known_shape_says_what_was_expected(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"hello": "world"}\n')
    rows = list(toolaudit.audit([str(log)], SCHEMAS))
    assert rows[0]["errors"] == ["malformed:record"]
    assert "expected a tool call {name, arguments}" in rows[0]["detail"]


def test_input_format_choices_are_the_extractors():
    assert AuditOptions(input_format="mcp").input_format in EXTRACTORS
