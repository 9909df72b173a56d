"""Reading logs from S3 against reading them from a local file.

Figures, not pass/fail (see README.md). The S3 endpoint is moto's server, started by this
script in a process of its own on 127.0.0.1 (the real protocol, spoken through s3fs as
toolaudit speaks it to AWS) and stopped at the end; the benchmark's flat log is uploaded
to a bucket of it. The rows, medians of ``--repeat`` interleaved rounds:

- **read, local** / **read, S3**: the lines of the log read in-process as the audit reads
  them (``read_line_batches``), nothing else: the read rate in MB/s;
- **audit, local** / **audit, S3**: ``toolaudit audit`` as a subprocess, summary only,
  start-up included; the first round checks that both count the same calls and errors.

    .venv/bin/python benchmarks/s3_bench.py [--calls 1000000] [--repeat 3]

moto keeps its objects in memory and answers from one Python process on the same
machine, so the S3 rows measure the client side of the protocol (requests, blocks of
``READ_BLOCK_BYTES``, copies) under a server far slower than S3 itself: a floor on what a
real bucket gives, not a forecast of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import BenchmarkError, progress
from dataset import prepare_dataset
from measure import audit_argv, run_child, toolaudit_executable
from toolaudit.sources import Source, read_line_batches
from toolaudit.storage import READ_BLOCK_BYTES

SEED = 20261128
BUCKET = "bench-logs"
#: Started with ``sys.executable -c``: moto's server in the foreground of its own process,
#: its address on the first line of stdout, stopped when stdin closes.
SERVER = r"""
import logging, sys
from moto.server import ThreadedMotoServer
logging.getLogger("werkzeug").setLevel(logging.WARNING)
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
host, port = server.get_host_and_port()
print(f"http://{host}:{port}", flush=True)
sys.stdin.read()
server.stop()
"""
#: Never the credentials or endpoint of whoever runs the benchmark.
AWS_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
}


def start_server() -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    endpoint = server.stdout.readline().strip()
    if not endpoint.startswith("http://"):
        server.kill()
        raise BenchmarkError("moto's server did not start (is the test extra installed?)")
    return server, endpoint


def read_all(source: Source) -> int:
    """Read every line of ``source`` as the audit does; the number of lines."""
    return sum(len(lines) for lines in read_line_batches(source))


def counts_of(summary_path: Path) -> tuple[object, ...]:
    """What both audits must agree on (the summaries name their sources differently)."""
    summary = json.loads(summary_path.read_text())
    return (summary["calls"], summary["invalid"], json.dumps(summary["by_kind"], sort_keys=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="lines of the flat log")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds (default: 3)")
    args = parser.parse_args()
    os.environ.update(AWS_ENVIRONMENT)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        os.environ.pop(name, None)
    try:
        import s3fs
    except ImportError:
        print("s3_bench: needs s3fs and moto: pip install -e '.[test]'", file=sys.stderr)
        return 2
    try:
        exe = toolaudit_executable()
        dataset = prepare_dataset(args.calls, SEED)
        log = dataset.log
        size = log.stat().st_size
        server, endpoint = start_server()
        try:
            fs = s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True)
            fs.mkdir(BUCKET)
            progress(f"uploading {log.name} ({size / 1e6:.0f} MB) to moto's S3 at {endpoint} ...")
            fs.put_file(str(log), f"{BUCKET}/{log.name}")
            url = f"s3://{BUCKET}/{log.name}"
            options = {"endpoint_url": endpoint}
            rows = measure(exe, log, url, options, dataset.schemas, args.repeat)
        finally:
            server.communicate(input="", timeout=30)
    except BenchmarkError as error:
        print(f"s3_bench: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render(rows, size, args.repeat))
    return 0


def measure(
    exe: Path, log: Path, url: str, options: dict[str, str], schemas: Path, repeat: int
) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(prefix="s3-bench-") as temporary:
        out = Path(temporary)
        local_summary, remote_summary = out / "local.json", out / "s3.json"
        local_argv = audit_argv(exe, log, schemas, "--summary", str(local_summary))
        remote_argv = audit_argv(exe, Path(url), schemas, "--summary", str(remote_summary))
        remote_argv[2] = url  # (a Path would fold the URL's "//")
        remote_argv += ["--storage-option", f"endpoint_url={options['endpoint_url']}"]
        steps: dict[str, Callable[[], float]] = {
            "read, local": lambda: _timed(lambda: read_all(Source(str(log)))),
            "read, S3": lambda: _timed(lambda: read_all(Source(url, storage_options=options))),
            "audit, local": lambda: run_child(local_argv).seconds,
            "audit, S3": lambda: run_child(remote_argv).seconds,
        }
        times: dict[str, list[float]] = {name: [] for name in steps}
        for round_number in range(1, repeat + 1):
            for name, step in steps.items():
                seconds = step()
                times[name].append(seconds)
                progress(f"  round {round_number}/{repeat}  {name:<13} {seconds:7.2f}s")
            if round_number == 1 and counts_of(local_summary) != counts_of(remote_summary):
                raise BenchmarkError("the audit of the S3 object counts otherwise than the file's")
        return times


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def render(times: dict[str, list[float]], size: int, repeat: int) -> str:
    median = {name: statistics.median(seconds) for name, seconds in times.items()}
    lines = [
        f"A log of {size / 1e6:.1f} MB read from a local file and from moto's S3 server on "
        f"127.0.0.1 (blocks of {READ_BLOCK_BYTES >> 20} MiB), {os.cpu_count()} cores, medians "
        f"of {repeat} interleaved rounds (load average at the end: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}).",
        "",
        "| row | seconds | MB/s | S3 / local |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in median.items():
        local = median[name.replace("S3", "local")]
        ratio = f"{seconds / local:.2f}x" if "S3" in name else ""
        lines.append(f"| {name} | {seconds:.2f} | {size / seconds / 1e6:.0f} | {ratio} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
