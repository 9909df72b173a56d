"""The CPU time (user + system, from ``wait4``) of ``toolaudit audit`` on streams.py's logs,
summary only, beside the floor, for this checkout (with its C speedups and with
``TOOLAUDIT_PURE_PYTHON=1``) and another (``--before SRC``), rounds interleaved, medians:
on a machine shared with other work, wall-clock ratios moved by a fifth and more between
rounds, CPU times much less.

The floor is a child too (``orjson.loads`` of every line), so it carries an interpreter's
start-up and these ratios are not streams.py's, whose floor is in-process. Every tree's
bytecode is written first (``compileall``): where ``PYTHONDONTWRITEBYTECODE`` is set, each
child would otherwise compile toolaudit's sources at every start, as no installed copy does.
Run streams.py once first for each ``--format`` (it writes the logs to benchmarks/data/).

    .venv/bin/python benchmarks/streams_cpu.py [--format openai|anthropic] [--repeat R]
        [--before SRC]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from dataset import prepare_dataset
from measure import FLOOR_CHILD, compile_bytecode, run_child
from streams import SEED, chunks_log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=["openai", "anthropic"], default="openai")
    parser.add_argument("--calls", type=int, default=100_000, help="streams.py's --calls")
    parser.add_argument("--open", type=int, default=10_000, help="streams.py's --open")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout's src/, timed too")
    args = parser.parse_args()
    dataset = prepare_dataset(args.calls, SEED)
    log = chunks_log(dataset.log, args.open, stream_format=args.format)
    import toolaudit

    here = Path(toolaudit.__file__).resolve().parent.parent
    audit = [
        sys.executable,
        "-m",
        "toolaudit",
        "audit",
        str(log),
        "--schemas",
        str(dataset.schemas),
    ]
    rows: dict[str, tuple[list[str], dict[str, str]]] = {
        "floor: orjson.loads of each line, a child": (
            [sys.executable, "-c", FLOOR_CHILD, str(log)],
            {},
        ),
    }
    if args.before is not None:
        compile_bytecode(args.before)
        rows[f"before ({args.before})"] = (audit, {"PYTHONPATH": str(args.before.resolve())})
    compile_bytecode(here)
    rows["this checkout"] = (audit, {"PYTHONPATH": str(here)})
    rows["this checkout, TOOLAUDIT_PURE_PYTHON=1"] = (
        audit,
        {"PYTHONPATH": str(here), "TOOLAUDIT_PURE_PYTHON": "1"},
    )
    seconds: dict[str, list[float]] = {label: [] for label in rows}
    for _ in range(args.repeat):
        for label, (argv, env) in rows.items():
            seconds[label].append(run_child(argv, env=env).cpu_seconds)
    floor = statistics.median(seconds[next(iter(rows))])
    print(f"{log.name}, summary only: CPU seconds, medians of {args.repeat} interleaved rounds")
    print()
    print("| | CPU seconds | vs floor | spread |")
    print("|---|---:|---:|---:|")
    for label, measured in seconds.items():
        median = statistics.median(measured)
        spread = f"{min(measured):.2f}-{max(measured):.2f}"
        print(f"| {label} | {median:.3f} | {median / floor:.2f}x | {spread} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
