"""Deep mode, rule by rule: expectations derived from the issue's rules, not from the code.

Each test is named after the rule it checks (``test_rule3_...``). Most cases wrap the schema
under test as one argument ``x`` of a tool ``t``, so that an error at the value is ``...:x``
and one inside it ``...:x.v``, ``...:x[0]``.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import orjson
import pytest
from jsonschema import Draft202012Validator

from toolaudit import SchemaError, compile_schemas, validate_tool_call
from toolaudit.deep import inspect_parameters

TOOL = "t"


def tool(parameters, name=TOOL):
    return {name: {"parameters": parameters}}


def run(parameters, arguments, **options):
    result = validate_tool_call(
        tool(parameters), {"name": TOOL, "arguments": arguments}, deep=True, **options
    )
    assert result["ok"] is (not result["errors"])
    return result


def errors(parameters, arguments):
    return run(parameters, arguments)["errors"]


def params_of(spec, defs=None):
    """The parameters of a tool whose one, required argument ``x`` is declared by ``spec``."""
    parameters = {"type": "object", "properties": {"x": spec}, "required": ["x"]}
    if defs is not None:
        parameters["$defs"] = defs
    return parameters


def arg(spec, value, defs=None):
    """The deep errors of ``{"x": value}`` with ``x`` declared by ``spec``."""
    return errors(params_of(spec, defs), {"x": value})


def inner(spec, value, defs=None):
    """The deep errors of ``value`` as the key ``v`` of the object argument ``x``."""
    return arg({"type": "object", "properties": {"v": spec}}, {"v": value}, defs)


def plain(parameters, arguments):
    """The contract's result (no deep mode)."""
    return validate_tool_call(tool(parameters), {"name": TOOL, "arguments": arguments})


# -- rule 1: the top level is the contract -------------------------------------------------


def test_rule1_argument_with_a_contract_error_is_not_looked_into():
    parameters = {
        "type": "object",
        "properties": {
            "o": {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "required": ["b"],
            },
            "e": {
                "type": "object",
                "enum": [{"a": 1}],
                "properties": {"a": {"type": "string"}},
                "minProperties": 5,
            },
        },
    }
    # o is not an object, e is not in its enum: the contract's errors alone, nothing inside.
    assert errors(parameters, {"o": [1], "e": {"a": 2}}) == ["enum:e", "type:o"]
    # The same arguments accepted by the contract are looked into.
    assert errors(parameters, {"o": {"a": "s"}, "e": {"a": 1}}) == [
        "constraint:e",
        "missing:o.b",
        "type:o.a",
    ]


def test_rule1_contract_errors_plus_what_is_found_in_the_other_arguments():
    parameters = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "object", "properties": {"c": {"type": "string"}}},
            "days": {"type": "integer", "minimum": 1},
        },
        "required": ["r"],
    }
    arguments = {"a": "x", "b": {"c": 1}, "days": 0, "z": 1}
    assert plain(parameters, arguments)["errors"] == ["missing:r", "type:a", "unexpected:z"]
    assert errors(parameters, arguments) == [
        "constraint:days",
        "missing:r",
        "type:a",
        "type:b.c",
        "unexpected:z",
    ]


def test_rule1_an_undeclared_argument_is_unexpected_whatever_additional_properties_says():
    for additional in ({"type": "integer"}, True):
        parameters = {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "additionalProperties": additional,
        }
        # The contract's rule: not declared under properties is unexpected, and not looked into.
        assert errors(parameters, {"a": 1, "b": "s"}) == ["unexpected:b"]
        assert plain(parameters, {"a": 1, "b": "s"})["errors"] == ["unexpected:b"]


def test_rule1_top_level_combinators_and_constraints_are_not_applied():
    parameters = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "minProperties": 3,
        "maxProperties": 0,
        "allOf": [{"required": ["zz"]}, {"properties": {"a": {"type": "string"}}}],
        "anyOf": [{"required": ["yy"]}],
    }
    assert errors(parameters, {"a": 1}) == []


def test_rule1_top_level_ref_is_not_applied():
    parameters = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "$ref": "#/$defs/R",
        "$defs": {"R": {"required": ["ww"], "properties": {"a": {"type": "string"}}}},
    }
    assert errors(parameters, {"a": 1}) == []


# -- rule 2: the order of the checks --------------------------------------------------------


def test_rule2_type_before_enum():
    assert inner({"type": "string", "enum": ["a"]}, 5) == ["type:x.v"]
    assert inner({"type": "string", "enum": ["a"]}, "b") == ["enum:x.v"]


def test_rule2_enum_before_constraints_and_const_is_enum():
    spec = {"enum": ["a", "bb"], "minLength": 2}
    assert inner(spec, "c") == ["enum:x.v"]
    assert inner(spec, "a") == ["constraint:x.v"]
    assert inner(spec, "bb") == []
    assert inner({"const": "a", "minLength": 5}, "b") == ["enum:x.v"]
    assert inner({"const": "abcdef", "minLength": 5}, "abcdef") == []


def test_rule2_constraints_before_combinators():
    spec = {"type": "string", "minLength": 5, "anyOf": [{"type": "integer"}]}
    assert inner(spec, "ab") == ["constraint:x.v"]
    assert inner(spec, "abcdef") == ["type:x.v"]


def test_rule2_combinators_before_children_and_a_failing_value_is_not_looked_into():
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["m"],
        "anyOf": [{"type": "array"}],
    }
    assert inner(spec, {"a": "s"}) == ["type:x.v"]
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["m"],
        "minProperties": 3,
    }
    assert inner(spec, {"a": "s"}) == ["constraint:x.v"]
    spec = {"type": "array", "items": {"type": "string"}, "enum": [["a"]]}
    assert inner(spec, [1]) == ["enum:x.v"]
    assert inner({"type": "array", "items": {"type": "string"}, "maxItems": 0}, [1]) == [
        "constraint:x.v"
    ]


def test_rule2_children_are_checked_when_the_value_passes():
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["m"],
        "anyOf": [{"type": "object"}],
    }
    assert inner(spec, {"a": "s"}) == ["missing:x.v.m", "type:x.v.a"]


@pytest.mark.parametrize(
    ("spec", "value", "ok"),
    [
        ({"type": "integer"}, True, False),
        ({"type": "integer"}, 1.0, False),
        ({"type": "integer"}, 1, True),
        ({"type": "integer"}, 10**30, True),
        ({"type": "number"}, True, False),
        ({"type": "number"}, 1, True),
        ({"type": "number"}, 1.5, True),
        ({"type": "boolean"}, 0, False),
        ({"type": "boolean"}, False, True),
        ({"type": "string"}, 1, False),
        ({"type": "null"}, None, True),
        ({"type": "null"}, 0, False),
        ({"type": "null"}, "", False),
        ({"type": ["string", "null"]}, None, True),
        ({"type": ["string", "null"]}, 1, False),
        ({"type": ["integer", "boolean"]}, 1.5, False),
        ({"type": ["number"]}, False, False),
        ({"type": "array"}, (1, 2), True),
        ({"type": "array"}, {"a": 1}, False),
        ({"type": "object"}, OrderedDict(a=1), True),
        ({"type": "object"}, [], False),
        ({"type": []}, None, False),
    ],
)
def test_rule2_type_names_mean_what_they_mean_in_the_contract_at_every_depth(spec, value, ok):
    assert inner(spec, value) == ([] if ok else ["type:x.v"])
    deeper = {"type": "array", "items": {"type": "object", "properties": {"w": spec}}}
    assert inner(deeper, [{"w": value}]) == ([] if ok else ["type:x.v[0].w"])


