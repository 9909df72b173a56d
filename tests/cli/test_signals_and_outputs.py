"""The command line in real processes, when outputs fail or a run is interrupted.

Interrupts (SIGINT, SIGTERM), a closed pipe, a full disk, unwritable or special outputs: one
clear line or a quiet exit, the usual exit code, and nothing lost or left half-written.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import FIXTURES, REPO

SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SCHEMAS = str(REPO / "sample_logs" / "schemas.json")


def toolaudit(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "toolaudit", *args], cwd=REPO, **kwargs)


def wait_until_reading_a_pipe(pid: int, timeout: float = 30) -> None:
    """Until the process sleeps reading a pipe (so it has audited all it was sent)."""
    wchan = Path(f"/proc/{pid}/wchan")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if not wchan.exists():  # not Linux: give it time instead
            time.sleep(3)
            return
        if "pipe_read" in wchan.read_text():
            time.sleep(0.1)
            if "pipe_read" in wchan.read_text():
                return


def run(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "toolaudit", *args],
        input=input,
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_audit_keeps_its_rows_and_says_it_is_incomplete(tmp_path, signum, code):
    report, summary = tmp_path / "report.jsonl", tmp_path / "summary.json"
    process = toolaudit(
        "audit",
        "-",
        "-s",
        SCHEMAS,
        "-r",
        str(report),
        "--summary",
        str(summary),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    lines = SAMPLE.read_bytes().splitlines(keepends=True)[:120]
    process.stdin.write(b"".join(lines))
    process.stdin.flush()  # and keep stdin open: the audit now waits for more
    wait_until_reading_a_pipe(process.pid)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        process.send_signal(signum)
        try:
            process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            continue
    _, stderr = process.communicate(timeout=10)
    assert process.returncode == code, stderr
    assert b"Traceback" not in stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert [row["line"] for row in rows if row["index"] in (0, None)] == sorted(
        {row["line"] for row in rows}
    )
    assert max(row["line"] for row in rows) == 120  # everything sent was audited and kept
    data = json.loads(summary.read_text())
    assert data["complete"] is False
    assert data["lines"] == 120
    assert "interrupted" in data["sources"][0]["error"]


@pytest.mark.parametrize("stdout_holds", ["report", "table"])
def test_a_closed_pipe_ends_the_run_quietly_with_141(tmp_path, stdout_holds):
    # Far more than a pipe holds, so the reader's going away is met mid-run.
    log = tmp_path / "calls.jsonl"
    log.write_bytes(SAMPLE.read_bytes() * 40)
    args = ["-r", "-"] if stdout_holds == "report" else []
    process = toolaudit(
        "audit", str(log), "-s", SCHEMAS, *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    if stdout_holds == "report":
        assert json.loads(process.stdout.readline())["line"] == 1
    process.stdout.close()  # like `| head -1`
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert stderr == b""  # no traceback, no "Exception ignored"
    assert process.returncode == 141  # 128 + SIGPIPE, as a shell reports a closed pipe


def test_a_full_disk_gives_one_line_and_exit_2():
    result = run("audit", str(SAMPLE), "-s", SCHEMAS, "-r", "/dev/full")
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1
    assert "/dev/full: cannot write: No space left on device" in result.stderr.decode()
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written in place, never replaced


def test_an_unwritable_output_gives_one_line_and_exit_2(tmp_path):
    for target in (tmp_path / "missing-dir" / "report.jsonl", tmp_path):
        result = run("audit", str(SAMPLE), "-s", SCHEMAS, "--summary", str(target))
        assert result.returncode == 2
        assert (
            result.stderr.decode().startswith("toolaudit: error: ")
            and result.stderr.count(b"\n") == 1
        )


def test_outputs_get_the_usual_file_mode_and_no_temporary_file_is_left(tmp_path):
    report = tmp_path / "report.jsonl"
    previous = os.umask(0o022)
    try:
        run("audit", str(SAMPLE), "-s", SCHEMAS, "-r", str(report))
    finally:
        os.umask(previous)
    assert stat.S_IMODE(report.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["report.jsonl"]


def test_a_failed_run_leaves_no_output_behind(tmp_path):
    report = tmp_path / "report.jsonl"
    chat_response = (FIXTURES / "formats" / "openai_chat.jsonl").read_text().splitlines()[2]
    log = tmp_path / "log.jsonl"
    log.write_text(chat_response + "\n")
    result = run("audit", str(log), "-r", str(report))  # no schemas for this response: exit 2
    assert result.returncode == 2
    assert list(tmp_path.iterdir()) == [log]


def test_the_report_can_go_to_a_special_file(tmp_path):
    result = run("audit", str(SAMPLE), "-s", SCHEMAS, "-r", "/dev/null")
    assert result.returncode == 1
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_jobs_run_stopped_while_its_workers_read_ends_at_once(tmp_path, signum, code):
    # A worker blocked reading a named pipe that never ends: the parent, stopped, ends
    # its workers and itself, whatever they were doing.
    fifo = tmp_path / "never-ends.jsonl"
    os.mkfifo(fifo)
    summary = tmp_path / "summary.json"
    process = toolaudit(
        "audit",
        str(SAMPLE),
        str(fifo),
        "-s",
        SCHEMAS,
        "--jobs",
        "2",
        "--summary",
        str(summary),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    with open(fifo, "wb"):  # returns once a worker has opened it to read
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert b"Traceback" not in stderr
    data = json.loads(summary.read_text())
    assert data["complete"] is False
