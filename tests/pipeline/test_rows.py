"""A valid call's report line, written without its dict, is the dict's line byte for byte."""

from __future__ import annotations

import io
import os

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolaudit.pipeline import rows
from toolaudit.pipeline.audit import Audit
from toolaudit.pipeline.rows import failing_row_writer, make_row, valid_row_writer
from toolaudit.schemas.loading import load_schemas

from ..conftest import REPO

TEXTS = st.text() | st.sampled_from(["", 'q"uote', "back\\slash", "\u00e9\u2028\x00", "\U0001f600"])
#: Ids as a line's parse gives them: any JSON value (flat calls echo theirs as they are).
IDS = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | TEXTS,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXTS, inner, max_size=2),
    max_leaves=4,
)


def dict_line(source, line, index, call_id, tool, model):
    return orjson.dumps(
        make_row(source, line, index, call_id, tool, model, []), option=orjson.OPT_APPEND_NEWLINE
    )


#: A row's source, line, index, id, tool and model.
ROW_PLACES = (TEXTS, st.integers(1, 2**40), st.integers(0, 2**20), IDS, TEXTS, st.none() | TEXTS)


@given(*ROW_PLACES)
def test_a_valid_row_is_written_as_its_dict_would_be(source, line, index, call_id, tool, model):
    writers = [valid_row_writer(source)]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(rows, "VALID_ROW_LINE", None)  # the formatting in Python
        writers.append(valid_row_writer(source))
    for write in writers:
        for _ in range(2):  # the second time from what it kept
            assert write(line, index, call_id, tool, model) == dict_line(
                source, line, index, call_id, tool, model
            )


def dumped_row(source, line, index, call_id, tool, model):
    return rows.dump_row(make_row(source, line, index, call_id, tool, model, []))


needs_c = pytest.mark.skipif(rows.VALID_ROW_LINE is None, reason="the C speedups are not built")


@needs_c
@given(st.text() | st.sampled_from(["".join(map(chr, range(128))), "\U0001f600\u2028\ud800"]))
def test_the_c_line_writes_a_string_id_as_orjson_does(text):
    write = valid_row_writer("s")
    assert write.__func__ is rows.VALID_ROW_LINE  # (the C line, not the formatting)
    for call_id in (text, None, -(2**63), 2**63 - 1, [text]):
        for _ in range(2):  # the first time the Python writer's, keeping the parts
            assert write(2**63 - 1, 0, call_id, "t", None) == dumped_row(
                "s", 2**63 - 1, 0, call_id, "t", None
            )
            assert write(1, -3, call_id, text, text) == dumped_row("s", 1, -3, call_id, text, text)


def test_what_orjson_cannot_write_is_written_as_the_dicts_line_is():
    # A lone surrogate (a file name's undecodable byte, a tool name the standard library
    # parsed): the row is the standard library's, every non-ASCII character escaped.
    for source, call_id, tool, model in (
        ("logs/\udcff.jsonl", "c1", "get", "m\u00e9"),
        ("logs/a.jsonl", "c1", "g\ud800t", "m\u00e9"),
        ("logs/a.jsonl", "c\udc80", "get", "m"),
        ("logs/a.jsonl", 1, "get", "\ud800"),
    ):
        write = valid_row_writer(source)
        for _ in range(2):
            line = write(3, 0, call_id, tool, model)
            assert line == rows.dump_row(make_row(source, 3, 0, call_id, tool, model, []))
            assert line.isascii()


def test_past_the_tools_and_models_it_keeps_it_writes_the_same(monkeypatch):
    monkeypatch.setattr(rows, "MOST_KEPT", 2)
    write = valid_row_writer("s")
    for n in range(6):
        assert write(n + 1, 0, n, f"tool{n}", f"m{n}") == dict_line(
            "s", n + 1, 0, n, f"tool{n}", f"m{n}"
        )


