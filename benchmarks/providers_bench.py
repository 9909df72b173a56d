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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import DATA_DIR, BenchmarkError, progress, source_state
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
from providers import MORE_PROVIDERS, PROVIDERS, provider_log

SEED = 20261128
TARGETS = {"summary": 1.3, "report": 1.8}

#: The command line with the typed path off: what the general path alone takes.
GENERAL_ONLY = (
    "import sys; from toolaudit.pipeline.audit import Audit; Audit.typed_fast_path = False; "
    "from toolaudit.cli import app; sys.argv[0] = 'toolaudit'; app()"
)


def hit_rate(log: Path, schemas: Path) -> tuple[float, float]:
    """(lines the typed path read whole, calls it called valid) over all lines and calls,
    in-process."""
    import toolaudit
    from toolaudit.pipeline import typed_reader

    lines = valid = 0
    read_lines = typed_reader.TypedReader.read_lines

    def counted(
        self: typed_reader.TypedReader,
        batch: list[bytes],
        start: int,
        first_line: int,
        count_valid: Callable[[str], object],
        *rest: Any,
    ) -> int:
        nonlocal lines, valid

        def counting(tool: str) -> None:
            nonlocal valid
            valid += 1
            count_valid(tool)

        end = read_lines(self, batch, start, first_line, counting, *rest)
        lines += end - start
        return end

    typed_reader.TypedReader.read_lines = counted  # type: ignore[method-assign]
    try:
        summary = toolaudit.audit([str(log)], str(schemas)).run()
    finally:
        typed_reader.TypedReader.read_lines = read_lines  # type: ignore[method-assign]
    calls = summary.calls
    return lines / summary.lines, valid / calls if calls else 0.0


def variants_for(log: Path, audit: list[str], report: Path) -> dict[str, Variant]:
    """The rows of one log's table, by key."""
    general = [sys.executable, "-c", GENERAL_ONLY, *audit[1:]]
    return {
        variant.key: variant
        for variant in (
            Variant(
                "floor",
                "orjson.loads of each line, in-process",
                timed_in_process(lambda: floor_pass(log), lambda _: None),
            ),
            Variant("summary", "toolaudit audit, summary only", timed_child(audit)),
            Variant(
                "report",
                "toolaudit audit --report FILE",
                timed_child([*audit, "--report", str(report)]),
            ),
            Variant("general", "summary only, the typed path off", timed_child(general)),
            Variant("jobs", "summary only, --jobs 2", timed_child([*audit, "--jobs", "2"])),
        )
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls (lines) a log")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (medians are reported)")
    parser.add_argument(
        "--providers", nargs="*", default=list(PROVIDERS), choices=PROVIDERS + MORE_PROVIDERS
    )
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
            progress(f"{provider}:")
            measure_round_robin(list(variants.values()), args.repeat)
            seconds = {key: variant.seconds for key, variant in variants.items()}
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
            for key, variant in variants.items():
                label, median = variant.label, statistics.median(seconds[key])
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
