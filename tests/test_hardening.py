"""Bad input, hostile content: the audit finishes, accounts for every line, and tells the truth."""

from __future__ import annotations

import io
import json

import orjson
import pytest

from toolaudit.auditor import Audit, AuditOptions
from toolaudit.jsonutil import dumps_any
from toolaudit.schemas import schema_set
from toolaudit.sources import Source

from .test_auditor import assert_counts_add_up

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
    assert [json.loads(line) for line in report.getvalue().splitlines()] == [json.loads(dumps_any(row)) for row in rows]
    return rows, run.summary


def errors(rows):
    return [(row["line"], row["errors"]) for row in rows]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"name": "t"}\r\n{"name": "t", "arguments": {"n": 1}}\r\n', [(1, []), (2, [])]),  # CRLF
        (b'\xef\xbb\xbf{"name": "t"}\n', [(1, [])]),  # a BOM at the start of the file
        (b'{"name": "t"}\n\xef\xbb\xbf{"name": "t"}\n', [(1, []), (2, [])]),  # or where files were concatenated
        (b'{"name": "t", "arguments": {"s": "caf\xe9"}}\n', [(1, ["malformed:json"])]),  # invalid UTF-8 (latin-1)
        (b'{"name": "t", "arguments": {"s": "a\x00b"}}\n', [(1, ["malformed:json"])]),  # a raw NUL in a string
        (b'{"name": "t", "arguments": {"s": "a\\u0000b"}}\n', [(1, [])]),  # an escaped NUL is fine
        (b'{"name": "t", "arguments": {"n": "x", "n": 2}}\n', [(1, [])]),  # duplicate keys: the last wins
        (b'{"name": "t"}\n{"name": "t", "argu', [(1, []), (2, ["malformed:json"])]),  # truncated last line
        (b'{"name": "t"}\n  \t \n\n', [(1, [])]),  # blank and whitespace-only lines
    ],
)
def test_dirty_lines(data, expected):
    rows, summary = audit(data)
    assert errors(rows) == expected


def test_blank_lines_are_counted():
    rows, summary = audit(b'{"name": "t"}\n  \t \n\n\r\n')
    assert (summary.lines, summary.blank_lines, summary.records) == (4, 3, 1)


def test_lone_surrogate_escapes_are_valid_json_and_are_audited_and_written_exactly():
    data = b'{"name": "t", "arguments": {"s": "\\ud800", "\\udfff": 1}}\n'
    rows, _ = audit(data)
    assert rows[0]["errors"] == ["unexpected:\udfff"]
    report = io.BytesIO()
    Audit([Source("-")], SCHEMAS, stdin=io.BytesIO(data)).run(report)
    assert b'"unexpected:\\udfff"' in report.getvalue()  # escaped: exact, and valid UTF-8


def test_numbers_beyond_a_double_are_numbers():
    rows, _ = audit(b'{"name": "t", "arguments": {"x": 1e400}}\n{"name": "t", "arguments": {"n": 1e400}}\n')
    assert errors(rows) == [(1, []), (2, ["type:n"])]


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
    rows, _ = audit(b'{"name": "t", "arguments": {"x": NaN}}\n{"name": "t", "arguments": {"x": Infinity}}\n')
    assert errors(rows) == [(1, ["malformed:json"]), (2, ["malformed:json"])]


def test_rows_with_non_finite_ids_are_still_valid_json():
    rows, _ = audit(b'{"id": 1e400, "name": "t", "arguments": {"s": "\\ud800"}}\n')
    report = io.BytesIO()
    Audit([Source("-")], SCHEMAS, stdin=io.BytesIO(b'{"id": 1e400, "name": "t", "arguments": {"s": "\\ud800"}}\n')).run(report)
    assert json.loads(report.getvalue()) ["id"] is None


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
