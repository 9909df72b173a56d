"""The format registry: detection order, the choices, and what it derives from the
formats' declarations. (What each format reads is in the case folders: test_cases.py.)"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolaudit
from toolaudit.formats import (
    EXPECTED,
    FORMATS,
    Extracted,
    Format,
    UnknownShape,
    detect,
    extract,
    format_names,
    get_format,
    is_format,
)
from toolaudit.formats.registry import DETECTION_ORDER, REGISTRY, Registry, expected_message

from ..conftest import REPO

CASES = REPO / "tests" / "cases" / "formats"
SCHEMAS = str(CASES / "flat" / "schemas.json")
DOCS = REPO / "docs" / "formats.md"

#: One record of each format, as detect() must name it.
RECORDS = [
    ({"name": "x", "arguments": {}}, "flat"),
    ({"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}, "single-call"),
    ({"functionCall": {"name": "x", "args": {}}}, "single-call"),
    ({"toolUse": {"toolUseId": "t", "name": "x", "input": {}}}, "single-call"),
    ({"choices": []}, "openai-chat"),
    ({"object": "response", "output": []}, "openai-responses"),
    ({"custom_id": "a", "response": None, "error": {}}, "openai-batch"),
    (
        {"custom_id": "a", "method": "POST", "url": "/v1/chat/completions", "body": {}},
        "openai-batch-input",
    ),
    ({"object": "text_completion", "choices": []}, "openai-completions"),
    ({"object": "chat.completion.chunk", "choices": []}, "openai-chat-stream"),
    ({"choices": [{"index": 0, "delta": {}}]}, "openai-chat-stream"),
    ({"type": "response.output_item.added", "item": {}}, "openai-responses-stream"),
    ({"type": "response.completed", "response": {}}, "openai-responses-stream"),
    ({"type": "message", "content": []}, "anthropic"),
    ({"custom_id": "a", "result": {"type": "expired"}}, "anthropic-batch"),
    ({"type": "message_start", "message": {}}, "anthropic-stream"),
    ({"type": "error", "error": {"type": "overloaded_error"}}, "anthropic-stream"),
    ({"request_id": "r", "event": {"type": "ping"}}, "anthropic-stream"),
    ({"candidates": []}, "gemini"),
    ({"jsonrpc": "2.0", "method": "ping"}, "mcp"),
    ({"type": "ai", "content": ""}, "langchain"),
    ({"run_type": "llm"}, "langsmith"),
    ({"id": "q", "result": []}, "bfcl"),
    ({"output": {"message": {}}}, "bedrock"),
    ({"contentBlockDelta": {"delta": {}, "contentBlockIndex": 0}}, "bedrock-stream"),
    ({"stream_id": "s", "event": {"metadata": {"usage": {}}}}, "bedrock-stream"),
    ({"model": "m", "message": {"role": "assistant"}}, "ollama"),
    ({"generated_text": ""}, "tgi"),
    ({"resourceSpans": []}, "otlp-json"),
    ({"name": "chat", "attributes": {}}, "otel-span"),
    ({"request": {}, "response": {}}, "envelope"),
    ({"model": "m", "messages": []}, "openai-chat-request"),
    ({"model": "m", "input": "hi"}, "openai-responses-request"),
    ({"input": [{"role": "user", "content": "hi"}]}, "openai-responses-request"),
    ({"model": "m", "max_tokens": 1, "system": "s", "messages": []}, "anthropic-request"),
    ({"modelId": "m", "messages": []}, "bedrock-request"),
    ({"contents": []}, "gemini-request"),
]


@pytest.mark.parametrize(("record", "kind"), RECORDS, ids=[kind for _, kind in RECORDS])
def test_detection(record: dict[str, Any], kind: str) -> None:
    assert detect(record) == kind
    assert is_format(kind)


def test_every_format_has_a_detection_example() -> None:
    assert sorted({kind for _, kind in RECORDS}) == sorted(format_names())


@pytest.mark.parametrize(("record", "kind"), RECORDS, ids=[kind for _, kind in RECORDS])
def test_name_and_arguments_make_a_flat_call_whatever_else_the_record_holds(
    record: dict[str, Any], kind: str
) -> None:
    # The audit's inline fast path reads such records without the registry.
    assert detect({**record, "name": "x", "arguments": "{}"}) == "flat"


@pytest.mark.parametrize(
    ("record", "kind"),
    [
        ({"name": "x"}, "flat"),
        ({"arguments": {}}, "flat"),
        # Half a call is flat only when no format recognises the record.
        ({"name": "x", "choices": []}, "openai-chat"),
        ({"arguments": {}, "message": {}}, "ollama"),
        ({"name": "x", "request": {}}, "envelope"),
        # A request never takes half a call.
        ({"name": "x", "messages": []}, "flat"),
        ({"arguments": {}, "contents": []}, "flat"),
        ({"name": "x", "input": []}, "flat"),
    ],
)
def test_half_a_call_is_flat_only_as_a_last_resort(record: dict[str, Any], kind: str) -> None:
    assert detect(record) == kind


def test_the_detection_order_is_pinned() -> None:
    # Where a format goes in DETECTION_ORDER decides which format a record is; moving
    # one changes what records are read as.
    assert [fmt.name for fmt in REGISTRY.detection_order] == [
        "flat",
        "anthropic-batch",
        "openai-batch-input",
        "openai-batch",
        "openai-responses-stream",
        "envelope",
        "mcp",
        "openai-chat-stream",
        "openai-completions",
        "openai-chat",
        "openai-responses",
        "anthropic-stream",
        "anthropic",
        "gemini",
        "langsmith",
        "langchain",
        "bfcl",
        "bedrock-stream",
        "bedrock",
        "tgi",
        "single-call",
        "ollama",
        "openai-chat-request",
        "openai-responses-request",
        "anthropic-request",
        "bedrock-request",
        "gemini-request",
        "otlp-json",
        "otel-span",
    ]


def test_the_choices_keep_their_order() -> None:
    # The order --help lists them in (and the docs show its output).
    assert format_names() == (
        "flat",
        "openai-chat",
        "openai-responses",
        "openai-batch",
        "openai-batch-input",
        "openai-completions",
        "openai-chat-stream",
        "openai-responses-stream",
        "anthropic",
        "anthropic-batch",
        "anthropic-stream",
        "gemini",
        "mcp",
        "langchain",
        "langsmith",
        "bfcl",
        "bedrock",
        "bedrock-stream",
        "ollama",
        "tgi",
        "otlp-json",
        "otel-span",
        "envelope",
        "single-call",
        "openai-chat-request",
        "openai-responses-request",
        "anthropic-request",
        "bedrock-request",
        "gemini-request",
    )
    assert format_names() == tuple(fmt.name for fmt in FORMATS)


def test_names_are_checked_without_raising() -> None:
    assert is_format("mcp")
    assert not is_format("nope")
    assert not is_format("auto")  # the CLI's word for "detect", not a format
    assert not is_format(None)
    assert not is_format(["mcp"])  # unhashable: False, not TypeError
    assert get_format("bedrock").summary == "Bedrock Converse"
    with pytest.raises(KeyError):
        get_format("nope")


def test_the_expected_message_is_derived_to_the_same_text() -> None:
    # Users see it in reports (detail of malformed:record): it must not drift.
    assert EXPECTED == (
        "expected a tool call {name, arguments} or a record of OpenAI (chat, responses, batch, "
        "stream), Anthropic (message, batch, stream), Gemini, MCP, LangChain/LangSmith, BFCL, "
        "Bedrock, Ollama or OpenTelemetry (OTLP/JSON, span)"
    )


def _extractor(record: Mapping[str, Any]) -> Extracted:
    return Extracted("made-up")


def _never(record: Mapping[str, Any]) -> bool:
    return False


def made_up(name: str, **fields: Any) -> Format:
    return Format(
        name=name, summary=name, recognises=_never, keys=("k",), extract=_extractor, **fields
    )


def test_the_expected_message_names_families_once_with_their_variants() -> None:
    formats = [
        made_up("a", family="A", variant="x"),
        made_up("b"),
        made_up("c", family="A", variant="y"),
        made_up("d", family="A", variant="x"),
        made_up("e", family="E"),
    ]
    assert expected_message(formats).endswith("a record of A (x, y) or E")
    assert expected_message(formats[-1:]).endswith("a record of E")
    assert expected_message(formats[1:2]) == "expected a tool call {name, arguments}"


def test_a_registry_refuses_ambiguous_declarations() -> None:
    a, b = made_up("a"), made_up("b")
    with pytest.raises(ValueError, match="share a name"):
        Registry([a, made_up("a")])
    for order in ([a], [a, b, a], [a, made_up("b")]):
        with pytest.raises(ValueError, match="hold each format once"):
            Registry([a, b], order)
    assert Registry([a, b], [b, a]).detection_order == (b, a)
    assert Registry([a, b]).detection_order == (a, b)
    with pytest.raises(TypeError, match="exactly one of extract"):
        Format(name="z", summary="z", recognises=_never, keys=("k",))
    with pytest.raises(TypeError, match="top-level keys"):
        Format(name="z", summary="z", recognises=_never, keys=(), extract=_extractor)
    with pytest.raises(TypeError, match="tools are defined by"):
        made_up("z", defines_tools="file")
    with pytest.raises(AttributeError, match="read-only"):
        FORMATS[0].name = "other"  # type: ignore[misc]


def test_a_record_no_format_recognises_says_what_was_expected() -> None:
    with pytest.raises(UnknownShape) as raised:
        detect({"hello": "world"})
    assert str(raised.value) == f"no known log format: {EXPECTED}"


@pytest.mark.parametrize(
    ("record", "name"),
    [
        ({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "t"}}, "mcp"),
        ({"custom_id": "a", "method": "POST", "body": {"tools": []}}, "openai-batch"),
        (
            {"custom_id": "a", "response": {"status_code": 200, "body": {"choices": []}}},
            "openai-batch",
        ),
        ({"request": {"model": "m"}}, "request"),
        ({"request": {}, "response": {"type": "message", "content": []}}, "anthropic"),
        ({"request": {}, "response": {"candidates": []}}, "gemini"),
    ],
)
def test_extracted_formats_keep_their_names(record: dict[str, Any], name: str) -> None:
    # The pipeline asks a record's format for its facts by Extracted.format.
    assert extract(record).format == name


def test_a_forced_format_reads_every_line_as_that_format(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"name": "get_weather", "arguments": {"city": "P"}}\n')
    rows = list(toolaudit.audit([str(log)], SCHEMAS, input_format="anthropic"))
    assert rows[0]["errors"] == ["malformed:record"]
    assert "content array" in rows[0]["detail"]


def test_records_without_calls_are_counted() -> None:
    run = toolaudit.audit([str(CASES / "openai-chat" / "input.jsonl")], SCHEMAS)
    list(run)
    assert run.summary.records_without_calls == 2  # the text answer and the custom tool call
    assert run.summary.record_errors == {}


def test_a_call_without_schemas_stops_the_run_with_its_location(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    chat = (CASES / "openai-chat" / "input.jsonl").read_text().splitlines()[2]
    log.write_text(chat + "\n")
    with pytest.raises(toolaudit.ToolAuditError, match=r"log.jsonl:1: no tool schemas"):
        list(toolaudit.Audit.of_paths([str(log)]))


def test_records_carrying_tools_need_no_schemas_file(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    pair = (CASES / "bedrock" / "input.jsonl").read_text().splitlines()[0]
    log.write_text(pair + "\n")
    rows = list(toolaudit.Audit.of_paths([str(log)]))
    assert rows[0]["ok"] is True


def _case_records() -> list[Any]:
    records = []
    for path in sorted((REPO / "tests" / "cases" / "formats").glob("*/input.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    return [r for r in records if isinstance(r, dict)]


def _detected(registry: Registry, record: Mapping[str, Any]) -> str:
    """What the registry's keyed detection finds."""
    try:
        return registry.detect(record)
    except UnknownShape:
        return "<unknown>"


