"""The shortcuts of deep mode's walk record what the walk records without them.

Each is compared here with the walk as it was before it, on the JSON-Schema-Test-Suite
cases and on random schemas and values (rows and summaries are compared with the general
path by tests/typed/test_deep_audits.py, run with and without ``TOOLAUDIT_PURE_PYTHON``):

- a union with a single branch that can take the value checks it at once, with no trial
  walk (``node_checks.LONE_BRANCH_AT_ONCE``);
- the C walk (``deep/_walk_speedups.c``, ``deep/walk_specs.py``): a value C passes is
  not looked at by Python, every other one goes to the Python check.

Compared: every error the walk records, in the order recorded, with its kind and its
reason worded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from toolaudit.deep import arguments as deep_arguments
from toolaudit.deep import node_checks, walk_specs
from toolaudit.deep.arguments import DeepArguments
from toolaudit.deep.reasons import sentence
from toolaudit.errors import SchemaError
from toolaudit.jsonutil import ExactNumber
from toolaudit.values import json_equal

from .test_against_jsonschema import cases
from .test_rules import SUITE, params_of

Recorded = list[tuple[str, str, str]]


def recorded(parameters: dict[str, Any], arguments: dict[str, Any]) -> Recorded:
    """(path, kind, reason worded) of each error the walk records, in its order."""
    found = DeepArguments("t", parameters).found(arguments, set())
    return [(path, kind, sentence(reason)) for path, (kind, reason) in found.items()]


@contextmanager
def without_the_c_walk() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(node_checks, "node_spec", lambda _: None)
        patch.setattr(deep_arguments, "node_spec", lambda _: None)
        patch.setattr(node_checks, "object_keys", walk_specs.each_key)
        yield


@contextmanager
def with_trial_walks() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(node_checks, "LONE_BRANCH_AT_ONCE", False)
        yield


def assert_same_each_way(parameters: dict[str, Any], arguments: dict[str, Any]) -> Recorded:
    try:
        now = recorded(parameters, arguments)
    except SchemaError:
        return []
    with with_trial_walks():
        assert recorded(parameters, arguments) == now
    with without_the_c_walk():
        assert recorded(parameters, arguments) == now
    with without_the_c_walk(), with_trial_walks():
        assert recorded(parameters, arguments) == now
    return now


def _suite_cases() -> Iterator[Any]:
    for group in SUITE["groups"]:
        for test in group["tests"]:
            name = f"{group['file']}: {group['group']}: {test['description']}"
            yield pytest.param(group["schema"], test["data"], id=name)


@pytest.mark.parametrize(("schema", "data"), list(_suite_cases()))
def test_the_suite_cases_record_the_same_each_way(schema: Any, data: Any) -> None:
    assert_same_each_way(params_of(schema), {"x": data})


@pytest.mark.slow  # a long property run
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_random_schemas_and_values_record_the_same_each_way(case: Any) -> None:
    defs, schema, value = case
    assert_same_each_way(params_of(schema, defs), {"x": value})


NULLABLE_PLACE = {
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "pattern": "^[A-Z]"},
                "days": {"$ref": "#/$defs/d"},
            },
            "required": ["city"],
        },
        {"type": "null"},
    ]
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, []),
        ({"city": "Oslo", "days": 2}, []),
        ({"city": "oslo", "days": 2}, [("x.city", "constraint")]),
        ({"days": -1}, [("x.days", "constraint"), ("x.city", "missing")]),
        ("Oslo", [("x", "type")]),
    ],
)
def test_a_nullable_object_is_checked_at_once_with_the_same_errors(
    value: Any, expected: list[tuple[str, str]]
) -> None:
    """The commonest union (an object or null): its object branch is the only one that can
    take an object, so it is checked at once, and a failing value gets that branch's
    errors; a value of a kind neither branch takes, a type error at the union."""
    parameters = params_of(NULLABLE_PLACE, {"d": {"type": "integer", "minimum": 0}})
    found = assert_same_each_way(parameters, {"x": value})
    assert [(path, kind) for path, kind, _ in found] == expected


ENUM_MEMBERS = ["a", 1, True, None, [1, "a"], {"k": "a"}]


@pytest.mark.parametrize(
    "value", ["a", "b", 1, 1.0, 2, True, False, None, [1, "a"], [1.0, "a"], {"k": "a"}, {}]
)
@pytest.mark.parametrize("keyword", ["enum", "const"])
def test_a_leafs_enum_and_const_compare_as_json_does(keyword: str, value: Any) -> None:
    """An enum or const on a leaf tests a string by a set lookup and anything else by
    JSON equality (``1`` is ``1.0``, ``true`` is not ``1``): the same verdict as
    :func:`json_equal`, member by member."""
    spec = {"enum": ENUM_MEMBERS} if keyword == "enum" else {"const": "a"}
    members = ENUM_MEMBERS if keyword == "enum" else ["a"]
    parameters = params_of({"type": "object", "properties": {"y": spec}})
    found = recorded(parameters, {"x": {"y": value}})
    taken = any(json_equal(value, member) for member in members)
    assert found == ([] if taken else [("x.y", "enum", found[0][2])])


# -- the C walk ------------------------------------------------------------------------------

SPEEDUPS = walk_specs.SPEEDUPS
needs_c = pytest.mark.skipif(SPEEDUPS is None, reason="the C speedups are not built")
HELD = "y"


def held(spec: Any) -> dict[str, Any]:
    """Parameters with ``spec`` as property y of argument x (the contract alone judges
    some top-level arguments, and a property is where the C walk is asked)."""
    return params_of({"type": "object", "properties": {HELD: spec}})


def spec_of(spec: Any, defs: dict[str, Any] | None = None) -> Any:
    parameters = held(spec)
    if defs is not None:
        parameters["$defs"] = defs
    holder = DeepArguments("t", parameters).nodes[0][1]
    assert holder.properties is not None
    return walk_specs.node_spec(holder.properties[HELD])


PLACE = {
    "type": "object",
    "properties": {"city": {"type": "string", "pattern": "^[A-Z]"}, "days": {"minimum": 1}},
    "required": ["city"],
}
MAP = {"type": "object", "additionalProperties": {"type": "integer", "maximum": 9}}


@needs_c
@pytest.mark.parametrize(
    ("spec", "value", "passed"),
    [
        ({"type": "integer", "minimum": 1, "maximum": 9}, 5, True),
        ({"type": "integer", "minimum": 1, "maximum": 9}, 0, False),
        ({"type": "integer", "minimum": 1, "maximum": 9}, 10, False),
        ({"type": "number", "exclusiveMinimum": 0}, 0.0, False),
        ({"type": "number", "exclusiveMaximum": 1.5}, 1, True),
        ({"type": "number", "exclusiveMaximum": 1.5}, 1.5, False),
        ({"type": "integer"}, True, False),  # a boolean is no integer
        ({"type": "number", "minimum": 0}, ExactNumber("1e400"), True),  # compared as Python does
        ({"type": "number", "minimum": 0}, ExactNumber("-1e400"), False),
        ({"type": "number", "multipleOf": 2}, 4, False),  # a test only Python runs
        ({"type": "string", "minLength": 2, "maxLength": 3}, "abc", True),
        ({"type": "string", "minLength": 2, "maxLength": 3}, "a", False),
        ({"type": "string", "maxLength": 2}, "日本", True),  # code points, not bytes
        ({"type": "string", "pattern": "^[A-Z]{3}$"}, "CDG", True),
        ({"type": "string", "pattern": "^[A-Z]{3}$"}, "cdg", False),
        ({"type": "string", "pattern": "^.{2}$"}, "é!", False),  # not ASCII: Python decides
        ({"type": "string"}, OrderedDict(), False),
        ({"enum": ["a", "b"]}, "b", True),
        ({"enum": ["a", "b"]}, "c", False),
        ({"enum": ["a", 1]}, 1, True),  # an int among str and int members
        ({"enum": ["a", 1]}, 2, False),
        ({"enum": ["a", 1.0]}, 1, False),  # a float member: Python's JSON equality
        ({"enum": [True]}, 1, False),  # true is no 1, though a set says so
        ({"const": 2}, 2, True),
        ({"const": 2}, 2.0, False),  # a float value: Python decides
        ({"type": "array", "uniqueItems": True}, ["a", "b"], True),
        ({"type": "array", "uniqueItems": True}, ["a", "a"], False),
        ({"type": "string", "const": "a"}, "a", True),
        ({"const": 1}, "1", False),
        ({"type": "array", "maxItems": 2}, [1, 2], True),
        ({"type": "array", "maxItems": 2}, [1, 2, 3], False),
        ({"type": "array", "maxItems": 2}, (1, 2), True),  # a tuple is an array too
        ({"type": "array", "uniqueItems": True}, [1, 2], False),
        ({"type": "object", "minProperties": 1}, {"a": 1}, True),
        ({"type": "object", "minProperties": 1}, {}, False),
        ({"minLength": 5}, Decimal("1"), False),  # a type of no known kind
        ({"anyOf": [PLACE, {"type": "null"}]}, None, True),
        ({"anyOf": [PLACE, {"type": "null"}]}, {"city": "Oslo", "days": 2}, True),
        ({"anyOf": [PLACE, {"type": "null"}]}, {"city": "oslo"}, False),
        ({"anyOf": [PLACE, {"type": "null"}]}, "Oslo", False),
        ({"anyOf": [{"type": "integer"}], "minimum": 3}, 4, False),  # union beside a limit
        (PLACE, {"city": "Oslo"}, True),
        (PLACE, {"city": "Oslo", "other": 1}, False),  # closed where properties are declared
        (PLACE, {"days": 1}, False),  # required
        (PLACE, {"city": "Oslo", 1: 2}, False),  # a key that is no str: Python decides
        (PLACE, OrderedDict(city="Oslo"), False),  # a mapping that is no dict
        (MAP, {"a": 1, "b": 9}, True),
        (MAP, {"a": 1, "b": 10}, False),
        ({"type": "array", "items": PLACE, "minItems": 1}, [{"city": "A"}, {"city": "B"}], True),
        ({"type": "array", "items": PLACE, "minItems": 1}, [{"city": "A"}, {"city": "b"}], False),
        ({"type": "array", "items": PLACE, "minItems": 1}, [], False),
        ({"type": "array", "items": PLACE}, ({"city": "A"},), False),  # a tuple: Python decides
        ({"allOf": [PLACE]}, {"city": "Oslo"}, False),  # only Python applies allOf
    ],
)
def test_c_passes_only_what_the_python_check_takes(spec: Any, value: Any, passed: bool) -> None:
    assert SPEEDUPS is not None
    assert SPEEDUPS.passes(spec_of(spec), value) is passed
    found = recorded(held(spec), {"x": {HELD: value}})
    if passed:
        assert found == []


@needs_c
def test_a_recursive_schema_leaves_its_loop_to_python() -> None:
    tree = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
    }
    spec = spec_of({"$ref": "#/$defs/tree"}, {"tree": tree})
    assert SPEEDUPS is not None
    assert SPEEDUPS.passes(spec, {"kids": []}) is True
    assert SPEEDUPS.passes(spec, {"kids": [{"kids": []}]}) is False  # the loop: Python's
    assert_same_each_way(
        params_of({"$ref": "#/$defs/tree"}, {"tree": tree}),
        {"x": {"kids": [{"kids": [{"kids": 1}]}]}},
    )


@needs_c
def test_c_sends_each_other_key_and_element_to_python_in_order() -> None:
    assert SPEEDUPS is not None
    spec = spec_of({"type": "integer", "minimum": 0})
    seen: list[Any] = []
    value = {"a": 1, "b": -1, 3: 4, "c": "x", "d": 2}
    fast = {name: (spec, None, f".{name}") for name in "abc"}
    # "w" is no walk with errors to record into, as a trial walk: every other key to Python
    SPEEDUPS.object_keys(value, fast, lambda *a: seen.append(a), "w", "base", True)
    assert seen == [
        ("w", "b", -1, "base", True),
        ("w", 3, 4, "base", True),
        ("w", "c", "x", "base", True),
        ("w", "d", 2, "base", True),
    ]
    seen.clear()
    SPEEDUPS.array_items([0, -2, 3, None], spec, None, lambda *a: seen.append(a), "w", "base")
    assert seen == [("w", 1, -2, "base"), ("w", 3, None, "base")]


def test_no_spec_is_made_without_the_speedups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk_specs, "SPEEDUPS", None)
    assert spec_of({"type": "integer", "minimum": 0}) is None


def test_an_enum_with_a_str_subclass_is_left_to_python() -> None:
    class Name(str):
        pass

    holder = DeepArguments("t", held({"type": "string", "maxLength": 3})).nodes[0][1]
    assert holder.properties is not None
    node = holder.properties[HELD]
    node.enum = (Name("a"),)
    node.walk_spec = False  # made again, with the enum
    assert walk_specs.node_spec(node) is None
