"""Typed argument decoders (msgspec) against orjson plus the contract, on 100k arguments texts.

The texts are the arguments of the benchmark log's calls (synthetic.py: ten tools,
about 20% of the calls broken), as JSON strings, the way OpenAI's records carry
them; calls of unknown tools and lines that are not JSON are left out. Each
variant judges every text:

- ``orjson + check``: ``ToolValidator.check(orjson.loads(text))``, the general path;
- ``typed, else orjson + check``: ``accepts(decoder, text)``, and the general path
  for what it refuses (the invalid calls, and any valid one it cannot vouch for);
- ``typed decode alone``: ``decoder.decode(text)`` without :func:`accepts`'s checks
  (not exact: what those checks cost), the general path when it raises;
- ``orjson.loads alone``: the parse floor, judging nothing.

Rounds are interleaved; the figures are medians. Run:
``.venv/bin/python benchmarks/typed_args.py [--calls N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import msgspec
import orjson

from synthetic import generate_lines
from toolaudit import compile_schemas
from toolaudit.typed import accepts, arguments_decoders
from tools import tool_schemas

SEED = 20261128


def arguments_texts(calls: int) -> list[tuple[str, str]]:
    """(tool name, arguments JSON text) of the first ``calls`` known-tool calls of the log."""
    known = set(tool_schemas())
    texts: list[tuple[str, str]] = []
    for line, errors in generate_lines(calls * 2, SEED):
        if errors is None:
            continue  # not JSON
        record = json.loads(line)
        if record["name"] in known:
            texts.append((record["name"], json.dumps(record["arguments"], ensure_ascii=False)))
        if len(texts) == calls:
            break
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    texts = arguments_texts(args.calls)
    tools = compile_schemas(tool_schemas()).tools
    decoders = arguments_decoders(compile_schemas(tool_schemas()))
    assert set(decoders) == set(tools), "every benchmark tool should be typed"
    loads = orjson.loads
    refused = msgspec.DecodeError

    def general() -> None:
        for name, text in texts:
            tools[name].check(loads(text))

    def typed() -> None:
        for name, text in texts:
            if not accepts(decoders[name], text):
                tools[name].check(loads(text))

    def typed_alone() -> None:
        for name, text in texts:
            try:
                decoders[name].decode(text)
            except refused:
                tools[name].check(loads(text))

    def floor() -> None:
        for _, text in texts:
            loads(text)

    variants: dict[str, Callable[[], None]] = {
        "orjson + check": general,
        "typed, else orjson + check": typed,
        "typed decode alone": typed_alone,
        "orjson.loads alone": floor,
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, function in variants.items():
            started = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - started)

    valid = sum(not tools[name].check(loads(text)) for name, text in texts)
    taken = sum(accepts(decoders[name], text) for name, text in texts)
    print(
        f"{len(texts):,} arguments texts of {len(tools)} tools, {valid:,} valid, "
        f"{taken:,} accepted by the typed decoders; median of {args.rounds} rounds\n"
    )
    base = statistics.median(times["orjson + check"])
    print("| variant | ms | ns per text | x orjson + check |")
    print("|---|---:|---:|---:|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(
            f"| {name} | {median * 1e3:.1f} | {median / len(texts) * 1e9:.0f} "
            f"| {median / base:.2f}x |"
        )


if __name__ == "__main__":
    main()
