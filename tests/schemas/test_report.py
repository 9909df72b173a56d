"""What `toolaudit schemas` finds in schemas files: each tool with its shape and depth, each
warning code on the smallest schema that earns it (and none on a clean one), strict mode's
rules, and defects as values that hide no other tool."""

from __future__ import annotations

import json

import pytest

from toolaudit.schemas.lint import (
    BARE_PARAMETER_MAP,
    ENUM_TYPE_MISMATCH,
    KEYWORD_WITHOUT_EFFECT,
    MALFORMED_ROOT_KEYWORD,
    REQUIRED_NOT_DECLARED,
    STRICT_OPEN_OBJECT,
    STRICT_OPTIONAL_PROPERTY,
    TOO_MANY_WARNINGS,
    UNCHECKED_KEYWORD,
    UNUSABLE_PATTERN,
    WARNING_CODES,
    WARNINGS_PER_TOOL,
)
from toolaudit.schemas.report import SchemaReport, inspect_schema_files, inspect_tool
from toolaudit.schemas.tooldefs import CONTRACT_SHAPE, ToolDefinition

from ..conftest import FIXTURES

#: A schema with a bit of everything, none of it wrong: strict mode's rules kept too.
CLEAN = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "pattern": "^[A-Z][a-z]+$"},
        "units": {"type": "string", "enum": ["c", "f"]},
        "days": {"type": ["integer", "null"], "enum": [1, 2.0, None]},
        "where": {"$ref": "#/$defs/point"},
        "tags": {
            "type": "array",
            "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/point"}]},
        },
    },
    "required": ["city", "units", "days", "where", "tags"],
    "additionalProperties": False,
    "$defs": {
        "point": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
            "additionalProperties": False,
        }
    },
}


def write(tmp_path, content, name="tools.json"):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def report_of(tmp_path, definitions) -> SchemaReport:
    return inspect_schema_files(write(tmp_path, definitions))


def chat_tool(parameters, *, strict=False, name="t"):
    function = {"name": name, "parameters": parameters, **({"strict": True} if strict else {})}
    return {"type": "function", "function": function}


def codes(report: SchemaReport) -> list[tuple[str, str]]:
    return [(warning.code, warning.path) for warning in report.warnings]


def test_a_clean_schema_earns_no_warning_strict_or_not(tmp_path):
    for strict in (False, True):
        report = report_of(tmp_path, [chat_tool(CLEAN, strict=strict)])
        assert report.warnings == () and report.defects == ()
        (tool,) = report.tools
        assert (tool.name, tool.shape, tool.strict, tool.parameters, tool.depth) == (
            "t",
            "openai-chat",
            strict,
            5,
            3,  # tags -> an item (a point) -> lat
        )


