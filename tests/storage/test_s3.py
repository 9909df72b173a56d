"""Logs in S3, through s3fs, against moto's S3 server: what a local run gives, outputs
written back whole, and the faults (a missing bucket, a denied read, a download cut off)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import orjson
import pytest

import toolaudit
from toolaudit.output.html import render_html
from toolaudit.results.summary import Summary
from toolaudit.storage import reading

from ..conftest import REPO, invoke
from .cutting_proxy import CuttingProxy

#: An S3 server (moto) on 127.0.0.1: left out of `make quick`.
pytestmark = pytest.mark.slow

SCHEMAS = REPO / "sample_logs" / "schemas.json"
SAMPLE_LINES = (REPO / "sample_logs" / "calls.jsonl").read_bytes().splitlines(keepends=True)


def a_day_of_logs() -> dict[str, bytes]:
    """Plain, gzip and nested logs, and a file a walk passes over."""
    return {
        "day/a.jsonl": b"".join(SAMPLE_LINES[:200]),
        "day/b.jsonl.gz": gzip.compress(b"".join(SAMPLE_LINES[200:])),
        "day/sub/c.ndjson": b"".join(SAMPLE_LINES[100:150]),
        "day/notes.txt": b"not a log\n",
    }


def put_everywhere(bucket, tmp_path, files: dict[str, bytes]) -> None:
    for key, data in files.items():
        bucket.put(key, data)
        (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / key).write_bytes(data)


def one_line(stderr: str) -> str:
    assert stderr.count("\n") == 1, stderr
    return stderr


def test_a_prefix_audits_as_its_files_do_locally_and_the_outputs_land_whole(bucket, tmp_path):
    put_everywhere(bucket, tmp_path, a_day_of_logs())
    bucket.put("schemas.json", SCHEMAS.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    outputs = {"--report": "report.jsonl", "--summary": "summary.json", "--html": "report.html"}
    local = invoke(
        "audit",
        str(tmp_path / "day"),
        *("--schemas", str(SCHEMAS)),
        *(arg for option, name in outputs.items() for arg in (option, str(out / name))),
    )
    remote = invoke(
        "audit",
        bucket.url("day/"),
        *("--schemas", bucket.url("schemas.json")),
        *bucket.cli,
        *(arg for option, name in outputs.items() for arg in (option, bucket.url(f"out/{name}"))),
    )
    assert (remote.exit_code, remote.stdout, remote.stderr) == (1, local.stdout, "")
    assert local.exit_code == 1
    for name in ("report.jsonl", "summary.json"):
        expected = (
            (out / name)
            .read_bytes()
            .replace(f"{tmp_path}/day/".encode(), bucket.url("day/").encode())
        )
        assert bucket.get(f"out/{name}") == expected, name
    summary = json.loads(bucket.get("out/summary.json"))
    # (The page shortens long local names: it is compared with the page of its summary.)
    page = render_html(Summary.from_dict(summary)).encode("utf-8", "surrogatepass")
    assert bucket.get("out/report.html") == page
    assert [s["path"] for s in summary["sources"]] == [
        bucket.url("day/a.jsonl"),
        bucket.url("day/b.jsonl.gz"),
        bucket.url("day/sub/c.ndjson"),
    ]
    assert summary["lines"] == len(SAMPLE_LINES) + 50
    # Nothing but the outputs was added: no temporary object is left behind.
    assert [k for k in bucket.objects() if k.startswith("out/")] == [
        f"out/{name}" for name in sorted(outputs.values())
    ]


def test_globs_pick_objects_across_prefixes(bucket):
    line = b'{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'
    for key in (
        "2026/12/01/calls-a.jsonl.gz",
        "2026/12/02/calls-b.jsonl.gz",
        "2026/12/02/other.jsonl.gz",
        "2026/11/30/calls-c.jsonl.gz",
    ):
        bucket.put(key, gzip.compress(line))
    summary = toolaudit.run_audit(
        [bucket.url("2026/12/*/calls-*.jsonl.gz")],
        str(SCHEMAS),
        storage_options=bucket.options,
    )
    assert [s.path for s in summary.sources] == [
        bucket.url("2026/12/01/calls-a.jsonl.gz"),
        bucket.url("2026/12/02/calls-b.jsonl.gz"),
    ]
    assert (summary.calls, summary.ok) == (2, 2)
    nothing = invoke("audit", bucket.url("2026/*/*/none-*"), "-s", str(SCHEMAS), *bucket.cli)
    assert nothing.exit_code == 2
    assert one_line(nothing.stderr) == (
        f"toolaudit: error: {bucket.url('2026/*/*/none-*')}: no object matches this pattern\n"
    )


def test_objects_written_after_a_first_listing_are_seen(bucket):
    # s3fs caches listings with its (cached) filesystem: a long-lived process must not
    # audit yesterday's list of objects.
    line = b'{"name": "ping", "arguments": {}}\n'
    bucket.put("d/1.jsonl", line)
    first = toolaudit.run_audit(
        [bucket.url("d/*.jsonl")], str(SCHEMAS), storage_options=bucket.options
    )
    bucket.put("d/2.jsonl", line)
    second = toolaudit.run_audit(
        [bucket.url("d/*.jsonl")], str(SCHEMAS), storage_options=bucket.options
    )
    assert (len(first.sources), len(second.sources)) == (1, 2)


def test_the_library_reads_urls_with_storage_options(bucket):
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:60]))
    bucket.put("tools.json", SCHEMAS.read_bytes())
    schemas = toolaudit.load_schemas(bucket.url("tools.json"), storage_options=bucket.options)
    assert schemas.digest == toolaudit.load_schemas(str(SCHEMAS)).digest
    run = toolaudit.audit([bucket.url("day/")], schemas, storage_options=bucket.options)
    rows = list(run)
    assert rows and {row["source"] for row in rows} == {bucket.url("day/a.jsonl")}
    assert run.summary is not None and run.summary.lines == 60
    summary = toolaudit.run_audit(
        [bucket.url("day/a.jsonl")],
        bucket.url("tools.json"),
        report=bucket.url("out/report.jsonl"),
        storage_options=bucket.options,
    )
    assert summary.to_dict() == run.summary.to_dict()
    written = [orjson.loads(line) for line in bucket.get("out/report.jsonl").splitlines()]
    assert len(written) == summary.calls + summary.malformed_records - summary.records_without_calls


def test_progress_counts_the_bytes_of_remote_objects(bucket):
    files = a_day_of_logs()
    for key, data in files.items():
        bucket.put(key, data)
    read: list[int] = []
    summary = toolaudit.run_audit(
        [bucket.url("day/")], str(SCHEMAS), storage_options=bucket.options, on_bytes=read.append
    )
    logs = [data for key, data in files.items() if not key.endswith(".txt")]
    assert sum(read) == sum(len(data) for data in logs)  # as stored: compressed, for gzip
    sources = toolaudit.Audit.of_paths([bucket.url("day/")], storage_options=bucket.options).sources
    assert [source.size() for source in sources] == [len(data) for data in logs]
    assert summary.complete


def test_jobs_audit_remote_objects_whole_in_other_processes(bucket, tmp_path):
    put_everywhere(bucket, tmp_path, a_day_of_logs())
    one = toolaudit.run_audit([bucket.url("day/")], str(SCHEMAS), storage_options=bucket.options)
    notes: list[str] = []
    two = toolaudit.run_audit(
        [bucket.url("day/")],
        str(SCHEMAS),
        storage_options=bucket.options,
        jobs=2,
        notify=notes.append,
    )
    assert two.to_dict() == one.to_dict() and notes == []
    lone = toolaudit.run_audit(
        [bucket.url("day/a.jsonl")],
        str(SCHEMAS),
        storage_options=bucket.options,
        jobs=2,
        notify=notes.append,
    )
    assert lone.complete
    assert notes == [
        f"--jobs 2: audited in one process: {bucket.url('day/a.jsonl')} is a URL, which is read "
        "whole"
    ]


# Faults that stop the run before anything is read -------------------------------------


def test_a_missing_bucket_stops_the_run_before_anything_is_read(bucket, tmp_path):
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:10]))
    report = tmp_path / "report.jsonl"
    missing = "s3://no-such-bucket-here/day/"
    result = invoke(
        "audit",
        bucket.url("day/a.jsonl"),
        missing,
        "-s",
        str(SCHEMAS),
        *bucket.cli,
        "-r",
        str(report),
    )
    assert result.exit_code == 2
    assert one_line(result.stderr) == (
        f"toolaudit: error: {missing}: bucket 'no-such-bucket-here' does not exist\n"
    )
    assert result.stdout == "" and not report.exists()
    nothing = invoke("audit", bucket.url("nothing/here/"), "-s", str(SCHEMAS), *bucket.cli)
    assert nothing.exit_code == 2
    assert nothing.stderr == (
        f"toolaudit: error: {bucket.url('nothing/here/')}: no such object or prefix\n"
    )


def test_an_output_to_a_missing_bucket_stops_the_run_before_the_audit(bucket):
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:10]))
    result = invoke(
        "audit",
        bucket.url("day/"),
        "-s",
        str(SCHEMAS),
        *bucket.cli,
        "--summary",
        "s3://no-such-bucket-here/summary.json",
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert one_line(result.stderr) == (
        "toolaudit: error: s3://no-such-bucket-here/summary.json: bucket 'no-such-bucket-here' "
        "does not exist\n"
    )


@pytest.mark.parametrize(
    ("actions", "what"),
    [([], "the listing"), (["s3:ListBucket"], "the first read, though the listing is allowed")],
)
def test_a_denied_read_stops_the_run_before_anything_is_read(bucket, iam, tmp_path, actions, what):
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:10]))
    user = iam(actions)
    report = tmp_path / "report.jsonl"
    iam.enforce(True)
    result = invoke(
        "audit",
        bucket.url("day/"),
        "-s",
        str(SCHEMAS),
        *user.cli(bucket.endpoint),
        "-r",
        str(report),
    )
    iam.enforce(False)
    assert result.exit_code == 2, what
    assert one_line(result.stderr).startswith(
        f"toolaudit: error: {bucket.url('day/')}: access denied ("
    )
    assert result.stdout == "" and not report.exists()


def test_an_upload_that_is_refused_leaves_nothing_at_the_key(bucket, iam):
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:10]))
    reader = iam(["s3:ListBucket", "s3:GetObject"])
    iam.enforce(True)
    result = invoke(
        "audit",
        bucket.url("day/"),
        "-s",
        str(SCHEMAS),
        *reader.cli(bucket.endpoint),
        "--report",
        bucket.url("out/report.jsonl"),
    )
    iam.enforce(False)
    assert result.exit_code == 2
    assert one_line(result.stderr).startswith(
        f"toolaudit: error: {bucket.url('out/report.jsonl')}: cannot write: "
    )
    assert bucket.objects() == ["day/a.jsonl"]


def test_a_run_that_fails_while_writing_leaves_nothing_at_the_key(bucket):
    # Records that carry their tools, then a call that nothing can judge: the run stops
    # part way, with thousands of rows already written to the report.
    envelope = (REPO / "tests" / "cases" / "formats" / "envelope" / "input.jsonl").read_bytes()
    carried = envelope.splitlines(keepends=True)[0]
    bucket.put("day/a.jsonl", carried * 5000 + b'{"name": "unknown", "arguments": {}}\n')
    result = invoke(
        "audit",
        bucket.url("day/"),
        *bucket.cli,
        "--report",
        bucket.url("out/report.jsonl"),
    )
    assert result.exit_code == 2
    assert one_line(result.stderr).startswith(
        f"toolaudit: error: {bucket.url('day/a.jsonl')}:5001: no tool schemas for this call"
    )
    assert bucket.objects() == ["day/a.jsonl"]


# A download cut off part way -----------------------------------------------------------


def test_an_object_cut_off_mid_read_is_incomplete_and_the_others_are_audited(
    bucket, tmp_path, monkeypatch
):
    files = {
        "day/a.jsonl": b"".join(SAMPLE_LINES[:120]),
        "day/b.jsonl": b"".join(SAMPLE_LINES * 3),
        "day/c.jsonl": b"".join(SAMPLE_LINES[120:240]),
    }
    put_everywhere(bucket, tmp_path, files)
    # Small blocks, so that b's first block arrives and a later one is cut (fetched in
    # the background, as whole objects are read); every retry of s3fs is cut too.
    monkeypatch.setattr(reading, "PREFETCH_BLOCK_BYTES", 96 << 10)  # > a read of 64 KiB
    port = int(bucket.endpoint.rsplit(":", 1)[1])
    cut = rb"^GET /" + bucket.name.encode() + rb"/day/b\.jsonl.*?[Rr]ange: bytes=[1-9]"
    proxy = CuttingProxy(port, cut, after=10_000)
    report = tmp_path / "report.jsonl"
    try:
        result = invoke(
            "audit",
            bucket.url("day/"),
            "-s",
            str(SCHEMAS),
            "--storage-option",
            f"endpoint_url={proxy.endpoint}",
            "-r",
            str(report),
            "-f",
            "json",
        )
    finally:
        proxy.close()
    assert proxy.cuts >= 2  # the first attempt and s3fs's retries
    assert result.exit_code == 1
    warning = one_line(result.stderr)
    assert warning.startswith(f"toolaudit: warning: {bucket.url('day/b.jsonl')}: read error: ")
    summary = json.loads(result.stdout)
    a, b, c = summary["sources"]
    assert (a["complete"], a["lines"], c["complete"], c["lines"]) == (True, 120, True, 120)
    assert b["complete"] is False and 0 < b["lines"] < 3 * len(SAMPLE_LINES)
    assert "reading stopped after line" in b["error"]
    assert summary["complete"] is False
    # The lines read before the cut are all in the report, as a local run gives them.
    local = invoke("audit", str(tmp_path / "day" / "b.jsonl"), "-s", str(SCHEMAS), "-r", "-")
    local_rows = [orjson.loads(line) for line in local.stdout.splitlines()]
    rows = [orjson.loads(line) for line in report.read_bytes().splitlines()]
    b_rows = [row for row in rows if row["source"] == bucket.url("day/b.jsonl")]
    assert [r["line"] for r in b_rows] == [r["line"] for r in local_rows if r["line"] <= b["lines"]]
    assert b_rows, "rows before the cut are kept"


# Where credentials and endpoints come from ---------------------------------------------


def test_the_endpoint_can_come_from_fsspecs_environment_variables(bucket):
    # fsspec reads FSSPEC_<PROTOCOL>_<OPTION> when it is imported: in a process of its own.
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:40]))
    bucket.put("schemas.json", SCHEMAS.read_bytes())
    environment = {**os.environ, "FSSPEC_S3_ENDPOINT_URL": bucket.endpoint}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolaudit",
            "audit",
            bucket.url("day/"),
            "-s",
            bucket.url("schemas.json"),
            "--summary",
            bucket.url("out/summary.json"),
        ],
        capture_output=True,
        env=environment,
        cwd=REPO,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert json.loads(bucket.get("out/summary.json"))["lines"] == 40


def test_the_endpoint_can_come_from_the_filesystems_own_environment(bucket, monkeypatch):
    import s3fs

    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:40]))
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", bucket.endpoint)
    s3fs.S3FileSystem.clear_instance_cache()  # made afresh, it reads the environment
    try:
        result = invoke("audit", bucket.url("day/"), "-s", str(SCHEMAS))
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout.startswith("40 lines in 1 source")


def test_json_storage_options_reach_the_filesystem(bucket):
    bucket.put("day/a.jsonl", b"".join(SAMPLE_LINES[:40]))
    result = invoke(
        "audit",
        bucket.url("day/"),
        "-s",
        str(SCHEMAS),
        *bucket.cli,
        "--storage-option",
        'client_kwargs={"region_name": "eu-west-3"}',
        "--storage-option",
        "use_ssl=false",
    )
    assert (result.exit_code, result.stderr) == (1, "")
    unknown = invoke(
        "audit",
        bucket.url("day/"),
        "-s",
        str(SCHEMAS),
        *bucket.cli,
        "--storage-option",
        "retries=1",
    )
    assert unknown.exit_code == 2
    assert one_line(unknown.stderr).startswith(f"toolaudit: error: {bucket.url('day/')}: ")


def test_schemas_and_validate_read_schemas_from_the_bucket(bucket):
    bucket.put("tools.json", SCHEMAS.read_bytes())
    checked = invoke("schemas", bucket.url("tools.json"), *bucket.cli, "-f", "json")
    assert checked.exit_code in (0, 1)
    assert {t["file"] for t in json.loads(checked.stdout)["tools"]} == {bucket.url("tools.json")}
    call = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    valid = invoke("validate", "-s", bucket.url("tools.json"), *bucket.cli, call)
    assert (valid.exit_code, valid.stdout) == (0, '{"ok":true,"errors":[]}\n')
    missing = invoke("validate", "-s", bucket.url("none.json"), *bucket.cli, call)
    assert missing.exit_code == 2
    assert one_line(missing.stderr).startswith(
        f"toolaudit: error: schemas file {bucket.url('none.json')}: no such object"
    )


def test_a_part_of_an_object_is_downloaded_up_to_its_end_and_no_further(bucket, monkeypatch):
    """A Dask block of an object: fsspec's read-ahead fetched a block beyond each read, so
    a 64 MiB part downloaded up to 100 MiB. Each part is fetched exactly; the whole object
    in blocks of its own, the next one ahead."""
    import s3fs

    from toolaudit.sources import Source, read_line_batches

    data = b"".join(SAMPLE_LINES * 20)  # about 1.2 MB
    bucket.put("day/log.jsonl", data)
    monkeypatch.setattr(reading, "READ_BLOCK_BYTES", 256 << 10)
    monkeypatch.setattr(reading, "PREFETCH_BLOCK_BYTES", 256 << 10)
    fetched: list[tuple[int, int]] = []
    fetch_range = s3fs.core.S3File._fetch_range

    def spy(self, start, end):
        fetched.append((start, end))
        return fetch_range(self, start, end)

    monkeypatch.setattr(s3fs.core.S3File, "_fetch_range", spy)
    end = data.index(b"\n", 300_000) + 1  # a line-aligned part, as Dask cuts them
    part = Source(bucket.url("day/log.jsonl"), start=0, end=end, storage_options=bucket.options)
    lines = [line for batch in read_line_batches(part) for line in batch]
    assert b"\n".join(lines) + b"\n" == data[:end]
    assert max(stop for _, stop in fetched) == end  # nothing past the part's end
    assert sum(stop - start for start, stop in fetched) == end
    fetched.clear()
    whole = Source(bucket.url("day/log.jsonl"), storage_options=bucket.options)
    assert sum(len(batch) for batch in read_line_batches(whole)) == data.count(b"\n")
    # (the last block asked for runs past the end: S3 sends what there is)
    assert sum(min(stop, len(data)) - start for start, stop in fetched) == len(data)
