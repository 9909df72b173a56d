"""The targets' rules as a Markdown table, for docs/targets.md (a test keeps the page's
copy equal to this)."""

from __future__ import annotations

from toolaudit.targets.registry import TARGETS
from toolaudit.targets.rules import Keyword, KeywordOutside, Limit, Match, Structure, ToolName

#: How the table says what a structural rule matches.
SHAPES = {
    "open-object": "an object without `additionalProperties: false`",
    "optional-property": "a property its object does not list in `required`",
    "root-not-object": "a parameters schema whose `type` is not `object`",
    "root-any-of": "a parameters schema that is an `anyOf`",
    "recursive": "a recursive schema",
    "external-ref": "a `$ref` that is not local",
    "whole-schema": "the whole schema",
}
#: How the table says what a limit counts.
MEASURES = {
    "object-depth": "levels of object nesting",
    "properties": "object properties in all",
    "enum-values": "enum values in all",
    "string-size": "characters of names, enum and const values in all",
    "large-enum-size": "characters in one string enum of over 250 values",
    "tools": "tools in one file (one request)",
}


def matched(match: Match) -> str:
    """What a rule matches, in a few words."""
    if isinstance(match, Keyword):
        said = f"`{match.name}`" + (f" {match.when_says}" if match.when_says else "")
        return said + (f" on type `{match.on_type}`" if match.on_type else "")
    if isinstance(match, KeywordOutside):
        return f"a keyword other than its {len(match.allowed)} fields"
    if isinstance(match, Limit):
        return f"over {match.maximum:,} {MEASURES[match.measure]}"
    if isinstance(match, Structure):
        return SHAPES[match.shape]
    if isinstance(match, ToolName):
        return f"a tool name not {match.says}"
    raise AssertionError(match)


def rules_table() -> str:
    """Every rule of every target: code, severity, what it matches, source and date."""
    lines = ["| code | severity | matches | source (checked) |", "|---|---|---|---|"]
    for target in TARGETS.values():
        for rule in target.rules:
            lines.append(
                f"| `{target.code(rule)}` | {rule.severity} | {matched(rule.match)} "
                f"| [{_page(rule.source)}]({rule.source}) ({rule.checked}) |"
            )
    return "\n".join(lines) + "\n"


def _page(url: str) -> str:
    host_and_path = url.split("://", 1)[-1]
    return host_and_path.split("/", 1)[0] + " " + host_and_path.rsplit("/", 1)[-1]
