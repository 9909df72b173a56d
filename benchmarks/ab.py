"""Compare this checkout's speed with another commit's, side by side in one run.

A change that must not slow toolaudit down (a refactor, say) is judged by the
ratio of its timings to the other commit's, measured in one run with the two
interleaved round-robin: the machine's noise then falls on both alike, where
absolute times from two runs would drift.

    .venv/bin/python benchmarks/ab.py REF [--calls N] [--repeat K]

REF (a branch, tag or commit) is checked out into a git worktree under
benchmarks/data/ and run from its own sources with this .venv's packages, each side's
bytecode written first (see measure.compile_bytecode). The
rows (on the synthetic log, or on ``--log`` with ``--schemas``): the floor (orjson
alone, in-process), then for each commit ``toolaudit
audit`` summary only and with the full report; the figures are each row's
ratio to the floor and the new commit's ratio to the old one (< 1 is faster).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

from common import BENCH_DIR, DATA_DIR, BenchmarkError, progress
from dataset import prepare_dataset
from measure import (
    Variant,
    audit_argv,
    compile_bytecode,
    measure_round_robin,
    run_child,
    timed_in_process,
)
from peers import floor_pass

REPO = BENCH_DIR.parent

# Runs the CLI of the sources at sys.argv[1], whatever is installed in the venv.
LAUNCHER = "import sys; sys.path.insert(0, sys.argv.pop(1)); from toolaudit.cli import main; main()"


def worktree(ref: str) -> Path:
    """A checkout of ``ref`` under benchmarks/data/, made once and then moved to ``ref``."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    path = DATA_DIR / "ab-worktree"
    if not path.exists():
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        git("worktree", "add", "--detach", str(path), commit)
    else:
        git("-C", str(path), "checkout", "--quiet", "--detach", commit)
    return path


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def cli_of(src: Path) -> list[str]:
    return [sys.executable, "-c", LAUNCHER, str(src)]


def measure_alternating(variants: list[Variant], repeat: int) -> None:
    """Round-robin, with the old and the new rows taking turns at going first:
    a row run right after one that wrote the report file pays for its writeback,
    so a fixed order would favour one side."""
    floor, *rows = variants
    half = len(rows) // 2
    for round_number in range(repeat):
        old, new = rows[:half], rows[half:]
        order = [floor, *(old + new if round_number % 2 == 0 else new + old)]
        measure_round_robin(order, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="the commit to compare with (a branch, tag or hash)")
    parser.add_argument("--calls", type=int, default=1_000_000, help="lines in the log")
    parser.add_argument("--repeat", type=int, default=5, help="rounds; medians are reported")
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--jobs", type=int, default=1, help="audit with --jobs N (default: 1)")
    parser.add_argument("--log", type=Path, help="audit this log instead of the synthetic one")
    parser.add_argument("--schemas", type=Path, help="the schemas of --log")
    parser.add_argument("--deep", action="store_true", help="audit in deep mode, both sides")
    args = parser.parse_args(argv)
    if (args.log is None) != (args.schemas is None):
        parser.error("--log and --schemas go together")
    try:
        old_src = worktree(args.ref) / "src"
        if args.log is not None:
            log, schemas = args.log, args.schemas
        else:
            dataset = prepare_dataset(args.calls, args.seed)
            log, schemas = dataset.log, dataset.schemas
        report = DATA_DIR / "ab-report.jsonl"
        sides = {"old": cli_of(old_src), "new": cli_of(REPO / "src")}
        for src in (old_src, REPO / "src"):
            compile_bytecode(src / "toolaudit")
        variants = [Variant("floor", "orjson.loads per line", None)]
        variants[0].run = timed_in_process(lambda: floor_pass(log), lambda counts: None)
        for side, cli in sides.items():
            for row, extra in (("summary", ()), ("report", ("--report", str(report)))):
                deep = ("--deep",) if args.deep else ()
                argv_ = audit_argv(
                    Path(cli[0]), log, schemas, *extra, *deep, "--jobs", str(args.jobs)
                )
                argv_[:1] = cli
                variants.append(Variant(f"{side} {row}", "", lambda a=argv_: run_child(a).seconds))
        progress(f"timing {len(variants)} rows, {args.repeat} rounds, old = {args.ref} ...")
        measure_alternating(variants, args.repeat)
    except BenchmarkError as error:
        print(f"benchmarks/ab.py: error: {error}", file=sys.stderr)
        return 2
    medians = {v.key: statistics.median(v.seconds) for v in variants}
    floor = medians["floor"]
    what = str(args.log) if args.log is not None else f"{args.calls:,} synthetic calls"
    jobs = f", --jobs {args.jobs}" if args.jobs != 1 else ""
    jobs += ", --deep" if args.deep else ""
    print(f"{what}{jobs}, medians of {args.repeat} interleaved rounds, old = {args.ref}\n")
    print("| row | seconds | x floor | new / old |")
    print("|---|---:|---:|---:|")
    for key, seconds in medians.items():
        ratio = ""
        if key.startswith("new "):
            ratio = f"{seconds / medians['old ' + key[4:]]:.3f}"
        print(f"| {key} | {seconds:.3f} | {seconds / floor:.2f}x | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
