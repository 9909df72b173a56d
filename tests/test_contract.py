"""The contract: one test per rule of the seed and per binding decision of issue 2."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import OrderedDict
from enum import IntEnum

import pytest

from toolaudit import SchemaError, ToolAuditError, compile_schemas, validate_tool_call

WEATHER = {
    "get_weather": {
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "units": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["city"],
        }
    }
}


def errors_of(schemas, call):
    result = validate_tool_call(schemas, call)
    assert result["ok"] is (not result["errors"])
    return result["errors"]


def one_param(spec, *, required=()):
    """Schemas of a tool `t` with one parameter `p` declared by `spec`."""
    return {"t": {"parameters": {"properties": {"p": spec}, "required": list(required)}}}


def errors_for_value(spec, value):
    return errors_of(one_param(spec), {"name": "t", "arguments": {"p": value}})


# -- the seed ---------------------------------------------------------------


def test_seed_sample_prints_exactly():
    script = textwrap.dedent(
        """
        from toolaudit import validate_tool_call
        schemas = {"get_weather": {"parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"]}}}
        print(validate_tool_call(schemas, {"name": "get_weather",
                                           "arguments": {"days": True, "tz": "UTC"}}))
        """
    )
    printed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert printed == "{'ok': False, 'errors': ['missing:city', 'type:days', 'unexpected:tz']}\n"


def test_result_is_a_plain_dict_with_ok_and_errors():
    result = validate_tool_call(WEATHER, {"name": "get_weather", "arguments": {"city": "Paris"}})
    assert type(result) is dict
    assert result == {"ok": True, "errors": []}
    assert type(result["errors"]) is list


def test_unknown_tool_short_circuits_with_a_single_error():
    call = {"name": "get_wether", "arguments": {"days": "x", "zzz": 1}}
    assert errors_of(WEATHER, call) == ["unknown_tool:get_wether"]


def test_every_error_is_collected():
    call = {"name": "get_weather", "arguments": {"days": 1.5, "units": "k", "a": 1, "b": 2}}
    assert errors_of(WEATHER, call) == [
        "enum:units",
        "missing:city",
        "type:days",
        "unexpected:a",
        "unexpected:b",
    ]


def test_a_type_error_suppresses_the_enum_check():
    assert errors_of(WEATHER, {"name": "get_weather", "arguments": {"city": "x", "units": 5}}) == [
        "type:units"
    ]


def test_right_type_but_not_in_enum():
    assert errors_of(
        WEATHER, {"name": "get_weather", "arguments": {"city": "x", "units": "k"}}
    ) == ["enum:units"]


def test_errors_are_sorted_ascending_as_strings():
    schemas = {
        "t": {
            "parameters": {"properties": {"b": {"type": "string"}, "B": {}}, "required": ["z", "a"]}
        }
    }
    errors = errors_of(schemas, {"name": "t", "arguments": {"b": 1, "A": 1, "_": 1, "é": 1}})
    assert errors == sorted(errors)
    assert errors == [
        "missing:a",
        "missing:z",
        "type:b",
        "unexpected:A",
        "unexpected:_",
        "unexpected:é",
    ]


def test_ok_is_true_only_without_errors():
    assert (
        validate_tool_call(WEATHER, {"name": "get_weather", "arguments": {"city": "P"}})["ok"]
        is True
    )
    assert validate_tool_call(WEATHER, {"name": "get_weather", "arguments": {}})["ok"] is False


def test_error_string_formats():
    assert errors_of(WEATHER, {"name": "x"}) == ["unknown_tool:x"]
    assert errors_of(WEATHER, {"name": "get_weather"}) == ["missing:city"]
    assert errors_of(WEATHER, {"name": "get_weather", "arguments": {"city": "P", "q": 1}}) == [
        "unexpected:q"
    ]
    assert errors_of(WEATHER, {"name": "get_weather", "arguments": {"city": 1}}) == ["type:city"]
    assert errors_of(
        WEATHER, {"name": "get_weather", "arguments": {"city": "P", "units": "K"}}
    ) == ["enum:units"]
    assert errors_of(WEATHER, {"arguments": {}}) == ["malformed:name"]
    assert errors_of(WEATHER, {"name": "get_weather", "arguments": []}) == ["malformed:arguments"]


def test_parameter_names_are_used_verbatim_in_errors():
    odd = ["a:b", "", "__class__", 'q"uote', "new\nline", "ünï", "\u202e"]
    schemas = {"t": {"parameters": {"properties": {}, "required": odd}}}
    assert errors_of(schemas, {"name": "t"}) == sorted(f"missing:{name}" for name in odd)


@pytest.mark.parametrize(
    ("type_name", "accepted", "rejected"),
    [
        ("string", ["", "x"], [1, 1.0, True, None, [], {}]),
        ("integer", [0, -3, 2**70], [1.0, True, False, "1", None, [], {}]),
        ("number", [0, 1.5, -2, 2**70, float("inf")], [True, False, "1", None, [], {}]),
        ("boolean", [True, False], [0, 1, 1.0, "true", None, [], {}]),
        ("array", [[], [1, "a"], ()], ["ab", {}, None, 1]),
        ("object", [{}, {"a": 1}, OrderedDict(a=1)], [[], "x", None, 1]),
        ("null", [None], [0, "", False, [], {}]),
    ],
)
def test_type_names_map_to_python_types(type_name, accepted, rejected):
    for value in accepted:
        assert errors_for_value({"type": type_name}, value) == [], value
    for value in rejected:
        assert errors_for_value({"type": type_name}, value) == ["type:p"], value


def test_bool_is_never_an_integer_or_a_number():
    for type_name in ("integer", "number"):
        assert errors_for_value({"type": type_name}, True) == ["type:p"]
        assert errors_for_value({"type": type_name}, False) == ["type:p"]


def test_a_parameter_without_type_accepts_anything():
    for value in ["x", 1, 1.5, True, None, [1], {"a": 1}, object()]:
        assert errors_for_value({}, value) == []


# -- decisions where the seed is silent ---------------------------------------


def test_1_enum_is_checked_without_a_type():
    assert errors_for_value({"enum": ["a", 1]}, "a") == []
    assert errors_for_value({"enum": ["a", 1]}, 1) == []
    assert errors_for_value({"enum": ["a", 1]}, "b") == ["enum:p"]


def test_2_enum_membership_is_json_equality():
    assert errors_for_value({"enum": [1, 0]}, True) == ["enum:p"]
    assert errors_for_value({"enum": [1, 0]}, False) == ["enum:p"]
    assert errors_for_value({"enum": [True]}, 1) == ["enum:p"]
    assert errors_for_value({"enum": [1]}, 1.0) == []
    assert errors_for_value({"enum": [1.0]}, 1) == []
    assert errors_for_value({"enum": [[1, 2]]}, [1, 2]) == []
    assert errors_for_value({"enum": [[1, 2]]}, (1, 2)) == []
    assert errors_for_value({"enum": [[1, 2]]}, [2, 1]) == ["enum:p"]
    assert errors_for_value({"enum": [[True]]}, [1]) == ["enum:p"]
    assert errors_for_value({"enum": [{"a": 1}]}, {"a": 1.0}) == []
    assert errors_for_value({"enum": [{"a": 1}]}, {"a": True}) == ["enum:p"]
    assert errors_for_value({"enum": [{"a": 1}]}, {"a": 1, "b": 2}) == ["enum:p"]
    assert errors_for_value({"enum": [None]}, None) == []
    assert errors_for_value({"enum": ["1"]}, 1) == ["enum:p"]
    assert errors_for_value({"enum": [2**70]}, float(2**70)) == []


def test_2_enum_values_may_be_unhashable():
    spec = {"enum": [[1], {"k": [1, {"x": None}]}, "s"]}
    assert errors_for_value(spec, {"k": [1, {"x": None}]}) == []
    assert errors_for_value(spec, {"k": [1, {"x": 0}]}) == ["enum:p"]
    assert errors_for_value(spec, [1]) == []
    assert errors_for_value(spec, "s") == []


def test_2_nan_equals_nothing():
    nan = float("nan")
    assert errors_for_value({"enum": [nan]}, nan) == ["enum:p"]


def test_3_integer_and_number_boundaries():
    assert errors_for_value({"type": "integer"}, 1.0) == ["type:p"]
    assert errors_for_value({"type": "integer"}, 1) == []
    assert errors_for_value({"type": "number"}, 1) == []
    assert errors_for_value({"type": "number"}, 1.0) == []
    assert errors_for_value({"type": "boolean"}, 1) == ["type:p"]


def test_4_null_and_lists_of_type_names():
    spec = {"type": ["string", "null"]}
    assert errors_for_value(spec, None) == []
    assert errors_for_value(spec, "x") == []
    assert errors_for_value(spec, 1) == ["type:p"]
    assert errors_for_value({"type": ["integer", "boolean"]}, True) == []
    assert errors_for_value({"type": ["integer"]}, 1.0) == ["type:p"]
    assert errors_for_value({"type": []}, "anything") == ["type:p"]


@pytest.mark.parametrize(
    "declared", ["str", "String", "float", "dict", None, 5, ["string", "any"], {"a": 1}]
)
def test_4_unknown_type_names_are_schema_defects(declared):
    schemas = {"tool_x": {"parameters": {"properties": {"param_y": {"type": declared}}}}}
    with pytest.raises(SchemaError) as compiled:
        compile_schemas(schemas)
    assert compiled.value.tool == "tool_x"
    assert compiled.value.parameter == "param_y"
    message = str(compiled.value)
    assert "tool_x" in message and "param_y" in message and "type" in message
    with pytest.raises(SchemaError) as validated:
        validate_tool_call(schemas, {"name": "tool_x", "arguments": {}})
    assert str(validated.value) == message


def test_5_a_schema_that_declares_nothing():
    for schema in [{}, {"parameters": {}}, {"parameters": {"type": "object"}}]:
        schemas = {"t": schema}
        assert errors_of(schemas, {"name": "t", "arguments": {}}) == []
        assert errors_of(schemas, {"name": "t"}) == []
        assert errors_of(schemas, {"name": "t", "arguments": {"a": 1}}) == ["unexpected:a"]


def test_5_a_name_required_twice_gives_one_error():
    schemas = {"t": {"parameters": {"properties": {"a": {}}, "required": ["a", "a"]}}}
    assert errors_of(schemas, {"name": "t", "arguments": {}}) == ["missing:a"]


def test_5_required_but_undeclared():
    schemas = {"t": {"parameters": {"properties": {}, "required": ["ghost"]}}}
    assert errors_of(schemas, {"name": "t", "arguments": {}}) == ["missing:ghost"]
    assert errors_of(schemas, {"name": "t", "arguments": {"ghost": 1}}) == ["unexpected:ghost"]


def test_6_a_call_without_arguments_has_none():
    assert errors_of(WEATHER, {"name": "get_weather"}) == ["missing:city"]
    assert errors_of({"t": {}}, {"name": "t"}) == []


@pytest.mark.parametrize(
    "call",
    [
        {},
        {"arguments": {}},
        {"name": None},
        {"name": 3},
        {"name": ["get_weather"]},
        None,
        "get_weather",
        [],
        7,
    ],
)
def test_6_a_call_without_a_string_name_is_malformed(call):
    assert validate_tool_call(WEATHER, call) == {"ok": False, "errors": ["malformed:name"]}


@pytest.mark.parametrize("arguments", [None, [], "{}", '{"city": "P"}', 1, True, ("city", "P")])
def test_6_arguments_that_are_not_an_object_are_malformed(arguments):
    assert validate_tool_call(WEATHER, {"name": "get_weather", "arguments": arguments}) == {
        "ok": False,
        "errors": ["malformed:arguments"],
    }


def test_6_the_unknown_tool_check_comes_first():
    assert errors_of(WEATHER, {"name": "nope", "arguments": "broken"}) == ["unknown_tool:nope"]


def test_7_mappings_and_tuples_from_python_callers():
    call = OrderedDict(name="get_weather", arguments=OrderedDict(city="P", days=2))
    assert errors_of(WEATHER, call) == []
    schemas = one_param({"type": "object"})
    assert errors_of(schemas, {"name": "t", "arguments": {"p": OrderedDict()}}) == []
    assert errors_for_value({"type": "array"}, (1, 2)) == []
    assert errors_for_value({"type": "integer"}, IntEnum("E", "A").A) == []
    assert errors_for_value({"type": "number", "enum": [1]}, IntEnum("E", "A").A) == []


def test_7_bool_subclass_rules_hold_through_mappings():
    call = OrderedDict(name="get_weather", arguments=OrderedDict(city="P", days=True))
    assert errors_of(WEATHER, call) == ["type:days"]


@pytest.mark.parametrize(
    ("schema", "parameter", "words"),
    [
        ("not a schema", None, "schema must be an object"),
        ({"parameters": []}, None, "parameters must be an object"),
        ({"parameters": None}, None, "parameters must be an object"),
        ({"parameters": {"properties": ["a"]}}, None, "properties must be an object"),
        ({"parameters": {"required": "a"}}, None, "required must be an array"),
        ({"parameters": {"required": ["a", 1]}}, None, "not a string"),
        ({"parameters": {"properties": {"a": "string"}}}, "a", "must be an object"),
        ({"parameters": {"properties": {"a": {"enum": "xy"}}}}, "a", "enum must be an array"),
        ({"parameters": {"properties": {"a": {"enum": None}}}}, "a", "enum must be an array"),
    ],
)
def test_8_malformed_schemas_are_rejected_when_compiled(schema, parameter, words):
    with pytest.raises(SchemaError) as raised:
        compile_schemas({"broken_tool": schema, "fine": {}})
    assert raised.value.tool == "broken_tool"
    assert raised.value.parameter == parameter
    assert words in str(raised.value)
    assert "broken_tool" in str(raised.value)
    assert isinstance(raised.value, ToolAuditError) and isinstance(raised.value, ValueError)


def test_schemas_that_are_not_a_mapping_are_rejected():
    with pytest.raises(SchemaError):
        compile_schemas([{"name": "t"}])


# -- the compiled validator ----------------------------------------------------


def test_compiled_validator_agrees_with_the_contract_and_is_reusable():
    validator = compile_schemas(WEATHER)
    calls = [
        {"name": "get_weather", "arguments": {"city": "P"}},
        {"name": "get_weather", "arguments": {"days": True, "tz": "UTC"}},
        {"name": "x"},
        {"name": "get_weather", "arguments": {"city": "P", "units": ["c"]}},
    ]
    for call in calls * 3:
        assert validator.validate(call) == validate_tool_call(WEATHER, call)


def test_compiling_does_not_execute_or_import_anything_from_a_schema():
    hostile = {
        "__import__('os').system('false')": {
            "parameters": {
                "properties": {
                    "x": {
                        "type": "string",
                        "enum": ["__import__('os')", "${HOME}", "{0.__class__}"],
                    },
                }
            }
        }
    }
    validator = compile_schemas(hostile)
    name = next(iter(hostile))
    assert validator.validate({"name": name, "arguments": {"x": "{0.__class__}"}})["ok"]
    assert validator.validate({"name": name, "arguments": {"x": "y"}})["errors"] == ["enum:x"]


def test_enum_values_of_subclasses_from_python_callers_compare_as_json():
    class Label(str):
        pass

    assert errors_for_value({"enum": [Label("x")]}, "x") == []
    assert errors_for_value({"enum": ["x"]}, Label("x")) == []
    assert errors_for_value({"enum": [IntEnum("E", "A").A]}, 1) == []
    assert errors_for_value({"enum": [IntEnum("E", "A").A]}, True) == ["enum:p"]
