"""A number past the range the exact parse reads (``1e999999``, ``100e9999``: beyond
1e±10000 once its mantissa's digits count) in a field a typed shape skips makes the line
``malformed:json`` on every typed reader, as on the general path: msgspec skips such a
number without a word, orjson and the exact parse refuse it. The typed readers once
counted the line (9 records, 0 malformed, where the general path had 1 malformed line).
For each typed format the report and the summary are the same bytes either way, and the
line is reported malformed with its file and line; numbers generated near the limits, in
fields the shapes skip, are read alike too."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.jsonutil import MAX_NUMBER_DIGITS, MAX_NUMBER_EXPONENT
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas import SchemaSet, load_schemas
from toolaudit.sources import Source

from ..conftest import REPO

CASES = REPO / "tests" / "cases" / "formats"

#: Each typed format's case, and the line of it the number is put in: a record the typed
#: path reads whole (on main it counted the line); a stream's line is read in its file.
LINES = {
    "openai-chat": 0,
    "openai-responses": 0,
    "anthropic": 0,
    "gemini": 0,
    "bedrock": 0,
    "flat": 2,
    "openai-chat-stream": 3,
    "anthropic-stream": 1,
    "openai-chat-request": 0,  # a request body logged alone
}
#: Numbers the exact parse refuses (past 1e±10000, or of more than 10,000 digits).
PAST = [
    "1e999999",
    "100e9999",
    "0.0001e-9997",
    "-1E+10001",
    "1" * 9_500 + "e999",
    "0." + "0" * 9_500 + "1e-999",
    "1" * 5_000 + "." + "1" * 5_001,
]


def with_number(line: bytes, number: str) -> bytes:
    """``line`` (a JSON object) with a key no shape reads, holding ``number``."""
    return line.rstrip()[:-1] + b',"x":' + number.encode() + b"}"


def log_of(case: str, number: str) -> tuple[bytes, int]:
    """A log of the case's line put among copies of itself (5 before, 3 after), the number
    in it, or the case's stream with it in one of its lines; and that line's number."""
    lines = (CASES / case / "input.jsonl").read_bytes().splitlines()
    at = LINES[case]
    bad = with_number(lines[at], number)
    if case.endswith("-stream"):
        return b"\n".join([*lines[:at], bad, *lines[at + 1 :]]) + b"\n", at + 1
    return b"\n".join([lines[at]] * 5 + [bad] + [lines[at]] * 3) + b"\n", 6


def schemas_of(case: str) -> SchemaSet:
    [schemas] = sorted((CASES / case).glob("schemas.json*"))
    return load_schemas(str(schemas))


def audited(log: Path | bytes, schemas: SchemaSet, *, typed: bool) -> tuple[bytes, bytes]:
    """The report's bytes and the summary's of a log file (or a log read from stdin), the
    typed path on or off."""
    if isinstance(log, Path):
        run = Audit([Source(str(log))], schemas, AuditOptions())
    else:
        run = Audit([Source("-")], schemas, AuditOptions(), stdin=io.BytesIO(log))
    run.typed_fast_path = typed
    report = io.BytesIO()
    summary = run.run(report)
    return report.getvalue(), orjson.dumps(summary.to_dict())


@pytest.mark.parametrize("number", PAST, ids=lambda number: number[:14])
@pytest.mark.parametrize("case", sorted(LINES))
def test_a_number_past_the_exact_range_in_a_skipped_field_is_malformed_either_way(
    case: str, number: str, tmp_path: Path
) -> None:
    log, lineno = log_of(case, number)
    path = tmp_path / "log.jsonl"
    path.write_bytes(log)
    schemas = schemas_of(case)
    general = audited(path, schemas, typed=False)
    assert audited(path, schemas, typed=True) == general
    rows = [orjson.loads(row) for row in general[0].splitlines()]
    [refused] = [row for row in rows if row["errors"] == ["malformed:json"]]
    assert (refused["source"], refused["line"]) == (str(path), lineno)
    assert refused["detail"].startswith("not audited: the number")
    assert orjson.loads(general[1])["record_errors"]["malformed:json"] == 1


def test_a_number_the_exact_parse_reads_changes_nothing(tmp_path: Path) -> None:
    # An exponent of four digits within the range (1e0400), or below a double's (1e-400):
    # read exactly by the general path, where the typed path leaves the line.
    for number in ("1e0400", "1e-400", "1e9999", "1" * 2_600):
        log, _ = log_of("openai-chat", number)
        schemas = schemas_of("openai-chat")
        general = audited(log, schemas, typed=False)
        assert audited(log, schemas, typed=True) == general
        assert "malformed:json" not in orjson.loads(general[1])["record_errors"]


def _number(integer: str, fraction: str, mark: str, sign: str, exponent: str) -> str:
    return integer + (f".{fraction}" if fraction else "") + mark + sign + exponent


#: Numbers near the limits: digits near MAX_NUMBER_DIGITS (or half of it, in the integer
#: part and the fraction each), exponents near MAX_NUMBER_EXPONENT (with leading zeros,
#: either sign), an integer part or zeros after the point that move the adjusted exponent.
DIGITS = st.one_of(
    st.integers(1, 4),
    st.integers(MAX_NUMBER_DIGITS // 2 - 3, MAX_NUMBER_DIGITS // 2 + 3),
    st.integers(MAX_NUMBER_DIGITS - 1_010, MAX_NUMBER_DIGITS - 990),
)
NUMBERS = st.builds(
    _number,
    st.builds(lambda count, first: first + "0" * (count - 1), DIGITS, st.sampled_from("19")),
    st.one_of(
        st.just(""),
        st.builds(lambda count, last: "0" * (count - 1) + last, DIGITS, st.sampled_from("15")),
    ),
    st.sampled_from("eE"),
    st.sampled_from(["", "+", "-"]),
    st.one_of(
        st.integers(0, 999).map(str),
        st.integers(MAX_NUMBER_EXPONENT - 1_005, MAX_NUMBER_EXPONENT + 5).map(str),
        st.integers(0, 20_000).map(lambda value: f"000{value}"),
        st.just("9" * 25),
    ),
)


@settings(max_examples=60, deadline=None)
@given(NUMBERS, st.sampled_from(["openai-chat", "flat", "anthropic", "openai-chat-stream"]))
def test_numbers_near_the_limits_in_skipped_fields_are_read_alike(number: str, case: str) -> None:
    log, _ = log_of(case, number)
    schemas = schemas_of(case)
    assert audited(log, schemas, typed=True) == audited(log, schemas, typed=False), number[:40]


@pytest.mark.parametrize("number", ["1e999999", "100e9999", "-1E+10001"])
def test_a_number_in_a_key_the_quick_chunk_takes_unread_is_malformed_either_way(
    number: str, tmp_path: Path
) -> None:
    # A chunk's "created" is taken unread by the quick record the C placer decodes with
    # (a line with another key is decoded in Python): its own check leaves the line.
    lines = (CASES / "openai-chat-stream" / "input.jsonl").read_bytes().splitlines()
    assert b'"created":1730000000' in lines[3]
    lines[3] = lines[3].replace(b'"created":1730000000', b'"created":' + number.encode())
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    schemas = schemas_of("openai-chat-stream")
    general = audited(path, schemas, typed=False)
    assert audited(path, schemas, typed=True) == general
    rows = [orjson.loads(row) for row in general[0].splitlines()]
    [refused] = [row for row in rows if row["errors"] == ["malformed:json"]]
    assert (refused["source"], refused["line"]) == (str(path), 4)