@pytest.mark.parametrize(
    ("spec", "value", "ok"),
    [
        ({"enum": [1]}, 1.0, True),
        ({"enum": [1]}, True, False),
        ({"enum": [0]}, False, False),
        ({"enum": [False]}, 0, False),
        ({"enum": [None]}, None, True),
        ({"enum": [[1, {"a": 2.0}]]}, [1.0, {"a": 2}], True),
        ({"enum": [[1, {"a": 2.0}]]}, [True, {"a": 2}], False),
        ({"enum": [[1, 2]]}, [2, 1], False),
        ({"enum": [{"a": 1, "b": 2}]}, OrderedDict(b=2, a=1), True),
        ({"enum": [{"a": 1}]}, {"a": 1, "b": 2}, False),
        ({"const": {"a": [1]}}, {"a": [1.0]}, True),
        ({"const": {"a": [1]}}, {"a": [True]}, False),
        ({"const": False}, 0, False),
        ({"const": None}, None, True),
        ({"const": "a"}, "a", True),
        ({"const": 2}, 2.0, True),
        ({"const": [1]}, (1,), True),
    ],
)
def test_rule2_enum_and_const_use_json_equality(spec, value, ok):
    assert inner(spec, value) == ([] if ok else ["enum:x.v"])


# -- rule 3: objects and arrays ------------------------------------------------------------


def test_rule3_missing_and_declared_keys_at_depth():
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "required": ["a", "c"],
    }
    assert arg(spec, {"b": 1}) == ["missing:x.a", "missing:x.c", "type:x.b"]
    assert arg(spec, {"a": 1, "c": None}) == ["unexpected:x.c"]


def test_rule3_additional_properties_schema_true_false_and_absent():
    declared = {"a": {"type": "integer"}}
    with_schema = {"properties": declared, "additionalProperties": {"type": "string"}}
    assert arg(with_schema, {"a": 1, "b": 2, "c": "s"}) == ["type:x.b"]
    with_true = {"properties": declared, "additionalProperties": True}
    assert arg(with_true, {"a": 1, "b": 2}) == []
    with_false = {"properties": declared, "additionalProperties": False}
    assert arg(with_false, {"a": 1, "b": 2}) == ["unexpected:x.b"]
    absent = {"properties": declared}
    assert arg(absent, {"a": 1, "b": 2}) == ["unexpected:x.b"]
    # additionalProperties without properties applies to every key.
    assert arg({"additionalProperties": {"type": "string"}}, {"a": 1, "b": "s"}) == ["type:x.a"]
    assert arg({"additionalProperties": False}, {"a": 1}) == ["unexpected:x.a"]


def test_rule3_required_alone_does_not_make_other_keys_unexpected():
    assert arg({"type": "object", "required": ["a"]}, {"a": 1, "b": 2}) == []
    assert arg({"type": "object", "required": ["a"]}, {"b": 2}) == ["missing:x.a"]


def test_rule3_a_spec_without_object_keywords_accepts_any_object():
    assert arg({"type": "object"}, {"anything": [1, {"at": "all"}]}) == []
    assert arg({}, {"anything": 1}) == []
    assert arg({"type": "object", "minProperties": 1}, {"anything": 1}) == []


def test_rule3_object_keywords_apply_only_to_mappings():
    spec = {"properties": {"a": {"type": "integer"}}, "required": ["a"]}
    for value in (5, "s", [1], None):
        assert arg(spec, value) == []
    assert arg(spec, OrderedDict(a="s")) == ["type:x.a"]


def test_rule3_items_that_is_not_a_schema_is_not_applied():
    # The array form (draft 7's tuple validation) is not a schema: nothing to check by.
    assert arg({"type": "array", "items": [{"type": "string"}]}, [1, 2]) == []


def test_rule3_items_checks_each_element():
    spec = {"type": "array", "items": {"type": "integer"}}
    assert arg(spec, [1, "a", 2, True, 3.0]) == ["type:x[1]", "type:x[3]", "type:x[4]"]
    assert arg(spec, []) == []
    assert arg(spec, (1, "a")) == ["type:x[1]"]
    # items on a value that is not an array is not applied.
    assert arg({"items": {"type": "integer"}}, {"0": "a"}) == []
    assert arg({"type": "array", "items": True}, [1, "a"]) == []
    nested = {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}
    assert arg(nested, [["a"], ["b", 1]]) == ["type:x[1][1]"]


