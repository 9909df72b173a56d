"""A number past the range read exactly (``-1e-20000``, which orjson reads as -0.0 without a
word) anywhere in a line makes the line ``malformed:json`` ("not audited"), as
docs/guarantees.md's limits say, on every reader alike: the typed, flat typed and inline
readers once read such lines as valid calls (its id -0.0) where the general reader, their
reference, refuses them."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source

SCHEMAS = schema_set(
    {"get": {"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
)
CALL = {"id": "c1", "type": "function", "function": {"name": "get", "arguments": '{"city": "x"}'}}
CHAT = {
    "id": "r",
    "object": "chat.completion",
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": None, "tool_calls": [CALL]},
            "finish_reason": "tool_calls",
        }
    ],
}
#: Each record, with where the number goes (a key of its own, outside the calls).
RECORDS: dict[str, dict[str, Any]] = {
    "flat": {"name": "get", "arguments": {"city": "x"}, "id": "<N>"},
    "chat": {**CHAT, "usage": {"total_tokens": "<N>"}},
    "pair": {
        "request": {"model": "m", "messages": [{"role": "user", "content": "hi"}], "n": "<N>"},
        "response": CHAT,
    },
}
BEYOND = "not audited: the number -1e-20000 is beyond 1e±10000, the range read exactly"


def rows(log: bytes, *, typed: bool, inline: bool, **options: Any) -> list[dict[str, Any]]:
    run = Audit([Source("-")], SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(log))
    run.typed_fast_path = typed
    run.inline_fast_path = inline
    report = io.BytesIO()
    run.run(report)
    return [orjson.loads(line) for line in report.getvalue().splitlines()]


@pytest.mark.parametrize("conversations", [True, False])
@pytest.mark.parametrize("record", sorted(RECORDS))
def test_every_reader_refuses_a_line_holding_a_number_past_the_exact_range(
    record: str, conversations: bool
) -> None:
    good = orjson.dumps(RECORDS[record]).replace(b'"<N>"', b"1")
    bad = orjson.dumps(RECORDS[record]).replace(b'"<N>"', b"-1e-20000")
    log = b"\n".join([good] * 40 + [bad] + [good] * 3) + b"\n"
    general = rows(log, typed=False, inline=False, conversations=conversations)
    [refused] = [row for row in general if not row["ok"]]
    assert refused["line"] == 41 and refused["errors"] == ["malformed:json"]
    assert refused["detail"] == BEYOND
    for typed, inline in ((True, True), (True, False), (False, True)):
        assert rows(log, typed=typed, inline=inline, conversations=conversations) == general


@pytest.mark.parametrize("record", sorted(RECORDS))
def test_a_number_below_a_doubles_range_but_read_exactly_changes_nothing(record: str) -> None:
    good = orjson.dumps(RECORDS[record]).replace(b'"<N>"', b"1")
    tiny = orjson.dumps(RECORDS[record]).replace(b'"<N>"', b"1e-400")
    log = b"\n".join([good] * 40 + [tiny] + [good] * 3) + b"\n"
    general = rows(log, typed=False, inline=False)
    assert all(row["ok"] for row in general) and len(general) == 44
    for typed, inline in ((True, True), (False, True)):
        assert rows(log, typed=typed, inline=inline) == general
