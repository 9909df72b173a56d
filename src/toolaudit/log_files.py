"""Which files a directory walk takes for logs (by name), and why one it found cannot be
read (a dangling link, a folder it could not list, a named pipe with a log's name)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

LOG_SUFFIXES = (".jsonl", ".ndjson", ".json")


def is_log_name(name: str) -> bool:
    """Whether a walk takes this file for a log: ``*.jsonl``, ``*.ndjson``, ``*.json``,
    each also gzipped (``.gz``)."""
    name = name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return name.endswith(LOG_SUFFIXES)


def walk_logs(root: Path) -> Iterator[tuple[Path, str | None]]:
    """The log files under ``root``, each with None, or with why it cannot be read;
    and each folder that cannot be listed, with why. Links to folders are not
    followed (a loop would never end), links to files are."""
    unlisted: list[OSError] = []
    for folder, _, names in os.walk(root, onerror=unlisted.append):
        for name in names:
            if is_log_name(name):
                path = Path(folder, name)
                why = _why_unreadable(path)
                if why != _NOT_A_LOG:
                    yield path, why
    for error in unlisted:
        why = error.strerror or str(error)
        yield Path(error.filename), f"cannot list this folder ({why}): its logs were not read"


#: What _why_unreadable says of a folder with a log's name: walked as any folder.
_NOT_A_LOG = "a folder"


def _why_unreadable(path: Path) -> str | None:
    """None for a file a walk reads; else why it cannot (_NOT_A_LOG for a folder)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ENOENT and os.path.islink(path):
            return dangling_link(path)
        if error.errno == errno.ELOOP:
            return "a loop of symbolic links: nothing to read"
        return f"cannot open: {error.strerror or error}"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return _NOT_A_LOG
    kind = "named pipe" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
    return f"a {kind}, not a file: a directory walk reads files only (give it by its path)"


def dangling_link(path: str | Path) -> str:
    """Why a dangling symbolic link cannot be read, naming its target when it can."""
    try:
        target = os.readlink(path)
    except OSError:
        return "a dangling symbolic link: nothing to read"
    return f"a dangling symbolic link (to {target}): nothing to read"
