"""Deep mode's typed decoders against deep mode itself.

Whatever a deep decoder accepts, deep mode must call valid (the general path alone
decides errors): checked on the JSON-Schema-Test-Suite cases the deep tests use, on
random nested schemas and values, and rule by rule on the edges where msgspec and deep
mode could part (``1.0`` and ``true`` for an integer, numbers below a double's range,
a pattern's ``$`` before a newline, ``uniqueItems`` with ``true`` and ``1``). What a
decoder cannot express is refused at its place, or leaves the tool untyped, and says so.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit import compile_schemas
from toolaudit.contract import ToolValidator
from toolaudit.jsonutil import loads_exact
from toolaudit.typed import deep_arguments
from toolaudit.typed.arguments import accepts
from toolaudit.typed.deep_arguments import DeepTyping, deep_arguments_decoder, deep_typing
from toolaudit.typed.deep_strings import DEC_HOOK

from ..deep.test_against_jsonschema import cases
from ..deep.test_rules import SUITE


def deep_tool(parameters: dict[str, Any]) -> ToolValidator:
    return compile_schemas({"t": {"parameters": parameters}}, deep=True).tools["t"]


def typed_verdict(tool: ToolValidator, text: str | bytes) -> bool | None:
    """Whether the tool's deep decoder accepts the arguments ``text`` (None: no decoder);
    asserting that deep mode, on the exact parse, finds no error in what it accepts."""
    decoder = deep_arguments_decoder(tool)
    if decoder is None:
        return None
    accepted = accepts(decoder, text)
    if accepted:
        assert not tool.check(loads_exact(text)), text
    return accepted


def x_tool(spec: Any, defs: dict[str, Any] | None = None, required: bool = True) -> ToolValidator:
    parameters: dict[str, Any] = {"type": "object", "properties": {"x": spec}}
    if required:
        parameters["required"] = ["x"]
    if defs:
        parameters["$defs"] = defs
    return deep_tool(parameters)


def takes(spec: Any, value_text: str, defs: dict[str, Any] | None = None) -> bool | None:
    return typed_verdict(x_tool(spec, defs), '{"x": ' + value_text + "}")


# -- the JSON-Schema-Test-Suite cases and random schemas ---------------------------------


def _suite() -> list[Any]:
    return [
        pytest.param(group["schema"], test["data"], test["valid"], id=f"{group['group']}: {i}")
        for group in SUITE["groups"]
        for i, test in enumerate(group["tests"])
    ]


@pytest.mark.parametrize(("schema", "data", "valid"), _suite())
def test_the_suite_cases_a_decoder_accepts_are_valid(schema: Any, data: Any, valid: bool) -> None:
    typed_verdict(x_tool(schema), json.dumps({"x": data}))


def test_the_decoders_accept_most_of_the_suites_valid_cases() -> None:
    """The differential test above is not empty: most valid cases are typed."""
    accepted = valid = 0
    for group in SUITE["groups"]:
        tool = x_tool(group["schema"])
        for test in group["tests"]:
            if not tool.check({"x": test["data"]}):
                valid += 1
                accepted += bool(typed_verdict(tool, json.dumps({"x": test["data"]})))
    assert valid > 300
    assert accepted > valid // 2, (accepted, valid)


@pytest.mark.slow
@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(cases(), st.sampled_from(["", "1.0", "true", "2.0", "-0.0", "[1, true]", '"a\\n"']))
def test_random_nested_schemas_accept_only_valid_values(case: Any, edge: str) -> None:
    defs, schema, value = case
    tool = x_tool(schema, defs)
    typed_verdict(tool, json.dumps({"x": value}))
    if edge:  # an edge value where it could slip through, inside the generated value
        text = json.dumps({"x": value})
        for number in ("1", "2", "0"):
            text = text.replace(f" {number},", f" {edge},", 1).replace(f" {number}]", f" {edge}]")
        try:
            json.loads(text)
        except ValueError:
            return
        typed_verdict(tool, text)


# -- rule by rule --------------------------------------------------------------------------


def test_an_integer_is_never_1_0_nor_true() -> None:
    spec = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}
    assert takes(spec, '{"n": 1}') is True
    assert takes(spec, '{"n": 1.0}') is False
    assert takes(spec, '{"n": true}') is False


def test_bounds_on_integers_are_whole_and_exact() -> None:
    spec = {"type": "integer", "minimum": 1.5, "exclusiveMaximum": 4}
    assert [takes(spec, v) for v in ("1", "2", "3", "4")] == [False, True, True, False]
    assert takes({"type": "integer", "maximum": 2**70}, str(2**64)) is False  # past 64 bits


def test_multiple_of_takes_integers_by_the_divisor_as_written() -> None:
    spec = {"type": "number", "multipleOf": 1.5}
    assert [takes(spec, v) for v in ("3", "4", "6")] == [True, False, True]
    assert takes(spec, "4.5") is False  # floats are the general path's (decimals as written)


def test_a_number_below_a_doubles_range_never_passes_a_limit_at_zero() -> None:
    for limit in ("minimum", "maximum"):
        spec = {"type": "number", limit: 0}
        assert takes(spec, "-1e-400") is False
        assert takes(spec, "1e-400") is False
        assert takes(spec, "0.0") is False  # the price of it: 0.0 is left to the general path
    assert takes({"type": "number", "minimum": 0}, "0.5") is True
    assert takes({"type": "number", "minimum": 2**53 + 1}, "1e300") is False  # inexact limit


def test_a_union_never_leaves_integers_to_msgspecs_float() -> None:
    """The integers of a union whose branches type them apart are refused, and so are its
    floats, which msgspec's float would take integers for, compared as doubles."""
    spec = {"anyOf": [{"type": "integer", "maximum": 3}, {"type": "number", "maximum": 2**53}]}
    tool = x_tool(spec, required=False)
    assert typed_verdict(tool, f'{{"x": {2**53 + 1}}}') is False
    assert typed_verdict(tool, '{"x": 1.5}') is False


