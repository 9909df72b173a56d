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

from collections.abc import Mapping
from typing import Any

import toolaudit.deep.paths as paths
from toolaudit.deep.limits import limit_tests
from toolaudit.deep.nodes import Node, admitted_kinds
from toolaudit.values import json_equal, value_kind

MISSING = "missing"
UNEXPECTED = "unexpected"
TYPE = "type"
ENUM = "enum"
CONSTRAINT = "constraint"

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
        target's children too (rule 2).
        """
        found = self.found
        if path in found:
            return
        if node.shared_in_chain:
            # A node reached by several routes (two allOf branches with the same items)
            # adds nothing the second time at the same place: applying it again would
            # make such schemas exponential in the depth of the value.
            visited = self.visited
            unvisited = []
            for each, as_branch in node.chain:
                if each.shared:
                    visit = (id(each), id(value), path, branch or as_branch)
                    if visit in visited:
                        continue
                    visited.add(visit)
                unvisited.append((each, as_branch))
            if len(unvisited) < len(node.chain):
                stages = Stages(tuple(unvisited))
            else:  # the first visit, as most are: the whole chain's stages, kept
                stages = node.stages or _stages_of(node)
        else:
            stages = node.stages or _stages_of(node)
        kind = value_kind(value)
        for each in stages.types:
            if each.never:
                self.add(TYPE, path, ("never", value))
                return
            kinds = each.kinds
            if kinds is not None and kind not in kinds:
                self.add(TYPE, path, ("type", kinds, value))
                return
        for each in stages.values:
            if each.enum is not None and not any(json_equal(value, e) for e in each.enum):
                self.add(ENUM, path, ("enum", each.enum, value))
                return
            if each.has_const and not json_equal(value, each.const):
                self.add(ENUM, path, ("const", each.const, value))
                return
        for tests in stages.limits:
            for test in tests.get(kind, ()):
                failed = test(value)
                if failed is not None:
                    self.add(CONSTRAINT, path, failed)
                    return
        if stages.unions:
            for each in stages.unions:
                if each.any_of:
                    self._union(each.any_of, kind, value, path, base)
                if each.one_of and path not in found:
                    self._union(each.one_of, kind, value, path, base)
            if path in found:
                return
        if stages.all_of:
            for each in stages.all_of:
                for branch_node in each.all_of:
                    self.check(branch_node, value, path, base, True)
            if path in found:
                return
        if kind == "object":
            for each, as_branch, declared in stages.objects:
                self._object(each, declared, value, base, branch or as_branch, node.chain_left)
        elif kind == "array":
            for items in stages.items:
                for i, element in enumerate(value):
                    at = f"{base}[{i}]"
                    self.check(items, element, at, at)

    def accepts(self, node: Node, value: Any, branch: bool = False) -> bool:
        """Whether ``node`` accepts ``value`` with no error at any depth."""
        key = (id(node), id(value), branch)
        known = self.trials.get(key)
        if known is not None:
            return known
        trial = Walk(trying=True)
        trial.trials = self.trials  # what one trial learns, every later one knows
        try:
            trial.check(node, value, "", "", branch)
        except _Invalid:
            answer = False
        else:
            answer = True
        self.trials[key] = answer
        return answer

    def _union(
        self, branches: tuple[Node, ...], kind: str | None, value: Any, path: str, base: str
    ) -> None:
        """anyOf and oneOf alike: a value one branch accepts is valid; else the errors
        of the first branch whose type admits it, or a type error if none does."""
        for each in branches:
            if self.accepts(each, value):
                return
        for each in branches:
            if kind in admitted_kinds(each):
                self.check(each, value, path, base)
                return
        admitted = frozenset().union(*(admitted_kinds(each) for each in branches))
        self.add(TYPE, path, ("type", admitted, value))

    def _object(
        self,
        node: Node,
        declared: Mapping[str, tuple[Node, str]],
        value: Mapping[Any, Any],
        base: str,
        branch: bool,
        left: frozenset[str],
    ) -> None:
        """Rule 3 for one node of a $ref chain; ``left`` are the names the chain's
        allOf branches declare, left to them; ``declared`` are its properties, each with
        its node and what its path adds to the object's."""
        properties = node.properties
        additional = node.additional
        # Undeclared keys are the contract's rule at every depth: unexpected wherever
        # properties are declared, unless this is an allOf branch (rule 5).
        closed = additional is False or (
            additional is None and properties is not None and not branch
        )
        for name, child in value.items():
            key = name if isinstance(name, str) else str(name)
            spec = declared.get(key)
            if spec is not None:
                at = base + spec[1]
                self.check(spec[0], child, at, at)
            elif key in left:
                continue
            elif closed:
                self.add(UNEXPECTED, paths.key(base, key), ("unexpected", node))
            elif isinstance(additional, Node):
                at = paths.key(base, key)
                self.check(additional, child, at, at)
        for name in node.required:
            if name not in value:
                self.add(MISSING, paths.key(base, name), ("missing",))


class Stages:
    """The nodes of a $ref chain that take part in each stage of :meth:`Walk.check`, in
    chain order: made once per node, so that a value skips the stages its schema lacks
    (most nodes are a leaf with a type and perhaps one constraint)."""

    __slots__ = ("all_of", "items", "limits", "objects", "types", "unions", "values")

    def __init__(self, chain: tuple[tuple[Node, bool], ...]) -> None:
        nodes = [each for each, _ in chain]
        self.types = tuple(n for n in nodes if n.never or n.kinds is not None)
        self.values = tuple(n for n in nodes if n.enum is not None or n.has_const)
        #: Each node's constraints, by the kind of value they apply to (deep.limits).
        self.limits = tuple(tests for tests in map(limit_tests, nodes) if tests)
        self.unions = tuple(n for n in nodes if n.any_of or n.one_of)
        self.all_of = tuple(n for n in nodes if n.all_of)
        self.objects = tuple(
            (n, as_branch, _declared(n)) for n, as_branch in chain if n.object_shape
        )
        self.items = tuple(n.items for n in nodes if n.items is not None)


def _declared(node: Node) -> dict[str, tuple[Node, str]]:
    """A node's properties, each with its node and its path after the object's own
    (``.city``, ``["max-results"]``): worded once, not for every key of every value."""
    return {name: (spec, paths.key("", name)) for name, spec in (node.properties or {}).items()}


def _stages_of(node: Node) -> Stages:
    """The stages of a node's whole chain, made on its first check and kept."""
    stages = node.stages = Stages(node.chain)
    return stages
