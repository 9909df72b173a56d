"""OpenAI strict mode (``strict: true``, Structured Outputs): every object closed and
every property required; composition keywords refused; sizes limited."""

from __future__ import annotations

from toolaudit.targets.rules import (
    REJECTS,
    Limit,
    Rule,
    Structure,
    Target,
    ToolName,
    keyword_rules,
)

SOURCE = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
#: The API reference's ``tools`` (and a function's ``name``): the same for both modes.
API_SOURCE = "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools"
CHECKED = "2026-12-05"

#: What the API reference says of every request's tools, strict or not.
REQUEST_RULES = (
    Rule("tool-name", REJECTS,
         ToolName(r"[a-zA-Z0-9_-]{1,64}", "of 1 to 64 characters of `[a-zA-Z0-9_-]`"),
         "tool name {value}: 1 to 64 letters, digits, _ or -", API_SOURCE, CHECKED),
    Rule("tools", REJECTS, Limit("tools", 128),
         "tool #{count} of this file (one request): at most {maximum} functions",
         API_SOURCE, CHECKED),
)  # fmt: skip

#: Composition keywords the page lists as not supported.
UNSUPPORTED = ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else")

TARGET = Target(
    "openai-strict",
    "OpenAI function calling with strict: true (Structured Outputs)",
    (
        Rule("root-not-object", REJECTS, Structure("root-not-object"),
             "the root schema must be an object (type is {value})", SOURCE, CHECKED),
        Rule("root-any-of", REJECTS, Structure("root-any-of"),
             "the root schema must not be an anyOf", SOURCE, CHECKED),
        Rule("open-object", REJECTS, Structure("open-object"),
             "every object must set additionalProperties: false", SOURCE, CHECKED),
        Rule("optional-property", REJECTS, Structure("optional-property"),
             "every property must be required, and {keyword!r} is not"
             " (make it nullable instead)", SOURCE, CHECKED),
        *keyword_rules("unsupported", REJECTS, UNSUPPORTED, "{keyword} is not supported",
                       SOURCE, CHECKED),
        Rule("object-depth", REJECTS, Limit("object-depth", 10),
             "{count} levels of object nesting: at most {maximum}", SOURCE, CHECKED),
        Rule("properties", REJECTS, Limit("properties", 5000),
             "{count} object properties in all: at most {maximum}", SOURCE, CHECKED),
        Rule("enum-values", REJECTS, Limit("enum-values", 1000),
             "{count} enum values in all: at most {maximum}", SOURCE, CHECKED),
        Rule("string-size", REJECTS, Limit("string-size", 120_000),
             "{count} characters of property names, definition names, enum and const"
             " values: at most {maximum}", SOURCE, CHECKED),
        *REQUEST_RULES,
        Rule("large-enum-size", REJECTS, Limit("large-enum-size", 15_000),
             "a string enum of over 250 values holds {count} characters: at most {maximum}",
             SOURCE, CHECKED),
    ),
)  # fmt: skip
