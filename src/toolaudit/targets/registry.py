"""The targets ``toolaudit schemas --target`` knows, one module each; the CLI's
choices, its help text and the docs' table come from here."""

from __future__ import annotations

from toolaudit.targets import (
    anthropic,
    anthropic_strict,
    gemini,
    gemini_json_schema,
    openai,
    openai_strict,
)
from toolaudit.targets.rules import Target

#: Target name -> its rules, in the order the help text lists them.
TARGETS: dict[str, Target] = {
    module.TARGET.name: module.TARGET
    for module in (openai_strict, openai, anthropic, anthropic_strict, gemini, gemini_json_schema)
}
