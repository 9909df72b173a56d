"""The native shape's calls: expected values and accept objects
(``{"accept": [...], "compare": C}``), checked as they are read."""

from __future__ import annotations

from collections.abc import Mapping

from toolaudit.deep.patterns import CostlyPattern, UnusablePattern, compile_pattern
from toolaudit.truth.entries import COMPARES, Accept, ExpectedCall, UnreadableEntry
from toolaudit.values import NUMERIC_KINDS, shown, value_kind

#: The keys of an accept object (``{"accept": [...], "compare": "text"}``).
ACCEPT_KEYS = frozenset({"accept", "compare", "tolerance", "optional"})


def native_calls(calls: object) -> tuple[ExpectedCall, ...] | None:
    """A native line's ``calls`` -> its expected calls (None for ``"any"``).

    Raises :class:`UnreadableEntry` saying what is wrong."""
    if calls == "any":
        return None
    if not isinstance(calls, list):
        raise UnreadableEntry('"calls" must be a list of calls or "any"')
    expected = []
    for index, call in enumerate(calls):
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise UnreadableEntry(f'calls[{index}] must be an object with a "name" string')
        arguments = call.get("arguments", {})
        if not isinstance(arguments, Mapping):
            raise UnreadableEntry(f'calls[{index}]: "arguments" must be an object')
        if type(arguments) is dict and all(map(is_literal, arguments.values())):
            # Most calls: each argument one value, read as it is (see ExpectedCall).
            expected.append(ExpectedCall(call["name"], literal=arguments))
            continue
        try:
            accepts = {key: _accept(value) for key, value in arguments.items()}
        except UnreadableEntry as error:
            raise UnreadableEntry(f"calls[{index}] ({call['name']}): {error}") from None
        expected.append(ExpectedCall(call["name"], accepts))
    return tuple(expected)


def is_accept_object(value: object) -> bool:
    """Whether a native expected value is an accept object rather than a literal object:
    only the keys ``accept``, ``compare``, ``tolerance``, ``optional``, and one of the
    first two. (A literal object of only such keys is written ``{"accept": [it]}``.)"""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and value.keys() <= ACCEPT_KEYS
        and ("accept" in value or "compare" in value)
    )


def _accept(value: object) -> Accept:
    """A native argument -> its :class:`Accept` (nested accept objects read as well)."""
    kind = type(value)
    if kind in _SCALARS:  # most arguments: told at once
        return Accept((value,))
    if kind is list:  # never an accept object, and its items are read as they are
        return Accept((value,))
    if not is_accept_object(value):
        return Accept((_nested(value),))
    assert isinstance(value, Mapping)
    compare = value.get("compare", "exact")
    if compare not in COMPARES:
        raise UnreadableEntry(f"unknown compare {shown(compare)} (known: {', '.join(COMPARES)})")
    accepted = value.get("accept", [])
    if not isinstance(accepted, list) or (not accepted and compare != "any"):
        raise UnreadableEntry('"accept" must be a non-empty list of the acceptable values')
    for one in accepted:
        _check_kind(compare, one)
    tolerance = value.get("tolerance")
    if tolerance is not None and (
        compare != "number" or value_kind(tolerance) not in NUMERIC_KINDS or tolerance < 0
    ):
        raise UnreadableEntry('"tolerance" is a number >= 0, for compare "number" only')
    optional = value.get("optional", False)
    if not isinstance(optional, bool):
        raise UnreadableEntry('"optional" must be true or false')
    nests = compare in ("exact", "subset")
    values = tuple(_nested(one) if nests else one for one in accepted)
    return Accept(values, compare, tolerance, optional)


def _nested(value: object) -> object:
    """An expected value with the accept objects inside its objects read as Accept."""
    if isinstance(value, Mapping):
        return {
            key: _accept(item) if is_accept_object(item) else _nested(item)
            for key, item in value.items()
        }
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})
#: The kinds of an argument that is its own expected value (a list's items are read as
#: they are: never an accept object).
_LITERALS = _SCALARS | {list}


def is_literal(value: object) -> bool:
    """Whether an argument is its own expected value, compared ``exact``: a scalar, a
    list, or an object holding no accept object (where :func:`_nested` looks: in
    objects, not in lists)."""
    if type(value) in _LITERALS:
        return True
    if type(value) is not dict or is_accept_object(value):
        return False
    return all(map(is_literal, value.values()))


_KIND_OF_COMPARE = {"number": NUMERIC_KINDS, "unordered": {"array"}, "subset": {"object"}}


def _check_kind(compare: str, value: object) -> None:
    kinds = _KIND_OF_COMPARE.get(compare)
    if kinds is not None and value_kind(value) not in kinds:
        raise UnreadableEntry(f"compare {compare!r} cannot accept {shown(value)}")
    if compare == "text" and not isinstance(value, str):
        raise UnreadableEntry(f"compare 'text' accepts strings, not {shown(value)}")
    if compare == "pattern":
        if not isinstance(value, str):
            raise UnreadableEntry(
                f"compare 'pattern' accepts patterns (strings), not {shown(value)}"
            )
        try:
            compile_pattern(value)
        except (UnusablePattern, CostlyPattern) as error:
            raise UnreadableEntry(f"pattern {value!r} cannot be used: {error}") from None
