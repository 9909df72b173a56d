"""What the benchmark's modules share: its paths, progress on stderr, its error, atomic writes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
#: Where the generated logs and the runs' outputs go (TOOLAUDIT_BENCHMARK_DATA: elsewhere,
#: as the tests run the scripts on small logs, which would overwrite the real ones here).
DATA_DIR = Path(os.environ.get("TOOLAUDIT_BENCHMARK_DATA") or BENCH_DIR / "data")
READ_BUFFER = 1 << 20


def shown(path: Path) -> Path:
    """``path`` as progress shows it: from the checkout's root where it is inside it."""
    return path.relative_to(BENCH_DIR.parent) if path.is_relative_to(BENCH_DIR.parent) else path


class BenchmarkError(Exception):
    """Something the benchmark cannot go on without."""


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def source_state() -> str:
    """Which toolaudit sources are measured: the commit, and a digest of how src/ differs
    from it. Others may work in the same tree while the benchmark runs; comparing this at
    the start and at the end tells whether every row timed the same code. Read-only git."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=BENCH_DIR.parent, capture_output=True, text=True, check=False
        )
        return done.stdout if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD").strip()
    if not commit:
        return "unknown (not a git checkout)"
    digest = hashlib.sha256(git("diff", "HEAD", "--", "src").encode())
    untracked = git("ls-files", "--others", "--exclude-standard", "--", "src").split()
    for name in untracked:
        digest.update(name.encode() + (BENCH_DIR.parent / name).read_bytes())
    if digest.digest() == hashlib.sha256(b"").digest():
        return f"commit {commit}"
    return f"commit {commit} with src/ modified (digest {digest.hexdigest()[:8]})"


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