def test_a_divisor_past_64_bits_leaves_integers_to_the_general_path() -> None:
    spec = {"type": "integer", "multipleOf": 2**70}
    assert typed_verdict(x_tool(spec, required=False), '{"x": 0}') is False
    assert deep_typing(x_tool(spec)).declined


def test_lengths_count_code_points() -> None:
    spec = {"type": "string", "maxLength": 2}
    assert takes(spec, '"\U0001f600\U0001f600"') is True
    assert takes(spec, '"\U0001f600\U0001f600\U0001f600"') is False


def test_patterns_end_where_ecma_262_ends_them() -> None:
    assert takes({"type": "string", "pattern": "^[A-Z]{3}$"}, '"ABC"') is True
    assert takes({"type": "string", "pattern": "^[A-Z]{3}$"}, '"ABC\\n"') is False


def test_a_pattern_re_cannot_read_is_checked_after_with_deep_modes_own_search() -> None:
    spec = {"type": "string", "pattern": "^\\p{Letter}+$"}
    assert takes(spec, '"\u00e9t\u00e9"') is True
    assert takes(spec, '"123"') is False
    typing = deep_typing(x_tool(spec))
    assert typing.after_checks == ["/properties/x/pattern"]


def test_objects_refuse_undeclared_keys_as_deep_mode_calls_them_unexpected() -> None:
    spec = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert takes(spec, '{"a": "s"}') is True
    assert takes(spec, '{"a": "s", "b": 1}') is False
    assert takes(spec, "{}") is False
    open_spec = {**spec, "additionalProperties": True}
    assert takes(open_spec, '{"a": "s", "b": 1}') is True


def test_maps_nullable_unions_enums_and_const() -> None:
    assert takes({"type": "object", "additionalProperties": {"type": "integer"}}, '{"k": 1}')
    assert not takes({"type": "object", "additionalProperties": {"type": "integer"}}, '{"k": "s"}')
    nullable = {"anyOf": [{"type": "string", "maxLength": 1}, {"type": "null"}]}
    assert [takes(nullable, v) for v in ('"a"', "null", '"ab"')] == [True, True, False]
    assert takes({"enum": ["a", "bb"], "maxLength": 1}, '"bb"') is False  # filtered by deep mode
    assert takes({"enum": ["a", "bb"], "maxLength": 1}, '"a"') is True
    assert [takes({"const": 2}, v) for v in ("2", "2.0", "true")] == [True, False, False]


def test_unique_items_are_checked_after_and_true_is_never_taken_for_1() -> None:
    spec = {"type": "array", "uniqueItems": True}
    unique = {"type": "array", "items": {"type": ["integer", "boolean"]}, "uniqueItems": True}
    assert takes(unique, "[1, 2]") is True
    assert takes(unique, "[1, 1]") is False
    assert takes(unique, "[1, true]") is False  # unique for deep mode: the general path's
    assert deep_typing(x_tool(spec)).refused  # items of any kind: no hashable check


def test_a_ref_is_its_target_and_a_recursive_schema_is_refused_where_it_recurses() -> None:
    defs = {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}
    tool = x_tool({"$ref": "#/$defs/node"}, defs)
    assert typed_verdict(tool, '{"x": {}}') is True
    assert typed_verdict(tool, '{"x": {"next": {}}}') is False
    assert any(why == "a recursive schema" for _, why in deep_typing(tool).refused)


def test_a_tool_whose_required_argument_cannot_be_typed_is_declined_and_says_why() -> None:
    spec = {"oneOf": [{"type": "object"}, {"type": "object", "required": ["a"]}]}
    typing = deep_typing(x_tool(spec))
    assert typing.decoder is None
    assert typing.declined is not None and "/properties/x" in typing.declined
    optional = deep_typing(x_tool(spec, required=False))
    assert optional.decoder is not None and optional.declined is None
    assert typed_verdict(x_tool(spec, required=False), '{"x": {}}') is False


