"""schemas --target: findings after the warnings, JSON findings with their target and
severity, and exit 1 when a target rejects a tool (2 still for a defect)."""

from __future__ import annotations

import json
from pathlib import Path

from toolaudit.targets import TARGETS
from toolaudit.targets.files import check_schema_files

from ..conftest import REPO, invoke

BFCL = str(REPO / "tests" / "fixtures" / "bfcl" / "BFCL_v4_simple_python.json")
SAMPLE = str(REPO / "sample_logs" / "schemas.json")
CLOSED = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def write(tmp_path: Path, parameters: dict) -> str:
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps([{"type": "function", "name": "forecast", "parameters": parameters}])
    )
    return str(path)


def test_a_rejecting_target_exits_1_and_lists_its_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, CLOSED)
    result = invoke("schemas", "tools.json", "--target", "gemini", "-t", "openai-strict")
    assert result.exit_code == 1
    table, after_it = result.stdout.split("\n\n", 1)
    assert after_it == (
        "targets\n"
        "forecast  rejects  /additionalProperties  additionalProperties is not a field of "
        "Gemini's Schema: the request fails (Unknown name 'additionalProperties') "
        "[target:gemini:unknown-field]\n\n"
        "sources\ntarget:gemini:unknown-field  https://ai.google.dev/api/caching#Schema\n\n"
        "1 tool, 0 warnings, 1 target finding (1 rejecting), 0 defects\n"
    )
    assert table.startswith("tool ")


def test_findings_that_only_ignore_leave_exit_0(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, CLOSED)
    result = invoke("schemas", "tools.json", "-t", "openai", "-t", "openai-strict")
    assert result.exit_code == 0
    assert "[target:openai:not-enforced]" in result.stdout
    assert result.stdout.endswith("1 target finding (0 rejecting), 0 defects\n")


def test_without_target_the_report_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, CLOSED)
    result = invoke("schemas", "tools.json", "--format", "json")
    assert result.exit_code == 0
    assert list(json.loads(result.stdout)) == ["tools", "warnings", "defects"]


def test_json_findings_carry_target_and_severity(tmp_path):
    path = write(tmp_path, {"type": "object", "properties": {"a": {"type": "string"}}})
    result = invoke("schemas", path, "--format", "json", "-t", "openai-strict")
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    assert [list(finding) for finding in findings] == [
        ["tool", "target", "severity", "code", "pointer", "message", "source", "file", "question"]
    ] * 2
    assert [(f["code"], f["pointer"], f["severity"]) for f in findings] == [
        ("target:openai-strict:open-object", "", "rejects"),
        ("target:openai-strict:optional-property", "/properties/a", "rejects"),
    ]
    assert {f["target"] for f in findings} == {"openai-strict"}


def test_a_defect_still_exits_2(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    result = invoke("schemas", str(path), "-t", "openai-strict")
    assert result.exit_code == 2


def test_an_unknown_target_is_a_usage_error(tmp_path):
    result = invoke("schemas", write(tmp_path, CLOSED), "-t", "mistral")
    assert result.exit_code == 2
    assert result.stdout == ""


def test_the_help_lists_every_target():
    result = invoke("schemas", "--help")
    text = "".join(result.stdout.split())  # (the help wraps at a name's hyphen)
    assert all(f"{name}," in text or f"{name}." in text for name in TARGETS)


def test_bfcl_and_the_sample_run_through_every_target():
    bfcl = check_schema_files(BFCL, list(TARGETS))
    counted: dict[str, int] = {}
    for finding in bfcl.findings:
        counted[finding.code] = counted.get(finding.code, 0) + 1
    assert counted == {
        "target:openai:not-enforced": 400,
        "target:anthropic:not-enforced": 400,
        "target:openai-strict:open-object": 407,
        "target:openai-strict:optional-property": 303,
        "target:gemini:default": 57,
        "target:gemini:unknown-field": 4,  # BFCL's "optional": true, four times
        "target:bedrock:not-enforced": 400,
        "target:bedrock:tool-name": 167,  # BFCL's dotted names: math.factorial
        "target:openai:tool-name": 167,
        "target:openai-strict:tool-name": 167,
    }
    sample = check_schema_files(SAMPLE, list(TARGETS))
    assert len(sample.findings) == 36  # 6 tools: bedrock enforces none of them
    assert [f.tool for f in sample.findings if f.target == "gemini"] == ["create_event"]
    assert sample.rejected


def test_a_request_of_too_many_tools_is_rejected_on_the_first_tool_past_the_limit(tmp_path):
    def tools(count: int) -> str:
        path = tmp_path / f"{count}.json"
        path.write_text(json.dumps({f"t{i}": {"parameters": CLOSED} for i in range(count)}))
        return str(path)

    assert not [
        f for f in check_schema_files(tools(128), ["openai"]).findings if f.code.endswith(":tools")
    ]
    (finding,) = [
        f for f in check_schema_files(tools(130), ["openai"]).findings if f.code.endswith(":tools")
    ]
    assert (finding.tool, finding.severity, finding.pointer) == ("t128", "rejects", "")
    assert finding.message == "tool #129 of this file (one request): at most 128 functions"


def test_each_bfcl_question_is_its_own_request(tmp_path):
    functions = [
        {"name": f"f{i}", "parameters": {"type": "dict", "properties": {}}} for i in range(100)
    ]
    path = tmp_path / "q.json"
    path.write_text("\n".join(json.dumps({"id": f"q{n}", "function": functions}) for n in range(2)))
    assert not [
        f for f in check_schema_files(str(path), ["openai"]).findings if f.code.endswith(":tools")
    ]
