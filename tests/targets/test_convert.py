"""convert_parameters: each kind of change, said where it is made and whether it widens
or narrows what the target takes; the original never changed; and, on any schema
hypothesis makes, a conversion that passes its target's lint but for what cannot be
mended, and that converting again leaves as it is."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.targets import TARGETS
from toolaudit.targets.convert import Change, convert_parameters, nullable
from toolaudit.targets.inline import MAX_SUBSCHEMAS, inline_refs
from toolaudit.targets.rules import REJECTS, Limit

STRING = {"type": "string"}


def converted(target: str, schema: dict[str, Any]) -> tuple[dict[str, Any], list[Change]]:
    conversion = convert_parameters(TARGETS[target], schema)
    return conversion.parameters, list(conversion.changes)


def test_a_rejected_bound_moves_into_the_description_and_widens() -> None:
    schema = {
        "type": "object",
        "properties": {"days": {"type": "integer", "maximum": 40320, "description": "days"}},
    }
    parameters, changes = converted("anthropic-strict", schema)
    assert parameters["properties"]["days"] == {
        "type": "integer",
        "description": "days (maximum 40320)",
    }
    assert changes == [
        Change("/properties/days/maximum", "maximum moved into the description", "widens")
    ]


def test_strict_mode_makes_optional_properties_required_and_nullable() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": STRING,
            "unit": {"type": "string", "enum": ["C", "F"]},
            "place": {"$ref": "#/$defs/place"},
            "any": {},
        },
        "required": ["city"],
        "$defs": {"place": {"type": "object", "properties": {}, "additionalProperties": False}},
        "additionalProperties": False,
    }
    parameters, changes = converted("openai-strict", schema)
    assert parameters["required"] == ["city", "unit", "place", "any"]
    assert parameters["properties"]["unit"] == {
        "type": ["string", "null"],
        "enum": ["C", "F", None],
    }
    assert parameters["properties"]["place"] == {
        "anyOf": [{"$ref": "#/$defs/place"}, {"type": "null"}]
    }
    assert parameters["properties"]["any"] == {}
    assert {change.alters for change in changes} == {""}
    assert [c.pointer for c in changes] == [
        "/properties/unit",
        "/properties/place",
        "/properties/any",
    ]


def test_strict_mode_closes_objects_and_says_it_narrows() -> None:
    schema = {
        "type": "object",
        "properties": {"m": {"type": "object", "additionalProperties": STRING}},
        "required": ["m"],
        "additionalProperties": False,
    }
    parameters, changes = converted("openai-strict", schema)
    assert parameters["properties"]["m"]["additionalProperties"] is False
    assert changes == [
        Change(
            "/properties/m/additionalProperties",
            'object closed: additionalProperties false (was {"type": "string"})',
            "narrows",
        )
    ]


def test_gemini_gets_refs_written_out_one_type_and_nullable_and_no_unknown_names() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"unit": {"type": "string", "enum": ["C", "F"]}},
        "properties": {
            "unit": {"$ref": "#/$defs/unit"},
            "days": {"type": ["integer", "null"], "exclusiveMinimum": 0},
            "x": {"oneOf": [STRING, {"type": "integer"}]},
        },
        "additionalProperties": False,
    }
    parameters, changes = converted("gemini", schema)
    assert parameters == {
        "type": "object",
        "properties": {
            "unit": {"type": "string", "enum": ["C", "F"]},
            "days": {"type": "integer", "description": "(exclusiveMinimum 0)", "nullable": True},
            "x": {"anyOf": [STRING, {"type": "integer"}]},
        },
    }
    said = {change.pointer: (change.message, change.alters) for change in changes}
    assert said == {
        "": ("1 local $ref written out", ""),
        "/$schema": ("$schema dropped", ""),
        "/additionalProperties": ("additionalProperties dropped", "widens"),
        "/properties/days/exclusiveMinimum": (
            "exclusiveMinimum moved into the description",
            "widens",
        ),
        "/properties/days/type": ('type ["integer", "null"] written as one type and nullable', ""),
        "/properties/x/oneOf": ("oneOf written as anyOf", "widens"),
    }


def test_a_recursive_ref_is_left_and_still_rejected_not_a_crash() -> None:
    schema = {
        "type": "object",
        "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
        "properties": {"root": {"$ref": "#/$defs/node"}},
    }
    conversion = convert_parameters(TARGETS["gemini"], schema)
    assert conversion.parameters == schema
    assert conversion.changes == (
        Change(
            "", "$refs left as they are: $ref '#/$defs/node' is recursive: it cannot be written out"
        ),
    )
    assert {f.code for f in conversion.left} == {"target:gemini:unknown-field"}
    assert {f.pointer for f in conversion.left} == {
        "/$defs",
        "/properties/root/$ref",
        "/$defs/node/properties/next/$ref",
    }


@pytest.mark.slow
def test_a_ref_chain_that_would_explode_is_not_written_out() -> None:
    defs = {
        f"d{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"}, "b": {"$ref": f"#/$defs/d{i + 1}"}},
        }
        for i in range(30)
    }
    defs["d30"] = STRING
    inlined = inline_refs(
        {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}}
    )
    assert inlined.replaced == 0
    assert inlined.refused == f"written out, it would pass {MAX_SUBSCHEMAS:,} subschemas"


def test_the_original_schema_is_never_changed() -> None:
    schema = {
        "type": "object",
        "$defs": {"p": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}}},
        "properties": {
            "a": {"$ref": "#/$defs/p"},
            "b": {"type": ["string", "null"], "minLength": 2},
        },
    }
    before = copy.deepcopy(schema)
    for target in TARGETS.values():
        convert_parameters(target, schema)
    assert schema == before


def test_nullable_keeps_what_already_takes_null() -> None:
    assert nullable({"type": ["string", "null"]}) == {"type": ["string", "null"]}
    assert nullable({"anyOf": [STRING, {"type": "null"}]}) == {"anyOf": [STRING, {"type": "null"}]}
    assert nullable(True) is True
    assert nullable({"const": 1}) == {"anyOf": [{"const": 1}, {"type": "null"}]}


def test_a_schema_10000_levels_deep_converts_without_recursion() -> None:
    schema: dict[str, Any] = {"type": "integer", "minimum": 0}
    for _ in range(10_000):
        schema = {"type": "object", "properties": {"x": schema}}
    conversion = convert_parameters(TARGETS["anthropic-strict"], schema)
    assert conversion.changes == (
        Change(
            "/properties/x" * 10_000 + "/minimum", "minimum moved into the description", "widens"
        ),
    )


# Any schema hypothesis makes -------------------------------------------------------

LEAVES = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])},
    optional={
        "minimum": st.integers(-5, 5),
        "exclusiveMaximum": st.integers(6, 9),
        "minLength": st.integers(0, 3),
        "pattern": st.just("^a"),
        "format": st.sampled_from(["date", "ipv5"]),
        "description": st.just("d"),
        "default": st.just(1),
        "title": st.just("t"),
    },
) | st.sampled_from([{"type": ["integer", "null"]}, {"enum": [1, "a", None]}, {"const": "c"}, {}])


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "c"])
    objects = st.builds(
        lambda properties, required, extra: {
            "type": "object",
            "properties": properties,
            "required": [name for name in properties if name in required],
            **extra,
        },
        st.dictionaries(names, inner, max_size=3),
        st.sets(names),
        st.sampled_from([{}, {"additionalProperties": False}, {"additionalProperties": True}])
        | st.builds(lambda s: {"additionalProperties": s}, inner),
    )
    arrays = st.builds(
        lambda items, n: {"type": "array", "items": items, "minItems": n}, inner, st.integers(0, 3)
    )
    unions = st.builds(
        lambda key, branches: {key: branches},
        st.sampled_from(["anyOf", "oneOf", "allOf"]),
        st.lists(inner, min_size=1, max_size=3),
    )
    negated = st.builds(lambda sub: {"not": sub}, inner)
    return objects | arrays | unions | negated


SCHEMAS = st.recursive(LEAVES, _containers, max_leaves=12)
ROOTS = st.builds(
    lambda properties, defs, referred, schema_key: {
        **({"$schema": "x"} if schema_key else {}),
        "type": "object",
        "properties": {**properties, **({"r": {"$ref": "#/$defs/d"}} if referred else {})},
        **({"$defs": {"d": defs}} if referred else {}),
    },
    st.dictionaries(st.sampled_from(["p", "q"]), SCHEMAS, max_size=2),
    SCHEMAS,
    st.booleans(),
    st.booleans(),
)
UNMENDABLE = ("root-not-object", "root-any-of", "recursive", "external-ref")


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROOTS)
def test_any_conversion_passes_its_lint_and_is_final(schema: dict[str, Any]) -> None:
    for target in TARGETS.values():
        first = convert_parameters(target, schema)
        limits = {rule.rule for rule in target.rules if isinstance(rule.match, Limit)}
        for finding in first.left:
            assert finding.severity == REJECTS
            assert finding.code.rsplit(":", 1)[1] in (*UNMENDABLE, *limits), (target.name, finding)
        second = convert_parameters(target, first.parameters)
        assert second.changes == (), (target.name, second.changes)
        assert second.parameters == first.parameters
