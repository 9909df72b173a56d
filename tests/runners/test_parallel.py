"""--jobs N gives exactly the outputs of --jobs 1: report rows, order, summary (groups too)."""

from __future__ import annotations

import gzip
import io
import itertools
import multiprocessing
import shutil
from dataclasses import replace

import pytest

import toolaudit
from toolaudit.errors import NoSchemasError
from toolaudit.pipeline import AuditOptions
from toolaudit.pipeline.audit import Audit
from toolaudit.runners import AuditJob, RunHooks, parallel, pool, runner_for
from toolaudit.schemas import NO_SCHEMAS, load_schemas
from toolaudit.sources import Source

from ..conftest import FIXTURES, REPO, write_interleaved_streams

SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SAMPLE_SCHEMAS = load_schemas(str(REPO / "sample_logs" / "schemas.json"))


@pytest.fixture(autouse=True)
def _small_ranges(monkeypatch):
    # Cut even small test files into many ranges, so that every boundary case is met.
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 2048)


def outputs(paths, schemas, jobs, notices=None, **options):
    report = io.BytesIO()
    job = AuditJob([Source(str(p)) for p in paths], schemas, AuditOptions(**options))
    hooks = RunHooks(notify=(notices if notices is not None else []).append)
    summary = runner_for(jobs=jobs).run(job, report, hooks)
    return report.getvalue(), summary.to_dict()


def test_a_file_cut_in_ranges_gives_the_report_and_summary_of_one_process():
    assert len(parallel.plan_parts([Source(str(SAMPLE))], 2)) > 4
    one = outputs([SAMPLE], SAMPLE_SCHEMAS, 1)
    assert outputs([SAMPLE], SAMPLE_SCHEMAS, 2) == one
    assert outputs([SAMPLE], SAMPLE_SCHEMAS, 3, errors_only=True) == outputs(
        [SAMPLE], SAMPLE_SCHEMAS, 1, errors_only=True
    )


def test_an_input_given_twice_is_two_inputs_as_in_one_process(tmp_path):
    # Once merged by path into one source of twice the lines, and the second copy's
    # rows numbered on from the first copy's last line.
    small = tmp_path / "small.jsonl"
    small.write_bytes(b"\n".join(SAMPLE.read_bytes().splitlines()[:8]) + b"\n")
    paths = [SAMPLE, SAMPLE, small, small]
    one = outputs(paths, SAMPLE_SCHEMAS, 1)
    assert [s["path"] for s in one[1]["sources"]] == [str(p) for p in paths]
    assert outputs(paths, SAMPLE_SCHEMAS, 2) == one


def summary_alone(paths, schemas, jobs, **options):
    job = AuditJob([Source(str(p)) for p in paths], schemas, AuditOptions(**options))
    return runner_for(jobs=jobs).run(job).to_dict()


@pytest.mark.parametrize(
    "options",
    [{}, {"errors_only": True}, {"group_by": ("model",)}],
    ids=["all-rows", "errors-only", "group-by"],
)
def test_a_summary_alone_needs_no_count_of_the_ranges(tmp_path, monkeypatch, options):
    # The failing calls of "late" are in its last ranges only: its samples' lines are
    # numbered after the lines of the ranges before them, as one process numbers them.
    late = tmp_path / "late.jsonl"
    ok, failing = SAMPLE.read_bytes().splitlines()[0], b'{"name": "get_weather", "arguments": {}}'
    late.write_bytes(b"\n".join([ok] * 200 + [failing] * 30) + b"\n")
    paths = [late, SAMPLE]
    one = summary_alone(paths, SAMPLE_SCHEMAS, 1, **options)
    assert [row["line"] for row in one["samples"]] == list(range(201, 221))

    def counted(pool, parts):
        raise AssertionError("a summary alone counted the ranges' lines")

    monkeypatch.setattr(parallel, "_newlines", counted)
    assert summary_alone(paths, SAMPLE_SCHEMAS, 2, **options) == one
    with pytest.raises(AssertionError, match="counted"):
        outputs(paths, SAMPLE_SCHEMAS, 2, **options)  # a report counts them


_AUDIT_PART = parallel.audit_part


def _cut_off(result):
    status = replace(result.summary.sources[0], complete=False, error="cut")
    return replace(result, summary=replace(result.summary, complete=False, sources=[status]))


def _cut_off_after_the_first_range(task):
    """In a worker: a range's audit, as if the reading of every range but the first had
    stopped before its end."""
    result = _AUDIT_PART(task)
    return _cut_off(result) if task.source.start > 0 else result


def _cut_off_in_the_first_range(task):
    result = _AUDIT_PART(task)
    return _cut_off(result) if task.source.start == 0 else result


