"""Where an audit runs: in this process, or in several (``--jobs``).

Every runner takes an :class:`AuditJob` and gives the same report rows and
the same :class:`~toolaudit.results.summary.Summary` as one process would.
"""

from __future__ import annotations

from typing import BinaryIO

from toolaudit.output.files import AtomicOutput
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob, Interrupted, RunHooks, Runner
from toolaudit.runners.parallel import ParallelRunner, job_count
from toolaudit.runners.serial import SerialRunner

__all__ = [
    "AuditJob",
    "Interrupted",
    "ParallelRunner",
    "RunHooks",
    "Runner",
    "SerialRunner",
    "job_count",
    "run_job",
    "runner_for",
]


def runner_for(*, jobs: int = 1) -> Runner:
    """The runner for ``--jobs N`` (0: one process per core)."""
    return SerialRunner() if jobs == 1 else ParallelRunner(jobs)


def run_job(
    job: AuditJob,
    *,
    report: str | BinaryIO | None = None,
    jobs: int = 1,
    hooks: RunHooks | None = None,
) -> Summary:
    """Run ``job`` as ``--jobs jobs`` says. ``report`` is a path (written whole at
    the end, never half-written; ``-`` is stdout) or a binary file."""
    runner = runner_for(jobs=jobs)
    if isinstance(report, str):
        with AtomicOutput(report) as report_file:
            return runner.run(job, report_file, hooks)
    return runner.run(job, report, hooks)