# -- rule 4: constraints -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "value", "ok"),
    [
        ({"minimum": 5}, 5, True),
        ({"minimum": 5}, 4, False),
        ({"minimum": 5}, 4.99, False),
        ({"maximum": 5}, 5, True),
        ({"maximum": 5}, 5.5, False),
        ({"exclusiveMinimum": 5}, 5, False),
        ({"exclusiveMinimum": 5}, 5.1, True),
        ({"exclusiveMaximum": 5}, 5, False),
        ({"exclusiveMaximum": 5}, 4.9, True),
        # draft 4's boolean form
        ({"minimum": 5, "exclusiveMinimum": True}, 5, False),
        ({"minimum": 5, "exclusiveMinimum": True}, 6, True),
        ({"minimum": 5, "exclusiveMinimum": False}, 5, True),
        ({"maximum": 5, "exclusiveMaximum": True}, 5, False),
        ({"maximum": 5, "exclusiveMaximum": True}, 4, True),
        ({"maximum": 5, "exclusiveMaximum": False}, 5, True),
        ({"multipleOf": 2}, 8, True),
        ({"multipleOf": 2}, 7, False),
        ({"multipleOf": 2}, 7.5, False),
        ({"multipleOf": 2.5}, 10, True),
        ({"multipleOf": 2.5}, 11, False),
        ({"multipleOf": 1.5}, 4.5, True),
        # decided: decimal numbers as written
        ({"multipleOf": 0.0001}, 0.0075, True),
        ({"multipleOf": 0.0001}, 0.00751, False),
        ({"multipleOf": 0.1}, 0.3, True),
        ({"multipleOf": 0.01}, 19.99, True),
        ({"multipleOf": 0.01}, 19.999, False),
        ({"minLength": 2}, "a", False),
        ({"minLength": 2}, "ab", True),
        ({"maxLength": 2}, "abc", False),
        # code points, not UTF-16 units nor bytes
        ({"maxLength": 2}, "\U0001f600\U0001f600", True),
        ({"minLength": 3}, "\U0001f600\U0001f600", False),
        ({"maxLength": 1}, "\u00e9", True),
        ({"minLength": 2}, "e\u0301", True),
        # unanchored search
        ({"pattern": "b"}, "abc", True),
        ({"pattern": "^b"}, "abc", False),
        ({"pattern": "c$"}, "abc", True),
        ({"pattern": "^a.c$"}, "abbc", False),
        ({"minItems": 2}, [1], False),
        ({"minItems": 2}, [1, 2], True),
        ({"maxItems": 1}, [1, 2], False),
        ({"uniqueItems": True}, [1, 1.0], False),
        ({"uniqueItems": True}, [1, True], True),
        ({"uniqueItems": True}, [0, False], True),
        ({"uniqueItems": True}, [{"a": 1}, {"a": 1.0}], False),
        ({"uniqueItems": True}, [{"a": 1, "b": 2}, {"b": 2, "a": 1}], False),
        ({"uniqueItems": True}, [[1], [True]], True),
        ({"uniqueItems": True}, [[1, 2], [2, 1]], True),
        ({"uniqueItems": True}, ["a", "b", "a"], False),
        ({"uniqueItems": True}, [None, None], False),
        ({"uniqueItems": False}, [1, 1], True),
        ({"minProperties": 2}, {"a": 1}, False),
        ({"minProperties": 1}, {"a": 1}, True),
        ({"maxProperties": 1}, {"a": 1, "b": 2}, False),
        # only values of their kind
        ({"minimum": 5}, "abc", True),
        ({"minimum": 5}, True, True),
        ({"maximum": 0}, [1, 2], True),
        ({"multipleOf": 2}, "3", True),
        ({"minLength": 5}, 3, True),
        ({"maxLength": 1}, ["abc", "def"], True),
        ({"pattern": "^a"}, 5, True),
        ({"minItems": 2}, {"a": 1}, True),
        ({"maxItems": 0}, "abc", True),
        ({"uniqueItems": True}, "aa", True),
        ({"minProperties": 2}, [1], True),
        ({"maxProperties": 0}, "abc", True),
        # format is an annotation
        ({"format": "email"}, "not an email", True),
        ({"format": "date-time"}, "yesterday", True),
        ({"format": "ipv4"}, "999.1", True),
        ({"format": "uuid"}, "x", True),
    ],
)
def test_rule4_constraints(spec, value, ok):
    assert arg(spec, value) == ([] if ok else ["constraint:x"])
    assert inner(spec, value) == ([] if ok else ["constraint:x.v"])


def test_rule4_multiple_of_a_float_for_a_very_large_integer():
    assert arg({"multipleOf": 0.5}, 10**700) == []
    assert arg({"multipleOf": 0.5}, 10**900) == []
    assert arg({"multipleOf": 0.5}, 10**900 + 1) == []
    assert arg({"multipleOf": 2.5}, 10**900 + 1) == ["constraint:x"]


def test_rule4_one_constraint_error_per_value_however_many_fail():
    spec = {"type": "string", "minLength": 5, "maxLength": 1, "pattern": "z"}
    assert arg(spec, "abc") == ["constraint:x"]
    spec = {"type": "array", "minItems": 5, "uniqueItems": True, "items": {"type": "string"}}
    assert arg(spec, [1, 1]) == ["constraint:x"]


def test_rule4_constraint_on_the_argument_itself():
    parameters = {"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}}
    assert errors(parameters, {"days": 0}) == ["constraint:days"]
    assert errors(parameters, {"days": 1}) == []
    assert plain(parameters, {"days": 0}) == {"ok": True, "errors": []}


# -- rule 5: references and combinators ----------------------------------------------------


def test_rule5_refs_to_defs_definitions_and_properties():
    parameters = {
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 3},
            "b": {"type": "array", "items": {"$ref": "#/properties/a"}},
            "c": {"$ref": "#/$defs/S"},
            "d": {"$ref": "#/definitions/N"},
        },
        "$defs": {"S": {"type": "string", "maxLength": 1}},
        "definitions": {"N": {"type": "null"}},
    }
    arguments = {"a": 3, "b": [5, 1, "s"], "c": "ss", "d": 0}
    assert errors(parameters, arguments) == [
        "constraint:b[1]",
        "constraint:c",
        "type:b[2]",
        "type:d",
    ]
    assert errors(parameters, {"a": 3, "b": [5], "c": "s", "d": None}) == []


def test_rule5_ref_to_the_root_recursive():
    parameters = {
        "type": "object",
        "properties": {"v": {"type": "integer"}, "next": {"$ref": "#"}},
    }
    assert errors(parameters, {"v": 1, "next": {"v": 2, "next": {"v": "x"}}}) == [
        "type:next.next.v"
    ]
    # At depth, the root's properties make other keys unexpected (rule 3).
    assert errors(parameters, {"next": {"zz": 1}}) == ["unexpected:next.zz"]
    assert errors(parameters, {"next": {"next": {}}}) == []


def test_rule5_recursive_tree_through_defs():
    parameters = params_of(
        {"$ref": "#/$defs/Node"},
        defs={
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["value"],
                "additionalProperties": False,
            }
        },
    )
    tree = {
        "value": 1,
        "children": [
            {"value": 2, "children": []},
            {"value": 3, "children": [{"value": "x"}, {"children": [], "k": 1}]},
        ],
    }
    assert errors(parameters, {"x": tree}) == [
        "missing:x.children[1].children[1].value",
        "type:x.children[1].children[0].value",
        "unexpected:x.children[1].children[1].k",
    ]
    assert errors(parameters, {"x": {"value": 1, "children": [{"value": 2}]}}) == []


def test_rule5_json_pointer_escaping():
    defs = {
        "a/b": {"const": "a/b"},
        "c~d": {"const": "c~d"},
        "e%f": {"const": "e%f"},
        "g h": {"const": "g h"},
        "~1": {"const": "~1"},
        "\u00e9": {"const": "\u00e9"},
        'q"t': {"const": 'q"t'},
    }
    refs = {
        "p0": "#/$defs/a~1b",
        "p1": "#/$defs/c~0d",
        "p2": "#/$defs/e%25f",
        "p3": "#/$defs/g%20h",
        "p4": "#/$defs/~01",
        "p5": "#/$defs/%C3%A9",
        "p6": "#/$defs/q%22t",
        # percent-decoded first, then unescaped: %7E1 is ~1, which is /
        "p7": "#/$defs/a%7E1b",
        "p8": "#/$defs/c%7E0d",
    }
    expected = {"p0": "a/b", "p1": "c~d", "p2": "e%f", "p3": "g h", "p4": "~1"}
    expected |= {"p5": "\u00e9", "p6": 'q"t', "p7": "a/b", "p8": "c~d"}
    parameters = {
        "type": "object",
        "properties": {name: {"$ref": ref} for name, ref in refs.items()},
        "$defs": defs,
    }
    assert errors(parameters, expected) == []
    assert errors(parameters, dict.fromkeys(refs, "nope")) == [f"enum:{name}" for name in refs]


