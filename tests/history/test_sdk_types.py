"""Histories as the SDKs make them: ``check_history`` on their objects (openai,
anthropic, google-genai), and every history the tests build, broken or repaired,
validated as the SDK's own request types (Bedrock: botocore's Converse service model),
so that the shapes tested are the shapes sent."""

from __future__ import annotations

import functools
from typing import Any

import botocore.session
import pydantic
import pytest
from anthropic.types import (
    Message,
    MessageParam,
    TextBlock,
    ToolUseBlock,
    Usage,
)
from botocore.exceptions import ParamValidationError
from botocore.validate import validate_parameters
from google.genai import types as genai
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import (
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageParam,
)
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.responses import ResponseFunctionToolCall, ResponseInputItemParam

from toolaudit.history import check_history

from .shapes import BY_NAME, build
from .test_pairing import FAULTS, W
from .test_repair import STEP

PARIS = '{"city": "Paris"}'


@functools.cache
def adapter(typed: Any) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(typed)


def exactly(typed: Any, value: object) -> None:
    """``value`` is a ``typed``, with nothing dropped or coerced (a TypedDict ignores
    unknown keys: the round trip catches a misspelt one)."""
    assert _consumed(adapter(typed).validate_python(value)) == value


def _consumed(value: Any) -> Any:
    """A validated value with its Iterables (validated lazily) read into lists, while
    the cached adapter lives (pydantic-core panics otherwise)."""
    if isinstance(value, dict):
        return {key: _consumed(item) for key, item in value.items()}
    if isinstance(value, (str, bytes, int, float, bool, type(None))):
        return value
    return [_consumed(item) for item in value]


def valid_chat(messages: list[Any]) -> None:
    for message in messages:
        exactly(ChatCompletionMessageParam, message)


def valid_responses(items: list[Any]) -> None:
    for item in items:
        exactly(ResponseInputItemParam, item)


def valid_anthropic(messages: list[Any]) -> None:
    for message in messages:
        exactly(MessageParam, message)


def valid_gemini(contents: list[Any]) -> None:
    for content in contents:
        typed = genai.Content.model_validate(content)
        assert typed.model_dump(mode="json", by_alias=True, exclude_none=True) == content


@functools.cache
def _converse_input() -> Any:
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").input_shape


def valid_bedrock(messages: list[Any]) -> None:
    validate_parameters({"modelId": "m", "messages": messages}, _converse_input())


VALID = {
    "openai-chat": valid_chat,
    "openai-responses": valid_responses,
    "anthropic": valid_anthropic,
    "gemini": valid_gemini,
    "bedrock": valid_bedrock,
}


@pytest.mark.parametrize("shape", VALID)
@pytest.mark.parametrize("fault", FAULTS)
def test_the_histories_built_and_repaired_are_what_the_sdk_sends(shape, fault):
    messages = build(BY_NAME[shape], FAULTS[fault][0])
    VALID[shape](messages)
    VALID[shape](check_history(messages, provider=shape, repair=True).messages)


def test_openai_chat_with_the_sdks_assistant_message():
    # The usual loop: messages.append(completion.choices[0].message), then the results.
    assistant = ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=[
            ChatCompletionMessageFunctionToolCall(
                id=f"call_{n}", type="function", function=Function(name=W, arguments=PARIS)
            )
            for n in (1, 2)
        ],
    )
    messages = [
        {"role": "user", "content": "Weather in Paris, twice?"},
        assistant,
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "user", "content": "and?"},
    ]
    [problem] = check_history(messages)
    assert (problem.code, problem.path, problem.call_id) == (
        "pairing:unanswered",
        "messages[1].tool_calls[1]",
        "call_2",
    )
    repaired = check_history(messages, repair=True)
    valid_chat(repaired.messages)
    assert [m["role"] for m in repaired.messages] == ["user", "assistant", "tool", "tool", "user"]
    # The added result follows the one in place: the tool messages in the calls' order.
    assert [m["tool_call_id"] for m in repaired.messages[2:4]] == ["call_1", "call_2"]
    assert isinstance(messages[1], ChatCompletionMessage)  # the given history is as it was


