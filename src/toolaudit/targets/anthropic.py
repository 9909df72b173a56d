"""Anthropic tool use without strict mode: the input schema guides the model, which may
still send other types or leave required fields out."""

from __future__ import annotations

from toolaudit.targets.rules import Target, not_enforced

SOURCE = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use"
CHECKED = "2026-12-05"

TARGET = Target(
    "anthropic",  # not a log format
    "Anthropic tool use without strict: true",
    (
        not_enforced(
            "without strict: true, Claude may send other types or leave required fields"
            " out: nothing in the schema is enforced",
            SOURCE,
            CHECKED,
        ),
    ),
)
