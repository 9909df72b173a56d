"""Cutting a file into line-aligned blocks, and numbering their lines, without reading a
block whole: the blocks tile the file, each starts where a line starts, and the line
numbers are the file's own, whatever the lines' lengths against the cuts. Blocks not
counted first (a summary alone is wanted) give the summary of one process once merged."""

from __future__ import annotations

import gzip
import io
import itertools
import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolaudit.pipeline import Audit, AuditOptions
from toolaudit.runners.blocks import (
    Counted,
    File,
    Task,
    audit_task,
    count_block,
    merged_results,
    numbered_units,
    uncounted_units,
)
from toolaudit.runners.ranges import count_newlines, line_start
from toolaudit.schemas import load_schemas
from toolaudit.sources import GZIP_MAGIC, Source

from ..conftest import REPO

SAMPLE = REPO / "sample_logs" / "calls.jsonl"
SAMPLE_LINES = SAMPLE.read_bytes().splitlines()
SCHEMAS = load_schemas(str(REPO / "sample_logs" / "schemas.json"))


def test_a_line_starts_just_after_a_newline_at_or_after_the_offset():
    data = io.BytesIO(b"ab\ncd\n\nef")
    assert line_start(data, 0) == 0
    assert line_start(data, 1) == 3
    assert line_start(data, 3) == 3  # the offset is a line's start already
    assert line_start(data, 4) == 6
    assert line_start(data, 6) == 6
    assert line_start(data, 7) == 7  # the empty line's start
    assert line_start(data, 8) is None  # inside the last line, which has no newline
    assert line_start(data, 100) is None


def test_newlines_are_counted_between_two_offsets_or_to_the_end():
    data = io.BytesIO(b"\x1f\x8bab\ncd\n\nef")
    assert count_newlines(data, 0) == (3, 11, GZIP_MAGIC)
    assert count_newlines(data, 5, 9) == (2, 4, b"cd")
    assert count_newlines(data, 13) == (0, 0, b"")


@st.composite
def files_and_cuts(draw):
    line = st.binary(max_size=40).map(lambda text: text.replace(b"\n", b"x"))
    lines = draw(st.lists(line, max_size=30))
    data = b"\n".join(lines) + draw(st.sampled_from([b"", b"\n"]))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(data) + 5)), max_size=8)))
    return data, (0, *cuts)


@settings(max_examples=300, deadline=None)
@given(files_and_cuts())
@example((GZIP_MAGIC, (0,)))  # drawn once in CI: random bytes may start like gzip
@example((GZIP_MAGIC + b"x\nyz\n", (0, 3)))
def test_blocks_tile_the_file_from_line_start_to_line_start_and_number_its_lines(
    tmp_path_factory, case
):
    data, cuts = case
    path = tmp_path_factory.mktemp("ranges") / "log.jsonl"
    path.write_bytes(data)
    file = File(Source(str(path)), len(data), cuts)
    units = numbered_units([file], [count_block(*block) for block in file.blocks()])
    if not data:
        assert units == []
        return
    if data.startswith(GZIP_MAGIC):  # gzip after all: audited whole, as one process reads it
        [unit] = units
        assert not unit.source.is_part and unit.size == len(data)
        return
    assert units[0].source.start == 0
    assert units[-1].source.end == len(data)
    for before, after in itertools.pairwise(units):
        assert before.source.end == after.source.start
    line_starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 0x0A]
    for unit in units:
        part = unit.source
        assert part.end > part.start == line_starts[part.first_line - 1]
        assert unit.size == part.end - part.start


