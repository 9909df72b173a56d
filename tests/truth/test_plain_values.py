"""A string or number equal, of the same type, to one of the accepted values is accepted
without the full comparison: the same answer as the full comparison, on values where
Python's equality and JSON's part (``True == 1``, ``1 == 1.0``, NaN, ``-0.0``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.truth import compare
from toolaudit.truth.compare import value_mismatches
from toolaudit.truth.entries import BFCL_COMPARE, Accept

SCALARS = st.one_of(
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-3, 3, width=16),
    st.sampled_from([0.0, -0.0, 1.0, float("nan")]),
    st.sampled_from(["", "a", "A", " a", "1", "true"]),
    st.none(),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=2), st.dictionaries(st.just("k"), SCALARS))


def compared_in_full(value: object, accept: Accept) -> list[str]:
    saved = compare._PLAIN
    compare._PLAIN = frozenset()
    try:
        return value_mismatches(value, accept, "x")
    finally:
        compare._PLAIN = saved


@settings(max_examples=600, deadline=None)
@given(
    value=VALUES,
    candidates=st.lists(VALUES, min_size=1, max_size=3),
    how=st.sampled_from(["exact", "subset", BFCL_COMPARE, "text", "number", "unordered"]),
)
def test_the_quick_acceptance_is_the_full_comparisons(
    value: object, candidates: list[object], how: str
) -> None:
    accept = Accept(tuple(candidates), how, tolerance=0.5 if how == "number" else None)
    assert value_mismatches(value, accept, "x") == compared_in_full(value, accept)


def test_the_quick_acceptance_is_taken() -> None:
    """(Else the test above would compare the full comparison with itself.)"""
    saved = compare._structural
    compare._structural = None  # type: ignore[assignment]
    try:
        assert value_mismatches(2.5, Accept((1, 2.5), BFCL_COMPARE), "x") == []
    finally:
        compare._structural = saved
