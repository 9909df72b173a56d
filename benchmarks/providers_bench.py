"""Provider logs against the floor: ``toolaudit audit`` on OpenAI, Anthropic and Gemini
responses as the APIs return them (``providers.py``), with the typed fast path and
without it.

Figures, not pass/fail (see README.md). For each log, medians of ``--repeat`` rounds,
every variant interleaved round-robin:

- **floor**: in-process, ``orjson.loads`` of each line;
- **summary**, **report**: ``toolaudit audit LOG --schemas S --no-progress --format
  json`` as a subprocess (start-up included), then with ``--report FILE``;
- **general summary**: the same with the typed path turned off (``Audit.typed_fast_path``),
  the path every line took before it: what the typed path saves;
- **--jobs 2**: the summary in two processes.

Then the typed path's hit rate (lines it read whole, calls it called valid) and peak
RSS of the summary-only audit.

    .venv/bin/python benchmarks/providers_bench.py                  # 1,000,000 calls a log
    .venv/bin/python benchmarks/providers_bench.py --calls 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from common import DATA_DIR, BenchmarkError, progress, source_state
from dataset import prepare_dataset
from measure import audit_argv, run_child, toolaudit_executable
from providers import PROVIDERS, provider_log

SEED = 20261128
TARGETS = {"summary": 1.3, "report": 1.8}

#: The command line with the typed path off: what the general path alone takes.
GENERAL_ONLY = (
    "import sys; from toolaudit.pipeline.audit import Audit; Audit.typed_fast_path = False; "
    "from toolaudit.cli import app; sys.argv[0] = 'toolaudit'; app()"
)


def floor_seconds(log: Path) -> float:
    loads, error = orjson.loads, orjson.JSONDecodeError
    started = time.perf_counter()
    with log.open("rb") as lines:
        for line in lines:
            try:
                loads(line)
            except error:  # the log's few lines that are not JSON: parsed all the same
                continue
    return time.perf_counter() - started


def hit_rate(log: Path, schemas: Path) -> tuple[float, float]:
    """(lines the typed path read whole, calls it called valid) over all lines and calls,
    in-process."""
    import toolaudit
    from toolaudit.pipeline import typed_reader

    lines = calls = valid = 0
    read = typed_reader.TypedReader.read

    def counted(self: typed_reader.TypedReader, line: bytes) -> object:
        nonlocal lines, valid
        found = read(self, line)
        if found is not None:
            lines += 1
            valid += sum(isinstance(tool, str) for _, _, tool in found[1])
        return found

    typed_reader.TypedReader.read = counted  # type: ignore[method-assign]
    try:
        summary = toolaudit.audit([str(log)], str(schemas)).run()
    finally:
        typed_reader.TypedReader.read = read  # type: ignore[method-assign]
    calls = summary.calls
    return lines / summary.lines, valid / calls if calls else 0.0


def variants_for(
    log: Path, audit: list[str], report: Path
) -> dict[str, tuple[str, Callable[[], float]]]:
    """The rows of one log's table: how to run each once."""
    general = [sys.executable, "-c", GENERAL_ONLY, *audit[1:]]
    return {
        "floor": ("orjson.loads of each line, in-process", lambda: floor_seconds(log)),
        "summary": ("toolaudit audit, summary only", lambda: run_child(audit).seconds),
        "report": (
            "toolaudit audit --report FILE",
            lambda: run_child([*audit, "--report", str(report)]).seconds,
        ),
        "general": ("summary only, the typed path off", lambda: run_child(general).seconds),
        "jobs": ("summary only, --jobs 2", lambda: run_child([*audit, "--jobs", "2"]).seconds),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls (lines) a log")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (medians are reported)")
    parser.add_argument("--providers", nargs="*", default=list(PROVIDERS), choices=PROVIDERS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        state = source_state()
        exe = toolaudit_executable()
        schemas = prepare_dataset(args.calls, SEED).schemas
        report = DATA_DIR / "providers-report.jsonl"
        print(f"{args.calls:,} calls a log, medians of {args.repeat}; {state}")
        for provider in args.providers:
            log = provider_log(provider, args.calls, SEED)
            audit = audit_argv(exe, log, schemas)
            variants = variants_for(log, audit, report)
            seconds: dict[str, list[float]] = {key: [] for key in variants}
            for round_number in range(1, args.repeat + 1):
                for key, (_, run) in variants.items():
                    elapsed = run()
                    seconds[key].append(elapsed)
                    progress(
                        f"  {provider} round {round_number}/{args.repeat} {key:>8} {elapsed:7.3f}s"
                    )
            lines_read, calls_valid = hit_rate(log, schemas)
            peak = run_child(audit).peak_rss_kib
            size = log.stat().st_size
            print(
                f"\n{provider}: {size / 1e6:.0f} MB, {size / args.calls:.0f} bytes a line; "
                f"typed path: {lines_read:.1%} of lines read whole, {calls_valid:.1%} of "
                f"calls called valid; peak RSS {peak / 1024:.0f} MB"
            )
            print("\n| variant | seconds | vs floor | target |")
            print("|---|---:|---:|---|")
            floor = statistics.median(seconds["floor"])
            for key, (label, _) in variants.items():
                median = statistics.median(seconds[key])
                target = TARGETS.get(key)
                verdict = ""
                if target is not None:
                    verdict = f"<= {target}x: {'met' if median / floor <= target else 'not met'}"
                print(f"| {label} | {median:.3f} | {median / floor:.2f}x | {verdict} |")
            speedup = statistics.median(seconds["summary"]) / statistics.median(seconds["jobs"])
            saved = statistics.median(seconds["general"]) / statistics.median(seconds["summary"])
            print(
                f"\n--jobs 2: {speedup:.2f}x faster than one process; the typed path: "
                f"{saved:.2f}x faster than the general path alone"
            )
        if source_state() != state:
            print("\nwarning: src/ changed while this ran: the rows may time different code")
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
