"""The checks: did toolaudit and the peers find what the generator put in?

A benchmark of a validator that misses errors would measure the wrong thing, so
each count is compared with the generator's, exactly, and the report lists the
outcome under "Checks".
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import orjson

from common import DATA_DIR
from dataset import Dataset, Expected
from measure import Variant, audit_argv, run_child


def check_toolaudit(exe: Path, dataset: Dataset) -> list[str]:
    """One untimed summary-only run (it also warms the page cache), against the generator."""
    with tempfile.NamedTemporaryFile(suffix=".json", dir=DATA_DIR, delete=False) as out:
        summary_path = Path(out.name)
    try:
        run_child(audit_argv(exe, dataset.log, dataset.schemas), stdout_path=summary_path)
        summary = orjson.loads(summary_path.read_bytes())
    finally:
        summary_path.unlink(missing_ok=True)
    want = dataset.expected
    pairs = [
        ("lines", summary.get("lines"), want.lines),
        ("malformed records", summary.get("malformed_records"), want.malformed_records),
        ("calls", summary.get("calls"), want.calls),
        ("invalid calls", summary.get("invalid"), want.invalid),
    ]
    by_kind = summary.get("by_kind", {})
    pairs += [
        (f"{kind} errors", by_kind.get(kind, 0), count)
        for kind, count in sorted(want.by_kind.items())
    ]
    wrong = [
        f"{what} {got} (expected {expected})" for what, got, expected in pairs if got != expected
    ]
    if wrong:
        return ["toolaudit's summary differs from the generator: " + "; ".join(wrong)]
    return [
        (
            f"toolaudit's summary matches the generator ({want.invalid:,} invalid calls, "
            f"{want.malformed_records:,} malformed lines, every error kind counted exactly)"
        )
    ]


#: Rows that parse but do not validate (the floor, the lower bound): no invalid count to check.
NOT_VALIDATORS = frozenset({"a", "a2"})


def check_in_process(variants: list[Variant], expected: Expected) -> list[str]:
    notes = []
    for variant in variants:
        counts = variant.counts
        if counts is None:
            continue
        problems = []
        if counts.lines != expected.lines:
            problems.append(f"{counts.lines:,} lines (expected {expected.lines:,})")
        if counts.malformed != expected.malformed_records:
            problems.append(
                f"{counts.malformed:,} malformed (expected {expected.malformed_records:,})"
            )
        if variant.key not in NOT_VALIDATORS and counts.invalid != expected.invalid:
            problems.append(f"{counts.invalid:,} invalid calls (expected {expected.invalid:,})")
        if problems:
            notes.append(f"row {variant.key} found " + ", ".join(problems))
        elif variant.key not in NOT_VALIDATORS:
            notes.append(f"row {variant.key} found the same {counts.invalid:,} invalid calls")
    return notes
