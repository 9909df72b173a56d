"""The JSON bodies the providers' SDKs send, captured on their way out (no network):
what a gateway logs of each request. Each request replays one conversation: the user
asks, the model calls get_weather, the tool answers, the user asks again.

openai and anthropic are given an httpx transport that keeps the body and answers
with a canned error; google-genai too (its client_args); boto3 a ``before-send``
hook that does the same.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import httpx2 as httpx

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}


class _Sent(Exception):
    """Raised by the transport once it holds the body: nothing goes further."""


def _capturing_client(bodies: list[dict[str, Any]]) -> httpx.Client:
    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        raise _Sent

    return httpx.Client(transport=httpx.MockTransport(handle))


def openai_chat_body() -> dict[str, Any]:
    import openai
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    bodies: list[dict[str, Any]] = []
    client = openai.OpenAI(
        api_key="k", base_url="http://127.0.0.1:9/v1", http_client=_capturing_client(bodies)
    )
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
    with contextlib.suppress(openai.APIConnectionError, _Sent):
        client.with_options(max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=tools
        )
    return bodies[0]


def openai_responses_body() -> dict[str, Any]:
    import openai
    from openai.types.responses import FunctionToolParam, ResponseInputItemParam

    bodies: list[dict[str, Any]] = []
    client = openai.OpenAI(
        api_key="k", base_url="http://127.0.0.1:9/v1", http_client=_capturing_client(bodies)
    )
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
    with contextlib.suppress(openai.APIConnectionError, _Sent):
        client.with_options(max_retries=0).responses.create(
            model="gpt-4.1-mini", input=items, tools=tools
        )
    return bodies[0]


def anthropic_body() -> dict[str, Any]:
    import anthropic
    from anthropic.types import MessageParam, ToolParam

    bodies: list[dict[str, Any]] = []
    client = anthropic.Anthropic(
        api_key="k", base_url="http://127.0.0.1:9", http_client=_capturing_client(bodies)
    )
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
    with contextlib.suppress(anthropic.APIConnectionError, _Sent):
        client.with_options(max_retries=0).messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            system="You report the weather.",
            messages=messages,
            tools=tools,
        )
    return bodies[0]


def gemini_body() -> dict[str, Any]:
    from google import genai
    from google.genai import types

    bodies: list[dict[str, Any]] = []
    client = genai.Client(
        api_key="k",
        http_options=types.HttpOptions(
            base_url="http://127.0.0.1:9/", httpx_client=_capturing_client(bodies)
        ),
    )
    contents = [
        types.Content(role="user", parts=[types.Part(text="Weather in Paris?")]),
        types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(
                        id="fc_1", name="get_weather", args={"city": "Paris"}
                    )
                )
            ],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id="fc_1", name="get_weather", response={"output": "18C"}
                    )
                )
            ],
        ),
    ]
    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(name="get_weather", parameters_json_schema=WEATHER)
        ]
    )
    with contextlib.suppress(_Sent):
        client.models.generate_content(
            model="gemini-2.5-flash",
            contents=contents,
            config=types.GenerateContentConfig(
                tools=[tool],
                automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            ),
        )
    return bodies[0]


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
