"""Where log lines come from: paths, directories, URLs, stdin, plain or gzip.

Files are read in binary, in large chunks, and split into lines
(:mod:`toolaudit.lines`), so the audit loop sees plain lists of ``bytes`` and never a
per-line call into a file object. Gzip is recognised by its magic bytes, whatever the
file is called, and inflated with zlib in bounded pieces, so neither a long line nor a
"zip bomb" makes memory grow with the input. Directories are walked for log files
(:mod:`toolaudit.log_files`). A URL (``s3://...``) is read through
:mod:`toolaudit.storage` and from then on is a source like any other.
"""

from __future__ import annotations

import itertools
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from toolaudit.errors import InputError
from toolaudit.lines import DEFAULT_MAX_LINE_BYTES, split_lines
from toolaudit.log_files import LOG_SUFFIXES, dangling_link, is_log_name, walk_logs
from toolaudit.storage.filesystems import is_url
from toolaudit.storage.listing import expand_url, object_size
from toolaudit.storage.reading import open_input

STDIN = "-"
# Measured: 64 KiB chunks beat 1 MiB ones when report rows are kept per chunk
# (they stay in the CPU's caches until written); reading is no slower.
CHUNK_BYTES = 1 << 16
#: With --dask, the size of a block of a plain file that one task audits (runners/blocks.py):
#: big enough that a task's overhead is lost in its work.
DEFAULT_BLOCKSIZE = 64 << 20
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Source:
    """One input: a file, a URL, or standard input (``name == "-"``).

    A plain file may also be read in part, from byte ``start`` (the start of a
    line, which is line ``first_line``) to byte ``end``, so that several
    processes can audit one file side by side. A URL is opened with
    ``storage_options`` (credentials, an endpoint), which travel with it to
    other processes and are never shown.
    """

    name: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    storage_options: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    #: A URL's size as its listing gave it (no request to ask again).
    listed_size: int | None = field(default=None, compare=False, repr=False)
    #: Why this input cannot be read, when a directory walk found so (a dangling
    #: link, a folder it could not list): reading it raises InputError with this
    #: reason, so that the audit records it in the input's place, as for a file
    #: that cannot be opened.
    unreadable: str | None = None

    @property
    def is_part(self) -> bool:
        return self.start != 0 or self.end is not None

    @property
    def is_stdin(self) -> bool:
        return self.name == STDIN

    @property
    def is_remote(self) -> bool:
        """Whether the source is a URL, read through fsspec."""
        return is_url(self.name)

    def size(self) -> int | None:
        """Bytes on disk (compressed, for gzip), or None when unknown."""
        if self.is_stdin or self.unreadable is not None:
            return None
        if self.is_remote:
            if self.listed_size is not None:
                return self.listed_size
            return object_size(self.name, self.storage_options)
        try:
            return os.stat(self.name).st_size
        except OSError:
            return None


class DamagedInput(Exception):
    """Reading a source stopped early (corrupt or truncated gzip, I/O error).

    Everything read before the damage has already been yielded; ``str()``
    says what went wrong.
    """


def expand_paths(
    paths: Iterable[str],
    *,
    skip: Iterable[str] = (),
    storage_options: Mapping[str, Any] | None = None,
) -> list[Source]:
    """Files as given, directories walked for log files (sorted), ``-`` for stdin;
    URLs as given, globs expanded, prefixes walked like directories.

    A walk passes over the files in ``skip`` (the schemas, which may well sit
    beside the logs as ``*.json``). What a walk cannot read (a folder it cannot
    list, a dangling link, a named pipe with a log's name) is a source marked
    ``unreadable``, in its sorted place, so that the audit reports it instead of
    passing over it. Raises :class:`InputError` for a path that does not exist or
    a directory that holds no log file, before anything is read (for a URL also:
    access denied, a missing bucket, its filesystem not installed).
    """
    skip = list(skip)
    skipped = {os.path.realpath(p) for p in skip if not is_url(p)}
    sources: list[Source] = []
    for path in paths:
        if path == STDIN:
            if any(source.is_stdin for source in sources):
                raise InputError("-: standard input is given twice; it can be read once")
            sources.append(Source(STDIN))
        elif is_url(path):
            objects = expand_url(path, storage_options, keep=is_log_name, skip=skip)
            sources.extend(
                Source(name, storage_options=storage_options, listed_size=size)
                for name, size in objects
            )
        elif os.path.isdir(path):
            walked = walk_logs(Path(path))
            found = sorted(
                (item for item in walked if os.path.realpath(item[0]) not in skipped),
                key=lambda item: item[0],
            )
            if not found:
                suffixes = ", ".join(f"*{s}" for s in LOG_SUFFIXES)
                raise InputError(f"{path}: no log files in this directory ({suffixes}, or .gz)")
            sources.extend(Source(str(p), unreadable=why) for p, why in found)
        elif os.path.exists(path):
            sources.append(Source(path))
        elif os.path.islink(path):
            raise InputError(f"{path}: {dangling_link(path)}")
        else:
            raise InputError(f"{path}: no such file or directory")
    return sources


