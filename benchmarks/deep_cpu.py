"""The CPU time (user + system, from ``wait4``) of ``toolaudit audit --deep`` on the nested
log, the summary and the report, beside the floor, for this checkout and another
(``--before SRC``), rounds interleaved, medians, with issue 31's targets: as a user runs
it, on enough calls (a million by default) that the start-up weighs little.

The floor is a child too (``orjson.loads`` of every line), so it carries an interpreter's
start-up as the audits do. Every tree's bytecode is written first (``compileall``): where
``PYTHONDONTWRITEBYTECODE`` is set, each child would otherwise compile toolaudit's sources
at every start, as no installed copy does. The report is written to a file, as a user's
is. The row "errors only" (``--errors-only``: the failing calls' rows alone) has no
target: beside the others it splits the report's cost between its valid rows and its
failing ones.

    .venv/bin/python benchmarks/deep_cpu.py [--calls N] [--repeat R] [--before SRC]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from dataset import prepare_nested_dataset
from measure import FLOOR_CHILD, compile_bytecode, run_child

SEED = 20261128

#: Issue 31's targets, x the floor, for the rows that have one.
TARGETS = {"--deep, summary": 3.0, "--deep --report": 4.5}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls in the nested log")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout's src/, timed too")
    args = parser.parse_args()
    nested = prepare_nested_dataset(args.calls, SEED)
    import toolaudit

    sources = {"this checkout": Path(toolaudit.__file__).resolve().parent.parent}
    if args.before is not None:
        sources = {f"before ({args.before})": args.before.resolve(), **sources}
    for src in sources.values():
        compile_bytecode(src)
    with tempfile.TemporaryDirectory() as scratch:
        report = str(Path(scratch) / "report.jsonl")
        audit = [sys.executable, "-m", "toolaudit", "audit", str(nested.log)]
        audit += ["--schemas", str(nested.schemas), "--deep", "--no-progress"]
        modes = {
            "--deep, summary": audit,
            "--deep --report": [*audit, "--report", report],
            "--deep --report --errors-only": [*audit, "--report", report, "--errors-only"],
        }
        floor_row = "floor: orjson.loads of each line, a child"
        rows: dict[str, tuple[list[str], dict[str, str]]] = {
            floor_row: ([sys.executable, "-c", FLOOR_CHILD, str(nested.log)], {}),
        }
        for tree, src in sources.items():
            for mode, argv in modes.items():
                rows[f"{tree}: {mode}"] = (argv, {"PYTHONPATH": str(src)})
        seconds: dict[str, list[float]] = {label: [] for label in rows}
        for _ in range(args.repeat):
            for label, (argv, env) in rows.items():
                seconds[label].append(run_child(argv, env=env).cpu_seconds)
    floor = statistics.median(seconds[floor_row])
    print(
        f"{nested.log.name}: CPU seconds (user + system), medians of {args.repeat} "
        "interleaved rounds"
    )
    print()
    print("| row | CPU s | vs floor | spread | target | status |")
    print("|---|---:|---:|---:|---:|---|")
    for label, measured in seconds.items():
        median = statistics.median(measured)
        ratio = median / floor
        target = next((t for mode, t in TARGETS.items() if label.endswith(mode)), None)
        goal = "" if target is None else f"<= {target:.1f}x"
        status = "" if target is None else ("met" if ratio <= target else "not met")
        spread = f"{min(measured):.2f}-{max(measured):.2f}"
        print(f"| {label} | {median:.2f} | {ratio:.2f}x | {spread} | {goal} | {status} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
