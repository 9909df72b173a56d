"""URLs: inputs and outputs in object storage, or anywhere else fsspec can reach.

A name such as ``s3://logs/2026/12/`` or ``memory://calls.jsonl`` (any
``protocol://``, or a chain such as ``simplecache::s3://...``) is read and
written through fsspec; every other name stays a local path and never loads it,
so the default install stays light. Credentials and endpoints are fsspec's own
business (its config files, ``FSSPEC_<PROTOCOL>_<OPTION>`` variables, each
filesystem's usual environment such as ``AWS_*``), plus the storage options a
caller passes, which win.

What stops a run (a filesystem not installed, a missing bucket, access denied)
is found here before a line is read, and raised as one line naming the URL.
"""

from __future__ import annotations

import contextlib
import io
import re
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, BinaryIO, cast

from toolaudit.errors import InputError, OptionError, OutputError, ToolAuditError

StorageOptions = Mapping[str, Any]
#: An fsspec filesystem (fsspec ships no type information).
FileSystem = Any

#: ``protocol://``, or a chain that ends in one (``simplecache::s3://``): a local file may
#: well be called ``notes::1.jsonl``.
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*(?:://|::.*://)")
_PROTOCOL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_GLOB = re.compile(r"[*?\[]")
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
#: Parts of objects (a Dask block's) are read in blocks this big, one request each, the
#: last one cut at the part's end.
#: Measured through moto's S3 server: 16 MiB blocks read at 85 MB/s, 50 MiB at 135 MB/s
#: (s3fs's own default); requests cost more than memory.
READ_BLOCK_BYTES = 50 << 20
#: Whole objects are read in blocks this big, the next one fetched in a thread while
#: the audit reads the current one, and two kept: the download overlaps the audit.
#: Through a proxy pacing moto's S3 server at 80 MB/s a connection, a 170 MB log's audit
#: took 0.75x to 0.89x the time of reading it a block at a time (benchmarks/s3_bench.py).
#: The overlap is partial: the thread downloading needs the interpreter lock for each
#: chunk it receives, which the audit's loop gives up only every few milliseconds.
PREFETCH_BLOCK_BYTES = 16 << 20
_GZIP_MAGIC_BYTES = 2


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
    fs, path = _filesystem(url, options, InputError)
    skipped = {fs._strip_protocol(s) for s in skip if is_url(s)} - {path}
    try:
        # Filesystems are cached, listings with them: a long-lived process must see
        # the objects written since it last looked (a glob would miss them: measured).
        fs.invalidate_cache()
        if _GLOB.search(path):
            found = _globbed(fs, path, keep)
            if not found:
                _check_bucket(fs, url, path, InputError)
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
        raise _input_error(url, error) from error
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
        _check_bucket(fs, url, path, InputError)
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


def _check_bucket(fs: FileSystem, url: str, path: str, kind: type[ToolAuditError]) -> None:
    """Raise ``kind`` naming the bucket when the bucket of a URL does not exist."""
    if not set(_protocols(url)) & BUCKET_STORES:
        return
    bucket = path.strip("/").split("/", 1)[0]
    try:
        fs.info(bucket)
    except FileNotFoundError:
        raise kind(f"{url}: bucket {bucket!r} does not exist") from None
    except Exception:  # denied or unreachable: the caller's own error says so
        return


def _input_error(url: str, error: Exception) -> InputError:
    if isinstance(error, PermissionError):
        return InputError(f"{url}: access denied ({_said(error)})")
    if isinstance(error, FileNotFoundError):
        return InputError(f"{url}: no such object ({_said(error)})")
    return InputError(f"{url}: cannot read: {_said(error)}")


def _said(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def object_size(url: str, options: StorageOptions | None) -> int | None:
    """An object's size in bytes, when its filesystem says; None otherwise."""
    try:
        fs, path = _filesystem(url, options, InputError)
        size = fs.info(path).get("size")
    except Exception:
        return None
    return _size(size)


def open_input(
    url: str,
    options: StorageOptions | None,
    *,
    part_end: int | None = None,
    read_ahead: bool = True,
) -> BinaryIO:
    """An object opened for reading, in binary, seekable where its filesystem is: read
    whole, the next block fetched in the background; or a part of it, read up to byte
    ``part_end`` and never a block beyond; or, without ``read_ahead``, each read fetched
    as asked and nothing more (for reads that jump, or stop anywhere).

    A read that fails (a connection lost, a 5xx after the filesystem's retries) or
    that ends before the object's known size raises :class:`OSError`, as a local
    read would. Raises :class:`InputError` when the object cannot be opened.
    """
    fs, path = _filesystem(url, options, InputError)
    try:
        if not read_ahead:
            # A read fetches its bytes and no more.
            file = _open_preferring(fs, path, {"cache_type": "none"})
        elif part_end is None:
            file = fs.open(
                path,
                "rb",
                block_size=PREFETCH_BLOCK_BYTES,
                cache_type="background",
                cache_options={"maxblocks": 2},  # fsspec keeps 32 by default
            )
        else:
            # fsspec's read-ahead fetches a block beyond each read: told the object ends
            # at the part's end (a Dask block's), it fetches nothing past it. (A 64 MiB
            # part of a log on moto's S3 server downloaded 100 MiB; now 64.)
            file = _open_preferring(fs, path, {"size": part_end}, block_size=READ_BLOCK_BYTES)
    except Exception as error:
        raise _input_error(url, error) from error
    return cast(BinaryIO, _Reader(file))


def _open_preferring(
    fs: FileSystem, path: str, preferred: Mapping[str, Any], **required: Any
) -> Any:
    """``fs.open(path, "rb", ...)`` with the ``preferred`` options (fsspec's), or without
    them for a filesystem whose files take none. The bytes read are the same either way
    (the reader of a part stops at its end itself); only the requests made differ."""
    try:
        return fs.open(path, "rb", **required, **preferred)
    except TypeError:
        return fs.open(path, "rb", **required)


class _Reader(io.RawIOBase):
    """A remote file whose read failures are all :class:`OSError`, and that notices an
    object cut short (the filesystem said it had more bytes than it gave)."""

    def __init__(self, file: Any) -> None:
        super().__init__()
        self._file = file
        size = getattr(file, "size", None)
        self._size = size if isinstance(size, int) else None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._file.seekable())

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return int(self._file.seek(offset, whence))

    def tell(self) -> int:
        return int(self._file.tell())

    def read(self, size: int | None = -1) -> bytes:
        try:
            data = self._file.read(-1 if size is None else size)
        except OSError:
            raise
        except Exception as error:  # the filesystem's own (aiohttp, botocore...)
            raise OSError(f"{type(error).__name__}: {_said(error)}") from error
        if not data and size != 0 and self._size is not None:
            position = self._file.tell()
            if position < self._size:
                raise OSError(f"the object ended after {position} of its {self._size} bytes")
        return bytes(data)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._file.close()
        finally:
            super().close()


def read_bytes(url: str, options: StorageOptions | None, *, what: str) -> bytes:
    """A whole object's bytes (a schemas file); ``what`` names it in the error."""
    fs, path = _filesystem(url, options, InputError)
    try:
        return bytes(fs.cat_file(path))
    except Exception as error:
        cause = _input_error(url, error)
        raise InputError(f"{what}: {str(cause).removeprefix(url + ': ')}") from error


def check_output(url: str, options: StorageOptions | None) -> None:
    """Before a run: raise :class:`OutputError` when a URL cannot be written at all (its
    filesystem is not installed, its bucket does not exist)."""
    fs, path = _filesystem(url, options, OutputError)
    _check_bucket(fs, url, path, OutputError)


def same_object(first: str, second: str) -> bool:
    """Whether two URLs name one object (spelled alike once their filesystem reads them)."""

    def key(url: str) -> tuple[str, str]:
        if "::" in url:  # a chain: its spelling is all there is to compare
            return url, url
        cls = _filesystem_class(url, _protocols(url)[0], OutputError)
        return cls.__name__, cls._strip_protocol(url).rstrip("/")

    return key(first) == key(second)


def upload(local: str, url: str, options: StorageOptions | None) -> None:
    """Put a finished local file at a URL, so that the URL never names half of it.

    Object stores show an upload only once it is whole; elsewhere the file goes to a
    temporary name beside the final one, then is moved. Raises :class:`OutputError`.
    """
    fs, path = _filesystem(url, options, OutputError)
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
        raise OutputError(f"{url}: cannot write: {_said(error)}") from error
    finally:
        if temporary is not None:
            _remove_quietly(fs, temporary)


def _remove_quietly(fs: FileSystem, path: str) -> None:
    # Already failing: a second error would only hide the first.
    with contextlib.suppress(Exception):
        fs.rm_file(path)


def _protocols(url: str) -> list[str]:
    """The protocols of a URL, outermost first: ``simplecache::s3://b/k`` -> simplecache, s3."""
    protocols = []
    for part in url.split("::"):
        match = _PROTOCOL.match(part)
        protocols.append(match.group(1) if match else part if "/" not in part else "file")
    return protocols


def _filesystem(
    url: str, options: StorageOptions | None, kind: type[ToolAuditError]
) -> tuple[FileSystem, str]:
    """The filesystem of a URL and the path in it; ``kind`` is raised for what stops the run."""
    for protocol in _protocols(url):
        _filesystem_class(url, protocol, kind)
    try:
        fs, path = _fsspec().core.url_to_fs(url, **dict(options or {}))
    except Exception as error:  # bad options, unreachable endpoints...
        raise kind(f"{url}: {_said(error)}") from error
    return fs, path


def _fsspec() -> Any:
    """fsspec, imported only when a URL is met."""
    import fsspec  # type: ignore[import-untyped]

    return fsspec


def _filesystem_class(url: str, protocol: str, kind: type[ToolAuditError]) -> Any:
    extra = EXTRAS.get(protocol)
    fix = f"pip install 'toolaudit[{extra}]'" if extra else "pip install fsspec"
    try:
        fsspec = _fsspec()
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
            raise kind(f"{url}: {_said(error)}") from None
        raise kind(f"{url}: fsspec knows no filesystem for {protocol}://") from None
