"""schemas --convert DIR: one --target only; each file written into DIR in its own shape
(only parameters change), what changed on stderr, the report of the files written on
stdout; and an audit against the original still judges what the target no longer holds
calls to, a strict-mode null for an optional string among it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import invoke

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
    "required": ["city"],
}
#: One tool in each shape a schemas file may hold it in: (file content, where its parameters are).
SHAPES = {
    "openai-chat.json": (
        [{"type": "function", "function": {"name": "w", "parameters": WEATHER}}],
        lambda doc: doc[0]["function"]["parameters"],
    ),
    "anthropic.json": (
        {"tools": [{"name": "w", "input_schema": WEATHER}]},
        lambda doc: doc["tools"][0]["input_schema"],
    ),
    "mcp.json": (
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "w", "inputSchema": WEATHER}]}},
        lambda doc: doc["result"]["tools"][0]["inputSchema"],
    ),
    "bedrock.json": (
        {"toolConfig": {"tools": [{"toolSpec": {"name": "w", "inputSchema": {"json": WEATHER}}}]}},
        lambda doc: doc["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"],
    ),
    "gemini.json": (
        [{"functionDeclarations": [{"name": "w", "parametersJsonSchema": WEATHER}]}],
        lambda doc: doc[0]["functionDeclarations"][0]["parametersJsonSchema"],
    ),
    "contract.json": ({"w": {"parameters": WEATHER}}, lambda doc: doc["w"]["parameters"]),
}
STRICT = {
    **WEATHER,
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": ["string", "null"], "enum": ["C", "F", None]},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_file_is_written_in_its_own_shape_only_its_parameters_converted(
    name: str, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    document, parameters_of = SHAPES[name]
    Path(name).write_text(json.dumps(document))
    result = invoke("schemas", name, "-t", "openai-strict", "--convert", "out")
    assert result.exit_code == 0, result.output
    written = json.loads(Path("out", name).read_text())
    assert parameters_of(written) == STRICT
    parameters_of(written).clear()
    parameters_of(written).update(WEATHER)
    assert written == document  # nothing else changed
    assert result.stderr == (
        f"converted {name} for openai-strict: out/{name}\n"
        "  w  /properties/unit  made required and nullable\n"
        "  w  /additionalProperties  object closed: additionalProperties false  "
        "[narrows: the target refuses calls the original schema takes]\n"
    )
    assert f"out/{name}" in result.stdout
    assert result.stdout.endswith("1 target finding (0 rejecting), 0 defects\n") or (
        result.stdout.endswith("0 target findings (0 rejecting), 0 defects\n")
    )


def test_bfcl_lines_stay_lines_and_an_unchanged_tool_keeps_its_dialect(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    question = {
        "id": "q1",
        "question": [[{"role": "user", "content": "hi"}]],
        "function": [
            {"name": "a", "parameters": {"type": "dict", "properties": {"n": {"type": "float"}}}},
            {
                "name": "b",
                "parameters": {
                    "type": "dict",
                    "properties": {"s": {"type": "string", "maxLength": 3}},
                },
            },
        ],
    }
    Path("q.json").write_text(
        json.dumps(question) + "\n" + json.dumps({**question, "id": "q2"}) + "\n"
    )
    result = invoke("schemas", "q.json", "-t", "anthropic-strict", "--convert", "out")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in Path("out/q.json").read_text().splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2"]
    first, second = lines[0]["function"]
    assert first == question["function"][0]  # unchanged: still BFCL's dict and float
    assert second["parameters"] == {
        "type": "object",
        "properties": {"s": {"type": "string", "description": "(maxLength 3)"}},
    }
    assert (
        "  b (q1)  /properties/s/maxLength  maxLength moved into the description" in result.stderr
    )
    assert "  a (q1): unchanged" in result.stderr


@pytest.mark.parametrize("targets", [[], ["-t", "gemini", "-t", "openai-strict"]])
def test_convert_takes_exactly_one_target(targets, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("t.json").write_text(json.dumps(SHAPES["contract.json"][0]))
    result = invoke("schemas", "t.json", *targets, "--convert", "out")
    assert result.exit_code == 2
    assert result.stderr == (
        "toolaudit: error: --convert takes exactly one --target: the one to convert for\n"
    )
    assert not Path("out").exists()


def test_two_files_of_one_name_are_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for folder in ("a", "b"):
        Path(folder).mkdir()
        Path(folder, "t.json").write_text(json.dumps(SHAPES["contract.json"][0]))
    result = invoke("schemas", "a/t.json", "b/t.json", "-t", "gemini", "--convert", "out")
    assert result.exit_code == 2
    assert "a/t.json and b/t.json would both be written to out/t.json" in result.stderr
    assert not Path("out").exists()


def test_a_file_is_never_written_over_itself(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("t.json").write_text(json.dumps(SHAPES["contract.json"][0]))
    result = invoke("schemas", "t.json", "-t", "gemini", "--convert", ".")
    assert result.exit_code == 2
    assert "t.json would be written over itself" in result.stderr


def test_what_cannot_be_converted_is_still_rejected_and_exits_1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    recursive = {
        "type": "object",
        "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
        "properties": {"root": {"$ref": "#/$defs/n"}},
    }
    Path("t.json").write_text(json.dumps({"tree": {"parameters": recursive}}))
    result = invoke("schemas", "t.json", "-t", "gemini", "--convert", "out")
    assert result.exit_code == 1
    assert (
        "  tree  /properties/root/$ref  still rejected: $ref is not a field of Gemini's Schema"
        in result.stderr
    )
    assert "[target:gemini:unknown-field]" in result.stdout


def test_the_audit_against_the_original_judges_a_strict_null_as_a_type_error(tmp_path, monkeypatch):
    """The documented choice: strict mode makes an optional parameter nullable, and a model
    sends null for it; the original says "type": "string", so the audit against it reports
    the null, as the tool would meet it. Against the converted schemas the call passes."""
    monkeypatch.chdir(tmp_path)
    Path("original.json").write_text(
        json.dumps([{"type": "function", "function": {"name": "w", "parameters": WEATHER}}])
    )
    assert (
        invoke("schemas", "original.json", "-t", "openai-strict", "--convert", "out").exit_code == 0
    )
    call = {"id": "c1", "name": "w", "arguments": {"city": "Paris", "unit": None}}
    Path("calls.jsonl").write_text(json.dumps(call) + "\n")
    against_original = invoke("audit", "calls.jsonl", "--schemas", "original.json", "--report", "-")
    against_converted = invoke(
        "audit", "calls.jsonl", "--schemas", "out/original.json", "--report", "-"
    )
    (row,) = [
        json.loads(line) for line in against_original.stdout.splitlines() if line.startswith("{")
    ]
    assert row["ok"] is False
    assert row["errors"] == ["type:unit"]
    assert row["why"] == {"type:unit": "expected string, got null"}
    assert against_original.exit_code == 1
    (row,) = [
        json.loads(line) for line in against_converted.stdout.splitlines() if line.startswith("{")
    ]
    assert row["ok"] is True
