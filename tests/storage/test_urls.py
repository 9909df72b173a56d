"""URLs of every other kind: memory://, file://, http://; filesystems that are not
installed; --storage-option; faults of a filesystem of the test's own; a light default."""

from __future__ import annotations

import functools
import gzip
import json
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFile, MemoryFileSystem

import toolaudit
from toolaudit.errors import OptionError
from toolaudit.storage.filesystems import EXTRAS, is_url, parse_storage_options
from toolaudit.storage.reading import open_input

from ..conftest import REPO, invoke
from .conftest import REGISTRY

SCHEMAS = REPO / "sample_logs" / "schemas.json"
SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SAMPLE_LINES = SAMPLE.read_bytes().splitlines(keepends=True)


def test_memory_urls_are_inputs_schemas_and_outputs(memory):
    fs = fsspec.filesystem("memory")
    fs.pipe_file(f"{memory}/logs/a.jsonl", b"".join(SAMPLE_LINES[:100]))
    fs.pipe_file(f"{memory}/logs/b.json.gz", gzip.compress(b"".join(SAMPLE_LINES[100:])))
    fs.pipe_file(f"{memory}/logs/tools.json", SCHEMAS.read_bytes())  # passed over by the walk
    result = invoke(
        "audit",
        f"{memory}/logs",
        "-s",
        f"{memory}/logs/tools.json",
        "--report",
        f"{memory}/out/report.jsonl",
        "--summary",
        f"{memory}/out/summary.json",
    )
    local = invoke("audit", str(SAMPLE), "-s", str(SCHEMAS), "-r", "-")
    assert (result.exit_code, result.stderr) == (1, "")
    summary = json.loads(fs.cat_file(f"{memory}/out/summary.json"))
    assert [s["path"] for s in summary["sources"]] == [
        f"{memory}/logs/a.jsonl",
        f"{memory}/logs/b.json.gz",
    ]
    rows = [json.loads(line) for line in fs.cat_file(f"{memory}/out/report.jsonl").splitlines()]
    expected = [json.loads(line) for line in local.stdout.splitlines()]
    assert len(rows) == len(expected)
    # No temporary object is left beside the outputs.
    assert sorted(fs.ls(f"{memory}/out", detail=False)) == [
        f"/{memory.removeprefix('memory://')}/out/report.jsonl",
        f"/{memory.removeprefix('memory://')}/out/summary.json",
    ]


def test_compare_and_merge_read_summaries_from_urls_and_merge_writes_to_one(memory):
    fs = fsspec.filesystem("memory")
    for shard, lines in (("a", SAMPLE_LINES[:100]), ("b", SAMPLE_LINES[100:])):
        fs.pipe_file(f"{memory}/logs/{shard}.jsonl", b"".join(lines))
        summary = f"{memory}/sums/{shard}.json"
        invoke("audit", f"{memory}/logs/{shard}.jsonl", "-s", str(SCHEMAS), "--summary", summary)
    merged = invoke(
        "merge", f"{memory}/sums/a.json", f"{memory}/sums/b.json", "-o", f"{memory}/all.json"
    )
    assert (merged.exit_code, merged.stderr) == (0, "")
    whole = json.loads(invoke("audit", str(SAMPLE), "-s", str(SCHEMAS), "--format", "json").stdout)
    assert json.loads(fs.cat_file(f"{memory}/all.json"))["calls"] == whole["calls"]
    compared = invoke("compare", f"{memory}/sums/a.json", f"{memory}/all.json", "--format", "json")
    assert compared.exit_code in (0, 1) and compared.stderr == ""
    missing = invoke("compare", f"{memory}/sums/a.json", f"{memory}/nope.json")
    assert missing.exit_code == 2 and f"{memory}/nope.json" in missing.stderr


