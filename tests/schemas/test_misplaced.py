"""What stands where nothing reads it: a bare map of parameters, a top-level keyword of the
wrong kind (a defect one level down), a keyword the declared type leaves without effect.
`toolaudit schemas` says so; the contract still judges calls as it did."""

from __future__ import annotations

import json

import pytest

from toolaudit.contract import validate_tool_call
from toolaudit.schemas.lint import (
    BARE_PARAMETER_MAP,
    KEYWORD_WITHOUT_EFFECT,
    MALFORMED_ROOT_KEYWORD,
)
from toolaudit.schemas.report import SchemaReport, inspect_schema_files

from ..conftest import FIXTURES, REPO, invoke

BARE = {"city": {"type": "string"}, "days": {"type": "integer"}}


def report_of(tmp_path, parameters) -> SchemaReport:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "t", "parameters": parameters}]))
    return inspect_schema_files(str(path))


def found(report: SchemaReport) -> list[tuple[str, str]]:
    return [(warning.code, warning.path) for warning in report.warnings]


def test_a_bare_map_is_one_warning_at_the_root_naming_its_parameters(tmp_path):
    report = report_of(tmp_path, BARE)
    (warning,) = report.warnings
    assert (warning.code, warning.path) == (BARE_PARAMETER_MAP, "")
    assert warning.message == (
        "a bare map of parameters ('city', 'days'), not a schema: no parameter is declared "
        'and every argument of a call is unexpected; meant {"type": "object", '
        '"properties": {...}} around them?'
    )
    assert report.tools[0].parameters == 0


def test_a_bare_map_still_makes_every_argument_unexpected_to_the_contract():
    # Only `toolaudit schemas` says so: the contract judges the call as it always has.
    outcome = validate_tool_call({"t": {"parameters": BARE}}, {"name": "t", "arguments": BARE})
    assert outcome == {"ok": False, "errors": ["unexpected:city", "unexpected:days"]}


@pytest.mark.parametrize(
    "parameters",
    [
        {**BARE, "required": ["city"], "description": "the weather"},
        {"title": {"type": "string"}, "type": {"description": "a kind"}},
        {f"p{i}": {"enum": [i]} for i in range(5)},
    ],
)
def test_a_bare_map_may_hold_required_a_description_and_parameters_named_as_keywords(
    tmp_path, parameters
):
    assert BARE_PARAMETER_MAP in [code for code, _ in found(report_of(tmp_path, parameters))]


def test_a_long_bare_map_names_three_parameters_and_counts_the_rest(tmp_path):
    (warning, *_) = report_of(tmp_path, {f"p{i}": {"enum": [i]} for i in range(5)}).warnings
    assert "('p0', 'p1', 'p2' and 2 more)" in warning.message


@pytest.mark.parametrize(
    "parameters",
    [
        {},
        {"description": "takes nothing"},
        {"x-vendor": {"owner": "me"}},  # an unknown key holding no schema
        {"type": "object"},
        {"properties": {"city": {"type": "string"}}},
        {"items": {"type": "string"}},  # an array's schema: items is a keyword
        {"not": {"type": "null"}},
        {"$defs": {"point": {"type": "object"}}},
        {"city": {"type": "string"}, "limit": 3},  # a value that is no schema
        {"city": {"type": "string"}, "required": "city"},  # a required of the wrong kind
    ],
)
def test_what_is_not_a_bare_map(tmp_path, parameters):
    assert BARE_PARAMETER_MAP not in [code for code, _ in found(report_of(tmp_path, parameters))]


#: A root keyword of the wrong kind, where it points, and deep mode's reason.
WRONG_KIND = [
    ({"pattern": {"x": 1}}, "/pattern", "pattern must be a string, not an object"),
    ({"type": "strin"}, "/type", "unknown type name 'strin' (known: "),
    ({"minimum": "3"}, "/minimum", "minimum must be a finite number, not a string"),
    ({"maxLength": -1}, "/maxLength", "maxLength must be a non-negative integer"),
    ({"multipleOf": 0}, "/multipleOf", "multipleOf must be a number above 0"),
    ({"uniqueItems": "yes"}, "/uniqueItems", "uniqueItems must be a boolean, not a string"),
    ({"enum": "a"}, "/enum", "enum must be an array, not a string"),
    ({"anyOf": []}, "/anyOf", "anyOf must be a non-empty array of schemas"),
    ({"allOf": [{"type": "string"}, 5]}, "/allOf/1", "a schema must be an object or a boolean"),
    ({"items": 4}, "/items", "a schema must be an object or a boolean, not a number"),
    ({"$ref": 7}, "/$ref", "$ref must be a string, not a number"),
]


@pytest.mark.parametrize(("keyword", "pointer", "reason"), WRONG_KIND)
def test_a_root_keyword_of_the_wrong_kind_is_reported_as_one_level_down_it_is_a_defect(
    tmp_path, keyword, pointer, reason
):
    parameters = {"type": "object", "properties": {"q": {"type": "string"}}, **keyword}
    report = report_of(tmp_path, parameters)
    (warning,) = [w for w in report.warnings if w.code == MALFORMED_ROOT_KEYWORD]
    assert warning.path == pointer
    assert warning.message.startswith(reason)
    assert warning.message.endswith("(a defect below the top level; here nothing reads it)")
    assert report.defects == ()
    below = {"type": "object", "properties": {"q": {"type": "string", **keyword}}}
    (defect,) = report_of(tmp_path, below).defects
    assert reason in defect.message


