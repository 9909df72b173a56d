"""The C walk records a failing value's errors as the Python checks record them.

``_walk_speedups.record`` (deep/walk_records.py), and the object and array loops that
record a failing child in C, are compared here with the Python node checks alone (the
closures of deep/node_checks.py, as with ``TOOLAUDIT_PURE_PYTHON=1``): every error, in
the order recorded, with its kind and its reason worded. The JSON-Schema-Test-Suite
cases and random schemas are compared both ways by test_walk_speedups.py; here, the
benchmark's nested calls, random values made to fail, and the cases where C must record
alone or hand a child to Python in its place.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.deep import arguments as deep_arguments
from toolaudit.deep.arguments import DeepArguments
from toolaudit.deep.check import Walk
from toolaudit.deep.walk_records import arguments_found, record
from toolaudit.deep.walk_specs import SPEEDUPS, node_spec
from toolaudit.errors import SchemaError

from ..conftest import REPO
from .test_against_jsonschema import cases
from .test_rules import params_of
from .test_walk_speedups import (
    HELD,
    Recorded,
    assert_same_each_way,
    held,
    recorded,
    spec_of,
    without_the_c_walk,
)

needs_c = pytest.mark.skipif(SPEEDUPS is None, reason="the C speedups are not built")


def recorded_in_c(spec: Any, value: Any) -> Recorded:
    """The errors of ``value`` as property y of argument x (the contract alone judges an
    argument that is a leaf), after asserting that C recorded them itself (it said True)
    and that they are the Python checks'."""
    parameters, arguments = held(spec), {"x": {HELD: value}}
    walk = Walk()
    assert record(
        node_spec(DeepArguments("t", parameters).nodes[0][1]), arguments["x"], "x", "x", walk
    )
    with without_the_c_walk():
        alone = recorded(parameters, arguments)
    assert list(walk.found) == [path for path, _, _ in alone]
    assert recorded(parameters, arguments) == alone
    return alone


PLACE = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "pattern": "^[A-Z]"},
        "days": {"type": "integer", "minimum": 1},
        "max-results": {"enum": ["a", "b"]},
    },
    "required": ["city", "max-results"],
}
NULLABLE = {"anyOf": [PLACE, {"type": "null"}]}
TRIP = {
    "type": "object",
    "properties": {
        "places": {"type": "array", "items": PLACE, "maxItems": 3},
        "mode": {"const": "car"},
        "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 2}},
    },
}


@needs_c
@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ({"type": "integer"}, "a", [("x", "type")]),
        ({"type": "integer"}, True, [("x", "type")]),
        ({"type": "integer", "maximum": 3}, 4, [("x", "constraint")]),
        ({"type": "number", "minimum": 0}, float("nan"), [("x", "constraint")]),
        ({"type": "string", "pattern": "^[a-z]+$"}, "A", [("x", "constraint")]),
        ({"type": "string", "minLength": 2}, "a", [("x", "constraint")]),
        ({"enum": ["a", "b"]}, "c", [("x", "enum")]),
        ({"type": "string", "const": "a"}, "b", [("x", "enum")]),
        ({"enum": ["a", 2, None]}, 3, [("x", "enum")]),
        ({"const": 2}, 1, [("x", "enum")]),
        ({"type": "array", "maxItems": 1, "uniqueItems": True}, ["a", "a"], [("x", "constraint")]),
        (PLACE, [], [("x", "type")]),
        (PLACE, {"city": "oslo", "max-results": "a"}, [("x.city", "constraint")]),
        (
            PLACE,
            {"days": 0, "zip": 1, "é": 2, "a-b": 3},
            [
                ("x.days", "constraint"),
                ("x.zip", "unexpected"),
                ('x["é"]', "unexpected"),
                ('x["a-b"]', "unexpected"),
                ("x.city", "missing"),
                ('x["max-results"]', "missing"),
            ],
        ),
        (
            TRIP,
            {
                "tags": ["ab", "abc", 1],
                "places": [{"city": "A", "max-results": "c"}, {"city": 1, "max-results": "a"}],
                "mode": "bus",
                "extra": {"a": 1, "b": "x", "c-d": None},
            },
            [
                ("x.tags[1]", "constraint"),
                ("x.tags[2]", "type"),
                ('x.places[0]["max-results"]', "enum"),
                ("x.places[1].city", "type"),
                ("x.mode", "enum"),
                ("x.extra.b", "type"),
                ('x.extra["c-d"]', "type"),
            ],
        ),
        (TRIP, {"places": [{}, {}, {}, {}]}, [("x.places", "constraint")]),
        # the commonest union: only its object branch takes an object, and is reported
        (NULLABLE, {"city": "oslo", "max-results": "a"}, [("x.city", "constraint")]),
        (NULLABLE, None, []),
    ],
)
def test_c_records_what_the_python_checks_record(
    spec: Any, value: Any, expected: list[tuple[str, str]]
) -> None:
    found = recorded_in_c(spec, value)
    assert [(path, kind) for path, kind, _ in found] == [
        ("x.y" + path[1:], kind) for path, kind in expected
    ]


