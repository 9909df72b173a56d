"""What the benchmark's modules share: its paths, progress on stderr, its error, atomic writes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
DATA_DIR = BENCH_DIR / "data"
READ_BUFFER = 1 << 20


class BenchmarkError(Exception):
    """Something the benchmark cannot go on without."""


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class atomic_path:
    """A temporary path beside ``path``, renamed over it only on success."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")

    def __enter__(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return self.partial

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)
