"""Benchmark toolaudit against the floor (orjson alone) and against peer validators.

One run does everything and prints a Markdown report on stdout (progress goes
to stderr):

1. Generates a synthetic JSONL log of tool calls, deterministically from a seed,
   with the matching schemas file: 10 tools, 3-8 parameters each, about 20% of
   the calls broken in every way the contract knows (missing, unexpected, wrong
   type, outside the enum, unknown tool, malformed JSON). The files are cached
   under benchmarks/data/ by generator version, seed and size. Unless
   ``--skip-deep``, also a nested log of ``--nested-calls`` calls for deep mode:
   6 tools with objects in arrays, ``$ref``, ``anyOf`` with null, constraints
   and patterns, about 20% of the calls broken inside their arguments.
2. Times, median of ``--repeat`` runs with the variants interleaved round-robin:
   the floor (orjson.loads per line, in-process), ``toolaudit audit`` as a
   subprocess (summary only, full report, ``--jobs 2`` without and with the full
   report, gzip input, ``--deep`` without and with the full report), and the
   peers jsonschema, fastjsonschema and jsonschema-rs in-process on the same
   lines; then, on the nested log, its own floor, plain and deep ``toolaudit
   audit`` (summary only and full report) and the same three peers.
3. Measures the peak RSS of ``toolaudit audit`` on the log and on a log
   ``--rss-calls`` long, and the start-up cost of ``toolaudit --version`` and of an
   audit of a one-line log (what every audit pays: the command's options, the schemas).
4. Checks that toolaudit and the peers found what the generator put in, and
   marks each performance target met or not met.

Run it with ``make bench``; ``--write-readme`` also rewrites the results section
of benchmarks/README.md.

This file holds the rows of the table and the command line; the work is done by
its sibling modules, imported by name because Python puts the directory of the
script it runs (benchmarks/) first on ``sys.path``:

- tools.py, synthetic.py: the synthetic tools, and the valid and broken calls
- nested_specs.py, nested_tools.py, nested.py: the same for the nested log of deep mode
- dataset.py: the cached files under benchmarks/data/
- peers.py: the in-process readers, the floor and the peer validators
- measure.py: child processes, peak RSS, the timing rounds, start-up
- checks.py: did everyone find what the generator put in?
- report.py: the Markdown report, the targets, the README's results section
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import orjson

from checks import check_in_process, check_nested, check_toolaudit
from common import BENCH_DIR, DATA_DIR, BenchmarkError, progress, source_state
from dataset import (
    Dataset,
    NestedDataset,
    first_lines,
    prepare_dataset,
    prepare_nested_dataset,
)
from measure import (
    Variant,
    audit_argv,
    measure_round_robin,
    measure_rss,
    measure_startup,
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
    peer_pass,
    type_test_pass,
)
from report import README, render_report, write_readme

PEERS_HINT = "n/a (pip install -e '.[bench]')"


class Rows:
    """The rows of one table, in order, as they are added; a row that cannot run says why."""

    def __init__(self, exe: Path, schemas: Path) -> None:
        self.exe, self.schemas = exe, schemas
        self.variants: list[Variant] = []

    def in_process(self, key: str, label: str, count: Callable[[], Counts] | None) -> None:
        variant = Variant(key, label, None, PEERS_HINT)
        if count is not None:
            variant.run = timed_in_process(count, lambda c: setattr(variant, "counts", c))
        self.variants.append(variant)

    def child(self, key: str, label: str, source: Path, *options: str) -> None:
        argv = audit_argv(self.exe, source, self.schemas, *options)
        self.variants.append(Variant(key, label, timed_child(argv)))


def build_variants(exe: Path, dataset: Dataset, deep: bool = True) -> list[Variant]:
    """The rows of the table on the flat log, in order (the deep ones unless not ``deep``)."""
    schemas = orjson.loads(dataset.schemas.read_bytes())
    log = dataset.log
    report = str(DATA_DIR / "report.jsonl")
    rows = Rows(exe, dataset.schemas)
    in_process, child = rows.in_process, rows.child
    jobs, full_report = ("--jobs", "2"), ("--report", report)
    in_process("a", "floor: `orjson.loads` per line, in-process", lambda: floor_pass(log))
    in_process(
        "a2",
        "lower bound: the floor + one type test per argument (no enum, required, errors), "
        "in-process",
        lambda: type_test_pass(log, schemas),
    )
    child("b", "`toolaudit audit`, summary only", log)
    child("c", "`toolaudit audit --report FILE` (full per-call report)", log, *full_report)
    child("d", "`toolaudit audit --jobs 2`, summary only", log, *jobs)
    child(
        "d2",
        "`toolaudit audit --jobs 2 --report FILE` (full per-call report)",
        log,
        *jobs,
        *full_report,
    )
    child("e", "`toolaudit audit` on the gzipped log (level 6), summary only", dataset.gz)
    if deep:
        # g1 after e and g2 after g1, as b comes after a2 and c after b: no row of the four
        # follows one that wrote a report (and would pay for its writeback).
        child("g1", "`toolaudit audit --deep`, summary only", log, "--deep")
        child(
            "g2",
            "`toolaudit audit --deep --report FILE` (full per-call report)",
            log,
            "--deep",
            *full_report,
        )
    js = jsonschema_validators(schemas)
    in_process(
        "f1",
        "peer: orjson + jsonschema (`Draft202012Validator`, all errors)",
        (lambda: peer_pass(log, js)) if js else None,
    )
    fjs = fastjsonschema_validators(schemas)
    in_process(
        "f2",
        "peer: orjson + fastjsonschema (stops at the first error)",
        (lambda: peer_pass(log, fjs)) if fjs else None,
    )
    rs = jsonschema_rs_validators(schemas)
    in_process(
        "f3",
        "peer: orjson + jsonschema-rs (`is_valid`: a verdict, no error worded)",
        (lambda: peer_pass(log, rs)) if rs else None,
    )
    return rows.variants


def build_nested_variants(exe: Path, nested: NestedDataset) -> list[Variant]:
    """The rows of the nested log's table, in order: its floor first."""
    schemas = orjson.loads(nested.schemas.read_bytes())
    log = nested.log
    full_report = ("--report", str(DATA_DIR / "nested-report.jsonl"))
    rows = Rows(exe, nested.schemas)
    rows.in_process("n", "floor: `orjson.loads` per line, in-process", lambda: floor_pass(log))
    rows.child("n1", "`toolaudit audit` (plain: sees none of the errors), summary only", log)
    rows.child(
        "n2", "`toolaudit audit --report FILE` (plain), full per-call report", log, *full_report
    )
    rows.child("n3", "`toolaudit audit --deep`, summary only", log, "--deep")
    rows.child(
        "n4",
        "`toolaudit audit --deep --report FILE` (full per-call report)",
        log,
        "--deep",
        *full_report,
    )
    js = jsonschema_validators(schemas)
    rows.in_process(
        "n5",
        "peer: orjson + jsonschema (`Draft202012Validator`, all errors)",
        (lambda: peer_pass(log, js)) if js else None,
    )
    fjs = fastjsonschema_validators(schemas)
    rows.in_process(
        "n6",
        "peer: orjson + fastjsonschema (stops at the first error)",
        (lambda: peer_pass(log, fjs)) if fjs else None,
    )
    rs = jsonschema_rs_validators(schemas)
    rows.in_process(
        "n7",
        "peer: orjson + jsonschema-rs (`is_valid`: a verdict, no error worded)",
        (lambda: peer_pass(log, rs)) if rs else None,
    )
    return rows.variants


