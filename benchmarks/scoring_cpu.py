"""The CPU time (user + system, from ``wait4``) of the scored audits of scoring.py's
logs beside the plain audit, for this checkout and another (``--before SRC``), rounds
interleaved, medians: on a machine shared with other work, wall-clock ratios moved by
half between rounds, CPU times much less.

Run scoring.py once first (it writes the logs and expected files to benchmarks/data/).

    .venv/bin/python benchmarks/scoring_cpu.py [--log bfcl|flat|openai] [--repeat R] [--before SRC]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from common import DATA_DIR
from measure import compile_bytecode, run_child
from scoring import LAUNCHER, expected_path, scores_path

#: The logs scoring.py writes: (log, schemas, expected file, options scoring needs).
LOGS: dict[str, tuple[Path, Path, Path, tuple[str, ...]]] = {
    "bfcl": (
        DATA_DIR / "scoring-bfcl-log.jsonl",
        DATA_DIR / "scoring-bfcl-questions.jsonl",
        DATA_DIR / "scoring-bfcl-answers.jsonl",
        (),
    ),
    "flat": (
        DATA_DIR / "calls-v1-seed20261128-50000.jsonl",
        DATA_DIR / "schemas-v1.json",
        expected_path("flat"),
        (),
    ),
    # (written by scoring.py --calls 50000, as the flat log is.)
    "openai": (
        DATA_DIR / "openai-v2.1-seed20261128-50000.jsonl",
        DATA_DIR / "schemas-v1.json",
        expected_path("openai"),
        ("--expected-key", "id"),
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", choices=sorted(LOGS), default="bfcl")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout's src/, timed too")
    args = parser.parse_args()
    log, schemas, expected, key = LOGS[args.log]
    for path in (log, schemas, expected):
        if not path.exists():
            raise SystemExit(f"{path} not found: run benchmarks/scoring.py first (it writes it)")
    scored = ("--expected", str(expected), *key)
    rows = {
        "plain": (),
        "expected": scored,
        "scores": (*scored, "--scores", str(scores_path(args.log))),
    }
    if args.log == "bfcl":
        rows["bfcl"] = (*scored, "--match", "bfcl")
    import toolaudit

    sources = {"after": Path(toolaudit.__file__).parents[1]}
    if args.before is not None:
        sources["before"] = args.before
    for src in sources.values():
        compile_bytecode(src / "toolaudit")  # (as scoring.py does: see there)
    seconds: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.repeat):
        # The trees' order alternates: in one order, the second tree was measured 0.15 s
        # slower on the BFCL log, twice (what ran just before leaves the caches cold).
        order = list(sources.items())
        for source, src in order if round_ % 2 == 0 else reversed(order):
            for row, extra in rows.items():
                argv = [sys.executable, "-c", LAUNCHER.format(setup=""), str(src), "audit"]
                argv += [str(log), "--schemas", str(schemas), "--format", "json", *extra]
                seconds.setdefault((source, row), []).append(run_child(argv).cpu_seconds)
    print(f"{args.log}: CPU seconds, medians of {args.repeat} rounds (x the plain audit)\n")
    print("| | " + " | ".join(rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for source in sources:
        plain = statistics.median(seconds[(source, "plain")])
        cells = []
        for row in rows:
            median = statistics.median(seconds[(source, row)])
            cells.append(f"{median:.2f} s ({median / plain:.2f}x)")
        print(f"| {source} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
