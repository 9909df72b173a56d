"""The plain runner: the whole audit in this process."""

from __future__ import annotations

from typing import BinaryIO

from toolaudit.pipeline import Audit
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob, Interrupted, RunHooks


class SerialRunner:
    """Audits the job in this process."""

    def run(
        self,
        job: AuditJob,
        report: BinaryIO | None = None,
        hooks: RunHooks | None = None,
        scores: BinaryIO | None = None,
    ) -> Summary:
        hooks = hooks if hooks is not None else RunHooks()
        audit = Audit(
            job.sources,
            job.schemas,
            job.options,
            on_bytes=hooks.on_bytes,
            stdin=hooks.stdin,
            stop=hooks.stop,
            expectations=job.expectations,
        )
        try:
            return audit.run(report, scores)
        except KeyboardInterrupt as stop:
            raise Interrupted(audit.finish(interrupted=True), type(stop)) from None
