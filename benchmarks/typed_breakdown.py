"""Where the typed path's time goes, in-process, on one provider log (``providers.py``).

Each row adds a step to the one before, so the differences say what each step costs;
every figure is a median of interleaved rounds, as a ratio to the floor (orjson on each
line), and in microseconds a line:

- **floor**: ``orjson.loads`` of each line (the lines in memory, as for the next three);
- **line decode**: the format's typed shape decoding each line (msgspec), nothing else;
- **+ arguments decode**: and each call's arguments by its tool's typed decoder;
- **reader**: ``TypedReader.read_lines`` over every line, failing calls judged, nothing
  counted or written;
- **audit, summary**, **audit, report**: ``Audit(...).run()``, then with the report
  written to memory (the schemas compiled beforehand, no start-up).

Then the reader and the summary-only audit on the lines whose calls are all valid and on
the rest, apart: what a valid line and a failing one cost.

    .venv/bin/python benchmarks/typed_breakdown.py [--provider openai] [--calls 200000]
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from common import DATA_DIR
from dataset import prepare_dataset
from providers import MORE_PROVIDERS, PROVIDERS, provider_log
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.pipeline.recorder import Recorder
from toolaudit.pipeline.toolsets import RecordTools
from toolaudit.pipeline.typed_reader import TypedReader
from toolaudit.schemas import SchemaSet, load_schemas
from toolaudit.typed.arguments import DecodersOnDemand

SEED = 20261128
FORMAT_OF = {
    "openai": "openai-chat",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "openai-pair": "envelope",
}


def reader_for(schemas: SchemaSet, provider: str) -> TypedReader:
    assert schemas.validator is not None
    reader = TypedReader(schemas.validator, None, RecordTools(schemas).compile)
    reader.seen(FORMAT_OF[provider])
    return reader


def steps(lines: list[bytes], schemas: SchemaSet, provider: str) -> dict[str, Callable[[], object]]:
    """The rows, each a function doing its work once over ``lines``."""
    reader = reader_for(schemas, provider)
    shape = reader.current
    assert shape is not None
    decode = shape.decoder.decode
    assert schemas.validator is not None
    decoders = DecodersOnDemand(schemas.validator)
    log = DATA_DIR / "typed-breakdown.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")

    def parsing(parse: Callable[[bytes], object]) -> Callable[[], int]:
        """Parse each line, counting those refused."""

        def run() -> int:
            refused = 0
            for line in lines:
                try:
                    parse(line)
                except ValueError:  # orjson's and msgspec's errors are ValueErrors
                    refused += 1
            return refused

        return run

    def with_arguments() -> int:
        refused = 0
        for line in lines:
            try:
                named = shape.calls(decode(line))
            except ValueError:
                refused += 1
                continue
            for _, name, arguments in named[1] if named else ():
                decoder = decoders[name]
                if decoder is not None:
                    try:
                        decoder.decode(arguments)
                    except ValueError:
                        refused += 1
        return refused

    def read() -> None:
        recorder = Recorder(AuditOptions(), want_rows=False)
        recorder.start_source(str(log))
        position, end = 0, len(lines)
        while position < end:
            position = reader.read_lines(lines, position, 1, recorder)
            position += 1  # a line it leaves to the general path: skipped here
            recorder.ok.clear()

    def audit(report: bool) -> Callable[[], object]:
        return lambda: Audit([str(log)], schemas).run(io.BytesIO() if report else None)

    return {
        "floor": parsing(orjson.loads),
        "line decode": parsing(decode),
        "+ arguments decode": with_arguments,
        "reader": read,
        "audit, summary": audit(False),
        "audit, report": audit(True),
    }


def medians(rows: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(rounds):
        for name, run in rows.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(seconds) for name, seconds in times.items()}


def split_by_validity(
    lines: list[bytes], schemas: SchemaSet, provider: str
) -> tuple[list[bytes], list[bytes]]:
    """(the lines the reader calls all valid, the lines with a failing call it judged)."""
    reader = reader_for(schemas, provider)
    valid, failing = [], []
    for line in lines:
        read = reader.read(line)
        if read is not None:
            calls = read[1]
            (valid if all(isinstance(v, str) for _, _, v in calls) else failing).append(line)
    return valid, failing


def table(title: str, figures: dict[str, float], floor: float, count: int) -> None:
    print(f"\n{title}\n\n| step | seconds | vs floor | us a line |\n|---|---:|---:|---:|")
    for name, seconds in figures.items():
        print(f"| {name} | {seconds:.3f} | {seconds / floor:.2f}x | {seconds / count * 1e6:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="openai", choices=PROVIDERS + MORE_PROVIDERS)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    schemas_path = prepare_dataset(args.calls, SEED).schemas
    schemas = load_schemas(str(schemas_path))
    lines = Path(provider_log(args.provider, args.calls, SEED)).read_bytes().splitlines()

    figures = medians(steps(lines, schemas, args.provider), args.rounds)
    table(f"{args.provider}: {len(lines):,} lines", figures, figures["floor"], len(lines))
    for name, part in zip(
        ("valid", "failing"), split_by_validity(lines, schemas, args.provider), strict=True
    ):
        rows = steps(part, schemas, args.provider)
        chosen = {key: rows[key] for key in ("floor", "reader", "audit, summary", "audit, report")}
        figures = medians(chosen, args.rounds)
        table(f"the {len(part):,} {name} lines", figures, figures["floor"], len(part))


if __name__ == "__main__":
    main()
