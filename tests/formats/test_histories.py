"""Where records carry a conversation (``Extracted.history``): requests logged alone, in
the JSON each provider's SDK sends; a pair's request; an OpenAI Batch input line's body;
a LangSmith chat-model run; an OpenTelemetry span's ``gen_ai.input.messages``. The
messages are the record's own list, as logged (the checker reads them, not a copy)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import orjson
import pytest

import toolaudit
from toolaudit.formats import UnknownShape, detect, extract
from toolaudit.formats.request_shapes import request_shape

from ..conftest import REPO
from . import sdk_requests

REQUEST_FORMATS = {
    "openai-chat-request",
    "openai-responses-request",
    "anthropic-request",
    "bedrock-request",
    "gemini-request",
}
#: Each SDK's body: (the format it is, the history's shape, where its messages are).
SDK_BODIES: list[tuple[Callable[[], dict[str, Any]], str, str, str]] = [
    (sdk_requests.openai_chat_body, "openai-chat-request", "openai-chat", "messages"),
    (
        sdk_requests.openai_responses_body,
        "openai-responses-request",
        "openai-responses",
        "input",
    ),
    (sdk_requests.anthropic_body, "anthropic-request", "anthropic", "messages"),
    (sdk_requests.bedrock_body, "bedrock-request", "bedrock", "messages"),
    (sdk_requests.gemini_body, "gemini-request", "gemini", "contents"),
]
IDS = [format_name for _, format_name, _, _ in SDK_BODIES]


@pytest.fixture(scope="module", params=SDK_BODIES, ids=IDS)
def sdk_body(request: pytest.FixtureRequest) -> tuple[dict[str, Any], str, str, str]:
    build, format_name, shape, field = request.param
    return build(), format_name, shape, field


def test_a_request_logged_alone_is_its_apis_format_with_its_history(
    sdk_body: tuple[dict[str, Any], str, str, str],
) -> None:
    body, format_name, shape, field = sdk_body
    assert detect(body) == format_name
    found = extract(body)
    assert found.format == format_name
    assert found.calls == []  # the calls of a history are not the model's own
    assert found.tools is not None
    assert found.history is not None
    assert (found.history.shape, found.history.path) == (shape, field)
    assert found.history.messages is body[field]


def test_a_pair_holds_its_requests_history(sdk_body: tuple[dict[str, Any], str, str, str]) -> None:
    body, _, shape, field = sdk_body
    response = {"type": "message", "content": [{"type": "text", "text": "Sunny."}]}
    for record in ({"request": body, "response": response}, {"request": body}):
        found = extract(record)
        assert found.history is not None
        assert (found.history.shape, found.history.path) == (shape, f"request.{field}")
        assert found.history.messages is body[field]


@pytest.mark.parametrize(
    ("url", "body", "shape", "path"),
    [
        ("/v1/chat/completions", sdk_requests.openai_chat_body, "openai-chat", "body.messages"),
        ("/v1/responses", sdk_requests.openai_responses_body, "openai-responses", "body.input"),
    ],
)
def test_a_batch_input_line_holds_its_bodys_history(
    url: str, body: Callable[[], dict[str, Any]], shape: str, path: str
) -> None:
    line = {"custom_id": "r1", "method": "POST", "url": url, "body": body()}
    found = extract(line)
    assert found.history is not None
    assert (found.history.shape, found.history.path) == (shape, path)
    assert found.history.messages is line["body"][path.split(".")[1]]


def _langsmith_lines() -> list[dict[str, Any]]:
    path = REPO / "tests" / "cases" / "formats" / "langsmith" / "input.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_chat_model_run_holds_its_prompt() -> None:
    lines = _langsmith_lines()
    chat_model, tool_run, wrapped = lines[0], lines[1], lines[2]
    found = extract(chat_model)
    assert found.history is not None
    # One prompt: its list of LangChain messages.
    assert (found.history.shape, found.history.path) == ("langchain", "inputs.messages[0]")
    assert found.history.messages is chat_model["inputs"]["messages"][0]
    # wrap_openai logs the request it sent: OpenAI's own messages.
    found = extract(wrapped)
    assert found.history is not None
    assert (found.history.shape, found.history.path) == ("openai-chat", "inputs.messages")
    assert found.history.messages is wrapped["inputs"]["messages"]
    assert extract(tool_run).history is None  # a tool's run is given arguments, not a history


INPUT = [
    {"role": "user", "parts": [{"type": "text", "content": "Weather?"}]},
    {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get_weather"}]},
]


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        (json.dumps(INPUT), INPUT),  # a JSON string attribute, as the conventions record it
        (INPUT, INPUT),  # an array value
        ('[{"role": "user"', '[{"role": "user"'),  # cut by a backend: kept, for the check
    ],
)
def test_a_span_holds_its_input_messages(value: object, messages: object) -> None:
    span = {"name": "chat", "attributes": {"gen_ai.input.messages": value}}
    found = extract(span)
    assert found.history is not None
    assert found.history.shape == "otel"
    assert found.history.path == "attributes.gen_ai.input.messages"
    assert found.history.messages == messages
    assert extract({"name": "chat", "attributes": {}}).history is None


def test_an_otlp_lines_history_is_the_calling_spans() -> None:
    path = REPO / "tests" / "cases" / "formats" / "otlp-json" / "input.jsonl"
    found = extract(orjson.loads(path.read_text().splitlines()[-1]))
    assert found.history is not None
    assert found.history.path == (
        "resourceSpans[0].scopeSpans[0].spans[1].attributes.gen_ai.input.messages"
    )
    assert [message["role"] for message in found.history.messages] == [  # type: ignore[attr-defined]
        "user",
        "assistant",
        "tool",
        "user",
    ]


@pytest.mark.parametrize(
    ("request_body", "shape"),
    [
        ({"contents": []}, "gemini"),
        ({"model": "m", "input": []}, "openai-responses"),
        ({"model": "m"}, None),
        (
            {"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]},
            "openai-chat",
        ),
        ({"messages": [], "tools": [{"name": "f", "input_schema": {}}]}, "anthropic"),
        ({"messages": [], "tools": [{"toolSpec": {"name": "f"}}]}, "bedrock"),
        # What boto3 sends: modelId is in the URL, not the body.
        ({"messages": [], "toolConfig": {"tools": []}}, "bedrock"),
        ({"messages": [], "inferenceConfig": {"maxTokens": 9}}, "bedrock"),
        ({"messages": [], "system": [{"text": "s"}]}, "bedrock"),
        ({"messages": [], "system": "s", "max_tokens": 9}, "anthropic"),
        ({"messages": [], "system": [{"type": "text", "text": "s"}]}, "anthropic"),
        ({"messages": [], "anthropic_version": "bedrock-2023-05-31"}, "anthropic"),
        ({"messages": [{"role": "system", "content": "s"}]}, "openai-chat"),
        ({"messages": [{"role": "user", "content": "a"}, {"role": "tool"}]}, "openai-chat"),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]},
            "anthropic",
        ),
        ({"messages": [{"role": "user", "content": [{"toolResult": {}}]}]}, "bedrock"),
        # Nothing telling: Chat Completions, which compatible servers take.
        (
            {"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "a"}]},
            "openai-chat",
        ),
        # Values of any type are read without raising.
        ({"messages": [{"role": ["x"], "content": [{"type": {}}, 5]}, 7]}, "openai-chat"),
        ({"messages": "text", "tools": "none", "system": 3}, "anthropic"),
    ],
)
def test_a_requests_api_is_read_from_its_fields(
    request_body: dict[str, Any], shape: str | None
) -> None:
    assert request_shape(request_body) == shape


def test_no_case_record_of_another_format_is_taken_for_a_request() -> None:
    # The request formats come last and take only what no response format reads.
    cases = REPO / "tests" / "cases" / "formats"
    for path in sorted(cases.glob("*/input.jsonl")):
        if path.parent.name in REQUEST_FORMATS:
            continue
        for line in path.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
                name = detect(record) if isinstance(record, dict) else None
            except (orjson.JSONDecodeError, UnknownShape):
                continue
            assert name not in REQUEST_FORMATS, (path.parent.name, line[:120])


def test_odd_conversations_are_kept_as_logged() -> None:
    # The checker says what is wrong with them: the formats neither judge nor drop them.
    for messages in ({"role": "user"}, 5, [None, "x"]):
        found = extract({"request": {"model": "m", "messages": messages}})
        assert found.history is not None and found.history.messages is messages
    # One string of Responses input is one user turn: nothing to pair.
    assert extract({"model": "m", "input": "Weather?"}).history is None
    assert extract({"request": {"model": "m", "input": "Weather?"}}).history is None
    assert extract({"request": {"model": "m"}}).history is None


def test_a_request_logged_alone_counts_as_a_record_without_calls(tmp_path: Any) -> None:
    log = tmp_path / "requests.jsonl"
    log.write_text(
        "".join(json.dumps(build()) + "\n" for build, _, _, _ in SDK_BODIES), encoding="utf-8"
    )
    schemas = tmp_path / "schemas.json"
    schemas.write_text(json.dumps({"get_weather": {"parameters": sdk_requests.WEATHER}}))
    report = io.BytesIO()
    run = toolaudit.audit([str(log)], str(schemas))
    summary = run.run(report)
    assert report.getvalue() == b""
    assert (summary.records, summary.records_without_calls) == (5, 5)
    assert summary.malformed_records == 0


def test_the_gemini_sdks_arguments_keep_their_tools_in_config(tmp_path: Any) -> None:
    # An application that logs generate_content's keyword arguments, not the body sent.
    arguments = sdk_requests.gemini_sdk_arguments()
    found = extract(arguments)
    assert found.format == "gemini-request"
    assert found.tools == arguments["config"]["tools"]
    assert found.history is not None and found.history.messages is arguments["contents"]
    # The tools are those the calls of its history are judged against (--history).
    arguments["contents"][1]["parts"][0]["function_call"]["args"] = {"city": 7}
    log = tmp_path / "kwargs.jsonl"
    log.write_text(json.dumps(arguments) + "\n", encoding="utf-8")
    report = io.BytesIO()
    summary = toolaudit.audit([str(log)], history=True).run(report)
    (row,) = [orjson.loads(line) for line in report.getvalue().splitlines()]
    assert (row["tool"], row["errors"]) == ("get_weather", ["type:city"])
    assert summary.history_calls["get_weather"].invalid == 1


def test_no_tools_are_read_from_a_config_outside_a_gemini_request() -> None:
    chat = sdk_requests.openai_chat_body()
    chat["config"] = {"tools": [{"type": "function", "function": {"name": "f"}}]}
    assert extract(chat).tools == chat["tools"]


def test_a_spans_input_messages_are_decoded_only_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A whole history in JSON text: an audit without the conversation check never pays
    # for decoding it.
    import toolaudit.formats.otel as otel

    decoded: list[object] = []

    def counting(attributes: Any) -> object:
        decoded.append(attributes)
        return INPUT

    monkeypatch.setattr(otel, "input_messages", counting)
    found = extract({"name": "chat", "attributes": {"gen_ai.input.messages": json.dumps(INPUT)}})
    assert found.history is not None and decoded == []
    assert found.history.messages == INPUT and found.history.messages == INPUT
    assert len(decoded) == 1
