"""A node's constraints (``minimum``, ``maxLength``, ``pattern``...) as tests made once.

Each constraint becomes a small function of the value, built from the compiled
node when it is first checked (never from schema text run as code): it gives
None for a value within the limit, else the error's reason. A node's tests are
grouped by the kind of value they apply to, in the order deep mode checks
them, so that checking a value is one lookup by its kind and a call per
constraint, not a dispatch on each keyword's name.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from toolaudit.deep.nodes import Node
from toolaudit.jsonutil import ExactNumber
from toolaudit.values import json_key

#: A constraint's test: None when the value is within it, else the reason of its error.
LimitTest = Callable[[Any], "tuple[Any, ...] | None"]

_ORDERS: dict[str, Callable[[Any, Any], Any]] = {
    "minimum": operator.ge,
    "maximum": operator.le,
    "exclusiveMinimum": operator.gt,
    "exclusiveMaximum": operator.lt,
}
# Which way a count breaks its limit: below a minimum, above a maximum.
_TOO_FEW = frozenset({"minLength", "minItems", "minProperties"})


def limit_tests(node: Node) -> dict[str | None, tuple[LimitTest, ...]]:
    """The node's constraints as tests, by the kind of value each applies to; made on
    the node's first check and kept on it."""
    if node.limit_tests is None:
        node.limit_tests = _made(node)
    tests: dict[str | None, tuple[LimitTest, ...]] = node.limit_tests
    return tests


def _made(node: Node) -> dict[str | None, tuple[LimitTest, ...]]:
    numbers = tuple(_number_test(keyword, limit) for keyword, limit in node.numbers)
    strings = tuple(
        _pattern_test(limit) if keyword == "pattern" else _count_test(keyword, limit)
        for keyword, limit in node.strings
    )
    arrays = tuple(_count_test(keyword, limit) for keyword, limit in node.sequences)
    if node.unique_items:
        arrays += (_unique_items,)
    objects = tuple(_count_test(keyword, limit) for keyword, limit in node.object_counts)
    tests = {"integer": numbers, "float": numbers, "string": strings, "array": arrays}
    return {kind: found for kind, found in {**tests, "object": objects}.items() if found}


def _number_test(keyword: str, limit: Any) -> LimitTest:
    within = _ORDERS.get(keyword, _is_multiple)

    def test(value: Any) -> tuple[Any, ...] | None:
        # Python compares an int with a float exactly, as JSON Schema's numbers want.
        try:
            if within(value, limit):
                return None
        except ArithmeticError:  # decimal's InvalidOperation: NaN against an ExactNumber
            pass  # NaN is within no limit, as float comparisons say
        return ("constraint", keyword, limit, value)

    return test


def _count_test(keyword: str, limit: Any) -> LimitTest:
    if keyword in _TOO_FEW:

        def too_few(value: Any) -> tuple[Any, ...] | None:
            return ("constraint", keyword, limit, value) if len(value) < limit else None

        return too_few

    def too_many(value: Any) -> tuple[Any, ...] | None:
        return ("constraint", keyword, limit, value) if len(value) > limit else None

    return too_many


def _pattern_test(pattern: tuple[str, Callable[[str], object]]) -> LimitTest:
    source, search = pattern

    def test(value: Any) -> tuple[Any, ...] | None:
        if search(value if value.isascii() else _matchable(value)) is None:
            return ("constraint", "pattern", source, value)
        return None

    return test


def _unique_items(value: Any) -> tuple[Any, ...] | None:
    seen: dict[object, int] = {}
    for i, element in enumerate(value):
        first = seen.setdefault(json_key(element), i)
        if first != i:
            return ("constraint", "uniqueItems", (first, i), value)
    return None


def _matchable(text: str) -> str:
    """The text RE2 can match: a lone surrogate (valid in a JSON string, not in UTF-8)
    is read as U+FFFD, the replacement character, which no pattern takes for a letter."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
    return text


def _is_multiple(value: Any, divisor: Any) -> bool:
    """multipleOf, exactly: integers by integer arithmetic, and a float by the
    decimal number it was written as (0.0075 is a multiple of 0.0001, as the
    schema's author meant, though the binary doubles are not)."""
    if type(value) is int and type(divisor) is int:
        return value % divisor == 0
    try:
        quotient = _exact(value) / _exact(divisor)
    except (ValueError, OverflowError):  # infinity or NaN: a multiple of nothing
        return False
    return quotient.denominator == 1


def _exact(number: Any) -> Fraction:
    if isinstance(number, int):
        return Fraction(int(number))
    if type(number) is ExactNumber:  # beyond a double's range: exact as it was read
        return Fraction(number)
    # A float's repr is the shortest decimal that reads back as it: what was written.
    return Fraction(repr(float(number)))
