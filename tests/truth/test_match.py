"""Scoring one entry: outcomes, every mismatch with its path, compare modes, defaults."""

from __future__ import annotations

import pytest

from toolaudit.jsonutil import ExactNumber
from toolaudit.truth.expected import read_entry
from toolaudit.truth.match import OUTCOMES, UNREADABLE, MadeCall, Score, no_record, score


def native(*calls, order="any", category=None):
    line = {"id": "e1", "calls": list(calls), "order": order}
    if category is not None:
        line["category"] = category
    return read_entry(line)


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def made(*calls):
    return [MadeCall(index, name, arguments) for index, (name, arguments) in enumerate(calls)]


def mismatches(expected, *calls, defaults=None):
    return score(expected, made(*calls), defaults=defaults).mismatches


# -- outcomes -------------------------------------------------------------------------


def test_every_outcome():
    weather = native(call("weather", city="Paris"))
    none = native()
    anything = read_entry({"id": "e1", "calls": "any"})
    cases = {
        "correct": score(weather, made(("weather", {"city": "Paris"}))),
        "incorrect": score(weather, made(("weather", {"city": "Rome"}))),
        "missed": score(weather, []),
        "correct_abstention": score(none, []),
        "unwanted_call": score(none, made(("weather", {}))),
        "unparseable": score(none, None),
        "no_record": no_record(weather),
    }
    assert {outcome: result.outcome for outcome, result in cases.items()} == {
        outcome: outcome for outcome in OUTCOMES
    }
    assert [result.correct for result in cases.values()] == [
        True, False, False, True, False, False, False,
    ]  # fmt: skip
    assert score(anything, made(("whatever", {}))).outcome == "correct"
    assert score(anything, []).outcome == "missed"
    assert score(anything, None).outcome == "unparseable"


def test_the_missed_and_unwanted_calls_are_named():
    two = native(call("a"), call("b"))
    assert score(two, []).mismatches == ("missing_call:a", "missing_call:b")
    assert score(native(), made(("x", {}), (3, {}))).mismatches == ("extra_call:x", "extra_call:3")


def test_to_dict():
    result = score(native(call("a", x=1), category="c"), made(("a", {"x": 2})))
    assert result.to_dict() == {
        "id": "e1",
        "category": "c",
        "outcome": "incorrect",
        "correct": False,
        "mismatches": ["value:x"],
        "pairing": [[0, 0]],
    }
    assert "bfcl_error_type" in Score("i", None, "incorrect", False, (), (), "x").to_dict()


def test_from_dict_reads_back_a_scores_line():
    result = score(
        native(call("a", x=1), call("b"), category="c"), made(("b", {}), ("a", {"x": 2}))
    )
    assert Score.from_dict({**result.to_dict(), "model": "m"}) == Score(
        "e1", "c", "incorrect", False, ("value:x",), ((1, 0), (0, 1))
    )
    bfcl = Score("i", None, "incorrect", False, (), (), "value_error:string")
    assert Score.from_dict(bfcl.to_dict()) == bfcl
    with pytest.raises(ValueError, match="unknown outcome"):
        Score.from_dict({**bfcl.to_dict(), "outcome": "fine"})


# -- mismatches -----------------------------------------------------------------------


def test_every_difference_is_listed_with_its_path():
    expected = native(
        call("search", query="x", filters={"city": "Paris", "days": 3}, stops=[{"city": "A"}])
    )
    found = mismatches(
        expected,
        ("search", {"filters": {"city": "Rome", "extra": 1}, "stops": [{"city": "B"}], "k": 5}),
    )
    assert found == (
        "missing:query",
        "value:filters.city",
        "missing:filters.days",
        "unexpected:filters.extra",
        "value:stops[0].city",
        "unexpected:k",
    )


def test_a_wrong_tool_is_one_mismatch_and_arguments_cannot_be_read():
    expected = native(call("a", x=1))
    assert mismatches(expected, ("b", {"x": 2})) == ("wrong_tool",)
    assert mismatches(expected, ("a", UNREADABLE)) == ("unreadable_arguments",)
    assert mismatches(expected, ("a", [1])) == ("unreadable_arguments",)


def test_a_list_of_another_length_is_one_value_mismatch():
    assert mismatches(native(call("a", x=[1, 2])), ("a", {"x": [1, 2, 3]})) == ("value:x",)


# -- compare modes --------------------------------------------------------------------


def accepting(value, compare, *accepted, **extra):
    expected = native(call("f", x={"accept": list(accepted), "compare": compare, **extra}))
    return score(expected, made(("f", {"x": value}))).correct