def test_a_plain_tool_gets_the_plain_decoder_and_a_report_of_none() -> None:
    tool = compile_schemas({"t": {"parameters": {"properties": {"a": {}}}}}).tools["t"]
    assert deep_arguments_decoder(tool) is not None
    assert deep_typing(tool) == DeepTyping(declined="not a tool compiled for deep mode")


# -- strings with a pattern, tested in C (typed.deep_strings) ------------------------------

needs_speedups = pytest.mark.skipif(DEC_HOOK is None, reason="the C speedups are not built")

#: Patterns the decoders test in C, with lengths beside them or not.
TESTED = [
    {"type": "string", "pattern": "^[A-Z]{3}$"},
    {"type": "string", "pattern": "^[^@ ]+@[^@ ]+$", "maxLength": 6},
    {"type": "string", "pattern": "^[a-z]{2}(-[A-Z]{2})?$", "minLength": 5},
    {"type": "string", "pattern": "b"},
    {"type": "string", "pattern": "^.{2}$"},
    {"anyOf": [{"type": "string", "pattern": "^[0-9]{1,2}[A-K]$"}, {"type": "null"}]},
]
#: JSON values where the two ways could part: escapes, surrogates, other kinds.
VALUES = [
    '"ABC"',
    '"AB"',
    '"ABC\\n"',
    '"a@b"',
    '"a\\n@b"',
    '"\\u00e9@b"',
    '"\\ud83d\\ude00@\\ud83d\\ude00"',
    '"\\ud800@b"',
    '"en"',
    '"en-GB"',
    '"abc"',
    '"\\u2028\\u2028"',
    '"12K"',
    '"1A"',
    "null",
    "3",
    "true",
    '["ABC"]',
    '{"a": "ABC"}',
    "1e-400",
]


def _field_type(tool: ToolValidator) -> Any:
    decoder = deep_arguments_decoder(tool)
    assert decoder is not None
    return msgspec.structs.fields(decoder.type)[0].type


@needs_speedups
@pytest.mark.parametrize("spec", TESTED)
def test_a_tested_string_takes_what_msgspecs_pattern_takes(spec: Any) -> None:
    tool = x_tool(spec)
    tested = deep_arguments_decoder(tool)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deep_arguments, "string_type", lambda *_: None)
        plain = deep_arguments_decoder(tool)
    assert tested is not None and plain is not None
    assert "TypedString" in repr(msgspec.structs.fields(tested.type)[0].type)
    assert "TypedString" not in repr(msgspec.structs.fields(plain.type)[0].type)
    taken = 0
    for value in VALUES:
        text = '{"x": ' + value + "}"
        assert accepts(tested, text) is accepts(plain, text), (spec, value)
        if accepts(tested, text):
            taken += 1
            assert not tool.check(loads_exact(text)), text
    assert taken


@needs_speedups
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TESTED), st.text(alphabet="ABCaeKn019-@ \n\u00e9\u2028\U0001f600"))
def test_random_strings_are_taken_alike(spec: Any, text: str) -> None:
    value = json.dumps({"x": text})
    tool = x_tool(spec)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deep_arguments, "string_type", lambda *_: None)
        plain = typed_verdict(tool, value)
    assert typed_verdict(tool, value) is plain


@needs_speedups
def test_a_tested_string_is_msgspecs_own_where_a_value_is_read_or_other_kinds_join() -> None:
    pattern = {"type": "string", "pattern": "^[A-Z]{3}$"}
    unique = {"type": "array", "items": pattern, "uniqueItems": True}
    assert "TypedString" not in repr(_field_type(x_tool(unique)))  # uniqueItems compares them
    assert takes(unique, '["ABC", "ABD"]') is True
    assert takes(unique, '["ABC", "ABC"]') is False
    either = {"anyOf": [pattern, {"type": "integer"}]}
    assert "TypedString" not in repr(_field_type(x_tool(either)))  # no union in msgspec
    assert [takes(either, v) for v in ('"ABC"', "3", '"abc"')] == [True, True, False]
    assert "TypedString" in repr(_field_type(x_tool({"type": "array", "items": pattern})))


@needs_speedups
def test_a_decoder_made_without_the_hook_refuses_a_tested_string() -> None:
    decoder = deep_arguments_decoder(x_tool({"type": "string", "pattern": "^[A-Z]{3}$"}))
    assert decoder is not None
    assert accepts(decoder, '{"x": "ABC"}')
    without = msgspec.json.Decoder(decoder.type)
    with pytest.raises(msgspec.ValidationError):
        without.decode('{"x": "ABC"}')
