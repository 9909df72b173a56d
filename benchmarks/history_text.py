"""What reading a history from its JSON text costs: per history, the C speedups'
``chat_json(text)`` (and its siblings per provider) beside ``orjson.loads(text)`` followed
by the dict reading, ``chat(list)`` (what a line the text reader is not sure of costs), on
the histories of benchmarks/conversations.py (its generator, its seed, each provider's
shape), rounds interleaved, medians.

    .venv/bin/python benchmarks/history_text.py --histories 2000 --messages 40 --repeat 15

``--instructions`` counts instead, with valgrind's callgrind, the instructions of the text
reading alone (collected inside the ``*_json`` function only, so the histories' making is
not counted) per history and per byte, for every shape, the load not moving them; ``--src
DIR`` measures another checkout's sources (``git archive <commit> src | tar -x -C DIR``,
then ``python setup.py build_ext --inplace`` there) beside these, for a side by side.
``--only json|dict|none`` runs one way once (what ``--instructions`` runs under callgrind).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from conversations import SEED, SHAPES, as_anthropic, as_bedrock, as_gemini, as_responses, history
from measure import BenchmarkError

#: Each shape's history, as its request holds it, from the generator's Chat history.
CONVERTERS: dict[str, Callable[[list[dict[str, Any]]], list[dict[str, Any]]]] = {
    "openai-chat": lambda messages: messages,
    "openai-responses": as_responses,
    "anthropic": as_anthropic,
    "bedrock": as_bedrock,
    "gemini": as_gemini,
}
#: Each shape's functions in the C speedups: (the dict reading, the text reading).
FUNCTION_NAMES = {
    "openai-chat": "chat",
    "openai-responses": "responses",
    "anthropic": "anthropic",
    "bedrock": "bedrock",
    "gemini": "gemini",
}


def functions(shape: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    from toolaudit.history import _speedups  # type: ignore[attr-defined]

    name = FUNCTION_NAMES[shape]
    return getattr(_speedups, name), getattr(_speedups, f"{name}_json")


#: A piece of what people and tools write: lines, quotes, and characters past ASCII.
PROSE = (
    'The forecast said "sunny", 12 \u00b0C \u2014 the caf\u00e9 is open.\n'
    "\u5929\u6c14\u5f88\u597d\u3002\n"
)


def with_prose(messages: list[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """The history with about ``size`` characters of prose more in each user message and
    each tool result (``--prose``: real histories' texts are long, the generator's short)."""
    if size == 0:
        return messages
    prose = (PROSE * (size // len(PROSE) + 1))[:size]
    return [
        message | {"content": f"{message['content']} {prose}"}
        if message["role"] in ("user", "tool")
        else message
        for message in messages
    ]


def texts(shape: str, count: int, length: int, prose: int = 0) -> list[bytes]:
    """The JSON text of ``count`` histories of about ``length`` messages, as a request
    line holds them (orjson's compact writing)."""
    rng = random.Random(SEED)
    convert = CONVERTERS[shape]
    made = (history(rng, length, number) for number in range(count))
    return [orjson.dumps(convert(with_prose(messages, prose))) for messages in made]


def ways(shape: str, histories: list[bytes]) -> dict[str, Callable[[], object]]:
    from toolaudit.history.model import NO_NAME

    by_dict, by_text = functions(shape)
    parsed = [orjson.loads(text) for text in histories]
    return {
        "orjson.loads": lambda: [orjson.loads(text) and None for text in histories],
        "dict check alone": lambda: [by_dict(messages, NO_NAME) for messages in parsed],
        "orjson.loads + dict check": lambda: [
            by_dict(orjson.loads(text), NO_NAME) for text in histories
        ],
        "text check": lambda: [by_text(text, NO_NAME) for text in histories],
    }


def measure(shape: str, histories: list[bytes], repeat: int) -> None:
    from toolaudit.history.model import NO_NAME

    by_dict, by_text = functions(shape)
    answered = sum(by_text(text, NO_NAME) is not None for text in histories)
    agree = all(
        by_text(text, NO_NAME)
        in (None, (*by_dict(orjson.loads(text), NO_NAME), len(orjson.loads(text))))
        for text in histories
    )
    rows = ways(shape, histories)
    seconds: dict[str, list[float]] = {label: [] for label in rows}
    for _ in range(repeat):
        for label, way in rows.items():
            started = time.perf_counter()
            way()
            seconds[label].append(time.perf_counter() - started)
    messages = sum(len(orjson.loads(text)) for text in histories) / len(histories)
    size = sum(map(len, histories)) / len(histories)
    print(
        f"\n{shape}: {len(histories):,} histories of {messages:.0f} messages, {size:,.0f} bytes;"
        f" answered from text: {answered:,}; agreeing: {agree}"
    )
    print("| way | us / history (median) | x text check |\n|---|---:|---:|")
    text = statistics.median(seconds["text check"])
    for label, times in seconds.items():
        median = statistics.median(times)
        print(f"| {label} | {median / len(histories) * 1e6:.2f} | {median / text:.2f}x |")


def text_instructions(shapes: list[str], args: argparse.Namespace, src: str | None) -> list[int]:
    """The instructions run inside each shape's text reading over its histories, by one
    callgrind run (collected in those functions alone, told apart by callgrind_annotate)."""
    names = [f"{FUNCTION_NAMES[shape]}_json" for shape in shapes]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        command += [f"--toggle-collect={name}" for name in names]
        command += [sys.executable, __file__, "--only=json", f"--histories={args.histories}"]
        command += [f"--messages={args.messages}", f"--prose={args.prose}"]
        command += [f"--shape={shape}" for shape in shapes]
        env = dict(os.environ) | ({"PYTHONPATH": src} if src else {})
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise BenchmarkError(f"exited {done.returncode}:\n{done.stderr[-2000:]}")
        annotated = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    costs = []
    for name in names:
        found = re.search(rf"^\s*([\d,]+) .*_speedups_json\.c:{name} \[", annotated, re.M)
        if found is None:
            raise BenchmarkError(f"{name} not found in callgrind's profile")
        costs.append(int(found.group(1).replace(",", "")))
    return costs


def count_instructions(shapes: list[str], args: argparse.Namespace) -> None:
    sources = {"these sources": None} | ({args.src: args.src} if args.src else {})
    prose = f", {args.prose} characters of prose more a text" if args.prose else ""
    print(f"\n{args.histories:,} histories of {args.messages} messages{prose}: the text reading")
    head = " | ".join(f"{label}: a history | a byte" for label in sources)
    print(f"| shape | bytes | {head} |" + (" after / before |" if args.src else ""))
    print("|---|---:|" + "---:|---:|" * len(sources) + ("---:|" if args.src else ""))
    costs = [text_instructions(shapes, args, src) for src in sources.values()]
    for k, shape in enumerate(shapes):
        size = (
            sum(map(len, texts(shape, args.histories, args.messages, args.prose))) / args.histories
        )
        each = [cost[k] / args.histories for cost in costs]
        cells = " | ".join(f"{cost:,.0f} | {cost / size:.1f}" for cost in each)
        ratio = f" {each[0] / each[1]:.3f}x |" if args.src else ""
        print(f"| {shape} | {size:,.0f} | {cells} |{ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--histories", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--prose", type=int, default=0, help="characters more a text")
    parser.add_argument("--shape", choices=SHAPES, action="append")
    parser.add_argument("--only", choices=["json", "dict", "none"])
    parser.add_argument("--instructions", action="store_true", help="callgrind, not seconds")
    parser.add_argument("--src", help="another checkout's sources, measured beside these")
    args = parser.parse_args()
    shapes = args.shape or SHAPES
    if args.instructions:
        count_instructions(shapes, args)
        return
    from toolaudit.history.model import NO_NAME

    for shape in shapes:
        histories = texts(shape, args.histories, args.messages, args.prose)
        if args.only is None:
            measure(shape, histories, args.repeat)
            continue
        by_dict, by_text = functions(shape)
        if args.only == "json":
            for text in histories:
                by_text(text, NO_NAME)
        elif args.only == "dict":
            for text in histories:
                by_dict(orjson.loads(text), NO_NAME)


if __name__ == "__main__":
    main()
