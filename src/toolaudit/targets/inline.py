"""Local ``$ref``s replaced by copies of what they point at, for a target that reads no
``$ref`` (Gemini's ``parameters``).

A reference inside the schema it points at (a recursive schema) cannot be written out:
the schema is left as it is, and the target's lint still says so (written out part of
the way, converting it again would write it out further). So is a schema that would
grow past MAX_SUBSCHEMAS once written out (a chain of definitions each referring to the
next twice doubles at every link). The copy is built with a work list: a hostile schema
may nest 10,000 levels deep.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolaudit.deep.paths import NOWHERE, followed, ref_tokens
from toolaudit.targets.walk import SCHEMA_KEYWORDS, SCHEMA_MAPS, children

#: Definition keywords a schema keeps its referenced subschemas under.
DEFINITIONS = ("$defs", "definitions")
#: Past this many subschemas written out, inlining gives up (and says so).
MAX_SUBSCHEMAS = 100_000


@dataclass(frozen=True)
class Inlined:
    """A schema with its local references written out."""

    schema: dict[str, Any]
    #: How many references were replaced.
    replaced: int
    #: The references left as they are: external, pointing nowhere, or recursive.
    kept: tuple[str, ...]
    #: Why nothing was inlined ("" when it was done).
    refused: str = ""


def inline_refs(root: Mapping[str, Any]) -> Inlined:
    """A copy of ``root`` with every local ``$ref`` replaced by a copy of its target (a
    ``$ref`` beside other keywords is merged with them, theirs kept) and its definitions
    dropped; a recursive one leaves the whole schema as it is (``refused`` says why)."""
    copy: dict[str, Any] = dict(root)
    replaced, kept, written = 0, [], 0
    # (the node to fill in place, the ids of the targets being written out above it)
    pending: list[tuple[dict[str, Any], frozenset[int]]] = [(copy, frozenset({id(root)}))]
    while pending:
        node, above = pending.pop()
        written += 1
        if written > MAX_SUBSCHEMAS:
            refused = f"written out, it would pass {MAX_SUBSCHEMAS:,} subschemas"
            return Inlined(copied(root), 0, (), refused)
        while isinstance(node.get("$ref"), str):
            reference = node["$ref"]
            target = _local_target(root, reference)
            if target is not None and id(target) in above:
                refused = f"$ref {reference!r} is recursive: it cannot be written out"
                return Inlined(copied(root), 0, (reference,), refused)
            if target is None:
                kept.append(reference)
                break
            del node["$ref"]
            siblings = dict(node)
            node.clear()
            node.update(target)
            node.update(siblings)
            replaced += 1
            above = above | {id(target)}
        for keyword in DEFINITIONS:  # read from the original; none is left to need them
            node.pop(keyword, None)
        pending.extend((sub, above) for sub in _own_children(node))
    return Inlined(copy, replaced, tuple(dict.fromkeys(kept)))


def _local_target(root: Mapping[str, Any], reference: str) -> Mapping[str, Any] | None:
    tokens = ref_tokens(reference)
    if tokens is None:
        return None
    target = followed(root, tokens)
    return None if target is NOWHERE or not isinstance(target, Mapping) else target


def copied(root: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a schema whose every subschema (and every list and map of them) is its
    own, to be changed in place; other values (enums, required lists) are shared."""
    copy = dict(root)
    pending = [copy]
    while pending:
        pending.extend(_own_children(pending.pop(), definitions=True))
    return copy


def _own_children(node: dict[str, Any], *, definitions: bool = False) -> list[dict[str, Any]]:
    """Give ``node`` its own copies of the subschemas it holds (and of the lists and maps
    holding them), to be filled in: the original schema is never changed. Definitions
    are left out unless asked for."""
    for keyword in (*SCHEMA_MAPS, *SCHEMA_KEYWORDS):
        value = node.get(keyword)
        if keyword in DEFINITIONS and not definitions:
            continue
        if isinstance(value, list):
            node[keyword] = [dict(v) if isinstance(v, Mapping) else v for v in value]
        elif isinstance(value, Mapping):
            node[keyword] = (
                {k: dict(v) if isinstance(v, Mapping) else v for k, v in value.items()}
                if keyword in SCHEMA_MAPS
                else dict(value)
            )
    return [
        sub
        for tokens, sub in children(node)
        if isinstance(sub, dict) and (definitions or tokens[0] not in DEFINITIONS)
    ]
