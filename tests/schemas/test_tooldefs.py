"""Tool definitions in every shape users have, and the BFCL and Gemini dialects, normalised to
the contract's shape: the same call is judged the same way whatever the shape it came in."""

from __future__ import annotations

import json

import pytest

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


def test_gemini_int64_bounds_written_as_strings_are_integers():
    """As the REST (proto-JSON) form writes them; a bound of another text is left to
    deep mode, which refuses it as a defect."""
    converted = gemini_to_json_schema(
        {
            "type": "OBJECT",
            "properties": {
                "tags": {"type": "ARRAY", "maxItems": "3", "minItems": "1",
                         "items": {"type": "STRING", "maxLength": "20", "minLength": "-0"}},
                "meta": {"type": "OBJECT", "maxProperties": "2", "minProperties": "x"},
                "n": {"type": "NUMBER", "maximum": "3"},
            },
        }
    )  # fmt: skip
    assert converted["properties"] == {
        "tags": {"type": "array", "maxItems": 3, "minItems": 1,
                 "items": {"type": "string", "maxLength": 20, "minLength": 0}},
        "meta": {"type": "object", "maxProperties": 2, "minProperties": "x"},
        "n": {"type": "number", "maximum": "3"},  # a double, not an int64: never a string
    }  # fmt: skip


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
