"""--group-by keys: one key per tuple of values, never the key of another tuple or of a bucket."""

from __future__ import annotations

import json

import pytest

from toolaudit.results.folding import OTHER
from toolaudit.results.grouping import group_key
from toolaudit.results.summary import NULL_GROUP


def key(*values: object, missing: bool = False) -> str:
    fields = tuple(f"f{i}" for i in range(len(values)))
    record = {} if missing else {f"f{i}": v for i, v in enumerate(values)}
    return group_key(record, None, fields)


def test_plain_values_read_as_themselves():
    assert key("gpt-4o-mini") == "gpt-4o-mini"
    assert key("claude", "v2") == "claude | v2"
    assert key(3) == "3" and key(True) == "true" and key({"b": 1, "a": [2]}) == '{"a":[2],"b":1}'
    assert group_key({}, None, ("model",)) == NULL_GROUP


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("null",), (None,)),  # a string "null" is not a missing field
        (("1",), (1,)),
        (("1.5e3",), (1500.0,)),
        (("true",), (True,)),
        (("[1]",), ([1],)),
        (('{"a":1}',), ({"a": 1},)),
        ((OTHER,), ("<other>",)),  # the same, so this pair must be equal: checked below
        (("a | b", "c"), ("a", "b | c")),
        (("a |", "b"), ("a", "| b")),
        (('"x"',), ("x",)),
    ],
)
def test_different_values_never_share_a_key(first, second):
    if first == second:
        assert key(*first) == key(*second) != OTHER
        return
    assert key(*first) != key(*second)


def test_reserved_strings_are_written_as_json_strings():
    assert key("null") == '"null"'
    assert key(OTHER) == json.dumps(OTHER)
    assert key("a | b", "c") == '"a | b" | c'
    assert key("a | b") == "a | b"  # one field: nothing to confuse it with


TRICKY = [
    "a",
    "a ",
    " a",
    "a |",
    "| a",
    "a | b",
    "|",
    " | ",
    "",
    "null",
    '"null"',
    "1",
    "-1.5e3",
    "true",
    "[1]",
    "{}",
    OTHER,
    "<no name>",
    '"',
    "\\",
]
VALUES = [*TRICKY, None, 1, -1500.0, True, [1], {}, ["a | b"], {"a": "b | c"}]


def test_no_two_tuples_of_values_share_a_key():
    for width in (1, 2, 3):
        tuples = [()]
        for _ in range(width):
            tuples = [
                (*t, v) for t in tuples for v in (VALUES if width < 3 else [*TRICKY[:8], None])
            ]
        keys: dict[str, tuple[object, ...]] = {}
        for values in tuples:
            made = key(*values)
            assert made != OTHER
            seen = keys.setdefault(made, values)
            assert repr(seen) == repr(values), f"{seen!r} and {values!r} share the key {made!r}"