def test_file_urls_with_globs_and_prefixes(tmp_path):
    (tmp_path / "d1").mkdir()
    (tmp_path / "d2").mkdir()
    (tmp_path / "d1" / "calls.jsonl").write_bytes(b"".join(SAMPLE_LINES[:50]))
    (tmp_path / "d2" / "calls.jsonl.gz").write_bytes(gzip.compress(b"".join(SAMPLE_LINES[50:])))
    globbed = toolaudit.run_audit([f"file://{tmp_path}/d*/calls.*"], str(SCHEMAS))
    walked = toolaudit.run_audit([f"file://{tmp_path}/"], str(SCHEMAS))
    local = toolaudit.run_audit([str(SAMPLE)], str(SCHEMAS))
    assert [s.path for s in globbed.sources] == [
        f"file://{tmp_path}/d1/calls.jsonl",
        f"file://{tmp_path}/d2/calls.jsonl.gz",
    ]
    assert [s.path for s in walked.sources] == [s.path for s in globbed.sources]
    for summary in (globbed, walked):
        assert (summary.lines, summary.calls, summary.invalid) == (
            local.lines,
            local.calls,
            local.invalid,
        )
    # A file:// output is a local file, renamed into place as any other.
    report = tmp_path / "report.jsonl"
    toolaudit.run_audit([f"file://{tmp_path}/d1/"], str(SCHEMAS), report=f"file://{report}")
    assert report.read_bytes().count(b"\n") > 0
    refused = invoke("audit", f"file://{tmp_path}/d1/", "-r", f"file://{tmp_path}/d1/calls.jsonl")
    assert refused.exit_code == 2
    assert "is also an input; refusing to overwrite it" in refused.stderr


def test_an_http_url_is_an_input(tmp_path):
    (tmp_path / "calls.jsonl.gz").write_bytes(gzip.compress(SAMPLE.read_bytes()))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        read = invoke("audit", f"{base}/calls.jsonl.gz", "-s", str(SCHEMAS))
        missing = invoke("audit", f"{base}/none.jsonl", "-s", str(SCHEMAS))
    finally:
        server.shutdown()
    local = invoke("audit", str(SAMPLE), "-s", str(SCHEMAS))
    assert (read.exit_code, read.stdout, read.stderr) == (1, local.stdout, "")
    assert missing.exit_code == 2
    assert missing.stderr == f"toolaudit: error: {base}/none.jsonl: no such object or prefix\n"


# Filesystems that are not installed ----------------------------------------------------


@pytest.mark.parametrize(
    ("url", "package", "extra"),
    [
        ("gs://bucket/logs/", "gcsfs", "gcs"),
        ("gcs://bucket/logs/calls.jsonl", "gcsfs", "gcs"),
        ("az://container/logs/", "adlfs", "azure"),
        ("abfs://container/logs/", "adlfs", "azure"),
        ("s3://bucket/logs/", "s3fs", "s3"),
    ],
)
def test_a_filesystem_not_installed_names_the_extra_that_installs_it(
    monkeypatch, tmp_path, url, package, extra
):
    protocol = url.split("://")[0]
    # As if the package were not installed, whether or not it is here.
    monkeypatch.delitem(REGISTRY._registry, protocol, raising=False)
    monkeypatch.setitem(
        REGISTRY.known_implementations,
        protocol,
        {"class": f"{package}_not_installed_here.FileSystem", "err": f"Install {package}"},
    )
    line = (
        f"{protocol}:// needs {package}, which is not installed: pip install 'toolaudit[{extra}]'\n"
    )
    as_input = invoke("audit", url, "-s", str(SCHEMAS))
    assert (as_input.exit_code, as_input.stderr) == (2, f"toolaudit: error: {url}: {line}")
    report = f"{url.rstrip('/')}/report.jsonl"
    as_output = invoke("audit", str(SAMPLE), "-s", str(SCHEMAS), "-r", report)
    assert (as_output.exit_code, as_output.stdout) == (2, "")
    assert as_output.stderr == f"toolaudit: error: {report}: {line}"
    as_schemas = invoke("validate", "-s", f"{url.rstrip('/')}/tools.json", "{}")
    assert (as_schemas.exit_code, as_schemas.stderr.count("\n")) == (2, 1)
    assert as_schemas.stderr.endswith(line)


