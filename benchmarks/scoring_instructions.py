"""What scoring costs, in instructions (valgrind's callgrind), not seconds: the plain
and the scored audit of scoring.py's flat and OpenAI Chat logs side by side.

On a machine shared by several engineers the seconds of one run move by a fifth;
instructions do not. Rows, each the difference of two runs under callgrind (its work
done once, then zero times: imports, schemas and the expected file cost the same in
both):

- **plain**: ``Audit.run`` (summary only), the schemas read;
- **read**: reading the expected file as the CLI reads it (``load_expectations``,
  the collector off, then ``gc.freeze``);
- **scored**: ``Audit.run`` with those expectations, the file already read;
- **scores**: the same, with ``--scores`` lines written to memory;
- **read + scored**: the two together, against **plain**: a scored audit in-process.

Then the whole command, start-up included: ``toolaudit audit LOG --schemas S --format
json``, plain and with ``--expected`` (its instructions as they are, not a difference).
``--lines N`` measures the first N lines of the log (and their entries): a 50,000-line
log takes minutes a run under callgrind on a loaded machine. ``--src DIR`` measures
another checkout's sources (``git archive <commit> src | tar -x -C DIR``, its
extensions built there) in the same run, beside this one's.

    .venv/bin/python benchmarks/scoring_instructions.py [--log flat|openai] [--lines N] [--src DIR]
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import orjson

#: The in-process rows (see the docstring).
ROWS = ("plain", "read", "scored", "scores")


def work(row: str, log: str, schemas_path: str, expected: str, key: str, times: int) -> None:
    """Do ``row``'s work ``times`` times (after what it needs is read)."""
    from toolaudit.pipeline.audit import Audit, AuditOptions
    from toolaudit.schemas import load_schemas
    from toolaudit.truth.expectations import load_expectations

    gc.disable()
    schemas = load_schemas([schemas_path])

    def read() -> object:
        with_key = key or None
        return load_expectations([expected], key=with_key, schemas=schemas)

    expectations = read() if row in ("scored", "scores") else None
    gc.freeze()
    gc.enable()
    for _ in range(times):
        if row == "read":
            gc.disable()
            read()
            gc.freeze()
            gc.enable()
            continue
        scores = io.BytesIO() if row == "scores" else None
        audit = Audit([log], schemas, AuditOptions(), expectations=expectations)  # type: ignore[arg-type]
        audit.run(None, scores)


