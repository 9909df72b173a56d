"""Typed decoders for deep mode: a tool's arguments as nested msgspec structs that decode
only what deep mode calls valid, built from its compiled node graph (:mod:`toolaudit.deep`).

As on the plain typed path (:mod:`toolaudit.typed.arguments`), a decoder only ever says
"valid": arguments it refuses go to the general deep path, which alone decides errors.
So every part of a schema either becomes a msgspec type that accepts a subset of what
deep mode accepts there, exactly, or is refused there (a call holding such a value
there takes the general path). What maps to what:

- an object declaring ``properties``: a struct, its undeclared keys refused
  (``forbid_unknown_fields``, deep mode's ``unexpected``) unless ``additionalProperties``
  is ``true`` or it is an ``allOf`` branch; required names are fields without a default;
  an object with only ``additionalProperties`` as a schema is a ``dict[str, T]``;
- ``enum`` and ``const``: a ``Literal`` of the scalars deep mode's own check accepts at
  that node (so constraints beside them are already applied); ``1.0`` is never taken for
  an ``integer`` (msgspec's ``int`` refuses it, as deep mode does);
- bounds: ``msgspec.Meta`` limits, on integers turned into whole limits exactly
  (``minimum: 1.5`` is ``ge=2``), on floats only where the limit is a double exactly;
  ``multipleOf`` on integers only (by the numerator of the divisor as written: exact),
  a float there is refused; lengths in code points, as msgspec and deep mode count;
- ``pattern``: translated to Python's ``re`` where :mod:`toolaudit.deep.re_patterns`
  proves the two match alike in linear time, else an after-check with deep mode's own
  RE2 search; a translated one, with the speedups, is a string type tested in C
  (:mod:`toolaudit.typed.deep_strings`) where the union holds no other kind but null
  and no ``uniqueItems`` reads the values; ``uniqueItems`` of scalars: an after-check
  (``__post_init__``);
- ``anyOf`` / ``oneOf`` (deep mode reads them alike): the union of the branches' types,
  a kind two branches give differently refused; ``$ref`` alone: its target's type;
- refused at their place: a ``$ref`` beside other keywords, ``allOf`` of more than one
  branch, a recursive schema's second visit, objects in a union or ``uniqueItems`` of
  objects, ``minProperties``/``maxProperties`` on a struct, ``additionalProperties`` as a
  schema beside ``properties``. When a required argument is refused so, the tool is not
  typed at all (:attr:`DeepTyping.declined` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Union

import msgspec

from toolaudit.contract import ToolValidator
from toolaudit.deep.nodes import Node
from toolaudit.deep.re_patterns import python_pattern
from toolaudit.typed.arguments import (
    MOST_PARAMETERS,
    REFUSED,
    TYPE_OF_KIND,
    Decoder,
    arguments_decoder,
    can_be_renamed,
    value_type,
)
from toolaudit.typed.deep_strings import DEC_HOOK, string_type
from toolaudit.typed.deep_values import (
    Check,
    Kinds,
    all_items,
    all_values,
    counts,
    double,
    integer,
    literals,
    meta,
    post_init,
    unique_and,
)
from toolaudit.values import ALL_KINDS

_ANY: Kinds = {kind: (TYPE_OF_KIND[kind], None) for kind in TYPE_OF_KIND}
#: The Python type a kind's decoded values have, where an after-check may look at them.
_CHECKED_TYPE = {"string": str, "array": list, "object": dict}
_HASHABLE_KINDS = frozenset({"string", "integer", "boolean", "null"})
#: The kinds a union may hold with a C-tested string (typed.deep_strings).
_TESTED_WITH = frozenset({"string", "null"})


@dataclass
class DeepTyping:
    """What became of one deep tool on the typed path."""

    #: The decoder, or None when the tool is not typed (every call takes the general path).
    decoder: Decoder | None = None
    #: Why the tool is not typed (None when it is).
    declined: str | None = None
    #: After-checks the decoder runs (RE2 patterns, uniqueItems), by schema pointer.
    after_checks: list[str] = field(default_factory=list)
    #: (schema pointer, why) of the places whose values always take the general path.
    refused: list[tuple[str, str]] = field(default_factory=list)


def deep_arguments_decoder(tool: ToolValidator) -> Decoder | None:
    """The typed decoder of ``tool``'s arguments in deep mode (the plain one for a tool
    deep mode has nothing to add to); None when it cannot be typed."""
    if tool.deep_arguments is None:
        return arguments_decoder(tool)
    return deep_typing(tool).decoder


def deep_typing(tool: ToolValidator) -> DeepTyping:
    """The deep decoder of ``tool`` and what it leaves to the general path."""
    typing = DeepTyping()
    if tool.deep_arguments is None:
        typing.declined = "not a tool compiled for deep mode"
        return typing
    if len(tool.parameters) > MOST_PARAMETERS:
        typing.declined = f"more than {MOST_PARAMETERS} parameters"
        return typing
    if not set(tool.required) <= tool.parameters.keys():
        typing.declined = "a required name is not declared: no call is valid"
        return typing
    try:
        root = _root(tool, typing)
        if root is None:
            typing.declined = "a required argument can never be typed: " + (
                "; ".join(f"#{where}: {why}" for where, why in typing.refused) or "its name"
            )
            return typing
        typing.decoder = msgspec.json.Decoder(root, strict=True, dec_hook=DEC_HOOK)
    except (TypeError, ValueError, OverflowError) as error:  # a limit or union msgspec refuses
        typing.declined = f"msgspec cannot decode the types: {error}"
    return typing


def _root(tool: ToolValidator, typing: DeepTyping) -> Any:
    """The struct of the arguments: the contract's top level, each argument deep mode
    looks into typed from its node."""
    assert tool.deep_arguments is not None
    nodes = tool.deep_arguments.compiled.arguments
    builder = _Builder(typing)
    arguments: list[tuple[str, Any, Check | None, bool]] = []
    for name, param in tool.parameters.items():
        if not isinstance(name, str):
            continue
        if name in nodes:
            built = _union(builder.kinds(nodes[name]), typing, nodes[name].pointer)
        else:
            built = (value_type(param.accepted_kinds, param.enum), None)
        arguments.append((name, *built, name in tool.required))
    return builder.struct("", arguments, closed=True)


class _Builder:
    """Builds the types of one tool's nodes, each (node, as a branch) once."""

    def __init__(self, typing: DeepTyping) -> None:
        self._typing = typing
        self._done: dict[tuple[int, bool], Kinds] = {}
        self._building: set[tuple[int, bool]] = set()

    def _refuse(self, node: Node, why: str) -> Kinds:
        self._typing.refused.append((node.pointer, why))
        return {}

    def kinds(self, node: Node, branch: bool = False) -> Kinds:
        """The types of the values ``node`` accepts, by kind (empty: none is typed)."""
        key = (id(node), branch)
        done = self._done.get(key)
        if done is not None:
            return done
        if key in self._building:
            return self._refuse(node, "a recursive schema")
        self._building.add(key)
        try:
            built = self._done[key] = self._kinds(node, branch)
        finally:
            self._building.discard(key)
        return built

    def _kinds(self, node: Node, branch: bool) -> Kinds:
        if node.never:
            return {}
        if node.enum is not None or node.has_const:
            return literals(node, branch)
        own = _own_keywords(node)
        combined = bool(node.any_of or node.one_of or node.all_of)
        if node.ref is not None:
            if own or combined or node.kinds is not None:
                return self._refuse(node, "a $ref beside other keywords")
            return self.kinds(node.ref, branch)
        if node.all_of:
            if own or len(node.all_of) > 1 or node.any_of or node.one_of:
                return self._refuse(node, "allOf beside other keywords, or of several branches")
            return _restricted(self.kinds(node.all_of[0], True), node.kinds)
        if node.any_of or node.one_of:
            if own or (node.any_of and node.one_of):
                return self._refuse(node, "anyOf or oneOf beside other keywords")
            return _restricted(self._union(node, node.any_of or node.one_of), node.kinds)
        kinds: Kinds = {}
        for kind in node.kinds if node.kinds is not None else ALL_KINDS:
            built = self._of_kind(node, kind, branch)
            if built is not None:
                kinds[kind] = built
        if "float" in kinds and "integer" not in kinds:
            del kinds["float"]  # msgspec's float alone takes integers too
        return kinds

    def _union(self, node: Node, branches: tuple[Node, ...]) -> Kinds:
        """anyOf/oneOf: a value one branch accepts; a kind two branches type apart refused."""
        union: Kinds = {}
        clashing: set[str] = set()
        for each in branches:
            for kind, built in self.kinds(each).items():
                if kind in union and union[kind] != built:
                    clashing.add(kind)
                union.setdefault(kind, built)
        if clashing:
            self._refuse(node, f"branches of the union type {sorted(clashing)} apart")
        return {kind: built for kind, built in union.items() if kind not in clashing}

    def _of_kind(self, node: Node, kind: str, branch: bool) -> tuple[Any, Check | None] | None:
        if kind == "string":
            return self._string(node)
        if kind == "integer":
            return integer(node)
        if kind == "float":
            return double(node)
        if kind == "array":
            return self._array(node)
        if kind == "object":
            return self._object(node, branch)
        return _ANY[kind]

    def _string(self, node: Node) -> tuple[Any, Check | None]:
        limits: dict[str, Any] = {}
        searches = []
        source = None
        for keyword, limit in node.strings:
            if keyword == "minLength":
                limits["min_length"] = limit
            elif keyword == "maxLength":
                limits["max_length"] = limit
            elif "pattern" not in limits and (translated := python_pattern(limit[0])):
                limits["pattern"] = translated
                source = limit[0]
            else:
                searches.append(limit[1])
                self._typing.after_checks.append(f"{node.pointer}/pattern")
        value = Annotated[str, meta(**limits)] if limits else str
        if not searches:
            if source is not None:
                tested = string_type(source, limits.get("min_length"), limits.get("max_length"))
                if tested is not None:
                    return _Tested(value, tested), None
            return value, None
        return value, lambda text: all(search(text) is not None for search in searches)

    def _array(self, node: Node) -> tuple[Any, Check | None] | None:
        items = self.kinds(node.items) if node.items is not None else _ANY
        # (uniqueItems compares the decoded items: no tested string, which holds none.)
        item_type, item_check = _union(
            items, self._typing, node.pointer + "/items", tested=not node.unique_items
        )
        if item_type is REFUSED:
            return None
        limits = {
            "min_length" if keyword == "minItems" else "max_length": limit
            for keyword, limit in node.sequences
        }
        value: Any = list[item_type]  # type: ignore[valid-type]
        if limits:
            value = Annotated[value, meta(**limits)]
        if node.unique_items:
            if not items.keys() <= _HASHABLE_KINDS | {"float"}:
                self._refuse(node, "uniqueItems of arrays or objects")
                return None
            self._typing.after_checks.append(f"{node.pointer}/uniqueItems")
            return value, unique_and(item_check)
        return value, None if item_check is None else all_items(item_check)

    def _object(self, node: Node, branch: bool) -> tuple[Any, Check | None] | None:
        if not node.object_shape:
            if node.object_counts:
                limits = counts(node)
                return Annotated[dict[str, msgspec.Raw], meta(**limits)], None
            return _ANY["object"]
        additional = node.additional
        if node.properties is None and isinstance(additional, Node):
            return self._map(node, additional)
        if isinstance(additional, Node) or node.object_counts:
            self._refuse(node, "additionalProperties as a schema beside properties, or counts")
            return None
        closed = additional is False or (
            additional is None and node.properties is not None and not branch
        )
        fields = []
        for name, child in (node.properties or {}).items():
            built = _union(self.kinds(child), self._typing, child.pointer)
            fields.append((name, *built, name in node.required))
        for name in node.required:
            if node.properties is None or name not in node.properties:
                if closed:
                    return None  # required and unexpected: no object is valid
                fields.append((name, msgspec.Raw, None, True))
        struct = self.struct(node.pointer, fields, closed=closed)
        return None if struct is None else (struct, None)

    def _map(self, node: Node, additional: Node) -> tuple[Any, Check | None] | None:
        value_of, check = _union(self.kinds(additional), self._typing, additional.pointer)
        if value_of is REFUSED:
            return None
        value: Any = dict[str, value_of]  # type: ignore[valid-type]
        if node.object_counts:
            value = Annotated[value, meta(**counts(node))]
        required = node.required
        if not required:
            return value, None if check is None else all_values(check)
        inner = all_values(check) if check is not None else None
        return value, lambda d: all(n in d for n in required) and (inner is None or inner(d))

    def struct(
        self, pointer: str, fields: list[tuple[str, Any, Check | None, bool]], *, closed: bool
    ) -> Any:
        """A struct of ``fields`` (name, type, after-check, required), or None when a
        required one cannot be typed; an optional one that cannot is left out when
        undeclared keys are refused (a call giving it is refused), else refuses the struct."""
        spec: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        rename: dict[str, str] = {}
        checks: list[tuple[str, Check]] = []
        for name, value, check, required in fields:
            if value is REFUSED or not can_be_renamed(name):
                if required or not closed:
                    self._typing.refused.append((pointer, f"the property {name!r}"))
                    return None
                continue
            attribute = f"f{len(spec)}"
            rename[attribute] = name
            spec.append((attribute, value) if required else (attribute, value, msgspec.UNSET))
            if check is not None:
                checks.append((attribute, check))
        namespace = {"__post_init__": post_init(tuple(checks))} if checks else None
        return msgspec.defstruct(
            "DeepArguments",
            spec,
            kw_only=True,
            forbid_unknown_fields=closed,
            rename=rename,
            namespace=namespace,
            gc=False,
        )