@pytest.mark.parametrize(
    ("value", "compare", "accepted", "extra", "correct"),
    [
        (1.0, "exact", [1], {}, True),
        (True, "exact", [1], {}, False),
        (1, "exact", [True], {}, False),
        ({"a": [1, 2.0]}, "exact", [{"a": [1.0, 2]}], {}, True),
        ("b", "exact", ["a", "b"], {}, True),
        ("  PARIS ", "text", ["paris"], {}, True),
        ("Pariss", "text", ["paris"], {}, False),
        (3, "text", ["3"], {}, False),
        (3.04, "number", [3], {"tolerance": 0.05}, True),
        (3.1, "number", [3], {"tolerance": 0.05}, False),
        (3, "number", [3.0], {}, True),
        (True, "number", [1], {"tolerance": 1}, False),
        (10**400, "number", [1.5], {"tolerance": 1}, False),
        ([2, 1, 1], "unordered", [[1, 1, 2]], {}, True),
        ([1, 2, 2], "unordered", [[1, 1, 2]], {}, False),
        ([{"a": 1}, 2.0], "unordered", [[2, {"a": 1.0}]], {}, True),
        ("1,2", "unordered", [[1, 2]], {}, False),
        ({"a": 1, "b": 2}, "subset", [{"a": 1}], {}, True),
        ({"a": {"b": 1, "c": 2}}, "subset", [{"a": {"b": 1}}], {}, True),
        ({"b": 2}, "subset", [{"a": 1}], {}, False),
        ("2026-12-04", "pattern", ["^2026-\\d\\d-\\d\\d$"], {}, True),
        ("2025-12-04", "pattern", ["^2026-"], {}, False),
        (5, "pattern", ["5"], {}, False),
        (None, "any", [], {}, True),
        ({"deep": [1]}, "any", [], {}, True),
    ],
)
def test_compare_modes(value, compare, accepted, extra, correct):
    assert accepting(value, compare, *accepted, **extra) is correct


def test_any_still_needs_the_argument():
    expected = native(call("f", x={"compare": "any"}))
    assert mismatches(expected, ("f", {})) == ("missing:x",)


def test_optional_arguments_may_be_left_out_but_not_given_wrong():
    expected = native(call("f", x={"accept": [1], "optional": True}))
    assert mismatches(expected, ("f", {})) == ()
    assert mismatches(expected, ("f", {"x": 2})) == ("value:x",)


def test_nested_accept_objects_compare_their_own_way():
    expected = native(call("f", where={"city": {"accept": ["paris"], "compare": "text"}, "n": 1}))
    assert mismatches(expected, ("f", {"where": {"city": "PARIS", "n": 1}})) == ()
    assert mismatches(expected, ("f", {"where": {"city": "Rome", "n": 2}})) == (
        "value:where.city",
        "value:where.n",
    )


def test_the_closest_accepted_value_names_the_differences():
    expected = native(call("f", x={"accept": [{"a": 1, "b": 2}, {"c": 3}]}))
    assert mismatches(expected, ("f", {"x": {"a": 1, "b": 5}})) == ("value:x.b",)


# -- defaults -------------------------------------------------------------------------


def test_a_parameter_left_out_counts_as_its_default():
    expected = native(call("f", unit="celsius", n=2))
    defaults = {"f": {"unit": "celsius", "n": 1}}
    assert mismatches(expected, ("f", {"n": 2}), defaults=defaults) == ()
    # A default that is not the expected value: the parameter was needed.
    assert mismatches(expected, ("f", {"unit": "celsius"}), defaults=defaults) == ("missing:n",)
    assert mismatches(expected, ("f", {"unit": "celsius"})) == ("missing:n",)


def test_an_unexpected_parameter_given_at_its_default_is_no_mismatch():
    expected = native(call("f", n=2))
    defaults = {"f": {"verbose": False}}
    assert mismatches(expected, ("f", {"n": 2, "verbose": False}), defaults=defaults) == ()
    assert mismatches(expected, ("f", {"n": 2, "verbose": True}), defaults=defaults) == (
        "unexpected:verbose",
    )


# -- BFCL's possible answers, read natively ---------------------------------------------


def bfcl(*ground_truth):
    return read_entry({"id": "live_multiple_3-1-0", "ground_truth": list(ground_truth)})


def test_bfcl_possible_answers_with_blank_as_optional():
    expected = bfcl({"math.hypot": {"x": [4], "y": [5], "z": ["", 0]}})
    assert mismatches(expected, ("math.hypot", {"x": 4.0, "y": 5})) == ()
    assert mismatches(expected, ("math.hypot", {"x": 4, "y": 5, "z": 0})) == ()
    assert mismatches(expected, ("math.hypot", {"x": 4, "y": 5, "z": 1})) == ("value:z",)
    assert mismatches(expected, ("math.hypot", {"y": 5})) == ("missing:x",)
    assert score(expected, []).category == "live_multiple"


