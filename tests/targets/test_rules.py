"""Every target rule fires on a minimal schema, at the right place, and no rule fires on a
schema its target takes as it is."""

from __future__ import annotations

from typing import Any

import pytest

from toolaudit.schemas.lint import WARNINGS_PER_TOOL
from toolaudit.targets import TARGETS, anthropic_strict
from toolaudit.targets.check import target_findings
from toolaudit.targets.rules import IGNORES, REJECTS, Structure


def closed(**properties: Any) -> dict[str, Any]:
    """An object strict modes take: every property required, no other allowed."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


STRING = {"type": "string"}
WITH = {  # an object whose one property "a" adds a keyword
    keyword: closed(a={"type": "string", keyword: value})
    for keyword, value in {
        "allOf": [STRING],
        "not": {"type": "integer"},
        "dependentRequired": {},
        "dependentSchemas": {},
        "if": STRING,
        "then": STRING,
        "else": STRING,
        "minimum": 1,
        "maximum": 1,
        "exclusiveMinimum": 1,
        "exclusiveMaximum": 1,
        "multipleOf": 2,
        "minLength": 1,
        "maxLength": 1,
        "maxItems": 1,
    }.items()
}


#: A value for each keyword xgrammar drops, and each llguidance refuses.
XGRAMMAR_DROPS = {
    "not": STRING,
    "if": STRING,
    "then": STRING,
    "else": STRING,
    "dependentRequired": {},
    "dependentSchemas": {},
    "uniqueItems": True,
    "contains": STRING,
    "minContains": 1,
    "maxContains": 2,
}
LLGUIDANCE_REFUSES = {
    **XGRAMMAR_DROPS,
    "dependencies": {},
    "propertyNames": STRING,
    "unevaluatedItems": False,
    "unevaluatedProperties": False,
    "$recursiveAnchor": True,
    "$recursiveRef": "#",
    "$dynamicAnchor": "a",
    "$dynamicRef": "#a",
}


def nested(levels: int) -> dict[str, Any]:
    schema = closed()
    for _ in range(levels - 1):
        schema = closed(inner=schema)
    return schema


#: code -> (a minimal schema the rule fires on, the pointer it names).
FIRING: dict[str, tuple[dict[str, Any], str]] = {
    "target:openai-strict:root-not-object": ({"type": "array", "items": STRING}, ""),
    "target:openai-strict:root-any-of": ({"anyOf": [closed(), closed()]}, "/anyOf"),
    "target:openai-strict:open-object": ({"type": "object", "properties": {}}, ""),
    "target:openai-strict:optional-property": (
        {"type": "object", "properties": {"a": STRING}, "additionalProperties": False},
        "/properties/a",
    ),
    **{
        f"target:openai-strict:unsupported-{keyword}": (WITH[keyword], f"/properties/a/{keyword}")
        for keyword in ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then")
    },
    "target:openai-strict:unsupported-else": (WITH["else"], "/properties/a/else"),
    "target:openai-strict:object-depth": (nested(11), "/properties/inner" * 10),
    "target:openai-strict:properties": (closed(**{f"p{i}": STRING for i in range(5001)}), ""),
    "target:openai-strict:enum-values": (closed(a={"enum": list(range(1001))}), ""),
    "target:openai-strict:string-size": (closed(a={"enum": ["x" * 120_001]}), ""),
    "target:openai-strict:large-enum-size": (
        closed(a={"enum": [f"{i:060}" for i in range(251)]}),
        "/properties/a/enum",
    ),
    "target:openai:not-enforced": (closed(), ""),
    "target:openai:tool-name": (closed(), ""),
    "target:openai-strict:tool-name": (closed(), ""),
    "target:anthropic:not-enforced": (closed(), ""),
    **{
        f"target:anthropic-strict:unsupported-{keyword}": (
            WITH[keyword],
            f"/properties/a/{keyword}",
        )
        for keyword in anthropic_strict.UNSUPPORTED
    },
    "target:anthropic-strict:min-items": (
        closed(a={"type": "array", "minItems": 2}),
        "/properties/a/minItems",
    ),
    "target:anthropic-strict:additional-properties": (
        {"type": "object", "additionalProperties": True},
        "/additionalProperties",
    ),
    "target:anthropic-strict:complex-enum": (closed(a={"enum": [{"b": 1}]}), "/properties/a/enum"),
    "target:anthropic-strict:external-ref": (
        closed(a={"$ref": "https://example.com/a.json"}),
        "/properties/a/$ref",
    ),
    "target:anthropic-strict:recursive": (
        {
            "$defs": {"node": closed(next={"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]})},
            **closed(root={"$ref": "#/$defs/node"}),
        },
        "",
    ),
    "target:gemini:unknown-field": (closed(), "/additionalProperties"),
    "target:gemini:type-list": (
        {"type": "object", "properties": {"a": {"type": ["string", "null"]}}},
        "/properties/a/type",
    ),
    "target:gemini:enum-not-strings": (
        {"type": "object", "properties": {"a": {"type": "integer", "enum": [1, 2]}}},
        "/properties/a/enum",
    ),
    "target:gemini:default": (
        {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}},
        "/properties/a/default",
    ),
    "target:gemini-json-schema:root-not-object": ({"type": "array", "items": STRING}, ""),
    "target:bedrock:root-not-object": ({"type": "array", "items": STRING}, ""),
    "target:bedrock:tool-name": (closed(), ""),
    "target:bedrock:not-enforced": (closed(), ""),
    **{
        f"target:xgrammar:ignored-{keyword}": (
            {"type": "object", "properties": {"a": {keyword: value}}},
            f"/properties/a/{keyword}",
        )
        for keyword, value in XGRAMMAR_DROPS.items()
    },
    "target:xgrammar:number-multiple-of": (
        closed(a={"type": "number", "multipleOf": 0.5}),
        "/properties/a/multipleOf",
    ),
    "target:xgrammar:all-of-several": (
        closed(a={"allOf": [STRING, STRING]}),
        "/properties/a/allOf",
    ),
    "target:xgrammar:external-ref": (closed(a={"$ref": "other.json#/a"}), "/properties/a/$ref"),
    **{
        f"target:llguidance:unimplemented-{keyword.lstrip('$')}": (
            {"type": "object", "properties": {"a": {keyword: value}}},
            f"/properties/a/{keyword}",
        )
        for keyword, value in LLGUIDANCE_REFUSES.items()
    },
    "target:llguidance:unknown-format": (
        closed(a={"type": "string", "format": "ipv5"}),
        "/properties/a/format",
    ),
}

#: code -> the tool name its firing case is given (a rule on names, not schemas).
NAMED = {
    code: "math.factorial"
    for code in (
        "target:bedrock:tool-name",
        "target:openai:tool-name",
        "target:openai-strict:tool-name",
    )
}
#: Rules judged on a request (a file's tools), not on one schema: see test_files.
PER_REQUEST = {"target:openai:tools", "target:openai-strict:tools"}

#: For each target, a schema it takes as it is (nothing rejected, nothing ignored).
COMPLIANT: dict[str, dict[str, Any]] = {
    "openai-strict": closed(
        city=STRING,
        days={"type": ["integer", "null"], "minimum": 1},
        stops={"type": "array", "items": closed(name=STRING), "minItems": 2},
        unit={"anyOf": [{"type": "string", "enum": ["C", "F"]}, {"type": "null"}]},
    ),
    "anthropic-strict": {
        "$defs": {"place": closed(name=STRING)},
        **closed(
            city=STRING,
            stops={"type": "array", "items": {"$ref": "#/$defs/place"}, "minItems": 1},
            unit={"enum": ["C", "F", None]},
            when={"type": "string", "format": "date"},
        ),
    },
    "gemini": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "a city", "nullable": True},
            "unit": {"type": "string", "enum": ["C", "F"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "stops": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        },
        "required": ["city"],
        "propertyOrdering": ["city", "unit", "days", "stops"],
    },
    "xgrammar": closed(
        n={"type": "integer", "multipleOf": 2},
        m={"allOf": [STRING]},
        r={"$ref": "#/properties/n"},
        s={"type": "string", "pattern": "^a+$", "format": "email"},
    ),
    "llguidance": {
        "$defs": {"n": {"type": "integer", "multipleOf": 2}},
        **closed(
            n={"$ref": "#/$defs/n"},
            s={"type": "string", "format": "date-time", "minLength": 1},
            m={"type": "object", "patternProperties": {"^x": STRING}, "maxProperties": 3},
            o={"oneOf": [STRING, {"type": "integer"}], "default": 1, "title": "o"},
        ),
    },
    "bedrock": {"type": "object", "properties": {"a": {"not": STRING}}, "$schema": "x"},
    "gemini-json-schema": {
        "type": "object",
        "properties": {"city": STRING, "unit": {"anyOf": [STRING, {"type": "null"}]}},
        "additionalProperties": False,
    },
}


def _codes(target: str, schema: dict[str, Any], name: str = "forecast") -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in target_findings(TARGETS[target], schema, name=name):
        found.setdefault(finding.code, []).append(finding.pointer)
    return found


def test_every_rule_has_a_firing_case() -> None:
    assert sorted([*FIRING, *PER_REQUEST]) == sorted(
        target.code(rule) for target in TARGETS.values() for rule in target.rules
    )


@pytest.mark.parametrize("code", sorted(FIRING))
def test_the_rule_fires_where_it_says(code: str) -> None:
    schema, pointer = FIRING[code]
    target = code.split(":")[1]
    codes = _codes(target, schema, NAMED.get(code, "forecast"))
    assert pointer in codes.get(code, []), codes


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_no_rule_fires_on_a_schema_the_target_takes(target: str) -> None:
    takes_all = (
        any(rule.match == Structure("whole-schema") for rule in TARGETS[target].rules)
        and target not in COMPLIANT
    )  # a mode that enforces nothing says so of every schema
    if takes_all:
        assert list(_codes(target, closed(city=STRING))) == [f"target:{target}:not-enforced"]
        return
    unenforced = [
        f"target:{target}:{r.rule}" for r in TARGETS[target].rules if r.rule == "not-enforced"
    ]
    assert list(_codes(target, COMPLIANT[target])) == unenforced


def test_a_finding_carries_its_rule_source_and_severity() -> None:
    (finding,) = target_findings(TARGETS["gemini"], {"type": "object", "$schema": "x"})
    assert finding.target == "gemini"
    assert finding.severity == REJECTS
    assert finding.code == "target:gemini:unknown-field"
    assert finding.pointer == "/$schema"
    assert "Unknown name '$schema'" in finding.message
    assert finding.source == "https://ai.google.dev/api/caching#Schema"


def test_a_nested_pointer_goes_through_items_and_anyof() -> None:
    schema = closed(
        a={
            "type": "array",
            "items": {"anyOf": [STRING, {"type": "object", "properties": {"b~/c": STRING}}]},
        }
    )
    codes = _codes("openai-strict", schema)
    assert codes["target:openai-strict:optional-property"] == [
        "/properties/a/items/anyOf/1/properties/b~0~1c"
    ]
    assert codes["target:openai-strict:open-object"] == ["/properties/a/items/anyOf/1"]


def test_rules_fire_under_every_keyword_that_holds_subschemas() -> None:
    hidden = {"type": "integer", "minimum": 0}
    for keyword, value in {
        "not": hidden,
        "if": hidden,
        "patternProperties": {"^x": hidden},
        "propertyNames": {"maxLength": 3},
        "contains": hidden,
    }.items():
        codes = _codes("anthropic-strict", {"type": "object", keyword: value})
        assert any(code.startswith("target:anthropic-strict:unsupported-") for code in codes), (
            keyword
        )


def test_a_schema_10000_levels_deep_is_walked_without_recursion() -> None:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(10_000):
        schema = {"type": "object", "properties": {"x": schema}, "additionalProperties": False}
    codes = _codes("openai-strict", schema)
    assert codes["target:openai-strict:object-depth"] == ["/properties/x" * 10]
    assert len(codes["target:openai-strict:optional-property"]) < WARNINGS_PER_TOOL + 1


def test_past_the_cap_findings_are_counted_and_keep_their_severity() -> None:
    schema = {
        "type": "object",
        "properties": {f"p{i}": STRING for i in range(150)},
        "additionalProperties": False,
    }
    findings = target_findings(TARGETS["openai-strict"], schema)
    assert len(findings) == WARNINGS_PER_TOOL + 1
    last = findings[-1]
    assert last.code == "target:openai-strict:too-many-findings"
    assert last.severity == REJECTS
    assert last.message == "50 more findings not listed"


def test_a_keyword_condition_spares_the_values_it_allows() -> None:
    for allowed in (0, 1):
        assert _codes("anthropic-strict", closed(a={"type": "array", "minItems": allowed})) == {}
    assert _codes("anthropic-strict", {"type": "object", "additionalProperties": False}) == {}


def test_severities_are_the_two_words() -> None:
    for target in TARGETS.values():
        assert target.rules
        for rule in target.rules:
            assert rule.severity in (REJECTS, IGNORES)
            assert rule.source.startswith("https://")
            assert rule.checked == "2026-12-05"


@pytest.mark.parametrize("target", ["bedrock", "openai", "openai-strict"])
def test_a_tool_name_the_target_takes_is_spared_and_one_it_refuses_is_quoted(target) -> None:
    for name in ("get_weather", "a-b", "x" * 64):
        assert f"target:{target}:tool-name" not in _codes(target, closed(), name)
    for name in ("math.factorial", "x" * 65, "", "naïve"):
        assert f"target:{target}:tool-name" in _codes(target, closed(), name), name
    (finding,) = [
        f
        for f in target_findings(TARGETS["bedrock"], closed(), name="math.factorial")
        if f.code.endswith("tool-name")
    ]
    assert finding.message == 'tool name "math.factorial": 1 to 64 letters, digits, _ or -'


def test_without_a_name_no_name_rule_fires() -> None:
    assert "target:bedrock:tool-name" not in {
        f.code for f in target_findings(TARGETS["bedrock"], closed())
    }