def _detected_exhaustively(registry: Registry, record: Mapping[str, Any]) -> str:
    """What calling every format's recogniser, in detection order, finds: the rule the
    keyed plans must give the same answer as."""
    for fmt in registry.detection_order:
        if fmt.recognises(record):
            return fmt.name
    for fmt in registry.detection_order:
        if fmt.fallback is not None and fmt.fallback(record):
            return fmt.name
    return "<unknown>"


def test_keyed_detection_finds_what_trying_every_format_finds() -> None:
    # Each format's keys are a promise (a record it recognises holds one of them);
    # detection calls only the formats whose keys a record has. Held to it here on
    # every case record, and on each with one of its keys removed, each in turn.
    records = _case_records()
    records += [record for record, _ in RECORDS]
    checked = 0
    for record in records:
        keys = list(record)
        for drop in range(len(keys)):
            for variant in ({k: v for k, v in record.items() if k != keys[drop]}, record):
                fresh = Registry(FORMATS, DETECTION_ORDER)
                assert _detected(fresh, variant) == _detected_exhaustively(fresh, variant), variant
                checked += 1
    assert checked > 100


@given(
    st.dictionaries(
        st.sampled_from(sorted(REGISTRY._gate | {"model", "id", "body", "method", "error"})),
        st.one_of(
            st.none(),
            st.text(max_size=3),
            st.sampled_from(["2.0", "message", "ai", "response"]),
            st.dictionaries(st.sampled_from(["message", "body", "choices"]), st.just({})),
        ),
        max_size=6,
    )
)
@settings(max_examples=500, deadline=None)
def test_keyed_detection_on_random_records(record: dict[str, Any]) -> None:
    assert _detected(REGISTRY, record) == _detected_exhaustively(REGISTRY, record)


def test_a_format_without_its_key_is_not_tried() -> None:
    # The plan for a record holding no format's key calls no recogniser at all.
    calls: list[str] = []

    def spy(record: Mapping[str, Any]) -> bool:
        calls.append("called")
        return True

    registry = Registry(
        [Format(name="s", summary="s", recognises=spy, keys=("k",), extract=_extractor)]
    )
    with pytest.raises(UnknownShape):
        registry.detect({"other": 1})
    assert calls == []
    assert registry.detect({"k": 1}) == "s" and calls == ["called"]


def test_the_docs_list_every_format() -> None:
    text = DOCS.read_text()
    missing = [name for name in format_names() if f"(`{name}`)" not in text]
    assert missing == [], "docs/formats.md names each format as (`name`)"
