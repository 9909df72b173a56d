"""What reading a history from its JSON text saves: per history, the C speedups'
``anthropic_json(text)`` (or ``chat_json``) beside ``orjson.loads(text)`` followed by
``anthropic(list)`` (what the typed path does today), on the histories of
benchmarks/conversations.py (its generator, its seed), rounds interleaved, medians.

    .venv/bin/python benchmarks/history_text.py --histories 2000 --messages 40 --repeat 15

``--only json|dict --shape anthropic`` runs one way once, for callgrind's instruction
counts (``valgrind --tool=callgrind --callgrind-out-file=/dev/null``, its total read
against a run of ``--only none``, which builds the histories and nothing else).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import orjson

from conversations import SEED, as_anthropic, history
from toolaudit.history import _speedups  # type: ignore[attr-defined]
from toolaudit.history.model import NO_NAME

#: Each shape: its dict function, its text function.
FUNCTIONS = {
    "openai-chat": (_speedups.chat, _speedups.chat_json),
    "anthropic": (_speedups.anthropic, _speedups.anthropic_json),
}


def texts(shape: str, count: int, length: int) -> list[bytes]:
    """The JSON text of ``count`` histories of about ``length`` messages, as a request
    line holds them (orjson's compact writing)."""
    rng = random.Random(SEED)
    made = [history(rng, length, number) for number in range(count)]
    if shape == "anthropic":
        made = [as_anthropic(messages) for messages in made]
    return [orjson.dumps(messages) for messages in made]


def ways(shape: str, histories: list[bytes]) -> dict[str, Callable[[], object]]:
    by_dict, by_text = FUNCTIONS[shape]
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
    by_dict, by_text = FUNCTIONS[shape]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--histories", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--shape", choices=sorted(FUNCTIONS), action="append")
    parser.add_argument("--only", choices=["json", "dict", "none"])
    args = parser.parse_args()
    for shape in args.shape or sorted(FUNCTIONS):
        histories = texts(shape, args.histories, args.messages)
        if args.only is None:
            measure(shape, histories, args.repeat)
            continue
        by_dict, by_text = FUNCTIONS[shape]
        if args.only == "json":
            for text in histories:
                by_text(text, NO_NAME)
        elif args.only == "dict":
            for text in histories:
                by_dict(orjson.loads(text), NO_NAME)


if __name__ == "__main__":
    main()
