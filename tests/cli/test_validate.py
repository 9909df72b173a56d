"""The validate command: one call judged, from an argument or stdin, and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import SAMPLE_SCHEMAS, invoke


def test_validate_one_call(in_repo):
    ok = invoke(
        "validate", '{"name": "get_weather", "arguments": {"city": "Paris"}}', "-s", SAMPLE_SCHEMAS
    )
    assert (ok.exit_code, json.loads(ok.stdout)) == (0, {"ok": True, "errors": []})
    bad = invoke(
        "validate",
        "-s",
        SAMPLE_SCHEMAS,
        input='{"name": "get_weather", "arguments": {"days": true, "tz": "UTC"}}',
    )
    assert bad.exit_code == 1
    assert json.loads(bad.stdout) == {
        "ok": False,
        "errors": ["missing:city", "type:days", "unexpected:tz"],
    }
    broken = invoke("validate", "{nope", "-s", SAMPLE_SCHEMAS)
    assert broken.exit_code == 2 and "not valid JSON" in broken.stderr


def test_arguments_given_as_json_text_are_malformed_with_a_note_saying_why(in_repo):
    """The contract takes an object; a call pasted from an OpenAI response carries text."""
    call = '{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}'
    result = invoke("validate", call, "-s", SAMPLE_SCHEMAS)
    assert json.loads(result.stdout) == {"ok": False, "errors": ["malformed:arguments"]}
    assert "note: arguments is a string; the contract takes an object" in result.stderr
    other = invoke("validate", '{"name": "get_weather", "arguments": 3}', "-s", SAMPLE_SCHEMAS)
    assert json.loads(other.stdout)["errors"] == ["malformed:arguments"]
    assert "note" not in other.stderr


def test_a_schemas_file_with_a_byte_order_mark_is_read(in_repo, tmp_path):
    schemas = tmp_path / "schemas.json"
    schemas.write_bytes(b"\xef\xbb\xbf" + Path(SAMPLE_SCHEMAS).read_bytes())
    result = invoke("validate", '{"name": "get_weather", "arguments": {}}', "-s", str(schemas))
    assert (result.exit_code, json.loads(result.stdout)["errors"]) == (1, ["missing:city"])
    assert result.stderr == ""


def test_a_schema_nested_too_deeply_is_one_line_and_exit_2(tmp_path):
    schemas = tmp_path / "schemas.json"
    deep = "[" * 1000 + '"string"' + "]" * 1000
    schemas.write_text(f'{{"t": {{"parameters": {{"properties": {{"a": {{"type": {deep}}}}}}}}}}}')
    result = invoke("validate", '{"name": "t", "arguments": {}}', "-s", str(schemas))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"toolaudit: error: schemas file {schemas}: tool 't'")
    assert result.stderr.count("\n") == 1
