"""Reading inputs: line splitting, gzip by magic bytes, directories, damage."""

from __future__ import annotations

import errno
import gzip
import io
import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit import lines
from toolaudit.errors import InputError
from toolaudit.lines import OversizedLine, split_lines
from toolaudit.sources import DamagedInput, Source, expand_paths, read_line_batches


def lines_of(chunks, max_line_bytes=1 << 30):
    return [line for batch in split_lines(chunks, max_line_bytes) for line in batch]


def read_all(source, **kwargs):
    return [line for batch in read_line_batches(source, **kwargs) for line in batch]


@settings(max_examples=400)
@given(st.binary(max_size=200), st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_any_chunking_gives_the_lines_of_a_plain_split(data, cuts):
    points = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]
    expected = data.split(b"\n")
    if expected[-1] == b"":
        expected.pop()  # a final newline ends the last line; it does not start another
    assert lines_of(chunks) == expected


@pytest.mark.skipif(lines._SPLIT is None, reason="the C speedups are not built")
@settings(max_examples=400)
@given(st.lists(st.sampled_from([b"\n", b"\r", b"x", b"{}", b"\xff", b"\x00"]), max_size=40))
def test_the_c_split_is_bytes_split(pieces):
    chunk = b"".join(pieces)
    assert lines._SPLIT is not None
    assert lines._SPLIT(chunk) == chunk.split(b"\n")


@settings(max_examples=100)
@given(st.binary(max_size=200), st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_lines_are_the_same_without_the_c_split(data, cuts):
    points = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines, "_SPLIT", None)
        plain = lines_of(chunks)
    assert lines_of(chunks) == plain


def test_last_line_without_newline_is_a_line():
    assert lines_of([b'{"a":1}\n{"b":', b"2}"]) == [b'{"a":1}', b'{"b":2}']


def test_crlf_is_left_for_the_parser():
    assert lines_of([b"{}\r\n{}\r\n"]) == [b"{}\r", b"{}\r"]


@settings(max_examples=300)
@given(
    st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=6),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=1, max_value=20),
)
def test_lines_over_the_limit_become_markers_and_keep_their_place(lengths, limit, chunk_size):
    data = b"\n".join(b"x" * n for n in lengths) + b"\n"
    chunks = [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
    got = lines_of(chunks, max_line_bytes=limit)
    assert len(got) == len(lengths)
    for n, line in zip(lengths, got, strict=True):
        if n > limit:
            assert isinstance(line, OversizedLine) and line.length == n
        else:
            assert line == b"x" * n


def test_gzip_is_recognised_by_its_magic_bytes_not_its_name(tmp_path):
    path = tmp_path / "calls.log"  # no .gz suffix
    path.write_bytes(gzip.compress(b'{"a":1}\n{"b":2}\n'))
    assert read_all(Source(str(path))) == [b'{"a":1}', b'{"b":2}']


def test_concatenated_gzip_members_are_all_read(tmp_path):
    path = tmp_path / "calls.jsonl.gz"
    path.write_bytes(gzip.compress(b"1\n2\n") + gzip.compress(b"3\n"))
    assert read_all(Source(str(path))) == [b"1", b"2", b"3"]


def test_truncated_gzip_yields_what_came_before_then_reports_damage(tmp_path):
    payload = b"".join(b'{"n":%d}\n' % i for i in range(20000))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(payload)[:-30])
    seen = []
    with pytest.raises(DamagedInput, match="truncated"):
        for batch in read_line_batches(Source(str(path))):
            seen.extend(batch)
    assert seen == payload.split(b"\n")[: len(seen)]
    assert len(seen) > 1000


def test_corrupt_gzip_reports_damage(tmp_path):
    data = bytearray(
        gzip.compress(b"".join(b'{"n":%d}\n' % (i * 7919 % 10007) for i in range(5000)))
    )
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(range(64))
    path = tmp_path / "bad.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedInput, match="corrupt gzip"):
        read_all(Source(str(path)))