def test_rule5_percent_decoding_comes_before_splitting_the_pointer():
    # "%2F" decodes to "/", a separator of the pointer: /$defs/a/b, not the key "a/b".
    parameters = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/a%2Fb"}},
        "$defs": {"a/b": {"type": "string"}, "a": {"b": {"type": "integer"}}},
    }
    assert errors(parameters, {"p": 1}) == []
    assert errors(parameters, {"p": "s"}) == ["type:p"]


@pytest.mark.parametrize("index", ["01", "\u0661"])
def test_rule5_an_array_index_that_is_not_rfc_6901s_points_at_nothing(index):
    defs = {"L": [{"type": "integer"}, {"type": "string"}]}
    with pytest.raises(SchemaError):
        compile_schemas(tool(params_of({"$ref": f"#/$defs/L/{index}"}, defs)), deep=True)


def test_rule5_an_array_index_in_a_pointer():
    defs = {"L": [{"type": "integer"}, {"type": "string"}]}
    assert arg({"$ref": "#/$defs/L/1"}, 5, defs) == ["type:x"]
    assert arg({"$ref": "#/$defs/L/0"}, 5, defs) == []
    for index in ("2", "-", "+1", "1.0"):
        with pytest.raises(SchemaError):
            compile_schemas(tool(params_of({"$ref": f"#/$defs/L/{index}"}, defs)), deep=True)


@pytest.mark.parametrize(
    "ref",
    [
        "other.json#/x",
        "other.json",
        "#foo",
        "https://example.com/schema.json#/$defs/a",
        "#/$defs/absent",
        "#/properties/nowhere",
    ],
)
def test_rule5_any_other_ref_is_a_schema_defect_naming_the_tool_and_the_path(ref):
    schemas = {
        "my_tool": {
            "parameters": {
                "type": "object",
                "properties": {
                    "where_param": {"type": "object", "properties": {"inner": {"$ref": ref}}}
                },
                "$defs": {"a": {}},
            }
        }
    }
    call = {"name": "my_tool", "arguments": {"where_param": {"inner": 1}}}
    with pytest.raises(SchemaError) as raised:
        validate_tool_call(schemas, call, deep=True)
    message = str(raised.value)
    assert "my_tool" in message
    assert "where_param" in message
    assert "inner" in message
    with pytest.raises(SchemaError):
        compile_schemas(schemas, deep=True)
    # The contract does not look inside arguments: the same schemas are fine without deep.
    assert validate_tool_call(schemas, call) == {"ok": True, "errors": []}


def test_rule5_a_defect_in_another_tool_raises_whichever_tool_is_called():
    schemas = {
        "good": {"parameters": {"type": "object", "properties": {"a": {"type": "string"}}}},
        "bad": {"parameters": {"type": "object", "properties": {"b": {"$ref": "x.json"}}}},
    }
    with pytest.raises(SchemaError) as raised:
        validate_tool_call(schemas, {"name": "good", "arguments": {"a": "s"}}, deep=True)
    assert "bad" in str(raised.value)


def test_rule5_keywords_beside_a_ref_apply_too():
    defs = {"I": {"type": "integer"}}
    spec = {"$ref": "#/$defs/I", "minimum": 5}
    assert inner(spec, 3, defs) == ["constraint:x.v"]
    assert inner(spec, "a", defs) == ["type:x.v"]
    assert inner(spec, 7, defs) == []
    assert inner({"$ref": "#/$defs/I", "enum": [1, 2]}, 3, defs) == ["enum:x.v"]


def test_rule5_any_of_accepts_a_value_one_branch_accepts_at_every_depth():
    spec = {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {}}}}},
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"a": {"type": "string"}}},
        ]
    }
    assert inner(spec, {"a": 1}) == []
    assert inner(spec, {"a": "s"}) == []
    assert inner(spec, {"a": {"b": 1}}) == []
    # Only the first branch reaches {"a": {"c": 1}}, and finds c unexpected inside a.
    assert inner(spec, {"a": {"c": 1}}) == ["unexpected:x.v.a.c"]
    assert inner(spec, {"a": None}) == ["type:x.v.a"]


def test_rule5_any_of_type_error_when_no_branch_admits_the_type():
    spec = {"anyOf": [{"type": "string", "minLength": 5}, {"type": "integer", "minimum": 9}]}
    assert inner(spec, True) == ["type:x.v"]
    assert inner(spec, [1]) == ["type:x.v"]
    assert inner(spec, "abc") == ["constraint:x.v"]
    assert inner(spec, 3) == ["constraint:x.v"]
    assert inner(spec, 10) == []


def test_rule5_any_of_reports_the_first_branch_whose_type_admits_the_value():
    spec = {
        "anyOf": [
            {"type": "string"},
            {"type": "object", "required": ["a"]},
            {"type": "object", "required": ["b"]},
        ]
    }
    assert inner(spec, {}) == ["missing:x.v.a"]
    assert inner(spec, {"b": 1}) == []
    assert inner(spec, 1) == ["type:x.v"]


def test_rule5_a_ref_branch_has_the_type_of_its_target():
    defs = {"S": {"type": "string", "minLength": 3}}
    spec = {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "integer", "minimum": 10}]}
    assert inner(spec, 5, defs) == ["constraint:x.v"]
    assert inner(spec, "ab", defs) == ["constraint:x.v"]
    assert inner(spec, True, defs) == ["type:x.v"]
    # The target's type, whatever it says, decides: an object target does not admit 5.
    defs = {"O": {"type": "object", "required": ["q"]}}
    spec = {"anyOf": [{"$ref": "#/$defs/O"}, {"type": "integer", "maximum": 0}]}
    assert inner(spec, 5, defs) == ["constraint:x.v"]
    assert inner(spec, {}, defs) == ["missing:x.v.q"]


def test_rule5_a_branch_without_type_admits_every_type():
    spec = {"anyOf": [{"type": "string"}, {"required": ["a"]}]}
    assert inner(spec, {}) == ["missing:x.v.a"]
    assert inner(spec, 5) == []
    spec = {"anyOf": [{"type": "string", "maxLength": 1}, {"minimum": 10}]}
    assert inner(spec, 5) == ["constraint:x.v"]
    # The untyped branch accepts any string (minimum is for numbers).
    assert inner(spec, "ab") == []


def test_rule5_one_of_is_any_of():
    spec = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert inner(spec, 5) == []
    assert inner(spec, "s") == ["type:x.v"]
    spec = {"oneOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]}
    assert inner(spec, {}) == ["missing:x.v.a"]


def test_rule5_all_of_applies_every_branch():
    spec = {"allOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]}
    assert inner(spec, {}) == ["missing:x.v.a", "missing:x.v.b"]
    assert inner({"allOf": [{"minimum": 5}, {"maximum": 3}]}, 4) == ["constraint:x.v"]
    assert inner({"allOf": [{"minimum": 5}, {"type": "string"}]}, 6) == ["type:x.v"]
    assert inner({"allOf": [{"minimum": 5}, {"multipleOf": 2}]}, 6) == []


def test_rule5_all_of_keeps_the_first_error_at_each_path():
    spec = {
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "string"}}},
            {"properties": {"a": {"enum": ["z"]}}},
        ],
    }
    assert inner(spec, {"a": 5}) == ["type:x.v.a"]
    assert inner(spec, {"a": "s"}) == ["enum:x.v.a"]
    assert inner(spec, {"a": "z"}) == []


