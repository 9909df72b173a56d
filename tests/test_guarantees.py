"""The promises of docs/guarantees.md, across modules: whatever bad input or hostile content
it is fed, the audit finishes, accounts for every line, and tells the truth."""

from __future__ import annotations

import io
import json
import math

import orjson
import pytest

from toolaudit.jsonutil import dumps_any
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source

from .conftest import assert_counts_add_up

SCHEMAS = schema_set(
    {
        "t": {
            "parameters": {
                "properties": {
                    "n": {"type": "integer"},
                    "x": {"type": "number"},
                    "s": {"type": "string"},
                    "big": {"enum": [18446744073709551617, -9223372036854775809]},
                },
                "required": [],
            }
        }
    }
)


def audit(data: bytes, **options) -> tuple[list[dict], object]:
    run = Audit([Source("-")], SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(data))
    rows = list(run)
    assert_counts_add_up(run.summary)
    report = io.BytesIO()
    Audit([Source("-")], SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(data)).run(report)
    assert [json.loads(line) for line in report.getvalue().splitlines()] == [
        json.loads(dumps_any(row)) for row in rows
    ]
    return rows, run.summary


def errors(rows):
    return [(row["line"], row["errors"]) for row in rows]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"name": "t"}\r\n{"name": "t", "arguments": {"n": 1}}\r\n', [(1, []), (2, [])]),  # CRLF
        (b'\xef\xbb\xbf{"name": "t"}\n', [(1, [])]),  # a BOM at the start of the file
        (
            b'{"name": "t"}\n\xef\xbb\xbf{"name": "t"}\n',
            [(1, []), (2, [])],
        ),  # or where files were concatenated
        (
            b'{"name": "t", "arguments": {"s": "caf\xe9"}}\n',
            [(1, ["malformed:json"])],
        ),  # invalid UTF-8 (latin-1)
        (
            b'{"name": "t", "arguments": {"s": "a\x00b"}}\n',
            [(1, ["malformed:json"])],
        ),  # a raw NUL in a string
        (b'{"name": "t", "arguments": {"s": "a\\u0000b"}}\n', [(1, [])]),  # an escaped NUL is fine
        (
            b'{"name": "t", "arguments": {"s": "\xed\xa0\x80"}}\n',
            [(1, ["malformed:json"])],
        ),  # a surrogate encoded in UTF-8 is not UTF-8 (the standard library would take it)
        (
            '{"name": "t"}\n{"name": "t"}\n'.encode("utf-16-le"),
            [(1, ["malformed:json"]), (2, ["malformed:json"]), (3, ["malformed:json"])],
        ),  # UTF-16 (the standard library would read its first line)
        (
            '{"name": "t"}\n'.encode("utf-32"),
            [(1, ["malformed:json"]), (2, ["malformed:json"])],
        ),  # UTF-32, with its byte order mark
        (
            b'{"name": "t", "arguments": {"n": "x", "n": 2}}\n',
            [(1, [])],
        ),  # duplicate keys: the last wins
        (
            b'{"name": "t"}\n{"name": "t", "argu',
            [(1, []), (2, ["malformed:json"])],
        ),  # truncated last line
        (b'{"name": "t"}\n  \t \n\n', [(1, [])]),  # blank and whitespace-only lines
    ],
)
def test_dirty_lines(data, expected):
    rows, _ = audit(data)
    assert errors(rows) == expected


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        (b'{"name": "t", "x": "caf\xe9"}', "not valid UTF-8: byte 0xe9 at byte 24"),
        (b'{"name": "t", "x": "\xed\xa0\x80"}', "not valid UTF-8: byte 0xed at byte 21"),
        (
            '{"name": "t"}'.encode("utf-16-le"),
            "not valid JSON: a NUL byte at byte 2 (UTF-16 or UTF-32 text? logs are read as UTF-8)",
        ),
    ],
)
def test_text_that_is_not_utf8_is_said_so_where_it_stops(data, detail):
    rows, _ = audit(data + b"\n")
    assert rows[0]["detail"] == detail


