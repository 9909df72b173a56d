"""The objects a URL names: itself, those a glob matches, or the log files under a
prefix, each with its size when the listing gives it; access checked before a line is read."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any

from toolaudit.errors import InputError, ToolAuditError
from toolaudit.storage.filesystems import (
    FileSystem,
    StorageOptions,
    check_bucket,
    filesystem,
    input_error,
    is_url,
)

_GLOB = re.compile(r"[*?\[]")
_GZIP_MAGIC_BYTES = 2


def expand_url(
    url: str,
    options: StorageOptions | None,
    *,
    keep: Callable[[str], bool],
    skip: Collection[str] = (),
) -> list[tuple[str, int | None]]:
    """The objects a URL names: itself, those a glob matches, or the log files under a
    prefix (``keep`` says which names are logs), sorted, minus those in ``skip``; each
    with its size when the listing gave it.

    The first object is read a little (its first two bytes), so that access denied
    stops the run here rather than after other inputs were audited. Raises
    :class:`InputError` for a filesystem not installed, a missing bucket, an object
    or prefix that does not exist or holds no log, access denied.
    """
    fs, path = filesystem(url, options, InputError)
    skipped = {fs._strip_protocol(s) for s in skip if is_url(s)} - {path}
    try:
        # Filesystems are cached, listings with them: a long-lived process must see
        # the objects written since it last looked (a glob would miss them: measured).
        fs.invalidate_cache()
        if _GLOB.search(path):
            found = _globbed(fs, path, keep)
            if not found:
                check_bucket(fs, url, path, InputError)
                raise InputError(f"{url}: no object matches this pattern")
        else:
            found = _named(fs, url, path, keep)
        found = {p: size for p, size in found.items() if p not in skipped}
        if not found:
            raise InputError(f"{url}: no log files here but the schemas files")
        paths = sorted(found, key=lambda p: p.split("/"))  # as a local walk orders its paths
        first = next((p for p in paths if found[p] != 0), None)
        if first is not None:
            # Read to check access: a listing may be allowed where a read is not.
            fs.cat_file(first, start=0, end=_GZIP_MAGIC_BYTES)
    except ToolAuditError:
        raise
    except Exception as error:  # each filesystem raises its own kinds
        raise input_error(url, error) from error
    return [(_name_of(fs, url, path, p), _size(found[p])) for p in paths]


def _size(size: object) -> int | None:
    return size if isinstance(size, int) else None


def _named(
    fs: FileSystem, url: str, path: str, keep: Callable[[str], bool]
) -> dict[str, int | None]:
    """One object, or the log files under a prefix."""
    try:
        info = fs.info(path)
    except FileNotFoundError:
        check_bucket(fs, url, path, InputError)
        raise InputError(f"{url}: no such object or prefix") from None
    if info.get("type") != "directory":
        return {path: info.get("size")}
    found = {
        p: entry.get("size")
        for p, entry in fs.find(path, detail=True).items()
        if entry.get("type") == "file" and keep(p)
    }
    if not found:
        raise InputError(f"{url}: no log files under this prefix (*.jsonl, *.ndjson, *.json, .gz)")
    return found


def _globbed(fs: FileSystem, path: str, keep: Callable[[str], bool]) -> dict[str, Any]:
    """Objects a pattern matches, as given; prefixes it matches, walked for logs."""
    found: dict[str, Any] = {}
    for match, info in fs.glob(path, detail=True).items():
        if info.get("type") == "directory":
            found.update(
                (p, entry.get("size"))
                for p, entry in fs.find(match, detail=True).items()
                if entry.get("type") == "file" and keep(p)
            )
        else:
            found[match] = info.get("size")
    return found


def _glob_root(path: str) -> str:
    """The part of a path before its first glob character, up to a ``/``."""
    match = _GLOB.search(path)
    return path if match is None else path[: path.rfind("/", 0, match.start()) + 1]


def _name_of(fs: FileSystem, url: str, path: str, found: str) -> str:
    """A found object's name, spelled as the URL given spells its root (its protocol,
    a chain of them, a trailing slash or not)."""
    if found == path:
        return url
    url_root, path_root = _glob_root(url), _glob_root(path)
    if url_root == url:  # a prefix
        url_root, path_root = url.rstrip("/") + "/", path.rstrip("/") + "/"
    if found.startswith(path_root):
        return url_root + found[len(path_root) :]
    return str(fs.unstrip_protocol(found))


def object_size(url: str, options: StorageOptions | None) -> int | None:
    """An object's size in bytes, when its filesystem says; None otherwise."""
    try:
        fs, path = filesystem(url, options, InputError)
        size = fs.info(path).get("size")
    except Exception:
        return None
    return _size(size)
