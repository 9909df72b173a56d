"""llguidance's JSON Schema converter (behind vLLM's guidance backend), with its
default options (``lenient: false``): a keyword it does not implement is an error."""

from __future__ import annotations

from toolaudit.targets.rules import REJECTS, Keyword, Rule, Target, keyword_rules

COMMIT = "https://github.com/guidance-ai/llguidance/blob/c75b0d90e12c941b881566e0a77bb5fa24cd2731"
SOURCE = f"{COMMIT}/parser/src/json/schema.rs"
FORMATS_SOURCE = f"{COMMIT}/parser/src/json/formats.rs"
CHECKED = "2026-12-05"

#: Keywords Draft 2020-12 knows (in Draft.is_known_keyword's order) that are neither
#: IMPLEMENTED nor META_AND_ANNOTATIONS: compiling bails with "Unimplemented keys: [...]".
UNIMPLEMENTED = (
    "dependencies",
    "not",
    "uniqueItems",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "$recursiveAnchor",
    "$recursiveRef",
    "dependentRequired",
    "dependentSchemas",
    "maxContains",
    "minContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicAnchor",
    "$dynamicRef",
)
#: The formats lookup_format knows; any other is "Unknown format: ...".
FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
     "uri", "unknown"}
)  # fmt: skip


def _unknown_format(value: object) -> bool:
    return value not in FORMATS


TARGET = Target(
    "llguidance",
    "llguidance's JSON Schema converter (default options)",
    (
        *keyword_rules("unimplemented", REJECTS, UNIMPLEMENTED,
                       "{keyword} is not implemented: compiling fails (Unimplemented keys)",
                       SOURCE, CHECKED),
        Rule("unknown-format", REJECTS, Keyword("format", _unknown_format, "not a known format"),
             "format {value} is unknown: compiling fails", FORMATS_SOURCE, CHECKED),
    ),
)  # fmt: skip
