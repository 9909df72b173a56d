"""The command line end to end: CliRunner for most, real subprocesses where it matters."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from toolaudit import __version__
from toolaudit.cli import app
from toolaudit.results.summary import Summary, merge_summaries

from .conftest import REPO, update_golden

GOLDEN = Path(__file__).parent / "golden"
SAMPLE = "sample_logs/calls.jsonl"
SAMPLE_SCHEMAS = "sample_logs/schemas.json"
VERSION_MARK = "<toolaudit version>"


def invoke(*args: str, input: bytes | str | None = None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    actual = actual.replace(f'"{__version__}"', f'"{VERSION_MARK}"')
    if update_golden():
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8"), (
        f"{name} changed (TOOLAUDIT_UPDATE_GOLDEN=1 rewrites it)"
    )


def rows_of(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def without_source(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "source"} for row in rows]


def test_golden_report_summary_and_table_for_the_sample(in_repo, tmp_path):
    report, summary = tmp_path / "report.jsonl", tmp_path / "summary.json"
    result = invoke(
        "audit",
        SAMPLE,
        "--schemas",
        SAMPLE_SCHEMAS,
        "--report",
        str(report),
        "--summary",
        str(summary),
    )
    assert result.exit_code == 1  # the sample holds invalid calls on purpose
    check_golden("sample_report.jsonl", report.read_text(encoding="utf-8"))
    check_golden("sample_summary.json", summary.read_text(encoding="utf-8"))
    check_golden("sample_table.txt", result.stdout)
    assert result.stderr == ""


def test_the_sample_covers_every_error_kind_and_broken_lines(in_repo, tmp_path):
    summary_path = tmp_path / "s.json"
    invoke("audit", SAMPLE, "--schemas", SAMPLE_SCHEMAS, "--summary", str(summary_path))
    summary = json.loads(summary_path.read_text())
    assert set(summary["by_kind"]) == {
        "missing",
        "unexpected",
        "type",
        "enum",
        "unknown_tool",
        "malformed",
    }
    assert set(summary["record_errors"]) == {"malformed:json", "malformed:record"}
    assert summary["blank_lines"] >= 1
    assert summary["lines"] == summary["blank_lines"] + summary["records"]
    assert summary["calls"] == summary["ok"] + summary["invalid"]


def test_format_json_prints_the_summary_on_stdout(in_repo, tmp_path):
    summary_path = tmp_path / "s.json"
    result = invoke(
        "audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--format", "json", "--summary", str(summary_path)
    )
    assert json.loads(result.stdout) == json.loads(summary_path.read_text())


def test_report_on_stdout_keeps_stdout_pure_jsonl(in_repo):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--report", "-", "--errors-only")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(not row["ok"] for row in rows)
    assert "calls:" in result.stderr  # the table went to stderr


def test_plain_gzip_and_stdin_give_the_same_results(in_repo, tmp_path):
    gz = tmp_path / "calls.data"  # gzip recognised by content, not by name
    gz.write_bytes(gzip.compress((REPO / SAMPLE).read_bytes()))
    outputs = {}
    for label, args, stdin in [
        ("plain", [SAMPLE], None),
        ("gzip", [str(gz)], None),
        ("stdin", ["-"], (REPO / SAMPLE).read_bytes()),
        ("stdin by default", [], (REPO / SAMPLE).read_bytes()),
        ("gzip stdin", ["-"], gz.read_bytes()),
    ]:
        report, summary = tmp_path / f"{label}.jsonl", tmp_path / f"{label}.json"
        result = invoke(
            "audit",
            *args,
            "-s",
            SAMPLE_SCHEMAS,
            "-r",
            str(report),
            "--summary",
            str(summary),
            input=stdin,
        )
        assert result.exit_code == 1, result.output
        data = json.loads(summary.read_text())
        del data["sources"]
        data["samples"] = without_source(data["samples"])
        outputs[label] = (without_source(rows_of(report)), data)
    first = outputs["plain"]
    for label, output in outputs.items():
        assert output == first, label


def test_directories_are_walked_and_the_schemas_file_is_not_taken_for_a_log(in_repo, tmp_path):
    summary_path = tmp_path / "s.json"
    invoke("audit", "sample_logs", "-s", SAMPLE_SCHEMAS, "--summary", str(summary_path))
    sources = [s["path"] for s in json.loads(summary_path.read_text())["sources"]]
    assert sources == [SAMPLE]


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ([], 1),
        (["--max-error-rate", "0.5"], 0),
        (["--max-error-rate", "0.01"], 1),
        (["--max-error-rate", "1"], 0),
    ],
)
def test_exit_codes_for_invalid_calls(in_repo, extra, code):
    assert invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, *extra).exit_code == code


def ping_log(tmp_path: Path, text: str) -> tuple[Path, Path]:
    """A log with the given text and schemas declaring one tool, `ping`, without parameters."""
    schemas = tmp_path / "s.json"
    schemas.write_text('{"ping": {}}')
    log = tmp_path / "log.jsonl"
    log.write_text(text)
    return log, schemas


def test_exit_0_when_every_call_is_valid(tmp_path):
    log, schemas = ping_log(tmp_path, '{"name": "ping"}\n\n{"name": "ping", "arguments": "{}"}\n')
    result = invoke("audit", str(log), "-s", str(schemas))
    assert result.exit_code == 0
    assert "2 calls: 2 ok, 0 invalid" in result.stdout


def test_exit_1_for_a_malformed_record_even_when_all_calls_are_valid(tmp_path):
    log, schemas = ping_log(tmp_path, '{"name": "ping"}\nnot json\n')
    assert invoke("audit", str(log), "-s", str(schemas)).exit_code == 1


@pytest.mark.parametrize(
    ("schemas_text", "words"),
    [
        (None, ["missing.json", "cannot read"]),
        ("{not json", ["bad.json", "not valid JSON"]),
        ("[1, 2]", ["bad.json", "tool #1", "must be an object"]),
        ('"tools"', ["bad.json", "expected a JSON object mapping tool names"]),
        (
            '{"get_weather": {"parameters": {"properties": {"days": {"type": "int"}}}}}',
            ["bad.json", "get_weather", "days", "'int'"],
        ),
    ],
)
def test_a_bad_schemas_file_stops_the_run_with_one_located_line(
    in_repo, tmp_path, schemas_text, words
):
    path = tmp_path / ("missing.json" if schemas_text is None else "bad.json")
    if schemas_text is not None:
        path.write_text(schemas_text)
    report = tmp_path / "report.jsonl"
    result = invoke("audit", SAMPLE, "-s", str(path), "-r", str(report))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("toolaudit: error: ")
    for word in words:
        assert word in result.stderr
    assert not report.exists()


def test_a_missing_input_stops_the_run(in_repo, tmp_path):
    result = invoke("audit", str(tmp_path / "nope.jsonl"), "-s", SAMPLE_SCHEMAS)
    assert result.exit_code == 2
    assert "no such file" in result.stderr


def test_an_output_that_is_also_an_input_is_refused(tmp_path):
    log, schemas = ping_log(tmp_path, '{"name": "ping"}\n')
    result = invoke("audit", str(log), "-s", str(schemas), "--report", str(log))
    assert result.exit_code == 2
    assert "also an input" in result.stderr
    assert log.read_text() == '{"name": "ping"}\n'


def test_validate_one_call(in_repo):
    ok = invoke(
        "validate", '{"name": "get_weather", "arguments": {"city": "Paris"}}', "-s", SAMPLE_SCHEMAS
    )
    assert (ok.exit_code, json.loads(ok.stdout)) == (0, {"ok": True, "errors": []})
    bad = invoke(
        "validate",
        "-s",
        SAMPLE_SCHEMAS,
        input='{"name": "get_weather", "arguments": {"days": true, "tz": "UTC"}}',
    )
    assert bad.exit_code == 1
    assert json.loads(bad.stdout) == {
        "ok": False,
        "errors": ["missing:city", "type:days", "unexpected:tz"],
    }
    broken = invoke("validate", "{nope", "-s", SAMPLE_SCHEMAS)
    assert broken.exit_code == 2 and "not valid JSON" in broken.stderr


def test_version_and_help_on_every_command():
    assert invoke("--version").stdout == f"toolaudit {__version__}\n"
    for command in ([], ["audit"], ["validate"]):
        for flag in ("-h", "--help"):
            result = invoke(*command, flag)
            assert result.exit_code == 0 and "Usage:" in result.stdout
    assert "Exit codes" in invoke("audit", "--help").stdout


def test_shard_summaries_merge_into_the_summary_of_the_whole(in_repo, tmp_path):
    lines = (REPO / SAMPLE).read_bytes().splitlines(keepends=True)
    cuts = [0, 97, 250, len(lines)]
    shards = []
    for number, (start, end) in enumerate(itertools.pairwise(cuts)):
        shard = tmp_path / f"shard{number}.jsonl"
        shard.write_bytes(b"".join(lines[start:end]))
        shards.append(shard)
    summaries = []
    for shard in [*shards, REPO / SAMPLE]:
        out = tmp_path / f"{shard.name}.summary.json"
        invoke("audit", str(shard), "-s", SAMPLE_SCHEMAS, "--summary", str(out))
        summaries.append(Summary.from_dict(json.loads(out.read_text())))
    *parts, whole = summaries
    merged = merge_summaries(parts)
    assert [s.path for s in merged.sources] == [str(s) for s in shards]
    assert len(merged.samples) == len(whole.samples)
    # Sources and sample rows name the shard files and their lines; all else is the whole's.
    merged.sources = whole.sources = merged.samples = whole.samples = []
    assert merged == whole


# -- real processes -------------------------------------------------------------


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


def test_formats_and_schemas_from_the_records(tmp_path):
    fixtures = REPO / "tests" / "fixtures" / "formats"
    # Bedrock request/response pairs carry their tools: no --schemas needed.
    result = invoke("audit", str(fixtures / "bedrock.jsonl"))
    assert result.exit_code == 0, result.output
    # A response without its request cannot be judged without --schemas: exit 2, located.
    result = invoke("audit", str(fixtures / "openai_chat.jsonl"))
    assert result.exit_code == 2
    assert "openai_chat.jsonl:3: no tool schemas" in result.stderr
    result = invoke(
        "audit",
        str(fixtures / "openai_chat.jsonl"),
        "-s",
        str(fixtures / "schemas.json"),
        "--format",
        "json",
    )
    assert json.loads(result.stdout)["records_without_calls"] == 2


def test_input_format_forces_one_format(tmp_path):
    log, schemas = ping_log(tmp_path, '{"name": "ping", "arguments": {}}\n')
    assert invoke("audit", str(log), "-s", str(schemas), "--input-format", "flat").exit_code == 0
    forced = invoke("audit", str(log), "-s", str(schemas), "--input-format", "gemini", "-r", "-")
    assert json.loads(forced.stdout.splitlines()[0])["errors"] == ["malformed:record"]
    assert invoke("audit", str(log), "-s", str(schemas), "--input-format", "nope").exit_code == 2


def test_progress_goes_to_stderr_by_bytes_when_asked(in_repo):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--progress")
    assert "auditing" in result.stderr and "B" in result.stderr
    assert "auditing" not in result.stdout
    quiet = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS)  # stderr is not a terminal here
    assert quiet.stderr == ""


def test_start_up_pays_only_for_what_it_uses():
    code = (
        "import sys, runpy; sys.argv = ['toolaudit', '--version']\n"
        "try:\n    runpy.run_module('toolaudit', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = ('orjson', 'tqdm', 'multiprocessing', 'toolaudit.pipeline', 'toolaudit.runners')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip().splitlines()[-1] == "[]"