def test_the_written_report_is_the_rows_the_audit_yields():
    # A run writing its report writes valid rows without dicts; iterating the audit
    # yields the dicts: on every format case, the lines are those dicts dumped.
    for folder in sorted((REPO / "tests" / "cases" / "formats").iterdir()):
        [schemas_file] = sorted(folder.glob("schemas.json*"))
        schemas = load_schemas(str(schemas_file))
        log = str(folder / "input.jsonl")
        report = io.BytesIO()
        Audit([log], schemas).run(report)
        dumped = b"".join(rows.dump_row(row) for row in Audit([log], schemas))
        assert report.getvalue() == dumped, folder.name


def test_a_log_whose_name_is_no_utf_8_is_reported_as_its_rows_are(tmp_path):
    # The bug this caught: the writer of valid rows failed on such a name.
    log = os.path.join(os.fsdecode(tmp_path), os.fsdecode(b"\xff.jsonl"))
    with open(log, "wb") as file:
        file.write(b'{"name": "get_weather", "arguments": {"city": "Oslo"}}\n' * 3)
    schemas = load_schemas(str(REPO / "sample_logs" / "schemas.json"))
    report = io.BytesIO()
    Audit([log], schemas).run(report)
    assert report.getvalue() == b"".join(rows.dump_row(row) for row in Audit([log], schemas))
    assert report.getvalue().count(b'"ok":true') == 3


def failing_dict_line(source, line, index, call_id, tool, model, errors, why):
    row = make_row(source, line, index, call_id, tool, model, errors)
    row["why"] = why
    return rows.dump_row(row)


@given(
    *ROW_PLACES,
    st.lists(TEXTS, min_size=1, max_size=3),
    st.dictionaries(TEXTS, TEXTS, min_size=1, max_size=3),
)
def test_a_failing_row_is_written_as_its_dict_would_be(
    source, line, index, call_id, tool, model, errors, why
):
    writers = [failing_row_writer(source)]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(rows, "FAILING_ROW_LINE", None)  # the formatting in Python
        writers.append(failing_row_writer(source))
    for write in writers:
        assert write(line, index, call_id, tool, model, errors, why) == failing_dict_line(
            source, line, index, call_id, tool, model, errors, why
        )


def test_a_failing_row_orjson_cannot_write_is_written_as_the_dicts_line_is():
    deep_id: object = "c"
    for _ in range(300):  # deeper than orjson writes
        deep_id = [deep_id]
    for source, call_id, tool, model, errors, why in (
        ("logs/\udcff.jsonl", "c1", "get", "m", ["type:a"], {"type:a": "expected x"}),
        ("logs/a.jsonl", "c\udc80", "get", None, ["type:a"], {"type:a": "expected x"}),
        ("logs/a.jsonl", 1, "get", "m", ["type:\ud800"], {"type:\ud800": "expected x"}),
        ("logs/a.jsonl", 1, "get", None, ["type:a"], {"type:a": 'got "\udcff"'}),
        ("logs/a.jsonl", deep_id, "get", None, ["type:a"], {"type:a": "expected x"}),
    ):
        line = failing_row_writer(source)(3, 0, call_id, tool, model, errors, why)
        assert line == failing_dict_line(source, 3, 0, call_id, tool, model, errors, why)
        assert line.endswith(b"}\n")
    assert rows.UNWRITABLE_ID.encode() in line  # (the deep id's row, the last)


#: Strings with one character orjson escapes (or one it does not, next to them) at each
#: place of the eight-byte words the C writers look at.
PLACED = [
    "a" * place + special + "b" * 9
    for place in range(18)
    for special in [*map(chr, range(32)), '"', "\\", "\x7f", "\u00e9", "\U0001f600"]
]


def test_strings_escaped_anywhere_are_written_as_the_dicts_line_is():
    valid, failing = valid_row_writer("s"), failing_row_writer("s")
    if rows.FAILING_ROW_LINE is not None:  # (the C lines, where built)
        assert (valid.__func__, failing.__func__) == (rows.VALID_ROW_LINE, rows.FAILING_ROW_LINE)
    for text in PLACED:
        assert valid(1, 0, text, "t", None) == dict_line("s", 1, 0, text, "t", None)
        assert failing(1, 0, "i", text, text, [text], {text: text}) == failing_dict_line(
            "s", 1, 0, "i", text, text, [text], {text: text}
        )
