"""--dask gives exactly the outputs of one process: summary (groups, deep mode too), and
report parts that concatenated by name are the one-process report, byte for byte.

A real cluster, started here on 127.0.0.1 with two worker processes that talk TCP, and
stopped at the end of the module. Blocks are made small, so that every file is cut
into several and every boundary case is met.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import socket
import sys

import distributed
import orjson
import pytest

import toolaudit
from toolaudit.errors import InputError, NoSchemasError, OptionError, SchemaError
from toolaudit.pipeline import AuditOptions
from toolaudit.results.summary import SAMPLE_ROWS
from toolaudit.runners import AuditJob, DaskRunner, Interrupted, RunHooks, SerialRunner
from toolaudit.runners import dask as dask_runner
from toolaudit.runners.cluster import LOCAL_HTTP_ADDRESS
from toolaudit.runners.dask import ClusterError, parse_blocksize
from toolaudit.schemas import NO_SCHEMAS, load_schemas, schema_set
from toolaudit.sources import Source
from toolaudit.truth.expectations import load_expectations

from ..conftest import FIXTURES, REPO, write_interleaved_streams

#: Each test starts a Dask cluster on 127.0.0.1: left out of `make quick`.
pytestmark = pytest.mark.slow

SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SCHEMAS = str(REPO / "sample_logs" / "schemas.json")
BLOCK = 4096


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=LOCAL_HTTP_ADDRESS,
    ) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """A plain log of several blocks, ending without a newline; a gzip log; another plain."""
    root = tmp_path_factory.mktemp("logs")
    data = SAMPLE.read_bytes()
    long = root / "long.jsonl"
    long.write_bytes((data * 3).rstrip(b"\n"))
    packed = root / "packed.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    short = root / "short.jsonl"
    short.write_bytes(data[: len(data) // 2 + 7])  # cut in the middle of a line
    return [str(long), str(packed), str(short)]


def one_process(paths, schemas, **options):
    """The report and the summary of one process: what every run here must give."""
    report = io.BytesIO()
    job = AuditJob([Source(p) for p in paths], schemas, AuditOptions(**options))
    summary = SerialRunner().run(job, report)
    return report.getvalue(), summary.to_dict()


def on_dask(client, paths, schemas, directory, notices=None, **options):
    """The parts concatenated by name, and the summary, of a run on the cluster."""
    job = AuditJob([Source(p) for p in paths], schemas, AuditOptions(**options))
    hooks = RunHooks(notify=(notices if notices is not None else []).append)
    summary = DaskRunner(client, blocksize=BLOCK, parts=str(directory)).run(job, None, hooks)
    return concatenated(directory), summary.to_dict()


def concatenated(directory):
    names = sorted(os.listdir(directory))
    assert names == [f"part-{i:05d}.jsonl" for i in range(len(names))]
    return b"".join((directory / name).read_bytes() for name in names)


@pytest.fixture(scope="module")
def sample_schemas():
    return load_schemas(SCHEMAS)


@pytest.mark.parametrize(
    "options",
    [{}, {"errors_only": True}, {"group_by": ("model",)}],
    ids=["all-rows", "errors-only", "group-by"],
)
def test_parts_and_summary_are_those_of_one_process(
    client, logs, sample_schemas, tmp_path, options
):
    expected = one_process(logs, sample_schemas, **options)
    got = on_dask(client, logs, sample_schemas, tmp_path / "report", **options)
    assert got == expected
    # The long file was cut into blocks, the gzip one was not: more parts than files.
    assert len(os.listdir(tmp_path / "report")) > len(logs) + 10


def test_a_report_stream_receives_the_rows_in_order(client, logs, sample_schemas):
    job = AuditJob([Source(p) for p in logs], sample_schemas)
    report = io.BytesIO()
    summary = DaskRunner(client, blocksize=BLOCK).run(job, report)
    assert (report.getvalue(), summary.to_dict()) == one_process(logs, sample_schemas)
    # No report at all: the workers keep no rows, the summary is the same.
    assert DaskRunner(client, blocksize=BLOCK).run(job).to_dict() == summary.to_dict()


class TaskNames(distributed.SchedulerPlugin):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def transition(self, key, start, finish, *args, **kwargs) -> None:
        self.names.add(str(key).rsplit("-", 2)[0])


@pytest.mark.parametrize("options", [{}, {"group_by": ("model",)}], ids=["plain", "group-by"])
def test_a_summary_alone_needs_no_count_of_the_blocks(
    client, cluster, logs, sample_schemas, tmp_path, options
):
    # The failing calls of "late" are in its last blocks only: its samples' lines are
    # numbered after the lines of the blocks before them, as one process numbers them.
    late = tmp_path / "late.jsonl"
    ok, failing = SAMPLE.read_bytes().splitlines()[0], b'{"name": "get_weather", "arguments": {}}'
    late.write_bytes(b"\n".join([ok] * 200 + [failing] * 30) + b"\n")
    paths = [str(late), *logs]
    names = TaskNames()
    cluster.scheduler.add_plugin(names, name="task-names")
    try:
        job = AuditJob([Source(p) for p in paths], sample_schemas, AuditOptions(**options))
        summary = DaskRunner(client, blocksize=BLOCK).run(job).to_dict()
    finally:
        cluster.scheduler.remove_plugin(name="task-names")
    expected = one_process(paths, sample_schemas, **options)[1]
    assert summary == expected
    assert [row["line"] for row in summary["samples"]] == list(range(201, 221))
    assert "toolaudit-block" in names.names and "toolaudit-count" not in names.names


def test_an_input_given_twice_is_two_inputs_as_in_one_process(
    client, logs, sample_schemas, tmp_path
):
    # Once merged by path into one source of twice the lines.
    paths = [logs[0], logs[0], logs[2], logs[2]]
    expected = one_process(paths, sample_schemas)
    assert [s["path"] for s in expected[1]["sources"]] == paths
    assert on_dask(client, paths, sample_schemas, tmp_path / "report") == expected
    job = AuditJob([Source(p) for p in paths], sample_schemas)
    assert DaskRunner(client, blocksize=BLOCK).run(job).to_dict() == expected[1]


def test_deep_mode_works_on_the_workers(client, tmp_path):
    # A pattern compiles to RE2 on each worker, from the definitions the schemas carry.
    schemas = {
        "book": {
            "parameters": {
                "type": "object",
                "properties": {
                    "guest": {
                        "type": "object",
                        "properties": {
                            "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
                            "age": {"type": "integer", "minimum": 18},
                        },
                        "required": ["code"],
                    },
                    "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}},
                },
            }
        }
    }
    lines = []
    for n in range(900):
        guest = {"code": "ABC-1" if n % 3 else "abc", "age": 30 if n % 5 else 12}
        tags = ["ok", "toolong"] if n % 7 == 0 else ["ok"]
        lines.append(orjson.dumps({"name": "book", "arguments": {"guest": guest, "tags": tags}}))
    log = tmp_path / "deep.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    deep = schema_set(schemas, deep=True)
    expected = one_process([str(log)], deep, deep=True)
    assert expected[1]["deep"] is True and expected[1]["invalid"] > 0
    assert on_dask(client, [str(log)], deep, tmp_path / "report", deep=True) == expected


def test_a_file_whose_records_define_tools_is_audited_whole_and_the_caller_told(client, tmp_path):
    log = tmp_path / "mcp.jsonl"
    lines = (FIXTURES / "formats" / "mcp.jsonl").read_text().splitlines()
    log.write_text("\n".join(lines[:3] + lines[3:] * 200) + "\n")
    assert log.stat().st_size > 8 * BLOCK
    schemas = load_schemas(str(FIXTURES / "formats" / "schemas.json"))
    notices: list[str] = []
    got = on_dask(client, [str(log)], schemas, tmp_path / "report", notices)
    assert got == one_process([str(log)], schemas)
    assert notices == [
        f"--dask: audited again, whole in one task: {log} defines tools for the records "
        "after them (an MCP tools/list result or a batch input line)"
    ]
    # Its blocks' parts are still there, empty but the first: the names stay contiguous.
    sizes = [
        os.path.getsize(tmp_path / "report" / n) for n in sorted(os.listdir(tmp_path / "report"))
    ]
    assert len(sizes) > 1 and sizes[0] > 0 and set(sizes[1:]) == {0}


def test_a_file_audited_again_whole_among_others_is_merged_again(client, logs, tmp_path):
    # The merge after the second audit once reused the first merge's task names, and
    # Dask gave back the first merge: the blocks audited apart were counted, not the
    # file audited whole.
    log = tmp_path / "mcp.jsonl"
    lines = (FIXTURES / "formats" / "mcp.jsonl").read_text().splitlines()
    log.write_text("\n".join(lines[:3] + lines[3:] * 200) + "\n")
    paths = [logs[0], str(log), logs[2]]
    schemas = load_schemas(str(FIXTURES / "formats" / "schemas.json"))
    expected = one_process(paths, schemas)
    notices: list[str] = []
    assert on_dask(client, paths, schemas, tmp_path / "report", notices) == expected
    job = AuditJob([Source(p) for p in paths], schemas)
    hooks = RunHooks(notify=notices.append)
    assert DaskRunner(client, blocksize=BLOCK).run(job, None, hooks).to_dict() == expected[1]
    assert len(notices) == 2 and notices[0] == notices[1] and str(log) in notices[0]


def test_a_file_of_streamed_responses_is_audited_whole_and_the_caller_told(client, tmp_path):
    log = tmp_path / "chunks.jsonl"
    write_interleaved_streams(log, 400)
    assert log.stat().st_size > 8 * BLOCK
    schemas = load_schemas(str(REPO / "sample_logs" / "schemas.json"))
    notices: list[str] = []
    got = on_dask(client, [str(log)], schemas, tmp_path / "report", notices)
    assert got == one_process([str(log)], schemas)
    assert got[1]["streams"] == 400
    assert notices == [
        f"--dask: audited again, whole in one task: {log} holds streamed responses, whose "
        "chunks may run on past any cut"
    ]


def test_blocks_without_the_tools_listed_before_them_are_not_an_error(client, tmp_path):
    # No --schemas: a block after the tools/list has nothing to judge its calls by, and
    # stops; the file audited whole judges them all, as one process does.
    log = tmp_path / "mcp.jsonl"
    lines = (FIXTURES / "formats" / "mcp.jsonl").read_text().splitlines()
    log.write_text("\n".join(lines[1:3] + lines[3:9] * 150) + "\n")
    expected = one_process([str(log)], NO_SCHEMAS)
    notices: list[str] = []
    assert on_dask(client, [str(log)], NO_SCHEMAS, tmp_path / "report", notices) == expected
    assert len(notices) == 1


def test_a_run_that_stops_stops_with_the_message_of_one_process(client, tmp_path):
    log = tmp_path / "log.jsonl"
    chat = (FIXTURES / "formats" / "openai_chat.jsonl").read_text().splitlines()[2]
    log.write_text("\n".join([chat] * 300) + "\n")
    job = AuditJob([Source(str(log))], NO_SCHEMAS)
    with pytest.raises(NoSchemasError, match=r"log.jsonl:1: no tool schemas"):
        SerialRunner().run(job)
    report = tmp_path / "report"
    with pytest.raises(NoSchemasError, match=r"log.jsonl:1: no tool schemas"):
        DaskRunner(client, blocksize=BLOCK, parts=str(report)).run(job)
    assert os.listdir(report) == []  # no part of a run that could not be done


def test_parts_left_by_a_longer_run_are_removed(client, logs, sample_schemas, tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (report / "part-99999.jsonl").write_bytes(b"stale\n")
    (report / "notes.txt").write_bytes(b"mine\n")
    job = AuditJob([Source(p) for p in logs[1:]], sample_schemas)
    summary = DaskRunner(client, blocksize=BLOCK, parts=str(report)).run(job)
    assert not (report / "part-99999.jsonl").exists()
    (report / "notes.txt").unlink()  # not a part: left alone
    assert (concatenated(report), summary.to_dict()) == one_process(logs[1:], sample_schemas)


class KillOnce(distributed.WorkerPlugin):
    """Kills the worker process that starts the fourth block's audit, the first time only
    (the marker file says it was done): a worker lost in the middle of a run, holding
    results of blocks already audited."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def transition(self, key, start, finish, **kwargs) -> None:
        name = str(key)
        if finish == "executing" and name.startswith("toolaudit-block-") and name.endswith("-3"):
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                return
            os._exit(1)