def positive(text: str) -> int:
    value = int(text.replace("_", "").replace(",", ""))
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--calls",
        type=positive,
        default=1_000_000,
        help="lines in the synthetic log (default: 1,000,000)",
    )
    parser.add_argument(
        "--repeat",
        type=positive,
        default=5,
        help="runs of each measurement; the median is reported (default: 5)",
    )
    parser.add_argument(
        "--rss-calls",
        type=positive,
        default=10_000_000,
        help="lines in the long log of the peak-RSS measurement (default: 10,000,000)",
    )
    parser.add_argument("--skip-rss", action="store_true", help="skip the peak-RSS measurement")
    parser.add_argument(
        "--nested-calls",
        type=positive,
        default=100_000,
        help="calls in the nested log of deep mode (default: 100,000)",
    )
    parser.add_argument(
        "--skip-deep",
        action="store_true",
        help="skip deep mode: its rows on the flat log, and the nested log altogether",
    )
    parser.add_argument(
        "--seed", type=int, default=20261128, help="seed of the generator (default: 20261128)"
    )
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="rewrite the results section of benchmarks/README.md",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sources = source_state()
    try:
        exe = toolaudit_executable()
        dataset = prepare_dataset(args.calls, args.seed)
        nested = None if args.skip_deep else prepare_nested_dataset(args.nested_calls, args.seed)
        progress("checking toolaudit's findings (untimed, warms the page cache) ...")
        checks = check_toolaudit(exe, dataset)
        variants = build_variants(exe, dataset, deep=nested is not None)
        nested_variants: list[Variant] = []
        if nested is not None:
            checks += check_toolaudit(exe, dataset, "--deep")
            checks += check_nested(exe, nested)
            nested_variants = build_nested_variants(exe, nested)
        everything = variants + nested_variants
        progress(
            f"timing {sum(v.run is not None for v in everything)} rows, {args.repeat} rounds ..."
        )
        measure_round_robin(everything, args.repeat)
        checks += check_in_process(variants, dataset.expected)
        if nested is not None:
            checks += check_in_process(nested_variants, nested.expected)
        progress("start-up: toolaudit --version and an audit of one line, x10 each ...")
        startup = (
            measure_startup([str(exe), "--version"], ok_codes=(0,)),
            # (1: the line may hold an invalid call.)
            measure_startup(
                audit_argv(exe, first_lines(dataset.log, args.calls, 1), dataset.schemas),
                ok_codes=(0, 1),
            ),
        )
        rss = None if args.skip_rss else measure_rss(exe, dataset, args.calls, args.rss_calls)
    except BenchmarkError as error:
        print(f"benchmarks/run.py: error: {error}", file=sys.stderr)
        return 2
    if source_state() != sources:
        checks.insert(
            0,
            f"**the sources changed during the run** (from {sources} to {source_state()}): "
            "the rows may have timed different code; run again",
        )
    report = render_report(
        sources=sources,
        exe=exe,
        dataset=dataset,
        nested=nested,
        args=args,
        variants=variants,
        nested_variants=nested_variants,
        startup=startup,
        rss=rss,
        checks=checks,
    )
    print(report, end="")
    if args.write_readme:
        write_readme(report)
        progress(f"wrote the results into {README.relative_to(BENCH_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
