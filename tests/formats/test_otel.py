"""OpenTelemetry traces (otlp-json, otel-span): the three conventions, each call once,
the line's tools, model and --group-by fields, OTLP's value kinds, and bad values.

Spans are made with the real SDK, by the functions that make the case inputs
(tests/fixtures/formats/make_otel.py); broken values are written by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry import trace

import toolaudit
from toolaudit.formats import ABSENT, JSON_STRING, OBJECT, Extracted, UnknownShape, detect, extract

from ..fixtures.formats.make_otel import (
    WEATHER_DEFINITION,
    WEATHER_PARAMETERS,
    WEATHER_TOOL,
    chat_attributes,
    execute_tool_attributes,
    otlp_line,
    record,
    span,
    span_line,
    tool_call_message,
)

PARIS = {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
SCHEMAS = {"get_weather": {"parameters": WEATHER_PARAMETERS}}


def one_span(name: str, attributes: dict[str, Any], **fields: Any) -> list[Any]:
    def build(tracer: trace.Tracer) -> None:
        span(tracer, name, attributes)

    return record(build, **fields)


def otlp(name: str, attributes: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """One span as an OTLP/JSON line."""
    return otlp_line(one_span(name, attributes, **fields))


def dumped(name: str, attributes: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """One span as ReadableSpan.to_json() writes it."""
    return span_line(one_span(name, attributes, **fields)[0])


def spans_of(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def chat(*calls: dict[str, Any], **more: Any) -> dict[str, Any]:
    return chat_attributes(
        "gpt-4o", **{"gen_ai.output.messages": [tool_call_message(*calls)]}, **more
    )


def calls_of(found: Extracted) -> list[tuple[object, object, object]]:
    return [(call.name, call.arguments, call.id) for call in found.calls]


def audited(tmp_path: Path, *lines: dict[str, Any], **options: Any) -> toolaudit.Audit:
    log = tmp_path / "traces.jsonl"
    log.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return toolaudit.audit([str(log)], options.pop("schemas", None), **options)


# -- detection ------------------------------------------------------------------------


def test_each_shape_is_recognised() -> None:
    assert detect(otlp("chat gpt-4o", chat(PARIS))) == "otlp-json"
    assert detect(dumped("chat gpt-4o", chat(PARIS))) == "otel-span"
    # name + arguments stay a flat call, whatever else the record holds.
    assert detect({"name": "get_weather", "arguments": {}, "attributes": {}}) == "flat"
    assert extract({"resourceSpans": []}).calls == []


# -- the OTel GenAI conventions -----------------------------------------------------------


@pytest.mark.parametrize("encode", [json.dumps, lambda messages: messages])
@pytest.mark.parametrize("line", [otlp, dumped])
def test_genai_parts_as_a_json_string_or_an_array_value(encode: Any, line: Any) -> None:
    messages = [tool_call_message(PARIS, {"id": "call_2", "name": "get_time", "arguments": "{}"})]
    attributes = chat_attributes("gpt-4o", **{"gen_ai.output.messages": encode(messages)})
    found = extract(line("chat gpt-4o", attributes))
    assert calls_of(found) == [
        ("get_weather", {"city": "Paris"}, "call_1"),
        ("get_time", "{}", "call_2"),
    ]
    # Arguments an object or the model's JSON text, each decoded as what it is.
    assert [call.encoding for call in found.calls] == [OBJECT, JSON_STRING]
    assert [call.index for call in found.calls] == [0, 1]
    assert found.model == "gpt-4o"


def test_a_part_without_arguments_has_none() -> None:
    found = extract(otlp("chat gpt-4o", chat({"id": "c", "name": "ping"})))
    assert found.calls[0].arguments is ABSENT


def test_an_execute_tool_span_alone_is_judged_on_its_own_arguments() -> None:
    found = extract(
        otlp("execute_tool get_weather", execute_tool_attributes("get_weather", "c9", '{"x": 1}'))
    )
    assert calls_of(found) == [("get_weather", '{"x": 1}', "c9")]
    assert found.tools is None  # --schemas judges it


def test_an_execute_tool_span_without_arguments_holds_no_call() -> None:
    # Arguments are opt-in: not recorded is not "no arguments".
    attributes = execute_tool_attributes("get_weather", "c9", None)
    assert extract(otlp("execute_tool get_weather", attributes)).calls == []


def trace_of_one_call(model_arguments: object, tool_arguments: object) -> list[Any]:
    def build(tracer: trace.Tracer) -> None:
        call = {"id": "call_7", "name": "get_weather", "arguments": model_arguments}
        span(tracer, "chat gpt-4o", chat(call))
        executed = execute_tool_attributes("get_weather", " call_7", tool_arguments)
        span(tracer, "execute_tool get_weather", executed, at=1)

    return record(build)


def test_an_execute_tool_span_and_the_inference_of_its_call_are_one_call() -> None:
    # The model's output is judged; the tool's (repaired) arguments are not a second call.
    # The ids differ by a space, as in the conventions' own example.
    found = extract(otlp_line(trace_of_one_call({"city": 1}, {"city": "1"})))
    assert calls_of(found) == [("get_weather", {"city": 1}, "call_7")]


def test_the_execute_tool_span_may_come_first() -> None:
    spans = trace_of_one_call({"city": 1}, {"city": "1"})
    found = extract(otlp_line(list(reversed(spans))))
    assert calls_of(found) == [("get_weather", {"city": 1}, "call_7")]


def test_one_call_recorded_by_two_spans_counts_once() -> None:
    # A framework's span and the SDK's under it, both recording the model's output.
    def build(tracer: trace.Tracer) -> None:
        span(tracer, "chat gpt-4o", chat(PARIS, {"id": "call_8", "name": "get_time"}))
        span(tracer, "ChatOpenAI", chat(PARIS), at=1)

    found = extract(otlp_line(record(build)))
    assert [call.id for call in found.calls] == ["call_1", "call_8"]


def test_calls_without_ids_are_never_merged() -> None:
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    found = extract(otlp("chat gpt-4o", chat(call, call)))
    assert len(found.calls) == 2


def test_a_length_limit_is_noted_on_the_calls() -> None:
    messages = [tool_call_message(PARIS, finish="length")]
    found = extract(
        otlp("chat gpt-4o", chat_attributes("m", **{"gen_ai.output.messages": messages}))
    )
    assert found.calls[0].note is not None
    assert 'finish_reason "length"' in found.calls[0].note


# -- OpenLLMetry and OpenInference ----------------------------------------------------------


OPENLLMETRY = {
    "gen_ai.request.model": "claude-sonnet-4-5",
    "gen_ai.prompt.1.tool_calls.0.name": "get_weather",  # history: not the model's output
    "gen_ai.prompt.1.tool_calls.0.arguments": "{}",
    "gen_ai.completion.0.tool_calls.1.name": "get_time",
    "gen_ai.completion.0.tool_calls.0.id": "toolu_1",
    "gen_ai.completion.0.tool_calls.0.name": "get_weather",
    "gen_ai.completion.0.tool_calls.0.arguments": '{"city": "Rome"}',
    "gen_ai.completion.1.tool_calls.0.name": "get_weather",
    "gen_ai.completion.1.tool_calls.0.arguments": '{"city": "Bern"}',
    "gen_ai.completion.1.finish_reason": "max_tokens",
}


@pytest.mark.parametrize("line", [otlp, dumped])
def test_openllmetry_indexed_calls_in_order(line: Any) -> None:
    found = extract(line("anthropic.chat", OPENLLMETRY))
    assert calls_of(found) == [
        ("get_weather", '{"city": "Rome"}', "toolu_1"),
        ("get_time", ABSENT, None),
        ("get_weather", '{"city": "Bern"}', None),
    ]
    assert [call.note is not None for call in found.calls] == [False, False, True]
    assert found.model == "claude-sonnet-4-5"


def test_openllmetry_tools_in_both_spellings() -> None:
    attributes = {
        **OPENLLMETRY,
        "llm.request.functions.0.name": "get_weather",
        "llm.request.functions.0.description": "Current weather",
        "llm.request.functions.0.input_schema": json.dumps(WEATHER_PARAMETERS),  # Anthropic's
        "llm.request.functions.1.name": "get_time",
        "llm.request.functions.1.parameters": "null",  # OpenAI's, for a tool without any
    }
    found = extract(otlp("anthropic.chat", attributes))
    assert found.tools == [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": WEATHER_PARAMETERS,
            "description": "Current weather",
        },
        {"type": "function", "name": "get_time", "parameters": None},
    ]


CALLS = "llm.output_messages.0.message.tool_calls"
OPENINFERENCE = {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-4o-2024-08-06",
    f"{CALLS}.0.tool_call.id": "call_a",
    f"{CALLS}.0.tool_call.function.name": "get_weather",
    f"{CALLS}.0.tool_call.function.arguments": '{"city": "Lima"}',
    f"{CALLS}.1.tool_call.function.name": "get_time",
}


@pytest.mark.parametrize("line", [otlp, dumped])
def test_openinference_indexed_calls(line: Any) -> None:
    found = extract(line("ChatCompletion", OPENINFERENCE))
    assert calls_of(found) == [
        ("get_weather", '{"city": "Lima"}', "call_a"),
        ("get_time", ABSENT, None),
    ]
    assert found.model == "gpt-4o-2024-08-06"


def test_openinference_as_phoenix_exports_it() -> None:
    # Lists of objects (OpenInference's spec/llm_spans.md), or one nested object.
    call = {
        "tool_call.id": "c",
        "tool_call.function.name": "get_weather",
        "tool_call.function.arguments": '{"city": "Lima"}',
    }
    listed = {"llm.output_messages": [{"message.role": "assistant", "message.tool_calls": [call]}]}
    nested = {
        "llm": {
            "model_name": "gpt-4o",
            "output_messages": [
                {
                    "message": {
                        "tool_calls": [
                            {
                                "tool_call": {
                                    "function": {
                                        "name": "get_weather",
                                        "arguments": {"city": "Lima"},
                                    }
                                }
                            }
                        ]
                    }
                }
            ],
            "tools": [{"tool": {"json_schema": WEATHER_TOOL}}],
        }
    }
    first = extract({"name": "llm", "attributes": listed})
    assert calls_of(first) == [("get_weather", '{"city": "Lima"}', "c")]
    second = extract({"name": "llm", "attributes": nested})
    assert calls_of(second) == [("get_weather", {"city": "Lima"}, None)]
    assert (second.model, second.tools) == ("gpt-4o", [WEATHER_TOOL])


def test_openinference_tools_whole_or_as_a_bare_schema() -> None:
    attributes = {
        **OPENINFERENCE,
        "llm.tools.0.tool.json_schema": json.dumps(WEATHER_TOOL),
        "llm.tools.1.tool.name": "get_time",
        "llm.tools.1.tool.json_schema": '{"type": "object", "properties": {}}',
    }
    assert extract(otlp("ChatCompletion", attributes)).tools == [
        WEATHER_TOOL,
        {
            "type": "function",
            "name": "get_time",
            "parameters": {"type": "object", "properties": {}},
        },
    ]


def test_the_first_convention_with_calls_gives_a_spans_calls() -> None:
    # One output, recorded twice by an instrumentation that writes both forms.
    attributes = {**chat(PARIS), **OPENLLMETRY}
    assert calls_of(extract(otlp("chat", attributes))) == [
        ("get_weather", {"city": "Paris"}, "call_1")
    ]


# -- tools, model, fields ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "tools",
    [
        {"gen_ai.tool.definitions": json.dumps([WEATHER_DEFINITION])},
        {"gen_ai.tool.definitions": [WEATHER_DEFINITION]},
        {
            "llm.request.functions.0.name": "get_weather",
            "llm.request.functions.0.parameters": json.dumps(WEATHER_PARAMETERS),
        },
        {"llm.tools.0.tool.json_schema": json.dumps(WEATHER_TOOL)},
    ],
    ids=["genai-string", "genai-array", "openllmetry", "openinference"],
)
def test_tools_from_each_convention_judge_the_calls(tmp_path: Path, tools: dict[str, Any]) -> None:
    line = otlp(
        "chat", {**chat({"id": "c", "name": "get_weather", "arguments": {"days": "2"}}), **tools}
    )
    rows = list(audited(tmp_path, line))  # no --schemas: the line's tools judge
    assert [row["errors"] for row in rows] == [["missing:city", "type:days"]]


def test_the_tools_of_a_line_are_the_union_of_its_spans(tmp_path: Path) -> None:
    time_tool = {"type": "function", "name": "get_time", "parameters": {"type": "object"}}

    def build(tracer: trace.Tracer) -> None:
        weather = {"gen_ai.tool.definitions": [WEATHER_DEFINITION]}
        span(tracer, "chat", chat(PARIS, **weather))
        span(
            tracer,
            "chat",
            chat(
                {"id": "t", "name": "get_time"},
                **{"gen_ai.tool.definitions": [time_tool, WEATHER_DEFINITION]},
            ),
            at=1,
        )

    found = extract(otlp_line(record(build)))
    assert found.tools == [WEATHER_DEFINITION, time_tool, WEATHER_DEFINITION]
    rows = list(audited(tmp_path, otlp_line(record(build))))
    assert [row["ok"] for row in rows] == [True, True]


def test_definitions_without_parameters_leave_the_judging_to_schemas() -> None:
    names_only = {"gen_ai.tool.definitions": [{"type": "function", "name": "get_weather"}]}
    assert extract(otlp("chat", chat(PARIS, **names_only))).tools is None
    openllmetry = {**OPENLLMETRY, "llm.request.functions.0.name": "get_weather"}
    assert extract(otlp("chat", openllmetry)).tools is None
    # A provider's own tool has no parameters to record.
    hosted = {"gen_ai.tool.definitions": [WEATHER_DEFINITION, {"type": "web_search", "name": "w"}]}
    assert extract(otlp("chat", chat(PARIS, **hosted))).tools is not None


def test_the_model_is_the_responses_then_the_requests() -> None:
    responded = chat(PARIS, **{"gen_ai.response.model": "gpt-4o-2024-08-06"})
    assert extract(otlp("chat", responded)).model == "gpt-4o-2024-08-06"
    assert extract(otlp("chat", chat(PARIS))).model == "gpt-4o"


def test_fields_are_the_attributes_of_the_first_span_with_a_call() -> None:
    def search(tracer: trace.Tracer) -> None:
        span(tracer, "GET /search", {"http.route": "/search", "deployment.environment": "dev"})

    def agent(tracer: trace.Tracer) -> None:
        span(tracer, "chat", chat(PARIS, **{"deployment.environment": "canary"}))
        span(tracer, "chat", chat({"id": "c2", "name": "get_time"}, **{"user.id": "u2"}), at=1)

    line = otlp_line(record(search, service="search") + record(agent, service="checkout"))
    fields = extract(line).fields
    assert fields is not None
    assert fields["attributes.service.name"] == "checkout"
    assert fields["attributes.gen_ai.request.model"] == "gpt-4o"
    # The span's attribute over its resource's; the resource's still reachable.
    assert fields["attributes.deployment.environment"] == "canary"
    assert fields["resource.attributes.deployment.environment"] == "prod"
    assert "attributes.user.id" not in fields and "attributes.http.route" not in fields


def test_a_line_without_calls_takes_the_fields_of_its_first_span() -> None:
    found = extract(dumped("GET /", {"http.route": "/"}, service="web"))
    assert found.calls == []
    assert found.fields is not None
    assert found.fields["attributes.service.name"] == "web"
    assert found.fields["attributes.http.route"] == "/"


def test_group_by_reaches_span_and_resource_attributes(tmp_path: Path) -> None:
    lines = [
        otlp("chat", chat(PARIS), service="checkout"),
        dumped("chat", chat({**PARIS, "arguments": {}}), service="search"),
        otlp("chat", chat(PARIS), service="search"),
    ]
    run = audited(tmp_path, *lines, schemas=SCHEMAS, group_by=("attributes.service.name",))
    list(run)
    assert run.summary is not None
    groups = {key: (group.calls, group.invalid) for key, group in run.summary.groups.items()}
    assert groups == {"checkout": (1, 0), "search": (2, 1)}


# -- OTLP value kinds ---------------------------------------------------------------------------


def test_otlp_values_become_plain_values() -> None:
    attributes = {
        "a.int": 7,
        "a.big": 2**62,
        "a.double": 0.5,
        "a.bool": False,
        "a.list": ["x", 1],
        "a.map": {"k": [1.5, True]},
    }
    line = otlp("s", attributes)
    encoded = line["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]
    assert encoded[0]["value"] == {"intValue": "7"}  # a JSON string, per OTLP/JSON
    fields = extract(line).fields
    assert fields is not None
    assert {key: fields[f"attributes.{key}"] for key in attributes} == attributes


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ({"intValue": 3}, 3),  # a number where a string belongs: still read
        ({"doubleValue": "-Infinity"}, float("-inf")),  # as proto3 JSON writes it
        ({"doubleValue": 2}, 2.0),
        ({"bytesValue": "AAE="}, "AAE="),  # base64, kept as text
        ({}, None),
        ({"arrayValue": {}}, []),
        ({"kvlistValue": {"values": [{"key": "k"}]}}, {"k": None}),
    ],
)
def test_every_kind_of_any_value(value: dict[str, Any], plain: object) -> None:
    line = spans_of({"name": "s", "attributes": [{"key": "v", "value": value}]})
    fields = extract(line).fields
    assert fields is not None
    assert fields["attributes.v"] == plain


# -- bad values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"resourceSpans": {}}, "resourceSpans is an object, not an array"),
        ({"resourceSpans": [None]}, "resourceSpans[0] is null, not an object"),
        (spans_of("span"), "spans[0] is a string, not an object"),
        (spans_of({"attributes": {"k": "v"}}), "attributes are an object, not an array"),
        (spans_of({"attributes": [{"value": {}}]}), "attribute #1 is not a {key, value} pair"),
        (
            spans_of({"name": "chat", "attributes": [{"key": "n", "value": {"intValue": "1.5"}}]}),
            'spans[0] "chat", attribute n: intValue holds string "1.5", not a string of digits',
        ),
        (
            spans_of(
                {"attributes": [{"key": "n", "value": {"stringValue": "a", "intValue": "1"}}]}
            ),
            "is not an OTLP AnyValue",
        ),
        (spans_of({"attributes": [{"key": "n", "value": {"floatValue": 1}}]}), "not an OTLP"),
        (spans_of({"attributes": [{"key": "n", "value": "plain"}]}), "not an OTLP AnyValue"),
    ],
)
def test_a_broken_otlp_line_says_where(line: dict[str, Any], message: str) -> None:
    with pytest.raises(UnknownShape) as raised:
        extract(line)
    assert message in str(raised.value)


def test_values_nested_too_deep_are_refused_not_recursed() -> None:
    value: dict[str, Any] = {"stringValue": "x"}
    for _ in range(300):
        value = {"arrayValue": {"values": [value]}}
    with pytest.raises(UnknownShape, match="nested over 100 levels"):
        extract(spans_of({"attributes": [{"key": "deep", "value": value}]}))


def test_unreadable_output_messages_holding_a_call_are_a_broken_call() -> None:
    cut = json.dumps([tool_call_message(PARIS)])[:70]
    found = extract(dumped("chat gpt-4o", chat_attributes("m", **{"gen_ai.output.messages": cut})))
    [call] = found.calls
    assert call.name is None and call.failure is not None
    assert call.failure.startswith('span "chat gpt-4o": gen_ai.output.messages holds a tool call')
    # Without a call in it, a cut text answer holds no call to report.
    text = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Hi"}]}])
    cut_text = chat_attributes("m", **{"gen_ai.output.messages": text[:30]})
    assert extract(dumped("chat", cut_text)).calls == []


def test_parts_that_are_not_calls_are_skipped_and_bad_calls_kept() -> None:
    messages = [{"parts": ["text", {"type": "tool_call", "name": 5}, {"type": "text"}]}, 3]
    found = extract(dumped("chat", {"gen_ai.output.messages": messages}))
    assert calls_of(found) == [(5, ABSENT, None)]  # judged malformed:name


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ({"gen_ai.tool.definitions": "[{"}, "gen_ai.tool.definitions cannot be read (not JSON"),
        ({"gen_ai.tool.definitions": 3}, "it is a number, not an array of tool definitions"),
        (
            {"llm.request.functions.0.name": "f", "llm.request.functions.0.parameters": "{"},
            "llm.request.functions.0.parameters cannot be read",
        ),
        ({"llm.tools.0.tool.json_schema": "[]"}, "it is an array, not a tool definition"),
        (
            {"llm.tools.0.tool.json_schema": '{"type": "object"}'},
            "llm.tools.0.tool.json_schema names no tool",
        ),
    ],
)
def test_unreadable_tool_definitions_make_the_line_malformed(
    attributes: dict[str, Any], message: str
) -> None:
    with pytest.raises(UnknownShape) as raised:
        extract(dumped("chat", {**chat(PARIS), **attributes}))
    assert message in str(raised.value)


def test_a_span_dump_needs_attributes() -> None:
    with pytest.raises(UnknownShape, match="needs an attributes object"):
        extract({"name": "chat", "attributes": []}, "otel-span")


def test_broken_lines_are_report_rows(tmp_path: Path) -> None:
    broken = spans_of({"attributes": [{"key": "n", "value": {"intValue": "x"}}]})
    rows = list(audited(tmp_path, broken, otlp("chat", chat(PARIS)), schemas=SCHEMAS))
    assert [row["errors"] for row in rows] == [["malformed:record"], []]


#: Words these records are made of, so that random ones reach deep into the readers.
VOCABULARY = [
    "resourceSpans",
    "scopeSpans",
    "spans",
    "resource",
    "attributes",
    "key",
    "value",
    "values",
    "stringValue",
    "intValue",
    "doubleValue",
    "arrayValue",
    "kvlistValue",
    "name",
    "parts",
    "type",
    "tool_call",
    "arguments",
    "id",
    "role",
    "finish_reason",
    "message",
    "tool_calls",
    "function",
    "gen_ai.operation.name",
    "gen_ai.output.messages",
    "gen_ai.tool.definitions",
    "gen_ai.tool.call.arguments",
    "gen_ai.completion.0.tool_calls.0.name",
    "llm.request.functions.0.parameters",
    "llm.tools.0.tool.json_schema",
    "llm",
    "llm.output_messages",
    "message.tool_calls",
    "tool_call.function.arguments",
    "parameters",
]
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.sampled_from([*VOCABULARY, "{", "[]"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(VOCABULARY), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(
    st.dictionaries(st.sampled_from(VOCABULARY), JSONISH, max_size=4),
    st.sampled_from(["otlp-json", "otel-span"]),
)
@settings(max_examples=200, deadline=None)
def test_any_record_is_read_or_refused_never_raises(record: dict[str, Any], forced: str) -> None:
    try:
        found = extract(record, forced)
    except UnknownShape:
        return
    assert all(call.index == position for position, call in enumerate(found.calls))


#: Attribute values as text: JSON of the conventions' shapes, whole, cut or of the wrong kind.
TEXTS = [
    '[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c", "name": "f"}]}]',
    '[{"role": "assistant", "parts": [{"type": "tool_call", "name": "f", "arguments": "{',
    '[{"type": "function", "name": "f", "parameters": {"type": "object"}}]',
    '[{"type": "function", "name": "f"}]',
    '{"type": "object"}',
    '{"city": "Paris"}',
    "null",
    "3",
    "{",
    "",
    "execute_tool",
]
ATTRIBUTE_KEYS = [
    "gen_ai.operation.name", "gen_ai.output.messages", "gen_ai.response.finish_reasons",
    "gen_ai.tool.definitions", "gen_ai.tool.name", "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments", "gen_ai.completion.0.tool_calls.0.name",
    "gen_ai.completion.0.tool_calls.0.arguments", "llm.request.functions.0.name",
    "llm.request.functions.0.parameters", "llm.tools.0.tool.name", "llm.tools.0.tool.json_schema",
    "llm", "llm.output_messages",
]  # fmt: skip
ANY_VALUE = st.recursive(
    st.one_of(
        st.builds(lambda text: {"stringValue": text}, st.sampled_from(TEXTS + VOCABULARY)),
        st.builds(lambda n: {"intValue": str(n)}, st.integers()),
        st.builds(lambda b: {"boolValue": b}, st.booleans()),
        st.builds(lambda x: {"doubleValue": x}, st.floats(allow_nan=False)),
        st.just({}),
        JSONISH,  # not an AnyValue, mostly
    ),
    lambda inner: st.one_of(
        st.builds(lambda items: {"arrayValue": {"values": items}}, st.lists(inner, max_size=3)),
        st.builds(
            lambda pairs: {"kvlistValue": {"values": [{"key": k, "value": v} for k, v in pairs]}},
            st.lists(st.tuples(st.sampled_from(VOCABULARY), inner), max_size=3),
        ),
    ),
    max_leaves=12,
)
OTLP_SPAN = st.builds(
    lambda name, pairs: {"name": name, "attributes": [{"key": k, "value": v} for k, v in pairs]},
    st.sampled_from(["chat", "execute_tool f"]),
    st.lists(st.tuples(st.sampled_from(ATTRIBUTE_KEYS), ANY_VALUE), max_size=5),
)


@pytest.mark.slow
@given(st.lists(OTLP_SPAN, min_size=1, max_size=3))
@settings(max_examples=200, deadline=None)
def test_any_otlp_line_is_read_or_refused_never_raises(spans: list[dict[str, Any]]) -> None:
    try:
        found = extract(spans_of(*spans))
    except UnknownShape:
        return
    assert [call.index for call in found.calls] == list(range(len(found.calls)))
    ids = [call.id.strip() for call in found.calls if isinstance(call.id, str) and call.id.strip()]
    assert len(ids) == len(set(ids))  # one call id, one call
