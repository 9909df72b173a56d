"""One tool's parameters schema rewritten for a target: what the target's rules reject,
changed into what it takes, and each change said.

The target's own rules say what to change, so that converting follows the rules as the
lint does (and a converted schema passes its target's lint):

- ``$schema`` is dropped; local ``$ref``s are written out where the target rejects
  ``$ref`` (:mod:`.inline`);
- a keyword a rule rejects is moved into the description when a model can read it and
  keep to it (``"(maximum 40320)"``), dropped otherwise; a type list becomes one type
  and ``nullable`` (Gemini); ``oneOf`` becomes ``anyOf`` where only ``anyOf`` is taken;
- in a strict mode, every object is closed, and every optional property made required
  and nullable.

What no change can mend (a recursive ``$ref``, a root that is not an object, a limit,
the tool's name) is left, and listed in ``left``. A change that lets the target accept
calls the original schema refused ``widens``; one that refuses calls it took
``narrows``; optional-to-nullable does neither (a strict call sends null for what it
would leave out). ``toolaudit audit --schemas original.json`` still judges calls by the
original.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolaudit.schemas.places import At, child, is_object
from toolaudit.targets.check import Finding, matched_keywords, target_findings
from toolaudit.targets.inline import DEFINITIONS, copied, inline_refs
from toolaudit.targets.rules import REJECTS, Keyword, KeywordOutside, Structure, Target
from toolaudit.targets.walk import subschemas

Alters = Literal["", "narrows", "widens"]
#: Constraints a model can read in words and keep to: rejected, they go into the
#: description, as "(keyword value)".
DESCRIBED = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
        "minProperties", "maxProperties", "minContains", "maxContains", "enum", "const",
    }
)  # fmt: skip
#: Keywords that say nothing of which calls are valid: dropped, they change none.
ANNOTATIONS = frozenset(
    {
        "$schema", "$id", "$comment", "$anchor", "title", "description", "default",
        "examples", "example", "deprecated", "readOnly", "writeOnly", "contentEncoding",
        "contentMediaType",
    }
)  # fmt: skip
#: Every other keyword of JSON Schema that holds calls to something.
ASSERTIONS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "patternProperties",
        "propertyNames", "dependentRequired", "dependentSchemas", "dependencies", "items",
        "prefixItems", "additionalItems", "contains", "allOf", "anyOf", "oneOf", "not", "if",
        "then", "else", "unevaluatedItems", "unevaluatedProperties", "$ref", "$dynamicRef",
        "$recursiveRef",
    }
)  # fmt: skip
NULL = {"type": "null"}


@dataclass(frozen=True)
class Change:
    """One change to a parameters schema: where (a JSON pointer into the converted
    schema), what, and whether it alters which calls the target takes."""

    pointer: str
    message: str
    alters: Alters = ""


@dataclass(frozen=True)
class Conversion:
    """A parameters schema converted for a target."""

    parameters: dict[str, Any]
    changes: tuple[Change, ...]
    #: What the target still rejects in the converted schema (or in the tool's name).
    left: tuple[Finding, ...]


def convert_parameters(
    target: Target, parameters: Mapping[str, Any], *, name: str | None = None
) -> Conversion:
    """``parameters`` rewritten for ``target`` (the original is not changed), with each
    change, and what the target still rejects (``name``: the tool's, judged too)."""
    changes: list[Change] = []
    try:
        schema = _prepared(target, parameters, changes)
        changes.extend(_keywords_converted(target, schema))
        changes.extend(_structure_converted(target, schema))
    except RecursionError:  # a value too deep to be written into a description
        schema, changes = dict(parameters), [Change("", "nested too deeply to be converted")]
    left = tuple(
        finding
        for finding in target_findings(target, schema, name=name)
        if finding.severity == REJECTS
    )
    return Conversion(schema, tuple(changes), left)


def _prepared(target: Target, parameters: Mapping[str, Any], changes: list[Change]) -> Any:
    """A copy of the schema, ``$schema`` dropped and, for a target that rejects $ref,
    local references written out."""
    if _rejects(target, "$ref", "#/$defs/a"):
        inlined = inline_refs(parameters)
        schema = inlined.schema
        if inlined.replaced:
            changes.append(Change("", f"{inlined.replaced} local $ref written out"))
        if inlined.refused:
            changes.append(Change("", f"$refs left as they are: {inlined.refused}"))
    else:
        schema = copied(parameters)
    if "$schema" in schema:
        del schema["$schema"]
        changes.append(Change("/$schema", "$schema dropped"))
    return schema


def _rejects(target: Target, keyword: str, value: object) -> bool:
    """Whether one of the target's keyword rules rejects ``keyword`` with ``value``."""
    node = {keyword: value}
    return any(
        rule.severity == REJECTS
        and isinstance(rule.match, Keyword | KeywordOutside)
        and keyword in matched_keywords(rule.match, node)
        for rule in target.rules
    )


def _keywords_converted(target: Target, schema: dict[str, Any]) -> Iterator[Change]:
    rules = [
        rule.match
        for rule in target.rules
        if rule.severity == REJECTS and isinstance(rule.match, Keyword | KeywordOutside)
    ]
    dropped: set[int] = set()  # subschemas under a dropped keyword: no longer in the schema
    for at, node, _ in list(subschemas(schema)):
        if id(node) in dropped or not isinstance(node, dict):
            continue
        for match in rules:
            for keyword in list(matched_keywords(match, node)):
                if keyword in node:
                    yield from _keyword_converted(target, node, keyword, at, dropped)


def _keyword_converted(
    target: Target, node: dict[str, Any], keyword: str, at: At | None, dropped: set[int]
) -> Iterator[Change]:
    pointer = child(at, keyword).pointer()
    value = node[keyword]
    if keyword == "$ref" or keyword in DEFINITIONS:
        return  # a recursive or external reference: left, and still rejected
    if keyword == "type" and isinstance(value, list):
        yield _type_list_converted(node, value, pointer)
        return
    del node[keyword]
    if keyword == "oneOf" and "anyOf" not in node and not _rejects(target, "anyOf", value):
        node["anyOf"] = value
        yield Change(pointer, "oneOf written as anyOf", "widens")
        return
    if keyword in DESCRIBED:
        shown = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        described = node.get("description")
        said = f"({keyword} {shown})"
        node["description"] = f"{described} {said}" if isinstance(described, str) else said
        yield Change(pointer, f"{keyword} moved into the description", "widens")
        return
    dropped.update(_beneath(value))
    widens = keyword in ASSERTIONS and value is not True and value != {}
    yield Change(pointer, f"{keyword} dropped", "widens" if widens else "")


def _type_list_converted(node: dict[str, Any], types: list[Any], pointer: str) -> Change:
    """``["integer", "null"]`` -> ``"integer"`` and ``nullable: true``; several types
    other than null -> an anyOf of each."""
    others = [each for each in types if each != "null"]
    if len(others) == 1:
        node["type"] = others[0]
    else:
        del node["type"]
        if others and "anyOf" not in node:
            node["anyOf"] = [{"type": each} for each in others]
    if "null" in types:
        node["nullable"] = True
    return Change(pointer, f"type {json.dumps(types)} written as one type and nullable")


def _structure_converted(target: Target, schema: dict[str, Any]) -> Iterator[Change]:
    shapes = {
        rule.match.shape
        for rule in target.rules
        if rule.severity == REJECTS and isinstance(rule.match, Structure)
    }
    if not shapes & {"open-object", "optional-property"}:
        return
    for at, node, _ in list(subschemas(schema)):
        if not isinstance(node, dict):
            continue
        if "optional-property" in shapes:
            yield from _made_required(node, at)
        if "open-object" in shapes:
            yield from _closed(node, at)


def _closed(node: dict[str, Any], at: At | None) -> Iterator[Change]:
    if not is_object(node) or node.get("additionalProperties") is False:
        return
    was = node.get("additionalProperties", True)
    node["additionalProperties"] = False
    said = "" if was is True else f" (was {json.dumps(was, ensure_ascii=False)[:80]})"
    pointer = child(at, "additionalProperties").pointer()
    yield Change(pointer, f"object closed: additionalProperties false{said}", "narrows")


def _made_required(node: dict[str, Any], at: At | None) -> Iterator[Change]:
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return
    required = node.get("required")
    listed = list(required) if isinstance(required, list) else []
    for name in properties:
        if name not in listed:
            properties[name] = nullable(properties[name])
            listed.append(name)
            yield Change(child(at, "properties", str(name)).pointer(), "made required and nullable")
    if listed != required:
        node["required"] = listed


def nullable(schema: object) -> object:
    """A subschema that also takes null: ``"type": ["string", "null"]`` (and null in its
    enum), a null branch added to its anyOf, or an anyOf of it and null."""
    if not isinstance(schema, dict):
        return schema  # a boolean schema: true takes null already
    declared = schema.get("type")
    if isinstance(declared, str | list):
        listed = declared if isinstance(declared, list) else [declared]
        if "null" not in listed:
            schema["type"] = [*listed, "null"]
    elif isinstance(schema.get("anyOf"), list):
        if NULL not in schema["anyOf"]:
            schema["anyOf"] = [*schema["anyOf"], NULL]
    elif any(keyword in schema for keyword in ("$ref", "const", "allOf", "oneOf")):
        return {"anyOf": [schema, NULL]}
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        schema["enum"] = [*enum, None]
    return schema


def _beneath(value: object) -> set[int]:
    """The ids of every object in a dropped keyword's value (its subschemas among them)."""
    found: set[int] = set()
    pending = [value]
    while pending:
        each = pending.pop()
        if isinstance(each, list):
            pending.extend(each)
        elif isinstance(each, Mapping) and id(each) not in found:
            found.add(id(each))
            pending.extend(each.values())
    return found