def test_a_worker_killed_mid_run_changes_nothing(client, logs, sample_schemas, tmp_path):
    marker = tmp_path / "killed"
    client.register_plugin(KillOnce(str(marker)), name="kill-once")
    try:
        got = on_dask(client, logs, sample_schemas, tmp_path / "report")
    finally:
        client.unregister_worker_plugin("kill-once")
    assert marker.exists()  # a worker did die
    assert got == one_process(logs, sample_schemas)
    client.wait_for_workers(2, timeout=30)


class Submissions(distributed.SchedulerPlugin):
    def __init__(self) -> None:
        self.graphs = 0

    def update_graph(self, scheduler, **kwargs) -> None:
        self.graphs += 1


@pytest.fixture
def submissions(cluster):
    plugin = Submissions()
    cluster.scheduler.add_plugin(plugin, name="submissions")
    yield plugin
    cluster.scheduler.remove_plugin(name="submissions")


def test_a_missing_input_or_a_schemas_defect_stops_before_anything_is_submitted(
    client, logs, submissions, tmp_path
):
    missing = str(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match=r"missing\.jsonl: no such file"):
        toolaudit.run_audit([logs[0], missing], SCHEMAS, dask=client)
    with pytest.raises(InputError, match=r"missing\.jsonl: no such file"):
        DaskRunner(client).run(AuditJob([Source(logs[0]), Source(missing)]))
    defective = {"get_weather": {"parameters": {"properties": {"city": {"type": "strin"}}}}}
    with pytest.raises(SchemaError, match="get_weather"):
        toolaudit.run_audit(logs, defective, dask=client, report=str(tmp_path / "r"))
    with pytest.raises(OptionError, match="deep validation needs schemas compiled for it"):
        DaskRunner(client).run(
            AuditJob([Source(logs[0])], load_schemas(SCHEMAS), AuditOptions(deep=True))
        )
    with pytest.raises(OptionError, match="not standard input"):
        DaskRunner(client).run(AuditJob([Source("-")], load_schemas(SCHEMAS)))
    assert submissions.graphs == 0
    assert not (tmp_path / "r").exists()
    toolaudit.run_audit(logs[1:], SCHEMAS, dask=client)
    assert submissions.graphs > 0  # (the plugin does see a run's graphs)


