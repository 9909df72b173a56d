"""Schemas files in every shape users have, normalised to the seed's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolaudit.errors import SchemaError
from toolaudit.schemas.loading import load_schemas
from toolaudit.schemas.tooldefs import bfcl_to_json_schema, gemini_to_json_schema

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

SHAPES = {
    "seed mapping": {"get_weather": {"parameters": CITY}},
    "openai chat tools": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "d",
                "parameters": CITY,
                "strict": True,
            },
        }
    ],
    "openai chat request": {
        "model": "m",
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": CITY}}],
    },
    "openai responses tools": [
        {"type": "function", "name": "get_weather", "parameters": CITY, "strict": True},
        {"type": "web_search"},
        {"type": "custom", "name": "run_sql", "format": {"type": "text"}},
    ],
    "legacy functions": {
        "functions": [{"name": "get_weather", "description": "d", "parameters": CITY}]
    },
    "anthropic tools": [
        {"name": "get_weather", "description": "d", "input_schema": CITY},
        {"type": "web_search_20250305", "name": "web_search"},
    ],
    "mcp tools/list result": {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"tools": [{"name": "get_weather", "inputSchema": CITY}]},
    },
    "mcp tools list": {"tools": [{"name": "get_weather", "inputSchema": CITY, "annotations": {}}]},
    "gemini declarations": [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "parameters": {
                        "type": "OBJECT",
                        "properties": {"city": {"type": "STRING"}},
                        "required": ["city"],
                    },
                }
            ]
        },
        {"googleSearch": {}},
    ],
    "gemini json schema": [
        {"function_declarations": [{"name": "get_weather", "parametersJsonSchema": CITY}]}
    ],
    "bedrock tools": {
        "tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": CITY}}}]
    },
    "one openai tool": {
        "type": "function",
        "function": {"name": "get_weather", "parameters": CITY},
    },
    "bfcl function": [
        {
            "name": "get_weather",
            "description": "d",
            "parameters": {
                "type": "dict",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ],
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_schema_shape_judges_the_same_call_the_same_way(tmp_path, shape):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(SHAPES[shape]))
    validator = load_schemas(str(path)).validator
    assert validator is not None
    assert set(validator.tools) == {"get_weather"}
    assert validator.validate({"name": "get_weather", "arguments": {"city": "Paris"}})["ok"]
    assert validator.validate({"name": "get_weather", "arguments": {"city": 1, "x": 2}})[
        "errors"
    ] == [
        "type:city",
        "unexpected:x",
    ]


def test_a_file_of_lines_of_tool_definitions(tmp_path):
    path = tmp_path / "tools.jsonl"
    lines = [
        {"type": "function", "function": {"name": "a", "parameters": CITY}},
        {"name": "b", "input_schema": CITY},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert set(load_schemas(str(path)).validator.tools) == {"a", "b"}


def test_bfcl_dialect():
    converted = bfcl_to_json_schema(
        {
            "type": "dict",
            "properties": {
                "a": {"type": "float"},
                "b": {"type": "tuple", "items": {"type": "float"}},
                "c": {"type": "any"},
                "d": {"type": "dict", "properties": {"e": {"type": "float"}}},
                "f": {"type": "String"},
                "g": {"type": "long"},
                "h": {"type": ""},
            },
        }
    )
    assert converted == {
        "type": "object",
        "properties": {
            "a": {"type": "number"},
            "b": {"type": "array", "items": {"type": "number"}},
            "c": {},
            "d": {"type": "object", "properties": {"e": {"type": "number"}}},
            "f": {"type": "string"},
            "g": {"type": "integer"},
            "h": {},
        },
    }


def test_gemini_dialect():
    converted = gemini_to_json_schema(
        {
            "type": "OBJECT",
            "properties": {
                "a": {"type": "STRING", "format": "enum", "enum": ["x", "y"]},
                "b": {"type": "INTEGER", "nullable": True},
                "c": {"type": "INTEGER", "format": "enum", "enum": ["101", "201"]},
                "d": {"type": "TYPE_UNSPECIFIED"},
            },
        }
    )
    assert converted["properties"] == {
        "a": {"type": "string", "format": "enum", "enum": ["x", "y"]},
        "b": {"type": ["integer", "null"]},
        "c": {"type": "integer", "format": "enum", "enum": [101, 201]},
        "d": {},
    }


def test_parameters_omitted_or_null_mean_no_parameters(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            [
                {"type": "function", "function": {"name": "now"}},
                {"type": "function", "name": "later", "parameters": None},
            ]
        )
    )
    validator = load_schemas(str(path)).validator
    assert validator.validate({"name": "now", "arguments": {}})["ok"]
    assert validator.validate({"name": "later", "arguments": {"x": 1}})["errors"] == [
        "unexpected:x"
    ]


def test_several_files_merge_and_conflicts_name_both_files(tmp_path):
    first, second, third = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    first.write_text(json.dumps({"get_weather": {"parameters": CITY}}))
    second.write_text(
        json.dumps(
            [
                {"name": "get_time", "input_schema": {"type": "object"}},
                {"name": "get_weather", "input_schema": CITY},
            ]
        )
    )
    third.write_text(json.dumps({"get_weather": {"parameters": {"type": "object"}}}))
    assert set(load_schemas([str(first), str(second)]).validator.tools) == {
        "get_weather",
        "get_time",
    }
    with pytest.raises(SchemaError) as raised:
        load_schemas([str(first), str(third)])
    assert str(first) in str(raised.value) and str(third) in str(raised.value)
    assert "get_weather" in str(raised.value)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('[{"description": "no name"}]', "unrecognised tool definition"),
        ('[{"name": 3, "parameters": {}}]', "needs a name"),
        ('{"tools": [{"name": "t", "input_schema": []}]}', "must be an object"),
        (
            '{"a": {"parameters": {"properties": {"p": {"type": "strin"}}}}}',
            "unknown type name 'strin'",
        ),
        ("{}", "defines no tools"),
        ('{"a": 1}', "expected a JSON object mapping tool names"),
        ('{"a": {}}\n{"broken', "line 2: not valid JSON"),
    ],
)
def test_bad_schemas_files_are_refused_with_the_file_named(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(SchemaError) as raised:
        load_schemas(str(path))
    assert words in str(raised.value)
    assert str(path) in str(raised.value)


def test_bfcl_question_files_give_one_schema_set_per_question():
    questions = Path(__file__).parent / "fixtures" / "formats" / "bfcl_questions.jsonl"
    schema_set = load_schemas(str(questions))
    assert schema_set.validator is None
    assert set(schema_set.keyed) == {"simple_python_1", "simple_python_2"}
    first = schema_set.keyed["simple_python_1"]
    assert first.tools["math_factorial"] is first.tools["math.factorial"]


def test_the_digest_changes_with_the_schemas(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"t": {"parameters": CITY}}))
    b.write_text(json.dumps({"t": {}}))
    assert load_schemas(str(a)).digest != load_schemas(str(b)).digest
    assert load_schemas(str(a)).digest == load_schemas(str(a)).digest
