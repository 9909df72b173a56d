"""The quick test of a correct call (:func:`toolaudit.truth.match.surely_correct`) never
says "correct" where the full comparison finds a difference, and scores are the same
with it on and off: values at the edges of JSON equality (``1`` and ``1.0``, ``true``
and ``1``, ``-0.0``, nested lists, long integers), defaults, accept objects."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolaudit.truth import match
from toolaudit.truth.compare import mismatches_of_call
from toolaudit.truth.entries import UnreadableEntry
from toolaudit.truth.expected import read_entry
from toolaudit.truth.match import MadeCall, score, surely_correct
from toolaudit.truth.native import _accept

SCALARS = st.sampled_from([0, 1, 1.0, -0.0, 0.0, True, False, None, "", "1", "a", 2**70, 1e300])
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["a", "b", "accept", "compare"]), inner)
    ),
    max_leaves=4,
)
NAMES = st.sampled_from(["x", "y", "z"])
DEFAULTS = {"get": {"z": 1}}


def entry(arguments: dict[str, Any]) -> Any:
    try:
        return read_entry({"id": "e", "calls": [{"name": "get", "arguments": arguments}]})
    except UnreadableEntry:  # an accept object of the wrong shape
        assume(False)


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(NAMES, VALUES | st.just({"accept": [1, 2]}), max_size=3),
    st.dictionaries(NAMES, VALUES, max_size=3),
    st.sampled_from(["get", "set"]),
)
def test_the_quick_test_agrees_with_the_comparison(
    expected: dict[str, Any], made: dict[str, Any], name: str
) -> None:
    read = entry(expected)
    [call] = read.calls
    one = MadeCall(0, name, made)
    found = mismatches_of_call(call.name, call.arguments, one.name, one.arguments, DEFAULTS)
    if surely_correct(call, one):
        assert found == []
    same = MadeCall(0, "get", dict(expected))
    quick = score(read, [one], defaults=DEFAULTS), score(read, [same], defaults=DEFAULTS)
    match.QUICK_CORRECT = False
    try:
        full = score(read, [one], defaults=DEFAULTS), score(read, [same], defaults=DEFAULTS)
    finally:
        match.QUICK_CORRECT = True
    assert quick == full


@pytest.mark.parametrize(
    ("expected", "made", "quick"),
    [
        ({"x": 1, "y": "a"}, {"y": "a", "x": 1}, True),
        ({"x": [1, "a"]}, {"x": [1, "a"]}, True),
        ({"x": 1}, {"x": True}, False),  # Python says True == 1; JSON does not
        ({"x": [1]}, {"x": [True]}, False),
        ({"x": 1}, {"x": 1.0}, False),  # equal, but told by the comparison
        ({"x": 2**70}, {"x": 2**70}, False),  # orjson cannot write it
        ({"x": {"accept": [1]}}, {"x": 1}, True),  # the same as a literal 1
        ({"x": {"accept": [1, 2]}}, {"x": 1}, False),
        ({"x": {"a": 1, "b": [{"c": 2}]}}, {"x": {"b": [{"c": 2}], "a": 1}}, True),
        ({"x": {"a": {"accept": [1, 2]}}}, {"x": {"a": 1}}, False),  # an accept object in it
        ({"x": {"a": {"accept": [1]}}}, {"x": {"a": 1}}, False),
    ],
)
def test_what_the_quick_test_tells(expected: Any, made: Any, quick: bool) -> None:
    [call] = entry(expected).calls
    assert surely_correct(call, MadeCall(0, "get", made)) is quick


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(NAMES, VALUES, max_size=3))
def test_arguments_kept_literal_make_the_accepts_they_would_have_made(
    arguments: dict[str, Any],
) -> None:
    [call] = entry(arguments).calls
    if call.literal is None:
        return
    assert dict(call.arguments) == {name: _accept(value) for name, value in arguments.items()}
