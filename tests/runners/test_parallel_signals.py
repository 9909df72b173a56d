"""--jobs and signals: a worker leaves a stop to the parent, even one that comes before
the worker is ready; a stopped run ends, without a traceback from any process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO

# A worker that gets SIGTERM between its fork and its initializer (simulated: it sends
# one to itself first, once), as when the pool is ended early. The parent has the
# handler the CLI installs, which a forked worker inherits.
SCRIPT = """
import os, signal, sys
from toolaudit.pipeline import AuditOptions
from toolaudit.runners import AuditJob, parallel, pool, runner_for
from toolaudit.schemas import load_schemas
from toolaudit.sources import Source

def stop(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGTERM, stop)

marker = sys.argv[1]
real_start = pool.start_worker
def start_worker(*args):
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        pass
    else:
        os.kill(os.getpid(), signal.SIGTERM)
    real_start(*args)
pool.start_worker = start_worker
parallel.MIN_PART_BYTES = 2048

job = AuditJob(
    [Source("sample_logs/calls.jsonl")], load_schemas("sample_logs/schemas.json"), AuditOptions()
)
print(runner_for(jobs=2).run(job).lines)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="fork and signal masks")
def test_a_worker_stopped_before_it_is_ready_ends_quietly(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "signalled")],
        capture_output=True,
        cwd=REPO,
        timeout=120,
    )
    assert (tmp_path / "signalled").exists()  # one worker was sent SIGTERM, and replaced
    assert result.stderr == b""  # no "Process ForkPoolWorker-1: Traceback ... KeyboardInterrupt"
    assert result.returncode == 0 and result.stdout == b"365\n"