def test_a_range_read_only_in_part_has_the_audit_done_again_in_one_process(tmp_path, monkeypatch):
    # Its status would say where its reading stopped by a line numbered from 1.
    monkeypatch.setattr(parallel, "audit_part", _cut_off_after_the_first_range)
    again = []
    monkeypatch.setattr(parallel._OneProcess, "run", lambda self: again.append(self))
    job = AuditJob([Source(str(SAMPLE))], SAMPLE_SCHEMAS)
    parallel.ParallelRunner(2).run(job)
    assert len(again) == 1
    parallel.ParallelRunner(2).run(job, io.BytesIO())  # numbered: its own lines say where
    assert len(again) == 1
    # A first range (or a whole input, a truncated gzip say) is numbered from its line 1.
    monkeypatch.setattr(parallel, "audit_part", _cut_off_in_the_first_range)
    assert parallel.ParallelRunner(2).run(job).sources[0].error == "cut"
    assert len(again) == 1


def test_ranges_start_at_line_starts_and_cover_the_file_once():
    parts = parallel.plan_parts([Source(str(SAMPLE))], 2)
    data = SAMPLE.read_bytes()
    assert parts[0].start == 0 and parts[-1].end == len(data)
    for before, after in itertools.pairwise(parts):
        assert before.end == after.start and data[after.start - 1 : after.start] == b"\n"
    numbered = parallel._number_lines(parts, [parallel._count_newlines(p) for p in parts])
    for part in numbered:
        assert part.first_line == data[: part.start].count(b"\n") + 1


def test_each_range_is_numbered_from_the_newlines_before_it_not_counting_a_files_last(
    tmp_path,
):
    copy = tmp_path / "c.jsonl"
    shutil.copy(SAMPLE, copy)
    parts = parallel.plan_parts([Source(str(SAMPLE)), Source(str(copy))], 2)
    counted = []

    class Pool:  # counts in this process, noting what it was asked to count
        def map(self, count, ranges):
            counted.extend(ranges)
            return [count(part) for part in ranges]

    numbered = parallel._number_lines(parts, parallel._newlines(Pool(), parts))
    following = [*parts[1:], None]
    lasts = [
        p for p, after in zip(parts, following, strict=True) if not after or after.name != p.name
    ]
    assert len(lasts) == 2 and not set(counted) & set(lasts)
    assert len(counted) == len(parts) - 2
    data = SAMPLE.read_bytes()
    for part in numbered:
        assert part.first_line == data[: part.start].count(b"\n") + 1


def test_several_files_gzip_and_a_last_line_without_newline(tmp_path):
    plain = tmp_path / "a.jsonl"
    plain.write_bytes(SAMPLE.read_bytes().rstrip(b"\n"))  # no final newline
    packed = tmp_path / "b.jsonl.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    copy = tmp_path / "c.jsonl"
    shutil.copy(SAMPLE, copy)
    paths = [plain, packed, copy]
    assert outputs(paths, SAMPLE_SCHEMAS, 2) == outputs(paths, SAMPLE_SCHEMAS, 1)


def test_records_that_define_tools_for_later_records_are_audited_in_one_process(tmp_path):
    # An MCP tools/list result must judge the calls after it, even in another range.
    log = tmp_path / "mcp.jsonl"
    lines = (FIXTURES / "formats" / "mcp.jsonl").read_text().splitlines()
    log.write_text("\n".join(lines[:3] + lines[3:] * 200) + "\n")
    schemas = load_schemas(str(FIXTURES / "formats" / "schemas.json"))
    assert len(parallel.plan_parts([Source(str(log))], 2)) > 2
    notices: list[str] = []
    assert outputs([log], schemas, 2, notices) == outputs([log], schemas, 1)
    assert notices == [
        f"--jobs 2: audited again in one process: {log} defines tools for the records after "
        "them (an MCP tools/list result or a batch input line)"
    ]


def test_a_file_of_streamed_responses_is_audited_in_one_process(tmp_path):
    # A stream's chunks may straddle any cut: interleaved streams across the whole file.
    log = tmp_path / "chunks.jsonl"
    write_interleaved_streams(log, 300)
    schemas = load_schemas(str(REPO / "sample_logs" / "schemas.json"))
    assert len(parallel.plan_parts([Source(str(log))], 2)) > 2
    notices: list[str] = []
    report, summary = outputs([log], schemas, 2, notices)
    assert (report, summary) == outputs([log], schemas, 1)
    assert summary["streams"] == 300 and summary["calls"] == 300
    assert notices == [
        f"--jobs 2: audited again in one process: {log} holds streamed responses, whose "
        "chunks may run on past any cut"
    ]


