"""Loading schemas files: JSON or lines of JSON, several files merged, BFCL question files keyed
by question, defects refused with the file named, and a digest of what was loaded."""

from __future__ import annotations

import json

import pytest

from toolaudit.errors import SchemaError
from toolaudit.schemas.loading import load_schemas
from toolaudit.schemas.report import inspect_schema_files

from ..conftest import FIXTURES

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_a_file_of_lines_of_tool_definitions(tmp_path):
    path = tmp_path / "tools.jsonl"
    lines = [
        {"type": "function", "function": {"name": "a", "parameters": CITY}},
        {"name": "b", "input_schema": CITY},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert set(load_schemas(str(path)).validator.tools) == {"a", "b"}


@pytest.mark.parametrize(
    "request_body",
    [
        {"model": "gpt-4o", "messages": [], "tools": [{"type": "function", "function": {
            "name": "get_weather", "parameters": CITY}}]},
        {"contents": [], "tools": [{"functionDeclarations": [{"name": "get_weather",
            "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}},
            "required": ["city"]}}]}]},
        {"modelId": "m", "messages": [], "toolConfig": {"tools": [{"toolSpec": {
            "name": "get_weather", "inputSchema": {"json": CITY}}}]}},
    ],
    ids=["openai", "gemini", "bedrock"],
)  # fmt: skip
def test_a_saved_request_gives_its_tools(tmp_path, request_body):
    """Not a tool named after the request's key (a Bedrock request gave one, toolConfig)."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request_body))
    validator = load_schemas(str(path)).validator
    assert set(validator.tools) == {"get_weather"}
    assert validator.validate({"name": "get_weather", "arguments": {}})["errors"] == [
        "missing:city"
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
    questions = FIXTURES / "formats" / "bfcl_questions.jsonl"
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


#: A JSON array 1,000 levels deep: the parser reads it, anything that recurses on it fails.
DEEP = "[" * 1000 + '"string"' + "]" * 1000


@pytest.mark.parametrize(
    ("parameters", "deep"),
    [
        (f'{{"properties": {{"a": {{"type": {DEEP}}}}}}}', False),
        (f'{{"properties": {{"a": {{"type": "string"}}}}, "required": {DEEP}}}', False),
        (f'{{"properties": {{"a": {{"properties": {{"b": {{"type": {DEEP}}}}}}}}}}}', True),
    ],
    ids=["type", "required", "nested-type"],
)
def test_deeply_nested_schemas_are_a_schema_error_naming_the_file(tmp_path, parameters, deep):
    """Not a RecursionError: a defect, as any broken schema is."""
    path = tmp_path / "hostile.json"
    path.write_text(f'{{"t": {{"parameters": {parameters}}}}}')
    with pytest.raises(SchemaError) as raised:
        load_schemas(str(path), deep=deep)
    assert str(path) in str(raised.value)


def test_a_deeply_nested_top_level_type_is_ignored_as_a_shallow_one_is(tmp_path):
    # The parameters' own "type" is not the contract's to check (any value loads): at
    # 1,000 levels too, where digesting it once raised a RecursionError.
    for value in ('["string"]', DEEP):
        path = tmp_path / "top.json"
        path.write_text(f'{{"t": {{"parameters": {{"type": {value}}}}}}}')
        assert load_schemas(str(path)).validator is not None


#: Numbers beyond a double: a schema may be refused for them, or judge by them exactly.
HUGE_NUMBERS = {
    "maxLength-400-digits": '{"type": "string", "maxLength": 1%s}' % ("0" * 400),
    "minItems-400-digits": '{"type": "array", "minItems": 1%s}' % ("0" * 400),
    "maximum-1e400": '{"type": "number", "maximum": 1e400}',
    "multipleOf-400-digits": '{"type": "number", "multipleOf": 1%s}' % ("0" * 400),
}


@pytest.mark.parametrize("deep", [False, True])
@pytest.mark.parametrize("case", sorted(HUGE_NUMBERS))
def test_huge_numbers_are_a_schema_error_or_read_never_an_overflow(tmp_path, case, deep):
    path = tmp_path / "huge.json"
    path.write_text(f'{{"t": {{"parameters": {{"properties": {{"a": {HUGE_NUMBERS[case]}}}}}}}}}')
    try:
        validator = load_schemas(str(path), deep=deep).validator
    except SchemaError as error:
        assert str(path) in str(error)
        return
    for value in ("x", 1.5, [1], 10**400, 10**401):  # judged, whatever the verdict
        assert validator.validate({"name": "t", "arguments": {"a": value}})["ok"] in (True, False)


def test_numbers_orjson_refuses_are_read_exactly(tmp_path):
    path = tmp_path / "big.json"
    digits = "9" * 400
    path.write_text(f'{{"t": {{"parameters": {{"properties": {{"a": {{"enum": [{digits}]}}}}}}}}}}')
    validator = load_schemas(str(path)).validator
    assert validator.validate({"name": "t", "arguments": {"a": int(digits)}})["ok"]
    assert not validator.validate({"name": "t", "arguments": {"a": float("inf")}})["ok"]


@pytest.mark.parametrize("name", ["tools.json", "tools.jsonl"])
def test_a_byte_order_mark_is_skipped_as_in_logs(tmp_path, name):
    path = tmp_path / name
    lines = [json.dumps({"name": "a", "input_schema": CITY}), json.dumps({"t": {}})]
    content = lines[0] + "\n" + json.dumps({"name": "b", "input_schema": CITY}) + "\n"
    path.write_bytes(b"\xef\xbb\xbf" + (content if name.endswith("l") else lines[1]).encode())
    expected = {"a", "b"} if name.endswith("l") else {"t"}
    assert set(load_schemas(str(path)).validator.tools) == expected


def test_a_bfcl_question_file_of_one_question_is_read_as_one(tmp_path):
    questions = (FIXTURES / "formats" / "bfcl_questions.jsonl").read_text().splitlines()
    path = tmp_path / "one_question.jsonl"
    path.write_text(questions[0] + "\n")
    schema_set = load_schemas(str(path))
    assert schema_set.validator is None
    assert set(schema_set.keyed) == {"simple_python_1"}


def test_a_mapping_with_tools_named_id_and_function_is_not_a_question(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"id": {"parameters": CITY}, "function": {}}))
    assert set(load_schemas(str(path)).validator.tools) == {"id", "function"}


def test_a_deep_definition_given_twice_is_compared_without_recursing(tmp_path):
    """Python's == recurses; past its limit the merge compares canonical JSON instead,
    which is written at any depth: the two copies are one tool, as shallow ones are."""
    value = '"x"'
    for _ in range(990):
        value = f'{{"a": {value}}}'
    tool = f'{{"name": "f", "input_schema": {{"properties": {{"p": {{"default": {value}}}}}}}}}'
    twice = tmp_path / "twice.json"
    twice.write_text(f"[{tool}, {tool}]")
    validator = load_schemas(str(twice)).validator
    assert validator is not None and list(validator.tools) == ["f"]
    assert not inspect_schema_files(str(twice)).defects
    other = tool.replace('"x"', '"y"')
    twice.write_text(f"[{tool}, {other}]")  # two definitions that differ deep down
    with pytest.raises(SchemaError, match=r"defined twice|differently|conflict"):
        load_schemas(str(twice))
