"""Stopping an audit: a stop asked for mid-batch is raised at the batch's end, in step.

As the CLI's signal handler does on Ctrl-C or SIGTERM (its real processes are in
tests/cli/test_signals_and_outputs.py), without a process or a signal.
"""

from __future__ import annotations

import io
import json

import orjson
import pytest

from toolaudit.pipeline import inline_reader
from toolaudit.pipeline.audit import Audit
from toolaudit.pipeline.recorder import Recorder
from toolaudit.schemas.loading import load_schemas
from toolaudit.sources import Source

from ..conftest import REPO

SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SCHEMAS = str(REPO / "sample_logs" / "schemas.json")


def test_an_interruption_mid_batch_stops_at_its_end_with_rows_and_counts_in_step(monkeypatch):
    data = SAMPLE.read_bytes()
    run = Audit([Source("-")], load_schemas(SCHEMAS), stdin=io.BytesIO(data))
    parsed = 0

    def loads_and_signal(line):
        nonlocal parsed
        parsed += 1
        if parsed == 200:  # as the CLI's signal handler would, mid-batch
            run.request_stop(KeyboardInterrupt)
        return orjson.loads(line)

    monkeypatch.setattr(inline_reader, "_loads", loads_and_signal)
    report = io.BytesIO()
    with pytest.raises(KeyboardInterrupt):
        run.run(report)
    rows = [json.loads(line) for line in report.getvalue().splitlines()]
    summary = run.summary
    assert summary is not None and summary.complete is False
    # The batch in progress was finished: every line read is counted, and reported.
    assert 200 <= summary.lines < len(data.splitlines())
    non_blank = {
        n for n, line in enumerate(data.splitlines()[: summary.lines], start=1) if line.strip()
    }
    assert {row["line"] for row in rows} == non_blank
    assert summary.calls + summary.malformed_records == len(rows)
    assert summary.lines == summary.blank_lines + summary.records


def test_an_interruption_inside_the_typed_path_counts_the_lines_it_read(monkeypatch):
    # An interruption no signal handler deferred (a library user's Ctrl-C) may come while
    # the typed path reads a run of lines: they are counted as read up to its line.
    from .test_typed_path import call, line_of, openai_chat

    schemas = load_schemas(
        str(REPO / "tests" / "cases" / "formats" / "openai-chat" / "schemas.json")
    )
    [name] = list(schemas.validator.tools)[:1]
    data = b"".join(
        line_of(openai_chat([call(name, {"no such parameter": n})])) + b"\n" for n in range(50)
    )
    run = Audit([Source("-")], schemas, stdin=io.BytesIO(data))
    counted = 0
    count_calls = Recorder.calls

    def count_then_interrupt(self, *args):
        nonlocal counted
        counted += 1
        if counted == 10:  # on line 10: lines 2 to 9 were the typed path's
            raise KeyboardInterrupt
        count_calls(self, *args)

    monkeypatch.setattr(Recorder, "calls", count_then_interrupt)
    report = io.BytesIO()
    with pytest.raises(KeyboardInterrupt):
        run.run(report)
    summary = run.summary
    assert summary is not None and run.fast_paths is not None
    assert run.fast_paths.typed is not None
    assert summary.lines == 10 and summary.sources[0].error == "interrupted after line 10"
    assert summary.calls == len(report.getvalue().splitlines()) == 9


def test_a_second_stop_during_one_batch_stops_at_once_with_counts_in_step(monkeypatch):
    data = SAMPLE.read_bytes()
    run = Audit([Source("-")], load_schemas(SCHEMAS), stdin=io.BytesIO(data))
    run.typed_fast_path = False  # the inline reader parses each line with _loads
    parsed = 0

    def loads_and_signal_twice(line):
        nonlocal parsed
        parsed += 1
        if parsed in (50, 60):  # a second Ctrl-C, ten lines after the first
            run.request_stop(KeyboardInterrupt)
        return orjson.loads(line)

    monkeypatch.setattr(inline_reader, "_loads", loads_and_signal_twice)
    report = io.BytesIO()
    with pytest.raises(KeyboardInterrupt):
        run.run(report)
    summary = run.summary
    assert summary is not None and summary.complete is False
    assert summary.lines == 60  # stopped on the line it was reading, not at the batch's end
    assert summary.lines == summary.blank_lines + summary.records
    rows = report.getvalue().splitlines()
    assert summary.calls + summary.malformed_records == len(rows)