def test_rule5_all_of_errors_come_before_the_parents_children_at_a_path():
    # The allOf branch is checked before the children (rule 2), and the first error at a path
    # is the one kept.
    spec = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "allOf": [{"properties": {"a": {"enum": ["abc"]}}}],
    }
    assert inner(spec, {"a": "xyz"}) == ["enum:x.v.a"]


def test_rule5_inheritance_through_all_of():
    defs = {
        "Base": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        }
    }
    spec = {
        "type": "object",
        "allOf": [{"$ref": "#/$defs/Base"}],
        "properties": {"extra": {"type": "integer"}},
    }
    assert inner(spec, {"id": "i", "extra": 1}, defs) == []
    assert inner(spec, {"id": "i", "extra": 1, "zz": 1}, defs) == ["unexpected:x.v.zz"]
    assert inner(spec, {"extra": 1}, defs) == ["missing:x.v.id"]
    assert inner(spec, {"id": 1}, defs) == ["type:x.v.id"]
    assert inner(spec, {"id": "i", "extra": "e"}, defs) == ["type:x.v.extra"]
    # Declared by the parent's additionalProperties: false does not make them unexpected.
    strict = {**spec, "additionalProperties": False}
    assert inner(strict, {"id": "i", "extra": 1}, defs) == []
    assert inner(strict, {"id": "i", "zz": 1}, defs) == ["unexpected:x.v.zz"]


def test_rule5_names_declared_through_nested_all_of_and_refs():
    defs = {
        "A": {"allOf": [{"properties": {"deep": {"type": "integer"}}}]},
        "B": {"$ref": "#/$defs/A"},
    }
    spec = {
        "type": "object",
        "properties": {"own": {}},
        "allOf": [{"allOf": [{"properties": {"nested": {}}}]}, {"$ref": "#/$defs/B"}],
    }
    assert inner(spec, {"own": 1, "nested": 1, "deep": 2}, defs) == []
    assert inner(spec, {"deep": "s"}, defs) == ["type:x.v.deep"]
    assert inner(spec, {"other": 1}, defs) == ["unexpected:x.v.other"]


def test_rule5_a_branchs_own_properties_do_not_make_other_keys_unexpected():
    spec = {"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}}]}
    # The parent has no object keywords of its own: any object, a's type from the branch.
    assert inner(spec, {"a": 1, "b": 2}) == []
    assert inner(spec, {"a": "s", "b": 2}) == ["type:x.v.a"]


def test_rule5_a_branchs_explicit_additional_properties_false_does():
    spec = {
        "type": "object",
        "properties": {"b": {}},
        "allOf": [{"properties": {"a": {}}, "additionalProperties": False}],
    }
    assert inner(spec, {"a": 1}) == []
    assert inner(spec, {"a": 1, "b": 2}) == ["unexpected:x.v.b"]


def test_rule5_decided_a_ref_without_object_keywords_is_the_node_itself():
    defs = {"P": {"type": "object", "properties": {"a": {"type": "integer"}}}}
    spec = {"$ref": "#/$defs/P"}
    assert inner(spec, {"a": 1}, defs) == []
    assert inner(spec, {"a": 1, "b": 2}, defs) == ["unexpected:x.v.b"]
    assert inner({"$ref": "#/$defs/P", "minProperties": 1}, {"a": 1, "b": 2}, defs) == [
        "unexpected:x.v.b"
    ]


def test_rule2_a_failing_keyword_beside_a_ref_stops_the_targets_children():
    defs = {
        "A": {"items": {"type": "string"}},
        "P": {"type": "object", "properties": {"a": {}}},
    }
    assert arg({"$ref": "#/$defs/A", "minItems": 3}, [1], defs) == ["constraint:x"]
    assert arg({"$ref": "#/$defs/A", "anyOf": [{"minItems": 3}]}, [1], defs) == ["constraint:x"]
    assert arg({"$ref": "#/$defs/P", "maxProperties": 1}, {"a": 1, "b": 2}, defs) == [
        "constraint:x"
    ]


def test_rule2_a_failing_keyword_beside_a_ref_without_children_of_its_own():
    # The same keywords written out without the $ref: the constraint alone.
    assert arg({"items": {"type": "string"}, "minItems": 3}, [1]) == ["constraint:x"]
    assert arg({"items": {"type": "string"}, "anyOf": [{"minItems": 3}]}, [1]) == ["constraint:x"]
    # And the target's own failing check stops the children written beside the $ref.
    defs = {"A": {"type": "array", "minItems": 3}}
    assert arg({"$ref": "#/$defs/A", "items": {"type": "string"}}, [1], defs) == ["constraint:x"]


def test_rule5_decided_a_ref_beside_object_keywords_is_an_all_of_branch():
    defs = {"P": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}
    spec = {"$ref": "#/$defs/P", "properties": {"c": {"type": "string"}}}
    assert inner(spec, {"a": 1, "c": "s"}, defs) == []
    assert inner(spec, {"a": 1, "c": "s", "b": 1}, defs) == ["unexpected:x.v.b"]
    assert inner(spec, {"c": "s"}, defs) == ["missing:x.v.a"]
    assert inner(spec, {"a": "s", "c": 1}, defs) == ["type:x.v.a", "type:x.v.c"]
    spec = {"$ref": "#/$defs/P", "required": ["c"]}
    # The parent declares no properties (only required): other keys are accepted.
    assert inner(spec, {"a": 1, "c": 0, "b": 1}, defs) == []
    assert inner(spec, {}, defs) == ["missing:x.v.a", "missing:x.v.c"]


def test_rule5_decided_a_ref_as_the_node_itself_with_all_of_declared_names():
    defs = {"P": {"type": "object", "properties": {"a": {}}}}
    spec = {"$ref": "#/$defs/P", "allOf": [{"properties": {"z": {"type": "integer"}}}]}
    # As if P's properties were written in the node: z is declared by the allOf branch.
    inline = {"type": "object", "properties": {"a": {}}, "allOf": spec["allOf"]}
    assert inner(inline, {"a": 1, "z": 1}) == []
    assert inner(spec, {"a": 1, "z": 1}, defs) == []
    assert inner(spec, {"a": 1, "z": "s"}, defs) == ["type:x.v.z"]


def test_rule5_decided_boolean_schemas_nested():
    spec = {"type": "object", "properties": {"t": True, "f": False}}
    assert inner(spec, {"t": [1, {"a": None}]}) == []
    assert inner(spec, {"f": 1}) == ["type:x.v.f"]
    assert inner({"type": "array", "items": False}, [1, 2]) == ["type:x.v[0]", "type:x.v[1]"]
    assert inner({"type": "array", "items": False}, []) == []
    assert inner({"properties": {}, "additionalProperties": False}, {"k": 1}) == [
        "unexpected:x.v.k"
    ]
    assert inner({"additionalProperties": True, "properties": {}}, {"k": 1}) == []
    assert inner({"anyOf": [False, {"type": "string"}]}, "s") == []
    assert inner({"allOf": [True, False]}, "s") == ["type:x.v"]
    assert inner({"$ref": "#/$defs/F"}, 1, {"F": False}) == ["type:x.v"]
    assert inner({"$ref": "#/$defs/T"}, 1, {"T": True}) == []


@pytest.mark.parametrize(
    "defs",
    [
        {"A": {"$ref": "#/$defs/A"}},
        {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
        {"A": {"allOf": [{"$ref": "#/$defs/A"}]}},
        {"A": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]}},
        {
            "A": {"type": "object", "allOf": [{"oneOf": [{"$ref": "#/$defs/B"}]}]},
            "B": {"$ref": "#/$defs/A"},
        },
    ],
)
def test_rule5_decided_a_cycle_that_never_steps_into_the_value_is_a_schema_error(defs):
    with pytest.raises(SchemaError) as raised:
        compile_schemas(tool(params_of({"$ref": "#/$defs/A"}, defs)), deep=True)
    assert TOOL in str(raised.value)


