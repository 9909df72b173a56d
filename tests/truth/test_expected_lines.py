"""The expected file's lines walked in C (truth/_expected_lines.c) read what its twin,
the loop of truth/expected.py over ``data.splitlines()``, reads, and what the general
reading (orjson and Python, no msgspec) reads: the same entries (their classes, the
values in their slots and those values' types, in the same order), the same problems in
the same order and the same error for an id expected twice, on generated hostile eval
sets; and audits scored against them are the same bytes either way."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.errors import ExpectedError
from toolaudit.truth import expected as expected_module
from toolaudit.truth import line_scores, typed_lines
from toolaudit.truth.entries import Expected, ExpectedCall
from toolaudit.truth.expected import read_expected
from toolaudit.truth.native import ACCEPT_KEYS, is_literal

from .test_line_scores import audited, eval_sets
from .test_typed_lines import lines as typed_lines_drawn

C = expected_module._LINES_IN_C
needs_c = pytest.mark.skipif(
    C is None or expected_module.NUMBER_MARKS_IN_C is None, reason="the C reading was not built"
)

#: Values written every way JSON allows (escapes, unicode, numbers of one value written
#: apart, objects that are accept objects or look like them).
PLAIN = st.sampled_from(
    [b"0", b"7", b"-3", b"2.5", b"true", b"false", b"null", b'"a"', b'"Z\xc3\xbcrich"', b'""']
)
HOSTILE = st.sampled_from(
    [
        b"0",
        b"-0",
        b"1",
        b"1.0",
        b"1e0",
        b"1E+2",
        b"-0.0",
        b"0.1",
        b"12345678901234567890",
        b"1e400",
        b"1e-400",
        b"5e-324",
        b"true",
        b"false",
        b"null",
        b'""',
        b'"a"',
        b'"\\u00e9"',
        b'"\xc3\xa9"',
        b'"\\ud83d\\ude00"',
        b'"\\ud800"',
        b'"\xed\xa0\x80"',
        b'"\xff"',
        b'"tab\\t\\"q\\\\"',
        b'"\xe2\x80\xa8"',
    ]
)
SCALARS = PLAIN | PLAIN | PLAIN | HOSTILE
#: Ids, most of them apart: strings, integers, and a few that are no id or the same.
IDS = st.integers(0, 999).map(lambda n: b'"e%d"' % n if n % 3 else b"%d" % n) | st.sampled_from(
    [b'"e1"', b'"3"', b"-0", b"3.0", b"true", b"null", b'"\\u0065\\u0031"']
)
SPACE = st.sampled_from([b"", b" ", b"\t", b"  \t "])


@st.composite
def json_value(draw: st.DrawFn, depth: int = 0) -> bytes:
    kind = draw(st.integers(0, 6 if depth < 3 else 0))
    if kind <= 4:
        return draw(SCALARS)
    if kind == 3:
        items = draw(st.lists(json_value(depth + 1), max_size=3))
        return b"[" + b",".join(items) + b"]"
    keys = draw(
        st.lists(
            st.sampled_from([b"a", b"accept", b"compare", b"tolerance", b"\\u0061"]), max_size=3
        )
    )
    pairs = [b'"%s":%s' % (key, draw(json_value(depth + 1))) for key in keys]
    if draw(st.integers(0, 9)) == 0:
        pairs = [b'"accept":[%s]' % draw(json_value(depth + 1)), *pairs]
    return b"{" + b",".join(pairs) + b"}"


@st.composite
def native_line(draw: st.DrawFn) -> bytes:
    """A native line, most often one the C reads, written with hostile details."""
    space = draw(SPACE)
    arguments = [
        b'"%s":%s%s' % (key, space, draw(json_value()))
        for key in draw(
            st.lists(st.sampled_from([b"x", b"y", b"\\u0078", b"\xc3\xbc"]), max_size=3)
        )
    ]
    calls = [
        b'{"name":%s,"arguments":{%s}}'
        % (
            draw(st.sampled_from([b'"get"', b'"set"'] * 3 + [b'"g\\u00e9t"', b"3"])),
            b",".join(arguments),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    fields = [
        b'"id":%s' % draw(IDS),
        b'"calls":%s'
        % draw(st.sampled_from([b"[" + b",".join(calls) + b"]"] * 4 + [b'"any"', b'"none"'])),
    ]
    for optional in (
        b'"order":%s' % draw(st.sampled_from([b'"any"', b'"strict"', b'"random"', b"null"])),
        b'"category":%s' % draw(st.sampled_from([b'"c"', b"null", b"1", b'"\\u00e9"'])),
        b'"id":"again"',
        b'"ground_truth":[]',
        b'"note":%s' % draw(json_value()),
    ):
        if draw(st.integers(0, 11)) == 0:
            fields.append(optional)
    fields = draw(st.permutations(fields))
    return draw(SPACE) + b"{" + (b"," + space).join(fields) + b"}" + draw(SPACE)


DEEP = b'{"id":"deep","calls":[{"name":"get","arguments":{"x":' + b"[" * 70 + b"]" * 70 + b"}}]}"
BFCL = b'{"id": "simple_python_3", "ground_truth": [{"math.hypot": {"x": [4], "z": ["", 0]}}]}'
LINE = (
    native_line()
    | native_line()
    | native_line()
    | typed_lines_drawn()
    | st.sampled_from(
        [b"", b"   ", b"\x0b\x0c", b"\xa0", b"not json", b"[]", b"{}", DEEP, BFCL, b'{"id": "a"']
    )
)
ENDS = st.sampled_from([b"\n", b"\r\n", b"\r", b"\n\n", b"\n \n"])


@st.composite
def eval_files(draw: st.DrawFn) -> bytes:
    written = draw(st.lists(LINE, min_size=0, max_size=8))
    data = b"".join(line + draw(ENDS) for line in written)
    if written and draw(st.booleans()):
        data = data.rstrip(b"\r\n")  # a last line without its end
    return data


@contextmanager
def reading(kind: str) -> Iterator[None]:
    """``c``: the lines walked in C; ``twin``: the loop in Python; ``general``: neither
    C nor msgspec (the reading every line once had)."""
    saved = expected_module._LINES_IN_C, typed_lines.typed_entry
    if kind != "c":
        expected_module._LINES_IN_C = None
    if kind == "general":
        typed_lines.typed_entry = lambda *_: None  # type: ignore[assignment]
    try:
        yield
    finally:
        expected_module._LINES_IN_C, typed_lines.typed_entry = saved


@contextmanager
def kernel_on(on: bool) -> Iterator[None]:
    """The flat lines' scoring kernel on or off for the block."""
    line_scores.KERNEL_ON = on
    try:
        yield
    finally:
        line_scores.KERNEL_ON = True


