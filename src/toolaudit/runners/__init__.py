"""Where an audit runs: in this process, in several (``--jobs``), or on a Dask cluster.

Every runner takes an :class:`AuditJob` and gives the same report rows and
the same :class:`~toolaudit.results.summary.Summary` as one process would.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, BinaryIO

from toolaudit.errors import OptionError
from toolaudit.output.files import AtomicOutput
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob, Interrupted, RunHooks, Runner
from toolaudit.runners.serial import SerialRunner
from toolaudit.sources import DEFAULT_BLOCKSIZE

if TYPE_CHECKING:
    from distributed import Client

    from toolaudit.runners.dask import DaskRunner
    from toolaudit.runners.parallel import ParallelRunner, job_count

#: Imported when first asked for: a run in one process (most) starts without
#: multiprocessing and the Dask runner's modules.
_LAZY = {
    "DaskRunner": "toolaudit.runners.dask",
    "ParallelRunner": "toolaudit.runners.parallel",
    "job_count": "toolaudit.runners.parallel",
}

__all__ = [
    "AuditJob",
    "DaskRunner",
    "Interrupted",
    "ParallelRunner",
    "RunHooks",
    "Runner",
    "SerialRunner",
    "job_count",
    "run_job",
    "runner_for",
]


def runner_for(
    *,
    jobs: int = 1,
    dask: Client | None = None,
    blocksize: int | str = DEFAULT_BLOCKSIZE,
    parts: str | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> Runner:
    """The runner for ``--jobs N`` (0: one process per core), or for the Dask cluster
    of a ``distributed.Client`` (``parts``: the directory or URL prefix its workers
    write the report to, as ``part-00000.jsonl``...)."""
    if dask is not None:
        if jobs != 1:
            raise OptionError("a Dask cluster and --jobs cannot be combined: choose one")
        from toolaudit.runners.dask import DaskRunner

        return DaskRunner(dask, blocksize=blocksize, parts=parts, storage_options=storage_options)
    if jobs == 1:
        return SerialRunner()
    from toolaudit.runners.parallel import ParallelRunner

    return ParallelRunner(jobs)


def run_job(
    job: AuditJob,
    *,
    report: str | BinaryIO | None = None,
    jobs: int = 1,
    hooks: RunHooks | None = None,
    storage_options: Mapping[str, Any] | None = None,
    dask: Client | None = None,
    blocksize: int | str = DEFAULT_BLOCKSIZE,
    scores: str | BinaryIO | None = None,
) -> Summary:
    """Run ``job`` as ``--jobs jobs`` says. ``report`` is a path or a URL (written whole
    at the end, never half-written; ``-`` is stdout; a URL with ``storage_options``)
    or a binary file; so is ``scores``, which receives a line per expected entry of a
    job with expected calls.

    With ``dask`` (a ``distributed.Client``), the job runs on its cluster in blocks of
    ``blocksize`` bytes, and a ``report`` path or URL (not ``-``) names a directory or
    prefix that receives the report as parts, written by the workers."""
    # On a cluster, a report path names where the workers write its parts.
    parts = report if dask is not None and isinstance(report, str) and report != "-" else None
    runner = runner_for(
        jobs=jobs,
        dask=dask,
        blocksize=blocksize,
        parts=parts,
        storage_options=storage_options if parts is not None else None,
    )
    with ExitStack() as outputs:
        if parts is not None:
            report = None
        elif isinstance(report, str):
            report = outputs.enter_context(AtomicOutput(report, storage_options=storage_options))
        if isinstance(scores, str):
            scores = outputs.enter_context(AtomicOutput(scores, storage_options=storage_options))
        return runner.run(job, report, hooks, scores)


def __getattr__(name: str) -> Any:
    """The runners of ``_LAZY``, imported on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
