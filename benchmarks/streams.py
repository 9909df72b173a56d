"""Streamed responses: ``toolaudit audit`` on a log of OpenAI ``chat.completion.chunk`` lines
(or, with ``--format anthropic``, of Anthropic Messages stream events).

Figures, not pass/fail (see README.md). The benchmark's flat log (``dataset.py``) is
turned into streams: each call becomes one streamed response of five chunks, as the
API sends them with ``stream_options.include_usage``: the call's id and name with empty
arguments, the arguments in two fragments, the ``finish_reason`` chunk, and the
trailing usage-only chunk. ``--open`` streams are interleaved at any time (each chunk
goes to the next open stream in turn), so the audit holds that many open at once.
Anthropic's events carry no stream id after ``message_start``, so its streams follow
one another, seven events each: ``message_start``, the ``tool_use`` block's start, the
input in two ``input_json_delta`` fragments, the block's stop, ``message_delta`` and
``message_stop``.

Rows, medians of ``--repeat`` rounds interleaved round-robin:

- **s0, floor**: in-process, ``orjson.loads`` of every line of the chunks log;
- **s1**: ``toolaudit audit`` as a subprocess, summary only;
- **s2**: the same, writing the full report;
- **flat b**: ``toolaudit audit`` of the flat log the streams were made from (the same
  calls, one line each), for scale.

Then peak RSS with ``--open`` streams open, on the log and on a log of ten times as
many streams: reassembly keeps only open streams, so the two should be the same.

    .venv/bin/python benchmarks/streams.py                     # 100k calls, 10,000 open
    .venv/bin/python benchmarks/streams.py --calls 20000 --repeat 3
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import orjson

from common import DATA_DIR, BenchmarkError, atomic_path, progress, source_state
from dataset import prepare_dataset
from measure import (
    Variant,
    audit_argv,
    measure_round_robin,
    run_child,
    timed_child,
    timed_in_process,
    toolaudit_executable,
)
from peers import floor_pass

SEED = 20261128
#: A chunks log's name says how it was made: regenerated when any of these change.
STREAMS_VERSION = 1


def stream_chunks(number: int, record: dict[str, object]) -> list[bytes]:
    """The five chunk lines of one streamed response holding ``record``'s call."""
    response = f"chatcmpl-{number}"
    arguments = record.get("arguments")
    text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
    half = len(text) // 2

    def chunk(choices: list[object], **extra: object) -> bytes:
        line = {
            "id": response,
            "object": "chat.completion.chunk",
            "created": 1764547200,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_2026",
            "choices": choices,
            **extra,
        }
        return orjson.dumps(line)

    def delta(tool_call: dict[str, object], **opening: object) -> list[object]:
        tool_calls = [{"index": 0, **tool_call}]
        return [{"index": 0, "delta": {**opening, "tool_calls": tool_calls}, "finish_reason": None}]

    first = {
        "id": record.get("id"),
        "type": "function",
        "function": {"name": record.get("name"), "arguments": ""},
    }
    return [
        chunk(delta(first, role="assistant", content=None)),
        chunk(delta({"function": {"arguments": text[:half]}})),
        chunk(delta({"function": {"arguments": text[half:]}})),
        chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
        chunk([], usage={"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}),
    ]


def anthropic_events(number: int, record: dict[str, object]) -> list[bytes]:
    """The seven event lines of one Anthropic stream holding ``record``'s call."""
    arguments = record.get("arguments")
    text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
    half = len(text) // 2
    message = {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 80, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": record.get("id"), "name": record.get("name"), "input": {}}
    events: list[dict[str, object]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in (text[:half], text[half:])
        ),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
        {"type": "message_stop"},
    ]
    return [orjson.dumps(event) for event in events]


#: How each --format writes one stream.
STREAM_WRITERS = {"openai": stream_chunks, "anthropic": anthropic_events}


def interleaved(streams: Iterator[list[bytes]], open_at_once: int) -> Iterator[bytes]:
    """The chunks of ``streams``, ``open_at_once`` of them in flight: one chunk from each
    open stream in turn, a new stream opened as one ends."""
    open_streams: deque[Iterator[bytes]] = deque()
    for stream in itertools.islice(streams, open_at_once):
        open_streams.append(iter(stream))
    while open_streams:
        stream = open_streams.popleft()
        line = next(stream, None)
        if line is None:
            following = next(streams, None)
            if following is not None:
                open_streams.append(iter(following))
            continue
        yield line
        open_streams.append(stream)


def write_chunks_log(
    flat_log: Path, path: Path, open_at_once: int, repeat: int = 1, stream_format: str = "openai"
) -> int:
    """The chunks log of the flat log's well-formed records (``repeat`` times over)."""
    write_stream = STREAM_WRITERS[stream_format]

    def streams() -> Iterator[list[bytes]]:
        number = 0
        for _ in range(repeat):
            with flat_log.open("rb") as lines:
                for line in lines:
                    try:
                        record = orjson.loads(line)
                    except orjson.JSONDecodeError:
                        continue  # the flat log's few non-JSON lines have no stream
                    number += 1
                    yield write_stream(number, record)

    count = 0
    with atomic_path(path) as partial, partial.open("wb") as out:
        for line in interleaved(streams(), open_at_once):
            out.write(line + b"\n")
            count += 1
    return count


def chunks_log(
    flat_log: Path, open_at_once: int, repeat: int = 1, stream_format: str = "openai"
) -> Path:
    if stream_format != "openai":
        open_at_once = 1  # its streams' events follow one another
    kind = "" if stream_format == "openai" else f"{stream_format}-"
    path = DATA_DIR / (
        f"streams-{kind}v{STREAMS_VERSION}-{flat_log.stem}-open{open_at_once}-x{repeat}.jsonl"
    )
    if not path.exists():
        progress(f"writing {path.name} ...")
        write_chunks_log(flat_log, path, open_at_once, repeat, stream_format)
    return path


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000, help="calls (streams) in the log")
    parser.add_argument("--open", type=int, default=10_000, help="streams open at once")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (medians are reported)")
    parser.add_argument("--skip-rss", action="store_true", help="skip the peak RSS figures")
    parser.add_argument(
        "--format", choices=sorted(STREAM_WRITERS), default="openai", help="the streams' API"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        state = source_state()
        exe = toolaudit_executable()
        dataset = prepare_dataset(args.calls, SEED)
        log = chunks_log(dataset.log, args.open, stream_format=args.format)
        report = DATA_DIR / "streams-report.jsonl"
        rows = [
            Variant(
                "s0",
                f"floor: orjson.loads of each {'chunk' if args.format == 'openai' else 'event'} "
                "line, in-process",
                timed_in_process(lambda: floor_pass(log), lambda _: None),
            ),
            Variant(
                "s1",
                "toolaudit audit, summary only",
                timed_child(audit_argv(exe, log, dataset.schemas)),
            ),
            Variant(
                "s2",
                "toolaudit audit --report FILE",
                timed_child(audit_argv(exe, log, dataset.schemas, "--report", str(report))),
            ),
            Variant(
                "b",
                "the flat log of the same calls, summary only",
                timed_child(audit_argv(exe, dataset.log, dataset.schemas)),
            ),
        ]
        measure_round_robin(rows, args.repeat)
        lines = sum(1 for _ in log.open("rb"))
        size = log.stat().st_size
        open_at_once = args.open if args.format == "openai" else 1
        print(
            f"{args.format} streams log: {lines:,} lines, {size / 1e6:.0f} MB, "
            f"{args.calls:,} streams, {open_at_once:,} open at once; {state}"
        )
        print()
        print("| | variant | seconds | vs floor |")
        print("|---|---|---:|---:|")
        floor = statistics.median(rows[0].seconds)
        for variant in rows:
            median = statistics.median(variant.seconds)
            ratio = f"{median / floor:.2f}x" if variant.key != "b" else ""
            print(f"| {variant.key} | {variant.label} | {median:.3f} | {ratio} |")
        if not args.skip_rss:
            big = chunks_log(dataset.log, args.open, 10, args.format)
            few = chunks_log(dataset.log, 10, stream_format=args.format)
            print()
            print("| peak RSS, summary only | MB |")
            print("|---|---:|")
            for label, path in (
                (f"{args.calls:,} streams, 10 open at once", few),
                (f"{args.calls:,} streams, {args.open:,} open at once", log),
                (f"{10 * args.calls:,} streams, {args.open:,} open at once", big),
            ):
                peak = run_child(audit_argv(exe, path, dataset.schemas)).peak_rss_kib
                print(f"| {label} | {peak / 1024:.0f} |")
        if source_state() != state:
            print("\nwarning: src/ changed while this ran: the rows may time different code")
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
