"""Writing outputs so that a crash never leaves a half-file that looks complete."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable
from types import TracebackType
from typing import BinaryIO

from toolaudit.errors import OutputError
from toolaudit.sources import Source

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
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: BinaryIO | None = None
        self._temp_path: str | None = None

    def __enter__(self) -> BinaryIO:
        if self.path == STDOUT:
            return sys.stdout.buffer
        try:
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
                if self._temp_path is not None:
                    os.fsync(self._file.fileno())
            self._file.close()
            if keep and self._temp_path is not None:
                os.replace(self._temp_path, self.path)
                return
        except OSError as write_error:
            self._discard()
            raise _cannot_write(self.path, write_error) from write_error
        self._discard()
        if isinstance(error, OSError) and not isinstance(error, BrokenPipeError):
            raise _cannot_write(self.path, error) from error

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


def check_outputs_differ_from_inputs(
    outputs: Iterable[str | None], sources: Iterable[Source]
) -> None:
    """Refuse, before reading anything, an output path that is also an input."""
    inputs = [s.name for s in sources if not s.is_stdin]
    for output in outputs:
        if output is None or output == STDOUT or not os.path.exists(output):
            continue
        for path in inputs:
            if os.path.samefile(output, path):
                raise OutputError(f"{output}: is also an input; refusing to overwrite it")
