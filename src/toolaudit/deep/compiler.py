"""A tool's parameters schema -> a graph of compiled nodes (:mod:`toolaudit.deep.nodes`),
checked once for defects.

Every subschema deep mode applies becomes one :class:`Node`, compiled once
per location (a JSON pointer), so a ``$ref`` to a location shares its node and
recursive schemas are finite graphs. Compiling rejects what no value could be
judged by (a defect: ``SchemaError`` naming the tool and the schema path) and
records what deep mode accepts without checking (:attr:`Compiled.unchecked`,
:attr:`Compiled.bad_patterns`), for ``toolaudit schemas``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from toolaudit.deep.node_graph import (
    mark_shared,
    nesting_depth,
    ref_chain,
    reject_cycles_in_place,
    settle_declared,
)
from toolaudit.deep.nodes import ALWAYS, NEVER, Node
from toolaudit.deep.paths import NOWHERE, followed, pointer_token, ref_tokens
from toolaudit.deep.patterns import CostlyPattern, Search, UnusablePattern, compile_pattern
from toolaudit.errors import SchemaError
from toolaudit.jsonutil import ExactNumber
from toolaudit.values import accepted_kinds, kind_phrase, quoted

#: Keywords deep mode knows but does not check: they accept what they govern.
UNCHECKED_KEYWORDS = (
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "patternProperties",
    "propertyNames",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
    "$recursiveRef",
)

#: Keywords of the parameters object itself that deep mode leaves to the contract, which
#: reads only properties and required there (rule 1).
ROOT_KEYWORDS_NOT_APPLIED = (
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "const",
    "enum",
    "minProperties",
    "maxProperties",
    *UNCHECKED_KEYWORDS,
)

_NUMBER_LIMITS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COUNTS = {
    "minLength": "string",
    "maxLength": "string",
    "minItems": "array",
    "maxItems": "array",
    "minProperties": "object",
    "maxProperties": "object",
}


class Compiled:
    """One tool's parameters, compiled: a node per argument that needs deep checks."""

    def __init__(self, tool: str, parameters: Mapping[str, Any]) -> None:
        self.tool = tool
        self._root = parameters
        self._nodes: dict[str, Node] = {}
        self._pending: list[tuple[Node, Mapping[str, Any]]] = []
        #: (schema pointer, keyword) of each keyword accepted without being checked.
        self.unchecked: list[tuple[str, str]] = []
        #: (schema pointer, pattern, why) of each pattern left unchecked.
        self.bad_patterns: list[tuple[str, str, str]] = []
        for keyword in ROOT_KEYWORDS_NOT_APPLIED:
            # additionalProperties: false says what the contract does anyway.
            if keyword in parameters and not (
                keyword == "additionalProperties" and parameters[keyword] is False
            ):
                self.unchecked.append(("", f"{keyword} (the top level follows the contract)"))
        properties = parameters.get("properties", {})
        top: dict[str, Node] = {}
        if isinstance(properties, Mapping):
            for name, spec in properties.items():
                top[name] = self._node(f"/properties/{pointer_token(str(name))}", spec)
        self._drain()
        reject_cycles_in_place(self.tool, list(self._nodes.values()))
        settle_declared(list(self._nodes.values()))
        for node in self._nodes.values():
            node.chain = ref_chain(node)
            node.chain_left = frozenset().union(*(n.left_to_branches for n, _ in node.chain))
        mark_shared(list(self._nodes.values()))
        #: The node of each argument deep mode looks into (the others are the contract's).
        self.arguments = {name: node for name, node in top.items() if not node.trivial}
        self._top = top

    def depth(self) -> int | None:
        """Levels of nesting the arguments can have (1: all leaves, 0: no arguments),
        or None when the schema is recursive (a value may nest without end)."""
        return nesting_depth(list(self._top.values()))

    # -- building -----------------------------------------------------------------------

    def _defect(self, pointer: str, reason: str) -> SchemaError:
        return SchemaError(f"at #{pointer}: {reason}", tool=self.tool)

    def _node(self, pointer: str, spec: object) -> Node:
        """The node at ``pointer`` (made once; its keywords compiled by _drain)."""
        if spec is True:
            return ALWAYS
        if spec is False:
            return NEVER
        if not isinstance(spec, Mapping):
            raise self._defect(
                pointer, f"a schema must be an object or a boolean, not {kind_phrase(spec)}"
            )
        node = self._nodes.get(pointer)
        if node is None:
            node = self._nodes[pointer] = Node(pointer)
            self._pending.append((node, spec))
        return node

    def _drain(self) -> None:
        # A work list, not recursion: a hostile schema may nest 10,000 levels deep.
        while self._pending:
            node, spec = self._pending.pop()
            self._fill(node, spec)

    def _fill(self, node: Node, spec: Mapping[str, Any]) -> None:
        at = node.pointer
        if "type" in spec:
            try:
                node.kinds = accepted_kinds(spec["type"])
            except ValueError as error:
                raise self._defect(at, str(error)) from None
        if "enum" in spec:
            enum = spec["enum"]
            if not isinstance(enum, (list, tuple)):
                raise self._defect(at, f"enum must be an array, not {kind_phrase(enum)}")
            node.enum = tuple(enum)
        if "const" in spec:
            node.has_const, node.const = True, spec["const"]
        self._constraints(node, spec)
        for keyword in ("anyOf", "oneOf", "allOf"):
            if keyword in spec:
                setattr(node, _SLOT[keyword], self._branches(at, keyword, spec[keyword]))
        if "$ref" in spec:
            node.ref = self._resolve(at, spec["$ref"])
        self._object(node, spec)
        if "items" in spec:
            items = spec["items"]
            if isinstance(items, (list, tuple)):
                self.unchecked.append((f"{at}/items", "items (array form)"))
            else:
                node.items = self._node(f"{at}/items", items)
        for keyword in UNCHECKED_KEYWORDS:
            if keyword in spec:
                self.unchecked.append((f"{at}/{pointer_token(keyword)}", keyword))
        node.ref_as_branch = node.ref is not None and node.object_shape
        node.trivial = not (
            node.has_const
            or node.numbers
            or node.strings
            or node.sequences
            or node.unique_items
            or node.object_counts
            or node.any_of
            or node.one_of
            or node.all_of
            or node.ref is not None
            or node.object_shape
            or node.items is not None
        )

    def _constraints(self, node: Node, spec: Mapping[str, Any]) -> None:
        at = node.pointer
        node.numbers = self._number_limits(at, spec)
        strings: list[tuple[str, Any]] = []
        sequences: list[tuple[str, Any]] = []
        objects: list[tuple[str, Any]] = []
        for keyword, kind in _COUNTS.items():
            if keyword not in spec:
                continue
            count = spec[keyword]
            if not _is_number(count) or count < 0 or count != int(count):
                raise self._defect(at, f"{keyword} must be a non-negative integer")
            target = {"string": strings, "array": sequences, "object": objects}[kind]
            target.append((keyword, int(count)))
        if "pattern" in spec:
            pattern = spec["pattern"]
            if not isinstance(pattern, str):
                raise self._defect(at, f"pattern must be a string, not {kind_phrase(pattern)}")
            try:
                search: Search = compile_pattern(pattern)
            except UnusablePattern as why:
                self.bad_patterns.append((f"{at}/pattern", pattern, str(why)))
            except CostlyPattern as why:
                raise self._defect(at, f"pattern {why}") from None
            else:
                strings.append(("pattern", (pattern, search)))
        if "uniqueItems" in spec:
            unique = spec["uniqueItems"]
            if type(unique) is not bool:
                raise self._defect(at, f"uniqueItems must be a boolean, not {kind_phrase(unique)}")
            node.unique_items = unique
        node.strings, node.sequences, node.object_counts = (
            tuple(strings),
            tuple(sequences),
            tuple(objects),
        )

    def _number_limits(self, at: str, spec: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """The number constraints of the schema at ``at``, as (keyword, limit) pairs in the
        order they are checked."""
        numbers: list[tuple[str, Any]] = []
        for keyword in _NUMBER_LIMITS:
            if keyword not in spec:
                continue
            limit = spec[keyword]
            if keyword.startswith("exclusive") and type(limit) is bool:
                # Draft 4: a boolean that makes minimum/maximum exclusive.
                bound = "minimum" if keyword == "exclusiveMinimum" else "maximum"
                if limit and _is_number(spec.get(bound)):
                    numbers.append((keyword, spec[bound]))
                continue
            if not _is_number(limit):
                what = (
                    "an infinite number" if kind_phrase(limit) == "a number" else kind_phrase(limit)
                )
                raise self._defect(at, f"{keyword} must be a finite number, not {what}")
            exclusive_form = spec.get(f"exclusive{keyword.capitalize()}")
            if keyword in ("minimum", "maximum") and exclusive_form is True:
                continue  # the draft 4 boolean form above says it, exclusively
            numbers.append((keyword, limit))
        if "multipleOf" in spec:
            divisor = spec["multipleOf"]
            if not _is_number(divisor) or not divisor > 0:
                raise self._defect(at, "multipleOf must be a number above 0")
            numbers.append(("multipleOf", divisor))
        return tuple(numbers)

    def _branches(self, at: str, keyword: str, branches: object) -> tuple[Node, ...]:
        if not isinstance(branches, (list, tuple)) or not branches:
            raise self._defect(at, f"{keyword} must be a non-empty array of schemas")
        return tuple(self._node(f"{at}/{keyword}/{i}", b) for i, b in enumerate(branches))

    def _object(self, node: Node, spec: Mapping[str, Any]) -> None:
        at = node.pointer
        if "properties" in spec:
            properties = spec["properties"]
            if not isinstance(properties, Mapping):
                raise self._defect(
                    at, f"properties must be an object, not {kind_phrase(properties)}"
                )
            node.properties = {
                str(name): self._node(f"{at}/properties/{pointer_token(str(name))}", sub)
                for name, sub in properties.items()
            }
        if "required" in spec:
            required = spec["required"]
            if not isinstance(required, (list, tuple)) or not all(
                isinstance(name, str) for name in required
            ):
                raise self._defect(at, "required must be an array of names")
            node.required = tuple(dict.fromkeys(required))
        if "additionalProperties" in spec:
            additional = spec["additionalProperties"]
            if type(additional) is bool:
                node.additional = additional
            else:
                node.additional = self._node(f"{at}/additionalProperties", additional)
        node.object_shape = (
            node.properties is not None or "required" in spec or node.additional is not None
        )

    def _resolve(self, at: str, reference: object) -> Node:
        """A ``$ref`` inside the tool's own parameters schema -> its node."""
        if not isinstance(reference, str):
            raise self._defect(at, f"$ref must be a string, not {kind_phrase(reference)}")
        tokens = ref_tokens(reference)
        if tokens is None:
            raise self._defect(
                at,
                f"$ref {quoted(reference)} does not point inside this tool's parameters "
                "(only #, #/$defs/..., #/definitions/... and other #/ pointers are followed)",
            )
        target = followed(self._root, tokens)
        if target is NOWHERE:
            raise self._defect(at, f"$ref {quoted(reference)} points at nothing")
        pointer = "".join(f"/{pointer_token(token)}" for token in tokens)
        return self._node(pointer, target)


_SLOT = {"anyOf": "any_of", "oneOf": "one_of", "allOf": "all_of"}


def _is_number(value: object) -> bool:
    """Whether a schema's limit is a finite number (an ExactNumber, read beyond a
    double's range, is one)."""
    return (
        type(value) is not bool
        and isinstance(value, (int, float, ExactNumber))
        and not (isinstance(value, float) and not math.isfinite(value))
    )
