"""A report as parts: ``DEST/part-00000.jsonl``, ``part-00001.jsonl``, ... in input order.

The Spark and Dask convention: the workers write the parts, each whole (see
:class:`~toolaudit.output.files.AtomicOutput`), and the parts concatenated by name
are the report of one process. ``DEST`` is a local directory or a URL prefix
(``s3://bucket/reports/day/``). When the run ends, the directory holds exactly
its parts: those a previous run left beyond them are removed, so that a shorter
report never ends with someone else's rows.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Collection, Mapping
from typing import Any

from toolaudit.errors import OutputError
from toolaudit.storage.filesystems import is_url, local_path
from toolaudit.storage.writing import check_output

#: What part_name makes, and only that, in a report directory.
PART_NAME = re.compile(r"part-[0-9]{5,}\.jsonl")


def part_name(index: int, count: int) -> str:
    """The name of part ``index`` of ``count``: wide enough that names sort in order."""
    return f"part-{index:0{max(5, len(str(count - 1)))}d}.jsonl"


class Parts:
    """Where a run's report parts go, and what is removed from there when it ends."""

    def __init__(self, destination: str, storage_options: Mapping[str, Any] | None = None) -> None:
        self.destination = local_path(destination) or destination
        self.storage_options = storage_options
        self._remote = is_url(self.destination)

    def prepare(self) -> None:
        """Before anything is submitted: the directory made, or the bucket checked."""
        if self._remote:
            check_output(self.destination, self.storage_options)
            return
        try:
            os.makedirs(self.destination, exist_ok=True)
        except OSError as error:
            raise OutputError(
                f"{self.destination}: cannot make the directory for the report's parts: "
                f"{error.strerror or error}"
            ) from error

    def path(self, name: str) -> str:
        """The path (or URL) of a part."""
        if self._remote:
            return f"{self.destination.rstrip('/')}/{name}"
        return os.path.join(self.destination, name)

    def keep_only(self, names: Collection[str]) -> None:
        """Remove every part in the directory but ``names`` (best effort: a part that
        cannot be removed is left, and the rest still are)."""
        if self._remote:
            fs, root = _filesystem(self.destination, self.storage_options)
            with contextlib.suppress(Exception):
                fs.invalidate_cache(root)
            try:
                found = [str(p).rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(root, detail=False)]
            except FileNotFoundError:
                return
            for name in _stale(found, names):
                with contextlib.suppress(Exception):
                    fs.rm_file(f"{root.rstrip('/')}/{name}")
            return
        try:
            found = os.listdir(self.destination)
        except OSError:
            return
        for name in _stale(found, names):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.destination, name))


def _stale(found: Collection[str], names: Collection[str]) -> list[str]:
    keep = set(names)
    return [name for name in found if PART_NAME.fullmatch(name) and name not in keep]


def _filesystem(url: str, storage_options: Mapping[str, Any] | None) -> tuple[Any, str]:
    import fsspec  # type: ignore[import-untyped]  # here: only a URL loads it

    fs, root = fsspec.core.url_to_fs(url, **dict(storage_options or {}))
    return fs, str(root)
