"""Real tool schemas (BFCL's, two MCP servers', the sample's) through every target: no
crash, the findings and each conversion as the golden files say, and every conversion
sound: written in the file's own shape, passing its target's lint but for what no
conversion can mend, and unchanged when converted again.

TOOLAUDIT_UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolaudit.cli.schemas_command import render_conversion
from toolaudit.schemas.report import inspect_schema_files
from toolaudit.targets import TARGETS
from toolaudit.targets.convert_files import convert_schema_files
from toolaudit.targets.files import check_schema_files

from ..conftest import REPO, update_golden

DATA = REPO / "tests" / "targets" / "data"
GOLDEN = REPO / "tests" / "targets" / "golden"
CORPUS = [
    *sorted((DATA / "bfcl").glob("*.json")),
    *sorted((DATA / "mcp").glob("*.json")),
    REPO / "sample_logs" / "schemas.json",
]
#: Rules no conversion can mend: the schema's root, recursion, references out of the
#: file, sizes, the tool's name (and, where $ref is refused, a recursive one's $ref/$defs).
UNMENDABLE = ("root-not-object", "root-any-of", "recursive", "external-ref", "tool-name")


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if update_golden():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (TOOLAUDIT_UPDATE_GOLDEN=1)"


def _in_repo(path: Path) -> str:
    return str(path.relative_to(REPO))


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_the_findings_of_every_target_are_stable(path: Path, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    report = check_schema_files(_in_repo(path), list(TARGETS))
    lines = [
        f"{f.tool}{'' if f.question is None else f' ({f.question})'}  {f.code}  "
        f"{f.pointer or '(root)'}  {f.message}"
        for f in report.findings
    ]
    _golden(f"{path.name}.findings.txt", "\n".join(lines) + "\n")


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_every_conversion_is_stable_sound_and_final(path: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(path, path.name)
    assert not inspect_schema_files(path.name).defects
    said = []
    for target in TARGETS:
        (converted,) = convert_schema_files(path.name, target, target)
        said.append(render_conversion(converted, target))
        _assert_sound(converted.written, target, converted.tools)
        (again,) = convert_schema_files(converted.written, target, f"{target}-again")
        assert all(not tool.changes for tool in again.tools), target
        assert Path(again.written).read_bytes() == Path(converted.written).read_bytes()
    _golden(f"{path.name}.convert.txt", "".join(said))


def _assert_sound(written: str, target: str, tools) -> None:
    report = inspect_schema_files(written)
    assert not report.defects, report.defects
    rejected = {
        (f.tool, f.code)
        for f in check_schema_files(written, [target]).findings
        if f.severity == "rejects"
    }
    left = {(tool.tool, finding.code) for tool in tools for finding in tool.left}
    assert rejected == left
    for _, code in left:
        rule = code.rsplit(":", 1)[1]
        assert rule in UNMENDABLE or rule in _limits(target) or rule == "unknown-field", code


def _limits(target: str) -> set[str]:
    from toolaudit.targets.rules import Limit

    return {rule.rule for rule in TARGETS[target].rules if isinstance(rule.match, Limit)}