#: code -> the smallest parameters schema that earns it, and where it points.
MINIMAL = {
    UNCHECKED_KEYWORD: (
        {"properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}]}}},
        "/properties/pair/prefixItems",
    ),
    UNUSABLE_PATTERN: (
        {"properties": {"word": {"type": "string", "pattern": "(a)\\1"}}},
        "/properties/word/pattern",
    ),
    REQUIRED_NOT_DECLARED: (
        {"properties": {"city": {"type": "string"}}, "required": ["city", "ghost"]},
        "/required/1",
    ),
    ENUM_TYPE_MISMATCH: (
        {"properties": {"days": {"type": "integer", "enum": [1, "2"]}}},
        "/properties/days/enum/1",
    ),
    MALFORMED_ROOT_KEYWORD: (
        {"properties": {"q": {"type": "string"}}, "pattern": {"x": 1}},
        "/pattern",
    ),
    KEYWORD_WITHOUT_EFFECT: (
        {"properties": {"tags": {"type": "array", "minLength": 1}}},
        "/properties/tags/minLength",
    ),
}


@pytest.mark.parametrize("code", sorted(MINIMAL))
def test_each_warning_code_fires_on_a_minimal_schema(tmp_path, code):
    parameters, path = MINIMAL[code]
    report = report_of(tmp_path, [chat_tool({"type": "object", **parameters})])
    assert codes(report) == [(code, path)]
    assert report.defects == () and len(report.tools) == 1
    (warning,) = report.warnings
    assert (warning.tool, warning.file) == ("t", str(tmp_path / "tools.json"))


def test_every_warning_code_is_tested():
    # (a bare map has no "type": "object" to stand beside: tests/schemas/test_misplaced.py)
    elsewhere = {
        STRICT_OPEN_OBJECT,
        STRICT_OPTIONAL_PROPERTY,
        TOO_MANY_WARNINGS,
        BARE_PARAMETER_MAP,
    }
    assert set(WARNING_CODES) == set(MINIMAL) | elsewhere


def test_an_unusable_pattern_is_reported_with_the_pattern_and_left_unchecked(tmp_path):
    report = report_of(tmp_path, [chat_tool({"properties": {"w": {"pattern": "(a)\\1"}}})])
    (warning,) = report.warnings
    assert '"(a)\\\\1"' in warning.message and "left unchecked" in warning.message


def test_enum_values_of_the_declared_type_pass_and_an_integral_float_is_an_integer(tmp_path):
    parameters = {
        "properties": {
            "n": {"type": "integer", "enum": [1, 2.0, 2.5, True]},
            "s": {"type": ["string", "null"], "enum": ["a", None, 3]},
        }
    }
    report = report_of(tmp_path, [chat_tool(parameters)])
    assert codes(report) == [
        (ENUM_TYPE_MISMATCH, "/properties/n/enum/2"),
        (ENUM_TYPE_MISMATCH, "/properties/n/enum/3"),
        (ENUM_TYPE_MISMATCH, "/properties/s/enum/2"),
    ]
    assert "(integer)" in report.warnings[0].message
    assert "(string or null)" in report.warnings[2].message


def test_required_names_declared_by_an_allof_branch_count_below_the_top_level_only(tmp_path):
    # Deep mode counts names a nested allOf branch declares; the contract reads only the
    # top level's own properties, so there a name declared in a branch is still undeclared.
    branch = {"allOf": [{"properties": {"b": {"type": "string"}}}], "required": ["b"]}
    parameters = {
        "properties": {"nested": {"type": "object", **branch}},
        **branch,
    }
    report = report_of(tmp_path, [chat_tool(parameters)])
    assert [c for c in codes(report) if c[0] == REQUIRED_NOT_DECLARED] == [
        (REQUIRED_NOT_DECLARED, "/required/0")
    ]


def test_warnings_are_found_through_refs_combinators_items_and_defs(tmp_path):
    bad = {"type": "string", "enum": [1]}
    parameters = {
        "properties": {
            "a": {"$ref": "#/definitions/used"},
            "b": {"type": "array", "items": {"oneOf": [{"type": "null"}, bad]}},
        },
        "definitions": {"used": {"type": "object", "properties": {"c": bad}}},
        "$defs": {"unused": bad},
    }
    report = report_of(tmp_path, [chat_tool(parameters)])
    assert codes(report) == [
        (ENUM_TYPE_MISMATCH, "/$defs/unused/enum/0"),
        (ENUM_TYPE_MISMATCH, "/definitions/used/properties/c/enum/0"),
        (ENUM_TYPE_MISMATCH, "/properties/b/items/oneOf/1/enum/0"),
    ]


def test_a_ref_is_followed_as_deep_mode_follows_it_escapes_and_all(tmp_path):
    """~1 is "/", ~0 is "~", %25 is "%": the warning names the definition where it stands."""
    bad = {"type": "string", "enum": [1]}
    parameters = {
        "properties": {"a": {"$ref": "#/$defs/a~1b~0c%25"}},
        "$defs": {"a/b~c%": {"type": "object", "properties": {"d": bad}}},
    }
    report = report_of(tmp_path, [chat_tool(parameters)])
    assert codes(report) == [(ENUM_TYPE_MISMATCH, "/$defs/a~1b~0c%/properties/d/enum/0")]


def test_a_recursive_schema_is_walked_once_and_its_depth_is_none(tmp_path):
    node = {
        "type": "object",
        "properties": {"child": {"$ref": "#/$defs/node"}, "n": {"type": "integer", "enum": ["x"]}},
    }
    parameters = {"properties": {"root": {"$ref": "#/$defs/node"}}, "$defs": {"node": node}}
    report = report_of(tmp_path, [chat_tool(parameters)])
    assert report.tools[0].depth is None
    assert codes(report) == [(ENUM_TYPE_MISMATCH, "/$defs/node/properties/n/enum/0")]


STRICT_BROKEN = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "units": {"type": "string"},
        "where": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/point"}]},
    },
    "required": ["city", "where"],
    "$defs": {
        "point": {
            "type": "object",
            "properties": {"lat": {"type": "number"}},
            "required": ["lat"],
            "additionalProperties": True,
        }
    },
}


