"""Each node's check, made once into a closure: what :meth:`deep.check.Walk.check` runs.

A node and the targets of its ``$ref`` chain are checked stage by stage together
(:class:`Stages`); the closure made for a node holds the stages its chain has and
nothing else: a leaf with a type and one constraint is a type test and a call, an
object the loop over its keys with its declared properties at hand, and a child is
checked by calling the child's own closure. Built from the compiled nodes, never from
schema text run as code, on a node's first check (schemas may be recursive: a closure
finds its children's closures when it meets them).

Paths are only ever written where an error is recorded, or for a child's value (its
errors are named from it); a reason is recorded as a small tuple, worded later.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import toolaudit.deep.paths as paths
from toolaudit.deep.limits import LimitTest, limit_tests
from toolaudit.deep.nodes import Node, admitted_kinds, chain_kinds
from toolaudit.deep.walk_specs import (
    Spec,
    array_items,
    declared_specs,
    each_key,
    node_spec,
    object_keys,
)
from toolaudit.values import KIND_OF_EXACT_TYPE, json_equal, value_kind

if TYPE_CHECKING:
    from toolaudit.deep.check import Walk

MISSING = "missing"
UNEXPECTED = "unexpected"
TYPE = "type"
ENUM = "enum"
CONSTRAINT = "constraint"

#: A node's check: (the walk, the value, its path, the base of its children's paths,
#: whether it is applied as an allOf branch).
NodeCheck = Callable[["Walk", Any, str, str, bool], None]


class Stages:
    """The nodes of a $ref chain that take part in each stage of a check, in chain
    order, so that a value skips the stages its schema lacks."""

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


def node_check(node: Node) -> NodeCheck:
    """The check of ``node`` (its whole $ref chain), made on its first use and kept."""
    made: NodeCheck | None = node.checker
    if made is None:
        stages = Stages(node.chain)
        leaf = leaf_check(node)
        if leaf is not None:
            made = _at_a_new_path(leaf)
        else:
            made = applied(node, stages)
            if node.shared_in_chain:
                made = _remembering(node, made)
        node.checker = made
        node.admits = chain_kinds(node)
    return made


def admits(node: Node, kind: str | None) -> bool:
    """Whether the type stage of ``node``'s chain lets a value of ``kind`` through (a
    trial of any other value fails at its first test)."""
    if node.checker is None:
        node_check(node)
    allowed: frozenset[str] | None = node.admits
    return allowed is None or kind in allowed


def _at_a_new_path(leaf: LeafCheck) -> NodeCheck:
    """A leaf's check where it is applied as a node: nothing at a path with an error."""

    def check(walk: Walk, value: Any, path: str, base: str, branch: bool) -> None:
        if path not in walk.found:
            leaf(walk, value, path)

    return check


def _remembering(node: Node, whole: NodeCheck) -> NodeCheck:
    """``whole`` for a chain with a shared node, applying each shared node at most once
    per value and place: a node reached by several routes (two allOf branches with the
    same items) adds nothing the second time, and applying it again would make such
    schemas exponential in the depth of the value."""
    chain = node.chain

    def check(walk: Walk, value: Any, path: str, base: str, branch: bool) -> None:
        if path in walk.found:
            return
        visited = walk.visited
        unvisited = []
        for each, as_branch in chain:
            if each.shared:
                visit = (id(each), id(value), path, branch or as_branch)
                if visit in visited:
                    continue
                visited.add(visit)
            unvisited.append((each, as_branch))
        if len(unvisited) < len(chain):
            applied(node, Stages(tuple(unvisited)))(walk, value, path, base, branch)
        else:  # the first visit, as most are: the whole chain's check, kept
            whole(walk, value, path, base, branch)

    return check


def applied(node: Node, stages: Stages) -> NodeCheck:
    """The check of the chain of ``node`` made of ``stages``: each value in the order of
    deep mode's rules (type, enum/const, constraints, anyOf/oneOf, allOf, children),
    at most one error at its own path, nothing inside a value checked once it has one."""
    types = tuple((each.never, each.kinds) for each in stages.types)
    only_kinds = types[0][1] if len(types) == 1 and not types[0][0] else None
    value_test = _value_test(stages.values)
    limits = _merged(stages.limits)
    unions = tuple(
        (
            _union_check(each.any_of) if each.any_of else None,
            _union_check(each.one_of) if each.one_of else None,
        )
        for each in stages.unions
    )
    all_of = stages.all_of
    objects = tuple(
        _object_check(n, as_branch, declared, node) for n, as_branch, declared in stages.objects
    )
    items = tuple(_items_check(each) for each in stages.items)

    def check(walk: Walk, value: Any, path: str, base: str, branch: bool) -> None:
        found = walk.found
        if path in found:
            return
        kind = kind_of(type(value)) or value_kind(value)
        if only_kinds is not None:
            if kind not in only_kinds:
                walk.add(TYPE, path, ("type", only_kinds, value))
                return
        elif types:
            for never, kinds in types:
                if never:
                    walk.add(TYPE, path, ("never", value))
                    return
                if kinds is not None and kind not in kinds:
                    walk.add(TYPE, path, ("type", kinds, value))
                    return
        if value_test is not None:
            refused = value_test(value)
            if refused is not None:
                walk.add(ENUM, path, refused)
                return
        if limits:
            for test in limits.get(kind, ()):
                failed = test(value)
                if failed is not None:
                    walk.add(CONSTRAINT, path, failed)
                    return
        if unions:
            for any_of, one_of in unions:
                if any_of is not None:
                    any_of(walk, kind, value, path, base)
                if one_of is not None and path not in found:
                    one_of(walk, kind, value, path, base)
            if path in found:
                return
        if all_of:
            for each in all_of:
                for branch_node in each.all_of:
                    (branch_node.checker or node_check(branch_node))(walk, value, path, base, True)
            if path in found:
                return
        if kind == "object":
            for object_check in objects:
                object_check(walk, value, base, branch)
        elif kind == "array":
            for element_node, leaf, spec, element_slow in items:
                if spec is not None and type(value) is list:
                    array_items(value, spec, element_node, element_slow, walk, base)
                    continue
                if leaf is not None:
                    for i, element in enumerate(value):
                        at = f"{base}[{i}]"
                        if at not in found:
                            leaf(walk, element, at)
                    continue
                element_check = element_node.checker or node_check(element_node)
                for i, element in enumerate(value):
                    at = f"{base}[{i}]"
                    element_check(walk, element, at, at, False)

    return check