def read_line_batches(
    source: Source,
    *,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    on_bytes: Callable[[int], object] | None = None,
    stdin: BinaryIO | None = None,
) -> Iterator[list[bytes]]:
    """Yield the source's lines in batches, without their ``\\n``.

    A final line without a newline is still a line. ``on_bytes`` is told how
    many bytes (as stored, so compressed for gzip) each step consumed.
    Raises :class:`InputError` when the source cannot be opened (or is
    ``unreadable``) and :class:`DamagedInput` when reading stops part way.
    """
    if source.unreadable is not None:
        raise InputError(f"{source.name}: {source.unreadable}")
    if source.is_stdin:
        stream = stdin_stream(stdin)
        yield from split_lines(_chunks(stream, on_bytes), max_line_bytes)
        return
    try:
        if source.is_remote:
            stream = open_input(
                source.name, source.storage_options, part_end=source.end if source.is_part else None
            )
        else:
            stream = open(source.name, "rb", buffering=0)  # noqa: SIM115 - closed below
        if source.start:
            stream.seek(source.start)
    except OSError as error:
        raise InputError(f"{source.name}: cannot open: {error.strerror or error}") from error
    with stream:
        limit = None if source.end is None else source.end - source.start
        # Only whole files can be gzip: a part of a file is a part of a plain file.
        chunks = _chunks(stream, on_bytes, limit=limit, inflate=not source.is_part)
        yield from split_lines(chunks, max_line_bytes)


def stdin_stream(given: BinaryIO | None = None) -> BinaryIO:
    """``given``, or this process's standard input, in binary; InputError when it is closed."""
    if given is not None:
        return given
    if sys.stdin is None:  # started with stdin closed (`<&-`)
        raise InputError("-: standard input is closed: nothing to read")
    return sys.stdin.buffer


def copy_stdin(
    path: str, stdin: BinaryIO | None = None, on_bytes: Callable[[int], object] | None = None
) -> None:
    """Standard input (or ``stdin``), read to its end into a new file at ``path``, as it
    comes (gzip stays gzip), for processes that cannot read it; ``on_bytes`` as for
    :func:`read_line_batches`. Raises :class:`InputError` when it cannot be read."""
    stream = stdin_stream(stdin)
    read = getattr(stream, "read1", stream.read)
    with open(path, "wb") as copy:
        while True:
            try:
                chunk = read(CHUNK_BYTES)
            except OSError as error:
                raise InputError(
                    f"{STDIN}: read error: {error.strerror or error} (read whole before it "
                    "is audited: none of it was)"
                ) from error
            if not chunk:
                return
            copy.write(chunk)
            if on_bytes is not None:
                on_bytes(len(chunk))


def is_gzip(path: str) -> bool:
    """Whether a file starts with the gzip magic bytes."""
    with open(path, "rb") as file:
        return file.read(len(GZIP_MAGIC)) == GZIP_MAGIC


def _chunks(
    stream: BinaryIO,
    on_bytes: Callable[[int], object] | None,
    *,
    limit: int | None = None,
    inflate: bool = True,
) -> Iterator[bytes]:
    """Raw chunks of a stream (at most ``limit`` bytes), inflated when it starts with
    the gzip magic."""
    raw = _raw_chunks(stream, on_bytes, limit)
    first = next(raw, b"")
    if not first:
        return
    if inflate and first.startswith(GZIP_MAGIC):
        yield from _inflate(itertools.chain((first,), raw))
    else:
        yield first
        yield from raw


def _raw_chunks(
    stream: BinaryIO, on_bytes: Callable[[int], object] | None, limit: int | None
) -> Iterator[bytes]:
    # read1 returns what a pipe has now instead of waiting for a whole chunk,
    # so that `tail -f log | toolaudit audit` audits lines as they come.
    read = getattr(stream, "read1", stream.read)
    left = limit
    while left is None or left > 0:
        try:
            chunk = read(CHUNK_BYTES if left is None else min(CHUNK_BYTES, left))
        except OSError as error:
            raise DamagedInput(f"read error: {error.strerror or error}") from error
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        if on_bytes is not None:
            on_bytes(len(chunk))
        yield chunk


def _inflate(compressed: Iterator[bytes]) -> Iterator[bytes]:
    """Gzip members (one or several, concatenated) -> their bytes, in bounded pieces."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    member_open = False  # the current inflater has been fed part of a member
    for data in compressed:
        while data:
            member_open = True
            try:
                piece = inflater.decompress(data, CHUNK_BYTES)
            except zlib.error as error:
                raise DamagedInput(f"corrupt gzip data ({error})") from error
            if piece:
                yield piece
            if inflater.eof:
                # Another member may follow, as `cat a.gz b.gz` makes.
                data = inflater.unused_data
                inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                member_open = False
            else:
                data = inflater.unconsumed_tail
    if member_open:
        raise DamagedInput("gzip data ends before the end of its stream (truncated file?)")
