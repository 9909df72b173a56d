"""The spec objects the nested tools are written in: each makes its schema, valid values
and breaks.

A location of a tool's parameters is written once, as a small spec (:class:`Str`,
:class:`Obj`, :class:`Arr`...), and everything follows from it: its JSON Schema
(objects in arrays, ``$ref`` to ``#/$defs/...``, ``anyOf`` with null, ``const``,
constraints, patterns), a valid value from the seeded random generator, and the
ways to break a value on purpose (a wrong type, a value that breaks a
constraint; nested.py leaves required names out and adds undeclared keys),
so that the generator writes calls whose errors it knows.

Every object that declares properties says ``additionalProperties: false``, so
that the peers (plain JSON Schema) and deep mode (which closes such objects by
default) judge undeclared keys alike. Integers are always ints, never ``1.0``
(an integer to JSON Schema, not to deep mode).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

#: Values of the wrong type for each JSON type; a spec excludes those it accepts.
WRONG_TYPES: dict[str, tuple[object, ...]] = {
    "string": (42, True, ["x"], {"value": "x"}),
    "integer": ("5", True, 2.5, None),
    "number": ("12.5", True, None, [1]),
    "boolean": ("true", 1, None),
    "array": ("a,b", {"0": "a"}, 3),
    "object": ("{}", [1, 2], 7),
}


class Spec:
    """One location of a tool's parameters: its schema, valid values and breaks."""

    json_type: str | None = None

    def schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def make(self, r: random.Random) -> object:
        raise NotImplementedError

    def wrong_types(self) -> tuple[object, ...]:
        """Values this location refuses for their type (none: it declares no type)."""
        return WRONG_TYPES[self.json_type] if self.json_type else ()

    def has_constraint(self) -> bool:
        return False

    def breakable(self, value: Any) -> bool:
        """Whether :meth:`broken` can break ``value`` (its kind has a constraint here)."""
        return self.has_constraint()

    def broken(self, r: random.Random, value: Any) -> object:
        """A value of the right type that breaks one of this location's constraints."""
        raise ValueError("no constraint here")

    def children(self, value: Any) -> Iterator[tuple[str | int, Spec]]:
        """(key or index, spec) of the values inside ``value`` that have specs; none
        when ``value`` is not of this location's type (it was broken on purpose)."""
        return iter(())

    def refs(self) -> Iterator[tuple[str, Spec]]:
        """(name, spec) of every ``$ref`` at or below this location, for ``$defs``."""
        return iter(())


@dataclass(frozen=True, eq=False)
class Str(Spec):
    """A string drawn from ``pool``; ``bad`` holds strings that break its constraints."""

    pool: tuple[str, ...]
    pattern: str | None = None
    max_length: int | None = None
    min_length: int | None = None
    bad: tuple[str, ...] = ()
    json_type = "string"

    def __post_init__(self) -> None:
        # The generator's claims hold by construction: checked once, at import.
        for value in self.pool:
            assert self._fits(value), (self, value)
        for value in self.bad:
            assert not self._fits(value), (self, value)
        assert self.bad or not self.has_constraint(), self

    def _fits(self, value: str) -> bool:
        return (
            (self.pattern is None or re.search(self.pattern, value) is not None)
            and (self.max_length is None or len(value) <= self.max_length)
            and (self.min_length is None or len(value) >= self.min_length)
        )

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string"}
        if self.min_length is not None:
            schema["minLength"] = self.min_length
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        if self.pattern is not None:
            schema["pattern"] = self.pattern
        return schema

    def make(self, r: random.Random) -> object:
        return r.choice(self.pool)

    def has_constraint(self) -> bool:
        return self.pattern is not None or self.max_length is not None or bool(self.min_length)

    def broken(self, r: random.Random, value: Any) -> object:
        return r.choice(self.bad)


@dataclass(frozen=True, eq=False)
class Enum(Spec):
    values: tuple[str, ...]
    json_type = "string"

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.values)}

    def make(self, r: random.Random) -> object:
        return r.choice(self.values)


@dataclass(frozen=True, eq=False)
class Int(Spec):
    """An integer in [low, high], within ``minimum`` and ``maximum`` when they are set."""

    low: int
    high: int
    minimum: int | None = None
    maximum: int | None = None
    json_type = "integer"

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "integer"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema

    def make(self, r: random.Random) -> object:
        return r.randint(self.low, self.high)

    def has_constraint(self) -> bool:
        return self.minimum is not None or self.maximum is not None

    def broken(self, r: random.Random, value: Any) -> object:
        if self.maximum is not None and (self.minimum is None or r.random() < 0.5):
            return self.maximum + r.randint(1, 50)
        assert self.minimum is not None
        return self.minimum - r.randint(1, 5)


@dataclass(frozen=True, eq=False)
class Num(Spec):
    """A number (two decimals) in [low, high]; ``minimum`` is its only constraint."""

    low: float
    high: float
    minimum: float | None = None
    json_type = "number"

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "number"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        return schema

    def make(self, r: random.Random) -> object:
        return round(r.uniform(self.low, self.high), 2)

    def has_constraint(self) -> bool:
        return self.minimum is not None

    def broken(self, r: random.Random, value: Any) -> object:
        assert self.minimum is not None
        return round(self.minimum - r.uniform(0.5, 99), 2)


@dataclass(frozen=True, eq=False)
class Bool(Spec):
    json_type = "boolean"

    def schema(self) -> dict[str, Any]:
        return {"type": "boolean"}

    def make(self, r: random.Random) -> object:
        return r.random() < 0.5