def test_a_block_that_cannot_be_read_has_its_file_audited_whole(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(SAMPLE.read_bytes() * 4)
    size = os.path.getsize(path)
    file = File(Source(str(path)), size, (0, size // 2))
    counts = [count_block(*block) for block in file.blocks()]
    counts[1] = count_block(Source(str(tmp_path / "gone.jsonl")), size // 2, None)
    assert counts[1].unreadable
    [unit] = numbered_units([file], counts)
    assert unit.source == Source(str(path)) and unit.size == size


def test_a_file_that_starts_like_gzip_is_audited_whole(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(GZIP_MAGIC + b"not really\n" * 100)
    file = File(Source(str(path)), path.stat().st_size, (0, 500))
    counts = [count_block(*block) for block in file.blocks()]
    assert counts[0] == Counted(0, 508, 46, gzip=True)
    [unit] = numbered_units([file], counts)
    assert not unit.source.is_part


def merged_as_a_tree(results, fan_in):
    """The results merged as Dask's tree reduction merges them, ``fan_in`` at a time."""
    while len(results) > 1:
        results = [merged_results(results[i : i + fan_in]) for i in range(0, len(results), fan_in)]
    return results[0]


@st.composite
def logs_and_cuts(draw):
    """Lines of the sample log (valid and failing calls, whatever the order), blank lines
    and lines that are not JSON, cut anywhere; failing calls may come late only."""
    line = st.one_of(
        st.sampled_from(SAMPLE_LINES),
        st.sampled_from([b"", b"not json", b'{"name": "nope"}', b"[1, 2]"]),
    )
    lines = draw(st.lists(line, min_size=1, max_size=80))
    data = b"\n".join(lines) + draw(st.sampled_from([b"", b"\n"]))
    cuts = sorted(draw(st.sets(st.integers(1, len(data) + 5), max_size=10)))
    return data, (0, *cuts)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    logs_and_cuts(),
    logs_and_cuts(),
    st.sampled_from([{}, {"group_by": ("model",)}, {"errors_only": True}]),
    st.integers(2, 4),
)
def test_uncounted_blocks_merged_give_the_summary_of_one_process(
    tmp_path_factory, first, second, options, fan_in
):
    root = tmp_path_factory.mktemp("uncounted")
    files = []
    for name, (data, cuts) in (("a.jsonl", first), ("b.jsonl", second)):
        path = root / name
        path.write_bytes(data)
        files.append(File(Source(str(path)), len(data), cuts))
    audit_options = AuditOptions(**options)
    expected = Audit([file.source for file in files], SCHEMAS, audit_options).run()
    units = uncounted_units(files)
    assert sum(unit.size for unit in units) == sum(file.size for file in files)
    results = [audit_task(Task(unit), SCHEMAS, audit_options) for unit in units]
    merged = merged_as_a_tree(results, fan_in)
    assert not merged.redo
    assert merged.summary.to_dict() == expected.to_dict()


def test_samples_of_late_blocks_carry_the_lines_of_the_file(tmp_path):
    # Valid calls first, failing ones only in the third block: the samples' lines are
    # the file's, not the block's.
    valid, failing = SAMPLE_LINES[0], b'{"name": "get_weather", "arguments": {}}'
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join([valid] * 300 + [failing] * 30) + b"\n")
    size = path.stat().st_size
    file = File(Source(str(path)), size, (0, size // 3, 2 * size // 3))
    results = [audit_task(Task(unit), SCHEMAS, AuditOptions()) for unit in uncounted_units([file])]
    summary = merged_results(results).summary
    assert [row["line"] for row in summary.samples] == list(range(301, 321))
    assert summary.to_dict() == Audit([Source(str(path))], SCHEMAS).run().to_dict()


def test_an_uncounted_block_that_starts_like_gzip_or_cannot_be_read_redoes_its_file(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(GZIP_MAGIC + b"not really\n" * 100)
    gone = tmp_path / "gone.jsonl"
    files = [File(Source(str(path)), 1102, (0, 500)), File(Source(str(gone)), 1102, (0, 500))]
    units = uncounted_units(files)
    results = [audit_task(Task(unit), SCHEMAS, AuditOptions()) for unit in units]
    assert [result.redo for result in results] == [(0,), (), (1,), (1,)]
    assert merged_results(results).redo == (0, 1, 1)


def test_a_file_of_one_uncounted_block_that_is_gzip_after_all_is_read_as_gzip(tmp_path):
    # Misnamed: planning took it for plain. A block would have its file audited again
    # whole; a file of one block is audited whole at once.
    path = tmp_path / "log.jsonl"
    path.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    [unit] = uncounted_units([File(Source(str(path)), path.stat().st_size, (0,))])
    result = audit_task(Task(unit), SCHEMAS, AuditOptions())
    assert not result.redo
    assert result.summary.to_dict() == Audit([Source(str(path))], SCHEMAS).run().to_dict()