def test_every_extra_named_exists_in_pyproject():
    import tomllib

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(EXTRAS.values()) <= set(extras)


def test_without_fsspec_a_url_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec now fails
    for url, fix in [
        ("memory://logs/", "pip install fsspec"),
        ("s3://bucket/logs/", "pip install 'toolaudit[s3]'"),
    ]:
        result = invoke("audit", url, "-s", str(SCHEMAS))
        assert result.exit_code == 2
        assert result.stderr == (
            f"toolaudit: error: {url}: URLs are read with fsspec, which is not installed: {fix}\n"
        )


def test_local_paths_never_load_fsspec():
    code = (
        "import sys\n"
        "from toolaudit.cli import main\n"
        "sys.argv = ['toolaudit', 'audit', 'sample_logs/calls.jsonl', '-s',\n"
        "            'sample_logs/schemas.json', '--summary', '/dev/null']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "                ('fsspec', 's3fs', 'aiohttp', 'botocore', 'aiobotocore'))\n"
        "sys.stderr.write(repr(loaded))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert result.stderr == "[]"


# --storage-option -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("s3://bucket/key", True),
        ("memory://calls.jsonl", True),
        ("simplecache::s3://bucket/key", True),
        ("file:///var/log/calls.jsonl", True),
        ("logs/calls.jsonl", False),
        ("notes::1.jsonl", False),
        ("C:\\logs\\calls.jsonl", False),
        ("-", False),
    ],
)
def test_what_is_a_url(name, url):
    assert is_url(name) is url


def test_storage_options_parse_values_as_json_when_they_parse():
    assert parse_storage_options(
        [
            "anon=true",
            "default_block_size=8388608",
            'client_kwargs={"region_name": "eu-west-3"}',
            "endpoint_url=http://127.0.0.1:9000",
            "token=a=b",
            "profile=",
            ' key = "quoted" ',
        ]
    ) == {
        "anon": True,
        "default_block_size": 8388608,
        "client_kwargs": {"region_name": "eu-west-3"},
        "endpoint_url": "http://127.0.0.1:9000",
        "token": "a=b",
        "profile": "",
        "key": "quoted",
    }


@pytest.mark.parametrize("pair", ["anon", "=true", " =x"])
def test_a_storage_option_of_another_form_stops_every_command(pair):
    message = f"toolaudit: error: --storage-option {pair!r}: expected KEY=VALUE\n"
    with pytest.raises(OptionError):
        parse_storage_options([pair])
    for command in (
        ["audit", str(SAMPLE), "-s", str(SCHEMAS)],
        ["validate", "-s", str(SCHEMAS), "{}"],
        ["schemas", str(SCHEMAS)],
    ):
        result = invoke(*command, "--storage-option", pair)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", message), command


# Faults, with filesystems of the test's own ----------------------------------------------


class _MemoryUnderAnotherName(MemoryFileSystem):
    """fsspec's memory filesystem (the same store) under a protocol of the test's own."""

    @classmethod
    def _strip_protocol(cls, path: str) -> str:
        name = cls.protocol[0]
        return super()._strip_protocol(path.replace(f"{name}://", "memory://", 1))


class _Flaky(_MemoryUnderAnotherName):
    """Memory whose files fail after ``good`` bytes in the way ``how`` says."""

    protocol = ("flaky",)
    good = 10_000
    how = "raise"

    def _open(self, path: str, mode: str = "rb", **kwargs: object) -> object:
        file = super()._open(path, mode, **kwargs)
        if mode != "rb":
            return file
        return _FlakyFile(file, self.good, self.how)