def test_the_library_takes_a_client_or_an_address(client, logs, tmp_path):
    one = toolaudit.run_audit(logs, SCHEMAS, report=str(tmp_path / "one.jsonl"))
    on_client = toolaudit.run_audit(
        logs, SCHEMAS, dask=client, blocksize="4KiB", report=str(tmp_path / "parts")
    )
    on_address = toolaudit.run_audit(logs, SCHEMAS, dask=client.scheduler.address, blocksize=BLOCK)
    assert one == on_client == on_address
    assert concatenated(tmp_path / "parts") == (tmp_path / "one.jsonl").read_bytes()
    with pytest.raises(OptionError, match="cannot be combined"):
        toolaudit.run_audit(logs, SCHEMAS, dask=client, jobs=2)


def test_progress_counts_blocks_and_bytes(client, logs, sample_schemas):
    seen: list[tuple[int, int]] = []
    read: list[int] = []
    hooks = RunHooks(on_bytes=read.append, on_block=lambda done, total: seen.append((done, total)))
    DaskRunner(client, blocksize=BLOCK).run(
        AuditJob([Source(p) for p in logs], sample_schemas), None, hooks
    )
    total = seen[-1][1]
    assert seen == [(n, total) for n in range(1, total + 1)]
    assert sum(read) == sum(os.path.getsize(p) for p in logs)


