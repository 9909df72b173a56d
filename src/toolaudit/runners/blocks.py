"""The units of a Dask audit: line-aligned blocks of files, and what a worker does with one.

Planning happens in the caller's process and submits nothing: plain files are cut
with ``dask.bytes.read_bytes`` (newline delimiter) into lazy blocks, gzip files
stay whole (they cannot be entered in the middle). A first pass on the workers
counts each block's bytes and newlines (:func:`block_counts`); prefix sums then
give each block its byte range and the number of its first line
(:func:`numbered_units`), so that report rows carry the file's own line numbers.

Every task here is pure: run twice (a worker died and Dask ran it again), it
writes the same part and returns the same result, so nothing is counted twice.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from toolaudit.errors import InputError, OptionError, ToolAuditError
from toolaudit.output.files import AtomicOutput
from toolaudit.pipeline import Audit, AuditOptions
from toolaudit.results.summary import Summary, merge_summaries
from toolaudit.schemas import SchemaSet
from toolaudit.sources import GZIP_MAGIC, Source, is_gzip

if TYPE_CHECKING:
    from dask.delayed import Delayed

#: --blocksize's default: big enough that a task's overhead is lost in its work.
DEFAULT_BLOCKSIZE = 64 << 20
#: Characters that read_bytes would take for a glob: such a name is audited whole.
_GLOB = re.compile(r"[*?\[]")
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(i?)b?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class File:
    """One input as planned: audited whole, or as lazy blocks still to be counted."""

    source: Source
    #: ``dask.bytes.read_bytes``'s blocks; empty when the file is audited whole.
    blocks: Sequence[Delayed] = ()


@dataclass(frozen=True)
class Unit:
    """One audit task: a block of a file, or a whole file."""

    source: Source
    #: Which input it belongs to (an index into the job's sources).
    file: int
    #: Bytes as stored (compressed, for gzip), for progress.
    size: int


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
    """Each source, whole or with its lazy blocks of at most ``blocksize`` bytes;
    :class:`InputError` for a missing one. Nothing is submitted to the cluster here.

    A file of at least as many blocks as the cluster has ``threads`` is cut into a
    multiple of them, so that its last wave of blocks keeps every thread busy: 15
    blocks on 2 threads leave one idle for the last block's time (6% of the run,
    measured on 1 GB), 16 smaller ones do not.
    """
    from dask.bytes import read_bytes

    files = []
    for source in sources:
        size = source.size()
        if size is None and not source.is_remote:
            raise InputError(f"{source.name}: no such file or directory")
        if size is None or size <= blocksize or _whole(source):
            files.append(File(source))
            continue
        count = size // blocksize  # as read_bytes cuts
        if count >= threads:
            count = -(-count // threads) * threads
        try:
            _, blocks = read_bytes(
                source.name,
                delimiter=b"\n",
                blocksize=max(1, size // count),
                sample=False,
                **dict(source.storage_options or {}),
            )
        except FileNotFoundError as error:
            raise InputError(f"{source.name}: no such file or directory") from error
        except (OSError, ValueError) as error:
            raise InputError(f"{source.name}: cannot read: {error}") from error
        files.append(File(source, tuple(blocks[0])))
    return files


def _whole(source: Source) -> bool:
    """Whether a source is audited whole: a part already, a name read_bytes would take
    for a glob, gzip. Gzip by content for a local file; a URL's name is taken at its
    word (a misnamed one is found by its first block's magic bytes: see
    block_counts). A file that cannot be opened is audited whole too: its task then
    says so in the summary, as one process would."""
    if source.is_part or _GLOB.search(source.name):
        return True
    if source.is_remote:
        return source.name.lower().endswith(".gz")
    try:
        return is_gzip(source.name)
    except OSError:
        return True


def block_counts(block: bytes) -> tuple[int, int, bool]:
    """On a worker: a block's bytes, its newlines, and whether it starts like gzip."""
    return len(block), block.count(b"\n"), block.startswith(GZIP_MAGIC)


def numbered_units(files: Sequence[File], counts: Sequence[tuple[int, int, bool]]) -> list[Unit]:
    """Every task's unit, in input order: a file's blocks with their byte ranges and
    first line numbers (prefix sums of the counts), empty blocks left out; whole files."""
    units = []
    remaining = iter(counts)
    for number, file in enumerate(files):
        if not file.blocks:
            units.append(Unit(file.source, number, file.source.size() or 0))
            continue
        mine = [next(remaining) for _ in file.blocks]
        if mine[0][2]:  # gzip after all: it cannot be entered in the middle
            units.append(Unit(file.source, number, sum(size for size, _, _ in mine)))
            continue
        starts = accumulate((size for size, _, _ in mine), initial=0)
        lines = accumulate((newlines for _, newlines, _ in mine), initial=1)
        for (size, _, _), start, first_line in zip(mine, starts, lines, strict=False):
            if size:
                part = replace(file.source, start=start, end=start + size, first_line=first_line)
                units.append(Unit(part, number, size))
    return units


def audit_task(task: Task, schemas: SchemaSet, options: AuditOptions) -> Result:
    """On a worker: audit one unit; write its rows to its part (never half-written:
    see AtomicOutput), or return them. A run-stopping error is returned, not raised,
    so that the caller can tell it from a fault of the cluster."""
    unit = task.unit
    audit = Audit([unit.source], schemas, options)
    rows = None
    try:
        if task.part is not None:
            with AtomicOutput(task.part, storage_options=task.part_options) as part:
                summary = audit.run(part)
            for empty in task.emptied:
                with AtomicOutput(empty, storage_options=task.part_options):
                    pass
        elif task.collect:
            buffer = io.BytesIO()
            summary = audit.run(buffer)
            rows = buffer.getvalue()
        else:
            summary = audit.run()
    except ToolAuditError as error:
        return Result(audit.finish(), failed=(unit.file,), error=error)
    reason = audit.whole_reason
    return Result(summary, defining=((unit.file, reason),) if reason else (), rows=rows)


def merged_results(results: Sequence[Result]) -> Result:
    """On a worker: one node of the tree reduction; results are in input order."""
    return Result(
        merge_summaries(result.summary for result in results),
        defining=tuple(entry for result in results for entry in result.defining),
        failed=tuple(number for result in results for number in result.failed),
        error=next((result.error for result in results if result.error is not None), None),
    )