#: A chain's enum and const tests together: None for a value they all take, else the
#: reason of the first that refuses it.
ValueTest = Callable[[Any], "tuple[Any, ...] | None"]


def _value_test(values: tuple[Node, ...]) -> ValueTest | None:
    """The ``enum`` and ``const`` of the chain's nodes, node after node (enum before
    const in each), as one test; None for a chain with neither. An enum of strings tests
    a string by one set lookup: JSON equality of a string and an enum member is ``==``
    for a member that is a ``str``, false for any other kind."""
    if not values:
        return None
    tests = []
    for each in values:
        if each.enum is not None:
            tests.append(("enum", each.enum, _exact_strings(each.enum)))
        if each.has_const:
            tests.append(("const", each.const, _exact_strings((each.const,))))

    def test(value: Any) -> tuple[Any, ...] | None:
        for word, allowed, strings in tests:
            if strings is not None and type(value) is str:
                if value in strings:
                    continue
            elif word == "enum":
                if any(json_equal(value, e) for e in allowed):
                    continue
            elif json_equal(value, allowed):
                continue
            return (word, allowed, value)
        return None

    return test


def _exact_strings(members: tuple[Any, ...]) -> frozenset[str] | None:
    """The members that are exactly ``str``, when no other member is a string (a ``str``
    subclass would compare by its own ``==``): None otherwise."""
    if any(value_kind(e) == "string" and type(e) is not str for e in members):
        return None
    return frozenset(e for e in members if type(e) is str)


#: Whether a union with a single branch that can take a value checks it at once, with
#: no trial walk (see _union_check); the tests turn it off to compare.
LONE_BRANCH_AT_ONCE = True

#: An anyOf's or oneOf's check: (the walk, the value's kind, the value, its path, the
#: base of its children's paths).
UnionCheck = Callable[["Walk", "str | None", Any, str, str], None]


def _union_check(branches: tuple[Node, ...]) -> UnionCheck:
    """anyOf and oneOf alike: a value one branch accepts is valid; else the errors of
    the first branch whose type admits it, or a type error if none does.

    Only the branches whose type stage admits the value's kind can accept it (the
    rest refuse it at their first test), and which those are is worked out once per
    kind. When that is a single branch and it is also the one whose errors would be
    reported (``anyOf`` with ``null`` and a value that is not null: the commonest
    union), it is checked at once, with no trial walk: if it accepts the value, its
    check records nothing; if not, what it records is what a failed trial would have
    been followed by anyway."""
    plans: dict[str | None, tuple[tuple[Node, ...], Node | None, bool]] = {}

    def planned(kind: str | None) -> tuple[tuple[Node, ...], Node | None, bool]:
        candidates = tuple(each for each in branches if admits(each, kind))
        reported = next((each for each in branches if kind in admitted_kinds(each)), None)
        at_once = LONE_BRANCH_AT_ONCE and reported is not None and candidates == (reported,)
        plans[kind] = (candidates, reported, at_once)
        return plans[kind]

    def check(walk: Walk, kind: str | None, value: Any, path: str, base: str) -> None:
        candidates, reported, at_once = plans.get(kind) or planned(kind)
        if reported is not None and not at_once:
            for each in candidates:
                if walk.accepts(each, value):
                    return
        if reported is not None:
            (reported.checker or node_check(reported))(walk, value, path, base, False)
            return
        for each in candidates:
            if walk.accepts(each, value):
                return
        admitted = frozenset().union(*(admitted_kinds(each) for each in branches))
        walk.add(TYPE, path, ("type", admitted, value))

    return check


#: A leaf's check, called by the check of the object or array holding it, at a path
#: with no error yet: (the walk, the value, its path).
LeafCheck = Callable[["Walk", Any, str], None]

