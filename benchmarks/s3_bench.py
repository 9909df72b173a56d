"""Reading logs from S3 against reading them from a local file.

Figures, not pass/fail (see README.md). The S3 endpoint is moto's server, started by this
script in a process of its own on 127.0.0.1 (the real protocol, spoken through s3fs as
toolaudit speaks it to AWS) and stopped at the end; the benchmark's flat log is uploaded
to a bucket of it. The rows, medians of ``--repeat`` interleaved rounds:

- **read, local** / **read, S3**: the lines of the log read in-process as the audit reads
  them (``read_line_batches``), nothing else: the read rate in MB/s;
- **audit, local** / **audit, S3**: ``toolaudit audit`` as a subprocess, summary only,
  start-up included; the first round checks that all count the same calls and errors;
- the same two from S3 through a proxy that paces each connection's responses at
  ``--link`` MB/s, so that the download waits on a network, not on the CPU.

    .venv/bin/python benchmarks/s3_bench.py [--calls 1000000] [--repeat 3] [--link 80]

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
from toolaudit.storage.reading import READ_BLOCK_BYTES

SEED = 20261128
BUCKET = "bench-logs"
#: Started with ``sys.executable -c``: moto's server in the foreground of its own process,
#: its address on the first line of stdout, stopped when stdin closes.
SERVER = r"""
import logging, socket, sys, threading, time
from moto.server import ThreadedMotoServer
logging.getLogger("werkzeug").setLevel(logging.WARNING)
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
host, port = server.get_host_and_port()
rate = float(sys.argv[1]) * 1e6  # bytes a second each connection's responses get

def pump(source, sink, limited):
    started, sent = time.monotonic(), 0
    try:
        while data := source.recv(1 << 16):
            sink.sendall(data)
            if limited:
                sent += len(data)
                time.sleep(max(0.0, started + sent / rate - time.monotonic()))
    except OSError:
        pass
    finally:
        for end in (source, sink):
            end.close()

def accept(listener):
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection((host, port))
        threading.Thread(target=pump, args=(client, upstream, False), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, True), daemon=True).start()

listener = socket.create_server(("127.0.0.1", 0))
threading.Thread(target=accept, args=(listener,), daemon=True).start()
print(f"http://{host}:{port} http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
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


def start_server(link_mb_s: float) -> tuple[subprocess.Popen[str], str, str]:
    """moto's server, (its endpoint, and that of a proxy in front of it whose responses
    flow at ``link_mb_s`` MB/s a connection, a network's pace)."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(link_mb_s)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    endpoints = server.stdout.readline().split()
    if len(endpoints) != 2:
        server.kill()
        raise BenchmarkError("moto's server did not start (is the test extra installed?)")
    return server, endpoints[0], endpoints[1]


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
    parser.add_argument(
        "--link",
        type=float,
        default=80.0,
        metavar="MB_S",
        help="the pace of the proxied rows, MB/s a connection (default: 80, about what one "
        "connection to S3 gets in its region)",
    )
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
        server, endpoint, paced = start_server(args.link)
        try:
            fs = s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True)
            fs.mkdir(BUCKET)
            progress(f"uploading {log.name} ({size / 1e6:.0f} MB) to moto's S3 at {endpoint} ...")
            fs.put_file(str(log), f"{BUCKET}/{log.name}")
            url = f"s3://{BUCKET}/{log.name}"
            where = {"S3": endpoint, f"S3 at {args.link:g} MB/s": paced}
            rows = measure(exe, log, url, where, dataset.schemas, args.repeat)
        finally:
            server.communicate(input="", timeout=30)
    except BenchmarkError as error:
        print(f"s3_bench: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render(rows, size, args.repeat))
    return 0


def measure(
    exe: Path, log: Path, url: str, endpoints: dict[str, str], schemas: Path, repeat: int
) -> dict[str, list[float]]:
    """Each row's seconds, the rows of each endpoint (name -> its URL) after the local
    file's."""
    with tempfile.TemporaryDirectory(prefix="s3-bench-") as temporary:
        out = Path(temporary)
        summaries = {"local": out / "local.json"}
        reads: dict[str, Callable[[], float]] = {
            "read, local": lambda: _timed(lambda: read_all(Source(str(log))))
        }
        audits: dict[str, Callable[[], float]] = {}
        local_argv = audit_argv(exe, log, schemas, "--summary", str(summaries["local"]))
        audits["audit, local"] = lambda: run_child(local_argv).seconds
        for number, (name, endpoint) in enumerate(endpoints.items()):
            options = {"endpoint_url": endpoint}
            summaries[name] = out / f"remote{number}.json"
            argv = audit_argv(exe, log, schemas, "--summary", str(summaries[name]))
            argv[2] = url  # the object, not the file
            argv += ["--storage-option", f"endpoint_url={endpoint}"]
            reads[f"read, {name}"] = _reading(Source(url, storage_options=options))
            audits[f"audit, {name}"] = _running(argv)
        steps = {**reads, **audits}
        times: dict[str, list[float]] = {name: [] for name in steps}
        for round_number in range(1, repeat + 1):
            for name, step in steps.items():
                seconds = step()
                times[name].append(seconds)
                progress(f"  round {round_number}/{repeat}  {name:<22} {seconds:7.2f}s")
            if round_number == 1:
                local = counts_of(summaries["local"])
                for name, path in summaries.items():
                    if counts_of(path) != local:
                        raise BenchmarkError(f"the audit from {name} counts otherwise than local")
        return times


def _reading(source: Source) -> Callable[[], float]:
    return lambda: _timed(lambda: read_all(source))


def _running(argv: list[str]) -> Callable[[], float]:
    return lambda: run_child(argv).seconds


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def render(times: dict[str, list[float]], size: int, repeat: int) -> str:
    median = {name: statistics.median(seconds) for name, seconds in times.items()}
    lines = [
        f"A log of {size / 1e6:.1f} MB read from a local file and from moto's S3 server on "
        f"127.0.0.1 (blocks of {READ_BLOCK_BYTES >> 20} MiB), directly and through a proxy "
        f"pacing each connection, {os.cpu_count()} cores, medians of {repeat} interleaved "
        f"rounds (load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}).",
        "",
        "| row | seconds | MB/s | vs local |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in median.items():
        what, _, where = name.partition(", ")
        ratio = "" if where == "local" else f"{seconds / median[what + ', local']:.2f}x"
        lines.append(f"| {name} | {seconds:.2f} | {size / seconds / 1e6:.0f} | {ratio} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