def test_bfcl_object_parameters_list_possible_answers_per_key():
    expected = bfcl(
        {"order": {"prefs": [{"size": ["large"], "milk": ["oat", "soy"], "note": ["", "hot"]}]}}
    )
    assert mismatches(expected, ("order", {"prefs": {"size": "large", "milk": "soy"}})) == ()
    assert mismatches(expected, ("order", {"prefs": {"size": "small", "x": 1}})) == (
        "value:prefs.size",
        "missing:prefs.milk",
        "unexpected:prefs.x",
    )


def test_bfcl_lists_of_objects_are_read_item_by_item():
    expected = bfcl({"buy": {"items": [[{"item": ["burger"], "qty": [1, 2]}, {"item": ["tea"]}]]}})
    assert (
        mismatches(expected, ("buy", {"items": [{"item": "burger", "qty": 2}, {"item": "tea"}]}))
        == ()
    )
    assert mismatches(
        expected, ("buy", {"items": [{"item": "burger", "qty": 3}, {"item": "tea"}]})
    ) == ("value:items[0].qty",)


def test_natively_strings_are_exact_where_bfcl_would_normalise_them():
    expected = bfcl({"f": {"city": ["New York"]}})
    assert mismatches(expected, ("f", {"city": "new york"})) == ("value:city",)


# -- parallel calls -------------------------------------------------------------------


def test_parallel_calls_pair_whatever_their_order():
    expected = native(call("w", city="Paris"), call("w", city="Rome"), call("t", zone="UTC"))
    result = score(
        expected, made(("t", {"zone": "UTC"}), ("w", {"city": "Rome"}), ("w", {"city": "Paris"}))
    )
    assert result.correct
    assert result.pairing == ((2, 0), (1, 1), (0, 2))


def test_two_identical_expected_calls_need_two_calls():
    expected = native(call("w", city="Paris"), call("w", city="Paris"))
    assert score(expected, made(("w", {"city": "Paris"}))).mismatches == ("missing_call:w",)
    doubled = made(("w", {"city": "Paris"}), ("w", {"city": "Paris"}), ("w", {"city": "Paris"}))
    assert score(expected, doubled).mismatches == ("extra_call:w",)


def test_pairing_prefers_the_right_tool_then_fewest_mismatches():
    expected = native(call("a", x=1, y=2), call("b", x=1))
    result = score(expected, made(("b", {"x": 9}), ("a", {"x": 1, "y": 9})))
    assert result.pairing == ((1, 0), (0, 1))
    assert result.mismatches == ("value:y", "value:x")


def test_strict_order_pairs_by_position():
    expected = native(call("a"), call("b"), order="strict")
    assert score(expected, made(("b", {}), ("a", {}))).mismatches == ("wrong_tool", "wrong_tool")
    assert score(expected, made(("a", {}), ("b", {}))).correct
    assert score(expected, made(("a", {}))).mismatches == ("missing_call:b",)


def test_pairing_names_the_made_calls_by_their_own_index():
    expected = native(call("a"))
    result = score(expected, [MadeCall(7, "a", {})])
    assert result.pairing == ((7, 0),)


def test_parameters_say_which_expected_parameters_matched():
    expected = native(call("a", x=1, f={"k": 1}), call("b", y=2))
    result = score(expected, made(("a", {"x": 1, "f": {"k": 2}})))
    assert result.parameters == (("a", "x", True), ("a", "f", False), ("b", "y", False))
    assert score(expected, made(("c", {}))).parameters == (
        ("a", "x", False), ("a", "f", False), ("b", "y", False),
    )  # fmt: skip


def test_parameters_of_calls_not_compared_are_not_matched():
    expected = native(call("a", x=1))
    assert score(expected, made(("a", UNREADABLE))).parameters == (("a", "x", False),)
    assert score(expected, None).parameters == (("a", "x", False),)
    assert no_record(expected).parameters == ()


@pytest.mark.parametrize(
    ("value", "accepted", "tolerance", "correct"),
    [
        (ExactNumber("1e-400"), 0.5, 1, True),
        (ExactNumber("1e-400"), 0.5, 0.25, False),
        (0.5, ExactNumber("1e-400"), 1, True),
        (ExactNumber("1e400"), 1.5, 1, False),
        (1.5, 1, ExactNumber("1e-400"), False),
        (ExactNumber("1e-400"), ExactNumber("2e-400"), ExactNumber("1e-400"), True),
    ],
)
def test_numbers_beyond_a_doubles_range_are_near_or_not_exactly(
    value, accepted, tolerance, correct
):
    # An ExactNumber (a Decimal) minus a float raised: the record was malformed:internal.
    assert accepting(value, "number", accepted, tolerance=tolerance) is correct
