"""Properties of scoring: the pairing is optimal (against brute force over every
pairing), a call compared with itself is correct, and every difference is listed."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.truth.compare import mismatches_of_call
from toolaudit.truth.expected import read_entry
from toolaudit.truth.match import MadeCall, score
from toolaudit.truth.pairing import best_pairing

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2, allow_nan=False),
    st.text(max_size=3),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("pqr"), inner, max_size=3)
    ),
    max_leaves=8,
)
#: Few names and few small values, so that calls often match and often nearly match.
small_arguments = st.dictionaries(st.sampled_from("xyz"), st.integers(0, 2), max_size=3)
small_calls = st.lists(st.tuples(st.sampled_from("ab"), small_arguments), max_size=6)


def expected_of(calls, order="any"):
    return read_entry(
        {
            "id": "p",
            "order": order,
            # Each value wrapped as its one accepted value, so that an object is never
            # mistaken for an accept object.
            "calls": [
                {"name": name, "arguments": {k: {"accept": [v]} for k, v in arguments.items()}}
                for name, arguments in calls
            ],
        }
    )


def made_of(calls):
    return [MadeCall(index, name, arguments) for index, (name, arguments) in enumerate(calls)]


def brute_force_best(expected, made):
    """The least (wrong tools, mismatches) over every pairing of the smaller side."""
    calls = expected.calls or ()
    found = [
        [mismatches_of_call(c.name, c.arguments, m.name, m.arguments, {}) for c in calls]
        for m in made
    ]
    best = None
    n, m = len(made), len(calls)
    pairs_of = (
        (list(zip(range(n), chosen, strict=True)) for chosen in itertools.permutations(range(m), n))
        if n <= m
        else (
            list(zip(chosen, range(m), strict=True))
            for chosen in itertools.permutations(range(n), m)
        )
    )
    for pairs in pairs_of:
        wrong = sum("wrong_tool" in found[i][j] for i, j in pairs)
        count = sum(len(found[i][j]) for i, j in pairs) + (n - len(pairs)) + (m - len(pairs))
        if best is None or (wrong, count) < best:
            best = (wrong, count)
    return best


@settings(max_examples=150, deadline=None)
@given(expected_calls=small_calls.filter(bool), made_calls=small_calls.filter(bool))
def test_the_pairing_is_optimal(expected_calls, made_calls):
    expected = expected_of(expected_calls)
    result = score(expected, made_of(made_calls))
    wrong = result.mismatches.count("wrong_tool")
    assert (wrong, len(result.mismatches)) == brute_force_best(expected, made_of(made_calls))
    assert len(result.pairing) == min(len(expected_calls), len(made_calls))
    assert (
        len({i for i, _ in result.pairing})
        == len({j for _, j in result.pairing})
        == len(result.pairing)
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9)), min_size=1, max_size=6),
        min_size=1,
        max_size=6,
    ).filter(lambda rows: len({len(row) for row in rows}) == 1)
)
def test_best_pairing_against_every_permutation(costs):
    rows, columns = len(costs), len(costs[0])
    pairs = best_pairing(costs)

    def total(chosen):
        return (sum(costs[i][j][0] for i, j in chosen), sum(costs[i][j][1] for i, j in chosen))

    if rows <= columns:
        every = (
            zip(range(rows), p, strict=True) for p in itertools.permutations(range(columns), rows)
        )
    else:
        every = (
            zip(p, range(columns), strict=True)
            for p in itertools.permutations(range(rows), columns)
        )
    assert total(pairs) == min(total(list(chosen)) for chosen in every)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    calls=st.lists(
        st.tuples(
            st.text(min_size=1, max_size=5),
            st.dictionaries(st.text(max_size=4), json_values, max_size=4),
        ),
        max_size=4,
    ),
    order=st.sampled_from(["any", "strict"]),
    data=st.data(),
)
def test_a_call_compared_with_itself_is_correct(calls, order, data):
    shuffled = calls if order == "strict" else data.draw(st.permutations(calls))
    result = score(expected_of(calls, order), made_of(shuffled))
    assert result.correct, result
    assert result.outcome == ("correct" if calls else "correct_abstention")


@settings(max_examples=200, deadline=None)
@given(
    arguments=st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 5), min_size=1, max_size=6),
    data=st.data(),
)
def test_every_difference_is_listed_not_only_the_first(arguments, data):
    changed = data.draw(st.sets(st.sampled_from(sorted(arguments))))
    dropped = data.draw(
        st.sets(st.sampled_from(sorted(set(arguments) - changed)))
        if set(arguments) - changed
        else st.just(set())
    )
    added = data.draw(st.sets(st.sampled_from("uvw"), max_size=3))
    given_arguments = {
        k: v + 10 if k in changed else v for k, v in arguments.items() if k not in dropped
    }
    given_arguments.update({k: 0 for k in added})
    result = score(expected_of([("f", arguments)]), made_of([("f", given_arguments)]))
    assert set(result.mismatches) == (
        {f"value:{k}" for k in changed}
        | {f"missing:{k}" for k in dropped}
        | {f"unexpected:{k}" for k in added}
    )
    assert len(result.mismatches) == len(changed) + len(dropped) + len(added)
