"""Deep mode's failing calls in instructions (valgrind's callgrind), not seconds.

On a machine shared by several engineers the seconds of one run move by a fifth;
instructions do not. Each row runs once under callgrind with its work done zero times,
then once more (its imports, the schemas and the log read are the same in both): the
difference, divided by the lines, is the row's cost a line. Rows, on the failing lines
of the nested log (``--part failing``) or on the whole log (``--part whole``):

- **floor**: ``orjson.loads`` of each line;
- **check**: ``orjson.loads`` and the tool's deep check (the contract and the walk);
- **summary** / **report**: ``Audit(...).run()`` in deep mode, the report to memory.

The audit rows hold an audit's fixed cost too (about 25 million instructions: the
readers, the recorder, the summary), so measure thousands of lines, not a few dozen.
``--src DIR`` measures another checkout's sources (``git archive <commit> src | tar -x``)
with this environment, for a before/after side by side.

    .venv/bin/python benchmarks/deep_instructions.py [--calls 20000] [--src DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

import orjson

SEED = 20261128
ROWS = ("floor", "check", "summary", "report")


def work(row: str, log: Path, schemas_path: str, times: int) -> None:
    """Do ``row``'s work ``times`` times over ``log`` (after one warming run)."""
    from toolaudit.pipeline.audit import Audit, AuditOptions
    from toolaudit.schemas import load_schemas

    schemas = load_schemas(schemas_path, deep=True)
    assert schemas.validator is not None
    tools = schemas.validator.tools
    lines = log.read_bytes().splitlines()

    def run() -> None:
        if row == "floor":
            for line in lines:
                orjson.loads(line)
        elif row == "check":
            for line in lines:
                call = orjson.loads(line)
                tools[call["name"]].check(call["arguments"])
        else:
            report = io.BytesIO() if row == "report" else None
            Audit([str(log)], schemas, AuditOptions(deep=True)).run(report)

    run()
    for _ in range(times):
        run()


def instructions(row: str, log: Path, schemas: str, times: int, src: str | None) -> int:
    from measure import callgrind_instructions  # here: the measured child imports it not

    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    argv = [sys.executable, __file__, "--child", row, str(log), schemas, str(times)]
    return callgrind_instructions(argv, env)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        row, log, schemas, times = sys.argv[2:6]
        work(row, Path(log), schemas, int(times))
        return
    sys.path.insert(0, str(Path(__file__).parent))
    from dataset import prepare_nested_dataset

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--part", choices=("failing", "whole"), default="failing")
    parser.add_argument("--src", help="the sources to measure (default: the installed ones)")
    args = parser.parse_args()
    nested = prepare_nested_dataset(args.calls, SEED)
    lines = Path(nested.log).read_bytes().splitlines()
    if args.part == "failing":
        failing = {int(number) for number in nested.expected.errors_by_line}
        lines = [line for n, line in enumerate(lines, 1) if n in failing]
    log = Path(nested.log).with_suffix(f".{args.part}.jsonl")
    log.write_bytes(b"\n".join(lines) + b"\n")
    per_line = {}
    for row in ROWS:
        cost = instructions(row, log, str(nested.schemas), 1, args.src)
        cost -= instructions(row, log, str(nested.schemas), 0, args.src)
        per_line[row] = cost / len(lines)
    print(f"| row ({len(lines):,} {args.part} lines) | instructions a line | vs floor |")
    print("|---|---:|---:|")
    for row, cost in per_line.items():
        print(f"| {row} | {cost:,.0f} | {cost / per_line['floor']:.2f}x |")


if __name__ == "__main__":
    main()