def test_rule5_decided_a_self_ref_of_an_argument_is_a_cycle():
    with pytest.raises(SchemaError):
        compile_schemas(tool(params_of({"$ref": "#/properties/x"})), deep=True)


def test_rule5_a_cycle_through_items_or_properties_steps_into_the_value():
    defs = {"A": {"type": ["array", "string"], "items": {"$ref": "#/$defs/A"}}}
    assert arg({"$ref": "#/$defs/A"}, [[["s", 1]]], defs) == ["type:x[0][0][1]"]
    defs = {"B": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/B"}}]}}
    assert arg({"$ref": "#/$defs/B"}, ["a", ["b", ["c"]]], defs) == []
    assert arg({"$ref": "#/$defs/B"}, ["a", ["b", [1]]], defs) == ["type:x[1][1][0]"]


# -- rule 6: paths -------------------------------------------------------------------------


def test_rule6_the_five_examples():
    parameters = {
        "type": "object",
        "properties": {
            "filters": {"type": "object", "properties": {"date": {"type": "string"}}},
            "passengers": {
                "type": "array",
                "items": {"type": "object", "properties": {"name": {}}, "required": ["name"]},
            },
            "options": {"type": "object", "properties": {"limit": {"type": "integer"}}},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}},
            "a.b": {"type": "object", "properties": {"c": {"type": "integer"}}},
        },
    }
    arguments = {
        "filters": {"date": 20240101},
        "passengers": [{}],
        "options": {"max-results": 5},
        "tags": ["a", "bb", "cccc"],
        "a.b": {"c": "one"},
    }
    assert errors(parameters, arguments) == [
        "constraint:tags[2]",
        "missing:passengers[0].name",
        'type:["a.b"].c',
        "type:filters.date",
        'unexpected:options["max-results"]',
    ]


def test_rule6_a_top_level_error_is_the_contracts_string():
    parameters = {
        "type": "object",
        "properties": {"a.b": {"type": "integer"}, "1st": {"type": "integer", "minimum": 3}},
    }
    assert errors(parameters, {"a.b": "s", "1st": 1}) == ["constraint:1st", "type:a.b"]


@pytest.mark.parametrize(
    ("key", "segment"),
    [
        ("name", ".name"),
        ("_ok9", "._ok9"),
        ("Z", ".Z"),
        ("1a", '["1a"]'),
        ("a b", '["a b"]'),
        ("a-b", '["a-b"]'),
        ("", '[""]'),
        ('q"t', '["q\\"t"]'),
        ("back\\slash", '["back\\\\slash"]'),
        ("new\nline", '["new\\nline"]'),
        ("\u00e9t\u00e9", '["\u00e9t\u00e9"]'),
        ("\u00fcber", '["\u00fcber"]'),
        ("\u65e5\u672c", '["\u65e5\u672c"]'),
        ("0", '["0"]'),
    ],
)
def test_rule6_key_segments(key, segment):
    assert arg({"type": "object", "required": [key]}, {}) == [f"missing:x{segment}"]
    assert arg({"type": "object", "additionalProperties": False}, {key: 1}) == [
        f"unexpected:x{segment}"
    ]
    # The first segment is quoted the same way.
    parameters = {
        "type": "object",
        "properties": {key: {"type": "object", "properties": {"c": {"type": "integer"}}}},
    }
    first = segment[1:] if segment.startswith(".") else segment
    assert errors(parameters, {key: {"c": "s"}}) == [f"type:{first}.c"]


def test_rule6_array_elements_and_mixed_paths():
    spec = {
        "type": "array",
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"k-1": {"type": "integer"}}},
        },
    }
    assert arg(spec, [[], [{"k-1": 1}, {"k-1": "s"}]]) == ['type:x[1][1]["k-1"]']


# -- rule 7: sorted ------------------------------------------------------------------------


def test_rule7_errors_are_sorted():
    parameters = {
        "type": "object",
        "properties": {
            "a": {
                "type": "object",
                "properties": {
                    "z": {"type": "integer"},
                    "b": {"type": "integer"},
                    "c": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["m"],
            },
            "c": {"minimum": 3},
            "b": {"type": "string"},
        },
    }
    arguments = {"q": 1, "b": 1, "c": 1, "a": {"c": [1, "s", 2], "z": "s", "b": "s", "y": 1}}
    found = errors(parameters, arguments)
    assert found == [
        "constraint:c",
        "missing:a.m",
        "type:a.b",
        "type:a.c[0]",
        "type:a.c[2]",
        "type:a.z",
        "type:b",
        "unexpected:a.y",
        "unexpected:q",
    ]
    result = run(parameters, arguments, explain=True)
    assert list(result["why"]) == found


# -- rule 8: JSON Schema's verdict elsewhere -----------------------------------------------


def test_rule8_the_differences_on_purpose():
    cases = [
        # undeclared keys
        ({"type": "object", "properties": {"a": {}}}, {"a": 1, "b": 2}, ["unexpected:x.b"]),
        # 1.0 for an integer
        ({"type": "integer"}, 1.0, ["type:x"]),
        ({"type": "array", "items": {"type": "integer"}}, [2.0], ["type:x[0]"]),
        # oneOf exclusivity
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 5, []),
        # allOf-declared names
        (
            {
                "type": "object",
                "additionalProperties": False,
                "allOf": [{"properties": {"a": {}}}],
            },
            {"a": 1},
            [],
        ),
    ]
    for spec, value, expected in cases:
        # JSON Schema says the opposite.
        assert Draft202012Validator(spec).is_valid(value) is bool(expected)
        assert arg(spec, value) == expected


SUITE = json.loads((Path(__file__).parent / "jsonschema_suite_cases.json").read_text("utf-8"))


def _suite_cases():
    for group in SUITE["groups"]:
        for test in group["tests"]:
            name = f"{group['file']}: {group['group']}: {test['description']}"
            yield pytest.param(group["schema"], test["data"], test["valid"], id=name)