def child_env(src: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    return env


def in_process(row: str, files: tuple[str, str, str, str], times: int, src: str | None) -> int:
    from measure import callgrind_instructions

    argv = [sys.executable, __file__, "--child", row, *files, str(times)]
    return callgrind_instructions(argv, child_env(src))


def command(files: tuple[str, str, str, str], scored: bool, src: str) -> int:
    from measure import callgrind_instructions
    from scoring import LAUNCHER

    log, schemas, expected, key = files
    argv = [sys.executable, "-c", LAUNCHER.format(setup=""), src, "audit", log]
    argv += ["--schemas", schemas, "--format", "json"]
    if scored:
        argv += ["--expected", expected] + (["--expected-key", key] if key else [])
    # (exit 1: the flat log has failing calls.)
    return callgrind_instructions(argv, child_env(None), ok_codes=(0, 1))


def first_lines(log: Path, expected: Path, lines: int) -> tuple[Path, Path]:
    """The first ``lines`` lines of ``log``, and the lines of ``expected`` up to the
    entry of the last of them (scoring_data.py writes them in the log's order, the ids
    no record has among them): written beside them."""
    kept = log.read_bytes().splitlines(keepends=True)[:lines]
    last_id = None
    for line in reversed(kept):
        try:
            last_id = orjson.loads(line)["id"]
            break
        except (orjson.JSONDecodeError, KeyError, TypeError):
            continue
    entries = []
    for line in expected.read_bytes().splitlines(keepends=True):
        entries.append(line)
        if orjson.loads(line)["id"] == last_id:
            break
    cut_log = log.with_name(f"{log.stem}-first{lines}.jsonl")
    cut_expected = expected.with_name(f"{expected.stem}-first{lines}.jsonl")
    cut_log.write_bytes(b"".join(kept))
    cut_expected.write_bytes(b"".join(entries))
    return cut_log, cut_expected


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        row, log, schemas, expected, key, times = sys.argv[2:8]
        work(row, log, schemas, expected, key, int(times))
        return
    sys.path.insert(0, str(Path(__file__).parent))
    from measure import compile_bytecode
    from scoring_cpu import LOGS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", choices=("flat", "openai"), default="flat")
    parser.add_argument("--src", help="another checkout's src/, measured beside this one")
    parser.add_argument(
        "--lines", type=int, help="the log's first LINES lines only (and their entries)"
    )
    args = parser.parse_args()
    log, schemas, expected, key_option = LOGS[args.log]
    for path in (log, schemas, expected):
        if not path.exists():
            raise SystemExit(f"{path} not found: run benchmarks/scoring.py first (it writes it)")
    if args.lines:
        log, expected = first_lines(log, expected, args.lines)
    files = (str(log), str(schemas), str(expected), key_option[1] if key_option else "")
    import toolaudit

    trees = {"this": str(Path(toolaudit.__file__).parents[1])}
    if args.src:
        trees["src"] = args.src
    for tree in trees.values():
        compile_bytecode(Path(tree) / "toolaudit")
    with open(log, "rb") as lines:
        records = sum(1 for _ in lines)
    print(f"{args.log}: {records:,} records; G instructions (x plain)\n")
    header = "| tree | " + " | ".join(ROWS) + " | read + scored | command plain | command scored |"
    print(header)
    print("|---" + "|---:" * (len(ROWS) + 3) + "|")
    # (Two processes at once: a shared machine's load moves no instruction count.)
    with ThreadPoolExecutor(2) as pool:
        runs = {name: measure(pool, files, tree, name == "this") for name, tree in trees.items()}
        for name, tree in trees.items():
            print(f"| {name} ({tree}) | " + " | ".join(cells(runs[name])) + " |", flush=True)


def measure(
    pool: ThreadPoolExecutor, files: tuple[str, str, str, str], tree: str, this: bool
) -> dict[str, Future[int]]:
    """Each row's runs under callgrind, started in ``pool``: its work done once, and
    zero times (the same zero run for the scored rows: both read the expected file)."""
    src = None if this else tree
    runs = {row: pool.submit(in_process, row, files, 1, src) for row in ROWS}
    for row in ("plain", "read", "scored"):
        runs[f"{row} zero"] = pool.submit(in_process, row, files, 0, src)
    runs["command plain"] = pool.submit(command, files, False, tree)
    runs["command scored"] = pool.submit(command, files, True, tree)
    return runs


def cells(runs: dict[str, Future[int]]) -> list[str]:
    """A tree's row of the table: G instructions, ratios to the plain audit."""
    zero = {"plain": "plain zero", "read": "read zero", "scored": "scored zero"}
    zero["scores"] = zero["scored"]
    cost = {row: runs[row].result() - runs[zero[row]].result() for row in ROWS}
    plain = cost["plain"]
    shown = [f"{cost[row] / 1e9:.2f}" for row in ROWS]
    shown[2] += f" ({cost['scored'] / plain:.2f}x)"
    shown[3] += f" ({cost['scores'] / plain:.2f}x)"
    both = cost["read"] + cost["scored"]
    shown.append(f"{both / 1e9:.2f} ({both / plain:.2f}x)")  # (scored holds the plain run)
    whole_plain, whole_scored = runs["command plain"].result(), runs["command scored"].result()
    shown.append(f"{whole_plain / 1e9:.2f}")
    shown.append(f"{whole_scored / 1e9:.2f} ({whole_scored / whole_plain:.2f}x)")
    return shown


if __name__ == "__main__":
    main()
