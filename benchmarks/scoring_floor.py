"""The least scoring can cost, against what the plain audit costs, in instructions.

Scoring is to cost the audit at most 10% more. This measures what any scoring must do
at the least (scoring_floor.c: the expected file indexed by id in one C pass, no Python
object an entry but its id and offset; each record's call compared with its entry's as
text, in C; the entry marked scored and counted by a hash of its shape) beside the plain
audit of the same records (``Audit.run``, summary only), each the difference of two runs
under callgrind, the work done once and zero times. What scoring_floor.c leaves out
(UTF-8, escapes, numbers by value, defaults, mismatch paths, counts by name, --scores)
only adds to a real scoring's cost: its figures are a lower bound.

    .venv/bin/python benchmarks/scoring_floor.py [--lines N]

The flat log of benchmarks/scoring.py (run it first: it writes the data), its first N
lines (10,000 by default) and their entries.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent


def build(into: Path) -> None:
    """scoring_floor.c built into ``into`` (as setup.py builds the package's C)."""
    from setuptools import Distribution, Extension

    extension = Extension(
        "scoring_floor", [str(HERE / "scoring_floor.c")], extra_compile_args=["-O2"]
    )
    distribution = Distribution({"name": "scoring_floor", "ext_modules": [extension]})
    command = distribution.get_command_obj("build_ext")
    command.build_lib = str(into)
    command.build_temp = str(into / "temp")
    command.ensure_finalized()
    command.run()


def work(row: str, log: str, schemas_path: str, expected: str, times: int) -> None:
    """Do ``row``'s work ``times`` times (after what it needs is read)."""
    gc.disable()
    if row == "plain":
        from toolaudit.pipeline.audit import Audit, AuditOptions
        from toolaudit.schemas import load_schemas

        schemas = load_schemas([schemas_path])
        for _ in range(times):
            Audit([log], schemas, AuditOptions()).run(None, None)
        return
    import scoring_floor

    expected_data = Path(expected).read_bytes()
    log_data = Path(log).read_bytes()
    index = scoring_floor.index(expected_data)
    for _ in range(times):
        if row == "index":
            scoring_floor.index(expected_data)
        else:
            same, different, unscored = scoring_floor.score(
                index, expected_data, log_data, row == "score"
            )
    if times and row == "score":
        # (What the floor told, to hold against the audit's own ground truth: its correct
        # and incorrect entries; the floor skips the entries of no call.)
        print(f"{same} {different} {unscored}")


def told(log: Path, schemas: Path, expected: Path, built: str) -> tuple[int, ...]:
    """What the floor's score tells of the records: (same, different, unscored)."""
    argv = [sys.executable, __file__, "--child", "score", str(log), str(schemas), str(expected)]
    done = subprocess.run([*argv, "1", built], capture_output=True, text=True, check=True)
    return tuple(int(count) for count in done.stdout.split())


def audit_outcomes(log: Path, schemas: Path, expected: Path) -> tuple[int, int]:
    """The audit's own correct and incorrect entries of the same records."""
    from toolaudit.pipeline.audit import Audit, AuditOptions
    from toolaudit.schemas import load_schemas
    from toolaudit.truth.expectations import load_expectations

    read = load_schemas([str(schemas)])
    expectations = load_expectations([str(expected)], key=None, schemas=read)
    summary = Audit([str(log)], read, AuditOptions(), expectations=expectations).run(None, None)
    assert summary.ground_truth is not None
    outcomes = summary.ground_truth.to_dict()["outcomes"]
    return outcomes["correct"], outcomes["incorrect"]


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        row, log, schemas, expected, times, built = sys.argv[2:8]
        sys.path.insert(0, built)
        work(row, log, schemas, expected, int(times))
        return
    sys.path.insert(0, str(HERE))
    from measure import BenchmarkError, callgrind_instructions, compile_bytecode
    from scoring_cpu import LOGS
    from scoring_instructions import first_lines

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    args = parser.parse_args()
    log, schemas, expected, _ = LOGS["flat"]
    for path in (log, schemas, expected):
        if not path.exists():
            raise SystemExit(f"{path} not found: run benchmarks/scoring.py first (it writes it)")
    log, expected = first_lines(log, expected, args.lines)
    import toolaudit

    compile_bytecode(Path(toolaudit.__file__).parent)
    with tempfile.TemporaryDirectory() as built:
        build(Path(built))
        per_record = {}
        for row in ("plain", "index", "score", "entry"):
            counts = [
                callgrind_instructions(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        row,
                        str(log),
                        str(schemas),
                        str(expected),
                        str(times),
                        built,
                    ]
                )
                for times in (0, 1)
            ]
            per_record[row] = (counts[1] - counts[0]) / args.lines
        same, different, unscored = told(log, schemas, expected, built)
    # The floor must do the work it stands for: tell the records the audit scores as it does.
    audited = audit_outcomes(log, schemas, expected)
    if (same, different) != audited:
        raise BenchmarkError(
            f"the floor told {same} same and {different} different, not the audit's "
            f"correct and incorrect {audited}"
        )
    plain = per_record["plain"]
    print(f"flat log, first {args.lines:,} lines: instructions a record")
    for row, label in (
        ("plain", "plain audit"),
        ("index", "floor: index the entry"),
        ("score", "floor: score the record"),
        ("entry", "  of which the entry's side"),
    ):
        print(f"  {label:28} {per_record[row]:>9,.0f}  ({per_record[row] / plain:.1%} of plain)")
    floor = per_record["index"] + per_record["score"]
    print(
        f"  {'floor, all in':28} {floor:>9,.0f}  -> {(plain + floor) / plain:.3f}x the plain audit"
    )
    entry_side = per_record["index"] + per_record["entry"]
    print(
        f"  {'floor, the entry side only':28} {entry_side:>9,.0f}"
        f"  -> {(plain + entry_side) / plain:.3f}x the plain audit"
    )
    print(
        f"the floor told {same:,} records the same and {different:,} different, as the audit"
        f" tells them correct and incorrect; it left {unscored:,} (entries of no call, no entry)"
    )


if __name__ == "__main__":
    main()
