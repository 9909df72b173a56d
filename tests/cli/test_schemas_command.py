"""The schemas command: a table of tools, one line per warning and per defect, totals, JSON on
request, and an exit code that says the worst finding (0 clean, 1 warnings, 2 a defect)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import invoke

CITY = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def write(tmp_path, content, name="tools.json"):
    path = tmp_path / name
    path.write_text(json.dumps(content))
    return str(path)


def test_clean_schemas_exit_0_with_the_table_and_totals(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        [
            {
                "type": "function",
                "function": {"name": "get_weather", "strict": True, "parameters": CITY},
            },
            {"name": "ping", "input_schema": {"type": "object"}},
        ],
    )
    result = invoke("schemas", "tools.json")
    assert result.exit_code == 0
    assert result.stdout == (
        "tool         shape                 parameters  depth  file\n"
        "get_weather  openai-chat (strict)           1      1  tools.json\n"
        "ping         anthropic                      0      0  tools.json\n"
        "\n"
        "2 tools, 0 warnings, 0 defects\n"
    )


def test_warnings_alone_exit_1_one_line_each(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parameters = {
        "type": "object",
        "properties": {"days": {"type": "integer", "enum": [1, "2"]}},
        "required": ["ghost"],
    }
    write(tmp_path, [{"type": "function", "name": "forecast", "parameters": parameters}])
    result = invoke("schemas", "tools.json")
    assert result.exit_code == 1
    assert result.stdout.split("\n\n")[1:] == [
        "warnings\n"
        'forecast  /properties/days/enum/1  enum value "2" is not of the declared type (integer): '
        "a call sending it fails the type check\n"
        "forecast  /required/0              required 'ghost' is not declared under properties",
        "1 tool, 2 warnings, 0 defects\n",
    ]


def test_a_defect_exits_2_and_an_unreadable_file_is_one_located_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    broken = {"name": "broken", "input_schema": {"properties": {"a": {"type": "strin"}}}}
    write(tmp_path, [broken, {"name": "fine", "input_schema": CITY}])
    result = invoke("schemas", "tools.json", "missing.json")
    assert result.exit_code == 2
    table, defects, totals = result.stdout.split("\n\n")
    assert "fine" in table and "broken" not in table
    assert defects.splitlines() == [
        "defects",
        "schemas file tools.json: tool 'broken': parameter 'a': unknown type name 'strin' "
        "(known: string, integer, number, boolean, array, object, null)",
        "schemas file missing.json: cannot read: No such file or directory",
    ]
    assert totals == "1 tool, 0 warnings, 2 defects\n"
    assert result.stderr == ""  # the report is data: all of it on stdout


def test_a_warning_and_a_defect_exit_2(tmp_path):
    warned = {"name": "w", "input_schema": {"properties": {"a": {}}, "required": ["b"]}}
    path = write(tmp_path, [warned, {"name": "d", "input_schema": []}])
    assert invoke("schemas", path).exit_code == 2


def test_json_output_parses_with_the_documented_keys_and_the_same_exit_code(tmp_path):
    strict = {"type": "function", "name": "t", "strict": True, "parameters": {"type": "object"}}
    path = write(tmp_path, [strict])
    result = invoke("schemas", path, "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert list(report) == ["tools", "warnings", "defects"]
    assert report["tools"] == [
        {
            "name": "t",
            "file": path,
            "shape": "openai-responses",
            "strict": True,
            "parameters": 0,
            "depth": 0,
            "question": None,
        }
    ]
    assert report["warnings"] == [
        {
            "code": "strict-open-object",
            "tool": "t",
            "path": "",
            "message": "strict mode: an object must set additionalProperties: false",
            "file": path,
            "question": None,
        }
    ]
    assert report["defects"] == []
    missing = json.loads(invoke("schemas", "-f", "json", str(tmp_path / "nope.json")).stdout)
    assert [defect["tool"] for defect in missing["defects"]] == [None]


def test_a_bfcl_question_file_lists_its_tools_with_depths_and_questions(in_repo):
    path = "tests/fixtures/bfcl/BFCL_v4_parallel_multiple.json"
    result = invoke("schemas", path)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["tool", "shape", "parameters", "depth", "question", "file"]
    assert lines[1].split() == [
        "math_toolkit.sum_of_multiples",
        "bfcl",
        "3",
        "2",
        "parallel_multiple_0",
        path,
    ]
    tools = json.loads(invoke("schemas", path, "-f", "json").stdout)["tools"]
    names = len({tool["name"] for tool in tools})  # a tool may be in several questions
    assert lines[-1] == f"{names} tools ({len(tools)} definitions), 0 warnings, 0 defects"
    assert len({tool["question"] for tool in tools}) == 200


def test_names_and_paths_from_a_schema_cannot_repaint_the_terminal(tmp_path):
    name = "evil\x1b[2J\u202e"
    parameters = {"properties": {"k\n": {"type": "string", "enum": [1]}}}
    path = write(tmp_path, [{"name": name, "input_schema": parameters}])
    result = invoke("schemas", path)
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "evil\\x1b[2J\\u202e" in result.stdout
    assert "/properties/k\\n/enum/0" in result.stdout


def test_the_command_is_listed_and_its_help_gives_the_exit_codes():
    assert "schemas" in invoke("--help").stdout
    help_text = invoke("schemas", "--help").stdout
    assert "1 warnings only" in help_text and "text or json" in help_text


def test_a_tool_defined_in_two_files_is_one_tool_of_two_definitions(tmp_path):
    alike = [write(tmp_path, {"t": {"parameters": CITY}}, name) for name in ("a.json", "b.json")]
    result = invoke("schemas", *alike)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "1 tool (2 definitions), 0 warnings, 0 defects"
    other = write(tmp_path, {"t": {"parameters": {"type": "object"}}}, "c.json")
    result = invoke("schemas", alike[0], other)
    assert result.exit_code == 2
    assert result.stdout.splitlines()[-1] == "1 tool (2 definitions), 0 warnings, 1 defect"


#: A JSON array 1,000 levels deep: the parser reads it, anything that recurses on it fails.
DEEP = "[" * 1000 + '"string"' + "]" * 1000


@pytest.mark.parametrize(
    "parameters",
    [
        f'{{"properties": {{"a": {{"type": {DEEP}}}}}}}',
        f'{{"properties": {{"a": {{"type": "string"}}}}, "required": {DEEP}}}',
        '{"properties": {"a": {"type": "string", "maxLength": 1%s}}}' % ("0" * 400),
        '{"properties": {"a": {"type": "number", "maximum": 1e400}}}',
    ],
    ids=["type", "required", "maxLength", "maximum"],
)
def test_a_hostile_schema_is_one_defect_line_and_exit_2(tmp_path, parameters):
    path = tmp_path / "hostile.json"
    path.write_text(f'{{"t": {{"parameters": {parameters}}}}}')
    result = invoke("schemas", str(path))
    huge_number = "e400" in parameters or "0" * 400 in parameters
    if huge_number and result.exit_code != 2:  # read exactly, then listed as a tool
        assert result.stdout.splitlines()[-1].startswith("1 tool, ")
        return
    assert result.exit_code == 2
    defects, totals = result.stdout.split("\n\n")
    assert defects.startswith(f"defects\nschemas file {path}: tool 't': ")
    assert defects.count("\n") == 1
    assert totals == "0 tools, 0 warnings, 1 defect\n"


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "tools.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps([{"name": "a", "input_schema": CITY}]).encode())
    result = invoke("schemas", str(path))
    assert result.exit_code == 0, result.stdout
    assert result.stdout.endswith("1 tool, 0 warnings, 0 defects\n")


def test_a_bfcl_file_of_one_question_lists_its_tools(in_repo, tmp_path):
    first = Path("tests/fixtures/formats/bfcl_questions.jsonl").read_text().splitlines()[0]
    path = tmp_path / "one.jsonl"
    path.write_text(first + "\n")
    result = invoke("schemas", str(path))
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[1].split()[4] == "simple_python_1"
