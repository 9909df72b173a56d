"""Running things and timing them: child processes, peak RSS, rounds of the rows, start-up.

toolaudit is timed as the user runs it, a subprocess with its start-up included;
the floor and the peers in-process. Every row runs once per round, round-robin,
so that the noise of a shared machine spreads over all of them; the median is
reported.
"""

from __future__ import annotations

import compileall
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from common import BenchmarkError, progress
from dataset import Dataset, prepare_rss_log
from peers import Counts

# Runs a command in a fresh, small process and reports its wall time, peak RSS and CPU
# time (user + system: on a shared machine, less moved by the others' load than the wall).
# Linux carries the parent's RSS high-water mark across fork/vfork and exec into the
# child's ru_maxrss, so a child spawned straight from this (large) benchmark process
# would report at least this process's peak; a grandchild forked from a bare
# `python -S` only inherits that interpreter's few MB.
PROBE = r"""
import os, sys, time
stdout_path, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        fd = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
cpu = usage.ru_utime + usage.ru_stime
print(elapsed, usage.ru_maxrss, os.waitstatus_to_exitcode(status), cpu)
"""


#: The floor as a child process: ``orjson.loads`` of each line of the log ``sys.argv[1]``
#: (so that it carries an interpreter's start-up, as the audits timed beside it do).
FLOOR_CHILD = (
    "import sys, orjson\n"
    "loads = orjson.loads\n"
    "with open(sys.argv[1], 'rb') as lines:\n"
    "    for line in lines:\n"
    "        loads(line)\n"
)


@dataclass(frozen=True)
class ChildRun:
    seconds: float
    peak_rss_kib: int
    exit_code: int
    cpu_seconds: float


def run_child(
    argv: list[str],
    stdout_path: str | os.PathLike[str] = os.devnull,
    ok_codes: tuple[int, ...] = (0, 1),
    env: dict[str, str] | None = None,
) -> ChildRun:
    """Run ``argv`` through the probe: wall seconds, peak RSS (KiB), exit code and CPU
    seconds; ``env`` adds to (or overrides) this process's environment."""
    probe = subprocess.run(
        [sys.executable, "-S", "-c", PROBE, os.fspath(stdout_path), *argv],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env} if env else None,
    )
    if probe.returncode != 0 or not probe.stdout.strip():
        raise BenchmarkError(f"the probe failed running {' '.join(argv)}:\n{probe.stderr}")
    seconds, peak, code, cpu = probe.stdout.split()
    run = ChildRun(float(seconds), int(peak), int(code), float(cpu))
    if run.exit_code not in ok_codes:
        raise BenchmarkError(f"{' '.join(argv)} exited {run.exit_code}:\n{probe.stderr.strip()}")
    return run


def callgrind_instructions(
    argv: list[str], env: dict[str, str] | None = None, ok_codes: tuple[int, ...] = (0,)
) -> int:
    """The instructions the command ``argv`` runs, counted by valgrind's callgrind, which a
    shared machine's load does not move; ``env`` replaces this process's environment."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode not in ok_codes or found is None:
        raise BenchmarkError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def toolaudit_executable() -> Path:
    """The toolaudit command of this venv, with its modules' bytecode written first."""
    path = Path(sys.executable).with_name("toolaudit")
    if not path.exists():
        raise BenchmarkError(
            f"{path} not found: run `make bench`, which installs the package into .venv"
        )
    import toolaudit

    compile_bytecode(Path(toolaudit.__file__).parent)
    return path


def compile_bytecode(package: Path) -> None:
    """Write the bytecode of every module under ``package``, as installing it does.

    The package is installed for editing, and a machine may set PYTHONDONTWRITEBYTECODE
    (the one these figures were measured on does): every run would then compile its
    80-odd modules again, about 75 ms of start-up that an installed toolaudit never pays.
    """
    if not compileall.compile_dir(package, quiet=1):
        raise BenchmarkError(f"the modules under {package} could not be compiled")


def audit_argv(exe: Path, log: Path, schemas: Path, *extra: str) -> list[str]:
    return [
        str(exe),
        "audit",
        str(log),
        "--schemas",
        str(schemas),
        "--no-progress",
        "--format",
        "json",
        *extra,
    ]


@dataclass
class Variant:
    """One row of the table: how to run it once, and its timings so far."""

    key: str
    label: str
    run: Callable[[], float] | None  # None: not available, see ``unavailable``
    unavailable: str = ""
    seconds: list[float] = field(default_factory=list)
    counts: Counts | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


def timed_in_process(
    variant_counts: Callable[[], Counts], keep: Callable[[Counts], None]
) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        counts = variant_counts()
        elapsed = time.perf_counter() - started
        keep(counts)
        return elapsed

    return run


def timed_child(argv: list[str]) -> Callable[[], float]:
    return lambda: run_child(argv).seconds


def measure_round_robin(variants: list[Variant], repeat: int) -> None:
    """Each variant once per round, in turn, so that the machine's noise spreads over all."""
    runnable = [v for v in variants if v.run is not None]
    for round_number in range(1, repeat + 1):
        for variant in runnable:
            assert variant.run is not None
            seconds = variant.run()
            variant.seconds.append(seconds)
            progress(f"  round {round_number}/{repeat}  {variant.key:>2}  {seconds:7.3f}s")


def measure_startup(
    argv: list[str], ok_codes: tuple[int, ...], times: int = 10
) -> tuple[float, int]:
    """Median seconds of a short command (``toolaudit --version``, an audit of one line),
    and its peak RSS (KiB); ``ok_codes``: the exit codes it may end with."""
    runs = [run_child(argv, ok_codes=ok_codes) for _ in range(times)]
    return statistics.median(r.seconds for r in runs), max(r.peak_rss_kib for r in runs)


@dataclass(frozen=True)
class RssResult:
    calls: int
    rss_calls: int
    base: ChildRun
    big: ChildRun


def measure_rss(exe: Path, dataset: Dataset, calls: int, rss_calls: int) -> RssResult:
    big_log = prepare_rss_log(dataset, calls, rss_calls)
    progress("peak RSS: summary-only audit of both logs ...")
    base = run_child(audit_argv(exe, dataset.log, dataset.schemas))
    big = run_child(audit_argv(exe, big_log, dataset.schemas))
    return RssResult(calls, rss_calls, base, big)
