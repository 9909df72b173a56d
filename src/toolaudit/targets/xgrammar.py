"""xgrammar's JSON Schema converter (behind vLLM's and SGLang's structured output):
what it reads, logs a warning for, and leaves out of the grammar."""

from __future__ import annotations

from toolaudit.targets.rules import IGNORES, Keyword, Rule, Structure, Target, keyword_rules

SOURCE = (
    "https://github.com/mlc-ai/xgrammar/blob/53da3ff8c0db359ecb6d4b41f154308c82a89aaf"
    "/cpp/json_schema_converter.cc"
)
CHECKED = "2026-12-05"

#: Keywords SchemaParser warns of ("Keyword ... is not supported") and then drops.
DROPPED = (
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
)


def _several(value: object) -> bool:
    return isinstance(value, list) and len(value) > 1


TARGET = Target(
    "xgrammar",
    "xgrammar's JSON Schema converter (vLLM, SGLang)",
    (
        *keyword_rules("ignored", IGNORES, DROPPED,
                       "{keyword} is not supported: left out of the grammar", SOURCE, CHECKED),
        Rule("number-multiple-of", IGNORES, Keyword("multipleOf", on_type="number"),
             "multipleOf on type number is ignored (only integers take it)", SOURCE, CHECKED),
        Rule("all-of-several", IGNORES, Keyword("allOf", _several, "of more than one schema"),
             "allOf of more than one schema is generated as any value", SOURCE, CHECKED),
        Rule("external-ref", IGNORES, Structure("external-ref"),
             "$ref {value}: a reference not within the schema is generated as any value",
             SOURCE, CHECKED),
    ),
)  # fmt: skip
