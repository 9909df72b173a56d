"""``check_response`` and ``tool_result_messages``: errors, deep mode, the cache, threads,
``outputs=`` and ``shape=``.

The providers' SDK types are in test_sdks.py and every log format in test_formats.py;
the responses here are plain dicts in the providers' wire shapes.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import toolaudit
from toolaudit import boundary
from toolaudit.boundary import compiled
from toolaudit.errors import NoSchemasError
from toolaudit.formats import FORMATS, get_format

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}]


def chat(*calls: tuple[str, str, object], content: str | None = None) -> dict[str, Any]:
    """An OpenAI chat completion with these (id, name, arguments) calls."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
            for call_id, name, arguments in calls
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
    }


def anthropic(*calls: tuple[str, str, object]) -> dict[str, Any]:
    """An Anthropic message with these (id, name, input) tool_use blocks."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "Checking."},
            *(
                {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
                for call_id, name, arguments in calls
            ),
        ],
    }


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    toolaudit.boundary.cache_clear()
    yield
    toolaudit.boundary.cache_clear()


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, bool]]:
    """Every compilation of a tool set, recorded (the compilation still happens)."""
    seen: list[tuple[Any, bool]] = []
    original = compiled._compile

    def spy(tools: Any, deep: bool) -> Any:
        seen.append((tools, deep))
        return original(tools, deep)

    monkeypatch.setattr(compiled, "_compile", spy)
    return seen


# Responses without calls, and responses of no known shape.


@pytest.mark.parametrize(
    "response",
    [
        chat(content="It is sunny in Paris."),
        {**chat(content=None), "choices": []},
        anthropic(),
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Sunny."}]}}]},
        {"object": "response", "output": [{"type": "message", "content": []}]},
        {"output": {"message": {"role": "assistant", "content": [{"text": "Sunny."}]}}},
        {"role": "assistant", "content": "It is sunny."},  # a bare message
        {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]},
    ],
    ids=[
        "chat-text",
        "chat-no-choices",
        "anthropic-text",
        "gemini-text",
        "responses-message",
        "bedrock-text",
        "bare-openai",
        "bare-anthropic",
    ],
)
def test_a_response_without_calls_gives_no_results(response: dict[str, Any]) -> None:
    assert toolaudit.check_response(response, TOOLS) == []
    assert toolaudit.check_response(response) == []  # no tools needed to find no call
    assert toolaudit.check_response(json.dumps(response)) == []
    assert toolaudit.tool_result_messages([]) == []


@pytest.mark.parametrize(
    ("response", "says"),
    [
        ({"hello": "world"}, "not a provider's response: no known log format: expected a tool"),
        ({}, "not a provider's response: no known log format"),
        ({"role": "user", "content": "hi"}, "not a provider's response"),
        ({"object": "chat.completion", "choices": "x"}, "needs a choices array"),
        (
            {"object": "chat.completion.chunk", "choices": []},
            "one chunk of a streamed response holds fragments of calls: check the response "
            "once assembled",
        ),
        ([{"name": "get_weather"}], "expected a provider's response (an object), got an array"),
        (42, "expected a provider's response (an object), got a number"),
        (None, "expected a provider's response (an object), got null"),
        (object(), "expected a provider's response (an object), got a Python object"),
        ("[1, 2]", "expected a provider's response (an object), got an array"),
    ],
    ids=[
        "unknown-keys",
        "empty-object",
        "user-message",
        "chat-without-choices",
        "stream-chunk",
        "list",
        "number",
        "none",
        "python-object",
        "json-array",
    ],
)
def test_a_response_of_no_known_shape_is_a_response_error(response: object, says: str) -> None:
    with pytest.raises(toolaudit.ResponseError) as raised:
        toolaudit.check_response(response, TOOLS)

    assert says in str(raised.value)
    assert isinstance(raised.value, toolaudit.ToolAuditError)
    assert isinstance(raised.value, ValueError)


def test_the_unknown_shape_message_names_the_shapes_it_knows() -> None:
    with pytest.raises(toolaudit.ResponseError) as raised:
        toolaudit.check_response({"hello": "world"}, TOOLS)

    for known in ("OpenAI", "Anthropic", "Gemini", "MCP", "Bedrock", "Ollama"):
        assert known in str(raised.value)


@pytest.mark.parametrize(
    "text",
    ['{"object": "chat.completion", "choices": [', b"{", "", b"", "not json", "{'a': 1}"],
    ids=["cut-off", "bytes-cut-off", "empty", "empty-bytes", "words", "python-repr"],
)
def test_json_text_that_does_not_parse_is_a_response_error(text: str | bytes) -> None:
    with pytest.raises(toolaudit.ResponseError, match=r"^the response is not valid JSON: "):
        toolaudit.check_response(text, TOOLS)


def test_calls_without_tools_to_judge_them_by_are_a_no_schemas_error() -> None:
    with pytest.raises(NoSchemasError, match="pass the tools the request sent"):
        toolaudit.check_response(chat(("c1", "get_weather", {"city": "Paris"})))


def test_malformed_tools_are_a_schema_error_naming_the_tool_and_parameter() -> None:
    bad = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"properties": {"a": {"type": "str"}}}},
        }
    ]

    with pytest.raises(toolaudit.SchemaError) as raised:
        toolaudit.check_response(chat(("c1", "get_weather", {"city": "Paris"})), bad)

    assert str(raised.value).startswith(
        "the tools: tool 'f': parameter 'a': unknown type name 'str'"
    )
    assert (raised.value.tool, raised.value.parameter) == ("f", "a")


def test_the_tools_given_judge_even_a_record_that_carries_its_own() -> None:
    # A logged request/response pair: tools=None reads the request's; tools given win.
    pair = {
        "request": {
            "model": "claude",
            "tools": [
                {
                    "name": "get_weather",
                    "input_schema": {
                        "type": "object",
                        "properties": {"town": {"type": "string"}},
                        "required": ["town"],
                    },
                }
            ],
        },
        "response": anthropic(("toolu_1", "get_weather", {"town": "Oslo"})),
    }

    [carried] = toolaudit.check_response(pair)
    [given] = toolaudit.check_response(pair, TOOLS)

    assert (carried.errors, carried.format) == ([], "anthropic")
    assert given.errors == ["missing:city", "unexpected:town"]


def test_tools_as_json_text_are_read() -> None:
    [result] = toolaudit.check_response(
        chat(("c1", "get_weather", {"days": 1})), json.dumps(TOOLS).encode()
    )

    assert result.errors == ["missing:city"]


@pytest.mark.parametrize("tools", ["tools.json", b"[{"])
def test_tools_that_are_not_json_are_blamed_on_the_tools(tools: str | bytes) -> None:
    with pytest.raises(toolaudit.ToolAuditError) as raised:
        toolaudit.check_response(chat(("c1", "get_weather", {"days": 1})), tools)

    assert not isinstance(raised.value, toolaudit.ResponseError)
    assert "tools" in str(raised.value)


def test_a_call_to_an_unknown_tool_keeps_its_decoded_arguments() -> None:
    [result] = toolaudit.check_response(chat(("c1", "get_forecast", {"city": "Paris"})), TOOLS)

    assert result.errors == ["unknown_tool:get_forecast"]
    assert result.arguments == {"city": "Paris"}


def test_arguments_too_long_for_64_bits_are_judged_exactly() -> None:
    response = chat(
        ("c1", "get_weather", '{"city": "Paris", "days": 123456789012345678901234567890}'),
        ("c2", "get_weather", '{"city": "Paris", "days": 123456789012345678901234567890.5}'),
    )

    big, fraction = toolaudit.check_response(response, TOOLS)

    assert (big.ok, big.arguments) == (
        True,
        {"city": "Paris", "days": 123456789012345678901234567890},
    )
    assert fraction.errors == ["type:days"]


def test_a_number_past_float_range_is_not_shown_as_null() -> None:
    results = toolaudit.check_response(
        chat(("c1", "get_weather", '{"city": "P", "days": 1e400}')), TOOLS
    )

    assert results[0].errors == ["type:days"]
    [message] = toolaudit.tool_result_messages(results)
    assert "got null" not in message["content"]
    assert "null" not in results[0].why["type:days"]


# deep=True


SEARCH = [
    {
        "name": "search",
        "input_schema": {
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "filters": {
                    "type": "object",
                    "properties": {
                        "date": {"type": "string"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
            "required": ["q"],
        },
    }
]
NESTED = anthropic(("toolu_1", "search", {"q": "x", "filters": {"date": 20240101, "tags": ["a"]}}))


def test_deep_finds_a_nested_error_the_contract_leaves_alone() -> None:
    [shallow] = toolaudit.check_response(NESTED, SEARCH)
    [deep] = toolaudit.check_response(NESTED, SEARCH, deep=True)

    assert (shallow.ok, shallow.errors) == (True, [])
    assert (deep.ok, deep.errors) == (False, ["type:filters.date"])
    assert deep.why == {"type:filters.date": "expected string, got integer 20240101"}
    [message] = toolaudit.tool_result_messages([deep])
    assert message["content"][0]["content"] == (
        "Error: the call to `search` was not run: `filters.date` must be a string, got 20240101. "
        "Call `search` again with corrected arguments."
    )


def test_deep_still_reports_the_top_level_errors() -> None:
    response = anthropic(("toolu_1", "search", {"filters": {"tags": ["a", 3]}, "extra": 1}))

    [result] = toolaudit.check_response(response, SEARCH, deep=True)

    assert result.errors == ["missing:q", "type:filters.tags[1]", "unexpected:extra"]


# The cache of compiled tools.


def test_the_cache_size_is_the_documented_one() -> None:
    assert boundary.CACHE_SIZE == compiled.CACHE_SIZE == 256


def test_the_same_tools_compile_once(compiles: list[tuple[Any, bool]]) -> None:
    response = chat(("c1", "get_weather", {"days": 1}))

    first = toolaudit.check_response(response, TOOLS)
    for _ in range(5):
        equal_but_new = json.loads(json.dumps(TOOLS))  # a new list, equal in content
        assert toolaudit.check_response(response, equal_but_new) == first
    assert toolaudit.check_response(response, tuple(TOOLS)) == first

    assert len(compiles) == 1


def test_the_same_tools_in_another_key_order_judge_alike(compiles: list[tuple[Any, bool]]) -> None:
    # Not promised to hit the cache (the key is the content as written), only to agree.
    response = chat(("c1", "get_weather", {"days": 1}))
    reordered = [{"function": {"parameters": WEATHER, "name": "get_weather"}, "type": "function"}]

    assert toolaudit.check_response(response, reordered) == toolaudit.check_response(
        response, TOOLS
    )
    assert 1 <= len(compiles) <= 2


def test_different_tools_compile_again(compiles: list[tuple[Any, bool]]) -> None:
    response = chat(("c1", "get_weather", {"city": "Paris", "days": 1}))
    stricter = json.loads(json.dumps(TOOLS))
    stricter[0]["function"]["parameters"]["properties"]["days"]["type"] = "string"

    [loose] = toolaudit.check_response(response, TOOLS)
    [strict] = toolaudit.check_response(response, stricter)
    [again] = toolaudit.check_response(response, TOOLS)

    assert (loose.errors, strict.errors, again.errors) == ([], ["type:days"], [])
    assert len(compiles) == 2


def test_deep_and_shallow_are_compiled_apart(compiles: list[tuple[Any, bool]]) -> None:
    toolaudit.check_response(NESTED, SEARCH)
    [deep] = toolaudit.check_response(NESTED, SEARCH, deep=True)
    [shallow] = toolaudit.check_response(NESTED, SEARCH)

    assert (deep.errors, shallow.errors) == (["type:filters.date"], [])
    assert [flag for _, flag in compiles] == [False, True]


def test_cache_clear_forgets(compiles: list[tuple[Any, bool]]) -> None:
    response = chat(("c1", "get_weather", {"days": 1}))

    toolaudit.check_response(response, TOOLS)
    toolaudit.boundary.cache_clear()
    toolaudit.check_response(response, TOOLS)

    assert len(compiles) == 2


def tool_set(n: int) -> dict[str, Any]:
    return {
        f"tool_{n}": {"parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}
    }


def call_to(n: int) -> dict[str, Any]:
    return {"id": f"c{n}", "name": f"tool_{n}", "arguments": {"a": "x"}}


def test_the_cache_holds_at_most_cache_size_tool_sets(compiles: list[tuple[Any, bool]]) -> None:
    size = boundary.CACHE_SIZE
    for n in range(size + 40):
        [result] = toolaudit.check_response(call_to(n), tool_set(n))
        assert result.ok
        assert len(compiled._cache) <= size
    assert len(compiled._cache) == size
    assert len(compiles) == size + 40

    # The least recently used went first: the newest are still compiled, the oldest not.
    toolaudit.check_response(call_to(size + 39), tool_set(size + 39))
    assert len(compiles) == size + 40
    toolaudit.check_response(call_to(0), tool_set(0))
    assert len(compiles) == size + 41


def test_a_tool_set_in_use_stays_cached(
    compiles: list[tuple[Any, bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "CACHE_SIZE", 3)
    for n in range(10):
        toolaudit.check_response(call_to(0), tool_set(0))  # used every turn
        toolaudit.check_response(call_to(n + 1), tool_set(n + 1))
        assert len(compiled._cache) <= 3

    assert [tools for tools, _ in compiles].count(tool_set(0)) == 1


@pytest.mark.parametrize(
    ("first", "second", "value"),
    [(None, math.nan, None), (math.inf, -math.inf, math.inf)],
    ids=["null-then-nan", "inf-then-minus-inf"],
)
def test_tool_sets_that_differ_only_in_non_finite_numbers_are_told_apart(
    first: float | None, second: float | None, value: float | None
) -> None:
    def tools(allowed: float | None) -> dict[str, Any]:
        return {"f": {"parameters": {"type": "object", "properties": {"x": {"enum": [allowed]}}}}}

    call = {"id": "c1", "name": "f", "arguments": {"x": value}}
    by_contract = toolaudit.validate_tool_call(tools(second), call)["errors"]

    toolaudit.check_response(call, tools(first))
    [result] = toolaudit.check_response(call, tools(second))

    assert by_contract == ["enum:x"]
    assert result.errors == by_contract


# Threads.


def test_threads_get_the_results_they_would_get_alone() -> None:
    other = [
        {
            "name": "book",
            "input_schema": {
                "type": "object",
                "properties": {"seats": {"type": "integer"}, "city": {"type": "string"}},
                "required": ["seats"],
            },
        }
    ]
    responses = [
        chat(("c1", "get_weather", {"days": True}), ("c2", "book", {"seats": 2})),
        anthropic(("t1", "book", {"seats": "2", "city": "Paris"}), ("t2", "get_weather", {})),
        chat(("c3", "get_weather", '{"city": "Par')),
    ]
    jobs = [(responses[n % len(responses)], TOOLS if n % 2 else other) for n in range(200)]

    def run(job: tuple[dict[str, Any], list[Any]]) -> tuple[list[dict[str, Any]], Any]:
        results = toolaudit.check_response(*job)
        return [r.to_dict() for r in results], toolaudit.tool_result_messages(results)

    serial = [run(job) for job in jobs]
    toolaudit.boundary.cache_clear()  # the threads race to compile, too
    start = threading.Barrier(8)

    def worker(_: int) -> list[Any]:
        start.wait()
        return [run(job) for job in jobs]

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(worker, range(8)))

    assert all(outcome == serial for outcome in outcomes)
    assert {tuple(r["errors"]) for results, _ in serial for r in results} >= {
        ("missing:city", "type:days"),
        ("unknown_tool:book",),
        ("unknown_tool:get_weather",),
        ("type:seats",),
        ("malformed:arguments",),
    }


# outputs=


def test_outputs_share_the_anthropic_user_message_with_the_errors_in_call_order() -> None:
    response = anthropic(
        ("toolu_1", "get_weather", {"city": "Paris"}),
        ("toolu_2", "get_weather", {"days": 2}),
        ("toolu_3", "get_weather", {"city": "Oslo", "days": 1}),
        ("toolu_4", "get_forecast", {}),
        ("toolu_5", "get_weather", {"city": "Rome"}),  # valid, but not run: not answered
    )
    results = toolaudit.check_response(response, TOOLS)
    outputs = {"toolu_3": {"city": "Oslo", "forecast": ["rain"]}, "toolu_1": "18C"}

    messages = toolaudit.tool_result_messages(results, outputs=outputs)

    assert len(messages) == 1
    [message] = messages
    assert message["role"] == "user"
    blocks = message["content"]
    assert [(b["tool_use_id"], b.get("is_error", False)) for b in blocks] == [
        ("toolu_1", False),
        ("toolu_2", True),
        ("toolu_3", False),
        ("toolu_4", True),
    ]
    assert blocks[0]["content"] == "18C"
    assert json.loads(blocks[2]["content"]) == {"city": "Oslo", "forecast": ["rain"]}
    assert "`city` is required" in blocks[1]["content"]
    assert "there is no tool `get_forecast`; the tools are get_weather" in blocks[3]["content"]


def test_an_output_for_a_failing_call_does_not_hide_its_error() -> None:
    results = toolaudit.check_response(chat(("c1", "get_weather", {"days": 2})), TOOLS)

    [message] = toolaudit.tool_result_messages(results, outputs={"c1": "ran anyway"})

    assert message["content"].startswith("Error: ")


def test_outputs_in_openai_chat_are_one_tool_message_per_call_in_order() -> None:
    response = chat(
        ("c1", "get_weather", {"days": 2}),
        ("c2", "get_weather", {"city": "Oslo"}),
        ("c3", "get_weather", {"city": "Oslo", "days": "2"}),
    )
    results = toolaudit.check_response(response, TOOLS)

    messages = toolaudit.tool_result_messages(results, outputs={"c2": [1, 2]})

    assert [(m["role"], m["tool_call_id"]) for m in messages] == [
        ("tool", "c1"),
        ("tool", "c2"),
        ("tool", "c3"),
    ]
    assert messages[1]["content"] == "[1,2]"
    assert '`days` must be an integer, got "2"' in messages[2]["content"]


# shape=


FAILING = chat(("c1", "get_weather", {"days": True}), ("c2", "get_weather", {"city": "Paris"}))
NOTE = (
    "Error: the call to `get_weather` was not run: `city` is required; `days` must be an "
    "integer, got true. Call `get_weather` again with corrected arguments."
)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("openai-chat", [{"role": "tool", "tool_call_id": "c1", "content": NOTE}]),
        (
            "openai-responses",
            [{"type": "function_call_output", "call_id": "c1", "output": NOTE}],
        ),
        (
            "anthropic",
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "c1",
                            "content": NOTE,
                            "is_error": True,
                        }
                    ],
                }
            ],
        ),
        (
            "gemini",
            [
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "get_weather",
                                "response": {"error": NOTE},
                                "id": "c1",
                            }
                        }
                    ],
                }
            ],
        ),
        (
            "bedrock",
            [
                {
                    "role": "user",
                    "content": [
                        {
                            "toolResult": {
                                "toolUseId": "c1",
                                "content": [{"text": NOTE}],
                                "status": "error",
                            }
                        }
                    ],
                }
            ],
        ),
        ("ollama", [{"role": "tool", "tool_name": "get_weather", "content": NOTE}]),
        (
            "langchain",
            [
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "name": "get_weather",
                    "content": NOTE,
                    "status": "error",
                }
            ],
        ),
        (
            "mcp",
            [
                {
                    "jsonrpc": "2.0",
                    "id": "c1",
                    "result": {"content": [{"type": "text", "text": NOTE}], "isError": True},
                }
            ],
        ),
    ],
)
def test_shape_overrides_the_responses_own(shape: str, expected: list[dict[str, Any]]) -> None:
    results = toolaudit.check_response(FAILING, TOOLS)
    assert results[0].format == "openai-chat"

    assert toolaudit.tool_result_messages(results, shape=shape) == expected


def test_every_shape_can_be_asked_for() -> None:
    # In this order: the message for an unknown shape lists them so.
    assert boundary.SHAPES == (
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
        "ollama",
        "langchain",
        "mcp",
    )


def test_every_format_is_answered_in_a_shape_there_is() -> None:
    # A format names the shape its calls are answered in: one with a wrapper, and each
    # wrapper answers some format. (The Batch and flat formats pick one per record.)
    declared = {fmt.name: fmt.tool_result_messages for fmt in FORMATS}
    fixed = {shape for shape in declared.values() if isinstance(shape, str)}
    picked = {
        get_format(name).reply_shape(record)
        for name, record in [
            ("flat", {"name": "f", "arguments": {}}),
            ("flat", {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}),
            ("openai-batch", {"custom_id": "a", "response": {"body": {"choices": []}}}),
            ("openai-batch", {"custom_id": "a", "response": {"body": {"object": "response"}}}),
        ]
    }
    assert picked == {"openai-chat", "openai-responses"}
    assert fixed | picked == set(boundary.SHAPES)
    unanswered = {name for name, shape in declared.items() if shape is None}
    assert unanswered == {
        "openai-batch-input",
        "openai-chat-stream",
        "openai-responses-stream",
        "anthropic-stream",
        "bedrock-stream",
        "otlp-json",
        "otel-span",
        "envelope",  # its records are read as their response's format
        "single-call",
        # Requests logged alone: no call of the model's to answer.
        "openai-chat-request",
        "openai-responses-request",
        "anthropic-request",
        "bedrock-request",
        "gemini-request",
    }


def test_without_shape_the_response_decides() -> None:
    results = toolaudit.check_response(anthropic(("t1", "get_weather", {})), TOOLS)

    [message] = toolaudit.tool_result_messages(results)

    assert message["content"][0]["type"] == "tool_result"


@pytest.mark.parametrize("shape", ["claude", "openai", "", "Anthropic"])
def test_an_unknown_shape_is_an_option_error(shape: str) -> None:
    results = toolaudit.check_response(FAILING, TOOLS)

    for given in (results, []):
        with pytest.raises(toolaudit.OptionError) as raised:
            toolaudit.tool_result_messages(given, shape=shape)
        assert f"unknown tool-result shape {shape!r}: expected one of openai-chat, " in str(
            raised.value
        )
        assert isinstance(raised.value, toolaudit.ToolAuditError)


def test_a_batch_line_holding_a_response_is_answered_in_the_responses_shape() -> None:
    line = {
        "custom_id": "req-1",
        "response": {
            "status_code": 200,
            "body": {
                "object": "response",
                "status": "completed",
                "output": [
                    {
                        "type": "function_call",
                        "call_id": "call_1",
                        "name": "get_weather",
                        "arguments": "{}",
                    }
                ],
            },
        },
    }
    results = toolaudit.check_response(line, TOOLS)

    [message] = toolaudit.tool_result_messages(results)

    assert message["type"] == "function_call_output"
    assert message["call_id"] == "call_1"


def test_a_loaded_schema_set_judges_as_its_tools_do(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    response = chat(("c1", "get_weather", {"days": True}))
    expected = toolaudit.check_response(response, TOOLS)
    assert toolaudit.check_response(response, toolaudit.load_schemas(str(path))) == expected
    deep = toolaudit.load_schemas(str(path), deep=True)
    assert toolaudit.check_response(response, deep, deep=True) == expected
    with pytest.raises(toolaudit.OptionError, match="deep=True"):
        toolaudit.check_response(response, toolaudit.load_schemas(str(path)), deep=True)
    with pytest.raises(toolaudit.OptionError, match="loaded for deep validation"):
        toolaudit.check_response(response, deep)


def test_outputs_may_be_a_list_in_the_order_of_the_results() -> None:
    # Calls without ids (Gemini's) can only be told apart by their place.
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                        {"functionCall": {"name": "get_weather", "args": {}}},
                        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
                    ],
                }
            }
        ]
    }
    results = toolaudit.check_response(response, TOOLS)
    assert [r.ok for r in results] == [True, False, True]
    [message] = toolaudit.tool_result_messages(results, outputs=["sunny", None, "rain"])
    parts = [part["functionResponse"]["response"] for part in message["parts"]]
    assert parts[0] == {"output": "sunny"}
    assert "`city` is required" in parts[1]["error"]
    assert parts[2] == {"output": "rain"}
    with pytest.raises(toolaudit.OptionError, match="one entry per result"):
        toolaudit.tool_result_messages(results, outputs=["sunny"])


def test_a_bare_gemini_content_is_read_as_its_response() -> None:
    content = {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {}}}]}
    [result] = toolaudit.check_response(content, TOOLS)
    assert (result.format, result.errors) == ("gemini", ["missing:city"])


def test_an_unreadable_call_with_nothing_to_answer_is_told_in_text() -> None:
    # Gemini's MALFORMED_FUNCTION_CALL and Bedrock's malformed_tool_use name no call:
    # a functionResponse or toolResult for it would be refused, so the note is text.
    gemini = {"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "content": {}}]}
    [message] = toolaudit.tool_result_messages(toolaudit.check_response(gemini, TOOLS))
    assert list(message["parts"][0]) == ["text"]
    bedrock = {
        "output": {"message": {"role": "assistant", "content": []}},
        "stopReason": "malformed_tool_use",
    }
    [message] = toolaudit.tool_result_messages(toolaudit.check_response(bedrock, TOOLS))
    assert list(message["content"][0]) == ["text"]


def test_a_lone_responses_function_call_item_is_answered_as_responses() -> None:
    item = {
        "type": "function_call",
        "call_id": "fc_1",
        "name": "get_weather",
        "arguments": "{}",
    }
    [result] = toolaudit.check_response(item, TOOLS)
    [message] = toolaudit.tool_result_messages([result])
    assert message["type"] == "function_call_output" and message["call_id"] == "fc_1"
