"""Shared by the whole suite: where things live, the sample audit, and checks many modules use.

Test modules in subfolders import from here with ``from ..conftest import ...``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

import toolaudit
from toolaudit.cli import app
from toolaudit.results.summary import Summary
from toolaudit.schemas.loading import schema_set

REPO = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = REPO / "sample_logs"
#: Expected outputs, byte for byte; TOOLAUDIT_UPDATE_GOLDEN=1 rewrites them.
GOLDEN = REPO / "tests" / "golden"
#: Inputs: logs of each format (formats/) and the BFCL corpus (bfcl/).
FIXTURES = REPO / "tests" / "fixtures"

#: The sample log and its schemas, relative to the repository root (see ``in_repo``).
SAMPLE = "sample_logs/calls.jsonl"
SAMPLE_SCHEMAS = "sample_logs/schemas.json"

#: A small schema set for audits of hand-written lines: one tool with parameters, one without.
WEATHER_SCHEMAS = schema_set(
    {
        "get_weather": {
            "parameters": {
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "units": {"type": "string", "enum": ["c", "f"]},
                },
                "required": ["city"],
            }
        },
        "ping": {},
    }
)


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, so that paths in outputs are the ones users see."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture(autouse=True)
def _pinned_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # Help and tables must not depend on the width of whoever runs the tests.
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TERM", "dumb")


def update_golden() -> bool:
    """TOOLAUDIT_UPDATE_GOLDEN=1 rewrites golden files instead of comparing."""
    return os.environ.get("TOOLAUDIT_UPDATE_GOLDEN") == "1"


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: harmless where it is missing
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """No workers under ``-n auto`` while golden files are rewritten: two tests rewrite
    blocks of one page (README.md's demo and help, say), each reading the page, replacing
    its block and writing the page back, and in two processes one would undo the other."""
    return 0 if update_golden() else None


def invoke(*args: str, input: bytes | str | None = None):
    """The command line, run in this process; an exception is raised, not caught."""
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def grouped(*fields: str, path: str = SAMPLE) -> Summary:
    """The summary of an audit of ``path`` (the sample by default), grouped by ``fields``."""
    return toolaudit.audit([path], SAMPLE_SCHEMAS, group_by=fields).run()


def rows_of(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def without_source(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "source"} for row in rows]


def assert_counts_add_up(summary: Summary) -> None:
    assert summary.lines == summary.blank_lines + summary.records
    assert summary.calls == summary.ok + summary.invalid
    assert summary.calls == sum(t.calls for t in summary.by_tool.values())
    assert summary.ok == sum(t.ok for t in summary.by_tool.values())
    assert summary.invalid == sum(t.invalid for t in summary.by_tool.values())
    for tool in summary.by_tool.values():
        assert tool.calls == tool.ok + tool.invalid
        assert tool.calls_in_text <= tool.invalid  # a call found in text never passes
    # Each record is malformed, holds no call, or holds calls (a stream's on its first line).
    assert summary.malformed_records + summary.records_without_calls <= summary.records
    assert summary.streams_incomplete <= summary.streams
    kinds: dict[str, int] = {}
    for tool in summary.by_tool.values():
        for kind, count in tool.by_kind.items():
            kinds[kind] = kinds.get(kind, 0) + count
    assert kinds == summary.by_kind
    if summary.sources:  # a group's summary has none
        assert summary.lines == sum(s.lines for s in summary.sources)


def write_interleaved_streams(path: Path, streams: int, open_at_once: int = 50) -> None:
    """A log of ``streams`` OpenAI chat streams (three chunks each) calling get_weather of
    the sample schemas, ``open_at_once`` of them interleaved: a cut anywhere splits some."""

    def chunk(n: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        record = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "choices": [choice]}
        return orjson.dumps(record) + b"\n"

    opening = {"index": 0, "id": "call", "function": {"name": "get_weather", "arguments": ""}}
    rest = {"index": 0, "function": {"arguments": '{"city": "Oslo"}'}}
    with path.open("wb") as out:
        for first in range(0, streams, open_at_once):
            batch = range(first, min(first + open_at_once, streams))
            out.writelines(chunk(n, {"tool_calls": [opening]}) for n in batch)
            out.writelines(chunk(n, {"tool_calls": [rest]}) for n in batch)
            out.writelines(chunk(n, {}, "tool_calls") for n in batch)
