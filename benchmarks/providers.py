"""Realistic provider logs: the benchmark's calls as the APIs return them.

Each call of the flat generator (``synthetic.py``: the same tools, arguments and broken
calls) becomes one whole response, with the fields the API really sends beside the
call (usage with its details, fingerprints, ``refusal``, ``annotations``, ids, a text
block before an Anthropic ``tool_use``...), so that a line weighs what it weighs in a
production log (OpenAI about 0.8 KB). A line the generator made unparseable stays as
it is: logs hold those too.

- ``openai``: Chat Completions responses (``chat.completion``), arguments a JSON string;
- ``anthropic``: Messages responses (``message``), a text block and a ``tool_use`` block
  whose ``input`` is the arguments object (a string when they are not JSON: a logging
  deviation, which the audit reports);
- ``gemini``: ``generateContent`` responses, ``functionCall.args`` the object;
- ``openai-pair`` (not in ``make bench``: 4 KB a line): request/response pairs as an
  agent logs them, the request with its messages and every tool, the OpenAI response;
  the request's tools judge the calls.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from common import DATA_DIR, READ_BUFFER, atomic_path, progress
from synthetic import GENERATOR_VERSION, generate_lines
from tools import tool_schemas

#: Bumped when a shape changes: the cached logs' names carry it.
PROVIDERS_VERSION = 2
PROVIDERS = ("openai", "anthropic", "gemini")
#: Logs measured only when asked for (``--providers``): heavier than the others.
MORE_PROVIDERS = ("openai-pair",)


_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _token(rng: random.Random, length: int = 24) -> str:
    """An id's random part, as the APIs make them (base62: few long runs of digits)."""
    return "".join(rng.choices(_ALPHABET, k=length))


def _arguments_object(arguments: object) -> object:
    """The arguments as an object-sending API logs them: parsed when they parse."""
    if isinstance(arguments, str):
        try:
            return orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
    return arguments


def _arguments_text(arguments: object) -> str:
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()


def openai_response(number: int, call: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    prompt, completion = rng.randint(200, 4000), rng.randint(15, 120)
    return {
        "id": f"chatcmpl-{_token(rng, 29)}",
        "object": "chat.completion",
        "created": 1764547200 + number,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call.get("id") or f"call_{_token(rng)}",
                            "type": "function",
                            "function": {
                                "name": call.get("name"),
                                "arguments": _arguments_text(call.get("arguments")),
                            },
                        }
                    ],
                    "refusal": None,
                    "annotations": [],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_f33640a400",
    }


def anthropic_response(number: int, call: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    prompt, completion = rng.randint(200, 4000), rng.randint(15, 120)
    return {
        "id": f"msg_01{_token(rng, 22)}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "text", "text": "I'll look that up for you."},
            {
                "type": "tool_use",
                "id": call.get("id") or f"toolu_01{_token(rng, 22)}",
                "name": call.get("name"),
                "input": _arguments_object(call.get("arguments")),
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": completion,
            "service_tier": "standard",
        },
    }


def gemini_response(number: int, call: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    prompt, completion = rng.randint(200, 4000), rng.randint(15, 120)
    return {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {
                            "functionCall": {
                                "name": call.get("name"),
                                "args": _arguments_object(call.get("arguments")),
                            }
                        }
                    ],
                    "role": "model",
                },
                "finishReason": "STOP",
                "avgLogprobs": -0.0123,
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": _token(rng, 20),
    }


def openai_pair(number: int, call: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    request = {
        "model": "gpt-4o-2024-08-06",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant with tools."},
            {"role": "user", "content": f"Request number {number}: please help."},
        ],
        "tools": _request_tools(),
        "tool_choice": "auto",
        "temperature": 0.2,
    }
    return {"request": request, "response": openai_response(number, call, rng)}


@functools.cache
def _request_tools() -> list[dict[str, Any]]:
    """The benchmark's tools as an OpenAI request sends them."""
    return [
        {"type": "function", "function": {"name": name, "description": f"The {name} tool.", **tool}}
        for name, tool in tool_schemas().items()
    ]


SHAPES: dict[str, Callable[[int, dict[str, Any], random.Random], dict[str, Any]]] = {
    "openai": openai_response,
    "anthropic": anthropic_response,
    "gemini": gemini_response,
    "openai-pair": openai_pair,
}


def openai_calls(response: Any) -> Iterator[tuple[object, object]]:
    """Each call of an OpenAI Chat response as (name, arguments), the arguments parsed
    (None when they are not JSON): what a peer's user writes to validate the calls."""
    for choice in response["choices"]:
        for call in choice["message"].get("tool_calls") or ():
            function = call["function"]
            try:
                arguments = orjson.loads(function["arguments"])
            except orjson.JSONDecodeError:
                arguments = None
            yield function["name"], arguments


def anthropic_calls(response: Any) -> Iterator[tuple[object, object]]:
    """Each ``tool_use`` block of an Anthropic Messages response as (name, input)."""
    for block in response["content"]:
        if block["type"] == "tool_use":
            yield block["name"], block["input"]


def gemini_calls(response: Any) -> Iterator[tuple[object, object]]:
    """Each ``functionCall`` part of a Gemini response as (name, args)."""
    for candidate in response["candidates"]:
        for part in candidate["content"]["parts"]:
            call = part.get("functionCall")
            if call is not None:
                yield call["name"], call.get("args", {})


#: How a peer's user reads each provider's calls out of a parsed line.
PEER_CALLS: dict[str, Callable[[Any], Iterator[tuple[object, object]]]] = {
    "openai": openai_calls,
    "anthropic": anthropic_calls,
    "gemini": gemini_calls,
    "openai-pair": lambda pair: openai_calls(pair["response"]),
}


def provider_lines(provider: str, calls: int, seed: int) -> Iterator[bytes]:
    shape = SHAPES[provider]
    rng = random.Random(seed)
    for number, (line, _) in enumerate(generate_lines(calls, seed), start=1):
        try:
            call = orjson.loads(line)
        except orjson.JSONDecodeError:
            yield line.encode()  # not JSON in any format
            continue
        if not isinstance(call, dict):
            yield line.encode()
            continue
        yield orjson.dumps(shape(number, call, rng))


def provider_log(provider: str, calls: int, seed: int) -> Path:
    """The log of ``calls`` responses of ``provider``: cached, or written now."""
    path = (
        DATA_DIR / f"{provider}-v{PROVIDERS_VERSION}.{GENERATOR_VERSION}-seed{seed}-{calls}.jsonl"
    )
    if not path.exists():
        progress(f"writing {path.name} ...")
        with atomic_path(path) as partial, open(partial, "wb", buffering=READ_BUFFER) as out:
            for line in provider_lines(provider, calls, seed):
                out.write(line + b"\n")
    return path
