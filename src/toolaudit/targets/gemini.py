"""Gemini function declarations' ``parameters``: a select subset of the OpenAPI 3.0
Schema object. A field outside it is refused ("Unknown name ..."), ``type`` is one
name, and ``enum`` holds strings."""

from __future__ import annotations

from toolaudit.targets.rules import IGNORES, REJECTS, Keyword, KeywordOutside, Rule, Target

SOURCE = "https://ai.google.dev/api/caching#Schema"
CHECKED = "2026-12-05"

#: The Schema object's fields (generativelanguage v1beta).
FIELDS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
        "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
        "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum",
        "maximum",
    }
)  # fmt: skip


def _not_one_name(value: object) -> bool:
    return not isinstance(value, str)


def _not_strings(value: object) -> bool:
    return isinstance(value, list) and not all(isinstance(each, str) for each in value)


TARGET = Target(
    "gemini",  # not a log format
    "Gemini function declarations' parameters (OpenAPI 3.0 subset)",
    (
        Rule("unknown-field", REJECTS, KeywordOutside(FIELDS),
             "{keyword} is not a field of Gemini's Schema: the request fails"
             " (Unknown name {keyword!r})", SOURCE, CHECKED),
        Rule("type-list", REJECTS, Keyword("type", _not_one_name, "not one name"),
             "type {value}: Gemini takes one type name (use nullable for null)",
             SOURCE, CHECKED),
        Rule("enum-not-strings", REJECTS, Keyword("enum", _not_strings, "not all strings"),
             "enum {value}: Gemini's enum holds strings only", SOURCE, CHECKED),
        Rule("default", IGNORES, Keyword("default"),
             "default is accepted and ignored", SOURCE, CHECKED),
    ),
)  # fmt: skip
