"""The validate command: one call judged, from an argument or stdin, and its exit codes."""

from __future__ import annotations

import json

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