@pytest.mark.parametrize(("schema", "data", "valid"), list(_suite_cases()))
def test_rule8_json_schema_test_suite(schema, data, valid):
    """The official suite's cases for the keywords deep mode checks (see the JSON file's note
    for how they were picked). A pattern deep mode reports it cannot use is unchecked."""
    parameters = params_of(schema)
    refused = inspect_parameters(TOOL, parameters).bad_patterns
    result = run(parameters, {"x": data})
    assert result["ok"] is (valid or bool(refused))


def test_rule8_the_suite_patterns_are_all_checked():
    """No suite pattern is refused, Unicode property escapes (``\\p{Letter}``) included,
    so the suite's pattern cases really are decided above."""
    with_patterns = [g for g in SUITE["groups"] if '"pattern"' in json.dumps(g["schema"])]
    assert len(with_patterns) >= 15
    assert any("\\p{" in json.dumps(g["schema"]) for g in with_patterns)
    for group in with_patterns:
        assert inspect_parameters(TOOL, params_of(group["schema"])).bad_patterns == [], group


# -- rule 9: keywords deep mode does not check ---------------------------------------------


UNCHECKED = [
    ("prefixItems", {"type": "array", "prefixItems": [{"type": "string"}]}, [1]),
    (
        "patternProperties",
        {"type": "object", "patternProperties": {"^a": {"type": "integer"}}},
        {"ab": "s"},
    ),
    ("if", {"if": {"type": "integer"}, "then": {"minimum": 10}}, 5),
    ("else", {"if": {"type": "integer"}, "then": True, "else": {"minLength": 10}}, "short"),
    ("not", {"not": {}}, 5),
    ("not", {"not": {"type": "integer"}}, 5),
    ("contains", {"type": "array", "contains": {"type": "string"}}, [1]),
    ("minContains", {"type": "array", "contains": {"type": "string"}, "minContains": 2}, ["a"]),
    (
        "dependentSchemas",
        {"type": "object", "dependentSchemas": {"a": {"required": ["b"]}}},
        {"a": 1},
    ),
    ("dependentRequired", {"type": "object", "dependentRequired": {"a": ["b"]}}, {"a": 1}),
    ("unevaluatedProperties", {"type": "object", "unevaluatedProperties": False}, {"a": 1}),
    ("unevaluatedItems", {"type": "array", "unevaluatedItems": False}, [1]),
    ("propertyNames", {"type": "object", "propertyNames": {"maxLength": 1}}, {"abc": 1}),
]


@pytest.mark.parametrize(("keyword", "spec", "value"), UNCHECKED)
def test_rule9_unchecked_keywords_accept_what_they_govern(keyword, spec, value):
    assert not Draft202012Validator(spec).is_valid(value)  # JSON Schema would reject it
    assert inner(spec, value) == []
    assert arg(spec, value) == []
    info = inspect_parameters(TOOL, params_of({"type": "object", "properties": {"v": spec}}))
    assert keyword in {name for _, name in info.unchecked}


def test_rule9_unchecked_keywords_do_not_stop_the_checked_ones():
    spec = {"type": "array", "contains": {"type": "string"}, "items": {"type": "integer"}}
    assert inner(spec, [1, "a"]) == ["type:x.v[1]"]
    spec = {"not": {"type": "string"}, "minLength": 3}
    assert inner(spec, "ab") == ["constraint:x.v"]


# -- reasons -------------------------------------------------------------------------------


WEATHER = {
    "get_weather": {
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "minimum": 1},
                "units": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["city"],
        }
    }
}


@pytest.mark.parametrize("deep", [True, False])
def test_reasons_the_four_examples(deep):
    def why(arguments):
        call = {"name": "get_weather", "arguments": arguments}
        return validate_tool_call(WEATHER, call, deep=deep, explain=True)["why"]

    assert why({"city": "P", "days": True}) == {"type:days": "expected integer, got boolean true"}
    assert why({"city": "P", "units": "k"}) == {"enum:units": 'expected one of "c", "f"; got "k"'}
    assert why({}) == {"missing:city": "required"}
    if deep:
        assert why({"city": "P", "days": 0}) == {"constraint:days": "minimum 1, got 0"}


def test_reasons_every_error_gets_one_short_sentence():
    parameters = {
        "type": "object",
        "properties": {
            "o": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "e": {"enum": ["x", "y"]},
                    "s": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 3},
                    "l": {"type": "array", "uniqueItems": True},
                    "n": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                },
                "required": ["r"],
                "additionalProperties": False,
            },
        },
        "required": ["m"],
    }
    arguments = {
        "o": {"a": "one", "e": "z", "s": "ABCD", "l": [1, 1], "n": 5, "u": 1},
        "top": 1,
    }
    result = run(parameters, arguments, explain=True)
    assert result["errors"] == [
        "constraint:o.l",
        "constraint:o.s",
        "enum:o.e",
        "missing:m",
        "missing:o.r",
        "type:o.a",
        "type:o.n",
        "unexpected:o.u",
        "unexpected:top",
    ]
    assert list(result["why"]) == result["errors"]
    for error, sentence in result["why"].items():
        assert isinstance(sentence, str), error
        assert sentence.strip(), error
        assert "\n" not in sentence, error
        assert len(sentence) <= 200, (error, sentence)


def test_reasons_of_a_failing_call_are_worded_from_its_check_without_a_second_walk(monkeypatch):
    # The report words a failing call's reasons from what check() recorded: walking the
    # arguments again would double what a failing call costs.
    from toolaudit.deep.arguments import DeepArguments

    tool = compile_schemas(WEATHER, deep=True).tools["get_weather"]
    arguments = {"city": 5, "days": 0, "units": "k", "extra": 1}
    expected = tool.explain(arguments)
    walks = []
    walk = DeepArguments.found

    def counted(self, *args):
        walks.append(args)
        return walk(self, *args)

    monkeypatch.setattr(DeepArguments, "found", counted)
    problems = tool.check(arguments)
    assert len(walks) == 1
    assert tool.explain_problems((arguments, problems)) == expected
    assert len(walks) == 1
    assert list(expected) == [
        "constraint:days",
        "enum:units",
        "type:city",
        "unexpected:extra",
    ]
    # Problems check() did not give (no record of the walk) are looked for again.
    assert tool.explain_problems((arguments, list(problems))) == expected
    assert len(walks) == 2


def test_reasons_values_are_cut_and_escaped_and_never_the_whole_arguments():
    parameters = params_of(
        {
            "type": "object",
            "properties": {
                "long": {"type": "integer"},
                "ctrl": {"type": "integer"},
                "big": {"type": "string"},
                "sib": {},
            },
        }
    )
    marker = "SIBLING-MARKER"
    arguments = {
        "x": {
            "long": "z" * 5000,
            "ctrl": "a\nb\r\x1b[31m\u2028",
            "big": {f"k{i}": "w" * 100 for i in range(50)},
            "sib": marker,
        }
    }
    why = run(parameters, arguments, explain=True)["why"]
    assert set(why) == {"type:x.long", "type:x.ctrl", "type:x.big"}
    assert why["type:x.long"].count("z") <= 80
    assert len(why["type:x.long"]) <= 160
    assert len(why["type:x.big"]) <= 160
    for sentence in why.values():
        assert marker not in sentence
        assert not any(c in sentence for c in "\n\r\x1b")


