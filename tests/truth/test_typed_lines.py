"""Reading the expected file's lines with msgspec (truth/typed_lines.py) changes nothing:
the entries (their values' types and order among them), the problems and the errors are
those of the reading with orjson and Python, on generated lines of either shape, valid
or not, and on lines where the two parsers could part ways."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.errors import ExpectedError
from toolaudit.truth import expected, typed_lines
from toolaudit.truth.expected import read_expected

SCALARS = st.sampled_from(
    [0, 1, 1.0, -0.0, True, False, None, "", "é", "\\", 2**64, -(2**63), 1e300, 0.1]
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(
            st.sampled_from(["a", "accept", "compare", "tolerance"]), inner, max_size=2
        )
    ),
    max_leaves=5,
)
CALLS = st.fixed_dictionaries(
    {"name": st.sampled_from(["get", "get", "set", "", 3])},
    optional={
        "arguments": st.dictionaries(st.sampled_from(["x", "y"]), VALUES, max_size=3)
        | st.sampled_from([None, [], "x"]),
        "note": VALUES,
    },
)
DOCUMENTS = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b", "c", 3, 3.0, True, None, "live_simple_1-2"])},
    optional={
        "calls": st.lists(CALLS, max_size=2) | st.sampled_from(["any", "none", None]),
        "ground_truth": st.lists(
            st.dictionaries(st.sampled_from(["f", "g"]), st.dictionaries(st.just("x"), VALUES))
        )
        | st.just([[]]),
        "order": st.sampled_from(["any", "strict", "random", None]),
        "category": st.sampled_from(["c", None, 1]),
    },
)

#: Native lines as an eval set holds them, most of them literal values.
NATIVE = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["a", "b", "c", 3]),
        "calls": st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.sampled_from(["get", "set"]),
                    "arguments": st.dictionaries(
                        st.sampled_from(["x", "y"]), SCALARS | st.lists(SCALARS) | VALUES
                    ),
                }
            ),
            max_size=2,
        )
        | st.just("any"),
    },
    optional={
        "order": st.sampled_from(["any", "strict"]),
        "category": st.sampled_from(["c", None]),
    },
)

#: Texts where msgspec and orjson could part ways, put in place of a value.
EDGES = [
    b"1e400",
    b"-1e-400",
    b"NaN",
    b'"\\ud800"',
    b'"\\ud83d\\ude00"',
    b'"\xff"',
    b'"\xc3\xa9"',
    b"123456789012345678901234567890",
    b"1.7976931348623157e308",
    b"5e-324",
    b'"\\u00e9\\n"',
]


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    document = draw(NATIVE | DOCUMENTS)
    text = json.dumps(document).encode()
    if draw(st.integers(0, 2)) == 0 and b"0.1" in text:
        text = text.replace(b"0.1", draw(st.sampled_from(EDGES)), 1)
    if draw(st.integers(0, 5)) == 0 and text.startswith(b'{"id"'):
        text = b'{"id": "dup", ' + text[1:]  # the id given twice: the last counts
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


def both_readings(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What each reading of the file gives: its entries (repr: types and order shown),
    problems and error."""
    found = []
    for typed in (True, False):
        with monkeypatch.context() as patch:
            if not typed:
                patch.setattr(typed_lines, "typed_entry", lambda *_: None)
                patch.setattr(expected, "_LINES_IN_C", None)  # (it reads lines as typed_entry)
            try:
                read = read_expected(str(path))
            except ExpectedError as error:
                found.append(f"error: {error}")
            else:
                found.append(repr((list(read.entries.values()), read.problems)))
    return found


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(written=st.lists(lines(), min_size=1, max_size=6))
def test_generated_lines_are_read_alike_either_way(
    written: list[bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "expected.jsonl"
    path.write_bytes(b"\n".join(written) + b"\n")
    typed, general = both_readings(path, monkeypatch)
    assert typed == general


def test_most_native_lines_are_read_by_msgspec(tmp_path: Path) -> None:
    # Not a test that cannot fail: it shows the comparisons above ran the typed reading.
    literal = {"id": "a", "calls": [{"name": "get", "arguments": {"x": [1, {"b": 2}], "y": 1.0}}]}
    assert typed_lines.typed_entry(json.dumps(literal).encode(), "f", 1) is not None
    for other in (
        {"id": "a", "calls": [{"name": "get", "arguments": {"x": {"accept": [1]}}}]},
        {"id": "a", "ground_truth": []},
        {"id": "a", "calls": [], "ground_truth": []},
    ):
        assert typed_lines.typed_entry(json.dumps(other).encode(), "f", 1) is None


@pytest.mark.parametrize("edge", EDGES)
def test_values_where_the_parsers_could_part_are_read_alike(
    edge: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key given twice (the last counts), the value in an argument, in a list, and in
    # a field the reading skips.
    lines = [
        b'{"id": "a", "calls": [{"name": "get", "arguments": {"x": 2, "x": %s, "y": [%s]}}]}'
        % (edge, edge),
        b'{"id": "b", "note": %s, "calls": [{"name": "get", "note": [%s]}]}' % (edge, edge),
    ]
    path = tmp_path / "expected.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    typed, general = both_readings(path, monkeypatch)
    assert typed == general


def test_the_collector_is_on_again_after_reading_even_after_an_error(tmp_path: Path) -> None:
    twice = tmp_path / "twice.jsonl"
    twice.write_bytes(b'{"id": "a", "calls": []}\n' * 2)  # an id expected twice
    assert gc.isenabled()
    with pytest.raises(ExpectedError):
        read_expected(str(twice))
    assert gc.isenabled()
    once = tmp_path / "once.jsonl"
    once.write_bytes(b'{"id": "a", "calls": []}\n')
    gc.disable()
    try:
        read_expected(str(once))
        assert not gc.isenabled()  # left off where it was off
    finally:
        gc.enable()
