"""Writing outputs so that a crash never leaves a half-file that looks complete."""

from __future__ import annotations

import os
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
    beside it and renamed over it only when everything was written."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: BinaryIO | None = None
        self._temp_path: str | None = None

    def __enter__(self) -> BinaryIO:
        if self.path == STDOUT:
            return sys.stdout.buffer
        directory = os.path.dirname(os.path.abspath(self.path))
        try:
            fd, self._temp_path = tempfile.mkstemp(
                dir=directory, prefix=f".{os.path.basename(self.path)}.", suffix=".partial"
            )
            self._file = os.fdopen(fd, "wb", buffering=BUFFER_BYTES)
        except OSError as error:
            raise OutputError(f"{self.path}: cannot write: {error.strerror or error}") from error
        return self._file

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._file is None:
            if self.path == STDOUT and kind is None:
                sys.stdout.buffer.flush()
            return
        assert self._temp_path is not None
        try:
            if kind is None:
                self._file.flush()
                os.fsync(self._file.fileno())
            self._file.close()
            if kind is None:
                os.replace(self._temp_path, self.path)
                return
        except OSError as write_error:
            self._discard()
            raise OutputError(f"{self.path}: cannot write: {write_error.strerror or write_error}") from write_error
        self._discard()
        if isinstance(error, OSError):
            raise OutputError(f"{self.path}: cannot write: {error.strerror or error}") from error

    def _discard(self) -> None:
        assert self._file is not None and self._temp_path is not None
        try:
            self._file.close()
        except OSError:
            pass
        try:
            os.unlink(self._temp_path)
        except OSError:
            pass


def check_outputs_differ_from_inputs(outputs: Iterable[str | None], sources: Iterable[Source]) -> None:
    """Refuse, before reading anything, an output path that is also an input."""
    inputs = [s.name for s in sources if not s.is_stdin]
    for output in outputs:
        if output is None or output == STDOUT or not os.path.exists(output):
            continue
        for path in inputs:
            if os.path.samefile(output, path):
                raise OutputError(f"{output}: is also an input; refusing to overwrite it")