@pytest.mark.parametrize(
    "definition",
    [
        chat_tool(STRICT_BROKEN, strict=True),
        {"type": "function", "name": "t", "strict": True, "parameters": STRICT_BROKEN},
        {"name": "t", "strict": True, "input_schema": STRICT_BROKEN},
    ],
    ids=["openai-chat", "openai-responses", "anthropic"],
)
def test_a_strict_tool_must_close_every_object_and_require_every_property(tmp_path, definition):
    report = report_of(tmp_path, [definition])
    assert report.tools[0].strict
    assert codes(report) == [
        (STRICT_OPEN_OBJECT, ""),
        (STRICT_OPEN_OBJECT, "/$defs/point"),
        (STRICT_OPTIONAL_PROPERTY, "/properties/units"),
    ]
    assert "'units'" in report.warnings[2].message


def test_strict_rules_apply_only_to_tools_that_ask_for_strict_mode(tmp_path):
    not_strict = [chat_tool(STRICT_BROKEN), {"type": "function", "name": "u", "strict": "yes"}]
    report = report_of(tmp_path, not_strict)
    assert [tool.strict for tool in report.tools] == [False, False]
    assert report.warnings == ()


@pytest.mark.parametrize(
    ("content", "shape"),
    [
        ({"t": {"parameters": CLEAN}}, CONTRACT_SHAPE),
        ([chat_tool(CLEAN)], "openai-chat"),
        ([{"type": "function", "name": "t", "parameters": CLEAN}], "openai-responses"),
        ({"functions": [{"name": "t", "parameters": CLEAN}]}, "openai-functions"),
        ([{"name": "t", "input_schema": CLEAN}], "anthropic"),
        (
            {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": CLEAN}]}},
            "mcp",
        ),
        (
            {"functionDeclarations": [{"name": "t", "parameters": {"type": "OBJECT"}}]},
            "gemini",
        ),
        ([{"toolSpec": {"name": "t", "inputSchema": {"json": CLEAN}}}], "bedrock"),
        ([{"name": "t", "parameters": {"type": "dict", "properties": {}}}], "bfcl"),
    ],
)
def test_the_shape_each_tool_was_recognised_in(tmp_path, content, shape):
    report = report_of(tmp_path, content)
    assert [(tool.name, tool.shape) for tool in report.tools] == [("t", shape)]


def test_a_defect_is_a_value_and_hides_no_other_tool_of_the_file(tmp_path):
    definitions = [
        chat_tool({"properties": {"a": {"type": "strin"}}}, name="contract_defect"),
        chat_tool(
            {"properties": {"a": {"type": "object", "properties": {"b": {"minimum": "x"}}}}},
            name="deep_defect",
        ),
        {"description": "no name"},
        chat_tool(CLEAN, name="fine"),
    ]
    report = report_of(tmp_path, definitions)
    assert [tool.name for tool in report.tools] == ["fine"]
    assert [defect.tool for defect in report.defects] == ["contract_defect", "deep_defect", None]
    messages = [defect.message for defect in report.defects]
    assert "unknown type name 'strin'" in messages[0]
    assert "#/properties/a/properties/b: minimum must be a finite number" in messages[1]
    assert "tool #3: unrecognised tool definition" in messages[2]
    assert all(message.startswith(f"schemas file {tmp_path}") for message in messages)


def test_files_that_cannot_be_read_are_defects_and_the_other_files_are_still_read(tmp_path):
    good = write(tmp_path, [chat_tool(CLEAN)], "good.json")
    broken = write(tmp_path, "{nope", "broken.json")
    empty = write(tmp_path, [{"type": "web_search"}], "empty.json")
    missing = str(tmp_path / "missing.json")
    report = inspect_schema_files([missing, broken, empty, good])
    assert [tool.file for tool in report.tools] == [good]
    assert [(defect.file, defect.tool) for defect in report.defects] == [
        (missing, None),
        (broken, None),
        (empty, None),
    ]
    assert "cannot read" in report.defects[0].message
    assert "not valid JSON" in report.defects[1].message
    assert "defines no tools" in report.defects[2].message


def test_what_loading_refuses_across_definitions_and_files_is_a_defect(tmp_path):
    one = {"type": "object", "properties": {"a": {"type": "string"}}}
    other = {"type": "object", "properties": {"a": {"type": "integer"}}}
    twice = write(tmp_path, [chat_tool(one), chat_tool(one), chat_tool(other)], "twice.json")
    again = write(tmp_path, {"t": {"parameters": other}}, "again.json")
    report = inspect_schema_files([twice, again])
    assert [defect.message for defect in report.defects] == [
        f"schemas file {twice}: tool 't': defined twice, differently",
        f"tool 't': defined differently in schemas files {twice} and {again}",
    ]
    assert [(tool.file, tool.shape) for tool in report.tools] == [
        (twice, "openai-chat"),
        (again, CONTRACT_SHAPE),
    ]


def test_a_bfcl_question_file_lists_each_questions_tools_with_their_depths():
    path = str(FIXTURES / "bfcl" / "BFCL_v4_simple_python.json")
    report = inspect_schema_files(path)
    assert report.defects == () and report.warnings == ()
    assert len(report.tools) == 400  # one function per question
    by_question = {tool.question: tool for tool in report.tools}
    first, query = by_question["simple_python_0"], by_question["simple_python_96"]
    assert (first.name, first.shape, first.parameters, first.depth) == (
        "calculate_triangle_area",
        "bfcl",
        3,
        1,
    )
    # conditions: an array of objects, each with leaves
    assert (query.name, query.parameters, query.depth) == ("database.query", 2, 3)
    assert {tool.depth for tool in report.tools} == {1, 2, 3}


@pytest.mark.slow
def test_a_schema_10000_levels_deep_does_not_crash_the_walk():
    node: dict = {"type": "string"}
    for _ in range(10_000):
        node = {"type": "object", "properties": {"a": node, "b": {"type": "string"}}}
    tool = ToolDefinition("deep", {"parameters": node}, CONTRACT_SHAPE, strict=True)
    report = inspect_tool(tool, file="<memory>")
    assert report.defects == ()
    assert report.tools[0].depth == 10_000  # 9,999 objects below the top level, then a leaf
    # Each level breaks both strict rules: the first warnings are listed, the rest counted.
    assert len(report.warnings) == WARNINGS_PER_TOOL + 1
    assert report.warnings[-1].code == TOO_MANY_WARNINGS
    assert (
        report.warnings[-1].message == f"{3 * 10_000 - WARNINGS_PER_TOOL} more warnings not listed"
    )
    assert max(len(warning.path) for warning in report.warnings) > 100


def test_the_report_as_a_dict_has_stable_keys(tmp_path):
    report = report_of(tmp_path, [chat_tool(STRICT_BROKEN, strict=True), {"name": 1}])
    as_dict = json.loads(json.dumps(report.to_dict()))
    assert list(as_dict) == ["tools", "warnings", "defects"]
    assert list(as_dict["tools"][0]) == [
        "name",
        "file",
        "shape",
        "strict",
        "parameters",
        "depth",
        "question",
    ]
    assert list(as_dict["warnings"][0]) == ["code", "tool", "path", "message", "file", "question"]
    assert list(as_dict["defects"][0]) == ["file", "tool", "message"]