def test_anthropic_with_the_sdks_content_blocks():
    response = Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=[
            TextBlock(type="text", text="Checking."),
            ToolUseBlock(type="tool_use", id="toolu_1", name=W, input={"city": "Paris"}),
        ],
        stop_reason="tool_use",
        usage=Usage(input_tokens=1, output_tokens=1),
    )
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": response.content},
        {"role": "user", "content": "still there?"},
    ]
    [problem] = check_history(messages)
    assert (problem.code, problem.path) == ("pairing:unanswered", "messages[1].content[1]")
    assert "tool_use ids were found without tool_result blocks immediately after" in problem.detail
    repaired = check_history(messages, repair=True)
    valid_anthropic(repaired.messages)
    assert repaired.messages[2]["content"][0]["tool_use_id"] == "toolu_1"
    assert repaired.messages[2]["content"][1] == {"type": "text", "text": "still there?"}


def test_openai_responses_with_the_sdks_output_items():
    call = ResponseFunctionToolCall(
        type="function_call",
        id="fc_1",
        call_id="call_1",
        name=W,
        arguments=PARIS,
        status="completed",
    )
    items = [
        {"role": "user", "content": "Weather in Paris?"},
        call,
        {"type": "function_call_output", "call_id": "call_9", "output": "sunny"},
    ]
    assert [(p.code, p.call_id) for p in check_history(items)] == [
        ("pairing:unanswered", "call_1"),
        ("pairing:orphan_result", "call_9"),
    ]
    repaired = check_history(items, repair=True)
    valid_responses(repaired.messages)
    assert [c.action for c in repaired.changes] == ["answered", "dropped"]


def test_gemini_with_the_sdks_contents():
    contents = [
        genai.Content(role="user", parts=[genai.Part(text="Weather in Paris and Rome?")]),
        genai.Content(
            role="model",
            parts=[
                genai.Part(function_call=genai.FunctionCall(name=W, args={"city": "Paris"})),
                genai.Part(function_call=genai.FunctionCall(name=W, args={"city": "Rome"})),
            ],
        ),
        genai.Content(
            role="user",
            parts=[genai.Part.from_function_response(name=W, response={"error": "timeout"})],
        ),
    ]
    [problem] = check_history(contents)
    assert (problem.code, problem.path) == (
        "pairing:unanswered",
        "messages[1].parts[1].functionCall",
    )
    repaired = check_history(contents, repair=True)
    valid_gemini(repaired.messages)
    assert len(repaired.messages[2]["parts"]) == 2


def test_a_whole_request_body_is_read_at_its_history():
    body = {"modelId": "m", "messages": build(BY_NAME["bedrock"], FAULTS["orphan"][0])}
    [problem] = check_history(body)
    assert (problem.code, problem.path) == (
        "pairing:orphan_result",
        "messages[1].content[0].toolResult",
    )
    contents = {"contents": build(BY_NAME["gemini"], FAULTS["unanswered"][0])}
    assert [p.path for p in check_history(contents)] == ["contents[1].parts[1].functionCall"]
    assert check_history(b'[{"role": "user", "content": "hi"}]') == []


def test_the_sdk_checks_can_fail():
    with pytest.raises(AssertionError):  # a misspelt key, which a TypedDict drops
        valid_chat([{"role": "tool", "tool_call_id": "a", "content": "x", "tool_name": W}])
    with pytest.raises(pydantic.ValidationError):
        valid_anthropic([{"role": "user", "content": [{"type": "tool_result"}]}])
    with pytest.raises(ParamValidationError):  # a toolResult needs its content
        valid_bedrock([{"role": "user", "content": [{"toolResult": {"toolUseId": "a"}}]}])
    with pytest.raises(pydantic.ValidationError):
        valid_gemini([{"role": "model", "parts": [{"functionCall": {"name": 5}}]}])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(sorted(VALID)), steps=st.lists(STEP, max_size=6))
def test_any_repaired_history_is_still_what_the_sdk_sends(shape, steps):
    repaired = check_history(build(BY_NAME[shape], steps), provider=shape, repair=True)
    VALID[shape](repaired.messages)
