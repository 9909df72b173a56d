"""The application as a whole: --version and --help everywhere, `python -m toolaudit` and the
console script in real processes, no traceback for user errors, and what start-up imports."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from toolaudit import __version__

from ..conftest import GOLDEN, REPO, SAMPLE, SAMPLE_SCHEMAS, invoke, rows_of, without_source


def test_version_and_help_on_every_command():
    assert invoke("--version").stdout == f"toolaudit {__version__}\n"
    for command in ([], ["audit"], ["validate"]):
        for flag in ("-h", "--help"):
            result = invoke(*command, flag)
            assert result.exit_code == 0 and "Usage:" in result.stdout
    assert "Exit codes" in invoke("audit", "--help").stdout


def run_process(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        args,
        input=input,
        capture_output=True,
        cwd=REPO,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )


def test_python_dash_m_and_the_console_script_run_the_audit(tmp_path):
    script = shutil.which("toolaudit", path=str(Path(sys.executable).parent))
    assert script is not None, "the console script is installed with the package"
    for command in ([sys.executable, "-m", "toolaudit"], [script]):
        report = tmp_path / "report.jsonl"
        result = run_process(
            *command,
            "audit",
            "-",
            "-s",
            SAMPLE_SCHEMAS,
            "-r",
            str(report),
            input=(REPO / SAMPLE).read_bytes(),
        )
        assert result.returncode == 1
        assert b"Traceback" not in result.stderr
        assert without_source(rows_of(report)) == without_source(
            rows_of(GOLDEN / "sample_report.jsonl")
        )
        assert {row["source"] for row in rows_of(report)} == {"-"}
        version = run_process(*command, "--version")
        assert version.stdout.decode() == f"toolaudit {__version__}\n"


def test_no_traceback_for_user_errors_in_a_real_process(tmp_path):
    for args in (
        ["audit", "nope.jsonl", "-s", SAMPLE_SCHEMAS],
        ["audit", SAMPLE, "-s", "nope.json"],
        ["audit", SAMPLE],
    ):
        result = run_process(sys.executable, "-m", "toolaudit", *args)
        assert result.returncode == 2, args
        assert b"Traceback" not in result.stderr


def test_start_up_pays_only_for_what_it_uses():
    code = (
        "import sys, runpy; sys.argv = ['toolaudit', '--version']\n"
        "try:\n    runpy.run_module('toolaudit', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = ('orjson', 'msgspec', 'tqdm', 'multiprocessing', 'toolaudit.pipeline',\n"
        "         'toolaudit.runners')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip().splitlines()[-1] == "[]"


def test_the_usage_lines_show_which_arguments_take_many_values():
    # Typer prints an argument's metavar as given: one that takes many values must say so
    # itself (the pin below typer 0.29 had turned "[PATH]..." into "[PATH]").
    for command, many in (
        ("audit", "[PATH...]"),
        ("merge", "{SUMMARY...}"),
        ("schemas", "{FILE...}"),
    ):
        usage = invoke(command, "--help").stdout.splitlines()[0]
        assert usage.endswith(f"[OPTIONS] {many}"), usage
    for command, one in (("compare", "{BASE} {NEW}"), ("validate", "[CALL]")):
        assert invoke(command, "--help").stdout.splitlines()[0].endswith(one)
