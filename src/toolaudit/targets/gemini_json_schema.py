"""Gemini function declarations' ``parametersJsonSchema``: JSON Schema, which must
describe an object whose properties are the parameters."""

from __future__ import annotations

from toolaudit.targets.rules import REJECTS, Rule, Structure, Target

SOURCE = "https://ai.google.dev/api/caching#FunctionDeclaration"
CHECKED = "2026-12-05"

TARGET = Target(
    "gemini-json-schema",
    "Gemini function declarations' parametersJsonSchema (JSON Schema)",
    (
        Rule("root-not-object", REJECTS, Structure("root-not-object"),
             "the schema must describe an object (type is {value})", SOURCE, CHECKED),
    ),
)  # fmt: skip
