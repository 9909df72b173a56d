"""The library refuses what the CLI refuses, with the same OptionError, before anything is read."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import toolaudit
from toolaudit.cli import app
from toolaudit.errors import OptionError, ToolAuditError
from toolaudit.pipeline import AuditOptions

from ..conftest import SAMPLE_LOGS

SAMPLE = str(SAMPLE_LOGS / "calls.jsonl")
SCHEMAS = str(SAMPLE_LOGS / "schemas.json")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (
            {"input_format": "nope"},
            "unknown input format 'nope': expected one of flat, openai-chat",
        ),
        ({"max_tools": 1}, "max_tools (--max-keys) must be a whole number of at least 2, not 1"),
        ({"max_params": True}, "max_params (--max-keys) must be a whole number"),
        ({"max_line_bytes": 0}, "max_line_bytes must be a whole number of at least 1"),
        ({"group_by": ("metadata..version",)}, "--group-by needs a dotted field path"),
        ({"group_by": ("model", "model")}, "--group-by names a field twice"),
    ],
)
def test_bad_options_raise_one_clear_error(options, words):
    with pytest.raises(OptionError) as raised:
        AuditOptions(**options)
    assert words in str(raised.value)
    assert isinstance(raised.value, ToolAuditError)


def test_a_lone_group_by_field_is_one_field():
    assert AuditOptions(group_by="model").group_by == ("model",)  # type: ignore[arg-type]


def test_the_library_refuses_before_reading():
    with pytest.raises(OptionError, match="unknown input format"):
        toolaudit.audit(["no-such-file.jsonl"], SCHEMAS, input_format="nope")
    with pytest.raises(OptionError, match="unknown option 'jobs': expected one of errors_only"):
        toolaudit.audit([SAMPLE], SCHEMAS, jobs=2)
    with pytest.raises(OptionError, match="jobs must be a whole number"):
        toolaudit.run_audit([SAMPLE], SCHEMAS, jobs=-1)


def test_the_cli_gives_the_same_message_as_the_library():
    result = CliRunner().invoke(app, ["audit", SAMPLE, "-s", SCHEMAS, "--max-keys", "1"])
    assert result.exit_code == 2
    assert result.stderr == (
        "toolaudit: error: max_tools (--max-keys) must be a whole number of at least 2, not 1\n"
    )
