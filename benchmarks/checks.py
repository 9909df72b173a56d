"""The checks: did toolaudit and the peers find what the generator put in?

A benchmark of a validator that misses errors would measure the wrong thing, so
each count is compared with the generator's, exactly, and the report lists the
outcome under "Checks".
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson

from common import DATA_DIR
from dataset import Dataset, Expected, NestedDataset, NestedExpected
from measure import Variant, audit_argv, run_child


def audit_summary(exe: Path, log: Path, schemas: Path, *options: str) -> dict[str, Any]:
    """The summary of one untimed audit (it also warms the page cache)."""
    with tempfile.NamedTemporaryFile(suffix=".json", dir=DATA_DIR, delete=False) as out:
        summary_path = Path(out.name)
    try:
        run_child(audit_argv(exe, log, schemas, *options), stdout_path=summary_path)
        summary: dict[str, Any] = orjson.loads(summary_path.read_bytes())
    finally:
        summary_path.unlink(missing_ok=True)
    return summary


def summary_differences(summary: dict[str, Any], want: Expected, deep: bool) -> list[str]:
    """What a summary says that the generator does not: counts, then every error kind."""
    pairs = [
        ("deep", summary.get("deep"), deep),
        ("lines", summary.get("lines"), want.lines),
        ("malformed records", summary.get("malformed_records"), want.malformed_records),
        ("calls", summary.get("calls"), want.calls),
        ("invalid calls", summary.get("invalid"), want.invalid),
    ]
    by_kind = summary.get("by_kind", {})
    pairs += [
        (f"{kind} errors", by_kind.get(kind, 0), by_kind_count)
        for kind, by_kind_count in sorted(want.by_kind.items())
    ]
    pairs += [(f"{kind} errors", n, 0) for kind, n in by_kind.items() if kind not in want.by_kind]
    return [
        f"{what} {got} (expected {expected})" for what, got, expected in pairs if got != expected
    ]


def check_toolaudit(exe: Path, dataset: Dataset, *options: str) -> list[str]:
    """One untimed summary-only run with ``options``, against the generator."""
    name = " ".join(["toolaudit", *options])
    summary = audit_summary(exe, dataset.log, dataset.schemas, *options)
    want = dataset.expected
    wrong = summary_differences(summary, want, deep="--deep" in options)
    if wrong:
        return [f"{name}'s summary differs from the generator: " + "; ".join(wrong)]
    return [
        (
            f"{name}'s summary matches the generator ({want.invalid:,} invalid calls, "
            f"{want.malformed_records:,} malformed lines, every error kind counted exactly)"
        )
    ]


def check_nested(exe: Path, nested: NestedDataset) -> list[str]:
    """Deep mode on the nested log, untimed, against the generator: the summary's counts
    per kind and per tool and path, and every report row's errors, exactly; and plain
    mode, which must find nothing (every error is inside an argument)."""
    want = nested.expected
    report_path = DATA_DIR / "nested-check-report.jsonl"
    try:
        summary = audit_summary(
            exe, nested.log, nested.schemas, "--deep", "--report", str(report_path)
        )
        rows = report_differences(report_path, want)
    finally:
        report_path.unlink(missing_ok=True)
    wrong = summary_differences(summary, want, deep=True)
    by_tool = summary.get("by_tool", {})
    wrong += [
        f"{tool}'s errors by parameter differ"
        for tool in sorted({*by_tool, *want.by_param})
        if by_tool.get(tool, {}).get("by_param", {}) != want.by_param.get(tool, {})
    ]
    notes = []
    if wrong or rows:
        notes.append("toolaudit --deep differs from the generator: " + "; ".join(wrong + rows))
    else:
        paths = sum(len(params) for params in want.by_param.values())
        notes.append(
            f"toolaudit --deep finds what the generator put in the nested log: "
            f"{want.invalid:,} invalid calls, every error kind counted exactly, and so is "
            f"each tool's every path ({paths} of them, indices as `[]`); every report row "
            "holds its call's errors, path for path"
        )
    plain = audit_summary(exe, nested.log, nested.schemas)
    if (plain.get("calls"), plain.get("invalid")) != (want.calls, 0):
        notes.append(
            f"plain toolaudit found {plain.get('invalid')} invalid calls of "
            f"{plain.get('calls')} in the nested log (expected none of {want.calls:,})"
        )
    else:
        notes.append("plain toolaudit finds no invalid call in the nested log, as it should")
    return notes


def report_differences(report_path: Path, want: NestedExpected, shown: int = 3) -> list[str]:
    """The report rows whose errors are not the generator's (a few shown, and how many)."""
    wrong = []
    seen = 0
    with open(report_path, "rb") as report:
        for line in report:
            row = orjson.loads(line)
            seen += 1
            expected = want.errors_by_line.get(str(row.get("line")), [])
            if sorted(row.get("errors", [])) != expected:
                wrong.append(f"line {row.get('line')}: {row.get('errors')} (expected {expected})")
    if seen != want.calls:
        wrong.insert(0, f"{seen:,} report rows (expected {want.calls:,})")
    return [*wrong[:shown], *([f"{len(wrong) - shown} more rows"] if len(wrong) > shown else [])]


#: Rows that parse but do not validate (the floors, the lower bound): no invalid count to check.
NOT_VALIDATORS = frozenset({"a", "a2", "n"})


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