@needs_c
def test_a_child_c_cannot_record_is_checked_by_python_in_its_place() -> None:
    """A union whose branch Python's trials pick, a multipleOf, a tuple: each child is
    Python's, and the errors after it are C's again, in the order of the keys."""
    spec = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "home": {"anyOf": [PLACE, {"type": "object", "properties": {"zip": {}}}]},
            "n": {"type": "number", "multipleOf": 2},
            "t": {"type": "array", "items": {"type": "integer"}},
            "z": {"type": "integer"},
        },
    }
    value = {"a": "1", "home": {"city": "oslo", "zip": 1}, "n": 3, "t": ("x",), "z": "2"}
    found = recorded_in_c(spec, value)
    assert [(path, kind) for path, kind, _ in found] == [
        ("x.y.a", "type"),
        ("x.y.home.city", "constraint"),
        ("x.y.home.zip", "unexpected"),
        ('x.y.home["max-results"]', "missing"),
        ("x.y.n", "constraint"),
        ("x.y.t[0]", "type"),
        ("x.y.z", "type"),
    ]


@needs_c
@pytest.mark.parametrize(
    ("spec", "value"),
    [
        # two branches may take a string: Python's trials say which is reported
        ({"anyOf": [{"type": "string", "maxLength": 1}, {"pattern": "^a"}]}, "bb"),
        (PLACE, OrderedDict(city="Oslo")),  # a mapping that is no dict
        (PLACE, {"city": "Oslo", 1: 2}),  # a key that is no str
        ({"type": "string", "pattern": "^.$"}, "éé"),  # not ASCII: Python matches it
        ({"enum": ["a", 1.5]}, 2),  # JSON equality with a float member
        ({"enum": ["a", True]}, 1),  # a bool member
        ({"type": "array", "uniqueItems": True}, ["a", "a"]),  # the repeat's places
        ({"allOf": [{"type": "integer"}, {"minimum": 2}]}, 1),  # no C form
    ],
)
def test_c_records_nothing_where_python_decides(spec: Any, value: Any) -> None:
    walk = Walk()
    made = spec_of(spec)
    assert made is None or record(made, value, "x.y", "x.y", walk) is False
    assert walk.found == {}
    assert_same_each_way(held(spec), {"x": {HELD: value}})


@needs_c
def test_a_trial_walk_is_not_recorded_into() -> None:
    """A trial stops at its first error (in Python): C records nothing into it."""
    spec = spec_of(PLACE)
    trial = Walk(trying=True)
    assert record(spec, {"city": 1}, "x.y", "x.y", trial) is False
    assert trial.found == {}
    assert record(spec, {"city": "A", "max-results": "a"}, "x.y", "x.y", trial) is True


@needs_c
def test_an_error_already_at_the_path_stops_c_there() -> None:
    walk = Walk()
    walk.found["x.y"] = ("type", ("never", 1))
    assert record(spec_of(PLACE), {"city": 1}, "x.y", "x.y", walk) is True
    assert list(walk.found) == ["x.y"]


@pytest.fixture(scope="module")
def nested() -> tuple[dict[str, Any], list[Any]]:
    """The benchmark's nested tools and 1,500 of its calls, a fifth of them failing."""
    import orjson

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from nested import generate_nested_lines
        from nested_tools import nested_schemas

        tools = nested_schemas()
        lines = [orjson.loads(line) for line, _, _ in generate_nested_lines(1500, seed=31)]
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return tools, lines


def test_the_nested_calls_record_the_same_each_way(nested: Any) -> None:
    tools, calls = nested
    failing = 0
    for call in calls:
        parameters, arguments = tools[call["name"]]["parameters"], call["arguments"]
        now = recorded(parameters, arguments)
        with without_the_c_walk():
            assert recorded(parameters, arguments) == now
        failing += bool(now)
    assert failing > 100


