"""The worker processes of ``--jobs``: how they are started, what each is given (a
range of a file) and what it gives back (its summary, and its report rows in a
temporary file), and how a stop reaches them."""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.pool
import os
import signal
import tempfile
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import BinaryIO

from toolaudit.pipeline import Audit, AuditOptions
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob
from toolaudit.schemas import SchemaSet
from toolaudit.sources import Source
from toolaudit.truth.expectations import Expectations


@dataclass(frozen=True)
class PartResult:
    """What a worker gives back for one range."""

    source: Source
    summary: Summary
    report_path: str | None
    #: Why its input must be audited whole, if it must (see Audit.whole_reason).
    whole_reason: str | None
    size: int
    #: With expected calls: the score lines' temporary file (if wanted), and the ids
    #: the range's records were scored under, in order.
    scores_path: str | None = None
    scored: tuple[str, ...] = ()


# Set in each worker by start_worker, so that the schemas are sent once per
# process (or inherited, with fork), not once per range.
_worker_schemas: SchemaSet | None = None
_worker_options: AuditOptions | None = None
_worker_expectations: Expectations | None = None


#: What stops a run; held back while workers are forked (see worker_pool).
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def start_worker(
    schemas: SchemaSet, options: AuditOptions, expectations: Expectations | None = None
) -> None:
    global _worker_schemas, _worker_options, _worker_expectations
    _worker_schemas, _worker_options = schemas, options
    _worker_expectations = expectations
    # Ctrl-C reaches the whole process group: the parent alone decides what an
    # interruption means, and ends the workers (SIGTERM, which ends one at once,
    # whatever it is doing); they must not print tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _set_held(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # a SIGTERM held meanwhile ends it now


@contextlib.contextmanager
def worker_pool(processes: int, job: AuditJob) -> Iterator[multiprocessing.pool.Pool]:
    """A pool of ``processes`` workers for ``job``, ended (terminated) on leaving.

    Ctrl-C and SIGTERM are held back while it forks them, not lost: a worker forked
    with this process's handlers would turn a stop of the run into a traceback of its
    own ("Process ForkPoolWorker-1: ... KeyboardInterrupt") before start_worker set
    its own. Each worker lets them through once it has; this process, once the pool is
    made (its threads, started meanwhile, keep them held: signals are for the main
    thread, and the workers they fork later start held too).
    """
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    with contextlib.ExitStack() as stack:
        held = _set_held(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            pool = stack.enter_context(
                context.Pool(
                    processes,
                    initializer=start_worker,
                    initargs=(job.schemas, job.options, job.expectations),
                )
            )
        finally:
            _set_held(signal.SIG_SETMASK, held)  # a stop asked for meanwhile is raised here
        yield pool


def _set_held(how: int, signals: Iterable[int]) -> AbstractSet[int]:
    """signal.pthread_sigmask where there is one (not on Windows); the mask before."""
    if not hasattr(signal, "pthread_sigmask"):
        return set()
    return signal.pthread_sigmask(how, signals)


@dataclass(frozen=True)
class PartTask:
    """One range to audit, and where its outputs go: ``report_dir`` and ``scores_dir``
    receive its report rows and score lines (None: not wanted); ``stdin_copy`` is
    standard input's copy, for the source ``-``."""

    source: Source
    report_dir: str | None
    stdin_copy: str | None = None
    scores_dir: str | None = None


def audit_part(task: PartTask) -> PartResult:
    source = task.source
    assert _worker_schemas is not None and _worker_options is not None
    with contextlib.ExitStack() as stack:
        stdin = (
            None if task.stdin_copy is None else stack.enter_context(open(task.stdin_copy, "rb"))
        )
        audit = Audit(
            [source],
            _worker_schemas,
            _worker_options,
            stdin=stdin,
            expectations=_worker_expectations,
            whole_run=False,
        )
        report = _temporary(stack, task.report_dir)
        scores = _temporary(stack, task.scores_dir)
        summary = audit.run(report and report[0], scores and scores[0])
    size = (source.end if source.end is not None else (source.size() or 0)) - source.start
    scored = tuple(audit.scorer.scored) if audit.scorer is not None else ()
    return PartResult(
        source,
        summary,
        report and report[1],
        audit.whole_reason,
        size,
        scores and scores[1],
        scored,
    )


def _temporary(stack: contextlib.ExitStack, directory: str | None) -> tuple[BinaryIO, str] | None:
    """A temporary file in ``directory`` (closed with ``stack``) and its path; None
    without a directory."""
    if directory is None:
        return None
    fd, path = tempfile.mkstemp(dir=directory, suffix=".jsonl")
    return stack.enter_context(os.fdopen(fd, "wb", buffering=1 << 20)), path
