"""The nodes in the form the C walk reads (``_walk_speedups.c``), and the loops that use
them with their pure-Python twins.

Most values a failing call holds are valid, and a valid value records nothing. With the
speedups, the loop of an object or array check first asks C whether each value passes
its node; C says yes only when the Python check would record nothing (every type, enum,
constraint, branch, key and element passed), and sends every other value to the Python
check, which records what it always records. So the errors, their paths and reasons are
the same with the speedups or without (tests/deep run both ways, and
tests/deep/test_walk_speedups.py compares them value by value).

A spec is a tagged tuple (see ``_walk_speedups.c``), made once per node from the same
compiled nodes the Python checks are made from, or None for a node only Python checks
(an ``allOf``, a union beside other keywords, ``multipleOf``, ``uniqueItems``, an enum
of anything but strings...):

- ``(LEAF, tests by exact type, enums)``: each exact Python type a value may have, with
  the tuple of its ``(code, limit)`` tests, or None where a test of its kind is one only
  Python runs; the enums and consts, as frozensets of ``str``;
- ``(ANY, branches)``: an ``anyOf`` or ``oneOf`` alone, one branch passing enough;
- ``(OBJECT, count tests, names left to allOf branches, shapes)``, each shape one node's
  ``(declared specs, required, closed, additional)``;
- ``(ARRAY, count tests, items)``.

Each is what the check does where a spec is used: a value that is a property, an element
or an argument, never an allOf branch (so "closed unless a branch" is closed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolaudit.compiled import speedups
from toolaudit.deep.nodes import Node
from toolaudit.values import ALL_KINDS, EXACT_TYPES_OF_KIND

SPEEDUPS = speedups("toolaudit.deep._walk_speedups")

#: A node in the C walk's form (see the module's docstring).
Spec = tuple[Any, ...]

# The tags and the test codes of _walk_speedups.c.
LEAF, ANY, OBJECT, ARRAY = range(4)
AT_LEAST, AT_MOST, ABOVE, BELOW, LEN_AT_LEAST, LEN_AT_MOST, SEARCH = range(7)
_ORDER_CODES = {
    "minimum": AT_LEAST,
    "maximum": AT_MOST,
    "exclusiveMinimum": ABOVE,
    "exclusiveMaximum": BELOW,
}
_COUNT_CODES = {
    "minLength": LEN_AT_LEAST,
    "maxLength": LEN_AT_MOST,
    "minItems": LEN_AT_LEAST,
    "maxItems": LEN_AT_MOST,
    "minProperties": LEN_AT_LEAST,
    "maxProperties": LEN_AT_MOST,
}
#: How deep specs are made inside specs; a node below is left to Python (so is a node
#: met again inside its own spec: a recursive schema).
MOST_NESTED = 32


def node_spec(node: Node) -> Spec | None:
    """The C form of the check of ``node``'s chain, made once and kept on the node; None
    without the speedups or for a node only Python checks."""
    return _spec(node, MOST_NESTED)


def _spec(node: Node, room: int) -> Spec | None:
    if SPEEDUPS is None or room == 0:
        return None
    if node.walk_spec is False:
        node.walk_spec = None  # while it is made: a recursive schema meets None here
        node.walk_spec = _made(node, room - 1)
    made: Spec | None = node.walk_spec
    return made


def _made(node: Node, room: int) -> Spec | None:
    chain = tuple(each for each, _ in node.chain)
    if any(each.never for each in chain) or any(each.all_of for each in chain):
        return None
    kinds: frozenset[str] | None = None
    for each in chain:
        if each.kinds is not None:
            kinds = each.kinds if kinds is None else kinds & each.kinds
    values = tuple(each for each in chain if each.enum is not None or each.has_const)
    unions = tuple(each for each in chain if each.any_of or each.one_of)
    shapes = tuple((each, as_branch) for each, as_branch in node.chain if each.object_shape)
    items = tuple(each.items for each in chain if each.items is not None)
    if unions:
        if len(unions) > 1 or values or shapes or items or kinds is not None:
            return None
        if _constrained(chain) or (unions[0].any_of and unions[0].one_of):
            return None
        branches = unions[0].any_of or unions[0].one_of
        return ANY, tuple(_spec(each, room) for each in branches)
    if shapes and items:
        return None
    tests = _tests_by_kind(chain)
    if shapes:
        if values or (kinds is not None and "object" not in kinds):
            return None
        made = tuple(_shape(each, as_branch, room) for each, as_branch in shapes)
        return OBJECT, tests.get("object", ()), node.chain_left, made
    if items:
        if values or len(items) > 1 or (kinds is not None and "array" not in kinds):
            return None
        element = _spec(items[0], room)
        return None if element is None else (ARRAY, tests.get("array", ()), element)
    return _leaf(kinds, values, tests)


def _shape(node: Node, as_branch: bool, room: int) -> Spec:
    """One node's object keywords as its object check applies them to a property, an
    element or an argument (never an allOf branch)."""
    declared = {name: _spec(each, room) for name, each in (node.properties or {}).items()}
    additional = node.additional
    closed = additional is False or (
        additional is None and node.properties is not None and not as_branch
    )
    other = _spec(additional, room) if isinstance(additional, Node) else True
    return declared, tuple(node.required), closed, other


def _leaf(
    kinds: frozenset[str] | None,
    values: tuple[Node, ...],
    tests: dict[str, tuple[tuple[int, Any], ...] | None],
) -> Spec | None:
    """A chain with types, enums and constants, and constraints, nothing inside."""
    enums: list[frozenset[str]] = []
    for each in values:
        members = [*(each.enum or ()), *((each.const,) if each.has_const else ())]
        if any(isinstance(member, str) and type(member) is not str for member in members):
            return None  # a str subclass compares by its own ==: Python's check decides
        if each.enum is not None:
            enums.append(frozenset(e for e in each.enum if type(e) is str))
        if each.has_const:
            enums.append(frozenset((each.const,)) if type(each.const) is str else frozenset())
    by_type: dict[type, tuple[tuple[int, Any], ...] | None] = {}
    for kind in ALL_KINDS if kinds is None else kinds:
        for exact in EXACT_TYPES_OF_KIND.get(kind, ()):
            by_type[exact] = tests.get(kind, ())
    return LEAF, by_type, tuple(enums)


def _constrained(chain: tuple[Node, ...]) -> bool:
    return any(
        each.numbers or each.strings or each.sequences or each.unique_items or each.object_counts
        for each in chain
    )


def _tests_by_kind(chain: tuple[Node, ...]) -> dict[str, tuple[tuple[int, Any], ...] | None]:
    """Each kind's tests over the whole chain; None for a kind with a test C cannot run."""
    tests: dict[str, list[tuple[int, Any]] | None] = {}

    def add(kinds: tuple[str, ...], test: tuple[int, Any] | None) -> None:
        for kind in kinds:
            known = tests.setdefault(kind, [])
            if known is not None and test is not None:
                known.append(test)
            else:
                tests[kind] = None

    for node in chain:
        for keyword, limit in node.numbers:
            plain = keyword in _ORDER_CODES and type(limit) in (int, float)
            add(("integer", "float"), (_ORDER_CODES[keyword], limit) if plain else None)
        for keyword, limit in node.strings:
            add(("string",), (SEARCH, limit[1]) if keyword == "pattern" else _count(keyword, limit))
        for keyword, limit in node.sequences:
            add(("array",), _count(keyword, limit))
        if node.unique_items:
            add(("array",), None)
        for keyword, limit in node.object_counts:
            add(("object",), _count(keyword, limit))
    return {kind: None if found is None else tuple(found) for kind, found in tests.items()}