def call_detail(call: ExpectedCall) -> tuple[Any, ...]:
    return (type(call), call.name, repr(call.literal), repr(call._arguments))


def detail(entry: Expected) -> tuple[Any, ...]:
    """Everything an entry holds, with the types of its values."""
    calls = None if entry.calls is None else [call_detail(call) for call in entry.calls]
    fields = (entry.id, entry.order, entry.category, entry.shape, entry.source, entry.line)
    return (type(entry), type(entry.calls), calls, *((type(v), v) for v in fields))


def read(path: Path, kind: str, whole: bool) -> tuple[Any, ...]:
    with reading(kind):
        try:
            found = read_expected(str(path))
        except ExpectedError as error:
            return ("error", str(error))
    entries = [(id, detail(entry) if whole else repr(entry)) for id, entry in found.entries.items()]
    return (entries, [str(problem) for problem in found.problems])


def readings(data: bytes) -> list[tuple[Any, ...]]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "expected.jsonl"
        path.write_bytes(data)
        c, twin = read(path, "c", True), read(path, "twin", True)
        # (The general reading makes Accepts, not literals: compared by their values.)
        return [c, twin, read(path, "c", False), read(path, "general", False)]


@pytest.mark.slow  # a long property run
@needs_c
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_files())
def test_c_the_twin_and_the_general_reading_read_alike(data: bytes) -> None:
    c, twin, c_values, general = readings(data)
    assert c == twin
    assert c_values == general


@needs_c
@pytest.mark.parametrize(
    ("data", "ids", "problems"),
    [
        (b"", [], []),
        (b"\n\r\n\r \x0b\x0c\t\n", [], []),
        (b'{"id":"a","calls":[]}', ["a"], []),
        (b'{"id":"a","calls":[]}\r\n\r\n{"id":"b","calls":"any"}\rx\n', ["a", "b"], [4]),
        (
            b'x\n{"id":3,"calls":[]}\n{"id":"c","calls":[{"name":"g","arguments":{"o":{"p":1}}}]}',
            ["3", "c"],
            [1],
        ),
        (b'{"id":"a","calls":[{"name":"g","arguments":{"x":{"accept":[1]}}}]}', ["a"], []),
        (b'{"id":"a","calls":[]}\n' + DEEP + b"\n" + BFCL, ["a", "simple_python_3"], [2]),
    ],
)
def test_lines_are_cut_numbered_and_read_as_bytes_splitlines_cuts_them(
    data: bytes, ids: list[str], problems: list[int], tmp_path: Path
) -> None:
    path = tmp_path / "expected.jsonl"
    path.write_bytes(data)
    for kind in ("c", "twin"):
        with reading(kind):
            found = read_expected(str(path))
        assert list(found.entries) == ids
        assert [problem.line for problem in found.problems] == problems
    c, twin, c_values, general = readings(data)
    assert c == twin
    assert c_values == general