def test_a_well_formed_root_says_nothing_of_its_keywords(tmp_path):
    parameters = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
        "additionalProperties": False,
        "$defs": {"x": {"type": "string"}},
        "description": "search",
    }
    assert report_of(tmp_path, parameters).warnings == ()


@pytest.mark.parametrize(
    ("spec", "keyword", "message"),
    [
        ({"type": "array", "required": ["a"]}, "required", "array: it constrains only an object"),
        ({"type": "string", "items": {}}, "items", "string: it constrains only an array"),
        (
            {"type": ["integer", "null"], "minLength": 2},
            "minLength",
            "integer or null: it constrains only a string",
        ),
        ({"type": "boolean", "maximum": 3}, "maximum", "boolean: it constrains only a number"),
        (
            {"type": "string", "properties": {}},
            "properties",
            "string: it constrains only an object",
        ),
    ],
)
def test_a_keyword_the_declared_type_excludes_has_no_effect(tmp_path, spec, keyword, message):
    report = report_of(tmp_path, {"type": "object", "properties": {"a": spec}})
    (warning,) = [w for w in report.warnings if w.code == KEYWORD_WITHOUT_EFFECT]
    assert warning.path == f"/properties/a/{keyword}"
    assert warning.message == f"{keyword} has no effect under type {message}"


def test_a_required_list_without_effect_is_one_warning_not_two(tmp_path):
    spec = {"type": "array", "required": ["a"]}
    report = report_of(tmp_path, {"type": "object", "properties": {"a": spec}})
    assert found(report) == [(KEYWORD_WITHOUT_EFFECT, "/properties/a/required")]


@pytest.mark.parametrize(
    "spec",
    [
        {"minLength": 1, "minimum": 2, "items": {}, "required": []},  # no type: all apply
        {"type": ["string", "null"], "minLength": 1},
        {"type": "integer", "minimum": 0, "multipleOf": 2},
        {"type": "number", "exclusiveMaximum": 5},
        {"type": "object", "properties": {}, "minProperties": 1},
        {"type": "array", "items": {}, "uniqueItems": True},
    ],
)
def test_a_keyword_beside_no_type_or_a_type_that_admits_its_kind_applies(tmp_path, spec):
    report = report_of(tmp_path, {"type": "object", "properties": {"a": spec}})
    assert KEYWORD_WITHOUT_EFFECT not in [code for code, _ in found(report)]


def test_at_the_root_the_arguments_are_an_object_whatever_the_type_says(tmp_path):
    parameters = {"type": "array", "properties": {"q": {}}, "pattern": "^a", "minItems": 1}
    report = report_of(tmp_path, parameters)
    assert found(report) == [
        (KEYWORD_WITHOUT_EFFECT, "/minItems"),
        (KEYWORD_WITHOUT_EFFECT, "/pattern"),
        (KEYWORD_WITHOUT_EFFECT, "/type"),
    ]
    messages = [warning.message for warning in report.warnings]
    assert messages == [
        "minItems has no effect at the top level: the arguments are an object, not an array",
        "pattern has no effect at the top level: the arguments are an object, not a string",
        "type (array) has no effect at the top level: the arguments are judged as an object",
    ]


def test_the_command_reports_each_case_in_text_and_in_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tools = [
        {"name": "bare", "parameters": BARE},
        {"name": "root", "parameters": {"type": "object", "pattern": {"x": 1}}},
        {"name": "list", "parameters": {"properties": {"a": {"type": "array", "minLength": 1}}}},
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    result = invoke("schemas", "tools.json")
    assert result.exit_code == 1
    warnings = result.stdout.split("warnings\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[:2] for line in warnings] == [
        ["bare", "(root)"],
        ["root", "/pattern"],
        ["list", "/properties/a/minLength"],
    ]
    assert "pattern must be a string, not an object" in warnings[1]
    assert "minLength has no effect under type array" in warnings[2]
    result = invoke("schemas", "tools.json", "--format", "json")
    assert result.exit_code == 1
    listed = json.loads(result.stdout)["warnings"]
    assert [(w["code"], w["tool"], w["path"]) for w in listed] == [
        (BARE_PARAMETER_MAP, "bare", ""),
        (MALFORMED_ROOT_KEYWORD, "root", "/pattern"),
        (KEYWORD_WITHOUT_EFFECT, "list", "/properties/a/minLength"),
    ]
    assert listed[0]["message"].startswith("a bare map of parameters ('city', 'days')")


@pytest.mark.parametrize(
    ("path", "tools"),
    [
        (FIXTURES / "bfcl" / "BFCL_v4_simple_python.json", 400),
        (FIXTURES / "bfcl" / "BFCL_v4_parallel_multiple.json", 520),
        (REPO / "sample_logs" / "schemas.json", 6),
    ],
)
def test_published_tool_lists_earn_no_false_positive(path, tools):
    report = inspect_schema_files(str(path))
    assert (len(report.tools), report.warnings, report.defects) == (tools, (), ())


@pytest.mark.parametrize("keyword", ["type", "minimum", "enum", "anyOf"])
def test_a_root_keyword_nested_hundreds_of_levels_deep_is_no_crash(tmp_path, keyword):
    nested: object = "string"
    for _ in range(900):
        nested = [nested]
    report = report_of(tmp_path, {"properties": {}, keyword: nested})
    assert len(report.tools) + len(report.defects) == 1