@dataclass(frozen=True, eq=False)
class Const(Spec):
    """``const``: no type declared, so no wrong type; never broken (it would be enum:)."""

    value: object

    def schema(self) -> dict[str, Any]:
        return {"const": self.value}

    def make(self, r: random.Random) -> object:
        return self.value


@dataclass(frozen=True, eq=False)
class Arr(Spec):
    """An array of ``low`` to ``high`` items; ``unique`` arrays sample a Str's pool."""

    items: Spec
    low: int
    high: int
    min_items: int | None = None
    max_items: int | None = None
    unique: bool = False
    json_type = "array"

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array", "items": self.items.schema()}
        if self.min_items is not None:
            schema["minItems"] = self.min_items
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        if self.unique:
            schema["uniqueItems"] = True
        return schema

    def make(self, r: random.Random) -> object:
        n = r.randint(self.low, self.high)
        if self.unique:
            assert isinstance(self.items, Str)
            return r.sample(self.items.pool, n)
        return [self.items.make(r) for _ in range(n)]

    def has_constraint(self) -> bool:
        return bool(self.min_items) or self.max_items is not None or self.unique

    def broken(self, r: random.Random, value: Any) -> object:
        low, high = self.min_items, self.max_items
        ways = [
            way
            for way, possible in (
                ("few", low),
                ("many", high is not None),
                ("twice", self.unique and value),
            )
            if possible
        ]
        way = r.choice(ways)
        if way == "few" and low:
            return value[: low - 1]
        if way == "many" and high is not None:
            return value + [self.items.make(r) for _ in range(high + r.randint(1, 2) - len(value))]
        # A duplicate; maxItems may break too: still one error.
        return [*value, r.choice(value)]

    def children(self, value: Any) -> Iterator[tuple[str | int, Spec]]:
        return ((i, self.items) for i in range(len(value))) if type(value) is list else iter(())

    def refs(self) -> Iterator[tuple[str, Spec]]:
        return self.items.refs()


@dataclass(frozen=True, eq=False)
class Obj(Spec):
    """An object with declared properties, closed (``additionalProperties: false``)."""

    properties: dict[str, Spec]
    required: tuple[str, ...] = ()
    optional_share: float = 0.5
    json_type = "object"

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {name: spec.schema() for name, spec in self.properties.items()},
            "required": list(self.required),
            "additionalProperties": False,
        }

    def make(self, r: random.Random) -> object:
        return {
            name: spec.make(r)
            for name, spec in self.properties.items()
            if name in self.required or r.random() < self.optional_share
        }

    def children(self, value: Any) -> Iterator[tuple[str | int, Spec]]:
        if type(value) is not dict:  # broken on purpose: nothing inside is checked
            return iter(())
        return ((k, self.properties[k]) for k in value if k in self.properties)

    def refs(self) -> Iterator[tuple[str, Spec]]:
        for spec in self.properties.values():
            yield from spec.refs()


@dataclass(frozen=True, eq=False)
class Map(Spec):
    """An object of free keys (from ``keys``), each value checked by ``additionalProperties``."""

    values: Spec
    keys: tuple[str, ...]
    json_type = "object"

    def schema(self) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": self.values.schema()}

    def make(self, r: random.Random) -> object:
        return {k: self.values.make(r) for k in r.sample(self.keys, r.randint(1, 2))}

    def children(self, value: Any) -> Iterator[tuple[str | int, Spec]]:
        return ((k, self.values) for k in value) if type(value) is dict else iter(())


@dataclass(frozen=True, eq=False)
class Nullable(Spec):
    """``anyOf: [spec, {"type": "null"}]``; null in ``null_share`` of the values."""

    spec: Spec
    null_share: float = 0.3

    def schema(self) -> dict[str, Any]:
        return {"anyOf": [self.spec.schema(), {"type": "null"}]}

    def make(self, r: random.Random) -> object:
        return None if r.random() < self.null_share else self.spec.make(r)

    def wrong_types(self) -> tuple[object, ...]:
        return tuple(v for v in self.spec.wrong_types() if v is not None)

    def has_constraint(self) -> bool:
        return self.spec.has_constraint()

    def breakable(self, value: Any) -> bool:
        return value is not None and self.spec.breakable(value)

    def broken(self, r: random.Random, value: Any) -> object:
        return self.spec.broken(r, value)

    def children(self, value: Any) -> Iterator[tuple[str | int, Spec]]:
        return iter(()) if value is None else self.spec.children(value)

    def refs(self) -> Iterator[tuple[str, Spec]]:
        return self.spec.refs()


@dataclass(frozen=True, eq=False)
class Ref(Spec):
    """``{"$ref": "#/$defs/<name>"}``: the target's values and breaks, its schema in $defs."""

    name: str
    target: Spec = field(repr=False)

    def schema(self) -> dict[str, Any]:
        return {"$ref": f"#/$defs/{self.name}"}

    def make(self, r: random.Random) -> object:
        return self.target.make(r)

    def wrong_types(self) -> tuple[object, ...]:
        return self.target.wrong_types()

    def has_constraint(self) -> bool:
        return self.target.has_constraint()

    def breakable(self, value: Any) -> bool:
        return self.target.breakable(value)

    def broken(self, r: random.Random, value: Any) -> object:
        return self.target.broken(r, value)

    def children(self, value: Any) -> Iterator[tuple[str | int, Spec]]:
        return self.target.children(value)

    def refs(self) -> Iterator[tuple[str, Spec]]:
        yield self.name, self.target
        yield from self.target.refs()