# -- without deep, the contract ------------------------------------------------------------


NESTED = {
    "book": {
        "parameters": {
            "type": "object",
            "properties": {
                "filters": {
                    "type": "object",
                    "properties": {"date": {"type": "string", "pattern": "^\\d{4}$"}},
                    "required": ["date"],
                    "additionalProperties": False,
                },
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "n": {"type": "integer", "minimum": 10},
                "ref": {"$ref": "#/$defs/R"},
            },
            "required": ["n"],
            "$defs": {"R": {"type": "string"}},
        }
    }
}

CALLS = [
    {"name": "book", "arguments": {"n": 1, "filters": {"x": 1}, "tags": [1], "ref": 5}},
    {"name": "book", "arguments": {"filters": {"date": "20x4"}, "tags": "s", "zz": 1}},
    {"name": "book", "arguments": {"n": 12, "filters": {"date": "2024"}, "tags": ["a", "b"]}},
    {"name": "book", "arguments": "{}"},
    {"name": "nope", "arguments": {}},
    {"arguments": {}},
    ["not a call"],
    {"name": "book"},
]

EXPECTED_PLAIN = [
    {"ok": True, "errors": []},
    {"ok": False, "errors": ["missing:n", "type:tags", "unexpected:zz"]},
    {"ok": True, "errors": []},
    {"ok": False, "errors": ["malformed:arguments"]},
    {"ok": False, "errors": ["unknown_tool:nope"]},
    {"ok": False, "errors": ["malformed:name"]},
    {"ok": False, "errors": ["malformed:name"]},
    {"ok": False, "errors": ["missing:n"]},
]


@pytest.mark.parametrize(("call", "expected"), list(zip(CALLS, EXPECTED_PLAIN, strict=True)))
def test_without_deep_results_are_the_contracts(call, expected):
    for result in (
        validate_tool_call(NESTED, call),
        validate_tool_call(NESTED, call, deep=False),
        compile_schemas(NESTED).validate(call),
        compile_schemas(NESTED, deep=False).validate(call),
    ):
        assert orjson.dumps(result) == orjson.dumps(expected)


def test_deep_results_add_only_what_is_inside():
    results = [validate_tool_call(NESTED, call, deep=True) for call in CALLS]
    assert results[0]["errors"] == [
        "constraint:n",
        "constraint:tags",
        "missing:filters.date",
        "type:ref",
        "unexpected:filters.x",
    ]
    assert results[1]["errors"] == [
        "constraint:filters.date",
        "missing:n",
        "type:tags",
        "unexpected:zz",
    ]
    for result, expected in zip(results[2:], EXPECTED_PLAIN[2:], strict=True):
        assert orjson.dumps(result) == orjson.dumps(expected)
    # The compiled form gives the same results.
    validator = compile_schemas(NESTED, deep=True)
    for call, result in zip(CALLS, results, strict=True):
        assert validator.validate(call) == result
        explained = validator.validate(call, explain=True)
        assert explained == validate_tool_call(NESTED, call, deep=True, explain=True)
        assert {k: explained[k] for k in ("ok", "errors")} == result
        assert list(explained["why"]) == result["errors"]


# -- safety and ECMA-262 ---------------------------------------------------------------------


def test_a_catastrophic_pattern_is_decided():
    spec = {"type": "string", "pattern": "^(a+)+$"}
    assert arg(spec, "a" * 30 + "!") == ["constraint:x"]
    assert arg(spec, "a" * 30) == []
    spec = {"type": "string", "pattern": "^(x+x+)+y$"}
    assert arg(spec, "x" * 40) == ["constraint:x"]
    spec = {"type": "string", "pattern": "^(\\w+\\s?)*$"}
    assert arg(spec, "word " * 12 + "!") == ["constraint:x"]


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        ("^\\u0041$", "A", True),
        ("^\\u0041$", "u0041", False),
        ("^\\s$", "\u00a0", True),
        ("^\\s$", "\ufeff", True),
        ("^\\s$", "\u0085", False),
        ("^.$", "\u2028", False),
        ("^.$", "\u2029", False),
        ("^.$", "\r", False),
        ("^.$", "\u0085", True),
        ("^abc$", "abc\n", False),
        ("^\\d$", "\u0663", False),
        ("^\\w$", "\u00e9", False),
    ],
)
def test_ecma_262_features(pattern, value, matches):
    assert arg({"type": "string", "pattern": pattern}, value) == (
        [] if matches else ["constraint:x"]
    )


# -- depth ---------------------------------------------------------------------------------


def _linked(depth, leaf):
    value = {"v": leaf}
    for _ in range(depth - 1):
        value = {"next": value}
    return value


LINKED = params_of(
    {"$ref": "#/$defs/Node"},
    defs={
        "Node": {
            "type": "object",
            "properties": {"next": {"$ref": "#/$defs/Node"}, "v": {"type": "integer"}},
        }
    },
)


def test_a_value_nested_900_levels_deep_is_checked():
    assert errors(LINKED, {"x": _linked(900, 1)}) == []
    assert errors(LINKED, {"x": _linked(900, "bad")}) == ["type:x" + ".next" * 899 + ".v"]


def test_an_array_nested_900_levels_deep_is_checked():
    parameters = params_of(
        {"$ref": "#/$defs/A"}, defs={"A": {"type": "array", "items": {"$ref": "#/$defs/A"}}}
    )
    value = []
    for _ in range(899):
        value = [value]
    assert errors(parameters, {"x": value}) == []
    bad = [1]
    for _ in range(898):
        bad = [bad]
    assert errors(parameters, {"x": bad}) == ["type:x" + "[0]" * 899]


def test_a_node_reached_by_two_routes_is_applied_once_per_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two allOf branches that both look into the items with the same node: applied
    # again at each level, the work would double with every level of the value.
    from toolaudit.deep import node_checks

    node = {"allOf": [{"items": {"$ref": "#/$defs/N"}}, {"items": {"$ref": "#/$defs/N"}}]}
    schemas = {
        "t": {"parameters": {"properties": {"x": {"$ref": "#/$defs/N"}}, "$defs": {"N": node}}}
    }
    value: object = "leaf"
    for _ in range(20):
        value = [value]
    calls = 0
    original = node_checks.kind_of

    def counting(kind: type) -> str | None:  # once for each node applied to a value
        nonlocal calls
        calls += 1
        return original(kind)

    monkeypatch.setattr(node_checks, "kind_of", counting)
    result = validate_tool_call(schemas, {"name": "t", "arguments": {"x": value}}, deep=True)
    assert result == {"ok": True, "errors": []}
    assert calls < 200  # 2**20 applications without remembering where a node was applied
