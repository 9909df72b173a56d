"""Every folder under tests/cases/formats/ is one case: a log, its schemas, the report.

A case folder is named for the format it mainly tests and holds ``input.jsonl``,
``schemas.json`` (or ``schemas.jsonl``: a BFCL question file) and
``expected.jsonl``: the report rows the audit writes, byte for byte. Each case
stands alone, so a line added to one moves nothing in another.
TOOLAUDIT_UPDATE_GOLDEN=1 rewrites the expected files (review the diff).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import toolaudit
from toolaudit.formats import format_names

from ..conftest import REPO, update_golden

CASES = REPO / "tests" / "cases" / "formats"
FOLDERS = sorted(path for path in CASES.iterdir() if path.is_dir())


def schemas_of(folder: Path) -> Path:
    found = sorted(folder.glob("schemas.json*"))
    assert len(found) == 1, f"{folder.name}: one schemas.json (or schemas.jsonl) expected"
    return found[0]


def report_of(folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    # Audited from inside the folder, so that each row's source is "input.jsonl".
    monkeypatch.chdir(folder)
    report = io.BytesIO()
    toolaudit.audit(["input.jsonl"], schemas_of(folder).name).run(report)
    return report.getvalue().decode()


@pytest.mark.parametrize("folder", FOLDERS, ids=[path.name for path in FOLDERS])
def test_a_case_gives_its_expected_report(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    actual = report_of(folder, monkeypatch)
    expected_file = folder / "expected.jsonl"
    if update_golden():
        expected_file.write_text(actual)
    # Compared line by line, so that a failure names the row that changed.
    assert actual.splitlines() == expected_file.read_text().splitlines()
    assert actual == expected_file.read_text()


def test_every_format_has_a_case_and_every_case_a_format() -> None:
    assert sorted(path.name for path in FOLDERS) == sorted(format_names())