def test_blank_lines_are_counted():
    _, summary = audit(b'{"name": "t"}\n  \t \n\n\r\n')
    assert (summary.lines, summary.blank_lines, summary.records) == (4, 3, 1)


def test_lone_surrogate_escapes_are_valid_json_and_are_audited_and_written_exactly():
    data = b'{"name": "t", "arguments": {"s": "\\ud800", "\\udfff": 1}}\n'
    rows, _ = audit(data)
    assert rows[0]["errors"] == ["unexpected:\udfff"]
    report = io.BytesIO()
    Audit([Source("-")], SCHEMAS, stdin=io.BytesIO(data)).run(report)
    assert b'"unexpected:\\udfff"' in report.getvalue()  # escaped: exact, and valid UTF-8


def test_numbers_beyond_a_double_are_numbers():
    rows, _ = audit(
        b'{"name": "t", "arguments": {"x": 1e400}}\n{"name": "t", "arguments": {"n": 1e400}}\n'
    )
    assert errors(rows) == [(1, []), (2, ["type:n"])]


ZERO_TOOLS = {
    "t": {"parameters": {"properties": {"z": {"enum": [0, "none"]}}}},
    "d": {"parameters": {"properties": {"x": {"type": "number", "exclusiveMaximum": 0}}}},
}


def _audit_zero(data: bytes, lines: int) -> dict[bool, list[dict]]:
    """The failing rows of ``data`` after ``lines`` valid lines (which make the typed path
    take the lines after them), by deep mode or not."""
    rows = {}
    for deep in (False, True):
        padding = b'{"name": "t", "arguments": {"z": 0}}\n' * lines
        run = Audit(
            [Source("-")],
            schema_set(ZERO_TOOLS, deep=deep),
            AuditOptions(errors_only=True, deep=deep),
            stdin=io.BytesIO(padding + data),
        )
        report = io.BytesIO()
        assert_counts_add_up(run.run(report))
        rows[deep] = [json.loads(line) for line in report.getvalue().splitlines()]
    return rows


@pytest.mark.parametrize("lines", [0, 300], ids=["first-lines", "typed-path"])
def test_a_number_below_a_double_that_orjson_reads_as_0_is_judged_exactly(lines):
    # orjson reads -1e-400 as -0.0 without a word: in an enum holding 0 it passed on the
    # fast paths of plain mode (the general path said enum:z).
    rows = _audit_zero(b'{"name": "t", "arguments": {"z": -1e-400}}\n', lines)
    assert rows[False] == rows[True]
    assert [(r["errors"], r["why"]) for r in rows[False]] == [
        (["enum:z"], {"enum:z": 'expected one of 0, "none"; got -1E-400'})
    ]


@pytest.mark.parametrize("number", [b"-1e-20000", b"-1e-9999999999999999999"])
def test_a_number_past_the_exact_reading_is_refused_where_it_may_change_a_verdict(number):
    # Past 1e±10000 a number is not read exactly: refused as 1e20000 is, which orjson
    # refuses, where orjson's 0 could decide (it said "below 0, got -0.0").
    data = b'{"name": "d", "arguments": {"x": ' + number + b"}}\n"
    rows = _audit_zero(data, 0)[True]
    assert [(r["errors"], r["detail"]) for r in rows] == [
        (
            ["malformed:json"],
            f"not audited: the number {number.decode()} is beyond 1e±10000, the range read exactly",
        )
    ]


#: Numbers past what is read exactly, each with the exact parse's reason for it.
PAST_EXACT = {
    "1e10001": "the number 1e10001 is beyond 1e±10000, the range read exactly",
    "-1E+10001": "the number -1E+10001 is beyond 1e±10000, the range read exactly",
    "100e9999": "the number 100e9999 is beyond 1e±10000, the range read exactly",
    "1e-10001": "the number 1e-10001 is beyond 1e±10000, the range read exactly",
    "1"
    * 10_001: "the number 1111111111…1111111111 has 10,001 digits, over the 10,000 read exactly",
}