def test_an_interrupted_run_keeps_the_parts_and_summary_of_the_blocks_done_in_order(
    client, logs, sample_schemas, tmp_path
):
    def stop_half_way(done: int, total: int) -> None:
        if done == total // 2:
            raise KeyboardInterrupt

    report = tmp_path / "report"
    job = AuditJob([Source(logs[0])], sample_schemas)
    with pytest.raises(Interrupted) as stopped:
        DaskRunner(client, blocksize=BLOCK, parts=str(report)).run(
            job, None, RunHooks(on_block=stop_half_way)
        )
    summary = stopped.value.summary
    assert not summary.complete and 0 < summary.lines < 3 * 365
    rows = [orjson.loads(line) for line in concatenated(report).splitlines()]
    whole, _ = one_process([logs[0]], sample_schemas)
    expected = [orjson.loads(line) for line in whole.splitlines()]
    assert rows == [row for row in expected if row["line"] <= summary.lines]


def test_an_interrupted_summary_alone_numbers_its_samples_as_one_process(
    client, logs, sample_schemas
):
    def stop_half_way(done: int, total: int) -> None:
        if done == total // 2:
            raise KeyboardInterrupt

    job = AuditJob([Source(logs[0])], sample_schemas)
    with pytest.raises(Interrupted) as stopped:
        DaskRunner(client, blocksize=BLOCK).run(job, None, RunHooks(on_block=stop_half_way))
    summary = stopped.value.summary
    assert not summary.complete and SAMPLE_ROWS < summary.invalid < 2 * 365
    whole, _ = one_process([logs[0]], sample_schemas)
    failing = [row for row in map(orjson.loads, whole.splitlines()) if not row["ok"]]
    assert summary.samples == failing[:SAMPLE_ROWS]