def _count(keyword: str, limit: Any) -> tuple[int, Any] | None:
    return (_COUNT_CODES[keyword], limit) if type(limit) is int else None


#: The loop body of an object check for one key: (walk, key, value, base, closed).
KeyCheck = Callable[[Any, Any, Any, str, bool], None]
#: The loop body of an array check for one element: (walk, index, element, base).
ElementCheck = Callable[[Any, int, Any, str], None]


def each_key(
    value: Mapping[Any, Any],
    fast: Mapping[str, Spec],
    slow: KeyCheck,
    walk: Any,
    base: str,
    closed: bool,
) -> None:
    """Every key to the Python loop body: without the speedups, or for a mapping that is
    not a dict."""
    for key, child in value.items():
        slow(walk, key, child, base, closed)


def _array_items(value: Any, spec: Spec, slow: ElementCheck, walk: Any, base: str) -> None:
    """Without the speedups no spec is made: never called."""
    for i, element in enumerate(value):
        slow(walk, i, element, base)


def _passes(spec: Spec, value: Any) -> bool:
    """Without the speedups no spec is made, so nothing is passed unchecked."""
    return False


object_keys: Callable[..., None] = each_key if SPEEDUPS is None else SPEEDUPS.object_keys
array_items: Callable[..., None] = _array_items if SPEEDUPS is None else SPEEDUPS.array_items
passes: Callable[[Spec, Any], bool] = _passes if SPEEDUPS is None else SPEEDUPS.passes