@pytest.mark.parametrize("lines", [0, 300], ids=["first-lines", "typed-path"])
@pytest.mark.parametrize("number", sorted(PAST_EXACT), ids=lambda number: number[:10])
def test_a_number_past_the_exact_reading_in_arguments_text_is_refused_with_its_reason(
    number, lines
):
    # Arguments logged as JSON text: the call is malformed:arguments, its reason the exact
    # parse's (docs/guarantees.md, Limits), whichever way orjson reads the number (1e10001
    # it refuses, saying "infinity"; 1e-10001 it reads as 0).
    arguments = orjson.dumps(f'{{"x": {number}}}')
    padding = b'{"name": "t", "arguments": "{\\"x\\": 1}"}\n' * lines
    rows, _ = audit(padding + b'{"name": "t", "arguments": ' + arguments + b"}\n")
    [refused] = [row for row in rows if row["line"] == lines + 1]
    assert (refused["errors"], refused["detail"]) == (
        ["malformed:arguments"],
        f"arguments are not valid JSON: {PAST_EXACT[number]}",
    )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (b'{"n": 18446744073709551616}', []),  # beyond 64 bits: orjson would say float
        (b'{"n": -9223372036854775809}', []),
        (b'{"n": 18446744073709551616.0}', ["type:n"]),  # written as a float, it is one
        (b'{"n": 1.8446744073709552e19}', ["type:n"]),
        (b'{"big": 18446744073709551617}', []),  # exact in the enum, not its float neighbour
        (b'{"big": 18446744073709551616}', ["enum:big"]),
        (b'"{\\"n\\": 18446744073709551616}"', []),  # inside a JSON-string argument too
    ],
)
def test_integers_beyond_64_bits_are_exact(arguments, expected):
    rows, _ = audit(b'{"name": "t", "arguments": ' + arguments + b"}\n")
    assert rows[0]["errors"] == expected


def test_nesting_deeper_than_the_parser_allows_is_reported_not_crashed():
    deep = b'{"name": "t", "arguments": {"s": ' + b"[" * 2000 + b"]" * 2000 + b"}}\n"
    rows, _ = audit(deep + b'{"name": "t"}\n')
    assert errors(rows) == [(1, ["malformed:json"]), (2, [])]
    assert "nested deeper" in rows[0]["detail"]


def test_numbers_named_nan_or_infinity_are_not_json():
    rows, _ = audit(
        b'{"name": "t", "arguments": {"x": NaN}}\n{"name": "t", "arguments": {"x": Infinity}}\n'
    )
    assert errors(rows) == [(1, ["malformed:json"]), (2, ["malformed:json"])]


def test_rows_with_non_finite_ids_are_still_valid_json():
    _, _ = audit(b'{"id": 1e400, "name": "t", "arguments": {"s": "\\ud800"}}\n')
    report = io.BytesIO()
    Audit(
        [Source("-")],
        SCHEMAS,
        stdin=io.BytesIO(b'{"id": 1e400, "name": "t", "arguments": {"s": "\\ud800"}}\n'),
    ).run(report)
    assert json.loads(report.getvalue())["id"] == math.inf  # valid JSON: the id exactly
    assert b'"id":1E+400' in report.getvalue()


