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
