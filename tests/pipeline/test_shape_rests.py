"""A typed shape that refuses line after line rests: its format's next records go to the
general path without a decode thrown away, and the audit gives the same rows and summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import toolaudit
from toolaudit.pipeline import Audit, typed_reader
from toolaudit.pipeline.shape_rests import FIRST_REST, REFUSED_IN_A_ROW, ShapeRests


def refused(rests: ShapeRests, times: int) -> None:
    for _ in range(times):
        rests.tried("openai", took=False)


def resting_for(rests: ShapeRests) -> int:
    """How many records in a row the shape now rests for."""
    count = 0
    while rests.resting("openai"):
        count += 1
    return count


def test_a_shape_rests_after_refusing_line_after_line_and_longer_each_time():
    rests = ShapeRests()
    refused(rests, REFUSED_IN_A_ROW - 1)
    assert resting_for(rests) == 0
    refused(rests, 1)
    assert resting_for(rests) == FIRST_REST
    refused(rests, 1)  # refused again at once after its rest
    assert resting_for(rests) == 2 * FIRST_REST
    assert not rests.resting("anthropic")  # each format apart


def test_a_line_taken_ends_the_count():
    rests = ShapeRests()
    refused(rests, REFUSED_IN_A_ROW - 1)
    rests.tried("openai", took=True)
    refused(rests, REFUSED_IN_A_ROW - 1)
    assert resting_for(rests) == 0
    refused(rests, 1)
    assert resting_for(rests) == FIRST_REST  # the first rest's length again


def pairs(tmp_path: Path, lines: int) -> Path:
    """Request/response pairs whose response no typed shape reads (no id, no object, no
    finish reason): the general path reads every one."""
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    log = tmp_path / "pairs.jsonl"
    with log.open("wb") as out:
        for number in range(lines):
            call = {"id": f"c{number}", "type": "function", "function": {"name": "f"}}
            call["function"]["arguments"] = "{}" if number % 3 else "{"
            message = {"role": "assistant", "tool_calls": [call]}
            request = {
                "model": "m",
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [tool],
            }
            record = {"request": request, "response": {"choices": [{"message": message}]}}
            out.write(orjson.dumps(record) + b"\n")
    return log


def audited(log: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    run = toolaudit.audit([str(log)], None, conversations=False)
    rows = list(run)
    assert run.summary is not None
    return rows, run.summary.to_dict()


def test_a_log_the_typed_shape_refuses_is_tried_rarely_and_read_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    log = pairs(tmp_path, 2000)
    tries: list[int] = []
    read_lines = typed_reader.TypedReader._read_lines

    def counted(self: Any, shape: Any, lines: list[bytes], start: int, *rest: Any) -> int:
        end = read_lines(self, shape, lines, start, *rest)
        tries.append(end - start)
        return end

    monkeypatch.setattr(typed_reader.TypedReader, "_read_lines", counted)
    typed = audited(log)
    assert tries and not any(tries)  # tried, and never took a line
    assert len(tries) < 2000 / 10
    monkeypatch.setattr(Audit, "typed_fast_path", False)
    assert audited(log) == typed
    assert typed[1]["invalid"] > 0