def test_stdin_is_read_and_may_be_gzip():
    stream = io.BytesIO(gzip.compress(b"a\nb\n"))
    assert read_all(Source("-"), stdin=stream) == [b"a", b"b"]


def test_bytes_read_are_reported_as_stored(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"{}\n" * 1000)
    seen = []
    read_all(Source(str(path)), on_bytes=seen.append)
    assert sum(seen) == 3000


def test_directories_are_walked_for_log_files_in_sorted_order(tmp_path):
    (tmp_path / "b").mkdir()
    for name in ["b/2.jsonl", "a.ndjson", "c.json.gz", "b/1.JSONL", "notes.txt", "schemas.json"]:
        (tmp_path / name).write_bytes(b"")
    found = [s.name for s in expand_paths([str(tmp_path)], skip=[str(tmp_path / "schemas.json")])]
    assert found == [str(tmp_path / n) for n in ["a.ndjson", "b/1.JSONL", "b/2.jsonl", "c.json.gz"]]


def test_missing_paths_stop_the_run_before_reading(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        expand_paths([str(tmp_path / "nope.jsonl")])
    with pytest.raises(InputError, match="no log files"):
        expand_paths([str(tmp_path)])


def test_stdin_dash_and_explicit_files_are_kept_as_given(tmp_path):
    path = tmp_path / "whatever.txt"
    path.write_bytes(b"")
    assert [s.name for s in expand_paths(["-", str(path)])] == ["-", str(path)]


def test_stdin_given_twice_is_refused(tmp_path):
    """It can be read once: the second would be an empty source, counted as one."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="standard input is given twice"):
        expand_paths(["-", str(path), "-"])


def test_a_walk_names_what_it_cannot_read_in_its_sorted_place(tmp_path):
    (tmp_path / "a.jsonl").write_bytes(b"{}\n")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    (tmp_path / "c.jsonl").symlink_to(tmp_path / "c.jsonl")  # a link to itself
    os.mkfifo(tmp_path / "d.jsonl")
    (tmp_path / "e.txt").symlink_to(tmp_path / "gone.txt")  # not a log's name: not taken
    sources = expand_paths([str(tmp_path)])
    assert [(Path(s.name).name, s.unreadable) for s in sources] == [
        ("a.jsonl", None),
        ("b.jsonl", f"a dangling symbolic link (to {tmp_path / 'gone.jsonl'}): nothing to read"),
        ("c.jsonl", "a loop of symbolic links: nothing to read"),
        ("d.jsonl", "a named pipe, not a file: a directory walk reads files only (give it by "
         "its path)"),
    ]  # fmt: skip
    assert [s.size() for s in sources[1:]] == [None, None, None]
    with pytest.raises(InputError, match=r"b\.jsonl: a dangling symbolic link"):
        read_all(sources[1])


def test_a_folder_the_walk_cannot_list_is_an_input_that_cannot_be_read(tmp_path, monkeypatch):
    # (As root, chmod 000 does not stop a listing: the refusal is simulated.)
    for name in ("a/1.jsonl", "b/1.jsonl", "c/1.jsonl"):
        (tmp_path / name).parent.mkdir()
        (tmp_path / name).write_bytes(b"{}\n")
    listing = os.scandir
    refused = {str(tmp_path / "b")}

    def scandir(path):
        if str(path) in refused:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    sources = expand_paths([str(tmp_path)])
    assert [s.name for s in sources] == [str(tmp_path / n) for n in ("a/1.jsonl", "b", "c/1.jsonl")]
    assert sources[1].unreadable == (
        "cannot list this folder (Permission denied): its logs were not read"
    )
    refused.add(str(tmp_path))
    [only] = expand_paths([str(tmp_path)])  # a folder with nothing listed is not "no log files"
    assert only.name == str(tmp_path) and only.unreadable is not None


def test_a_dangling_link_given_by_name_is_named(tmp_path):
    (tmp_path / "log.jsonl").symlink_to(tmp_path / "gone.jsonl")
    with pytest.raises(InputError, match=r"log\.jsonl: a dangling symbolic link \(to "):
        expand_paths([str(tmp_path / "log.jsonl")])