def test_a_run_that_stops_stops_with_the_message_of_one_process(tmp_path):
    log = tmp_path / "log.jsonl"
    chat = (FIXTURES / "formats" / "openai_chat.jsonl").read_text().splitlines()[2]
    log.write_text("\n".join([chat] * 300) + "\n")
    for jobs in (1, 2):
        with pytest.raises(NoSchemasError, match=r"log.jsonl:1: no tool schemas"):
            runner_for(jobs=jobs).run(AuditJob([Source(str(log))], NO_SCHEMAS))


def test_a_pool_left_on_an_error_lets_its_workers_end_unkilled(tmp_path):
    # A worker killed while it sends a result holds the results' lock for ever, and
    # the pool's ending then hangs (a CI run did). Leaving on an error asks instead.
    log = tmp_path / "log.jsonl"
    chat = (FIXTURES / "formats" / "openai_chat.jsonl").read_text().splitlines()[2]
    log.write_text("\n".join([chat] * 300) + "\n")
    job = AuditJob([Source(str(log))], NO_SCHEMAS)
    tasks = [pool.PartTask(part, None) for part in parallel.plan_parts(list(job.sources), 2)]
    assert len(tasks) > 4
    before = set(multiprocessing.active_children())
    with pytest.raises(NoSchemasError), pool.worker_pool(2, job) as workers:
        started = set(multiprocessing.active_children()) - before
        for _ in workers.imap(pool.audit_part, tasks):
            pass
    assert len(started) == 2
    assert [worker.exitcode for worker in started] == [0, 0]  # not -SIGTERM


def test_a_range_not_begun_when_its_pool_ends_is_given_up(tmp_path):
    # A worker's audit looks at the pool's event between batches and gives its range up.
    ending = multiprocessing.Event()
    stop = pool.StopWhenAsked(ending)
    log = tmp_path / "log.jsonl"
    log.write_bytes(SAMPLE.read_bytes() * 3)
    source = Source(str(log))
    assert Audit([source], SAMPLE_SCHEMAS, AuditOptions(), stop=stop).run().lines == 3 * 365
    ending.set()
    with pytest.raises(pool.RangeAbandoned):
        Audit([source], SAMPLE_SCHEMAS, AuditOptions(), stop=stop).run()


def test_jobs_zero_means_one_per_core():
    assert parallel.job_count(0) >= 1
    assert parallel.job_count(3) == 3


def test_the_cli_gives_identical_files_with_jobs(tmp_path, in_repo):
    from typer.testing import CliRunner

    from toolaudit.cli import app

    results = {}
    for jobs in ("1", "2", "0"):
        report, summary = tmp_path / f"r{jobs}.jsonl", tmp_path / f"s{jobs}.json"
        result = CliRunner().invoke(
            app,
            [
                "audit",
                "sample_logs/calls.jsonl",
                "-s",
                "sample_logs/schemas.json",
                "--jobs",
                jobs,
                "-r",
                str(report),
                "--summary",
                str(summary),
            ],
        )
        assert result.exit_code == 1
        results[jobs] = (report.read_bytes(), summary.read_bytes(), result.stdout)
    assert results["1"] == results["2"] == results["0"]


def test_the_library_sees_the_same_summary(in_repo, tmp_path):
    whole = "sample_logs/calls.jsonl"
    two = toolaudit.run_audit(
        [whole], "sample_logs/schemas.json", jobs=2, report=str(tmp_path / "r2.jsonl")
    )
    one = toolaudit.run_audit(
        [whole], "sample_logs/schemas.json", report=str(tmp_path / "r1.jsonl")
    )
    assert two == one == toolaudit.audit([whole], "sample_logs/schemas.json").run()
    assert (tmp_path / "r2.jsonl").read_bytes() == (tmp_path / "r1.jsonl").read_bytes()


def test_a_run_kept_in_one_process_says_why(tmp_path):
    packed = tmp_path / "calls.jsonl.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    notices: list[str] = []
    outputs([packed], SAMPLE_SCHEMAS, 2, notices)
    assert notices == [
        f"--jobs 2: audited in one process: {packed} is gzip, which cannot be entered in the middle"
    ]
    with pytest.warns(RuntimeWarning, match="standard input is read as it comes"):
        runner_for(jobs=2).run(
            AuditJob([Source("-")], SAMPLE_SCHEMAS), None, RunHooks(stdin=io.BytesIO(b""))
        )
    notices.clear()
    outputs([SAMPLE], SAMPLE_SCHEMAS, 2, notices)
    assert notices == []  # cut into ranges: nothing to say


def test_jobs_give_the_same_grouped_summary(in_repo, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 2048)
    schemas = SAMPLE_SCHEMAS
    one = Audit([Source(str(SAMPLE))], schemas, AuditOptions(group_by=("model",))).run()
    two = runner_for(jobs=2).run(
        AuditJob([Source(str(SAMPLE))], schemas, AuditOptions(group_by=("model",)))
    )
    assert one.to_dict() == two.to_dict()
