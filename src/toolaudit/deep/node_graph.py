"""Passes over a whole node graph once it is built: cycles that would check one value
forever refused, declared names settled, ``$ref`` chains and shared nodes found, and
how deep the values may nest."""

from __future__ import annotations

from toolaudit.deep.nodes import Node, same_value_edges, steps_into
from toolaudit.errors import SchemaError


def reject_cycles_in_place(tool: str, nodes: list[Node]) -> None:
    """A cycle of $ref/anyOf/oneOf/allOf that never steps into the value would
    check one value forever: a defect. (A cycle through properties or items is
    a recursive schema, and fine: each turn goes one level into the value.)"""
    state: dict[int, int] = {}  # 1: on the current path, 2: done
    for start in nodes:
        if id(start) in state:
            continue
        stack: list[tuple[Node, list[Node]]] = [(start, same_value_edges(start))]
        path = [start]
        state[id(start)] = 1
        while stack:
            node, edges = stack[-1]
            if not edges:
                stack.pop()
                path.pop()
                state[id(node)] = 2
                continue
            nxt = edges.pop()
            mark = state.get(id(nxt))
            if mark == 1:
                loop = [*path[path.index(nxt) :], nxt]
                where = " -> ".join(f"#{n.pointer}" for n in loop)
                raise SchemaError(
                    f"$ref/anyOf/oneOf/allOf go round in a cycle that never looks into the "
                    f"value: {where}",
                    tool=tool,
                )
            if mark is None:
                state[id(nxt)] = 1
                path.append(nxt)
                stack.append((nxt, same_value_edges(nxt)))


def mark_shared(nodes: list[Node]) -> None:
    """Mark the nodes more than one edge leads to: only they can be applied twice to
    one value at one place, so only they need remembering where they were applied."""
    incoming: dict[int, int] = {}
    for node in nodes:
        for target in (*same_value_edges(node), *steps_into(node)):
            incoming[id(target)] = incoming.get(id(target), 0) + 1
    for node in nodes:
        node.shared = incoming.get(id(node), 0) > 1
    for node in nodes:
        node.shared_in_chain = any(each.shared for each, _ in node.chain)


def ref_chain(node: Node) -> tuple[tuple[Node, bool], ...]:
    """``node`` and what its $ref leads to, in order (the chain has no cycle by now)."""
    chain = [(node, False)]
    as_branch = False
    while node.ref is not None:
        as_branch = as_branch or node.ref_as_branch
        node = node.ref
        chain.append((node, as_branch))
    return tuple(chain)


def settle_declared(nodes: list[Node]) -> None:
    """Each node's declared names: its properties, and those of its $ref and its
    allOf branches, through any depth of them (rule 5). The same-value graph is
    acyclic by now, so a post-order walk settles every node once."""
    done: set[int] = set()
    for start in nodes:
        stack: list[tuple[Node, bool]] = [(start, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in done:
                continue
            inherited = [*node.all_of, *([node.ref] if node.ref is not None else [])]
            if not expanded:
                stack.append((node, True))
                stack.extend((n, False) for n in inherited if id(n) not in done)
                continue
            own = frozenset(node.properties or ())
            node.declared = own.union(*(n.declared for n in inherited))
            branches = [*node.all_of, *([node.ref] if node.ref_as_branch and node.ref else [])]
            node.left_to_branches = frozenset().union(*(n.declared for n in branches))
            done.add(id(node))


def nesting_depth(top: list[Node]) -> int | None:
    """Levels of nesting the values of the ``top`` nodes can have (1: all leaves, 0: no
    nodes), or None when the schema is recursive (a value may nest without end)."""
    levels: dict[int, int] = {}
    on_path: set[int] = set()
    for start in top:
        stack: list[tuple[Node, bool]] = [(start, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in levels:
                continue
            steps = steps_into(node)
            same = same_value_edges(node)
            if not expanded:
                on_path.add(id(node))
                stack.append((node, True))
                for nxt in (*steps, *same):
                    if id(nxt) in on_path:
                        return None
                    if id(nxt) not in levels:
                        stack.append((nxt, False))
                continue
            on_path.discard(id(node))
            levels[id(node)] = max(
                [1 + levels[id(n)] for n in steps] + [levels[id(n)] for n in same] + [1]
            )
    return max((levels[id(node)] for node in top), default=0)
