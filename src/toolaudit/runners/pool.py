"""The worker processes of ``--jobs``: how they are started, what each is given (a
range of a file) and what it gives back (its summary, and its report rows in a
temporary file), and how a stop reaches them.

A pool is ended by asking, never by killing: a worker killed while it sends a result
dies holding the lock of the results' pipe, and the pool's own ending then waits for
that lock for ever (CPython issue 96995). So leaving :func:`worker_pool` sets a shared
event; a worker sees it at the end of the batch of lines in progress, or before its
next range, and gives up the range; then the pool is closed and joined. Only a worker
that has not ended after ``GRACE_SECONDS`` (one blocked reading a pipe that never
ends, say) is killed, and only then can the hang above happen.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.pool
import os
import signal
import tempfile
import threading
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from toolaudit.pipeline import Audit, AuditOptions, StopRequest
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob
from toolaudit.schemas import SchemaSet
from toolaudit.sources import Source
from toolaudit.truth.expectations import Expectations


class EventLike(Protocol):
    """What a worker needs of the event that ends its pool (multiprocessing.Event)."""

    def is_set(self) -> bool: ...


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
_worker_stop: StopWhenAsked | None = None


class RangeAbandoned(Exception):
    """Raised in a worker whose pool is being ended: the range's result is not wanted."""


class StopWhenAsked(StopRequest):
    """A worker's stop: asked by the parent through a shared event, which the audit
    loop looks at between batches (see StopRequest.raise_pending)."""

    __slots__ = ("asked",)

    def __init__(self, asked: EventLike) -> None:
        super().__init__()
        self.asked = asked

    def raise_pending(self) -> None:
        if self.asked.is_set():
            raise RangeAbandoned("the pool is ending")
        super().raise_pending()


#: How long the workers of an ending pool have to end the batch in progress (a batch
#: is a 64 KiB read: milliseconds) before they are killed.
GRACE_SECONDS = 2.0

#: What stops a run; held back while workers are forked (see worker_pool).
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def start_worker(
    schemas: SchemaSet,
    options: AuditOptions,
    expectations: Expectations | None,
    ending: EventLike,
) -> None:
    global _worker_schemas, _worker_options, _worker_expectations, _worker_stop
    _worker_schemas, _worker_options = schemas, options
    _worker_expectations = expectations
    _worker_stop = StopWhenAsked(ending)
    # Ctrl-C reaches the whole process group: the parent alone decides what an
    # interruption means, and ends the workers (SIGTERM, which ends one at once,
    # whatever it is doing); they must not print tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _set_held(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # a SIGTERM held meanwhile ends it now


@contextlib.contextmanager
def worker_pool(processes: int, job: AuditJob) -> Iterator[multiprocessing.pool.Pool]:
    """A pool of ``processes`` workers for ``job``, ended on leaving: the ranges still
    to do are given up, the ranges in progress at the end of their batch (see the
    module's docstring), and the workers exit on their own.

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
    ending = context.Event()
    held = _set_held(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        pool = context.Pool(
            processes,
            initializer=start_worker,
            initargs=(job.schemas, job.options, job.expectations, ending),
        )
    finally:
        _set_held(signal.SIG_SETMASK, held)  # a stop asked for meanwhile is raised here
    try:
        yield pool
    finally:
        ending.set()
        pool.close()
        _join_or_terminate(pool, GRACE_SECONDS)


def _join_or_terminate(pool: multiprocessing.pool.Pool, grace: float) -> None:
    """Wait ``grace`` seconds for the pool's workers to end on their own, then kill
    them. A stop asked for meanwhile (a second Ctrl-C) kills them at once."""
    # Pool.join has no timeout: it waits in a thread of its own.
    joining = threading.Thread(target=pool.join, name="toolaudit-pool-join", daemon=True)
    joining.start()
    try:
        joining.join(grace)
    finally:
        if joining.is_alive():
            pool.terminate()


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
    assert _worker_stop is not None
    _worker_stop.raise_pending()  # a range not begun when the pool ends is given up
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
            stop=_worker_stop,
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
