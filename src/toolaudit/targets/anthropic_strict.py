"""Anthropic strict tool use (``strict: true``): grammar-constrained sampling over a
subset of JSON Schema; what is outside the subset is refused."""

from __future__ import annotations

from toolaudit.targets.rules import REJECTS, Keyword, Rule, Structure, Target, keyword_rules

SOURCE = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations"
CHECKED = "2026-12-05"

#: Numerical, string-length and array-length constraints the page lists as not supported.
#: (Not schemas.misplaced's keywords of numbers: importing schemas/ loads orjson, which
#: --target's choices must not cost the CLI's start-up.)
UNSUPPORTED = (
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",  # numbers
    "minLength", "maxLength",  # strings
    "maxItems",  # arrays
)  # fmt: skip


def _not_false(value: object) -> bool:
    return value is not False


def _beyond_one(value: object) -> bool:
    return not (isinstance(value, int) and value in (0, 1))


def _complex_enum(value: object) -> bool:
    return isinstance(value, list) and any(isinstance(each, dict | list) for each in value)


TARGET = Target(
    "anthropic-strict",
    "Anthropic tool use with strict: true (structured outputs)",
    (
        *keyword_rules("unsupported", REJECTS, UNSUPPORTED, "{keyword} is not supported",
                       SOURCE, CHECKED),
        Rule("min-items", REJECTS, Keyword("minItems", _beyond_one, "other than 0 or 1"),
             "minItems {value}: only 0 and 1 are supported", SOURCE, CHECKED),
        Rule("additional-properties", REJECTS,
             Keyword("additionalProperties", _not_false, "other than false"),
             "additionalProperties {value}: only false is supported", SOURCE, CHECKED),
        Rule("complex-enum", REJECTS, Keyword("enum", _complex_enum, "holding objects or arrays"),
             "enum values must be strings, numbers, booleans or null", SOURCE, CHECKED),
        Rule("external-ref", REJECTS, Structure("external-ref"),
             "$ref {value}: only local references (#...) are supported", SOURCE, CHECKED),
        Rule("recursive", REJECTS, Structure("recursive"),
             "a recursive schema is not supported", SOURCE, CHECKED),
    ),
)  # fmt: skip
