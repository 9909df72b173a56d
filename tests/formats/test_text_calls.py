"""Tool calls hidden in a message's text: each markup, its broken forms, and where
the formats look for them (only the model's own messages without structured calls,
and raw completion text)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolaudit.formats import ABSENT, OBJECT, extract
from toolaudit.formats.text_calls import (
    BARE_JSON,
    HERMES,
    LLAMA,
    MISTRAL,
    calls_in_text,
    text_of,
)

WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
HERMES_ONE = f"<tool_call>\n{WEATHER}\n</tool_call>"


def found(text: str, first_index: int = 0) -> list[tuple[Any, ...]]:
    """What the calls in a text come to: (index, name, arguments, id, markup)."""
    return [
        (call.index, call.name, call.arguments, call.id, call.in_text)
        for call in calls_in_text(text, first_index)
    ]


def failures(text: str) -> list[str | None]:
    return [call.failure for call in calls_in_text(text, 0)]


# Hermes / Qwen


def test_hermes_calls_with_text_around_them() -> None:
    text = (
        "Let me look.\n"
        f"{HERMES_ONE}\n"
        '<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>\nDone.'
    )
    assert found(text, 3) == [
        (3, "get_weather", {"city": "Paris"}, None, HERMES),
        (4, "get_time", {"tz": "CET"}, None, HERMES),
    ]


def test_every_call_found_is_an_object_encoded_call_that_failed_nothing() -> None:
    [call] = calls_in_text(HERMES_ONE, 0)
    assert call.encoding == OBJECT
    assert call.failure is None and call.note is None


def test_an_unclosed_last_hermes_call_is_read() -> None:
    text = f"{HERMES_ONE}\n<tool_call>\n" + '{"name": "get_time", "arguments": {}}'
    assert [name for _, name, *_ in found(text)] == ["get_weather", "get_time"]


def test_an_unclosed_hermes_call_followed_by_another() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}<tool_call>{"name": "b", "arguments": {}}'
    assert [name for _, name, *_ in found(text)] == ["a", "b"]


def test_a_closing_tag_inside_a_string_is_part_of_the_arguments() -> None:
    text = '<tool_call>{"name": "echo", "arguments": {"s": "</tool_call>"}}</tool_call>'
    assert found(text) == [(0, "echo", {"s": "</tool_call>"}, None, HERMES)]


def test_integers_beyond_64_bits_stay_exact() -> None:
    text = '<tool_call>{"name": "n", "arguments": {"big": 123456789012345678901234567890}}'
    assert found(text)[0][2] == {"big": 123456789012345678901234567890}


def test_a_hermes_call_without_arguments_has_none() -> None:
    assert found('<tool_call>{"name": "ping"}</tool_call>') == [(0, "ping", ABSENT, None, HERMES)]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            '<tool_call>{"name": "a", "arguments": {"city": Paris}}</tool_call>',
            "Hermes <tool_call> markup at character 0 of the text: its JSON does not parse "
            "(Expecting value: character 47)",
        ),
        (
            '<tool_call>{"arguments": {"city": "Paris"}}</tool_call>',
            'Hermes <tool_call> markup at character 0 of the text: the call has no "name"',
        ),
        (
            '<tool_call>["get_weather", {"city": "Paris"}]</tool_call>',
            "Hermes <tool_call> markup at character 0 of the text: expected a call "
            '{"name": ..., "arguments": {...}}, got an array',
        ),
        (
            'Sure: <tool_call>{"name": "get_weather", "arguments": {"city": "Par',
            "Hermes <tool_call> markup at character 6 of the text: its JSON is cut short: "
            "the string at character 63 never closes",
        ),
        (
            '<tool_call>{"name": "get_weather", "arguments": {',
            "Hermes <tool_call> markup at character 0 of the text: its JSON is cut short: "
            "the text ends first",
        ),
        (
            '<tool_call>{"name": "a", "arguments": {"x": NaN}}',
            "Hermes <tool_call> markup at character 0 of the text: its JSON does not parse "
            "(NaN is not JSON)",
        ),
        (
            "<tool_call>" + "[" * 100_000,
            "Hermes <tool_call> markup at character 0 of the text: its JSON is nested too "
            "deeply to read",
        ),
    ],
    ids=["bad-json", "no-name", "not-an-object", "cut-string", "cut", "nan", "deep"],
)
def test_unreadable_markup_is_one_call_without_a_name(text: str, why: str) -> None:
    [call] = calls_in_text(text, 2)
    assert (call.index, call.name, call.in_text, call.failure) == (2, None, HERMES, why)


def test_a_broken_hermes_call_does_not_hide_the_next_one() -> None:
    text = f"<tool_call>{{oops}}</tool_call>{HERMES_ONE}"
    calls = calls_in_text(text, 0)
    assert [(c.name, c.failure is None) for c in calls] == [(None, False), ("get_weather", True)]


# Llama


def test_llama_python_tag_calls_joined_by_semicolons() -> None:
    text = (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; '
        '{"name": "get_time", "arguments": {"tz": "CET"}};'
    )
    assert found(text) == [
        (0, "get_weather", {"city": "Oslo"}, None, LLAMA),
        (1, "get_time", {"tz": "CET"}, None, LLAMA),
    ]


def test_a_semicolon_inside_a_string_does_not_split_a_llama_call() -> None:
    text = '<|python_tag|>{"name": "sql", "parameters": {"q": "SELECT 1; SELECT 2"}}'
    assert found(text) == [(0, "sql", {"q": "SELECT 1; SELECT 2"}, None, LLAMA)]


def test_llama_python_code_and_a_broken_second_call() -> None:
    assert failures('<|python_tag|>brave_search.call(query="weather")') == [
        "Llama <|python_tag|> markup at character 0 of the text: its JSON does not parse "
        "(Expecting value: character 14)"
    ]
    calls = calls_in_text('<|python_tag|>{"name": "a", "parameters": {}}; {"name": ', 0)
    assert [c.name for c in calls] == ["a", None]
    assert calls[1].failure is not None and "cut short" in calls[1].failure


# Mistral


def test_mistral_json_list_with_ids() -> None:
    text = (
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Bern"}, "id": "abcDEF123"}, '
        '{"name": "get_time", "arguments": {}}]</s>'
    )
    assert found(text) == [
        (0, "get_weather", {"city": "Bern"}, "abcDEF123", MISTRAL),
        (1, "get_time", {}, None, MISTRAL),
    ]


def test_mistral_name_and_json_pairs() -> None:
    text = '[TOOL_CALLS]get_weather{"city": "Bern"}, get_time{"tz": "CET"} and some text'
    assert found(text) == [
        (0, "get_weather", {"city": "Bern"}, None, MISTRAL),
        (1, "get_time", {"tz": "CET"}, None, MISTRAL),
    ]


def test_mistral_args_and_call_id_markers() -> None:
    text = (
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Bern"}'
        '[TOOL_CALLS]get_time[CALL_ID]xyzXYZ789[ARGS]{"tz": "CET"}</s>'
    )
    assert found(text) == [
        (0, "get_weather", {"city": "Bern"}, None, MISTRAL),
        (1, "get_time", {"tz": "CET"}, "xyzXYZ789", MISTRAL),
    ]


def test_mistral_broken_forms() -> None:
    assert failures("[TOOL_CALLS] Sorry, I cannot help.") == [
        "Mistral [TOOL_CALLS] markup at character 0 of the text: expected a JSON list of "
        'calls or name[ARGS]{...}, not "Sorry, I cannot help."'
    ]
    assert failures('[TOOL_CALLS] [{"name": "a", "arguments": {}')[0] == (
        "Mistral [TOOL_CALLS] markup at character 0 of the text: its JSON is cut short: "
        "the text ends first"
    )
    assert failures('[TOOL_CALLS] [{"arguments": {}}, 3]') == [
        'Mistral [TOOL_CALLS] markup at character 0 of the text: the call has no "name"',
        "Mistral [TOOL_CALLS] markup at character 0 of the text: expected a call "
        '{"name": ..., "arguments": {...}}, got a number',
    ]


def test_mistral_arguments_that_do_not_parse_keep_the_name() -> None:
    [call] = calls_in_text('[TOOL_CALLS]get_weather[ARGS]{"city": Bern}', 0)
    assert call.name == "get_weather" and call.arguments is ABSENT
    assert call.failure == (
        "Mistral [TOOL_CALLS] markup at character 0 of the text: its JSON does not parse "
        "(Expecting value: character 38)"
    )


# A whole text that is a call


@pytest.mark.parametrize(
    "text",
    [
        f"  {WEATHER}\n",
        '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    ],
)
def test_a_whole_text_that_is_a_call(text: str) -> None:
    assert found(text) == [(0, "get_weather", {"city": "Paris"}, None, BARE_JSON)]


@pytest.mark.parametrize(
    "text",
    [
        "It is sunny in Paris.",
        "",
        '{"city": "Paris", "temperature": 18}',
        '{"name": "Ada Lovelace", "arguments": {"born": 1815}}',  # a person, not a tool
        '{"name": "get_weather", "arguments": {"city": "Paris"}, "confidence": 0.9}',
        '{"name": "get_weather", "arguments": "Paris"}',
        '{"name": "get_weather", "arguments": {"city": "Paris"}} is what I would call.',
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        '{"name": "get_weather", "arguments": {"city": "Par',
    ],
)
def test_ordinary_answers_hold_no_call(text: str) -> None:
    assert calls_in_text(text, 0) == []


def test_a_huge_text_without_markup_holds_no_call() -> None:
    text = "It is sunny. {braces} [brackets] <tags> " * 200_000
    assert calls_in_text(text, 0) == []


def test_much_broken_markup_is_read_in_one_pass() -> None:
    # Each opening is read once: a quadratic scan would not finish.
    calls = calls_in_text("<tool_call>{" * 50_000, 0)
    assert len(calls) == 50_000 and calls[-1].index == 49_999


def test_the_text_of_content_parts() -> None:
    parts = [
        "a",
        {"type": "text", "text": "b"},
        {"type": "output_text", "text": "c"},
        {"text": "d"},  # Gemini, Bedrock
        {"text": "thinking", "thought": True},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": ["unhashable"], "text": "e"},
    ]
    assert text_of(parts) == "abcd"
    assert text_of(None) == "" and text_of({"text": "x"}) == ""


# Through the formats


def chat(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "object": "chat.completion",
        "model": "qwen",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
    }


def names(record: dict[str, Any]) -> list[tuple[int, Any, Any]]:
    return [(call.index, call.name, call.in_text) for call in extract(record).calls]


HIDDEN = [(0, "get_weather", HERMES)]


@pytest.mark.parametrize(
    "record",
    [
        chat({"role": "assistant", "content": HERMES_ONE, "tool_calls": []}),
        chat({"role": "assistant", "content": [{"type": "text", "text": HERMES_ONE}]}),
        {
            "object": "response",
            "output": [
                {"type": "reasoning", "summary": []},
                {"type": "message", "content": [{"type": "output_text", "text": HERMES_ONE}]},
            ],
        },
        {"type": "message", "content": [{"type": "text", "text": HERMES_ONE}]},
        {"candidates": [{"content": {"parts": [{"text": HERMES_ONE}]}, "finishReason": "STOP"}]},
        {"model": "qwen3", "message": {"role": "assistant", "content": HERMES_ONE}},
        {"output": {"message": {"content": [{"text": HERMES_ONE}]}}, "stopReason": "end_turn"},
        {"type": "ai", "content": [{"type": "text", "text": HERMES_ONE}], "tool_calls": []},
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "messages", "AIMessage"],
            "kwargs": {"content": HERMES_ONE, "tool_calls": []},
        },
        {
            "run_type": "llm",
            "outputs": {"generations": [[{"message": {"type": "ai", "content": HERMES_ONE}}]]},
        },
        {"run_type": "llm", "outputs": {"generations": [[{"text": HERMES_ONE}]]}},
        {"object": "text_completion", "choices": [{"text": HERMES_ONE, "finish_reason": "stop"}]},
        {"choices": [{"text": HERMES_ONE, "index": 0}]},
        {"generated_text": HERMES_ONE, "details": {"finish_reason": "eos_token"}},
        {"request": {"prompt": "..."}, "response": {"generated_text": HERMES_ONE}},
    ],
    ids=[
        "openai-chat",
        "openai-chat-parts",
        "openai-responses",
        "anthropic",
        "gemini",
        "ollama",
        "bedrock",
        "langchain",
        "langchain-dumpd",
        "langsmith",
        "langsmith-text",
        "openai-completions",
        "completions-without-object",
        "tgi",
        "envelope",
    ],
)
def test_each_format_finds_calls_in_its_text(record: dict[str, Any]) -> None:
    assert names(record) == HIDDEN


STRUCTURED = [(0, "get_weather", None)]


@pytest.mark.parametrize(
    "record",
    [
        chat(
            {
                "content": HERMES_ONE,
                "tool_calls": [{"id": "c", "function": {"name": "get_weather", "arguments": "{}"}}],
            }
        ),
        chat({"content": HERMES_ONE, "function_call": {"name": "get_weather", "arguments": "{}"}}),
        {
            "object": "response",
            "output": [
                {"type": "message", "content": [{"type": "output_text", "text": HERMES_ONE}]},
                {"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": "{}"},
            ],
        },
        {
            "type": "message",
            "content": [
                {"type": "text", "text": HERMES_ONE},
                {"type": "tool_use", "id": "t", "name": "get_weather", "input": {}},
            ],
        },
        {
            "candidates": [
                {
                    "content": {
                        "parts": [{"text": HERMES_ONE}, {"functionCall": {"name": "get_weather"}}]
                    }
                }
            ]
        },
        {
            "message": {
                "content": HERMES_ONE,
                "tool_calls": [{"function": {"name": "get_weather", "arguments": {}}}],
            }
        },
        {
            "output": {
                "message": {
                    "content": [
                        {"text": HERMES_ONE},
                        {"toolUse": {"toolUseId": "t", "name": "get_weather", "input": {}}},
                    ]
                }
            }
        },
        {
            "type": "ai",
            "content": HERMES_ONE,
            "tool_calls": [{"name": "get_weather", "args": {}, "id": "c"}],
        },
    ],
    ids=[
        "openai-chat",
        "function-call",
        "responses",
        "anthropic",
        "gemini",
        "ollama",
        "bedrock",
        "langchain",
    ],
)
def test_a_message_with_structured_calls_is_not_searched(record: dict[str, Any]) -> None:
    assert names(record) == STRUCTURED


def test_calls_of_other_kinds_keep_the_text_unsearched() -> None:
    custom = {"id": "c", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}
    assert names(chat({"content": HERMES_ONE, "tool_calls": [custom]})) == []
    web = {"type": "web_search_call", "id": "ws", "status": "completed"}
    message = {"type": "message", "content": [{"type": "output_text", "text": HERMES_ONE}]}
    assert names({"object": "response", "output": [web, message]}) == []
    server = {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}
    text = {"type": "text", "text": HERMES_ONE}
    assert names({"type": "message", "content": [server, text]}) == []


def test_a_provider_reported_failure_is_the_only_call() -> None:
    gemini = {"candidates": [{"content": {"parts": [{"text": HERMES_ONE}]}}]}
    gemini["candidates"][0]["finishReason"] = "MALFORMED_FUNCTION_CALL"
    assert names(gemini) == [(0, None, None)]
    bedrock = {"output": {"message": {"content": [{"text": HERMES_ONE}]}}}
    assert names({**bedrock, "stopReason": "malformed_tool_use"}) == [(0, None, None)]


def test_calls_are_numbered_across_choices_and_candidates() -> None:
    structured = {"tool_calls": [{"id": "c", "function": {"name": "a", "arguments": "{}"}}]}
    record = chat(structured)
    record["choices"].append(
        {"index": 1, "finish_reason": "stop", "message": {"content": HERMES_ONE}}
    )
    assert names(record) == [(0, "a", None), (1, "get_weather", HERMES)]


def test_thinking_is_not_searched() -> None:
    parts = [{"text": HERMES_ONE, "thought": True}, {"text": "It is sunny."}]
    assert names({"candidates": [{"content": {"parts": parts}}]}) == []
    blocks = [{"type": "thinking", "thinking": HERMES_ONE}, {"type": "text", "text": "Sunny."}]
    assert names({"type": "message", "content": blocks}) == []
    vllm = {"content": "Sunny.", "reasoning_content": HERMES_ONE}
    assert names(chat(vllm)) == []


def test_a_cut_off_response_notes_its_text_calls() -> None:
    calls = extract(chat({"content": '<tool_call>{"name": "get_weather'}, "length")).calls
    assert [c.name for c in calls] == [None]
    assert calls[0].note is not None and 'finish_reason "length"' in calls[0].note
    tgi = {"generated_text": HERMES_ONE, "details": {"finish_reason": "length"}}
    assert 'details.finish_reason "length"' in str(extract(tgi).calls[0].note)


def test_raw_completion_fragments_and_stream_events_hold_no_call() -> None:
    chunk = {
        "object": "text_completion",
        "choices": [{"text": "<tool_call>", "finish_reason": None}],
    }
    assert extract(chunk).calls == []
    event = {"token": {"id": 1, "text": "<tool_call>", "special": True}, "generated_text": None}
    assert extract(event).calls == []
    assert extract({"generated_text": "It is sunny."}).calls == []


def test_completion_records_keep_their_model_and_format() -> None:
    record = {"object": "text_completion", "model": "m", "choices": []}
    assert (extract(record).format, extract(record).model) == ("openai-completions", "m")
    assert extract({"generated_text": ""}).format == "tgi"


def test_the_markup_found_in_a_log_is_judged(tmp_path: Any) -> None:
    import toolaudit

    schemas = tmp_path / "schemas.json"
    parameters = {"type": "object", "properties": {"city": {"type": "string"}}}
    schemas.write_text(json.dumps({"get_weather": {"parameters": parameters}}))
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(chat({"content": HERMES_ONE})) + "\n")
    [row] = list(toolaudit.audit([str(log)], str(schemas)))
    assert row["errors"] == ["malformed:text"]
