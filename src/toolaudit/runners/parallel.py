"""``--jobs``: one audit in several processes, with exactly the outputs of one process.

Plain files are cut into line-aligned byte ranges (gzip files and stdin stay
whole, since they cannot be entered in the middle; so do URLs, which numbering
the lines of a range would download twice); each range is audited in a
worker process, which writes its report rows to a temporary file and returns
its summary. The parent then writes the reports in input order and merges the
summaries, so the outputs are byte for byte those of ``--jobs 1``. A first pass
counts the ranges' lines, so that rows carry the file's line numbers; a summary
alone does without (see :func:`~toolaudit.runners.ranges.lines_counted_first`).

Standard input beside other inputs is read to its end first, into a temporary
file: a worker cannot read the parent's stdin (a forked one's is /dev/null), and
an audit done again in one process (see below) must read it again.

Some records define tools for the records after them (an MCP ``tools/list``
result, an OpenAI Batch input line). A range audited alone would not see
them; when a worker meets one, the audit is done again in one process.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import BinaryIO

from toolaudit.errors import InputError, ToolAuditError
from toolaudit.pipeline import Audit
from toolaudit.pipeline.scoring import with_missing_entries
from toolaudit.results.merging import merge_blocks, merge_summaries
from toolaudit.results.source_status import joined_statuses
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob, Interrupted, RunHooks
from toolaudit.runners.pool import PartResult, PartTask, audit_part, worker_pool
from toolaudit.runners.ranges import count_newlines, line_start, lines_counted_first, scored_once
from toolaudit.runners.serial import SerialRunner
from toolaudit.sources import STDIN, Source, copy_stdin, is_gzip

#: Ranges are at least this big: below it, a process costs more than it saves.
MIN_PART_BYTES = 4 << 20
#: Ranges per worker, so that a slow range does not leave the other workers idle.
PARTS_PER_JOB = 4


def job_count(jobs: int) -> int:
    """``--jobs 0`` means one per core."""
    return max(1, os.cpu_count() or 1) if jobs == 0 else jobs


def plan_parts(sources: list[Source], jobs: int) -> list[Source]:
    """The sources, with every large plain file cut into line-aligned ranges.

    The ranges' ``first_line`` is not known yet (see :func:`_number_lines`).
    """
    parts: list[Source] = []
    for source in sources:
        size = source.size()
        if (
            source.is_stdin
            or source.is_remote
            or source.is_part
            or size is None
            or size < 2 * MIN_PART_BYTES
            or _gzip_or_unopenable(source.name)
        ):
            parts.append(source)
            continue
        count = min(jobs * PARTS_PER_JOB, size // MIN_PART_BYTES)
        with open(source.name, "rb") as file:
            starts = [0]
            for number in range(1, count):
                start = line_start(file, size * number // count)
                if start is None or start >= size:
                    break
                if start > starts[-1]:
                    starts.append(start)
        parts.extend(
            Source(source.name, start=a, end=b)
            for a, b in zip(starts, [*starts[1:], size], strict=True)
        )
    return parts


def _gzip_or_unopenable(path: str) -> bool:
    """Whether a file must be audited whole: gzip, or a file that cannot be opened (whose
    audit then says so in its place, as one process's does)."""
    try:
        return is_gzip(path)
    except OSError:
        return True


def _count_newlines(part: Source) -> int:
    """Newlines in a range of a file (0 for a whole source, which starts at line 1 anyway)."""
    if not part.is_part:
        return 0
    with open(part.name, "rb", buffering=0) as file:
        newlines, _, _ = count_newlines(file, part.start, part.end)
    return newlines


def _newlines(pool: multiprocessing.pool.Pool, parts: list[Source]) -> list[int]:
    """The newlines of each range, counted in ``pool``, where they number the lines after
    it: not in a file's last range (0 for it)."""
    numbering = [i for i in range(len(parts) - 1) if parts[i + 1].start > 0]
    counts = pool.map(_count_newlines, [parts[i] for i in numbering])
    counted = dict(zip(numbering, counts, strict=True))
    return [counted.get(i, 0) for i in range(len(parts))]


def _number_lines(parts: list[Source], newlines: list[int]) -> list[Source]:
    """Give each range of a file the number of its first line."""
    numbered = []
    first_line = 1
    for part, count in zip(parts, newlines, strict=True):
        if part.start == 0:  # an input's first range, or an input whole (maybe one given twice)
            first_line = 1
        numbered.append(replace(part, first_line=first_line))
        first_line += count
    return numbered


def _merged(results: list[PartResult], numbered: bool) -> Summary:
    """The summaries of the ranges, merged (``numbered``: see lines_counted_first), with
    one status per input (see joined_statuses)."""
    # Each range's input by number: a range from byte 0 starts the next input.
    inputs = accumulate(int(result.source.start == 0) for result in results)
    statuses = joined_statuses(
        (number, status)
        for number, result in zip(inputs, results, strict=True)
        for status in result.summary.sources
    )
    merge = merge_summaries if numbered else merge_blocks
    summary = merge(result.summary for result in results)
    return replace(summary, sources=[status for _, status in statuses])


class ParallelRunner:
    """Audits the job in ``jobs`` worker processes (0: one per core)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = job_count(jobs)

    def run(
        self,
        job: AuditJob,
        report: BinaryIO | None = None,
        hooks: RunHooks | None = None,
        scores: BinaryIO | None = None,
    ) -> Summary:
        hooks = hooks if hooks is not None else RunHooks()
        parts = plan_parts(list(job.sources), self.jobs)
        if self.jobs == 1 or len(parts) == 1:
            if self.jobs > 1:
                hooks.tell(f"--jobs {self.jobs}: audited in one process: {_why_whole(parts[0])}")
            return SerialRunner().run(job, report, hooks, scores)
        again = _OneProcess(job, report, hooks, scores)
        # A report that can be rewound is written as the ranges come in, overlapping
        # the copy with the workers still running; one that cannot (a pipe) waits,
        # in case the audit must be done again in one process.
        # (Only from its very start: stdout opened for appending is not ours to rewind.)
        streaming = report is not None and report.seekable() and report.tell() == 0
        with tempfile.TemporaryDirectory(prefix="toolaudit-") as report_dir:
            # (Score lines carry line numbers too.)
            numbered = lines_counted_first(
                job.sources, rows=report is not None or scores is not None
            )
            stdin_copy = None
            if any(part.is_stdin for part in parts):
                try:
                    stdin_copy = _copy_stdin(report_dir, hooks, job, numbered)
                except InputError as error:
                    # Said in its place, as one process would: its reading raises it again.
                    why = str(error).removeprefix(f"{STDIN}: ")
                    parts = [replace(p, unreadable=why) if p.is_stdin else p for p in parts]
            again.rewind, again.stdin_copy = streaming, stdin_copy
            try:
                results = self._audit_parts(
                    job,
                    (parts, stdin_copy),
                    report,
                    (report_dir, scores),
                    streaming,
                    numbered,
                    hooks,
                )
            except ToolAuditError:
                # A run that stops (a call with no schemas) must stop where one process
                # would, with the same message: let one process find it.
                return again.run()
            whole = next((r for r in results if r.whole_reason), None)
            if whole is not None:
                hooks.tell(
                    f"--jobs {self.jobs}: audited again in one process: {whole.source.name} "
                    f"{whole.whole_reason}"
                )
                return again.run()
            if not numbered and any(
                result.source.start > 0 and not result.summary.complete for result in results
            ):
                # A later range read only in part says so by a line numbered from 1:
                # the reading of one process says where, in the file's own numbers.
                return again.run()
            scored = scored_once(r.scored for r in results)
            if scored is None:
                # An id scored in two ranges: one process scores its first record only.
                return again.run()
            if report is not None and not streaming:
                for result in results:
                    _append_report(result, report)
            summary = _merged(results, numbered)
            if job.expectations is None:
                return summary
            for result in results:
                _append_scores(result, scores)
            return with_missing_entries(summary, job.expectations, scored, scores)

    def _audit_parts(
        self,
        job: AuditJob,
        planned: tuple[list[Source], str | None],
        report: BinaryIO | None,
        directory: tuple[str, BinaryIO | None],
        streaming: bool,
        numbered: bool,
        hooks: RunHooks,
    ) -> list[PartResult]:
        """Every part's result, in order; stops at the first part that must be audited
        whole. ``planned``: the parts, and where standard input was copied (if it was);
        ``directory``: where the parts' outputs go, and the score lines' file (None: not
        wanted)."""
        parts, stdin_copy = planned
        report_dir, scores = directory
        want_scores = scores is not None
        results: list[PartResult] = []
        try:
            with worker_pool(min(self.jobs, len(parts)), job) as pool:
                # Report rows give line numbers: a first pass counts each range's
                # lines, in parallel too.
                if numbered:
                    parts = _number_lines(parts, _newlines(pool, parts))
                tasks = [
                    PartTask(
                        part,
                        report_dir if report is not None else None,
                        stdin_copy if part.is_stdin else None,
                        report_dir if want_scores else None,
                    )
                    for part in parts
                ]
                for result in pool.imap(audit_part, tasks):
                    results.append(result)
                    if result.whole_reason:
                        break  # see the module's docstring
                    if streaming:
                        assert report is not None
                        _append_report(result, report)
                    if hooks.on_bytes is not None:
                        hooks.on_bytes(result.size)
        except KeyboardInterrupt as stop:
            # The report holds the ranges finished in order; so do the summary and the
            # score lines, unless two of those ranges scored one id (see scored_once).
            done = results if streaming or report is None else []
            if job.expectations is not None and scored_once(r.scored for r in done) is None:
                done = []
            for result in done:
                _append_scores(result, scores)
            summary = _interrupted_summary(job, done, numbered)
            raise Interrupted(summary, type(stop)) from None
        return results


def _why_whole(source: Source) -> str:
    """Why a lone source cannot be cut into ranges for several processes."""
    if source.is_stdin:
        return "standard input is read as it comes"
    if source.is_remote:
        return f"{source.name} is a URL, which is read whole"
    if source.unreadable is not None:
        return f"{source.name} cannot be read"
    try:
        # (Not opened unless a plain file: a named pipe's first bytes are the audit's.)
        regular = stat.S_ISREG(os.stat(source.name).st_mode)
        if regular and is_gzip(source.name):
            return f"{source.name} is gzip, which cannot be entered in the middle"
    except OSError as error:
        return f"{source.name} cannot be read ({error.strerror or error})"
    if not regular:
        return f"{source.name} is not a plain file: it is read as it comes"
    return f"{source.name} is under {2 * MIN_PART_BYTES >> 20} MiB"


def _append_report(result: PartResult, report: BinaryIO) -> None:
    assert result.report_path is not None
    with open(result.report_path, "rb") as part_report:
        shutil.copyfileobj(part_report, report, 1 << 20)
    os.unlink(result.report_path)


def _append_scores(result: PartResult, scores: BinaryIO | None) -> None:
    if result.scores_path is None:
        return
    if scores is not None:
        with open(result.scores_path, "rb") as part_scores:
            shutil.copyfileobj(part_scores, scores, 1 << 20)
    os.unlink(result.scores_path)


@dataclass
class _OneProcess:
    """The audit done again in one process, its outputs as one process writes them:
    the report started afresh (``rewind``: it was being written), standard input read
    from its copy (``stdin_copy``: it was read once already)."""

    job: AuditJob
    report: BinaryIO | None
    hooks: RunHooks
    scores: BinaryIO | None
    rewind: bool = False
    stdin_copy: str | None = None

    def run(self) -> Summary:
        if self.report is not None and self.rewind:
            self.report.seek(0)
            self.report.truncate()
        if self.stdin_copy is None:
            return SerialRunner().run(self.job, self.report, self.hooks, self.scores)
        with open(self.stdin_copy, "rb") as stdin:  # read once: read again from its copy
            hooks = replace(self.hooks, stdin=stdin)
            return SerialRunner().run(self.job, self.report, hooks, self.scores)


def _copy_stdin(directory: str, hooks: RunHooks, job: AuditJob, numbered: bool) -> str:
    """Standard input, read to its end into a file in ``directory`` (see the module's
    docstring); its path. Progress counts its bytes here, as they are read."""
    path = os.path.join(directory, "stdin")
    try:
        copy_stdin(path, hooks.stdin, hooks.on_bytes)
    except KeyboardInterrupt as stop:
        raise Interrupted(_interrupted_summary(job, [], numbered), type(stop)) from None
    return path


def _interrupted_summary(job: AuditJob, done: list[PartResult], numbered: bool) -> Summary:
    if not done:
        # Nothing finished in order: an empty audit of the job, marked incomplete.
        return Audit(job.sources, job.schemas, job.options).finish(interrupted=True)
    summary = _merged(done, numbered)
    last = replace(summary.sources[-1], complete=False, error="interrupted before the end")
    return replace(summary, complete=False, sources=[*summary.sources[:-1], last])
