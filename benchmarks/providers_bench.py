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

Then the typed path's hit rate (lines it read whole, calls it called valid), the peak
RSS of the summary-only audit, and the peers (python-jsonschema, fastjsonschema and jsonschema-rs,
in-process, the calls read out of each line as ``providers.PEER_CALLS`` does by hand) on
the first ``--peer-calls`` lines beside the floor of the same lines: jsonschema takes
about 25 us a call, too long for a million lines a round. The peers must find as many
invalid calls as toolaudit does there, or a warning says so.

    .venv/bin/python benchmarks/providers_bench.py                  # 1,000,000 calls a log
    .venv/bin/python benchmarks/providers_bench.py --calls 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import orjson

from common import DATA_DIR, BenchmarkError, progress, source_state
from dataset import first_lines, prepare_dataset
from measure import (
    Variant,
    audit_argv,
    measure_round_robin,
    run_child,
    timed_child,
    timed_in_process,
    toolaudit_executable,
)
from peers import (
    Counts,
    fastjsonschema_validators,
    floor_pass,
    jsonschema_rs_validators,
    jsonschema_validators,
    provider_peer_pass,
)
from providers import MORE_PROVIDERS, PEER_CALLS, PROVIDERS, provider_log

SEED = 20261128
TARGETS = {"summary": 1.3, "report": 1.8}
#: How much faster --jobs 2 must be than one process.
JOBS_TARGET = 1.8

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
    from toolaudit.pipeline.recorder import Recorder

    lines = valid = 0
    read_lines = typed_reader.TypedReader.read_lines

    def counted(
        self: typed_reader.TypedReader,
        batch: list[bytes],
        start: int,
        first_line: int,
        recorder: Recorder,
    ) -> int:
        nonlocal lines, valid
        before = len(recorder.ok)  # the valid calls of the batch, counted at its end
        end = read_lines(self, batch, start, first_line, recorder)
        valid += len(recorder.ok) - before
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


def peer_variants(provider: str, log: Path, schemas: Path) -> dict[str, Variant]:
    """The peers' rows, on ``log`` (the first lines of the provider's log), beside the
    floor of the same lines; each keeps what it found, for :func:`peers_agree`."""
    tools = orjson.loads(schemas.read_bytes())
    calls_of = PEER_CALLS[provider]
    variants = {"floor": Variant("floor", "orjson.loads of each line, in-process", None)}
    variants["floor"].run = timed_in_process(lambda: floor_pass(log), lambda _: None)
    peers = (
        ("jsonschema", "orjson + jsonschema (all errors)", jsonschema_validators(tools)),
        (
            "fastjsonschema",
            "orjson + fastjsonschema (the first error)",
            fastjsonschema_validators(tools),
        ),
        (
            "jsonschema-rs",
            "orjson + jsonschema-rs (a verdict, no error worded)",
            jsonschema_rs_validators(tools),
        ),
    )
    for key, label, validators in peers:
        variant = variants[key] = Variant(key, label, None, unavailable=f"pip install {key}")
        if validators is not None:

            def keep(counts: Counts, variant: Variant = variant) -> None:
                variant.counts = counts

            variant.run = timed_in_process(
                lambda v=validators: provider_peer_pass(log, v, calls_of), keep
            )
    return variants


def peers_agree(variants: dict[str, Variant], log: Path, schemas: Path) -> str:
    """Whether each peer found as many invalid calls in ``log`` as toolaudit does: the
    peers' extraction of the calls, checked."""
    import toolaudit

    want = toolaudit.audit([str(log)], str(schemas)).run().invalid
    found = {key: v.counts.invalid for key, v in variants.items() if v.counts is not None}
    wrong = {key: invalid for key, invalid in found.items() if invalid != want}
    if wrong:
        told = ", ".join(f"{key} {invalid:,}" for key, invalid in wrong.items())
        return f"warning: toolaudit finds {want:,} invalid calls, the peers {told}"
    return f"each peer found the {want:,} invalid calls toolaudit finds"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls (lines) a log")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (medians are reported)")
    parser.add_argument(
        "--providers", nargs="*", default=list(PROVIDERS), choices=PROVIDERS + MORE_PROVIDERS
    )
    parser.add_argument(
        "--peer-calls",
        type=int,
        default=100_000,
        help="the peers run on this many first lines of each log (0: no peers)",
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
                f"\n--jobs 2: {speedup:.2f}x faster than one process (>= {JOBS_TARGET}x: "
                f"{'met' if speedup >= JOBS_TARGET else 'not met'}); the typed path: "
                f"{saved:.2f}x faster than the general path alone"
            )
            if args.peer_calls:
                peer_lines = min(args.peer_calls, args.calls)
                peer_log = first_lines(log, args.calls, peer_lines)
                report_peers(provider, peer_log, schemas, peer_lines, args)
        if source_state() != state:
            print("\nwarning: src/ changed while this ran: the rows may time different code")
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


def report_peers(
    provider: str, log: Path, schemas: Path, lines: int, args: argparse.Namespace
) -> None:
    """Time the peers on ``log``, the first ``lines`` lines of the provider's, and print
    their table."""
    variants = peer_variants(provider, log, schemas)
    progress(f"{provider}, the peers on {lines:,} lines:")
    measure_round_robin(list(variants.values()), args.repeat)
    floor = statistics.median(variants["floor"].seconds)
    print(f"\nthe peers on the first {lines:,} lines, in-process")
    print("\n| peer | seconds | vs floor |")
    print("|---|---:|---:|")
    for variant in variants.values():
        if not variant.seconds:
            print(f"| {variant.label} | {variant.unavailable} | |")
            continue
        median = statistics.median(variant.seconds)
        print(f"| {variant.label} | {median:.3f} | {median / floor:.2f}x |")
    print(f"\n{peers_agree(variants, log, schemas)}")


if __name__ == "__main__":
    sys.exit(main())
