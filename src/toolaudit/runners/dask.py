"""``--dask``: one audit on a Dask cluster, with exactly the outputs of one process.

The inputs are cut into units (line-aligned blocks of plain files, whole gzip
files; see :mod:`toolaudit.runners.blocks`). After a first pass that numbers
the blocks' lines (skipped when only the summary is wanted), each unit is
audited on a worker, which writes its report rows to a part (see
:mod:`toolaudit.runners.parts`) or returns them, and returns its summary; the
summaries are merged on the cluster by a tree reduction, in input order, so
the merged summary is that of one process.

The schemas reach the workers as one task whose result every audit task
depends on: it travels as the schemas' definitions and is compiled once per
worker process (see :meth:`SchemaSet.__reduce__`). A worker that dies has its
tasks run again by Dask; tasks are pure, so nothing is counted twice.

Some records define tools for the records after them (an MCP ``tools/list``
result, an OpenAI Batch input line): a file where a block meets one is audited
again, whole, in one task, and the caller is told.

Dask itself is imported only when a run asks for it (see :mod:`toolaudit.runners.cluster`).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import takewhile
from typing import TYPE_CHECKING, Any, BinaryIO

from toolaudit.errors import OptionError
from toolaudit.output.files import AtomicOutput
from toolaudit.pipeline import Audit
from toolaudit.pipeline.scoring import with_missing_entries
from toolaudit.results.summary import Summary
from toolaudit.runners.base import AuditJob, Interrupted, RunHooks
from toolaudit.runners.blocks import (
    Counted,
    File,
    Result,
    Task,
    Unit,
    audit_task,
    count_block,
    merged_results,
    numbered_units,
    parse_blocksize,
    plan_files,
    uncounted_units,
)
from toolaudit.runners.cluster import (
    IDLE_SECONDS,
    ClusterError,
    check_workers,
    cluster_faults,
    connect,
    distributed_module,
    wait_idle,
)
from toolaudit.runners.parts import Parts, part_name
from toolaudit.runners.ranges import lines_counted_first, scored_once
from toolaudit.runners.serial import SerialRunner
from toolaudit.schemas import SchemaSet
from toolaudit.sources import DEFAULT_BLOCKSIZE

if TYPE_CHECKING:
    from distributed import Client, Future

#: Results merged by one task of the tree reduction.
FAN_IN = 16

__all__ = ["DEFAULT_BLOCKSIZE", "ClusterError", "DaskRunner", "connect", "parse_blocksize"]


class DaskRunner:
    """Audits the job on the cluster of ``client``, in blocks of ``blocksize`` bytes.

    With ``parts`` (a directory or URL prefix), the workers write the report as
    parts there; else a report given to :meth:`run` receives the rows in order,
    sent back by the workers (fine for small runs; parts scale).
    """

    def __init__(
        self,
        client: Client,
        *,
        blocksize: int | str = DEFAULT_BLOCKSIZE,
        parts: str | None = None,
        storage_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.blocksize = parse_blocksize(blocksize)
        self.parts = Parts(parts, storage_options) if parts is not None else None

    def run(
        self,
        job: AuditJob,
        report: BinaryIO | None = None,
        hooks: RunHooks | None = None,
        scores: BinaryIO | None = None,
    ) -> Summary:
        hooks = hooks if hooks is not None else RunHooks()
        if report is not None and self.parts is not None:
            raise OptionError("give the report as parts or as a stream, not both")
        if any(source.is_stdin for source in job.sources):
            raise OptionError("on a Dask cluster the workers read the inputs: not standard input")
        Audit([], job.schemas, job.options)  # refuses options the schemas cannot serve, here
        check_workers(self.client)
        threads = sum(self.client.nthreads().values())
        files = plan_files(job.sources, self.blocksize, threads)
        if self.parts is not None:
            self.parts.prepare()
        return _Run(self.client, job, hooks, self.parts, (report, scores)).audit(files)


@dataclass(frozen=True)
class _Entry:
    """A submitted task, in input order: its future, its file, the parts it writes."""

    future: Future
    file: int
    parts: range
    #: Audits its file whole (a file of one unit, or one audited again): what it says
    #: of tools defined by records is the truth, not a reason to audit again.
    whole: bool


class _Run:
    """One run on the cluster: its tasks, in input order, and what they gave."""

    def __init__(
        self,
        client: Client,
        job: AuditJob,
        hooks: RunHooks,
        parts: Parts | None,
        outputs: tuple[BinaryIO | None, BinaryIO | None],
    ) -> None:
        self.client, self.job, self.hooks = client, job, hooks
        #: The report (when not written as parts) and the score lines' file.
        self.parts, (self.report, self.scores) = parts, outputs
        self.name = uuid.uuid4().hex[:12]
        self.units: list[Unit] = []
        self.part_names: list[str] = []
        self.entries: list[_Entry] = []
        #: Every task of the tree reductions (see _stopped).
        self.merges: list[Future] = []

    def audit(self, files: Sequence[File]) -> Summary:
        try:
            schemas = self.client.submit(
                _arrived, self.job.schemas, key=f"toolaudit-schemas-{self.name}", pure=False
            )
            # Scoring needs every record's line, and knows them only in counted units.
            scoring = self.job.expectations is not None
            self.units = (
                numbered_units(files, self._counted(files))
                if lines_counted_first(
                    self.job.sources,
                    rows=self.parts is not None or self.report is not None or scoring,
                )
                else uncounted_units(files)
            )
            self.part_names = [part_name(i, len(self.units)) for i in range(len(self.units))]
            units_of = Counter(unit.file for unit in self.units)
            tasks = [self._task(i, unit) for i, unit in enumerate(self.units)]
            self.entries = [
                _Entry(future, unit.file, range(i, i + 1), units_of[unit.file] == 1)
                for i, (future, unit) in enumerate(
                    zip(self._submit(tasks, schemas, "block"), self.units, strict=True)
                )
            ]
            top = self._reduce("block")
            self._follow()
            result = _result(top)
            whole = dict(result.defining)
            again = sorted({f for f in (*whole, *result.failed, *result.redo) if units_of[f] > 1})
            if again:
                result = self._again_whole(again, whole, schemas)
        except KeyboardInterrupt as stop:
            raise Interrupted(self._stopped(), type(stop)) from None
        if result.error is not None:
            if self.parts is not None:
                self.parts.keep_only(())
            raise result.error
        expectations = self.job.expectations
        if expectations is None:
            self._finish()
            return result.summary
        results = [_result(entry.future) for entry in self.entries]
        scored = scored_once(r.scored for r in results)
        if scored is None:
            return self._again_here()
        self._finish(results)
        return with_missing_entries(result.summary, expectations, scored, self.scores)

    def _counted(self, files: Sequence[File]) -> list[Counted]:
        """Every block of the files, counted on the workers, in order."""
        blocks = [block for file in files for block in file.blocks()]
        if not blocks:
            return []
        keys = [f"toolaudit-count-{self.name}-{i}" for i in range(len(blocks))]
        futures = self.client.map(count_block, *zip(*blocks, strict=True), key=keys, pure=False)
        counted: list[Counted] = cluster_faults(self.client.gather, futures)
        return counted

    def _task(self, index: int, unit: Unit, emptied: Sequence[int] = ()) -> Task:
        parts, scores = self.parts, self.scores is not None
        if parts is None:
            return Task(unit, collect=self.report is not None, scores=scores)
        return Task(
            unit,
            part=parts.path(self.part_names[index]),
            emptied=tuple(parts.path(self.part_names[i]) for i in emptied),
            scores=scores,
            part_options=parts.storage_options,
        )

    def _submit(self, tasks: Sequence[Task], schemas: Future, what: str) -> list[Future]:
        keys = [f"toolaudit-{what}-{self.name}-{i}" for i in range(len(tasks))]
        return list(
            self.client.map(
                audit_task,
                tasks,
                schemas=schemas,
                options=self.job.options,
                expectations=self.job.expectations,
                key=keys,
                pure=False,
            )
        )

    def _reduce(self, what: str) -> Future:
        """The merged result of every entry, by a tree of tasks that keeps their order.
        ``what`` names this merge apart from an earlier one of the run: Dask gives back
        the result it holds for a key, whatever the new task would compute."""
        level, depth = [entry.future for entry in self.entries], 0
        while len(level) > 1:
            chunks = [level[i : i + FAN_IN] for i in range(0, len(level), FAN_IN)]
            keys = [f"toolaudit-merge-{what}-{self.name}-{depth}-{i}" for i in range(len(chunks))]
            level = list(self.client.map(merged_results, chunks, key=keys, pure=False))
            self.merges.extend(level)
            depth += 1
        return level[0]

    def _follow(self) -> None:
        """Tell the hooks of each unit audited, as they finish."""
        on_bytes, on_block = self.hooks.on_bytes, self.hooks.on_block
        if on_bytes is None and on_block is None:
            return
        futures = [entry.future for entry in self.entries]
        sizes = {
            entry.future.key: unit.size
            for entry, unit in zip(self.entries, self.units, strict=True)
        }
        for done, future in enumerate(distributed_module().as_completed(futures), start=1):
            if on_bytes is not None:
                on_bytes(sizes[future.key])
            if on_block is not None:
                on_block(done, len(sizes))

    def _again_whole(
        self, files: Sequence[int], defining: Mapping[int, str], schemas: Future
    ) -> Result:
        """Audit ``files`` again, each whole in one task that writes the part of its first
        block (and its other blocks' parts empty); merge everything again."""
        by_file: dict[int, list[int]] = {}
        for index, unit in enumerate(self.units):
            by_file.setdefault(unit.file, []).append(index)
        tasks = []
        for file in files:
            source = self.job.sources[file]
            if file in defining:
                self.hooks.tell(
                    f"--dask: audited again, whole in one task: {source.name} {defining[file]}"
                )
            first, *others = by_file[file]
            size = sum(self.units[i].size for i in by_file[file])
            tasks.append(self._task(first, Unit(source, file, size), emptied=others))
        whole = dict(zip(files, self._submit(tasks, schemas, "whole"), strict=True))
        entries: list[_Entry] = []
        for entry in self.entries:
            if entry.file not in whole:
                entries.append(entry)
            elif entry.parts.start == by_file[entry.file][0]:
                parts = range(entry.parts.start, by_file[entry.file][-1] + 1)
                entries.append(_Entry(whole[entry.file], entry.file, parts, whole=True))
        # The blocks audited apart are released here: Dask never runs them again.
        self.entries = entries
        return _result(self._reduce("whole"))

    def _finish(self, results: Sequence[Result] | None = None) -> None:
        """Write the streamed report and the score lines; leave exactly the finished parts
        in place. The results are those of the first entries; None: every entry finished."""
        done = len(self.entries) if results is None else len(results)
        if self.parts is not None:
            count = self.entries[done - 1].parts.stop if done else 0
            self.parts.keep_only(self.part_names[:count])
        if self.report is None and self.scores is None:
            return
        for index in range(done):
            result = results[index] if results is not None else _result(self.entries[index].future)
            if self.report is not None and result.rows:
                self.report.write(result.rows)
            if self.scores is not None and result.scores:
                self.scores.write(result.scores)

    def _again_here(self) -> Summary:
        """Two blocks scored records under one id, which one process scores once: the
        job audited again in this process, its outputs written as one process writes them
        (the report as one part, when it is written as parts)."""
        self.hooks.tell(
            "--dask: records of one id were scored in two blocks: audited again in this "
            "process, which scores the first"
        )
        if self.parts is None:
            return SerialRunner().run(self.job, self.report, self.hooks, self.scores)
        first = self.parts.path(self.part_names[0])
        try:
            with AtomicOutput(first, storage_options=self.parts.storage_options) as report:
                return SerialRunner().run(self.job, report, self.hooks, self.scores)
        finally:  # (interrupted too: its rows so far are that part, kept)
            self.parts.keep_only(self.part_names[:1])

    def _stopped(self) -> Summary:
        """Interrupted: the summary, and the report, of the units finished in input order
        (up to a file that would have been audited again)."""
        self.hooks.stop.busy = True  # a second Ctrl-C must not interrupt the cleanup
        results: list[Result] = []
        try:
            finished = list(takewhile(lambda e: e.future.status == "finished", self.entries))
            # (Every merge is cancelled along: one left with no future trips the scheduler.)
            self.client.cancel([*self.merges, *(e.future for e in self.entries[len(finished) :])])
            wait_idle(self.client, self.name)
            futures = [e.future for e in finished]
            # (Those held by a worker that died since are computed again: not forever.)
            distributed_module().wait(futures, timeout=IDLE_SECONDS)
            gathered = self.client.gather(futures)
            for entry, result in zip(finished, gathered, strict=True):
                if result.failed or result.redo or (result.defining and not entry.whole):
                    results = [
                        r for r, e in zip(results, finished, strict=False) if e.file != entry.file
                    ]
                    break
                results.append(result)
            if self.job.expectations is not None and scored_once(r.scored for r in results) is None:
                results = []  # counts and score lines as one process's: see _again_here
            self._finish(results)
        except Exception:  # the cluster is going away too: say nothing was finished
            results = []
        finally:
            self.hooks.stop.busy = False
        if not results:
            job = self.job
            return Audit(job.sources, job.schemas, job.options).finish(interrupted=True)
        summary = merged_results(results).summary
        last = replace(summary.sources[-1], complete=False, error="interrupted before the end")
        return replace(summary, complete=False, sources=[*summary.sources[:-1], last])


def _result(future: Future) -> Result:
    """A task's result (a merged one)."""
    result: Result = cluster_faults(future.result)
    return result


def _arrived(schemas: SchemaSet) -> SchemaSet:
    """On a worker: the schemas, compiled when they were unpickled here."""
    return schemas
