"""The shortcuts of deep mode's walk record what the walk records without them.

Each is compared here with the walk as it was before it, on the JSON-Schema-Test-Suite
cases and on random schemas and values (rows and summaries are compared with the general
path by tests/typed/test_deep_audits.py, run with and without ``TOOLAUDIT_PURE_PYTHON``):

- a union with a single branch that can take the value checks it at once, with no trial
  walk (``node_checks.LONE_BRANCH_AT_ONCE``).

Compared: every error the walk records, in the order recorded, with its kind and its
reason worded.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from toolaudit.deep import node_checks
from toolaudit.deep.arguments import DeepArguments
from toolaudit.deep.reasons import sentence
from toolaudit.errors import SchemaError
from toolaudit.values import json_equal

from .test_against_jsonschema import cases
from .test_rules import SUITE, params_of

Recorded = list[tuple[str, str, str]]


def recorded(parameters: dict[str, Any], arguments: dict[str, Any]) -> Recorded:
    """(path, kind, reason worded) of each error the walk records, in its order."""
    found = DeepArguments("t", parameters).found(arguments, set())
    return [(path, kind, sentence(reason)) for path, (kind, reason) in found.items()]


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
    return now


def _suite_cases() -> Iterator[Any]:
    for group in SUITE["groups"]:
        for test in group["tests"]:
            name = f"{group['file']}: {group['group']}: {test['description']}"
            yield pytest.param(group["schema"], test["data"], id=name)


@pytest.mark.parametrize(("schema", "data"), list(_suite_cases()))
def test_the_suite_cases_record_the_same_each_way(schema: Any, data: Any) -> None:
    assert_same_each_way(params_of(schema), {"x": data})


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
