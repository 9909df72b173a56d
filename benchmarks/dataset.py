"""The benchmark's files under benchmarks/data/: the log, its gzip, the schemas, the counts.

They are cached by generator version, seed and size, so that only the first run
pays for generating them; the long log of the peak-RSS measurement is the log
repeated, streamed, never held in memory. The nested log of deep mode (nested.py)
is cached the same way, with every call's expected errors beside its counts.
"""

from __future__ import annotations

import gzip
import itertools
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from common import DATA_DIR, READ_BUFFER, atomic_path, progress, shown
from nested import NESTED_GENERATOR_VERSION, generate_nested_lines
from nested_tools import nested_schemas
from synthetic import GENERATOR_VERSION, generate_lines
from tools import tool_schemas

COPY_CHUNK = 1 << 20


@dataclass
class Expected:
    """What the generator put in the log, in the words of toolaudit's summary."""

    lines: int = 0
    bytes: int = 0
    malformed_records: int = 0
    calls: int = 0
    invalid: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)

    @property
    def error_rate(self) -> float:
        audited = self.calls + self.malformed_records
        return (self.invalid + self.malformed_records) / audited if audited else 0.0


@dataclass
class NestedExpected(Expected):
    """The nested log's counts, and where each error is: deep mode must find them all."""

    #: tool -> path with array indices as ``[]`` -> kind -> count, as the summary counts.
    by_param: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    #: line number (a string, for JSON) -> the sorted errors of its call; valid calls absent.
    errors_by_line: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Dataset:
    log: Path
    gz: Path
    schemas: Path
    expected: Expected


@dataclass(frozen=True)
class NestedDataset:
    log: Path
    schemas: Path
    expected: NestedExpected


def write_log(path: Path, calls: int, seed: int) -> Expected:
    expected = Expected()
    with atomic_path(path) as partial, open(partial, "wb", buffering=READ_BUFFER) as out:
        for line, errors in generate_lines(calls, seed):
            data = line.encode() + b"\n"
            out.write(data)
            expected.lines += 1
            expected.bytes += len(data)
            if errors is None:
                expected.malformed_records += 1
                continue
            expected.calls += 1
            if errors:
                expected.invalid += 1
                for error in errors:
                    error_kind = error.split(":", 1)[0]
                    expected.by_kind[error_kind] = expected.by_kind.get(error_kind, 0) + 1
    return expected


def gzip_file(source: Path, target: Path) -> None:
    """Gzip at level 6, with no name or time in the header: the same bytes every time."""
    with (
        atomic_path(target) as partial,
        open(source, "rb") as src,
        open(partial, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=raw, mtime=0) as out,
    ):
        shutil.copyfileobj(src, out, COPY_CHUNK)


def repeat_log(source: Path, source_lines: int, target: Path, lines: int) -> None:
    """Write ``lines`` lines by concatenating ``source`` (streamed, never held in memory)."""
    whole, rest = divmod(lines, source_lines)
    with atomic_path(target) as partial, open(partial, "wb", buffering=READ_BUFFER) as out:
        for _ in range(whole):
            with open(source, "rb") as src:
                shutil.copyfileobj(src, out, COPY_CHUNK)
        with open(source, "rb", buffering=READ_BUFFER) as src:
            out.writelines(itertools.islice(src, rest))


def first_lines(log: Path, log_lines: int, lines: int) -> Path:
    """The first ``lines`` lines of ``log`` (of ``log_lines``), cached beside it (the
    peers' slice of a provider's log, the one line of the start-up audit)."""
    path = log.with_name(f"{log.stem}-first{lines}.jsonl")
    if not path.exists():
        repeat_log(log, log_lines, path, lines)
    return path


