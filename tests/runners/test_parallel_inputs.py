"""--jobs reads every input one process reads: standard input beside files (read once,
by the parent, for the worker that audits it), and inputs a walk could not read."""

from __future__ import annotations

import io
import os

import pytest

from toolaudit.pipeline import AuditOptions
from toolaudit.runners import AuditJob, RunHooks, parallel, runner_for
from toolaudit.runners.blocks import File, plan_files
from toolaudit.schemas import load_schemas
from toolaudit.sources import Source, expand_paths

from ..conftest import FIXTURES, REPO

SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SAMPLE_SCHEMAS = load_schemas(str(REPO / "sample_logs" / "schemas.json"))


@pytest.fixture(autouse=True)
def _small_ranges(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 2048)


def outputs(sources, schemas, jobs, stdin: bytes | None, notices=None):
    report = io.BytesIO()
    hooks = RunHooks(
        notify=(notices if notices is not None else []).append,
        stdin=None if stdin is None else io.BytesIO(stdin),
    )
    summary = runner_for(jobs=jobs).run(AuditJob(sources, schemas, AuditOptions()), report, hooks)
    return report.getvalue(), summary.to_dict()


def test_stdin_beside_files_is_read_as_one_process_reads_it():
    sent = b"".join(SAMPLE.read_bytes().splitlines(keepends=True)[:40])
    sources = [Source(str(SAMPLE)), Source("-"), Source(str(SAMPLE))]
    one = outputs(sources, SAMPLE_SCHEMAS, 1, sent)
    assert one[1]["sources"][1] == {"path": "-", "lines": 40, "complete": True}
    assert outputs(sources, SAMPLE_SCHEMAS, 2, sent) == one


def test_stdin_audited_again_in_one_process_is_read_from_its_copy():
    # An MCP tools/list result on stdin sends the audit back to one process, which
    # must not find stdin empty the second time.
    sent = (FIXTURES / "formats" / "mcp.jsonl").read_bytes()
    schemas = load_schemas(str(FIXTURES / "formats" / "schemas.json"))
    sources = [Source("-"), Source(str(FIXTURES / "formats" / "mcp.jsonl"))]
    notices: list[str] = []
    two = outputs(sources, schemas, 2, sent, notices)
    assert notices and "audited again in one process: - defines tools" in notices[0]
    assert two == outputs(sources, schemas, 1, sent)
    assert two[1]["sources"][0]["lines"] == len(sent.splitlines())


def test_a_closed_stdin_is_an_input_that_cannot_be_read(monkeypatch):
    monkeypatch.setattr("sys.stdin", None)
    sources = [Source("-"), Source(str(SAMPLE))]
    one, two = (outputs(sources, SAMPLE_SCHEMAS, jobs, None) for jobs in (1, 2))
    assert two == one
    assert one[1]["sources"][0] == {
        "path": "-",
        "lines": 0,
        "complete": False,
        "error": "-: standard input is closed: nothing to read",
    }


def test_a_dangling_link_in_a_walk_is_a_source_error_in_every_runner(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(SAMPLE.read_bytes())
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    sources = expand_paths([str(tmp_path)])
    notices: list[str] = []
    one = outputs(sources, SAMPLE_SCHEMAS, 1, None)
    assert outputs(sources, SAMPLE_SCHEMAS, 2, None, notices) == one
    assert one[1]["complete"] is False
    assert one[1]["sources"][1]["error"].startswith(f"{tmp_path / 'b.jsonl'}: a dangling")
    assert outputs(sources[1:], SAMPLE_SCHEMAS, 2, None, notices) == outputs(
        sources[1:], SAMPLE_SCHEMAS, 1, None
    )
    assert notices == [f"--jobs 2: audited in one process: {tmp_path / 'b.jsonl'} cannot be read"]


def test_a_dask_plan_keeps_an_input_that_cannot_be_read_for_its_task_to_report(tmp_path):
    # Planned whole, with no size, not refused as missing: its task says why, as one
    # process would.
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    [source] = expand_paths([str(tmp_path)])
    assert plan_files([source], 1024) == [File(source, 0)]


def test_a_file_that_cannot_be_opened_is_planned_whole_and_said_so(tmp_path, monkeypatch):
    # (As root every file opens: the refusal is simulated.)
    log = tmp_path / "big.jsonl"
    log.write_bytes(SAMPLE.read_bytes())

    def refuse(path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(parallel, "is_gzip", refuse)
    assert parallel.plan_parts([Source(str(log))], 2) == [Source(str(log))]
    notices: list[str] = []
    outputs([Source(str(log))], SAMPLE_SCHEMAS, 2, None, notices)
    assert notices == [
        f"--jobs 2: audited in one process: {log} cannot be read (Permission denied)"
    ]


def test_a_named_pipe_alone_is_read_as_it_comes_not_opened_to_plan(tmp_path):
    fifo = tmp_path / "calls.jsonl"
    os.mkfifo(fifo)
    pipe = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # (Linux) a reader and a writer, at once
    try:
        os.write(pipe, b"{}\n")
        assert parallel._why_whole(Source(str(fifo))) == (
            f"{fifo} is not a plain file: it is read as it comes"
        )
        assert os.read(pipe, 16) == b"{}\n"  # nothing taken from the pipe to plan
    finally:
        os.close(pipe)