kind_of = KIND_OF_EXACT_TYPE.get


def leaf_check(node: Node) -> LeafCheck | None:
    """The check of a leaf, the most common node: a chain that has at most a type, enums
    and consts, and constraints (no union, nothing inside). The object or
    array holding such a value checks it with one call and no stage left to skip;
    None for any other node.

    A leaf needs no remembering where it was applied, even when shared: checking a
    value again gives the same answer, and its error is already at its path."""
    stages = Stages(node.chain)
    if stages.unions or stages.all_of or stages.objects or stages.items:
        return None
    if len(stages.types) > 1 or any(each.never for each in stages.types):
        return None
    kinds = stages.types[0].kinds if stages.types else None
    value_test = _value_test(stages.values)
    limits = _merged(stages.limits)

    def check(walk: Walk, value: Any, path: str) -> None:
        kind = kind_of(type(value)) or value_kind(value)
        if kinds is not None and kind not in kinds:
            walk.add(TYPE, path, ("type", kinds, value))
            return
        if value_test is not None:
            refused = value_test(value)
            if refused is not None:
                walk.add(ENUM, path, refused)
                return
        for test in limits.get(kind, ()):
            failed = test(value)
            if failed is not None:
                walk.add(CONSTRAINT, path, failed)
                return

    return check


#: The loop body of an array check for one element: (walk, index, element, base).
ElementCheck = Callable[["Walk", int, Any, str], None]


def _items_check(node: Node) -> tuple[Node, LeafCheck | None, Spec | None, ElementCheck]:
    """What an array check needs of its ``items`` node: the node, its check if it is a
    leaf, its C form (walk_specs), and the loop body the C loop calls for each element
    that form does not pass."""
    leaf = leaf_check(node)

    def element_check(walk: Walk, i: int, element: Any, base: str) -> None:
        at = f"{base}[{i}]"
        if leaf is None:
            (node.checker or node_check(node))(walk, element, at, at, False)
        elif at not in walk.found:
            leaf(walk, element, at)

    return node, leaf, node_spec(node), element_check


def _merged(
    limits: tuple[dict[str | None, tuple[LimitTest, ...]], ...],
) -> dict[str | None, tuple[LimitTest, ...]]:
    """The tests of the chain's nodes by kind, node after node (the order they run in)."""
    merged: dict[str | None, tuple[LimitTest, ...]] = {}
    for tests in limits:
        for kind, more in tests.items():
            merged[kind] = merged.get(kind, ()) + more
    return merged


#: Checks one object value against one node of a chain: (walk, the object, the base of
#: its keys' paths, whether the node is applied as an allOf branch).
ObjectCheck = Callable[["Walk", Mapping[Any, Any], str, bool], None]


def _object_check(
    node: Node, as_branch: bool, declared: Mapping[str, tuple[Node, str]], head: Node
) -> ObjectCheck:
    """Rule 3 for one node of the chain of ``head``: its declared properties (each with
    its node and what its path adds to the object's); the names the chain's allOf
    branches declare are left to them."""
    left = head.chain_left
    additional = node.additional
    additional_node = additional if isinstance(additional, Node) else None
    # Undeclared keys are the contract's rule at every depth: unexpected wherever
    # properties are declared, unless this is an allOf branch (rule 5).
    always_closed = additional is False
    closed_unless_branch = additional is None and node.properties is not None
    required = tuple((name, paths.key("", name)) for name in node.required)
    unexpected = ("unexpected", node)
    leaves = {name: leaf_check(spec[0]) for name, spec in declared.items()}
    # The properties C can check (walk_specs): a valid value costs no Python call, and
    # an invalid one's errors are recorded in C where it can (walk_records).
    fast = {name: each for name, each in declared_specs(node).items() if each[0] is not None}

    def key_check(walk: Walk, name: Any, child: Any, base: str, closed: bool) -> None:
        key = name if isinstance(name, str) else str(name)
        spec = declared.get(key)
        if spec is not None:
            at = base + spec[1]
            leaf = leaves[key]
            if leaf is not None:
                if at not in walk.found:
                    leaf(walk, child, at)
                return
            child_node = spec[0]
            (child_node.checker or node_check(child_node))(walk, child, at, at, False)
        elif key in left:
            return
        elif closed:
            walk.add(UNEXPECTED, paths.key(base, key), unexpected)
        elif additional_node is not None:
            at = paths.key(base, key)
            (additional_node.checker or node_check(additional_node))(walk, child, at, at, False)

    def check(walk: Walk, value: Mapping[Any, Any], base: str, branch: bool) -> None:
        closed = always_closed or (closed_unless_branch and not (branch or as_branch))
        keys = object_keys if type(value) is dict else each_key
        keys(value, fast, key_check, walk, base, closed)
        for name, suffix in required:
            if name not in value:
                walk.add(MISSING, base + suffix, ("missing",))

    return check


def _declared(node: Node) -> dict[str, tuple[Node, str]]:
    """A node's properties, each with its node and its path after the object's own
    (``.city``, ``["max-results"]``): worded once, not for every key of every value."""
    return {name: (spec, paths.key("", name)) for name, spec in (node.properties or {}).items()}
