"""The units of a Dask audit: line-aligned blocks of files, and what a worker does with one.

Planning happens in the caller's process and submits nothing: plain files are cut
at even offsets, gzip files stay whole (they cannot be entered in the middle).

When report rows are wanted, a first pass on the workers moves each cut to the
start of a line and counts each block's newlines (:func:`count_block`), reading
through one buffer, never a whole block at once; prefix sums then give each block
the number of its first line (:func:`numbered_units`), so that the rows carry the
file's own line numbers. A summary alone needs no such pass (:func:`uncounted_units`):
each block's task moves its own cuts and numbers its lines from 1, and the merge
moves its samples down by the lines before it (see :func:`merge_blocks`).

Every task here is pure: run twice (a worker died and Dask ran it again), it
writes the same part and returns the same result, so nothing is counted twice.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any, BinaryIO, NamedTuple

from toolaudit.errors import InputError, OptionError, ToolAuditError
from toolaudit.output.files import AtomicOutput
from toolaudit.pipeline import Audit, AuditOptions
from toolaudit.results.merging import merge_blocks, merge_summaries
from toolaudit.results.source_status import SourceStatus, joined_statuses
from toolaudit.results.summary import Summary
from toolaudit.runners.ranges import count_newlines, line_start
from toolaudit.schemas import SchemaSet
from toolaudit.sources import GZIP_MAGIC, Source, is_gzip
from toolaudit.storage.reading import open_input
from toolaudit.truth.expectations import Expectations

#: Characters of a glob: a name that holds one (a file that expansion found so named)
#: is audited whole, as it is.
_GLOB = re.compile(r"[*?\[]")
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(i?)b?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class File:
    """One input as planned: audited whole, or cut into blocks still to be counted."""

    source: Source
    #: Bytes as stored, as planning found them (0 when unknown).
    size: int = 0
    #: Where its blocks are cut, before the cuts move to the start of a line (the first
    #: is 0); empty when the file is audited whole.
    cuts: tuple[int, ...] = ()

    def blocks(self) -> list[tuple[Source, int, int | None]]:
        """What :func:`count_block` is given for each block: the source, the block's cut
        and the next one (None for the last block, which runs to the end); none for a
        file audited whole."""
        ends: list[int | None] = [*self.cuts[1:], None] if self.cuts else []
        return [(self.source, cut, end) for cut, end in zip(self.cuts, ends, strict=True)]


class Counted(NamedTuple):
    """A block as a worker found it: its byte range, from the start of a line to the
    start of a line, and its newlines."""

    start: int
    end: int
    newlines: int
    #: It starts like gzip (only a first block can): the file is audited whole.
    gzip: bool = False
    #: It could not be read to its end: the file is audited whole, so that the reading
    #: of one process says what happened, where.
    unreadable: bool = False


@dataclass(frozen=True)
class Unit:
    """One audit task: a block of a file, or a whole file."""

    source: Source
    #: Which input it belongs to (an index into the job's sources).
    file: int
    #: Bytes as stored (compressed, for gzip), for progress.
    size: int
    #: A block that was not counted: its source's start and end are cuts as planned,
    #: which its task moves to the start of a line, and its lines are numbered from 1.
    uncounted: bool = False


@dataclass(frozen=True)
class Task:
    """What a worker is given besides the schemas and the options: a unit, and where its
    report rows go (a part, back to the caller, or nowhere)."""

    unit: Unit
    #: The part that receives the rows; None: no part.
    part: str | None = None
    #: Parts written empty (those of a file's other blocks, when it is audited whole).
    emptied: tuple[str, ...] = ()
    #: Return the rows to the caller (a report that is a stream, not a directory).
    collect: bool = False
    #: With expected calls: return the unit's score lines to the caller.
    scores: bool = False
    part_options: Mapping[str, Any] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Result:
    """What a task gives back, and what merging results gives: a summary, the inputs
    that must be audited whole (their records defined tools for later records, or
    held streams), and the inputs a task could not
    audit with the first such error in input order."""

    summary: Summary
    #: (input, why): inputs that must be audited whole (see Audit.whole_reason).
    defining: tuple[tuple[int, str], ...] = ()
    failed: tuple[int, ...] = ()
    error: ToolAuditError | None = None
    rows: bytes | None = None
    #: Inputs to audit again whole, with nothing to tell: an uncounted block found its
    #: file is gzip after all, or could not be read to its end.
    redo: tuple[int, ...] = ()
    #: Some of its summaries were of uncounted blocks (see merge_blocks).
    uncounted: bool = False
    #: (input, status) in input order, one per input: its summary's sources.
    inputs: tuple[tuple[int, SourceStatus], ...] = ()
    #: With expected calls: the unit's score lines, and the ids its records were scored
    #: under, in order (kept by each task's own result, never merged, as ``rows``).
    scores: bytes | None = None
    scored: tuple[str, ...] = ()


def parse_blocksize(text: str | int) -> int:
    """A block size: bytes (``1048576``) or a size (``64MiB``, ``256MB``, ``1g``)."""
    if isinstance(text, int) and not isinstance(text, bool):
        size = text
    else:
        match = _SIZE.fullmatch(str(text))
        if match is None:
            raise OptionError(f"blocksize: expected bytes or a size such as 64MiB, not {text!r}")
        number, prefix, binary = match.groups()
        base = 1024 if binary else 1000
        size = int(float(number) * base ** " kmgt".index(prefix.lower() or " "))
    if size < 1:
        raise OptionError(f"blocksize must be at least 1 byte, not {text!r}")
    return size


def plan_files(sources: Sequence[Source], blocksize: int, threads: int = 1) -> list[File]:
    """Each source, whole or cut into blocks of at most about ``blocksize`` bytes;
    :class:`InputError` for a missing one. Nothing is submitted to the cluster here.

    A file of at least as many blocks as the cluster has ``threads`` is cut into a
    multiple of them, so that its last wave of blocks keeps every thread busy: 15
    blocks on 2 threads leave one idle for the last block's time (6% of the run,
    measured on 1 GB), 16 smaller ones do not.
    """
    files = []
    for source in sources:
        size = source.size()
        if source.unreadable is not None:  # its task says why, in the summary
            files.append(File(source, 0))
            continue
        if size is None and not source.is_remote:
            raise InputError(f"{source.name}: no such file or directory")
        if size is None or size <= blocksize or _whole(source):
            files.append(File(source, size or 0))
            continue
        count = size // blocksize
        if count >= threads:
            count = -(-count // threads) * threads
        files.append(File(source, size, tuple(size * i // count for i in range(count))))
    return files


def _whole(source: Source) -> bool:
    """Whether a source is audited whole: a part already, a name with a glob's
    characters, gzip. Gzip by content for a local file; a URL's name is taken at its
    word (a misnamed one is found by its first block's magic bytes: see
    count_block). A file that cannot be opened is audited whole too: its task then
    says so in the summary, as one process would."""
    if source.is_part or _GLOB.search(source.name):
        return True
    if source.is_remote:
        return source.name.lower().endswith(".gz")
    try:
        return is_gzip(source.name)
    except OSError:
        return True


def count_block(source: Source, cut: int, next_cut: int | None) -> Counted:
    """On a worker: the block from the first line that starts at or after ``cut`` to the
    first that starts at or after ``next_cut`` (None: to the end), and its newlines.
    Neighbouring blocks meet where one ends, whatever the lines' lengths: a block
    holding no line start is empty."""
    try:
        with _open_to_count(source) as file:
            span = _line_span(file, cut, next_cut)
            if span is None:
                return Counted(cut, cut, 0)
            newlines, read, head = count_newlines(file, *span)
    except (OSError, InputError):
        return Counted(cut, cut, 0, unreadable=True)
    start = span[0]
    return Counted(start, start + read, newlines, gzip=cut == 0 and head == GZIP_MAGIC)


def _line_span(file: BinaryIO, cut: int, next_cut: int | None) -> tuple[int, int | None] | None:
    """The block of ``file`` between two cuts, moved to the start of a line (an end of
    None: to the end of the file); None when no line starts in it."""
    start = line_start(file, cut)
    end = None if next_cut is None else line_start(file, next_cut)
    if start is None or (end is not None and end <= start):
        return None
    return start, end


def _lined_up(source: Source) -> Source | None:
    """An uncounted block's source, its cuts moved to the start of a line (an empty range
    when no line starts in it); None when its file must be audited whole: it starts like
    gzip, or cannot be read. (See count_block, which finds the same.)"""
    try:
        with _open_to_count(source) as file:
            if source.start == 0 and file.read(len(GZIP_MAGIC)) == GZIP_MAGIC:
                return None
            span = _line_span(file, source.start, source.end)
    except (OSError, InputError):
        return None
    if span is None:
        return replace(source, end=source.start)
    return replace(source, start=span[0], end=span[1])


def _open_to_count(source: Source) -> BinaryIO:
    if source.is_remote:
        # (Read as asked: a block's count must not fetch the next block too.)
        return open_input(source.name, source.storage_options, read_ahead=False)
    return open(source.name, "rb", buffering=0)


def numbered_units(files: Sequence[File], counts: Sequence[Counted]) -> list[Unit]:
    """Every task's unit, in input order: a file's blocks with their byte ranges and
    first line numbers (prefix sums of the counts), empty blocks left out; whole files."""
    units = []
    remaining = iter(counts)
    for number, file in enumerate(files):
        if not file.cuts:
            units.append(Unit(file.source, number, file.size))
            continue
        mine = [next(remaining) for _ in file.cuts]
        if any(block.gzip or block.unreadable for block in mine):
            # gzip after all (it cannot be entered in the middle), or a block that could
            # not be read: the file is audited whole, as one process would.
            units.append(Unit(file.source, number, file.size))
            continue
        lines = accumulate((block.newlines for block in mine), initial=1)
        for block, first_line in zip(mine, lines, strict=False):
            if block.end > block.start:
                part = replace(file.source, start=block.start, end=block.end, first_line=first_line)
                units.append(Unit(part, number, block.end - block.start))
    return units


def uncounted_units(files: Sequence[File]) -> list[Unit]:
    """Every task's unit, in input order, for a run that wants no report rows: a file's
    blocks between its cuts as planned, numbered from 1 (see Unit.uncounted); whole files,
    and files of one block, as whole (gzip after all is then read as gzip, where a block
    would have its file audited again whole, which a file of one unit is not)."""
    units = []
    for number, file in enumerate(files):
        if len(file.cuts) <= 1:
            units.append(Unit(file.source, number, file.size))
            continue
        for source, cut, next_cut in file.blocks():
            block = replace(source, start=cut, end=next_cut)
            units.append(Unit(block, number, (next_cut or file.size) - cut, uncounted=True))
    return units


def audit_task(
    task: Task,
    schemas: SchemaSet,
    options: AuditOptions,
    expectations: Expectations | None = None,
) -> Result:
    """On a worker: audit one unit; write its rows to its part (never half-written:
    see AtomicOutput), or return them; with ``expectations``, return its score lines
    too (a unit with expected calls is always counted: they carry line numbers). A
    run-stopping error is returned, not raised, so that the caller can tell it from a
    fault of the cluster."""
    unit = task.unit
    if unit.uncounted:
        result = _audit_uncounted(unit, schemas, options)
    else:
        result = _audit_counted(task, schemas, options, expectations)
    return replace(result, inputs=tuple((unit.file, s) for s in result.summary.sources))


def _audit_counted(
    task: Task, schemas: SchemaSet, options: AuditOptions, expectations: Expectations | None
) -> Result:
    unit = task.unit
    audit = Audit([unit.source], schemas, options, expectations=expectations, whole_run=False)
    rows = None
    scores = io.BytesIO() if expectations is not None and task.scores else None
    try:
        if task.part is not None:
            with AtomicOutput(task.part, storage_options=task.part_options) as part:
                summary = audit.run(part, scores)
            for empty in task.emptied:
                with AtomicOutput(empty, storage_options=task.part_options):
                    pass
        elif task.collect:
            buffer = io.BytesIO()
            summary = audit.run(buffer, scores)
            rows = buffer.getvalue()
        else:
            summary = audit.run(None, scores)
    except ToolAuditError as error:
        return Result(audit.finish(), failed=(unit.file,), error=error)
    reason = audit.whole_reason
    return Result(
        summary,
        defining=((unit.file, reason),) if reason else (),
        rows=rows,
        scores=scores.getvalue() if scores is not None else None,
        scored=tuple(audit.scorer.scored) if audit.scorer is not None else (),
    )


def _audit_uncounted(unit: Unit, schemas: SchemaSet, options: AuditOptions) -> Result:
    """An uncounted block's audit (no rows are wanted). A block that its file's audit as
    a whole would tell apart (gzip after all, or a reading that stopped, whose message
    names a line) says its file is to be audited whole."""
    source = _lined_up(unit.source)
    audit = Audit([source if source is not None else unit.source], schemas, options)
    if source is None:
        return Result(audit.finish(), redo=(unit.file,), uncounted=True)
    try:
        summary = audit.run()
    except ToolAuditError as error:
        return Result(audit.finish(), failed=(unit.file,), error=error, uncounted=True)
    reason = audit.whole_reason
    return Result(
        summary,
        defining=((unit.file, reason),) if reason else (),
        redo=() if summary.complete else (unit.file,),
        uncounted=True,
    )


def merged_results(results: Sequence[Result]) -> Result:
    """On a worker: one node of the tree reduction; results are in input order. The
    summary has a status per input (see joined_statuses)."""
    summaries = [result.summary for result in results]
    uncounted = any(result.uncounted for result in results)
    inputs = joined_statuses(entry for result in results for entry in result.inputs)
    summary = merge_blocks(summaries) if uncounted else merge_summaries(summaries)
    return Result(
        replace(summary, sources=[status for _, status in inputs]),
        defining=tuple(entry for result in results for entry in result.defining),
        failed=tuple(number for result in results for number in result.failed),
        error=next((result.error for result in results if result.error is not None), None),
        redo=tuple(number for result in results for number in result.redo),
        uncounted=uncounted,
        inputs=tuple(inputs),
    )
