"""OpenAI function calling without strict mode: the schema is followed on a best-effort
basis, not enforced."""

from __future__ import annotations

from toolaudit.targets.openai_strict import REQUEST_RULES
from toolaudit.targets.rules import Target, not_enforced

SOURCE = "https://platform.openai.com/docs/guides/function-calling#strict-mode"
CHECKED = "2026-12-05"

TARGET = Target(
    "openai",  # not a log format
    "OpenAI function calling without strict: true",
    (
        not_enforced(
            "without strict: true, calls follow the schema on a best-effort basis:"
            " nothing in it is enforced",
            SOURCE,
            CHECKED,
        ),
        *REQUEST_RULES,
    ),
)