class _Tested:
    """A string kind with a pattern: ``tested``, the C-tested type (typed.deep_strings),
    where the union holds no other kind but null, else ``plain``, msgspec's own (a type
    msgspec does not know takes no union with another). Equal as ``plain`` is."""

    __slots__ = ("plain", "tested")

    def __init__(self, plain: Any, tested: Any) -> None:
        self.plain = plain
        self.tested = tested

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Tested) and other.plain == self.plain

    def __hash__(self) -> int:
        return hash(self.plain)


def _union(
    kinds: Kinds, typing: DeepTyping, pointer: str, *, tested: bool = True
) -> tuple[Any, Check | None]:
    """One msgspec type of ``kinds`` and its after-check (REFUSED when no kind is typed);
    ``tested``: a string kind with a pattern may be its C-tested type."""
    if "float" in kinds and "integer" not in kinds:
        # msgspec's float alone would take integers too, compared as doubles: refused.
        kinds = {kind: built for kind, built in kinds.items() if kind != "float"}
    if not kinds:
        typing.refused.append((pointer, "no value is typed here"))
        return REFUSED, None
    if kinds == _ANY:
        return msgspec.Raw, None
    tested = tested and kinds.keys() <= _TESTED_WITH
    types = [
        (each.tested if tested else each.plain) if type(each) is _Tested else each
        for each in (kinds[kind][0] for kind in TYPE_OF_KIND if kind in kinds)
    ]
    value = types[0] if len(types) == 1 else Union[tuple(types)]  # noqa: UP007
    checks: dict[type, Check] = {
        _CHECKED_TYPE[kind]: c for kind, (_, c) in kinds.items() if c is not None
    }
    if not checks:
        return value, None
    if len(kinds) == 1:
        return value, next(iter(checks.values()))
    return value, lambda v: (check := checks.get(type(v))) is None or check(v)


def _own_keywords(node: Node) -> bool:
    """Whether ``node`` has keywords besides type, enum, const and combinators."""
    return bool(
        node.numbers
        or node.strings
        or node.sequences
        or node.unique_items
        or node.object_counts
        or node.object_shape
        or node.items is not None
    )


def _restricted(kinds: Kinds, allowed: frozenset[str] | None) -> Kinds:
    if allowed is None:
        return kinds
    kept = {kind: built for kind, built in kinds.items() if kind in allowed}
    if "float" in kept and "integer" not in kept:
        del kept["float"]
    return kept