@pytest.fixture(scope="module")
def eval_set(tmp_path_factory, sample_schemas):
    """Expected calls for the sample's ids: its own call for two ids in three, no call for
    the third (an unwanted call), and five ids no record has."""
    expected = tmp_path_factory.mktemp("eval") / "expected.jsonl"
    entries = []
    for number, line in enumerate(SAMPLE.read_bytes().splitlines()):
        try:  # (the sample holds lines of every kind: those with a plain call are kept)
            record = orjson.loads(line)
            arguments = record["arguments"]
            if isinstance(arguments, str):
                arguments = orjson.loads(arguments)
            call = {"name": record["name"], "arguments": arguments}
            assert isinstance(record["id"], str) and isinstance(call["name"], str)
            assert isinstance(arguments, dict)
        except (orjson.JSONDecodeError, TypeError, KeyError, AssertionError):
            continue
        entries.append({"id": record["id"], "calls": [call] if number % 3 else []})
    entries += [{"id": f"absent-{n}", "calls": []} for n in range(5)]
    expected.write_bytes(b"".join(orjson.dumps(entry) + b"\n" for entry in entries))
    return load_expectations(str(expected), schemas=sample_schemas)


def scored_in_one_process(paths, schemas, expectations):
    report, scores = io.BytesIO(), io.BytesIO()
    job = AuditJob([Source(p) for p in paths], schemas, AuditOptions(), expectations)
    summary = SerialRunner().run(job, report, None, scores)
    return report.getvalue(), scores.getvalue(), summary.to_dict()


