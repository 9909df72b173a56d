"""Every subschema of a parameters schema, with where it stands and how many object
levels enclose it.

A work list, not recursion: a hostile schema may nest 10,000 levels deep. Places are
the chains of tokens of :mod:`toolaudit.schemas.places`, spelled out as a JSON
pointer only when a finding names one. Unlike lint's walk, this one enters every
keyword that holds subschemas (``not``, ``if``, ``patternProperties``...), as a
provider refuses them wherever they stand.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolaudit.schemas.places import At, child, is_object, ref_target

#: Keywords whose value maps names to subschemas.
SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
#: Keywords whose value is a subschema, or a list of them.
SCHEMA_KEYWORDS = (
    "items",
    "prefixItems",
    "additionalItems",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
)

#: (where, the subschema, object levels from the root down to it, itself included).
Place = tuple["At | None", Mapping[str, Any], int]


def subschemas(root: Mapping[str, Any]) -> Iterator[Place]:
    """Every subschema once, parents before children, in the order the schema is
    written. A node reached twice (a $ref, a recursive schema) is visited once, where
    it is first met."""
    seen: set[int] = set()
    pending: list[tuple[At | None, object, int]] = [(None, root, 0)]
    while pending:
        at, node, above = pending.pop()
        if not isinstance(node, Mapping) or id(node) in seen:
            continue
        seen.add(id(node))
        depth = above + (1 if is_object(node) else 0)
        yield at, node, depth
        below: list[tuple[At | None, object, int]] = [
            (child(at, *tokens), sub, depth) for tokens, sub in children(node)
        ]
        target = ref_target(root, node.get("$ref"))
        if target is not None:
            below.append((*target, depth))
        pending.extend(reversed(below))


def children(node: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], object]]:
    """The values a subschema holds subschemas in, each with the tokens that lead to
    it from the subschema (``("properties", "city")``, ``("anyOf", "1")``), in the
    order of SCHEMA_MAPS and SCHEMA_KEYWORDS; a $ref's target is not among them."""
    for keyword in SCHEMA_MAPS:
        named = node.get(keyword)
        if isinstance(named, Mapping):
            for name, sub in named.items():
                yield (keyword, str(name)), sub
    for keyword in SCHEMA_KEYWORDS:
        sub = node.get(keyword)
        if isinstance(sub, list):
            for index, each in enumerate(sub):
                yield (keyword, str(index)), each
        elif isinstance(sub, Mapping):
            yield (keyword,), sub
