"""The audit command end to end: golden outputs for the sample, inputs, exit codes, errors
that stop a run, formats and schemas taken from the records, and its options."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolaudit import __version__
from toolaudit.cli import app

from ..conftest import (
    FIXTURES,
    GOLDEN,
    REPO,
    SAMPLE,
    SAMPLE_SCHEMAS,
    invoke,
    rows_of,
    update_golden,
    without_source,
)

VERSION_MARK = "<toolaudit version>"


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    actual = actual.replace(f'"{__version__}"', f'"{VERSION_MARK}"')
    if update_golden():
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8"), (
        f"{name} changed (TOOLAUDIT_UPDATE_GOLDEN=1 rewrites it)"
    )


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
    # sample_logs/bfcl/ and the request log are walked too: they are not the point here
    walked = [path for path in sources if not path.startswith("sample_logs/bfcl/")]
    assert walked == [SAMPLE, "sample_logs/requests.jsonl"]
    assert "sample_logs/schemas.json" not in sources


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


def test_an_empty_input_passes_with_a_warning(tmp_path):
    """Exit 0 (no call failed), but said: `zcat log.gz | toolaudit audit` with a zcat that
    failed would pass in silence."""
    _, schemas = ping_log(tmp_path, "")
    result = invoke("audit", "-s", str(schemas), input=b"")
    assert result.exit_code == 0
    assert "warning: the input is empty: no line to audit" in result.stderr
    log, _ = ping_log(tmp_path, '{"name": "ping"}\n')
    assert "warning" not in invoke("audit", str(log), "-s", str(schemas)).stderr


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


@pytest.mark.parametrize("option", ["--report", "--summary", "--html"])
def test_an_output_that_is_the_schemas_file_is_refused(tmp_path, option):
    log, schemas = ping_log(tmp_path, '{"name": "ping"}\n')
    before = schemas.read_text()
    result = invoke("audit", str(log), "-s", str(schemas), option, str(schemas))
    assert result.exit_code == 2
    assert "is the schemas file; refusing to overwrite it" in result.stderr
    assert schemas.read_text() == before


@pytest.mark.parametrize(
    ("first", "second", "said"),
    [
        (["--report", "out"], ["--summary", "out"], "--summary out: also given as --report"),
        (["--summary", "out"], ["--html", "./x/../out"], "also given as --summary"),
        (["--report", "-"], ["--summary", "-"], "--summary -: --report already writes to stdout"),
    ],
)
def test_two_outputs_in_one_place_are_refused(tmp_path, monkeypatch, first, second, said):
    """The last one written would win, and the other output would be lost."""
    log, schemas = ping_log(tmp_path, '{"name": "ping"}\n')
    monkeypatch.chdir(tmp_path)
    result = invoke("audit", str(log), "-s", str(schemas), *first, *second)
    assert result.exit_code == 2
    assert said in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option", ["--summary", "--html"])
def test_an_output_on_stdout_sends_the_table_to_stderr(in_repo, option):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, option, "-")
    if option == "--summary":
        assert json.loads(result.stdout)["calls"] == 361  # the summary alone: JSON
    else:
        assert result.stdout.startswith("<!DOCTYPE html>") and "</html>" in result.stdout
        assert "calls" not in result.stdout.rsplit("</html>", 1)[1]
    assert "361 calls: 310 ok" in result.stderr  # the table


BATCH_INPUT = {
    "custom_id": "req-1",
    "method": "POST",
    "url": "/v1/chat/completions",
    "body": {"model": "m", "tools": [{"type": "function", "function": {
        "name": "t", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}}]},
}  # fmt: skip
BATCH_OUTPUT = {
    "custom_id": "req-1",
    "response": {"status_code": 200, "body": {"object": "chat.completion", "model": "m",
        "choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "t", "arguments": '{"x": 1}'}}]}}]}},
}  # fmt: skip


def test_a_batch_output_line_is_judged_by_the_tools_of_its_input_line(tmp_path):
    inputs, outputs = tmp_path / "input.jsonl", tmp_path / "output.jsonl"
    inputs.write_text(json.dumps(BATCH_INPUT) + "\n")
    outputs.write_text(json.dumps(BATCH_OUTPUT) + "\n")
    result = invoke("audit", str(inputs), str(outputs), "--report", "-")
    assert result.exit_code == 0
    assert [json.loads(line)["ok"] for line in result.stdout.splitlines()] == [True]
    # Given the other way round, the output line has no tools yet: the run says which
    # line it needed, and in what order to give the files.
    result = invoke("audit", str(outputs), str(inputs))
    assert result.exit_code == 2
    assert "no batch input line with custom_id 'req-1' came before it" in result.stderr
    assert "give the input file before the output file" in result.stderr


def test_formats_and_schemas_from_the_records(tmp_path):
    fixtures = FIXTURES / "formats"
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


@pytest.mark.parametrize(
    ("value", "ok"), [("10,5", True), ("7", True), ("1", False), ("a,b", False), ("1,2,3", False)]
)
def test_the_max_keys_option(tmp_path, value, ok):
    log = tmp_path / "log.jsonl"
    log.write_text('{"name": "t", "arguments": {}}\n')
    schemas = tmp_path / "s.json"
    schemas.write_text('{"t": {}}')
    result = CliRunner().invoke(app, ["audit", str(log), "-s", str(schemas), "--max-keys", value])
    assert (result.exit_code == 0) is ok, result.output


#: A JSON array 1,000 levels deep: the parser reads it, anything that recurses on it fails.
DEEP = "[" * 1000 + '"string"' + "]" * 1000
HOSTILE_PARAMETERS = {
    "type": f'{{"properties": {{"a": {{"type": {DEEP}}}}}}}',
    "required": f'{{"properties": {{"a": {{"type": "string"}}}}, "required": {DEEP}}}',
    "maxLength": '{"properties": {"a": {"type": "string", "maxLength": 1%s}}}' % ("0" * 400),
    "maximum": '{"properties": {"a": {"type": "number", "maximum": 1e400}}}',
}
#: Numbers beyond a double: a schema may be refused for them, or judge by them exactly.
HUGE_NUMBERS = ("maxLength", "maximum")


@pytest.mark.parametrize("case", sorted(HOSTILE_PARAMETERS))
def test_a_hostile_schemas_file_stops_the_run_with_one_line_and_exit_2(tmp_path, case):
    log = tmp_path / "log.jsonl"
    log.write_text('{"name": "t", "arguments": {"a": "x"}}\n')
    schemas = tmp_path / "s.json"
    schemas.write_text(f'{{"t": {{"parameters": {HOSTILE_PARAMETERS[case]}}}}}')
    result = invoke("audit", str(log), "-s", str(schemas), "--deep")
    if case in HUGE_NUMBERS and result.exit_code != 2:  # read exactly: the call is judged
        assert result.exit_code in (0, 1) and "1 call" in result.stdout
        return
    assert result.exit_code == 2
    assert result.stderr.startswith(f"toolaudit: error: schemas file {schemas}: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("case", sorted(HOSTILE_PARAMETERS))
def test_a_records_own_hostile_tools_are_that_records_problem(tmp_path, case):
    """A malformed:record row, and the next line is read."""
    parameters = HOSTILE_PARAMETERS[case]
    tool = f'{{"type": "function", "function": {{"name": "t", "parameters": {parameters}}}}}'
    response = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "t", "arguments": "{}"},
                        }
                    ],
                }
            }
        ]
    }
    line = (
        f'{{"request": {{"messages": [], "tools": [{tool}]}}, "response": {json.dumps(response)}}}'
    )
    log = tmp_path / "log.jsonl"
    log.write_text(line + '\n{"name": "t", "arguments": {}}\n')
    result = invoke("audit", str(log), "-s", SAMPLE_SCHEMAS, "--deep", "-r", "-", "-f", "json")
    assert result.exit_code == 1
    first, second = (json.loads(row) for row in result.stdout.splitlines()[:2])
    assert first["line"] == 1
    if case not in HUGE_NUMBERS or first["errors"] == ["malformed:record"]:
        assert first["errors"] == ["malformed:record"]
        assert "its tool definitions are malformed" in first["detail"]
    else:  # read exactly: the call is judged by them
        assert first["tool"] == "t"
    assert second["line"] == 2 and second["errors"] == ["unknown_tool:t"]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--max-line-bytes", "max_line_bytes must be a whole number of at least 1, not 0"),
        ("--max-open-streams", "max_open_streams (--max-open-streams) must be a whole number"),
    ],
)
def test_out_of_range_options_are_refused_by_the_librarys_own_check(option, message):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, option, "0")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"toolaudit: error: {message}")
    assert result.stderr.count("\n") == 1


def test_the_help_shows_the_librarys_defaults():
    from toolaudit.pipeline.options import AuditOptions
    from toolaudit.runners.blocks import parse_blocksize
    from toolaudit.sources import DEFAULT_BLOCKSIZE

    help_text = " ".join(CliRunner().invoke(app, ["audit", "--help"]).stdout.split())
    defaults = AuditOptions()
    assert f"[default: {defaults.max_tools},{defaults.max_params}]" in help_text
    assert f"[default: {defaults.max_line_bytes}]" in help_text
    assert f"[default: {defaults.max_open_streams}]" in help_text
    shown_blocksize = help_text.split("one block). [default: ")[1].split("]")[0]
    assert parse_blocksize(shown_blocksize) == DEFAULT_BLOCKSIZE