def prepare_dataset(calls: int, seed: int) -> Dataset:
    """The log, its gzip, the schemas and the expected counts: cached, or generated now."""
    stem = f"calls-v{GENERATOR_VERSION}-seed{seed}-{calls}"
    log = DATA_DIR / f"{stem}.jsonl"
    gz = DATA_DIR / f"{stem}.jsonl.gz"
    meta = DATA_DIR / f"{stem}.expected.json"
    schemas = DATA_DIR / f"schemas-v{GENERATOR_VERSION}.json"
    if not schemas.exists():
        with atomic_path(schemas) as partial:
            partial.write_bytes(orjson.dumps(tool_schemas(), option=orjson.OPT_INDENT_2))
    if log.exists() and meta.exists():
        expected = Expected(**orjson.loads(meta.read_bytes()))
        progress(f"reusing {shown(log)}")
    else:
        progress(f"generating {calls:,} calls into {shown(log)} ...")
        started = time.perf_counter()
        gz.unlink(missing_ok=True)  # it was made from another log
        expected = write_log(log, calls, seed)
        with atomic_path(meta) as partial:
            partial.write_bytes(orjson.dumps(expected.__dict__, option=orjson.OPT_INDENT_2))
        progress(f"  done in {time.perf_counter() - started:.1f}s")
    if not gz.exists():
        progress(f"gzipping it (level 6) into {gz.name} ...")
        gzip_file(log, gz)
    return Dataset(log=log, gz=gz, schemas=schemas, expected=expected)


def prepare_rss_log(dataset: Dataset, calls: int, lines: int) -> Path:
    path = DATA_DIR / f"calls-v{GENERATOR_VERSION}-{lines}-from-{dataset.log.stem}.jsonl"
    if path.exists():
        progress(f"reusing {path.name}")
    else:
        progress(f"writing {lines:,} lines into {path.name} (the log repeated) ...")
        repeat_log(dataset.log, calls, path, lines)
    return path


_INDEX = re.compile(r"\[[0-9]+\]")


def write_nested_log(path: Path, calls: int, seed: int) -> NestedExpected:
    expected = NestedExpected()
    with atomic_path(path) as partial, open(partial, "wb", buffering=READ_BUFFER) as out:
        for line, tool, errors in generate_nested_lines(calls, seed):
            data = line.encode() + b"\n"
            out.write(data)
            expected.lines += 1
            expected.bytes += len(data)
            expected.calls += 1
            if not errors:
                continue
            expected.invalid += 1
            expected.errors_by_line[str(expected.lines)] = errors
            params = expected.by_param.setdefault(tool, {})
            for error in errors:
                kind, error_path = error.split(":", 1)
                expected.by_kind[kind] = expected.by_kind.get(kind, 0) + 1
                counts = params.setdefault(_INDEX.sub("[]", error_path), {})
                counts[kind] = counts.get(kind, 0) + 1
    return expected


def prepare_nested_dataset(calls: int, seed: int) -> NestedDataset:
    """The nested log, its schemas and what deep mode must find: cached, or generated now."""
    stem = f"nested-v{NESTED_GENERATOR_VERSION}-seed{seed}-{calls}"
    log = DATA_DIR / f"{stem}.jsonl"
    meta = DATA_DIR / f"{stem}.expected.json"
    schemas = DATA_DIR / f"nested-schemas-v{NESTED_GENERATOR_VERSION}.json"
    if not schemas.exists():
        with atomic_path(schemas) as partial:
            partial.write_bytes(orjson.dumps(nested_schemas(), option=orjson.OPT_INDENT_2))
    if log.exists() and meta.exists():
        expected = NestedExpected(**orjson.loads(meta.read_bytes()))
        progress(f"reusing {shown(log)}")
    else:
        progress(f"generating {calls:,} nested calls into {shown(log)} ...")
        started = time.perf_counter()
        expected = write_nested_log(log, calls, seed)
        with atomic_path(meta) as partial:
            partial.write_bytes(orjson.dumps(expected.__dict__))
        progress(f"  done in {time.perf_counter() - started:.1f}s")
    return NestedDataset(log=log, schemas=schemas, expected=expected)
