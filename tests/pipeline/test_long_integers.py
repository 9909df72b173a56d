"""An integer past 64 bits, which orjson reads as its float neighbour, neither passes nor
fails a call on that float: every reader judges such a line on the exact parse (the typed,
inline, stream and general paths alike, plain and deep)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import toolaudit
from toolaudit.pipeline import Audit

BIG = 2**64  # orjson reads 18446744073709551617 (BIG + 1) as the float 2.0**64 == BIG
ARGUMENTS = '{"p": 18446744073709551617}'
#: Where a record holds BIG + 1 as a JSON number (orjson cannot write it: it is put in the
#: line's text).
PLACE = "<BIG + 1>"


def chat_response() -> list[dict]:
    call = {"id": "c1", "type": "function", "function": {"name": "t", "arguments": ARGUMENTS}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return [{"id": "r", "object": "chat.completion", "model": "m", "choices": [choice]}]


def anthropic_response() -> list[dict]:
    use = {"type": "tool_use", "id": "c1", "name": "t", "input": {"p": PLACE}}
    return [{"type": "message", "role": "assistant", "model": "m", "content": [use]}]


def chat_chunks() -> list[dict]:
    start = {"index": 0, "id": "c1", "type": "function", "function": {"name": "t", "arguments": ""}}
    piece = {"index": 0, "function": {"arguments": ARGUMENTS}}
    chunks = []
    for delta, finish in (({"tool_calls": [start]}, None), ({"tool_calls": [piece]}, None)):
        chunk = {"id": "s", "object": "chat.completion.chunk", "model": "m"}
        chunks.append(chunk | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    end = {"id": "s", "object": "chat.completion.chunk", "model": "m"}
    chunks.append(end | {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return chunks


FLAT = [{"name": "t", "arguments": {"p": PLACE}}]
LOGS = {"flat": FLAT, "chat": chat_response(), "anthropic": anthropic_response()}
LOGS["chat chunks"] = chat_chunks()


def written(tmp_path: Path, records: list[dict], copies: int) -> str:
    """The records as lines, after ``copies`` valid flat calls (so that the fast paths
    have begun), BIG + 1 written where the records hold PLACE."""
    log = tmp_path / "log.jsonl"
    valid = orjson.dumps({"name": "t", "arguments": {"p": 1}}) + b"\n"
    text = b"".join(orjson.dumps(record) + b"\n" for record in records)
    log.write_bytes(valid * copies + text.replace(b'"<BIG + 1>"', b"18446744073709551617"))
    return str(log)


@pytest.mark.parametrize("typed", [True, False])
@pytest.mark.parametrize("copies", [0, 40])
@pytest.mark.parametrize("log", sorted(LOGS))
def test_an_enum_number_is_not_matched_by_the_float_neighbour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: str, copies: int, typed: bool
):
    monkeypatch.setattr(Audit, "typed_fast_path", typed)
    schemas = {"t": {"parameters": {"properties": {"p": {"enum": [1, BIG]}}}}}
    rows = list(toolaudit.audit([written(tmp_path, LOGS[log], copies)], schemas))
    assert [row["errors"] for row in rows if row["errors"]] == [["enum:p"]]


@pytest.mark.parametrize("log", sorted(LOGS))
def test_a_deep_maximum_is_not_met_by_the_float_neighbour(tmp_path: Path, log: str):
    schemas = {"t": {"parameters": {"properties": {"p": {"type": "integer", "maximum": BIG}}}}}
    rows = list(toolaudit.audit([written(tmp_path, LOGS[log], 40)], schemas, deep=True))
    assert [row["errors"] for row in rows if row["errors"]] == [["constraint:p"]]
