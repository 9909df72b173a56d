"""Where an audit runs: in this process, or in several (``--jobs``).

Every runner takes an :class:`AuditJob` and gives the same report rows and
the same :class:`~toolaudit.results.summary.Summary` as one process would.
"""

from __future__ import annotations

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
    "runner_for",
]


def runner_for(*, jobs: int = 1) -> Runner:
    """The runner for ``--jobs N`` (0: one process per core)."""
    return SerialRunner() if jobs == 1 else ParallelRunner(jobs)
