"""One tool's deep checks (what the contract's validator calls), and what
``toolaudit schemas`` reports of them."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import toolaudit.deep.paths as paths
from toolaudit.deep.check import Found, Walk
from toolaudit.deep.compiler import Compiled
from toolaudit.deep.node_checks import node_check
from toolaudit.deep.nodes import Node
from toolaudit.deep.walk_records import arguments_found, record
from toolaudit.deep.walk_specs import node_spec


class DeepArguments:
    """The deep checks of one tool's arguments, compiled from its parameters schema.

    Raises :class:`~toolaudit.errors.SchemaError` for a defect deep mode cannot
    judge by (a ``$ref`` outside the schema, a ``minimum`` that is not a number...).
    """

    __slots__ = ("_roots", "compiled", "nodes")

    def __init__(self, tool: str, parameters: Mapping[str, Any]) -> None:
        self.compiled = Compiled(tool, parameters)
        #: The node of each argument deep mode looks into, in declaration order.
        self.nodes: tuple[tuple[str, Node], ...] = tuple(self.compiled.arguments.items())
        # Each argument's C form of its check (deep.walk_specs: a valid value is then
        # passed with no Python call, and an invalid one's errors recorded in C where it
        # can, deep.walk_records), the root of its paths, worded once, and its node: in the
        # order arguments_found, the loop of _walk in C, reads them.
        self._roots = tuple(
            (name, node_spec(node), paths.root(name), node) for name, node in self.nodes
        )

    def found(
        self, arguments: Mapping[Any, Any], skip: frozenset[str] | set[str]
    ) -> dict[str, Found]:
        """path -> (kind, reason) for what the arguments break inside; the arguments
        named in ``skip`` (the contract already found them wrong) are not looked into."""
        try:
            return self._walk(arguments, skip)
        except RecursionError:
            # A value nested hundreds of levels deep in a recursive schema: check it
            # again where the stack has room (JSON parsers stop near 1,000 levels).
            return with_room_to_recurse(self._walk, arguments, skip)

    def _walk(
        self, arguments: Mapping[Any, Any], skip: frozenset[str] | set[str]
    ) -> dict[str, Found]:
        if arguments_found is not None:
            found = arguments_found(self._roots, arguments, skip, Walk, _check_in_python)
            if found is not None:
                return found
        walk = Walk()
        for name, spec, root, node in self._roots:
            if name in arguments and name not in skip:
                value = arguments[name]
                if spec is None or not record(spec, value, name, root, walk):
                    _check_in_python(walk, node, value, name, root)
        return walk.found


def _check_in_python(walk: Walk, node: Node, value: Any, name: str, root: str) -> None:
    """An argument C cannot record, checked by its node's Python check."""
    (node.checker or node_check(node))(walk, value, name, root, False)


#: The stack and recursion limit of the thread that checks very deep values.
_DEEP_STACK_BYTES = 512 << 20
_DEEP_RECURSION_LIMIT = 100_000
_room = threading.Lock()

_T = TypeVar("_T")


def with_room_to_recurse(function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)`` in a thread with a large stack and a high recursion limit.

    Only for the rare value too deep for the caller's stack: the limit is the
    interpreter's, so it is raised for the call alone, one call at a time.
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as error:  # handed back to the caller's thread, below
            outcome.append((False, error))

    with _room:
        limit = sys.getrecursionlimit()
        stack = threading.stack_size(_DEEP_STACK_BYTES)
        sys.setrecursionlimit(max(limit, _DEEP_RECURSION_LIMIT))
        try:
            thread = threading.Thread(target=run, name="toolaudit-deep-check")
            thread.start()
            thread.join()
        finally:
            sys.setrecursionlimit(limit)
            threading.stack_size(stack)
    done, result = outcome[0]
    if not done:
        raise result
    return result


@dataclass(frozen=True)
class ParametersInfo:
    """What ``toolaudit schemas`` reports of one tool's parameters in deep mode."""

    #: (JSON pointer, keyword) of each keyword deep mode accepts without checking.
    unchecked: list[tuple[str, str]]
    #: (JSON pointer, pattern, why) of each pattern that cannot be used, left unchecked.
    bad_patterns: list[tuple[str, str, str]]
    #: Levels of nesting (1: every argument is a leaf); None for a recursive schema.
    depth: int | None


def inspect_parameters(tool: str, parameters: Mapping[str, Any]) -> ParametersInfo:
    """Compile one tool's parameters as deep mode does and say what it found.

    Raises :class:`~toolaudit.errors.SchemaError` for a defect, as compiling does.
    """
    compiled = Compiled(tool, parameters)
    return ParametersInfo(
        unchecked=list(compiled.unchecked),
        bad_patterns=list(compiled.bad_patterns),
        depth=compiled.depth(),
    )
