"""A target's findings on one tool's parameters schema: each construct its rules match,
with its JSON pointer, code, severity, message and source.

One walk per target over the schema (:func:`~toolaudit.targets.walk.subschemas`);
limits are counted along the way and judged at the end. A tool's findings are capped
as its lint warnings are, past WARNINGS_PER_TOOL counted in one last finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolaudit.deep import inspect_parameters
from toolaudit.errors import SchemaError
from toolaudit.schemas.lint import TOO_MANY_WARNINGS, listed
from toolaudit.schemas.places import At, child, is_object
from toolaudit.targets.rules import (
    IGNORES,
    REJECTS,
    Keyword,
    KeywordOutside,
    Limit,
    Rule,
    Severity,
    Structure,
    Target,
    ToolName,
)
from toolaudit.targets.walk import subschemas
from toolaudit.values import shown

#: A string enum longer than this has its own size limit (OpenAI's large-enum rule).
LARGE_ENUM = 250


@dataclass(frozen=True)
class Finding:
    """One construct a target rejects or ignores."""

    target: str
    severity: Severity
    #: ``target:<T>:<rule>``.
    code: str
    #: A JSON pointer into the tool's parameters schema ("" is the whole schema).
    pointer: str
    message: str
    source: str


def target_findings(
    target: Target, parameters: Mapping[str, Any], *, name: str | None = None
) -> list[Finding]:
    """What ``target`` rejects or ignores in one tool's parameters schema (and in its
    ``name``, when given), sorted by where it points; past WARNINGS_PER_TOOL, counted in
    one last finding."""
    by_code = {target.code(rule): rule for rule in target.rules}
    found = list(_name_findings(target, name))
    found.extend(_found(target, parameters))
    kept = listed((target.code(rule), at, message) for rule, at, message in found)
    findings = []
    for code, pointer, message in kept:
        if code == TOO_MANY_WARNINGS:
            # The count stands for every finding: it rejects when any of them does.
            rejected = any(rule.severity == REJECTS for rule, _, _ in found)
            severity: Severity = REJECTS if rejected else IGNORES
            counted = message.replace("warnings", "findings")
            findings.append(Finding(target.name, severity, _too_many(target), "", counted, ""))
            continue
        rule = by_code[code]
        findings.append(Finding(target.name, rule.severity, code, pointer, message, rule.source))
    return findings


def _too_many(target: Target) -> str:
    return f"target:{target.name}:too-many-findings"


#: A finding before it is listed: (its rule, where, its message).
_Found = tuple[Rule, "At | str | None", str]


def request_findings(target: Target, tools: int) -> list[Finding]:
    """What ``target`` rejects in a request of ``tools`` tools (a file's, a BFCL
    question's): judged on the tool past the limit, once."""
    return [
        Finding(
            target.name,
            rule.severity,
            target.code(rule),
            "",
            _said(rule, count=tools, maximum=rule.match.maximum),
            rule.source,
        )
        for rule in target.rules
        if isinstance(rule.match, Limit)
        and rule.match.measure == "tools"
        and tools == rule.match.maximum + 1
    ]


def _name_findings(target: Target, name: str | None) -> Iterator[_Found]:
    for rule in target.rules:
        match = rule.match
        if (
            isinstance(match, ToolName)
            and name is not None
            and re.fullmatch(match.pattern, name) is None
        ):
            yield rule, None, _said(rule, value=shown(name))


def _found(target: Target, parameters: Mapping[str, Any]) -> Iterator[_Found]:
    per_node = [r for r in target.rules if not isinstance(r.match, Limit | ToolName)]
    limits = [r for r in target.rules if isinstance(r.match, Limit)]
    totals = _Totals()
    for at, node, depth in subschemas(parameters):
        totals.add(node)
        for rule in per_node:
            yield from _node_findings(rule, at, node, parameters)
        for rule in limits:
            match = rule.match
            assert isinstance(match, Limit)
            if match.measure == "object-depth" and depth == match.maximum + 1 and is_object(node):
                yield rule, at, _said(rule, count=depth, maximum=match.maximum)
            elif match.measure == "large-enum-size":
                size = _large_enum_size(node)
                if size > match.maximum:
                    yield rule, child(at, "enum"), _said(rule, count=size, maximum=match.maximum)
    for rule in limits:
        match = rule.match
        assert isinstance(match, Limit)
        count = totals.of(match.measure)
        if count is not None and count > match.maximum:
            yield rule, None, _said(rule, count=count, maximum=match.maximum)


def _node_findings(
    rule: Rule, at: At | None, node: Mapping[str, Any], root: Mapping[str, Any]
) -> Iterator[_Found]:
    match = rule.match
    if isinstance(match, Keyword | KeywordOutside):
        for keyword in matched_keywords(match, node):
            # (A value is shown only where the message quotes it: an unknown keyword may
            # hold the rest of a schema 10,000 levels deep.)
            value = shown(node[keyword]) if "{value}" in rule.message else ""
            said = _said(rule, keyword=keyword, value=value)
            yield rule, child(at, keyword), said
    elif isinstance(match, Structure):
        yield from _structure_findings(rule, match, at, node, root)
    # A Limit is judged by _found, over the whole walk; a ToolName by _name_findings.


def _structure_findings(
    rule: Rule, match: Structure, at: At | None, node: Mapping[str, Any], root: Mapping[str, Any]
) -> Iterator[_Found]:
    shape = match.shape
    if shape == "open-object":
        if is_object(node) and node.get("additionalProperties") is not False:
            yield rule, at, _said(rule)
    elif shape == "optional-property":
        properties = node.get("properties")
        required = node.get("required")
        listed = set(required) if isinstance(required, list) else set()
        for name in properties if isinstance(properties, Mapping) else ():
            if name not in listed:
                yield rule, child(at, "properties", str(name)), _said(rule, keyword=name)
    elif shape == "external-ref":
        reference = node.get("$ref")
        if isinstance(reference, str) and not reference.startswith("#"):
            yield rule, child(at, "$ref"), _said(rule, value=shown(reference))
    elif at is not None:  # the rest are judged once, on the whole schema
        return
    elif shape == "root-not-object":
        if node.get("type") != "object":
            yield rule, None, _said(rule, value=shown(node.get("type")))
    elif shape == "root-any-of":
        if "anyOf" in node:
            yield rule, child(None, "anyOf"), _said(rule)
    elif shape == "recursive":
        if _is_recursive(root):
            yield rule, None, _said(rule)
    elif shape == "whole-schema":
        yield rule, None, _said(rule)


def matched_keywords(match: Keyword | KeywordOutside, node: Mapping[str, Any]) -> Iterator[str]:
    """The keywords of one subschema that a keyword rule matches."""
    if isinstance(match, KeywordOutside):
        yield from (str(keyword) for keyword in node if keyword not in match.allowed)
    elif (
        match.name in node
        and (match.when is None or match.when(node[match.name]))
        and (match.on_type is None or _declares(node, match.on_type))
    ):
        yield match.name


def _declares(node: Mapping[str, Any], type_name: str) -> bool:
    declared = node.get("type")
    return declared == type_name or (isinstance(declared, list) and type_name in declared)


def _is_recursive(parameters: Mapping[str, Any]) -> bool:
    """Whether deep mode finds the schema recursive (its depth unbounded). A schema
    deep mode cannot compile is a defect `toolaudit schemas` reports already."""
    try:
        return inspect_parameters("", parameters).depth is None
    except (SchemaError, OverflowError, RecursionError):
        return False


def _large_enum_size(node: Mapping[str, Any]) -> int:
    enum = node.get("enum")
    if not isinstance(enum, list) or len(enum) <= LARGE_ENUM:
        return 0
    return sum(len(value) for value in enum if isinstance(value, str))


class _Totals:
    """Counts over the whole schema, for its limits."""

    def __init__(self) -> None:
        self.properties = self.enum_values = self.string_size = 0

    def add(self, node: Mapping[str, Any]) -> None:
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            self.properties += len(properties)
            self.string_size += sum(len(str(name)) for name in properties)
        for keyword in ("$defs", "definitions"):
            named = node.get(keyword)
            if isinstance(named, Mapping):
                self.string_size += sum(len(str(name)) for name in named)
        enum = node.get("enum")
        if isinstance(enum, list):
            self.enum_values += len(enum)
            self.string_size += sum(len(value) for value in enum if isinstance(value, str))
        const = node.get("const")
        if isinstance(const, str):
            self.string_size += len(const)

    def of(self, measure: str) -> int | None:
        """The total of a measure counted over the whole schema; None for one judged
        where it stands (depth, a large enum)."""
        return {
            "properties": self.properties,
            "enum-values": self.enum_values,
            "string-size": self.string_size,
        }.get(measure)


def _said(rule: Rule, **fields: object) -> str:
    values = {"keyword": "", "value": "", "count": "", "maximum": "", **fields}
    return rule.message.format(**values)
