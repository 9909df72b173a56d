"""Places in a parameters schema, for the walks that report on one (lint's warnings, a
target's findings): where a subschema stands, what a local ``$ref`` points at, and
whether a subschema describes an object.

A place is a chain of tokens back to the root, spelled out as a JSON pointer only when
a warning names it: a hostile schema may nest 10,000 levels deep, and building every
node's pointer would cost the square of that.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.deep.paths import NOWHERE, followed, pointer_token, ref_tokens


class At:
    """A place in a schema, as a chain of tokens back to the root."""

    __slots__ = ("parent", "token")

    def __init__(self, parent: At | None, token: str) -> None:
        self.parent, self.token = parent, token

    def pointer(self) -> str:
        """The JSON pointer of this place."""
        tokens: list[str] = []
        at: At | None = self
        while at is not None:
            tokens.append(pointer_token(at.token))
            at = at.parent
        return "".join(f"/{token}" for token in reversed(tokens))


def child(at: At | None, *tokens: str) -> At:
    """The place ``tokens`` below ``at`` (None is the root)."""
    for token in tokens:
        at = At(at, token)
    assert at is not None
    return at


def pointer_of(at: At | str | None) -> str:
    """A place (or a pointer already spelled out, or None for the root) as a JSON pointer."""
    return "" if at is None else at if isinstance(at, str) else at.pointer()


def ref_target(root: Mapping[str, Any], reference: object) -> tuple[At | None, object] | None:
    """Where a local ``$ref`` points, and what is there, as deep mode follows it; None
    for any other reference (deep mode reports those as defects)."""
    tokens = ref_tokens(reference) if isinstance(reference, str) else None
    if tokens is None:
        return None
    target = followed(root, tokens)
    if target is NOWHERE:
        return None
    return (child(None, *tokens) if tokens else None), target


def is_object(node: Mapping[str, Any]) -> bool:
    """Whether a subschema describes an object: it says so, or declares properties
    without a type."""
    declared = node.get("type")
    if declared is None:
        return "properties" in node
    return declared == "object" or (isinstance(declared, list) and "object" in declared)
