"""Warnings of ``toolaudit schemas``: what a tool's schema says that deep mode will not
check, or that no call can meet.

The (translated) parameters schema is walked with a work list, not recursion: a
hostile schema may nest 10,000 levels deep.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from toolaudit.deep import ParametersInfo
from toolaudit.schemas.misplaced import (
    BARE_PARAMETER_MAP,
    KEYWORD_WITHOUT_EFFECT,
    MALFORMED_ROOT_KEYWORD,
    keywords_without_effect,
    kind_warnings,
    root_warnings,
)
from toolaudit.schemas.places import At, child, is_object, pointer_of, ref_target
from toolaudit.values import accepted_kinds, shown, type_names_of, value_kind

UNCHECKED_KEYWORD = "unchecked-keyword"
UNUSABLE_PATTERN = "unusable-pattern"
REQUIRED_NOT_DECLARED = "required-not-declared"
ENUM_TYPE_MISMATCH = "enum-type-mismatch"
STRICT_OPEN_OBJECT = "strict-open-object"
STRICT_OPTIONAL_PROPERTY = "strict-optional-property"
TOO_MANY_WARNINGS = "too-many-warnings"
#: Every warning code, stable: scripts may match on them.
WARNING_CODES = (
    UNCHECKED_KEYWORD,
    UNUSABLE_PATTERN,
    REQUIRED_NOT_DECLARED,
    ENUM_TYPE_MISMATCH,
    STRICT_OPEN_OBJECT,
    STRICT_OPTIONAL_PROPERTY,
    BARE_PARAMETER_MAP,
    MALFORMED_ROOT_KEYWORD,
    KEYWORD_WITHOUT_EFFECT,
    TOO_MANY_WARNINGS,
)
#: A hostile schema can earn a warning at each of 10,000 levels, each pointer as long
#: as the nesting: past this many, a tool's warnings are counted, not listed.
WARNINGS_PER_TOOL = 100


def schema_warnings(
    info: ParametersInfo, parameters: Mapping[str, Any], *, strict: bool
) -> list[tuple[str, str, str]]:
    """A tool's warnings, as (code, JSON pointer into its parameters, message), sorted
    by where they point; past WARNINGS_PER_TOOL, counted in one last warning."""
    return listed(_warnings(info, parameters, strict=strict))


#: A warning before it is listed: (code, where, message).
_Found = tuple[str, "At | str | None", str]


def listed(found: Iterable[_Found]) -> list[tuple[str, str, str]]:
    """The first WARNINGS_PER_TOOL warnings found, sorted by where they point, and a
    count of the rest."""
    kept: list[tuple[str, str, str]] = []
    more = 0
    for code, at, message in found:
        if len(kept) < WARNINGS_PER_TOOL:
            kept.append((code, pointer_of(at), message))
        else:
            more += 1
    kept.sort(key=lambda warning: (_pointer_order(warning[1]), warning[0]))
    if more:
        kept.append((TOO_MANY_WARNINGS, "", f"{more} more warnings not listed"))
    return kept


def _pointer_order(pointer: str) -> tuple[tuple[int, int, str], ...]:
    # Array indexes by number, so that /anyOf/2 comes before /anyOf/10.
    return tuple(
        (0, int(token), "") if token.isdigit() else (1, 0, token) for token in pointer.split("/")
    )


def _warnings(
    info: ParametersInfo, parameters: Mapping[str, Any], *, strict: bool
) -> Iterator[_Found]:
    for pointer, keyword in info.unchecked:
        yield UNCHECKED_KEYWORD, pointer, f"deep mode does not check {keyword}: any value passes it"
    for pointer, pattern, why in info.bad_patterns:
        yield (
            UNUSABLE_PATTERN,
            pointer,
            f"pattern {shown(pattern)} cannot be used ({why}): left unchecked",
        )
    for code, tokens, message in root_warnings(parameters):
        yield code, child(None, *tokens) if tokens else None, message
    inheritance = _Inheritance(parameters)
    for at, node in _subschemas(parameters):
        yield from _node_warnings(inheritance, at, node, strict=strict)
        if at is not None:  # (the root's kind is the arguments': root_warnings says so)
            for code, keyword, message in kind_warnings(node):
                yield code, child(at, keyword), message


def _subschemas(root: Mapping[str, Any]) -> Iterator[tuple[At | None, Mapping[str, Any]]]:
    """Every subschema once, with where it stands: through properties, items,
    prefixItems, additionalProperties, anyOf/oneOf/allOf, $defs/definitions and what
    a local $ref points at. A node reached twice (a $ref, a recursive schema) is
    visited once."""
    seen: set[int] = set()
    pending: list[tuple[At | None, object]] = [(None, root)]
    while pending:
        at, node = pending.pop()
        if not isinstance(node, Mapping) or id(node) in seen:
            continue
        seen.add(id(node))
        yield at, node
        children: list[tuple[At | None, object]] = []
        for keyword in ("properties", "$defs", "definitions"):
            named = node.get(keyword)
            if isinstance(named, Mapping):
                children.extend((child(at, keyword, str(k)), sub) for k, sub in named.items())
        for keyword in ("items", "additionalProperties", "prefixItems", "anyOf", "oneOf", "allOf"):
            sub = node.get(keyword)
            if isinstance(sub, list):
                children.extend((child(at, keyword, str(i)), each) for i, each in enumerate(sub))
            elif isinstance(sub, Mapping):
                children.append((child(at, keyword), sub))
        target = ref_target(root, node.get("$ref"))
        if target is not None:
            children.append(target)
        pending.extend(reversed(children))


def _node_warnings(
    inheritance: _Inheritance, at: At | None, node: Mapping[str, Any], *, strict: bool
) -> Iterator[_Found]:
    properties = node.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = node.get("required")
    required = required if isinstance(required, list) else []
    # A required list the type leaves without effect is said once, as such.
    checked = [] if "required" in keywords_without_effect(node) else required
    for index, name in enumerate(checked):
        # The contract reads the top level's own properties alone; deeper, deep mode
        # also counts names an allOf branch or a $ref target declares.
        if isinstance(name, str) and not (
            name in properties or (at is not None and inheritance.declares(node, name))
        ):
            yield (
                REQUIRED_NOT_DECLARED,
                child(at, "required", str(index)),
                f"required {name!r} is not declared under properties",
            )
    yield from _enum_warnings(at, node)
    if strict and is_object(node):
        if node.get("additionalProperties") is not False:
            yield (
                STRICT_OPEN_OBJECT,
                at,
                "strict mode: an object must set additionalProperties: false",
            )
        listed = {name for name in required if isinstance(name, str)}
        for name in properties:
            if name not in listed:
                yield (
                    STRICT_OPTIONAL_PROPERTY,
                    child(at, "properties", str(name)),
                    f"strict mode: every property must be required, and {name!r} is not",
                )


def _enum_warnings(at: At | None, node: Mapping[str, Any]) -> Iterator[_Found]:
    enum = node.get("enum")
    if "type" not in node or not isinstance(enum, list):
        return
    try:
        kinds = accepted_kinds(node["type"])
    except ValueError:  # an unknown type name: compiling reports it as a defect
        return
    for index, value in enumerate(enum):
        kind = value_kind(value)
        if kind in kinds or (kind == "float" and "integer" in kinds and float(value).is_integer()):
            continue  # (1.0 equals the integer 1, which a call can send)
        yield (
            ENUM_TYPE_MISMATCH,
            child(at, "enum", str(index)),
            f"enum value {shown(value)} is not of the declared type ({type_names_of(kinds)}): "
            "a call sending it fails the type check",
        )


class _Inheritance:
    """Which names a subschema declares, counting its allOf branches and its $ref
    target through any chain of them (deep mode's rule 5).

    Settled per (subschema, name), parents first, so that a chain 10,000 links long
    is walked once for a name, not once a link; sets of every declared name are not
    built, as a chain with a new property at each link would hold 10,000 of them."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self._root = root
        self._parents: dict[int, list[Mapping[str, Any]]] = {}
        self._declares: dict[tuple[int, str], bool] = {}

    def declares(self, node: Mapping[str, Any], name: str) -> bool:
        known = self._declares
        stack: list[tuple[Mapping[str, Any], bool]] = [(node, False)]
        on_path: set[int] = set()
        while stack:
            each, parents_settled = stack.pop()
            if (id(each), name) in known:
                continue
            parents = self._parents_of(each)
            if not parents_settled:
                properties = each.get("properties")
                if isinstance(properties, Mapping) and name in properties:
                    known[id(each), name] = True
                elif id(each) not in on_path:  # (a cycle is a defect deep mode rejects)
                    on_path.add(id(each))
                    stack.append((each, True))
                    stack.extend((parent, False) for parent in parents)
                continue
            on_path.discard(id(each))
            known[id(each), name] = any(known.get((id(p), name), False) for p in parents)
        return known.get((id(node), name), False)

    def _parents_of(self, node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        parents = self._parents.get(id(node))
        if parents is None:
            branches = node.get("allOf")
            parents = (
                [b for b in branches if isinstance(b, Mapping)]
                if isinstance(branches, list)
                else []
            )
            target = ref_target(self._root, node.get("$ref"))
            if target is not None and isinstance(target[1], Mapping):
                parents.append(target[1])
            self._parents[id(node)] = parents
        return parents
