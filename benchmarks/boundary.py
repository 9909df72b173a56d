"""check_response at the agent boundary, against the contract alone.

A typical OpenAI Chat response (two calls, one of them broken) with ten tools,
already compiled and cached: what an agent pays per turn to check the calls,
next to what the contract costs on the same calls extracted and decoded by
hand: ``Validator.validate`` (compiled once) and ``validate_tool_call``
(compiling the schemas every call). Both are timed in this process, interleaved, several rounds;
the figures are medians per call, and the ratio is what matters on a noisy
machine.

Run: ``.venv/bin/python benchmarks/boundary.py [--rounds N] [--number N]``.
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from typing import Any

import orjson

import toolaudit

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "description": f"Tool number {i}",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "mode": {"type": "string", "enum": ["fast", "exact"]},
                    "verbose": {"type": "boolean"},
                },
                "required": ["query"],
            },
        },
    }
    for i in range(10)
]

CALLS = [
    {"name": "tool_3", "arguments": {"query": "weather in Paris", "limit": 5, "mode": "fast"}},
    {"name": "tool_7", "arguments": {"limit": True, "mode": "slow"}},
]

RESPONSE: dict[str, Any] = {
    "id": "chatcmpl-abc123",
    "object": "chat.completion",
    "created": 1764547200,
    "model": "gpt-4o-2024-08-06",
    "system_fingerprint": "fp_abc",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "logprobs": None,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "annotations": [],
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {
                            "name": call["name"],
                            "arguments": orjson.dumps(call["arguments"]).decode(),
                        },
                    }
                    for i, call in enumerate(CALLS)
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 812, "completion_tokens": 61, "total_tokens": 873},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=20_000)
    args = parser.parse_args()

    schemas = {t["function"]["name"]: t["function"] for t in TOOLS}
    validator = toolaudit.compile_schemas(schemas)
    check_response = toolaudit.check_response
    text = orjson.dumps(RESPONSE)

    def by_hand() -> None:
        # What the contract alone costs: the calls already dug out and decoded.
        for call in CALLS:
            validator.validate(call)

    def uncompiled() -> None:
        # validate_tool_call compiles the schemas on every call: the one-off form.
        for call in CALLS:
            toolaudit.validate_tool_call(schemas, call)

    def at_boundary() -> None:
        check_response(RESPONSE, TOOLS)

    def at_boundary_from_json() -> None:
        check_response(text, TOOLS)

    def at_boundary_explained() -> None:
        toolaudit.tool_result_messages(check_response(RESPONSE, TOOLS))

    variants = {
        "validate (pre-extracted calls)": by_hand,
        "validate_tool_call (compiles each call)": uncompiled,
        "check_response (dict)": at_boundary,
        "check_response (JSON bytes)": at_boundary_from_json,
        "check_response + tool_result_messages": at_boundary_explained,
    }
    at_boundary()  # compiles the tools once: every timed call finds them cached
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, function in variants.items():
            seconds = timeit.timeit(function, number=args.number)
            times[name].append(seconds / args.number / len(CALLS) * 1e6)
    base = statistics.median(times["validate (pre-extracted calls)"])
    print(f"{len(CALLS)} calls, {len(TOOLS)} tools cached; median of {args.rounds} rounds\n")
    print("| variant | µs per call | x validate |")
    print("|---|---:|---:|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"| {name} | {median:.2f} | {median / base:.2f}x |")


if __name__ == "__main__":
    main()
