"""The compiled form of a parameters schema: a graph of :class:`Node`, one per subschema
deep mode applies, and its edges (to the nodes applied to the same value, and to those
applied to the values inside it).

:mod:`toolaudit.deep.compiler` builds the graph from a schema;
:mod:`toolaudit.deep.node_graph` settles what needs the whole graph;
:mod:`toolaudit.deep.check` walks it over a value.
"""

from __future__ import annotations

from typing import Any

from toolaudit.values import ALL_KINDS


class Node:
    """One compiled subschema. ``kinds`` None accepts every type; the constraint
    tuples hold (keyword, limit) pairs in the order they are checked."""

    __slots__ = (
        "additional",
        "admits",
        "all_of",
        "any_of",
        "chain",
        "chain_left",
        "checker",
        "const",
        "declared",
        "enum",
        "has_const",
        "items",
        "kinds",
        "left_to_branches",
        "limit_tests",
        "never",
        "numbers",
        "object_counts",
        "object_shape",
        "one_of",
        "pointer",
        "properties",
        "ref",
        "ref_as_branch",
        "required",
        "sequences",
        "shared",
        "shared_in_chain",
        "strings",
        "trivial",
        "unique_items",
        "walk_spec",
    )

    def __init__(self, pointer: str) -> None:
        self.pointer = pointer
        #: The false schema: no value is allowed.
        self.never = False
        self.kinds: frozenset[str] | None = None
        self.enum: tuple[Any, ...] | None = None
        self.has_const = False
        self.const: Any = None
        self.numbers: tuple[tuple[str, Any], ...] = ()
        #: (keyword, limit) for minLength/maxLength, and ("pattern", (text, search)).
        self.strings: tuple[tuple[str, Any], ...] = ()
        self.sequences: tuple[tuple[str, Any], ...] = ()
        self.unique_items = False
        self.object_counts: tuple[tuple[str, Any], ...] = ()
        self.any_of: tuple[Node, ...] = ()
        self.one_of: tuple[Node, ...] = ()
        self.all_of: tuple[Node, ...] = ()
        self.ref: Node | None = None
        #: Whether the $ref target is applied as an allOf branch (the node has its own
        #: object keywords) rather than as the node itself.
        self.ref_as_branch = False
        #: Whether the node declares properties, required or additionalProperties.
        self.object_shape = False
        self.properties: dict[str, Node] | None = None
        self.required: tuple[str, ...] = ()
        #: None: absent; True/False; or the schema other keys are checked against.
        self.additional: Node | bool | None = None
        self.items: Node | None = None
        #: Names declared under properties here and through $ref and allOf (rule 5).
        self.declared: frozenset[str] = frozenset()
        #: Names an allOf branch (or a $ref applied as one) declares: left to it.
        self.left_to_branches: frozenset[str] = frozenset()
        #: Whether deep mode has nothing to add to the contract's type and enum checks.
        self.trivial = False
        #: This node and the targets of its $ref chain, each with whether it is applied as
        #: an allOf branch (some $ref before it is): checked stage by stage together.
        self.chain: tuple[tuple[Node, bool], ...] = ((self, False),)
        #: The names the allOf branches of the whole chain declare (left to them).
        self.chain_left: frozenset[str] = frozenset()
        #: Whether more than one schema location leads here (a $ref target, say).
        self.shared = False
        #: Whether any node of the chain is shared.
        self.shared_in_chain = False
        #: The chain's check (deep.node_checks), made on the node's first check.
        self.checker: Any = None
        #: The kinds the chain's type tests let through (None: any), made with it.
        self.admits: frozenset[str] | None = None
        #: What deep.limits makes of its constraints, on the node's first check.
        self.limit_tests: Any = None
        #: The chain's check in the C walk's form (deep.walk_specs; False: not made yet).
        self.walk_spec: Any = False


ALWAYS = Node("(true)")
ALWAYS.trivial = True
NEVER = Node("(false)")
NEVER.never = True


def same_value_edges(node: Node) -> list[Node]:
    """The nodes applied to the same value as ``node`` (no step into the value)."""
    edges = [*node.any_of, *node.one_of, *node.all_of]
    if node.ref is not None:
        edges.append(node.ref)
    return edges


def steps_into(node: Node) -> list[Node]:
    """The nodes applied to the values inside ``node``'s value."""
    steps = list((node.properties or {}).values())
    if isinstance(node.additional, Node):
        steps.append(node.additional)
    if node.items is not None:
        steps.append(node.items)
    return steps


def chain_kinds(node: Node) -> frozenset[str] | None:
    """The kinds every type test of ``node``'s chain lets through (None: any kind): a
    trial of a value of any other kind fails at its first test."""
    allowed: frozenset[str] | None = None
    for each, _ in node.chain:
        if each.never or each.kinds is not None:
            kinds = frozenset() if each.never or each.kinds is None else each.kinds
            allowed = kinds if allowed is None else allowed & kinds
    return allowed


def admitted_kinds(node: Node) -> frozenset[str]:
    """The value kinds a combinator branch admits: its type, or its $ref target's;
    every kind with neither; none for the false schema."""
    seen = 0
    while node.kinds is None and node.ref is not None and not node.never and seen < 10_000:
        node, seen = node.ref, seen + 1
    if node.never:
        return frozenset()
    return node.kinds if node.kinds is not None else ALL_KINDS
