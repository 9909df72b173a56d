"""The nodes in the form the C walk reads (``_walk_speedups.c``), and the loops that use
them with their pure-Python twins.

Most values a failing call holds are valid, and a valid value records nothing. With the
speedups, the loop of an object or array check first asks C whether each value passes
its node; C says yes only when the Python check would record nothing (every type, enum,
constraint, branch, key and element passed). A value that does not pass has its errors
recorded by C where C can record exactly what the Python check records
(:mod:`toolaudit.deep.walk_records`), and goes to the Python check otherwise. So the
errors, their paths and reasons are the same with the speedups or without (tests/deep
run both ways, and tests/deep/test_walk_speedups.py and test_walk_records.py compare
them value by value).

A spec is a tagged tuple (see ``_walk_speedups.c``), made once per node from the same
compiled nodes the Python checks are made from, or None for a node only Python checks
(an ``allOf``, a union beside other keywords, an enum with a ``str`` subclass...); a
test only Python runs (``multipleOf``, ``uniqueItems`` of anything but strings, an enum
against a value neither an exact ``str`` nor ``int``) makes C ask Python at that value:

- ``(LEAF, tests by exact type, enums, type stage)``: each exact Python type a value may
  have, with the tuple of its ``(code, limit, reason head)`` tests (a pattern's limit its
  automaton's ``StringTest`` where :mod:`toolaudit.deep.pattern_automata` builds one, else
  its search), or None where a test of its kind is one only Python runs; each enum and
  const as ``(its str and int members, "enum" or "const", the schema's value, whether an
  int value is decided by them)``;
  the type stage ``(kinds, refused exact types)``, or None where Python words a type
  error;
- ``(ANY, branches, lone branches)``: an ``anyOf`` or ``oneOf`` alone, one branch
  passing enough; by exact type, the ``(spec, node)`` of the only branch that can take
  such a value where it is also the branch whose errors are reported (an object or
  null: the commonest union), so that a failing value's errors are that branch's;
- ``(OBJECT, count tests, names left to allOf branches, shapes, type stage)``, each shape
  one node's ``(declared, required, closed, additional, unexpected)``: each declared
  name's ``(spec, node, path suffix)``, each required ``(name, path suffix)``, whether
  undeclared keys are errors, True or the ``(spec, node)`` of undeclared keys, and the
  reason of an undeclared key's error;
- ``(ARRAY, count tests, items spec, items node, type stage)``.

Each is what the check does where a spec is used: a value that is a property, an element
or an argument, never an allOf branch (so "closed unless a branch" is closed). The nodes
are there for C to hand a child it cannot record to the child's Python check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import toolaudit.deep.paths as paths
from toolaudit.compiled import speedups
from toolaudit.deep.nodes import Node, admitted_kinds, chain_kinds
from toolaudit.deep.pattern_automata import string_test
from toolaudit.values import ALL_KINDS, EXACT_TYPES_OF_KIND, KIND_OF_EXACT_TYPE, value_kind

SPEEDUPS = speedups("toolaudit.deep._walk_speedups")

#: A node in the C walk's form (see the module's docstring).
Spec = tuple[Any, ...]

# The tags and the test codes of _walk_speedups.c.
LEAF, ANY, OBJECT, ARRAY = range(4)
AT_LEAST, AT_MOST, ABOVE, BELOW, LEN_AT_LEAST, LEN_AT_MOST, SEARCH, UNIQUE = range(8)
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
        specs = tuple(_spec(each, room) for each in branches)
        return ANY, specs, _lone_branches(branches, specs)
    if shapes and items:
        return None
    tests = _tests_by_kind(chain)
    stage = _type_stage(chain)
    if shapes:
        if values or (kinds is not None and "object" not in kinds):
            return None
        made = tuple(_shape(each, as_branch, room) for each, as_branch in shapes)
        return OBJECT, tests.get("object", ()), node.chain_left, made, stage
    if items:
        if values or len(items) > 1 or (kinds is not None and "array" not in kinds):
            return None
        element = _spec(items[0], room)
        if element is None:
            return None
        return ARRAY, tests.get("array", ()), element, items[0], stage
    return _leaf(kinds, values, tests, stage)


def _lone_branches(
    branches: tuple[Node, ...], specs: tuple[Spec | None, ...]
) -> dict[type, tuple[Spec, Node]]:
    """For each exact type whose values only one branch can take, when that branch is
    also the one whose errors a failing value gets (deep.node_checks._union_check): the
    branch's spec and node, recorded at once with no trial."""
    lone: dict[type, tuple[Spec, Node]] = {}
    for exact, kind in KIND_OF_EXACT_TYPE.items():
        allowed = [i for i, each in enumerate(branches) if _admits(each, kind)]
        reported = next(
            (i for i, each in enumerate(branches) if kind in admitted_kinds(each)), None
        )
        spec = specs[allowed[0]] if allowed else None
        if allowed == [reported] and spec is not None:
            lone[exact] = (spec, branches[allowed[0]])
    return lone


def _admits(node: Node, kind: str) -> bool:
    allowed = chain_kinds(node)
    return allowed is None or kind in allowed


def _type_stage(chain: tuple[Node, ...]) -> tuple[frozenset[str], frozenset[type]] | None:
    """What C needs to record a type error: the kinds the reason names and the exact
    types they refuse; None where the chain has several type tests (the first that
    refuses is named) or ``false``: C then leaves a refused value to Python."""
    typed = [each for each in chain if each.never or each.kinds is not None]
    kinds = typed[0].kinds if len(typed) == 1 and not typed[0].never else None
    if kinds is None:
        return None
    return kinds, frozenset(t for t, kind in KIND_OF_EXACT_TYPE.items() if kind not in kinds)


