"""Property-based check: the compiled validator against a deliberately plain reference.

The reference below is written straight from the seed and the decisions of
issue 2, with no code shared with the package and no attempt at speed.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit import compile_schemas, validate_tool_call


def reference_is_type(value, type_name):
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "array":
        return isinstance(value, (list, tuple))
    if type_name == "object":
        return isinstance(value, Mapping)
    if type_name == "null":
        return value is None
    raise AssertionError(f"the strategy made an unknown type name {type_name!r}")


def reference_equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    a_number = isinstance(a, (int, float))
    b_number = isinstance(b, (int, float))
    if a_number or b_number:
        return a_number and b_number and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
            return False
        return len(a) == len(b) and all(reference_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return set(a) == set(b) and all(reference_equal(a[k], b[k]) for k in a)
    return False


def reference_validate(schemas, call):
    if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
        return {"ok": False, "errors": ["malformed:name"]}
    name = call["name"]
    if name not in schemas:
        return {"ok": False, "errors": ["unknown_tool:" + name]}
    arguments = call.get("arguments", {})
    if not isinstance(arguments, Mapping):
        return {"ok": False, "errors": ["malformed:arguments"]}
    parameters = schemas[name].get("parameters", {})
    properties = parameters.get("properties", {})
    errors = []
    for required_name in parameters.get("required", []):
        error = "missing:" + required_name
        if required_name not in arguments and error not in errors:
            errors.append(error)
    for key, value in arguments.items():
        if key not in properties:
            errors.append("unexpected:" + key)
            continue
        spec = properties[key]
        if "type" in spec:
            names = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
            if not any(reference_is_type(value, type_name) for type_name in names):
                errors.append("type:" + key)
                continue
        if "enum" in spec and not any(reference_equal(value, allowed) for allowed in spec["enum"]):
            errors.append("enum:" + key)
    errors.sort()
    return {"ok": not errors, "errors": errors}


NAMES = st.sampled_from(
    [
        "a",
        "b",
        "city",
        "a:b",
        "",
        "__class__",
        "__init__",
        'q"uote',
        "it's",
        "new\nline",
        "tab\t",
        "ünï",
        "日本",
        "\u202e",
        "0",
        "None",
        "true",
        "missing:a",
        "type",
        "𝒳",  # noqa: RUF001 - a name outside ASCII, on purpose
    ]
)
TYPE_NAMES = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])

# Values chosen to collide across types: 1, 1.0, True; 0, False; "1"; [1], [True].
TRICKY_SCALARS = st.sampled_from(
    [
        0,
        1,
        -1,
        1.0,
        0.0,
        -0.0,
        1.5,
        True,
        False,
        None,
        "",
        "1",
        "c",
        "true",
        2**64,
        2**70,
        float(2**70),
        9007199254740993,
        math.inf,
    ]
)
JSON_SCALARS = st.one_of(
    TRICKY_SCALARS, st.integers(), st.floats(allow_nan=False), st.booleans(), st.text(max_size=4)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(NAMES, children, max_size=3),
        st.dictionaries(NAMES, children, max_size=3).map(OrderedDict),
    ),
    max_leaves=6,
)

PARAM_SPECS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.one_of(TYPE_NAMES, st.lists(TYPE_NAMES, max_size=3)),
        "enum": st.lists(JSON_VALUES, max_size=4),
        "description": st.text(max_size=5),
    },
)
DECLARING_SCHEMAS = st.fixed_dictionaries(
    {
        "parameters": st.fixed_dictionaries(
            {"properties": st.dictionaries(NAMES, PARAM_SPECS, min_size=1, max_size=5)},
            optional={"type": st.just("object"), "required": st.lists(NAMES, max_size=4)},
        )
    }
)
# Mostly schemas that declare parameters; sometimes ones that declare little or nothing.
TOOL_SCHEMAS = st.one_of(
    DECLARING_SCHEMAS,
    DECLARING_SCHEMAS,
    DECLARING_SCHEMAS,
    st.just({}),
    st.fixed_dictionaries(
        {
            "parameters": st.fixed_dictionaries(
                {},
                optional={"type": st.just("object"), "required": st.lists(NAMES, max_size=4)},
            )
        }
    ),
)
SCHEMA_SETS = st.dictionaries(
    st.sampled_from(["t", "u", "get_weather", ""]), TOOL_SCHEMAS, min_size=1, max_size=3
)


@st.composite
def schemas_and_calls(draw):
    """A schema set and a call aimed at it: mostly well-formed, so that most
    examples reach the per-argument checks, with every malformed shape too."""
    schemas = draw(SCHEMA_SETS)
    name = draw(st.sampled_from(sorted(schemas) * 4 + ["unknown"]))
    parameters = schemas.get(name, {}).get("parameters", {})
    declared = list(parameters.get("properties", {})) + list(parameters.get("required", []))
    # Argument values come from the tool's own enums half of the time, so
    # that enum hits and near misses (True for 1, 1.0 for 1) are common.
    enum_values = [
        value
        for spec in parameters.get("properties", {}).values()
        for value in spec.get("enum", [])
    ]
    values = st.one_of(
        TRICKY_SCALARS, JSON_VALUES, *([st.sampled_from(enum_values)] if enum_values else [])
    )
    arguments = {key: draw(values) for key in declared if draw(st.booleans())}
    arguments.update(draw(st.dictionaries(NAMES, values, max_size=2)))
    if draw(st.booleans()):
        arguments = OrderedDict(reversed(arguments.items()))
    shape = draw(
        st.sampled_from(
            ["call"] * 12
            + ["no arguments", "odd arguments", "odd name", "no name", "not a mapping"]
        )
    )
    if shape == "call":
        return schemas, {"name": name, "arguments": arguments}
    if shape == "no arguments":
        return schemas, {"name": name}
    if shape == "odd arguments":
        return schemas, {
            "name": name,
            "arguments": draw(st.one_of(JSON_SCALARS, st.lists(JSON_SCALARS, max_size=2))),
        }
    if shape == "odd name":
        return schemas, {"name": draw(JSON_SCALARS), "arguments": arguments}
    if shape == "no name":
        return schemas, {"arguments": arguments}
    return schemas, draw(st.one_of(JSON_SCALARS, st.lists(JSON_SCALARS, max_size=2)))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas_and_calls())
def test_compiled_validator_matches_the_reference(case):
    schemas, call = case
    expected = reference_validate(schemas, call)
    assert validate_tool_call(schemas, call) == expected
    validator = compile_schemas(schemas)
    # Twice: compiled state must not drift between calls.
    assert validator.validate(call) == expected
    assert validator.validate(call) == expected


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(JSON_VALUES, JSON_VALUES)
def test_json_equal_matches_the_reference(a, b):
    from toolaudit import json_equal

    assert json_equal(a, b) == reference_equal(a, b)
    assert json_equal(a, b) == json_equal(b, a)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas_and_calls(), st.booleans())
def test_reasons_worded_from_the_problems_are_the_reasons_explain_finds(case, deep):
    # The report words a failing call's reasons from the problems check() found; explain()
    # judges the arguments again: the two must say the same, in the same order.
    schemas, call = case
    validator = compile_schemas(schemas, deep=deep)
    tool = validator.tools.get(call.get("name")) if isinstance(call, dict) else None
    arguments = call.get("arguments") if isinstance(call, dict) else None
    if tool is None or not isinstance(arguments, Mapping):
        return
    problems = tool.check(arguments)
    worded = tool.explain_problems((arguments, problems))
    assert list(worded.items()) == list(tool.explain(arguments).items())
    # Again, from the words the first time kept.
    assert list(tool.explain_problems((arguments, problems)).items()) == list(worded.items())


def test_a_tools_words_are_kept_but_each_call_gets_its_own_values():
    # The words that depend on the tool alone are made once and kept; what a call sent
    # must still be each call's own.
    tool = compile_schemas(
        {
            "get_weather": {
                "parameters": {
                    "properties": {
                        "days": {"type": "integer"},
                        "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    },
                    "required": ["days"],
                }
            }
        }
    ).tools["get_weather"]
    calls = [
        {"days": True, "units": "kelvin"},
        {"days": "3", "units": "rankine", "city": "Oslo"},
        {"units": 7},
        {"days": 2.5, "verbose": True},
    ]
    worded = []
    for arguments in calls:
        problems = tool.check(arguments)
        assert problems
        worded.append(tool.explain_problems((arguments, problems)))
        assert worded[-1] == tool.explain(arguments)
    assert worded[0] == {
        "enum:units": 'expected one of "celsius", "fahrenheit"; got "kelvin"',
        "type:days": "expected integer, got boolean true",
    }
    assert worded[1]["type:days"] == 'expected integer, got string "3"'
    assert worded[1]["enum:units"] == 'expected one of "celsius", "fahrenheit"; got "rankine"'
    assert worded[2] == {"missing:days": "required", "type:units": "expected string, got integer 7"}
    assert worded[3]["unexpected:verbose"] == worded[1]["unexpected:city"]
