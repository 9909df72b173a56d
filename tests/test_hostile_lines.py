"""One hostile line never stops an audit: every case folder's records, mutated as an
attacker would (tests/hostile.py), audited through the command line.

Whatever a line holds, the run ends with exit 0 or 1 and no traceback, every line is
counted once, the counts add up, and no line meets a bug (``malformed:internal``).
A few seeds run in the quick suite; ``-m slow`` runs many more, and with ``--jobs 2``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolaudit.cli import app
from toolaudit.results.summary import Summary

from .conftest import assert_counts_add_up
from .hostile import case_folders, hostile_log

FOLDERS = case_folders()
QUICK_SEEDS = (1,)
SLOW_SEEDS = tuple(range(2, 12))


def _loads(line: bytes) -> dict:
    """A report row, which may hold a number from the log past orjson's range."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.loads(line)
    finally:
        sys.set_int_max_str_digits(limit)


def _schemas_of(folder: Path) -> Path:
    [schemas] = sorted(folder.glob("schemas.json*"))
    return schemas


def audit_hostile(folder: Path, seed: int, tmp: Path, *extra: str) -> tuple[list[dict], Summary]:
    log = tmp / f"{folder.name}-{seed}.jsonl"
    if not log.exists():
        log.write_bytes(hostile_log(folder, seed))
    report, summary_file = tmp / "report.jsonl", tmp / "summary.json"
    args = [
        "audit", str(log), "--schemas", str(_schemas_of(folder)), "--no-progress",
        "--report", str(report), "--summary", str(summary_file), "--format", "json", *extra,
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    where = f"{folder.name}, seed {seed}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        where,
        result.exception,
    )
    assert result.exit_code in (0, 1), (where, result.output)
    assert "Traceback" not in result.output, where
    summary = Summary.load(str(summary_file))
    rows = [_loads(line) for line in report.read_bytes().splitlines()]
    assert_counts_add_up(summary)
    lines = log.read_bytes().count(b"\n")
    assert summary.lines == lines, where
    assert {row["line"] for row in rows} <= set(range(1, lines + 1)), where
    # (A conversation's problem is a row with "problem" in place of "errors".)
    internal = [row for row in rows if "malformed:internal" in row.get("errors", ())]
    assert internal == [], where
    assert all(row["problem"] != "malformed:internal" for row in rows if "problem" in row)
    return rows, summary


@pytest.mark.parametrize("seed", QUICK_SEEDS)
@pytest.mark.parametrize("folder", FOLDERS, ids=[path.name for path in FOLDERS])
def test_hostile_lines_never_stop_the_audit(folder: Path, seed: int, tmp_path: Path) -> None:
    audit_hostile(folder, seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
@pytest.mark.parametrize("folder", FOLDERS, ids=[path.name for path in FOLDERS])
def test_many_hostile_lines_never_stop_the_audit(folder: Path, seed: int, tmp_path: Path) -> None:
    audit_hostile(folder, seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("folder", FOLDERS, ids=[path.name for path in FOLDERS])
def test_hostile_lines_give_the_same_with_two_jobs(folder: Path, tmp_path: Path) -> None:
    one_rows, one = audit_hostile(folder, 1, tmp_path)
    two_rows, two = audit_hostile(folder, 1, tmp_path, "--jobs", "2")
    assert two_rows == one_rows
    assert two.to_dict() == one.to_dict()