def test_expected_calls_are_scored_on_the_cluster_as_in_one_process(
    client, logs, sample_schemas, eval_set, tmp_path
):
    paths = [logs[0]]  # the sample three times: each id scored at its first record
    want = scored_in_one_process([str(SAMPLE)], sample_schemas, eval_set)
    job = AuditJob([Source(str(SAMPLE))], sample_schemas, AuditOptions(), eval_set)
    assert "ground_truth" in want[2] and want[1].count(b"\n") == len(eval_set.entries)
    # The report as a stream, or as parts; the score lines with or without it.
    report, scores = io.BytesIO(), io.BytesIO()
    summary = DaskRunner(client, blocksize=1024).run(job, report, None, scores)
    assert (report.getvalue(), scores.getvalue(), summary.to_dict()) == want
    scores = io.BytesIO()
    runner = DaskRunner(client, blocksize=1024, parts=str(tmp_path / "report"))
    summary = runner.run(job, None, None, scores)
    assert (concatenated(tmp_path / "report"), scores.getvalue(), summary.to_dict()) == want
    assert len(os.listdir(tmp_path / "report")) > 5  # the sample was cut into blocks
    assert DaskRunner(client, blocksize=1024).run(job).to_dict() == want[2]
    # An id met in two blocks is scored at its first record only: as one process does.
    again = scored_in_one_process(paths, sample_schemas, eval_set)
    job = AuditJob([Source(p) for p in paths], sample_schemas, AuditOptions(), eval_set)
    notices: list[str] = []
    report, scores = io.BytesIO(), io.BytesIO()
    summary = DaskRunner(client, blocksize=BLOCK).run(
        job, report, RunHooks(notify=notices.append), scores
    )
    assert (report.getvalue(), scores.getvalue(), summary.to_dict()) == again
    assert notices == [
        "--dask: records of one id were scored in two blocks: audited again in this process, "
        "which scores the first"
    ]
    # Written as parts, the report is then that process's, in the first part alone.
    scores = io.BytesIO()
    runner = DaskRunner(client, blocksize=BLOCK, parts=str(tmp_path / "again"))
    summary = runner.run(job, None, RunHooks(notify=notices.append), scores)
    assert (concatenated(tmp_path / "again"), scores.getvalue(), summary.to_dict()) == again
    assert os.listdir(tmp_path / "again") == ["part-00000.jsonl"]


def test_an_interrupted_scoring_run_keeps_the_score_lines_its_summary_counts(
    client, sample_schemas, eval_set
):
    def stop_half_way(done: int, total: int) -> None:
        if done == total // 2:
            raise KeyboardInterrupt

    job = AuditJob([Source(str(SAMPLE))], sample_schemas, AuditOptions(), eval_set)
    scores = io.BytesIO()
    with pytest.raises(Interrupted) as stopped:
        DaskRunner(client, blocksize=1024).run(job, None, RunHooks(on_block=stop_half_way), scores)
    truth = stopped.value.summary.to_dict()["ground_truth"]
    lines = [orjson.loads(line) for line in scores.getvalue().splitlines()]
    assert 0 < len(lines) == truth["total"] < len(eval_set.entries)
    assert sum(line["correct"] for line in lines) == truth["correct"]


def test_schemas_travel_as_definitions_and_are_compiled_once_per_process():
    schemas = load_schemas(SCHEMAS, deep=True)
    assert isinstance(schemas.definitions, bytes)
    first, second = pickle.loads(pickle.dumps(schemas)), pickle.loads(pickle.dumps(schemas))
    assert first is second  # the cache, by digest
    assert (first.digest, first.deep) == (schemas.digest, True)
    assert first.validator.tool_names == schemas.validator.tool_names
    # A mapping given in Python travels as it is, whatever JSON could not hold.
    mapping = {"t": {"parameters": {"properties": {"n": {"enum": [2**70, float("nan")]}}}}}
    odd = schema_set(mapping)
    assert odd.definitions == (mapping, {})
    assert pickle.loads(pickle.dumps(odd)).digest == odd.digest


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("64MiB", 64 << 20),
        ("1048576", 1 << 20),
        ("256MB", 256_000_000),
        ("1g", 10**9),
        (4096, 4096),
    ],
)
def test_blocksize(text, size):
    assert parse_blocksize(text) == size