class _FlakyFile:
    def __init__(self, file: MemoryFile, good: int, how: str) -> None:
        self._file, self._good, self._how = file, good, how
        self.size = len(file.getbuffer())

    def read(self, size: int = -1) -> bytes:
        if self._file.tell() >= self._good:
            if self._how == "raise":
                raise RuntimeError("server said 503 Slow Down")  # not an OSError
            return b""  # the stream ends early, without a word
        return self._file.read(min(size, self._good - self._file.tell()))

    def tell(self) -> int:
        return self._file.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def seekable(self) -> bool:
        return True

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("how", "error"),
    [
        ("raise", "read error: RuntimeError: server said 503 Slow Down"),
        ("end", "read error: the object ended after 10000 of its {size} bytes"),
    ],
)
def test_a_read_that_fails_or_ends_early_leaves_that_source_incomplete(
    register_filesystem, memory, monkeypatch, how, error
):
    register_filesystem("flaky", _Flaky)
    monkeypatch.setattr(_Flaky, "how", how)
    root = memory.replace("memory://", "flaky://")
    data = b"".join(SAMPLE_LINES[:100])
    error = error.format(size=len(data))
    for name, size in (("a.jsonl", 9000), ("b.jsonl", len(data)), ("c.jsonl", 9000)):
        fsspec.filesystem("memory").pipe_file(f"{memory}/{name}", data[:size])
    result = invoke("audit", f"{root}/", "-s", str(SCHEMAS), "-f", "json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    a, b, c = summary["sources"]
    assert a["complete"] and c["complete"] and a["lines"] == c["lines"] > 0
    assert b["complete"] is False and b["error"].startswith(f"{error}; reading stopped after line ")
    assert result.stderr == f"toolaudit: warning: {root}/b.jsonl: {b['error']}\n"


class _Plain(_MemoryUnderAnotherName):
    """Memory whose files take none of fsspec's optional reading options (a size, a
    cache type): only those every filesystem is given."""

    protocol = ("plain",)

    def _open(
        self,
        path: str,
        mode: str = "rb",
        block_size: object = None,
        autocommit: bool = True,
        cache_options: object = None,
    ) -> object:
        return super()._open(path, mode)


def test_a_filesystem_that_takes_no_reading_options_is_read_for_counts_and_parts(
    register_filesystem, memory
):
    register_filesystem("plain", _Plain)
    data = b"".join(SAMPLE_LINES[:50])
    fsspec.filesystem("memory").pipe_file(f"{memory}/a.jsonl", data)
    url = memory.replace("memory://", "plain://") + "/a.jsonl"
    with pytest.raises(TypeError):  # what open_input meets, and must get past
        _Plain().open(url, "rb", cache_type="none")
    with open_input(url, None, read_ahead=False) as file:
        file.seek(100)
        assert file.read(50) == data[100:150]
    with open_input(url, None, part_end=200) as file:
        assert file.read() == data  # the reader does not stop at the part's end: its caller does


class _FailingWrite(_MemoryUnderAnotherName):
    """Memory whose uploads fail half way."""

    protocol = ("failwrite",)

    def put_file(self, lpath: str, rpath: str, **kwargs: object) -> None:
        with open(lpath, "rb") as local, self.open(rpath, "wb") as remote:
            remote.write(local.read(100))
            raise ConnectionResetError("connection reset by peer")


def test_an_upload_that_fails_half_way_leaves_nothing_under_the_final_name(
    register_filesystem, memory
):
    register_filesystem("failwrite", _FailingWrite)
    root = memory.replace("memory://", "failwrite://")
    result = invoke("audit", str(SAMPLE), "-s", str(SCHEMAS), "--summary", f"{root}/summary.json")
    assert result.exit_code == 2
    assert result.stderr == (
        f"toolaudit: error: {root}/summary.json: cannot write: connection reset by peer\n"
    )
    store = memory.removeprefix("memory://")
    assert [p for p in MemoryFileSystem.store if store in p] == []  # nor a temporary one
