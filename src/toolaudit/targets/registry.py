"""The targets ``toolaudit schemas --target`` knows, one module each; the CLI's
choices, its help text and the docs' table come from here."""

from __future__ import annotations

from toolaudit.targets.anthropic import TARGET as ANTHROPIC
from toolaudit.targets.anthropic_strict import TARGET as ANTHROPIC_STRICT
from toolaudit.targets.bedrock import TARGET as BEDROCK
from toolaudit.targets.gemini import TARGET as GEMINI
from toolaudit.targets.gemini_json_schema import TARGET as GEMINI_JSON_SCHEMA
from toolaudit.targets.llguidance import TARGET as LLGUIDANCE
from toolaudit.targets.openai import TARGET as OPENAI
from toolaudit.targets.openai_strict import TARGET as OPENAI_STRICT
from toolaudit.targets.rules import Target
from toolaudit.targets.xgrammar import TARGET as XGRAMMAR

#: Every target, in the order the help text lists them.
ORDER = (
    OPENAI_STRICT,
    OPENAI,
    ANTHROPIC,
    ANTHROPIC_STRICT,
    GEMINI,
    GEMINI_JSON_SCHEMA,
    BEDROCK,
    XGRAMMAR,
    LLGUIDANCE,
)
#: Target name -> its rules.
TARGETS: dict[str, Target] = {target.name: target for target in ORDER}
