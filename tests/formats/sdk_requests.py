"""The JSON bodies the providers' SDKs send, captured on their way out (no network):
what a gateway logs of each request. Each request replays one conversation: the user
asks, the model calls get_weather, the tool answers, the user asks again.

openai, anthropic and google-genai are given an HTTP client (httpx2, which they use)
whose transport keeps the body and fails; boto3 a ``before-send`` hook that does the
same.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import httpx2 as httpx

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}


class _Sent(Exception):
    """Raised by the transport once it holds the body: nothing goes further."""


def _sent(send: Callable[[httpx.Client], object]) -> dict[str, Any]:
    """The body ``send`` sends through the HTTP client it is given, which keeps it and
    fails (each SDK wraps that failure in its own error, or not)."""
    bodies: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        raise _Sent

    with contextlib.suppress(Exception):
        send(httpx.Client(transport=httpx.MockTransport(handle)))
    return bodies[0]


def _openai(http_client: httpx.Client) -> Any:
    import openai

    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", http_client=http_client)
    return client.with_options(max_retries=0)


def openai_chat_body() -> dict[str, Any]:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": "You report the weather."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    tools: list[ChatCompletionToolParam] = [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}
    ]
    return _sent(
        lambda http: _openai(http).chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=tools
        )
    )


def openai_responses_body() -> dict[str, Any]:
    from openai.types.responses import FunctionToolParam, ResponseInputItemParam

    items: list[ResponseInputItemParam] = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    tools: list[FunctionToolParam] = [
        {"type": "function", "name": "get_weather", "parameters": WEATHER, "strict": False}
    ]
    return _sent(
        lambda http: _openai(http).responses.create(model="gpt-4.1-mini", input=items, tools=tools)
    )


def anthropic_body() -> dict[str, Any]:
    import anthropic
    from anthropic.types import MessageParam, ToolParam

    messages: list[MessageParam] = [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18C"},
                {"type": "text", "text": "And tomorrow?"},
            ],
        },
    ]
    tools: list[ToolParam] = [{"name": "get_weather", "input_schema": WEATHER}]
    return _sent(
        lambda http: anthropic.Anthropic(
            api_key="k", base_url="http://127.0.0.1:9", http_client=http, max_retries=0
        ).messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            system="You report the weather.",
            messages=messages,
            tools=tools,
        )
    )


def _gemini_arguments() -> tuple[list[Any], Any]:
    """A Gemini conversation with one answered call, and a config offering its tool, as
    the google-genai SDK takes them."""
    from google.genai import types

    def turn(role: str, part: types.Part) -> types.Content:
        return types.Content(role=role, parts=[part])

    call = types.FunctionCall(id="fc_1", name="get_weather", args={"city": "Paris"})
    result = types.FunctionResponse(id="fc_1", name="get_weather", response={"output": "18C"})
    contents = [
        turn("user", types.Part(text="Weather in Paris?")),
        turn("model", types.Part(function_call=call)),
        turn("user", types.Part(function_response=result)),
    ]
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(name="get_weather", parameters_json_schema=WEATHER)
        ]
    )
    config = types.GenerateContentConfig(
        tools=[tool],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    return contents, config


def gemini_body() -> dict[str, Any]:
    from google import genai
    from google.genai import types

    contents, config = _gemini_arguments()
    return _sent(
        lambda http: genai.Client(
            api_key="k",
            http_options=types.HttpOptions(base_url="http://127.0.0.1:9/", httpx_client=http),
        ).models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
    )


def gemini_sdk_arguments() -> dict[str, Any]:
    """``generate_content``'s keyword arguments dumped as an application logs them (the
    SDK's own field names, the tools in ``config``), not the body it sends."""
    contents, config = _gemini_arguments()
    return {
        "model": "gemini-2.5-flash",
        "contents": [content.model_dump(mode="json", exclude_none=True) for content in contents],
        "config": config.model_dump(mode="json", exclude_none=True),
    }


def bedrock_body() -> dict[str, Any]:
    import boto3

    bodies: list[dict[str, Any]] = []

    def capture(request: Any, **_: Any) -> None:
        bodies.append(json.loads(request.body))
        raise _Sent

    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        endpoint_url="http://127.0.0.1:9",
    )
    client.meta.events.register("before-send.bedrock-runtime.Converse", capture)
    with contextlib.suppress(_Sent):
        client.converse(
            modelId="amazon.nova-pro-v1:0",
            system=[{"text": "You report the weather."}],
            messages=[
                {"role": "user", "content": [{"text": "Weather in Paris?"}]},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "toolUse": {
                                "toolUseId": "tooluse_1",
                                "name": "get_weather",
                                "input": {"city": "Paris"},
                            }
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "toolResult": {
                                "toolUseId": "tooluse_1",
                                "content": [{"text": "18C"}],
                                "status": "success",
                            }
                        }
                    ],
                },
            ],
            toolConfig={
                "tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": WEATHER}}}]
            },
        )
    return bodies[0]