def found_each_loop(parameters: dict[str, Any], arguments: Any, skip: Any = frozenset()) -> Any:
    """(path, kind, reason) of each error, in order, found by the call's loop in C
    (``arguments_found``) and by the Python loop of ``DeepArguments._walk``, asserted the
    same (the reasons hold the same nodes, of one compiled tool)."""
    deep = DeepArguments("t", parameters)
    now = deep.found(arguments, skip)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deep_arguments, "arguments_found", None)
        alone = deep.found(arguments, skip)
    assert type(now) is dict
    assert list(now.items()) == list(alone.items())
    return list(now.items())


def test_the_nested_calls_are_walked_the_same_by_each_loop(nested: Any) -> None:
    tools, calls = nested
    failing = 0
    for call in calls:
        parameters, arguments = tools[call["name"]]["parameters"], call["arguments"]
        failing += bool(found_each_loop(parameters, arguments))
        found_each_loop(parameters, arguments, set(list(arguments)[:1]))
    assert failing > 100


AT_MOST_3 = {"type": "object", "properties": {"y": {"type": "integer", "maximum": 3}}}


@needs_c
def test_the_loop_in_c_makes_a_walk_only_for_a_value_that_does_not_pass() -> None:
    parameters = {"type": "object", "properties": {"a": AT_MOST_3, "b": PLACE, "c": {}}}
    deep = DeepArguments("t", parameters)
    roots = deep._roots
    assert [name for name, *_ in roots] == ["a", "b"]  # (a leaf is the contract's alone)
    made: list[Walk] = []

    def new_walk() -> Walk:
        made.append(Walk())
        return made[-1]

    def slow(*_: Any) -> None:
        raise AssertionError("no Python check asked")

    valid = {"a": {"y": 3}, "b": {"city": "Oslo", "max-results": "a"}, "z": 1}
    assert arguments_found(roots, valid, set(), new_walk, slow) == {}
    assert made == []
    assert arguments_found(roots, OrderedDict(a={"y": 3}), set(), new_walk, slow) is None
    failing = {"a": {"y": 4}, "b": {"city": 1}}
    found = arguments_found(roots, failing, {"a"}, new_walk, slow)
    assert found is made[0].found
    assert list(found) == ["b.city", 'b["max-results"]']
    assert list(arguments_found(roots, failing, set(), new_walk, slow)) == [
        "a.y",
        "b.city",
        'b["max-results"]',
    ]
    with pytest.raises(TypeError):
        arguments_found(roots, failing, set(), lambda: Walk(trying=True), slow)
    with pytest.raises(TypeError):
        arguments_found([], {}, set(), new_walk, slow)


@needs_c
def test_an_argument_only_python_checks_goes_to_slow_in_its_place() -> None:
    parameters = {"type": "object", "properties": {"a": AT_MOST_3, "b": AT_MOST_3}}
    deep = DeepArguments("t", parameters)
    name, _, root, node = deep._roots[0]
    roots = ((name, None, root, node), deep._roots[1])
    asked: list[Any] = []

    def slow(walk: Walk, node: Any, value: Any, name: str, root: str) -> None:
        asked.append((name, value))
        walk.add("constraint", name, ("never",))

    found = arguments_found(roots, {"b": {"y": "x"}, "a": {"y": 1}}, set(), Walk, slow)
    assert asked == [("a", {"y": 1})]
    assert list(found) == ["a", "b.y"]  # the order of the roots, not of the arguments


@pytest.mark.slow  # a long property run
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.randoms(use_true_random=False))
def test_random_values_are_walked_the_same_by_each_loop(case: Any, random: Any) -> None:
    defs, schema, value = case
    swaps = ["x", 7, -1.5, None, True, [], {}]
    try:
        parameters = params_of(schema, defs)
        DeepArguments("t", parameters)
    except SchemaError:
        return
    found_each_loop(parameters, {"x": value, "y": 1})
    found_each_loop(parameters, {"x": random.choice(swaps)})


@pytest.mark.slow  # a long property run
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.randoms(use_true_random=False))
def test_random_values_made_to_fail_record_the_same_each_way(case: Any, random: Any) -> None:
    """A random value with some of its leaves swapped for values of other kinds: most
    such values fail, at several depths at once."""
    defs, schema, value = case
    swaps = ["x", 7, -1.5, None, True, [], {}, "ABCDEFGHIJ"]

    def spoiled(each: Any) -> Any:
        if isinstance(each, dict):
            return {key: spoiled(child) for key, child in each.items()}
        if isinstance(each, list):
            return [spoiled(child) for child in each]
        return random.choice(swaps) if random.random() < 0.3 else each

    assert_same_each_way(params_of(schema, defs), {"x": spoiled(value)})
