"""What every runner takes and gives: a job to audit, hooks into the run, a Summary.

A runner decides where the pipeline runs (this process, several, a cluster);
it builds its own :class:`~toolaudit.pipeline.Audit` objects from the job and
never reaches into one from outside.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, Protocol

from toolaudit.pipeline import AuditOptions, StopRequest
from toolaudit.results.summary import Summary
from toolaudit.schemas import NO_SCHEMAS, SchemaSet
from toolaudit.sources import Source

if TYPE_CHECKING:
    from toolaudit.truth.expectations import Expectations


@dataclass(frozen=True)
class AuditJob:
    """What to audit: the inputs, the schemas that judge them, and the options."""

    sources: Sequence[Source]
    schemas: SchemaSet = NO_SCHEMAS
    options: AuditOptions = field(default_factory=AuditOptions)
    #: The expected calls the records are scored against (--expected), if any.
    expectations: Expectations | None = None


@dataclass(frozen=True)
class RunHooks:
    """How a run talks to its caller while it goes."""

    #: Told how many bytes were consumed (progress), in the caller's process.
    on_bytes: Callable[[int], object] | None = None
    #: Shared with a signal handler that may ask the run to stop.
    stop: StopRequest = field(default_factory=StopRequest)
    #: Told, in one line, what a person should know about how the run went (a
    #: run that could not be shared among processes says why). The CLI prints
    #: it on stderr; None makes it a RuntimeWarning.
    notify: Callable[[str], None] | None = None
    #: Standard input, for the source ``-`` (tests give a pipe of their own).
    stdin: BinaryIO | None = None
    #: Told, by a runner that works in blocks (--dask), how many blocks are done of
    #: how many, each time one is.
    on_block: Callable[[int, int], object] | None = None

    def tell(self, message: str) -> None:
        """Pass a notice on to ``notify``."""
        if self.notify is not None:
            self.notify(message)
        else:
            warnings.warn(message, RuntimeWarning, stacklevel=3)


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM. ``summary`` counts what was audited
    (it says ``complete: false``); ``interruption`` is what stopped it."""

    def __init__(self, summary: Summary, interruption: type[KeyboardInterrupt]) -> None:
        super().__init__()
        self.summary = summary
        self.interruption = interruption


class Runner(Protocol):
    """Runs an audit job; writes the report rows (JSONL) to ``report`` if given,
    in input order, and returns the summary. Raises :class:`Interrupted` when
    stopped, after writing every complete row it can."""

    def run(
        self,
        job: AuditJob,
        report: BinaryIO | None = None,
        hooks: RunHooks | None = None,
        scores: BinaryIO | None = None,
    ) -> Summary:
        """Audit the job; see the class docstring. ``scores`` receives a line per
        expected entry, when the job has expected calls."""
        ...
