"""Writing outputs so that a crash never leaves a half-file that looks complete.

A URL (``s3://bucket/report.jsonl``) is written to a local temporary file and
uploaded whole at the end (see :func:`toolaudit.storage.writing.upload`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any, BinaryIO

from toolaudit.errors import OutputError
from toolaudit.sources import Source
from toolaudit.storage.filesystems import is_url, local_path
from toolaudit.storage.writing import check_output, same_object, upload

STDOUT = "-"
BUFFER_BYTES = 1 << 20


class AtomicOutput:
    """A binary output: ``-`` is stdout; a path is written to a temporary file
    beside it and renamed over it only when the writing is done.

    A file that exists and is not a regular file (``/dev/stdout``, a FIFO, a
    device) is written in place: it cannot be replaced, and must not be. An
    interrupted run (Ctrl-C, SIGTERM) still puts its output in place, since
    every row in it is complete and the summary says the run was cut short;
    any other failure leaves no file behind.

    A URL is written to a local temporary file, uploaded with ``storage_options``
    when the writing is done (so the same holds for it), then the file removed.
    """

    def __init__(self, path: str, *, storage_options: Mapping[str, Any] | None = None) -> None:
        self._url = path if is_url(path) and local_path(path) is None else None
        self.path = local_path(path) or path
        self.storage_options = storage_options
        self._file: BinaryIO | None = None
        self._temp_path: str | None = None

    def __enter__(self) -> BinaryIO:
        if self.path == STDOUT:
            return sys.stdout.buffer
        if self._url is not None:
            check_output(self._url, self.storage_options)
        try:
            if self._url is not None:
                fd, self._temp_path = tempfile.mkstemp(prefix="toolaudit-", suffix=".partial")
                self._file = os.fdopen(fd, "wb", buffering=BUFFER_BYTES)
                return self._file
            if _is_special_file(self.path):
                self._file = open(self.path, "wb", buffering=BUFFER_BYTES)  # closed in __exit__
                return self._file
            directory = os.path.dirname(os.path.abspath(self.path))
            fd, self._temp_path = tempfile.mkstemp(
                dir=directory, prefix=f".{os.path.basename(self.path)}.", suffix=".partial"
            )
            # mkstemp makes the file owner-only; the output gets the mode any new file would.
            os.chmod(self._temp_path, _new_file_mode(self.path))
            self._file = os.fdopen(fd, "wb", buffering=BUFFER_BYTES)
        except OSError as error:
            raise _cannot_write(self.path, error) from error
        return self._file

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        keep = kind is None or issubclass(kind, KeyboardInterrupt)
        if self._file is None:
            if self.path == STDOUT and keep:
                _flush_quietly_on_interrupt(sys.stdout.buffer, interrupted=kind is not None)
            return
        try:
            if keep:
                self._file.flush()
                if self._temp_path is not None and self._url is None:
                    os.fsync(self._file.fileno())
            self._file.close()
            if keep and self._temp_path is not None:
                if self._url is not None:
                    self._upload()
                    return
                os.replace(self._temp_path, self.path)
                return
        except OSError as write_error:
            self._discard()
            raise _cannot_write(self.path, write_error) from write_error
        self._discard()
        if isinstance(error, OSError) and not isinstance(error, BrokenPipeError):
            raise _cannot_write(self.path, error) from error

    def _upload(self) -> None:
        assert self._url is not None and self._temp_path is not None
        try:
            upload(self._temp_path, self._url, self.storage_options)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self._temp_path)

    def _discard(self) -> None:
        assert self._file is not None
        # Already failing: a second error would only hide the first.
        with contextlib.suppress(OSError):
            self._file.close()
        if self._temp_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._temp_path)


def _cannot_write(path: str, error: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write: {error.strerror or error}")


def _is_special_file(path: str) -> bool:
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False


def _new_file_mode(path: str) -> int:
    """The mode of the file being replaced, or what the umask gives a new file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _flush_quietly_on_interrupt(stream: BinaryIO, *, interrupted: bool) -> None:
    try:
        stream.flush()
    except BrokenPipeError:
        if not interrupted:
            raise


def check_outputs(
    outputs: Mapping[str, str | None],
    sources: Iterable[Source],
    *,
    schemas: Iterable[str] = (),
    expected: Iterable[str] = (),
    storage_options: Mapping[str, Any] | None = None,
) -> None:
    """Refuse, before reading anything, an output (``{"--report": path, ...}``, None
    where not asked for) that is also an input, a schemas or an expected-calls file,
    that another output names too (the last one written would win), a second output to
    stdout, or a URL that cannot be written at all (its filesystem not installed, its
    bucket missing)."""
    # What no output may overwrite: (the place, as local_path() reads it, and why).
    kept = [(local_path(s.name) or s.name, "is also an input") for s in sources if not s.is_stdin]
    kept += [(local_path(name) or name, "is the schemas file") for name in schemas]
    kept += [(local_path(name) or name, "is the expected-calls file") for name in expected]
    seen: list[tuple[str, str]] = []  # (option, output) of the outputs checked so far
    for option, given in outputs.items():
        if given is None:
            continue
        if given == STDOUT:
            earlier = next((o for o, g in seen if g == STDOUT), None)
            if earlier is not None:
                raise OutputError(
                    f"{option} -: {earlier} already writes to stdout; only one output can"
                )
            seen.append((option, given))
            continue
        output = local_path(given) or given
        earlier = next((o for o, g in seen if g != STDOUT and same_place(output, g)), None)
        if earlier is not None:
            raise OutputError(
                f"{option} {given}: also given as {earlier}; each output needs its own path"
            )
        seen.append((option, output))
        if is_url(output):
            check_output(output, storage_options)
        for place, why in kept:
            if same_place(output, place):
                raise OutputError(f"{given}: {why}; refusing to overwrite it")


def same_place(first: str, second: str) -> bool:
    """Whether two local paths or URLs name the same file or object (a path and a URL
    never do: give local_path()'s reading of a file:// URL)."""
    if is_url(first) or is_url(second):
        return is_url(first) and is_url(second) and same_object(first, second)
    if os.path.exists(first) and os.path.exists(second):
        return os.path.samefile(first, second)
    return os.path.realpath(first) == os.path.realpath(second)
