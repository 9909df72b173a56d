"""How one made call differs from one expected call: every difference, with its path.

A difference is a mismatch code: ``wrong_tool``, ``value:PATH``, ``missing:PATH``,
``unexpected:PATH``, or ``unreadable_arguments`` (the call's arguments could not be
decoded into an object). PATH starts at the argument's name and goes into objects with
``.key`` and into lists with ``[i]``: ``filters.city``, ``stops[2].city``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

from toolaudit.deep.patterns import compile_pattern
from toolaudit.truth.entries import BFCL_COMPARE, Accept, bfcl_accept
from toolaudit.values import NUMERIC_KINDS, json_equal, json_key, value_kind


def mismatches_of_call(
    expected_name: str,
    expected_arguments: Mapping[str, Accept],
    made_name: object,
    made_arguments: object,
    defaults: Mapping[str, Mapping[str, object]],
) -> list[str]:
    """Every difference between a made call and an expected one (empty: it matches).

    A wrong tool is that one difference: its arguments answer another question.
    ``defaults`` (tool -> parameter -> default) stands in for a parameter left out, and
    makes a parameter given at its default no unexpected one.
    """
    if made_name != expected_name:
        return ["wrong_tool"]
    if not isinstance(made_arguments, Mapping):
        return ["unreadable_arguments"]
    tool_defaults = defaults.get(expected_name, {})
    found: list[str] = []
    for name, accept in expected_arguments.items():
        if name in made_arguments:
            found.extend(value_mismatches(made_arguments[name], accept, name))
        elif accept.optional:
            continue
        elif name not in tool_defaults or value_mismatches(tool_defaults[name], accept, name):
            found.append(f"missing:{name}")
    for name, value in made_arguments.items():
        if name not in expected_arguments and not (
            name in tool_defaults and json_equal(value, tool_defaults[name])
        ):
            found.append(f"unexpected:{name}")
    return found


def value_mismatches(value: object, accept: Accept, path: str) -> list[str]:
    """How a value differs from the closest of its accepted values (empty: accepted).

    Of several accepted values, the differences reported are those of the one with the
    fewest, so that a nested value names the key that differs, not the whole value.
    """
    if accept.compare == "any":
        return []
    values = accept.values
    if type(value) in _PLAIN and accept.compare in _STRUCTURAL:
        # Most expected values: strings and numbers, given as they are (equal values of
        # one of these types are equal JSON, so that candidate has no difference; any
        # other pair is compared in full below).
        for candidate in values:
            if type(candidate) is type(value) and value == candidate:
                return []
    closest: list[str] | None = None
    for candidate in values:
        found = _differences(value, candidate, accept, path)
        if not found:
            return []
        if closest is None or len(found) < len(closest):
            closest = found
    return closest or [f"value:{path}"]


#: Types whose equal values are equal JSON values (``True == 1`` is why bool is not here).
_PLAIN = frozenset({str, int, float})
#: The compares under which a candidate equal as JSON is accepted.
_STRUCTURAL = frozenset({"exact", "subset", BFCL_COMPARE})


def _differences(value: object, candidate: object, accept: Accept, path: str) -> list[str]:
    compare = accept.compare
    if isinstance(candidate, Accept):
        return value_mismatches(value, candidate, path)
    if compare in _STRUCTURAL:
        return _structural(value, candidate, compare, path)
    if compare == "text":
        same = isinstance(value, str) and _text(value) == _text(candidate)
    elif compare == "number":
        same = _near(value, candidate, accept.tolerance or 0)
    elif compare == "unordered":
        same = (
            isinstance(value, (list, tuple))
            and isinstance(candidate, (list, tuple))
            and _multiset(value) == _multiset(candidate)
        )
    elif compare == "pattern":
        same = isinstance(value, str) and compile_pattern(str(candidate))(value) is not None
    else:  # an Accept built by hand with a compare this module does not know
        raise ValueError(f"unknown compare {compare!r}")
    return [] if same else [f"value:{path}"]


def _structural(value: object, candidate: object, compare: str, path: str) -> list[str]:
    """``exact`` (JSON equality), ``subset`` (keys beyond the expected ones ignored, at
    every depth) and BFCL's possible answers read natively, key by key and item by item."""
    if isinstance(candidate, Accept):
        return value_mismatches(value, candidate, path)
    if json_equal(value, candidate):
        return []
    if isinstance(candidate, Mapping) and isinstance(value, Mapping):
        if compare == BFCL_COMPARE and all(isinstance(one, list) for one in candidate.values()):
            # A BFCL object parameter: each key lists its own possible answers.
            candidate = {key: bfcl_accept(possible) for key, possible in candidate.items()}
        found: list[str] = []
        for key, expected in candidate.items():
            where = f"{path}.{key}"
            if key in value:
                found.extend(_structural(value[key], expected, compare, where))
            elif not (isinstance(expected, Accept) and expected.optional):
                found.append(f"missing:{where}")
        if compare != "subset":
            found.extend(f"unexpected:{path}.{key}" for key in value if key not in candidate)
        return found
    if (
        isinstance(candidate, (list, tuple))
        and isinstance(value, (list, tuple))
        and len(candidate) == len(value)
    ):
        return [
            mismatch
            for index, (item, expected) in enumerate(zip(value, candidate, strict=True))
            for mismatch in _structural(item, expected, compare, f"{path}[{index}]")
        ]
    return [f"value:{path}"]


def _text(value: object) -> object:
    """A string as ``text`` compares it: surrounding spaces and case ignored."""
    return value.strip().casefold() if isinstance(value, str) else value


def _near(value: object, expected: object, tolerance: float) -> bool:
    if value_kind(value) not in NUMERIC_KINDS or value_kind(expected) not in NUMERIC_KINDS:
        return False
    if json_equal(value, expected):
        return True
    try:
        return abs(value - expected) <= tolerance  # type: ignore[operator]
    except OverflowError:  # an integer of 400 digits against a float: never close
        return False
    except TypeError:  # a number beyond a double's range (a Decimal) and a float: exactly
        difference = Fraction(value) - Fraction(expected)  # type: ignore[call-overload]
        return abs(difference) <= Fraction(tolerance)


def _multiset(items: Sequence[object]) -> Counter[object]:
    return Counter(json_key(item) for item in items)