@needs_c
@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b'{"id":"a","calls":[]}\n{"id":"a","calls":"any"}', (1, 2)),
        (
            b'{"id":"a","calls":[]}\n\n{"id":"a","calls":[{"name":"g","arguments":{"x":{"accept":[1]}}}]}',
            (1, 3),
        ),
        (b'{"id":"a","calls":"none"}\r\n{"id":"a","calls":[]}', (1, 2)),
        (b'{"id":3,"calls":[]}\n{"id":"3","calls":[]}', (1, 2)),
        (DEEP + b'\n{"id":"deep","calls":[]}', (1, 2)),
        (b'{"id":"a","calls":[],"ground_truth":[]}\n{"id":"a","calls":[]}', (1, 2)),
    ],
)
def test_an_id_expected_twice_is_the_same_error(
    data: bytes, lines: tuple[int, int], tmp_path: Path
) -> None:
    path = tmp_path / "expected.jsonl"
    path.write_bytes(data)
    errors = []
    for kind in ("c", "twin", "general"):
        with reading(kind), pytest.raises(ExpectedError) as error:
            read_expected(str(path))
        errors.append(str(error.value))
    assert errors[0] == errors[1] == errors[2]
    assert f"on lines {lines[0]} and {lines[1]}" in errors[0]


@needs_c
def test_the_commonest_lines_are_read_in_c_and_others_handed_to_the_reading(
    tmp_path: Path,
) -> None:
    # Not a test that cannot fail: it shows the comparisons above ran the C reading.
    handed: list[int] = []
    path = tmp_path / "expected.jsonl"
    path.write_bytes(
        b'{"id":"a","calls":[{"name":"g","arguments":{"x":[1,{"b":2}],"y":"\xc3\xa9"}}]}\n'
        b'{"id":"b","calls":[{"name":"g","arguments":{"o":{"p":1}}}]}\n'
        b'{"id":"c","calls":[{"name":"g","arguments":{"x":{"accept":[1]}}}]}\n'
        b'{"id":"d","calls":[{"name":"g","arguments":{"x":12345678901234567890}}]}\n'
        b'{"id":"e","calls":[{"name":"g","arguments":{"x":"\xed\xa0\x80"}}]}\n' + DEEP + b"\n"
    )
    read_line = expected_module._Reading.read_line

    def told(self: Any, line: bytes, number: int) -> None:
        handed.append(number)
        read_line(self, line, number)

    expected_module._Reading.read_line = told  # type: ignore[method-assign]
    try:
        found = read_expected(str(path))
    finally:
        expected_module._Reading.read_line = read_line  # type: ignore[method-assign]
    assert handed == [3, 4, 5, 6]
    assert list(found.entries) == ["a", "b", "c", "d"]  # (5: not UTF-8; 6: too deep)
    assert found["a"].calls is not None and found["a"].calls[0].literal == {
        "x": [1, {"b": 2}],
        "y": "é",
    }


@pytest.mark.slow  # a long property run
@needs_c
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_sets(), st.booleans(), st.booleans(), st.booleans())
def test_audits_are_alike_with_the_expected_file_read_in_c_or_not(
    files: tuple[bytes, bytes], grouped: bool, scores: bool, kernel: bool
) -> None:
    log, expected_lines = files
    grouping = {"group_by": ("model",)} if grouped else {}
    results = []
    with tempfile.TemporaryDirectory() as directory, kernel_on(kernel):
        path = Path(directory, "expected.jsonl")
        path.write_bytes(expected_lines.replace(b"\n", b"\r\n"))
        for kind in ("c", "twin", "general"):
            with reading(kind):
                results.append(audited(log, path, scores=scores, **grouping))
    assert results[0] == results[1] == results[2]


class Text(str):
    """A string of another type: not literal, as it is no JSON value."""


LITERAL_OR_NOT = st.recursive(
    st.sampled_from([0, 1.5, True, None, "", "accept", (), Text("x"), 2**70]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["a", "accept", "compare", "tolerance", "optional"]), inner, max_size=3
        )
    ),
    max_leaves=8,
)


@pytest.mark.slow  # a long property run
@needs_c
@settings(max_examples=1000, deadline=None)
@given(LITERAL_OR_NOT)
def test_c_tells_literal_values_as_native_is_literal_does(value: object) -> None:
    assert C.is_literal(value, ACCEPT_KEYS) is is_literal(value)


def test_the_general_reading_reads_accept_objects_the_c_leaves(tmp_path: Path) -> None:
    # (Without C too: the twin's loop is what runs.)
    path = tmp_path / "expected.jsonl"
    path.write_bytes(
        json.dumps(
            {"id": "a", "calls": [{"name": "g", "arguments": {"x": {"accept": [1, 2]}}}]}
        ).encode()
    )
    found = read_expected(str(path))
    call = found["a"].calls[0]  # type: ignore[index]
    assert call.literal is None and call.arguments["x"].values == (1, 2)
