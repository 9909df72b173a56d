"""Where deep mode's time goes on the nested log, in-process, with the typed path and without.

Rows (each a median of interleaved rounds, a ratio to the floor of the same lines, and
microseconds a line), on the whole log, then on its valid lines and its failing ones
apart:

- **floor**: ``orjson.loads`` of each line;
- **arguments decode**: each call's arguments (the text the line holds) by its tool's
  deep decoder, nothing else (valid lines only: what a valid call costs in C);
- **deep check**: ``orjson.loads`` of each line and its tool's deep check, nothing
  counted: what the general path pays for each call before counting it;
- **audit, summary** / **audit, report**: ``Audit(...).run()`` in deep mode, the schemas
  compiled beforehand, the report written to memory;
- **typed path off, summary**: the same with the typed path turned off (every call
  checked by the general path, as before deep mode had decoders).

It ends with what each tool's decoder leaves to the general path (``DeepTyping``).

    .venv/bin/python benchmarks/deep_breakdown.py [--calls 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable
from pathlib import Path

import orjson

from common import DATA_DIR
from dataset import prepare_nested_dataset
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas import SchemaSet, load_schemas
from toolaudit.typed.deep_arguments import deep_typing
from typed_breakdown import medians, table

SEED = 20261128


def steps(
    lines: list[bytes], schemas: SchemaSet, *, valid: bool
) -> dict[str, Callable[[], object]]:
    """The rows, each a function doing its work once over ``lines``."""
    assert schemas.validator is not None
    tools = schemas.validator.tools
    decoders = {name: deep_typing(tool).decoder for name, tool in tools.items()}
    calls = [orjson.loads(line) for line in lines]
    texts = [(decoders[call["name"]], orjson.dumps(call["arguments"])) for call in calls]
    log = DATA_DIR / "deep-breakdown.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")

    def floor() -> None:
        for line in lines:
            orjson.loads(line)

    def decode() -> None:
        for decoder, text in texts:
            if decoder is not None:
                decoder.decode(text)

    def check() -> None:
        for line in lines:
            call = orjson.loads(line)
            tools[call["name"]].check(call["arguments"])

    def audit(report: bool, typed: bool = True) -> Callable[[], object]:
        def run() -> object:
            audit = Audit([str(log)], schemas, AuditOptions(deep=True))
            audit.typed_fast_path = typed
            return audit.run(io.BytesIO() if report else None)

        return run

    rows: dict[str, Callable[[], object]] = {"floor": floor}
    if valid:
        rows["arguments decode"] = decode
    rows |= {
        "deep check": check,
        "audit, summary": audit(False),
        "audit, report": audit(True),
        "typed path off, summary": audit(False, typed=False),
    }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    nested = prepare_nested_dataset(args.calls, SEED)
    schemas = load_schemas(str(nested.schemas), deep=True)
    lines = Path(nested.log).read_bytes().splitlines()
    failing_lines = {int(number) for number in nested.expected.errors_by_line}
    parts = {
        "valid": [line for n, line in enumerate(lines, 1) if n not in failing_lines],
        "failing": [line for n, line in enumerate(lines, 1) if n in failing_lines],
    }
    figures = medians(steps(lines, schemas, valid=False), args.rounds)
    table(f"the nested log: {len(lines):,} lines", figures, figures["floor"], len(lines))
    for name, part in parts.items():
        figures = medians(steps(part, schemas, valid=name == "valid"), args.rounds)
        table(f"the {len(part):,} {name} lines", figures, figures["floor"], len(part))
    assert schemas.validator is not None
    print("\n| tool | typed | after-checks | left to the general path |\n|---|---|---|---|")
    for name, tool in schemas.validator.tools.items():
        typing = deep_typing(tool)
        refused = "; ".join(f"#{where}: {why}" for where, why in typing.refused) or "nothing"
        checks = ", ".join(typing.after_checks) or "none"
        print(f"| {name} | {typing.declined or 'yes'} | {checks} | {refused} |")


if __name__ == "__main__":
    main()
