"""A URL's filesystem: which names are URLs, the fsspec filesystem and path a URL names
(fsspec is imported only then), and the one-line errors for what stops a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from toolaudit.errors import InputError, OptionError, ToolAuditError

StorageOptions = Mapping[str, Any]
#: An fsspec filesystem (fsspec ships no type information).
FileSystem = Any

#: ``protocol://``, or a chain that ends in one (``simplecache::s3://``): a local file may
#: well be called ``notes::1.jsonl``.
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*(?:://|::.*://)")
_PROTOCOL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
#: The extra of toolaudit that installs each protocol's filesystem.
EXTRAS = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "az": "azure",
    "abfs": "azure",
    "abfss": "azure",
    "adl": "azure",
}
#: The package each extra adds for its protocols.
PACKAGES = {"s3": "s3fs", "gcs": "gcsfs", "azure": "adlfs"}
#: Object stores whose first path segment is a bucket (or container), and where an
#: upload only appears under its key once it is whole (a PUT, a completed multipart
#: or resumable upload, a committed block list).
BUCKET_STORES = frozenset(EXTRAS) - {"adl"}


def is_url(name: str) -> bool:
    """Whether a name is a URL for fsspec rather than a local path (``-`` is neither)."""
    return _URL.match(name) is not None


def local_path(url: str) -> str | None:
    """The local path a plain ``file://`` URL names, else None."""
    if url.startswith("file://") and "::" not in url:
        return url[len("file://") :]
    return None


def parse_storage_options(pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings -> storage options; a VALUE that parses as JSON is that
    value (``anon=true`` is True, ``client_kwargs={"region_name": "eu-west-1"}`` a dict),
    any other is the string. Raises :class:`OptionError` for a pair of another form."""
    import json

    options: dict[str, Any] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        key = key.strip()
        if not equals or not key:
            raise OptionError(f"--storage-option {pair!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(text)
        except ValueError:
            options[key] = text
    return options


def protocols(url: str) -> list[str]:
    """The protocols of a URL, outermost first: ``simplecache::s3://b/k`` -> simplecache, s3."""
    protocols = []
    for part in url.split("::"):
        match = _PROTOCOL.match(part)
        protocols.append(match.group(1) if match else part if "/" not in part else "file")
    return protocols


def filesystem(
    url: str, options: StorageOptions | None, kind: type[ToolAuditError]
) -> tuple[FileSystem, str]:
    """The filesystem of a URL and the path in it; ``kind`` is raised for what stops the run."""
    for protocol in protocols(url):
        filesystem_class(url, protocol, kind)
    try:
        fs, path = fsspec_module().core.url_to_fs(url, **dict(options or {}))
    except Exception as error:  # bad options, unreachable endpoints...
        raise kind(f"{url}: {said(error)}") from error
    return fs, path


def fsspec_module() -> Any:
    """fsspec, imported only when a URL is met."""
    import fsspec  # type: ignore[import-untyped]

    return fsspec


def filesystem_class(url: str, protocol: str, kind: type[ToolAuditError]) -> Any:
    extra = EXTRAS.get(protocol)
    fix = f"pip install 'toolaudit[{extra}]'" if extra else "pip install fsspec"
    try:
        fsspec = fsspec_module()
    except ImportError:
        raise kind(f"{url}: URLs are read with fsspec, which is not installed: {fix}") from None
    try:
        return fsspec.get_filesystem_class(protocol)
    except (ImportError, ValueError) as error:
        if extra is not None:
            raise kind(
                f"{url}: {protocol}:// needs {PACKAGES[extra]}, which is not installed: {fix}"
            ) from None
        if isinstance(error, ImportError):
            raise kind(f"{url}: {said(error)}") from None
        raise kind(f"{url}: fsspec knows no filesystem for {protocol}://") from None


def check_bucket(fs: FileSystem, url: str, path: str, kind: type[ToolAuditError]) -> None:
    """Raise ``kind`` naming the bucket when the bucket of a URL does not exist."""
    if not set(protocols(url)) & BUCKET_STORES:
        return
    bucket = path.strip("/").split("/", 1)[0]
    try:
        fs.info(bucket)
    except FileNotFoundError:
        raise kind(f"{url}: bucket {bucket!r} does not exist") from None
    except Exception:  # denied or unreachable: the caller's own error says so
        return


def input_error(url: str, error: Exception) -> InputError:
    if isinstance(error, PermissionError):
        return InputError(f"{url}: access denied ({said(error)})")
    if isinstance(error, FileNotFoundError):
        return InputError(f"{url}: no such object ({said(error)})")
    return InputError(f"{url}: cannot read: {said(error)}")


def said(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