@pytest.mark.parametrize("text", ["", "0", "64 parsecs", "-1", True])
def test_a_blocksize_that_is_not_one(text):
    with pytest.raises(OptionError):
        parse_blocksize(text)


def test_a_local_cluster_takes_no_fixed_port(recwarn):
    # Two runs at once (or a dashboard already there) must not meet on Dask's port 8787.
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 8787))
            taken.listen()
        except OSError:
            pass  # taken already: all the better
        with dask_runner.connect("local:1") as client:
            assert client.submit(sum, [1, 2]).result() == 3
    assert not [w for w in recwarn if "already in use" in str(w.message)]


def test_without_dask_installed_one_line_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with (
        pytest.raises(ClusterError, match=r"pip install 'toolaudit\[dask\]'"),
        dask_runner.connect("local:1"),
    ):
        pass


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """moto's S3 server (the real protocol) on 127.0.0.1, in a thread of this process, that
    the workers reach over TCP; the options that reach it, credentials included."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield {"endpoint_url": f"http://{host}:{port}", "key": "testing", "secret": "testing"}
    server.stop()


def test_a_bucket_prefix_is_audited_in_blocks_and_the_parts_written_back(client, s3, tmp_path):
    import s3fs

    fs = s3fs.S3FileSystem(skip_instance_cache=True, **s3)
    fs.mkdir("logs")
    data = SAMPLE.read_bytes()
    fs.pipe_file("logs/day/a.jsonl", data * 2)
    fs.pipe_file("logs/day/b.jsonl.gz", gzip.compress(data))
    fs.pipe_file("logs/out/part-00077.jsonl", b"left by another run\n")
    one = toolaudit.run_audit(
        ["s3://logs/day/"], SCHEMAS, report=str(tmp_path / "one.jsonl"), storage_options=s3
    )
    on_dask = toolaudit.run_audit(
        ["s3://logs/day/"],
        SCHEMAS,
        report="s3://logs/out/",
        storage_options=s3,
        dask=client,
        blocksize=BLOCK,
    )
    assert on_dask == one
    fs.invalidate_cache()
    parts = sorted(fs.ls("logs/out", detail=False))
    assert len(parts) > 2 * len(data) // BLOCK  # the plain object was cut into blocks
    assert parts[-1].endswith(f"part-{len(parts) - 1:05d}.jsonl")  # the stale one is gone
    assert b"".join(fs.cat_file(p) for p in parts) == (tmp_path / "one.jsonl").read_bytes()


def test_an_object_cut_off_mid_read_is_incomplete_as_in_one_process(client, s3):
    """Every download of one object is cut: its blocks cannot be read, so it is audited
    whole, where its reading stops as one process's does. (A summary alone: the blocks
    are not counted first, their own audits find it.)"""
    import s3fs

    from ..storage.cutting_proxy import CuttingProxy

    fs = s3fs.S3FileSystem(skip_instance_cache=True, **s3)
    fs.mkdir("cut")
    data = SAMPLE.read_bytes()
    fs.pipe_file("cut/a.jsonl", data)
    fs.pipe_file("cut/b.jsonl", data * 3)
    port = int(s3["endpoint_url"].rsplit(":", 1)[1])
    proxy = CuttingProxy(port, rb"^GET /cut/b\.jsonl", after=10_000)
    options = {**s3, "endpoint_url": proxy.endpoint}
    try:
        one = toolaudit.run_audit(["s3://cut/"], SCHEMAS, storage_options=options)
        # b in two blocks, one a worker (s3fs tries each cut download again, after a pause).
        blocksize = len(data) * 3 // 2
        on_dask = toolaudit.run_audit(
            ["s3://cut/"], SCHEMAS, storage_options=options, dask=client, blocksize=blocksize
        )
    finally:
        proxy.close()
    assert on_dask.to_dict() == one.to_dict()
    a, b = on_dask.to_dict()["sources"]
    assert a["complete"] is True
    assert b["complete"] is False and "reading stopped after line" in b["error"]
