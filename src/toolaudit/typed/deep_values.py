"""The leaves of deep mode's typed decoders (see :mod:`toolaudit.typed.deep_arguments`):
the msgspec types of enums, integers and floats at a node, exactly, and the after-checks
msgspec runs in a struct's ``__post_init__``."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Annotated, Any, Literal

import msgspec

from toolaudit.deep.check import Walk
from toolaudit.deep.nodes import Node
from toolaudit.jsonutil import ExactNumber
from toolaudit.typed.arguments import REFUSED, literal_of
from toolaudit.values import value_kind

#: kind -> (the msgspec type of that kind's values there, an after-check or None).
Kinds = dict[str, tuple[Any, "Check | None"]]
#: An after-check: whether a decoded value passes what msgspec could not check.
Check = Callable[[Any], bool]

INT64 = (-(2**63), 2**63 - 1)


def post_init(checks: tuple[tuple[str, Check], ...]) -> Callable[[Any], None]:
    unset = msgspec.UNSET

    def __post_init__(self: Any) -> None:  # msgspec turns the ValueError into a refusal
        for attribute, check in checks:
            value = getattr(self, attribute)
            if value is not unset and not check(value):
                raise ValueError("refused by an after-check: the general path decides")

    return __post_init__


def all_items(check: Check) -> Check:
    return lambda values: all(check(v) for v in values)


def all_values(check: Check) -> Check:
    return lambda mapping: all(check(v) for v in mapping.values())


def unique_and(check: Check | None) -> Check:
    # Python's equality makes true equal 1: a refusal (the general path decides), never
    # an acceptance deep mode would not give.
    if check is None:
        return lambda values: len(set(values)) == len(values)
    return lambda values: len(set(values)) == len(values) and all(check(v) for v in values)


def literals(node: Node, branch: bool) -> Kinds:
    """The scalars of the node's enum (or const) deep mode accepts there, as Literals."""
    candidates = node.enum if node.enum is not None else (node.const,)
    by_kind: dict[str, dict[tuple[type, object], object]] = {}
    for allowed in candidates:
        literal = literal_of(allowed)
        if literal is REFUSED or not Walk().accepts(node, literal, branch):
            continue
        kind = value_kind(literal)
        assert kind is not None
        by_kind.setdefault(kind, {})[(type(literal), literal)] = literal
    kinds: Kinds = {}
    for kind, literals in by_kind.items():
        values = tuple(literals.values())
        kinds[kind] = (None if kind == "null" else Literal[values], None)
    return kinds


def integer(node: Node) -> tuple[Any, Check | None] | None:
    low, high = INT64
    divisor = 1
    for keyword, limit in node.numbers:
        if keyword == "minimum":
            low = max(low, math.ceil(limit))
        elif keyword == "exclusiveMinimum":
            low = max(low, math.floor(limit) + 1)
        elif keyword == "maximum":
            high = min(high, math.floor(limit))
        elif keyword == "exclusiveMaximum":
            high = min(high, math.ceil(limit) - 1)
        else:  # multipleOf: v / (p/q) is whole exactly when p divides v (p, q coprime)
            divisor = math.lcm(divisor, _exact(limit).numerator)
    if low > high or divisor > INT64[1]:
        return None
    limits: dict[str, int] = {"ge": low, "le": high}
    if divisor != 1:
        limits["multiple_of"] = divisor
    return Annotated[int, meta(**limits)], None


def double(node: Node) -> tuple[Any, Check | None] | None:
    limits: dict[str, float] = {}
    lows: list[tuple[float, bool]] = []
    highs: list[tuple[float, bool]] = []
    for keyword, limit in node.numbers:
        if keyword == "multipleOf":
            return None  # decided on decimals as written: floats take the general path
        double = _as_double(limit)
        if double is None:
            return None
        exclusive = keyword.startswith("exclusive")
        (lows if keyword.endswith("inimum") else highs).append((double, exclusive))
    # A limit of zero is made exclusive: a number below a double's range (-1e-400) reads
    # as (-)0.0, which such a limit would take and deep mode, judging the exact value,
    # may not. Any other limit compares a tiny number as its 0.0 (the readers judge a
    # refused call on the exact parse). So 0.0 itself is left to the general path there.
    if lows:
        value, exclusive = max(lows)
        limits["gt" if exclusive or value == 0 else "ge"] = value
    if highs:
        value, exclusive = min(highs, key=lambda h: (h[0], not h[1]))
        limits["lt" if exclusive or value == 0 else "le"] = value
    return (Annotated[float, meta(**limits)] if limits else float), None


def _as_double(limit: Any) -> float | None:
    """The limit as a double, when it is one exactly: deep mode compares a float with
    it exactly (Python's comparisons), msgspec with the double it is given."""
    if type(limit) is float:
        return limit
    if type(limit) is not int:
        return None  # an ExactNumber, beyond a double's range
    try:
        double = float(limit)
    except OverflowError:
        return None
    return double if double == limit else None


def _exact(number: Any) -> Fraction:
    """A schema's number as deep mode reads it: a float as the decimal it was written as."""
    if isinstance(number, int):
        return Fraction(int(number))
    if type(number) is ExactNumber:
        return Fraction(number)
    return Fraction(repr(float(number)))


def meta(**limits: Any) -> Any:
    """``msgspec.Meta`` of limits gathered in a dict (its overloads want them spelled)."""
    return msgspec.Meta(**limits)


def counts(node: Node) -> dict[str, int]:
    return {
        "min_length" if keyword == "minProperties" else "max_length": limit
        for keyword, limit in node.object_counts
    }
