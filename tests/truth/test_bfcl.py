"""``--match bfcl``: each of BFCL's quirks, one small case each (docs/evaluation.md,
"BFCL's semantics (--match bfcl)"); the score files themselves: test_bfcl_reproduce.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolaudit.truth.bfcl import (
    CHECKER_ERROR,
    decode,
    guess_underscore_to_dot,
    relevance_expected,
    score_bfcl,
)
from toolaudit.truth.bfcl_langs import java_value, js_value
from toolaudit.truth.bfcl_values import standardized
from toolaudit.truth.entries import Accept, Expected, ExpectedCall, bfcl_accept


def _function(name: str, **types: Any) -> dict[str, Any]:
    properties = {p: t if isinstance(t, dict) else {"type": t} for p, t in types.items()}
    return {"name": name, "parameters": {"type": "dict", "properties": properties, "required": []}}


def _expected(*calls: dict[str, dict[str, list[Any]]], category: str = "simple") -> Expected:
    return Expected(
        f"{category}_0",
        tuple(
            ExpectedCall(name, {p: bfcl_accept(v) for p, v in params.items()})
            for call in calls
            for name, params in call.items()
        ),
        "any",
        category,
        "bfcl",
    )


def _made(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, str]]:
    return [{name: json.dumps(arguments)} for name, arguments in calls]


def _score(
    function: dict[str, Any], answer: dict[str, list[Any]], given: dict[str, Any], **kw: Any
):
    expected = _expected({function["name"]: answer}, category=kw.pop("category", "simple"))
    return score_bfcl(expected, _made((function["name"], given)), [function], **kw)


def test_strings_are_compared_normalised() -> None:
    assert standardized("April 1, 2024") == standardized("april 12024")
    f = _function("f", date="string")
    assert _score(f, {"date": ["April 1, 2024"]}, {"date": "APRIL 1 2024"}).correct
    wrong = _score(f, {"date": ["April 1, 2024"]}, {"date": "April 2"})
    assert (wrong.outcome, wrong.bfcl_error_type) == ("incorrect", "value_error:string")
    assert wrong.mismatches == ("value:date",)


def test_an_int_is_accepted_for_a_float_but_not_inside_a_list() -> None:
    assert _score(_function("f", x="float"), {"x": [5.0]}, {"x": 5}).correct
    items = _function("f", xs={"type": "array", "items": {"type": "float"}})
    nested = _score(items, {"xs": [[1.0, 2.5]]}, {"xs": [1, 2.5]})
    assert nested.bfcl_error_type == "type_error:nested"


def test_types_are_exact_but_values_compare_by_python_equality() -> None:
    f = _function("f", n="integer")
    assert _score(f, {"n": [1]}, {"n": True}).bfcl_error_type == "type_error:simple"
    # The answers' own type differs from the declared one: a "variable", compared by ==.
    assert _score(f, {"n": [True]}, {"n": True}).correct


def test_a_tuple_is_a_list_and_an_optional_list_accepts_the_empty_list() -> None:
    f = _function("f", t={"type": "tuple", "items": {"type": "integer"}})
    assert _score(f, {"t": [[1, 2]]}, {"t": [1, 2]}).correct
    assert _score(f, {"t": [[1, 2], ""]}, {"t": []}).correct  # "" iterates as no items


def test_parameters_left_out_given_too_many_or_required() -> None:
    f = _function("f", a="integer", b="integer")
    f["parameters"]["required"] = ["a"]
    missing = _score(f, {"a": [1], "b": [2]}, {"a": 1})
    assert missing.bfcl_error_type == "simple_function_checker:missing_optional"
    assert _score(f, {"a": [1], "b": [2, ""]}, {"a": 1}).correct
    required = _score(f, {"a": [1]}, {"b": 1})
    assert required.bfcl_error_type == "simple_function_checker:missing_required"
    assert required.mismatches == ("missing:a",)
    unexpected = _score(f, {"a": [1]}, {"a": 1, "b": 2})
    assert unexpected.bfcl_error_type == "simple_function_checker:unexpected_param"


def test_a_missing_dict_key_wins_over_a_wrong_value() -> None:
    f = _function("f", d="dict")
    answer = {"d": [{"k": ["v"], "m": ["w"]}]}
    assert _score(f, answer, {"d": {"k": "x"}}).bfcl_error_type == "value_error:dict_key"
    assert _score(f, answer, {"d": {"k": "x", "m": "w"}}).bfcl_error_type == (
        "value_error:dict_value"
    )


def test_parallel_calls_are_paired_greedily() -> None:
    f = _function("f", x="integer")
    expected = _expected({"f": {"x": [1, 2]}}, {"f": {"x": [1]}}, category="parallel")
    # Optimal pairing would match both; BFCL's first expected call takes the first fit.
    greedy = score_bfcl(expected, _made(("f", {"x": 1}), ("f", {"x": 2})), [f])
    assert greedy.bfcl_error_type == "parallel_function_checker_no_order:cannot_find_match"
    either = score_bfcl(expected, _made(("f", {"x": 2}), ("f", {"x": 1})), [f])
    assert (either.correct, either.pairing) == (True, ((0, 0), (1, 1)))
    count = score_bfcl(expected, _made(("f", {"x": 1})), [f])
    assert count.bfcl_error_type == "parallel_function_checker_no_order:wrong_count"
    assert count.mismatches == ("missing_call:f",)


def test_a_simple_entry_is_checked_against_the_first_function_and_multiple_by_name() -> None:
    f, g = _function("f", x="integer"), _function("g", x="integer")
    wanted_g = _expected({"g": {"x": [1]}})
    wrong = score_bfcl(wanted_g, _made(("g", {"x": 1})), [f, g], category="simple_python")
    assert wrong.bfcl_error_type == "simple_function_checker:wrong_func_name"
    assert score_bfcl(wanted_g, _made(("g", {"x": 1})), [f, g], category="multiple").correct
    # A name the question does not declare stops BFCL; here the entry is only incorrect.
    unknown = score_bfcl(_expected({"h": {"x": [1]}}), _made(("h", {})), [f], category="multiple")
    assert (unknown.correct, unknown.bfcl_error_type) == (False, CHECKER_ERROR)


@pytest.mark.parametrize(
    ("result", "error_type", "outcome"),
    [
        ([{"f": ""}], "ast_decoder:decoder_failed", "unparseable"),
        ([{"f": "{'x': 1}"}], "ast_decoder:decoder_failed", "unparseable"),
        ([{"f": {"x": 1}}], "ast_decoder:decoder_failed", "unparseable"),
        ("I cannot help", "ast_decoder:decoder_failed", "unparseable"),
        ([{"f": "[1]"}], "ast_decoder:decoder_wrong_output_format", "unparseable"),
        ("", "simple_function_checker:wrong_count", "missed"),
        ([], "simple_function_checker:wrong_count", "missed"),
    ],
)
def test_the_output_is_decoded_as_bfcl_decodes_it(result: Any, error_type: str, outcome: str):
    score = score_bfcl(_expected({"f": {"x": [1]}}), result, [_function("f", x="integer")])
    assert (score.correct, score.bfcl_error_type, score.outcome) == (False, error_type, outcome)


def test_decode_takes_each_calls_first_name_and_python_json() -> None:
    assert decode([{"f": '{"x": NaN}', "g": "{}"}])[0]["f"]["x"] != 0
    assert list(decode([{"f": "{}", "g": "{}"}])[0]) == ["f"]


@pytest.mark.parametrize(
    ("result", "outcome", "correct"),
    [
        ("I cannot answer that", "unparseable", True),  # BFCL: no call, so correct
        ([{"f": ""}], "unparseable", True),
        ([{"f": "[1]"}], "correct_abstention", True),  # not calls: empty to BFCL
        ([], "correct_abstention", True),
        ([{"f": "{}"}], "unwanted_call", False),
        # Prompt-mode output (test_bfcl_prompt.py):
        ("```python\n[f(a=1)]\n```", "unparseable", True),
        ("[]", "correct_abstention", True),
        ("[f(a=1)]", "unwanted_call", False),
        ("f()", "unwanted_call", False),
    ],
)
def test_irrelevance_counts_anything_that_is_no_call_as_correct(result, outcome, correct):
    expected = relevance_expected("irrelevance_0")
    assert expected is not None
    score = score_bfcl(expected, result, [])
    assert (score.outcome, score.correct) == (outcome, correct)
    if not correct:
        assert score.bfcl_error_type == "irrelevance_error:decoder_success"
        assert score.mismatches == ("extra_call:f",)


def test_relevance_wants_any_call() -> None:
    expected = relevance_expected("live_relevance_0-0-0")
    assert expected is not None and relevance_expected("simple_python_1") is None
    assert score_bfcl(expected, [{"f": '{"a": 1}'}], []).outcome == "correct"
    for result, outcome in (([], "missed"), ("text", "unparseable")):
        score = score_bfcl(expected, result, [])
        assert (score.outcome, score.bfcl_error_type) == (outcome, "relevance_error:decoder_failed")


def test_java_and_javascript_values_are_strings_of_source() -> None:
    f = _function("f", n="long", xs={"type": "ArrayList", "items": {"type": "String"}})
    answer = {"n": ["5"], "xs": [["a", "b"]]}
    given = {"n": "5L", "xs": 'new ArrayList<>(Arrays.asList("a", "b"))'}
    assert _score(f, {"n": [5], "xs": [["a", "b"]]}, given, category="simple_java").correct
    not_text = _score(f, answer, {"n": 5}, category="simple_java")
    assert not_text.bfcl_error_type == "type_error:java"
    g = _function("g", ok="Boolean")
    assert _score(g, {"ok": [True]}, {"ok": "true"}, category="simple_javascript").correct
    assert _score(
        g, {"ok": [True]}, {"ok": True}, category="simple_javascript"
    ).bfcl_error_type == ("type_error:js")
    assert java_value("3.5f", "float") == 3.5 and java_value("x", "integer") == "x"
    assert js_value("[1, 'two', true]", "array") == [1, "two", True]
    assert js_value("{'k': [1, 2]}", "dict") == {"k": [1, 2]}


def test_dotted_names_given_with_underscores() -> None:
    f = _function("math.factorial", n="integer")
    expected = _expected({"math.factorial": {"n": [5]}})
    made = _made(("math_factorial", {"n": 5}))
    assert guess_underscore_to_dot(decode(made), [f])
    assert score_bfcl(expected, made, [f]).correct
    strict = score_bfcl(expected, made, [f], underscore_to_dot=False)
    assert strict.bfcl_error_type == "simple_function_checker:wrong_func_name"


def test_native_entries_are_checked_as_bfcl_lists_and_parameters_are_counted() -> None:
    f = _function("f", a="integer", b="string")
    native = Expected(
        "n1",
        (ExpectedCall("f", {"a": Accept((1,)), "b": Accept(("x",), optional=True)}),),
        category="simple",
    )
    score = score_bfcl(native, _made(("f", {"a": 2})), [f])
    assert score.bfcl_error_type == "value_error:others"
    assert score.parameters == (("f", "a", False), ("f", "b", True))
