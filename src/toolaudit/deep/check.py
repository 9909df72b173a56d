"""Checking one value against its compiled node: the rules of deep validation.

Each value is checked in this order: ``type``, then ``enum``/``const``, then its
constraints, then ``anyOf``/``oneOf``/``allOf``, then its children. A value
gets at most one error at its own path (the first found), and once it has
one, nothing inside it is checked.

Errors are collected as ``path -> (kind, reason)``; a reason is a small tuple,
turned into a sentence only when someone asks (:mod:`toolaudit.deep.reasons`),
so a failing call costs no formatting unless it is explained.

``anyOf``/``oneOf`` try each branch on its own: ``accepts`` runs the same
rules but stops at the first error, and remembers each (node, value) answer
for the rest of the call, so nested unions cannot make a check exponential.
"""

from __future__ import annotations

from typing import Any

from toolaudit.deep.node_checks import (
    CONSTRAINT,
    ENUM,
    MISSING,
    TYPE,
    UNEXPECTED,
    admits,
    kind_of,
    node_check,
)
from toolaudit.deep.nodes import Node
from toolaudit.values import value_kind

__all__ = ["CONSTRAINT", "ENUM", "MISSING", "TYPE", "UNEXPECTED", "Found", "Walk"]

#: What one error found: (kind, reason); the reason's first item says how to word it.
Found = tuple[str, tuple[Any, ...]]


class _Invalid(Exception):
    """Raised by a trial walk at its first error: the branch does not accept the value."""


class Walk:
    """One call's deep check: where its errors go and what its trials learned."""

    __slots__ = ("found", "trials", "trying", "visited")

    def __init__(self, *, trying: bool = False) -> None:
        #: path -> (kind, reason), first error at each path only.
        self.found: dict[str, Found] = {}
        #: (id(node), id(value), as a branch) -> whether the node accepts the value.
        self.trials: dict[tuple[int, int, bool], bool] = {}
        #: A trial: the first error ends it (raises _Invalid).
        self.trying = trying
        #: (id(node), id(value), path, branch) of each shared node already applied.
        self.visited: set[tuple[int, int, str, bool]] = set()

    def add(self, kind: str, path: str, reason: tuple[Any, ...]) -> None:
        if self.trying:
            raise _Invalid
        if path not in self.found:
            self.found[path] = (kind, reason)

    def check(self, node: Node, value: Any, path: str, base: str, branch: bool = False) -> None:
        """Check ``value`` (named ``path``; its children's paths extend ``base``)
        against ``node``; ``branch`` when it is applied as an allOf branch.

        A node and the targets of its ``$ref`` chain go through each stage
        together: all their types before any enum, all their own checks before
        any child, so that a failing keyword beside a ``$ref`` stops the
        target's children too (rule 2). The stages are the node's closure
        (:mod:`toolaudit.deep.node_checks`), made on its first check.
        """
        (node.checker or node_check(node))(self, value, path, base, branch)

    def accepts(self, node: Node, value: Any, branch: bool = False) -> bool:
        """Whether ``node`` accepts ``value`` with no error at any depth."""
        if not admits(node, kind_of(type(value)) or value_kind(value)):
            return False  # the trial's first test, its type, would refuse the value
        key = (id(node), id(value), branch)
        known = self.trials.get(key)
        if known is not None:
            return known
        trial = Walk(trying=True)
        trial.trials = self.trials  # what one trial learns, every later one knows
        try:
            (node.checker or node_check(node))(trial, value, "", "", branch)
        except _Invalid:
            answer = False
        else:
            answer = True
        self.trials[key] = answer
        return answer
