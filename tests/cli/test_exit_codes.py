"""Exit codes that cannot lie: an exception nothing caught ends with status 2 and one
line on stderr (never 1, which says "invalid calls found"); --debug adds the traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

import toolaudit.schemas
import toolaudit.schemas.loading
from toolaudit.cli import main
from toolaudit.cli.app import unexpected_error
from toolaudit.errors import SchemaError
from toolaudit.output.text import printable

from ..conftest import REPO, SAMPLE, SAMPLE_SCHEMAS


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["toolaudit", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    return exit_.value.code, capsys.readouterr().err


def boom(*args, **kwargs):
    raise ValueError("not\nforeseen")


@pytest.fixture
def broken_loading(monkeypatch):
    """Loading schemas fails as nothing foresaw, for every command."""
    monkeypatch.setattr(toolaudit.schemas, "load_schemas", boom)
    monkeypatch.setattr(toolaudit.schemas.loading, "load_schemas", boom)


@pytest.mark.parametrize("command", ["audit", "validate"])
def test_an_unexpected_exception_is_exit_2_and_one_line(
    monkeypatch, capsys, broken_loading, command
):
    given = SAMPLE if command == "audit" else '{"name": "a", "arguments": {}}'
    code, stderr = run_main(monkeypatch, capsys, command, given, "-s", SAMPLE_SCHEMAS)
    assert code == 2
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert stderr.startswith(r"toolaudit: error: unexpected ValueError: not\nforeseen (raised in ")
    assert "tests/cli/test_exit_codes.py" in stderr and "--debug" in stderr


def test_debug_adds_the_traceback(monkeypatch, capsys, broken_loading):
    code, stderr = run_main(monkeypatch, capsys, "--debug", "audit", SAMPLE, "-s", SAMPLE_SCHEMAS)
    assert code == 2
    assert stderr.startswith("Traceback (most recent call last):")
    assert stderr.splitlines()[-1].startswith("toolaudit: error: unexpected ValueError")


def test_a_run_stopper_that_escapes_is_its_message_and_exit_2(monkeypatch, capsys):
    def refuse(*args, **kwargs):
        raise SchemaError("schemas.json: not a schema")

    monkeypatch.setattr(toolaudit.schemas.loading, "load_schemas", refuse)
    monkeypatch.setattr("toolaudit.cli.validate.ToolAuditError", KeyError)  # not caught there
    code, stderr = run_main(
        monkeypatch, capsys, "validate", '{"name": "a", "arguments": {}}', "-s", SAMPLE_SCHEMAS
    )
    assert (code, stderr) == (2, "toolaudit: error: schemas.json: not a schema\n")


def test_the_line_says_where_inside_the_package():
    try:
        printable(None)  # type: ignore[arg-type]
    except AttributeError as error:
        said = unexpected_error(error)
    assert said.startswith("unexpected AttributeError: 'NoneType' object has no attribute ")
    assert "(raised in printable, at toolaudit/output/text.py:" in said


def test_a_real_process_exits_2_without_a_traceback(tmp_path):
    code = (
        "import sys, toolaudit.schemas\n"
        "def boom(*a, **k): raise RecursionError('maximum recursion depth exceeded')\n"
        "toolaudit.schemas.load_schemas = boom\n"
        "sys.argv = ['toolaudit', *sys.argv[1:]]\n"
        "from toolaudit.cli import main\n"
        "main()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, "audit", SAMPLE, "-s", SAMPLE_SCHEMAS],
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.count(b"\n") == 1 and b"Traceback" not in result.stderr
