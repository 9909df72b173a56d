"""Calls that failed silently, each of its own kind in the audit: arguments cut by the
length limit (``malformed:truncated``), a call the provider reports failed
(``malformed:provider``), a call a framework or server set apart as invalid (its error
text in the row). The contract's own results do not change."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

import toolaudit
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.sources import Source

from ..conftest import WEATHER_SCHEMAS, assert_counts_add_up

CUT = '{"city": "Par'


def audited(*records: dict[str, Any]) -> list[dict[str, Any]]:
    data = b"".join(orjson.dumps(record) + b"\n" for record in records)
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(), stdin=io.BytesIO(data))
    rows = list(run)
    assert run.summary is not None
    assert_counts_add_up(run.summary)
    return rows


def chat(arguments: str, finish: str = "tool_calls", **message: Any) -> dict[str, Any]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": arguments},
    }
    return {
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {"index": 0, "finish_reason": finish, "message": {"tool_calls": [call], **message}}
        ],
    }


def gemini(finish: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish}]}


@pytest.mark.parametrize(
    ("record", "errors"),
    [
        # Cut by the limit, the arguments do not parse: the limit cut them.
        (chat(CUT, "length"), ["malformed:truncated"]),
        (chat("", "length"), ["malformed:truncated"]),  # cut before the first character
        # Not cut, the same text: the model wrote it so.
        (chat(CUT), ["malformed:arguments"]),
        # Cut, but the arguments parse, to something else than an object: written so.
        (chat("[1, 2]", "length"), ["malformed:arguments"]),
        # Cut, the arguments whole: valid (counted in calls_cut_off).
        (chat('{"city": "Paris"}', "length"), []),
        (
            {
                "type": "message",
                "stop_reason": "max_tokens",
                "content": [{"type": "tool_use", "id": "t", "name": "get_weather", "input": CUT}],
            },
            ["malformed:truncated"],
        ),
        (
            gemini("MAX_TOKENS", [{"functionCall": {"name": "get_weather", "args": CUT}}]),
            ["malformed:truncated"],
        ),
        (
            {
                "object": "response",
                "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
                "output": [
                    {
                        "type": "function_call",
                        "call_id": "c",
                        "name": "get_weather",
                        "arguments": CUT,
                    }
                ],
            },
            ["malformed:truncated"],
        ),
    ],
)
def test_arguments_cut_by_the_length_limit_are_truncated(
    record: dict[str, Any], errors: list[str]
) -> None:
    [row] = audited(record)
    assert row["errors"] == errors
    if errors:
        assert list(row["why"]) == errors


@pytest.mark.parametrize(
    "reason", ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]
)
def test_a_call_gemini_reports_failed_is_the_providers(reason: str) -> None:
    [row] = audited(gemini(reason, []))
    assert (row["tool"], row["errors"]) == (None, ["malformed:provider"])
    assert row["detail"].startswith(f"Gemini reports {reason}")


def test_calls_bedrock_reports_failed_are_the_providers() -> None:
    use = {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Paris"}}}
    record = {
        "output": {"message": {"role": "assistant", "content": [use]}},
        "stopReason": "malformed_tool_use",
    }
    [row] = audited(record)
    assert (row["tool"], row["errors"]) == ("get_weather", ["malformed:provider"])
    assert row["why"] == {"malformed:provider": 'Bedrock reports stopReason "malformed_tool_use"'}


def test_invalid_tool_calls_are_reported_with_their_error_text() -> None:
    invalid = {"name": "get_weather", "args": CUT, "id": "c2", "error": "Malformed args."}
    langchain = {"type": "ai", "content": "", "tool_calls": [], "invalid_tool_calls": [invalid]}
    cut = {**langchain, "response_metadata": {"finish_reason": "length"}}
    # An OpenAI-compatible server that set the call apart in its chat message.
    server = chat('{"city": "Paris"}', invalid_tool_calls=[invalid])
    rows = audited(langchain, cut, server)
    assert [(row["line"], row["index"], row["errors"]) for row in rows] == [
        (1, 0, ["malformed:arguments"]),
        (2, 0, ["malformed:truncated"]),
        (3, 0, []),
        (3, 1, ["malformed:arguments"]),
    ]
    assert rows[0]["detail"] == "LangChain could not parse these arguments: Malformed args."
    assert rows[1]["detail"].startswith("LangChain could not parse these arguments")
    assert rows[3]["detail"] == "the server could not parse these arguments: Malformed args."
    assert rows[3]["id"] == "c2"


def test_the_contract_itself_still_calls_unparsable_arguments_malformed_arguments() -> None:
    # The kinds are the audit's reading of the record around a call: a call alone,
    # judged by the contract, is what it always was.
    schemas = {"get_weather": {"parameters": {"type": "object"}}}
    result = toolaudit.validate_tool_call(schemas, {"name": "get_weather", "arguments": CUT})
    assert result["errors"] == ["malformed:arguments"]


def test_the_summary_counts_the_new_kinds_as_malformed() -> None:
    data = (
        orjson.dumps(chat(CUT, "length"))
        + b"\n"
        + orjson.dumps(gemini("MALFORMED_FUNCTION_CALL", []))
        + b"\n"
    )
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(), stdin=io.BytesIO(data))
    list(run)
    assert run.summary is not None
    assert run.summary.to_dict()["by_kind"] == {"malformed": 2}
    assert run.summary.to_dict()["calls_cut_off"] == 1
