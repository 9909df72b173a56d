"""Reading objects: opened as binary files whose failures are all OSError (read whole
with the next block fetched meanwhile, or a part of one, or read as asked), or read whole."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any, BinaryIO, cast

from toolaudit.errors import InputError
from toolaudit.storage.filesystems import (
    FileSystem,
    StorageOptions,
    filesystem,
    input_error,
    said,
)

#: Parts of objects (a Dask block's) are read in blocks this big, one request each, the
#: last one cut at the part's end.
#: Measured through moto's S3 server: 16 MiB blocks read at 85 MB/s, 50 MiB at 135 MB/s
#: (s3fs's own default); requests cost more than memory.
READ_BLOCK_BYTES = 50 << 20
#: Whole objects are read in blocks this big, the next one fetched in a thread while
#: the audit reads the current one, and two kept: the download overlaps the audit.
#: Through a proxy pacing moto's S3 server at 80 MB/s a connection, a 170 MB log's audit
#: took 0.75x to 0.89x the time of reading it a block at a time (benchmarks/s3_bench.py).
#: The overlap is partial: the thread downloading needs the interpreter lock for each
#: chunk it receives, which the audit's loop gives up only every few milliseconds.
PREFETCH_BLOCK_BYTES = 16 << 20


def open_input(
    url: str,
    options: StorageOptions | None,
    *,
    part_end: int | None = None,
    read_ahead: bool = True,
) -> BinaryIO:
    """An object opened for reading, in binary, seekable where its filesystem is: read
    whole, the next block fetched in the background; or a part of it, read up to byte
    ``part_end`` and never a block beyond; or, without ``read_ahead``, each read fetched
    as asked and nothing more (for reads that jump, or stop anywhere).

    A read that fails (a connection lost, a 5xx after the filesystem's retries) or
    that ends before the object's known size raises :class:`OSError`, as a local
    read would. Raises :class:`InputError` when the object cannot be opened.
    """
    fs, path = filesystem(url, options, InputError)
    try:
        if not read_ahead:
            # A read fetches its bytes and no more.
            file = _open_preferring(fs, path, {"cache_type": "none"})
        elif part_end is None:
            file = fs.open(
                path,
                "rb",
                block_size=PREFETCH_BLOCK_BYTES,
                cache_type="background",
                cache_options={"maxblocks": 2},  # fsspec keeps 32 by default
            )
        else:
            # fsspec's read-ahead fetches a block beyond each read: told the object ends
            # at the part's end (a Dask block's), it fetches nothing past it. (A 64 MiB
            # part of a log on moto's S3 server downloaded 100 MiB; now 64.)
            file = _open_preferring(fs, path, {"size": part_end}, block_size=READ_BLOCK_BYTES)
    except Exception as error:
        raise input_error(url, error) from error
    return cast(BinaryIO, _Reader(file))


def _open_preferring(
    fs: FileSystem, path: str, preferred: Mapping[str, Any], **required: Any
) -> Any:
    """``fs.open(path, "rb", ...)`` with the ``preferred`` options (fsspec's), or without
    them for a filesystem whose files take none. The bytes read are the same either way
    (the reader of a part stops at its end itself); only the requests made differ."""
    try:
        return fs.open(path, "rb", **required, **preferred)
    except TypeError:
        return fs.open(path, "rb", **required)


class _Reader(io.RawIOBase):
    """A remote file whose read failures are all :class:`OSError`, and that notices an
    object cut short (the filesystem said it had more bytes than it gave)."""

    def __init__(self, file: Any) -> None:
        super().__init__()
        self._file = file
        size = getattr(file, "size", None)
        self._size = size if isinstance(size, int) else None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._file.seekable())

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return int(self._file.seek(offset, whence))

    def tell(self) -> int:
        return int(self._file.tell())

    def read(self, size: int | None = -1) -> bytes:
        try:
            data = self._file.read(-1 if size is None else size)
        except OSError:
            raise
        except Exception as error:  # the filesystem's own (aiohttp, botocore...)
            raise OSError(f"{type(error).__name__}: {said(error)}") from error
        if not data and size != 0 and self._size is not None:
            position = self._file.tell()
            if position < self._size:
                raise OSError(f"the object ended after {position} of its {self._size} bytes")
        return bytes(data)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._file.close()
        finally:
            super().close()


def read_bytes(url: str, options: StorageOptions | None, *, what: str) -> bytes:
    """A whole object's bytes (a schemas file); ``what`` names it in the error."""
    fs, path = filesystem(url, options, InputError)
    try:
        return bytes(fs.cat_file(path))
    except Exception as error:
        cause = input_error(url, error)
        raise InputError(f"{what}: {str(cause).removeprefix(url + ': ')}") from error
