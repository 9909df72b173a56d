"""Writing to URLs: outputs checked before a run, two names of one object told apart, and
finished files uploaded so that a URL never names half of one."""

from __future__ import annotations

import contextlib
import secrets

from toolaudit.errors import OutputError
from toolaudit.storage.filesystems import (
    BUCKET_STORES,
    FileSystem,
    StorageOptions,
    check_bucket,
    filesystem,
    filesystem_class,
    protocols,
    said,
)


def check_output(url: str, options: StorageOptions | None) -> None:
    """Before a run: raise :class:`OutputError` when a URL cannot be written at all (its
    filesystem is not installed, its bucket does not exist)."""
    fs, path = filesystem(url, options, OutputError)
    check_bucket(fs, url, path, OutputError)


def same_object(first: str, second: str) -> bool:
    """Whether two URLs name one object (spelled alike once their filesystem reads them)."""

    def key(url: str) -> tuple[str, str]:
        if "::" in url:  # a chain: its spelling is all there is to compare
            return url, url
        cls = filesystem_class(url, protocols(url)[0], OutputError)
        return cls.__name__, cls._strip_protocol(url).rstrip("/")

    return key(first) == key(second)


def upload(local: str, url: str, options: StorageOptions | None) -> None:
    """Put a finished local file at a URL, so that the URL never names half of it.

    Object stores show an upload only once it is whole; elsewhere the file goes to a
    temporary name beside the final one, then is moved. Raises :class:`OutputError`.
    """
    fs, path = filesystem(url, options, OutputError)
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    temporary = None
    try:
        if set(protocols) & BUCKET_STORES:
            fs.put_file(local, path)
            return
        parent, _, name = path.rpartition("/")
        temporary = f"{parent}/" if parent else ""
        temporary += f".{name}.{secrets.token_hex(4)}.partial"
        fs.put_file(local, temporary)
        fs.mv(temporary, path)
        temporary = None
    except Exception as error:
        raise OutputError(f"{url}: cannot write: {said(error)}") from error
    finally:
        if temporary is not None:
            _remove_quietly(fs, temporary)


def _remove_quietly(fs: FileSystem, path: str) -> None:
    # Already failing: a second error would only hide the first.
    with contextlib.suppress(Exception):
        fs.rm_file(path)
