"""Histories in every provider's shape, built from the same few steps, so that one test
can put each fault into each shape: the exact JSON each API takes (tests/history/
test_sdk_types.py checks it against the SDKs' own request types)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

#: A call: (id, tool name). A result: (id, tool name, whether it reports a failure).
CallSpec = tuple[str, str]
ResultSpec = tuple[str, str, bool]
Messages = list[dict[str, Any]]


def _text(failed: bool) -> str:
    return "Error: the city is unknown" if failed else "sunny"


@dataclass(frozen=True)
class Shape:
    """How one shape writes a turn of calls, results, and a user's words."""

    name: str
    calls: Callable[[list[CallSpec]], Messages]
    results: Callable[[list[ResultSpec]], Messages]
    user: Callable[[str], Messages]
    #: Results must follow their calls at once (else they are misplaced).
    windowed: bool
    #: Results name their tool (so a result can name another tool than its call).
    names_results: bool


CHAT = Shape(
    "openai-chat",
    lambda calls: [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
                for i, n in calls
            ],
        }
    ],
    lambda results: [
        {"role": "tool", "tool_call_id": i, "content": _text(failed)} for i, _, failed in results
    ],
    lambda text: [{"role": "user", "content": text}],
    windowed=True,
    names_results=False,
)
RESPONSES = Shape(
    "openai-responses",
    lambda calls: [
        {"type": "function_call", "call_id": i, "name": n, "arguments": "{}"} for i, n in calls
    ],
    lambda results: [
        {"type": "function_call_output", "call_id": i, "output": _text(failed)}
        for i, _, failed in results
    ],
    lambda text: [{"role": "user", "content": text}],
    windowed=False,
    names_results=False,
)
ANTHROPIC = Shape(
    "anthropic",
    lambda calls: [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": i, "name": n, "input": {}} for i, n in calls],
        }
    ],
    lambda results: [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": i, "content": _text(f), "is_error": f}
                for i, _, f in results
            ],
        }
    ],
    lambda text: [{"role": "user", "content": text}],
    windowed=True,
    names_results=False,
)
BEDROCK = Shape(
    "bedrock",
    lambda calls: [
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": i, "name": n, "input": {}}} for i, n in calls],
        }
    ],
    lambda results: [
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": i,
                        "content": [{"text": _text(f)}],
                        "status": "error" if f else "success",
                    }
                }
                for i, _, f in results
            ],
        }
    ],
    lambda text: [{"role": "user", "content": [{"text": text}]}],
    windowed=True,
    names_results=False,
)
GEMINI = Shape(
    "gemini",
    lambda calls: [
        {
            "role": "model",
            "parts": [{"functionCall": {"id": i, "name": n, "args": {}}} for i, n in calls],
        }
    ],
    lambda results: [
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": i,
                        "name": n,
                        "response": {"error": _text(f)} if f else {"output": _text(f)},
                    }
                }
                for i, n, f in results
            ],
        }
    ],
    lambda text: [{"role": "user", "parts": [{"text": text}]}],
    windowed=True,
    names_results=True,
)
LANGCHAIN = Shape(
    "langchain",
    lambda calls: [
        {
            "type": "ai",
            "content": "",
            "tool_calls": [{"name": n, "args": {}, "id": i, "type": "tool_call"} for i, n in calls],
        }
    ],
    lambda results: [
        {
            "type": "tool",
            "tool_call_id": i,
            "name": n,
            "content": _text(f),
            "status": "error" if f else "success",
        }
        for i, n, f in results
    ],
    lambda text: [{"type": "human", "content": text}],
    windowed=False,
    names_results=True,
)
OTEL = Shape(
    "otel",
    lambda calls: [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": i, "name": n, "arguments": {}} for i, n in calls],
        }
    ],
    lambda results: [
        {
            "role": "tool",
            "parts": [
                {"type": "tool_call_response", "id": i, "response": _text(f)} for i, _, f in results
            ],
        }
    ],
    lambda text: [{"role": "user", "parts": [{"type": "text", "content": text}]}],
    windowed=False,
    names_results=False,
)
SHAPES = (CHAT, RESPONSES, ANTHROPIC, BEDROCK, GEMINI, LANGCHAIN, OTEL)
BY_NAME = {shape.name: shape for shape in SHAPES}

#: A step of a history: ("calls", [(id, name)]), ("results", [(id, name, failed)]),
#: or ("user", text).
Step = tuple[str, Any]


def build(shape: Shape, steps: Iterable[Step]) -> Messages:
    """The history of ``steps`` in ``shape``."""
    messages: Messages = []
    for kind, value in steps:
        messages.extend(getattr(shape, kind)(value))
    return messages