def test_a_huge_line_is_audited_or_refused_per_the_limit(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as file:
        file.write(b'{"name": "t"}\n{"name": "t", "arguments": {"s": "')
        block = b"x" * (1 << 20)
        for _ in range(100):
            file.write(block)
        file.write(b'"}}\n{"name": "t"}\n')
    refused = list(Audit([Source(str(path))], SCHEMAS))
    assert errors(refused) == [(1, []), (2, ["malformed:json"]), (3, [])]
    assert "over the --max-line-bytes limit" in refused[1]["detail"]
    audited = list(Audit([Source(str(path))], SCHEMAS, AuditOptions(max_line_bytes=200 << 20)))
    assert errors(audited) == [(1, []), (2, []), (3, [])]


# -- damaged gzip, hostile names, untrusted schemas (through the command line) ----------

import gzip  # noqa: E402

from typer.testing import CliRunner  # noqa: E402

from toolaudit.cli import app  # noqa: E402


def cli(*args: str, input: bytes | None = None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def test_a_truncated_gzip_is_audited_up_to_the_damage_and_reported(tmp_path):
    lines = b"".join(b'{"name": "t", "arguments": {"n": %d}}\n' % i for i in range(50_000))
    damaged = tmp_path / "calls.jsonl.gz"
    damaged.write_bytes(gzip.compress(lines)[:-2000])
    schemas = tmp_path / "s.json"
    schemas.write_text(
        json.dumps({"t": {"parameters": {"properties": {"n": {"type": "integer"}}}}})
    )
    summary_path = tmp_path / "summary.json"
    result = cli("audit", str(damaged), "-s", str(schemas), "--summary", str(summary_path))
    assert result.exit_code == 1
    summary = json.loads(summary_path.read_text())
    assert summary["complete"] is False
    read = summary["lines"]
    assert (
        10_000 < read < 50_000 and summary["ok"] == read
    )  # every line before the damage, all valid
    error = summary["sources"][0]["error"]
    assert "truncated" in error and f"after line {read}" in error
    assert f"{damaged}: gzip data ends" in result.stderr and "warning" in result.stderr
    assert "INCOMPLETE" in result.stdout


HOSTILE = ["\x1b[31mred\x1b[0m", "line\nbreak", "\u202eevil", "tab\there", "nul\x00"]


def test_hostile_names_are_escaped_on_the_terminal_and_exact_in_json(tmp_path):
    schemas = tmp_path / "s.json"
    schemas.write_text(json.dumps({"t": {"parameters": {"properties": {}}}}))
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(json.dumps({"name": name, "arguments": {}}) + "\n" for name in HOSTILE)
        + json.dumps({"name": "t", "arguments": {name: 1 for name in HOSTILE}})
        + "\n"
    )
    summary_path = tmp_path / "summary.json"
    table = cli("audit", str(log), "-s", str(schemas), "--summary", str(summary_path)).stdout
    for raw, shown in [
        ("\x1b", "\\x1b[31mred"),
        ("line\nbreak", "line\\nbreak"),
        ("\u202e", "\\u202eevil"),
    ]:
        assert raw not in table and shown in table
    assert "\x00" not in table
    summary = json.loads(summary_path.read_text())
    assert set(HOSTILE) <= set(summary["by_tool"])
    assert set(summary["by_tool"]["t"]["by_param"]) == set(HOSTILE)


def test_a_schema_defect_with_a_hostile_name_is_reported_escaped(tmp_path):
    schemas = tmp_path / "s.json"
    schemas.write_text(
        json.dumps({"t\x1b[2J": {"parameters": {"properties": {"p\n": {"type": "strin"}}}}})
    )
    result = cli("audit", "-", "-s", str(schemas), input=b"")
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "\\x1b[2J" in result.stderr
    assert result.stderr.count("\n") == 1


def test_huge_schemas_work(tmp_path):
    tools = {
        f"tool_{t}": {
            "parameters": {"properties": {f"p{p}": {"type": "integer"} for p in range(1000)}}
        }
        for t in range(20)
    }
    tools.update(
        {
            f"small_{t}": {
                "parameters": {"properties": {"a": {"type": "string"}}, "required": ["a"]}
            }
            for t in range(10_000)
        }
    )
    schemas = tmp_path / "s.json"
    schemas.write_bytes(orjson.dumps(tools))
    log = tmp_path / "log.jsonl"
    log.write_bytes(
        orjson.dumps({"name": "tool_3", "arguments": {"p999": 1, "p0": "x"}})
        + b"\n"
        + orjson.dumps({"name": "small_9999", "arguments": {}})
        + b"\n"
    )
    rows = json.loads(
        "["
        + ",".join(cli("audit", str(log), "-s", str(schemas), "-r", "-").stdout.splitlines())
        + "]"
    )
    assert [row["errors"] for row in rows] == [["type:p0"], ["missing:a"]]


def test_deeply_nested_schemas_work_and_too_deep_ones_are_refused_clearly(tmp_path):
    nested: dict = {"type": "string"}
    for _ in range(300):  # deeper than orjson writes, shallower than it reads
        nested = {"type": "object", "properties": {"x": nested}}
    schemas = tmp_path / "s.json"
    schemas.write_text(json.dumps({"t": {"parameters": {"properties": {"deep": nested}}}}))
    log = tmp_path / "log.jsonl"
    log.write_text(
        '{"name": "t", "arguments": {"deep": {}}}\n{"name": "t", "arguments": {"deep": 1}}\n'
    )
    result = cli("audit", str(log), "-s", str(schemas), "-r", "-")
    assert [json.loads(line)["errors"] for line in result.stdout.splitlines()] == [
        [],
        ["type:deep"],
    ]
    too_deep = tmp_path / "deep.json"
    too_deep.write_text(
        '{"t": {"parameters": {"properties": {"x": ' + "[" * 3000 + "]" * 3000 + "}}}}"
    )
    refused = cli("audit", str(log), "-s", str(too_deep))
    assert (
        refused.exit_code == 2
        and "not valid JSON" in refused.stderr
        and refused.stderr.count("\n") == 1
    )


HUGE = "9" * 5000  # past the 4,300 digits str() writes


@pytest.mark.parametrize(
    "line",
    [
        # A Responses output item, an Anthropic block, whose type is such a number.
        f'{{"object": "response", "output": [{{"type": {HUGE}}}]}}',
        f'{{"type": "message", "role": "assistant", "content": [{{"type": {HUGE}}}]}}',
        # An error event whose message is one (its stream's cut says it).
        f'{{"type": "error", "error": {{"type": "overloaded_error", "message": {HUGE}}}}}',
        # A Responses object cut short for such a reason.
        f'{{"object": "response", "status": "incomplete", "incomplete_details": {{"reason": '
        f'{HUGE}}}, "output": [{{"type": "function_call", "name": "t", "arguments": "{{}}"}}]}}',
        # A Gemini result naming such a tool, which no call before it made.
        f'{{"contents": [{{"role": "user", "parts": [{{"functionResponse": {{"name": {HUGE}, '
        f'"response": {{}}}}}}]}}]}}',
    ],
    ids=[
        "responses-item-type",
        "anthropic-block-type",
        "stream-error-message",
        "responses-incomplete-reason",
        "gemini-orphan-result-name",
    ],
)
def test_a_record_holding_a_number_of_5000_digits_is_read_not_a_bug(line):
    # str() of it raised: each line was a "malformed:internal" row.
    rows, summary = audit(line.encode() + b"\n")
    # (A conversation's problem is a row with "problem" in place of "errors".)
    assert all("malformed:internal" not in row.get("errors", [row.get("problem")]) for row in rows)
    assert summary.record_errors.get("malformed:internal") is None


def test_every_output_words_an_id_and_a_model_of_5000_digits(tmp_path):
    # The HTML report stopped the run (exit 2) on such a model's group.
    log = tmp_path / "huge.jsonl"
    log.write_text(
        f'{{"id": {HUGE}, "name": "t", "arguments": {{"n": "x"}}}}\n'
        f'{{"id": "a", "model": {HUGE}, "name": "t", "arguments": {{"n": "x"}}}}\n'
    )
    schemas = tmp_path / "s.json"
    schemas.write_text(
        json.dumps({"t": {"parameters": {"properties": {"n": {"type": "integer"}}}}})
    )
    page = tmp_path / "report.html"
    for output in ("table", "markdown", "json"):
        result = cli(
            "audit", str(log), "-s", str(schemas), "--group-by", "model",
            "--format", output, "--html", str(page),
        )  # fmt: skip
        assert result.exit_code == 1, result.stderr
    assert "an integer of about 5,00" in page.read_text()  # (5,001: an estimate)