#: A declared property in the C walk's form: (its spec, its node, what its path adds to
#: the object's, ``.city`` or ``["max-results"]``).
Declared = tuple["Spec | None", Node, str]


def declared_specs(node: Node, room: int = MOST_NESTED) -> dict[str, Declared]:
    """The properties ``node`` declares, as the C walk reads them."""
    return {
        name: (_spec(each, room), each, paths.key("", name))
        for name, each in (node.properties or {}).items()
    }


def _shape(node: Node, as_branch: bool, room: int) -> Spec:
    """One node's object keywords as its object check applies them to a property, an
    element or an argument (never an allOf branch): (declared, required names with their
    paths' suffixes, closed, additional, the reason of an undeclared key's error)."""
    additional = node.additional
    closed = additional is False or (
        additional is None and node.properties is not None and not as_branch
    )
    other = (_spec(additional, room), additional) if isinstance(additional, Node) else True
    required = tuple((name, paths.key("", name)) for name in node.required)
    return declared_specs(node, room), required, closed, other, ("unexpected", node)


def _leaf(
    kinds: frozenset[str] | None,
    values: tuple[Node, ...],
    tests: dict[str, tuple[tuple[int, Any, tuple[Any, ...]], ...] | None],
    stage: tuple[frozenset[str], frozenset[type]] | None,
) -> Spec | None:
    """A chain with types, enums and constants, and constraints, nothing inside."""
    enums: list[tuple[Any, ...]] = []
    for each in values:
        members = [*(each.enum or ()), *((each.const,) if each.has_const else ())]
        if any(isinstance(member, str) and type(member) is not str for member in members):
            return None  # a str subclass compares by its own ==: Python's check decides
        if each.enum is not None:
            enums.append(_enum_entry("enum", each.enum, each.enum))
        if each.has_const:
            enums.append(_enum_entry("const", (each.const,), each.const))
    by_type: dict[type, tuple[tuple[int, Any, tuple[Any, ...]], ...] | None] = {}
    for kind in ALL_KINDS if kinds is None else kinds:
        for exact in EXACT_TYPES_OF_KIND.get(kind, ()):
            by_type[exact] = tests.get(kind, ())
    return LEAF, by_type, tuple(enums), stage


def _enum_entry(word: str, members: tuple[Any, ...], allowed: Any) -> tuple[Any, ...]:
    """An enum or const as C tests it: (its exact str and int members, the word and the
    value its reason names, whether an exact int is decided by the members: it is unless
    a member is a number of another type, 1.0 or true, which JSON equality compares
    otherwise than a set does)."""
    exact = frozenset(m for m in members if type(m) is str or type(m) is int)
    ints = not any(
        type(m) is not int and value_kind(m) in ("integer", "float", "boolean") for m in members
    )
    return exact, word, allowed, ints


def _constrained(chain: tuple[Node, ...]) -> bool:
    return any(
        each.numbers or each.strings or each.sequences or each.unique_items or each.object_counts
        for each in chain
    )


#: A test C runs: (code, limit, the head of its error's reason, as deep.limits words it).
Test = tuple[int, Any, tuple[Any, ...]]


def _tests_by_kind(chain: tuple[Node, ...]) -> dict[str, tuple[Test, ...] | None]:
    """Each kind's tests over the whole chain; None for a kind with a test C cannot run."""
    tests: dict[str, list[Test] | None] = {}

    def add(kinds: tuple[str, ...], test: Test | None) -> None:
        for kind in kinds:
            known = tests.setdefault(kind, [])
            if known is not None and test is not None:
                known.append(test)
            else:
                tests[kind] = None

    for node in chain:
        for keyword, limit in node.numbers:
            plain = keyword in _ORDER_CODES and type(limit) in (int, float)
            head = ("constraint", keyword, limit)
            add(("integer", "float"), (_ORDER_CODES[keyword], limit, head) if plain else None)
        for keyword, limit in node.strings:
            if keyword == "pattern":
                # (A translated pattern's automaton, where there is one: no Python call.)
                test = string_test(limit[0])
                search = limit[1] if test is None else test
                add(("string",), (SEARCH, search, ("constraint", "pattern", limit[0])))
            else:
                add(("string",), _count(keyword, limit))
        for keyword, limit in node.sequences:
            add(("array",), _count(keyword, limit))
        if node.unique_items:
            add(("array",), (UNIQUE, None, ("constraint", "uniqueItems")))
        for keyword, limit in node.object_counts:
            add(("object",), _count(keyword, limit))
    return {kind: None if found is None else tuple(found) for kind, found in tests.items()}


def _count(keyword: str, limit: Any) -> Test | None:
    if type(limit) is not int:
        return None
    return _COUNT_CODES[keyword], limit, ("constraint", keyword, limit)


#: The loop body of an object check for one key: (walk, key, value, base, closed).
KeyCheck = Callable[[Any, Any, Any, str, bool], None]
#: The loop body of an array check for one element: (walk, index, element, base).
ElementCheck = Callable[[Any, int, Any, str], None]


def each_key(
    value: Mapping[Any, Any],
    fast: Mapping[str, Declared],
    slow: KeyCheck,
    walk: Any,
    base: str,
    closed: bool,
) -> None:
    """Every key to the Python loop body: without the speedups, or for a mapping that is
    not a dict."""
    for key, child in value.items():
        slow(walk, key, child, base, closed)


def _array_items(
    value: Any, spec: Spec, node: Node, slow: ElementCheck, walk: Any, base: str
) -> None:
    """Without the speedups no spec is made: never called."""
    for i, element in enumerate(value):
        slow(walk, i, element, base)


object_keys: Callable[..., None] = each_key if SPEEDUPS is None else SPEEDUPS.object_keys
array_items: Callable[..., None] = _array_items if SPEEDUPS is None else SPEEDUPS.array_items
