"""BFCL's comparison of one argument's value with its possible answers, as its AST checker
does it (``bfcl evaluate``), quirks included: see docs/evaluation.md, "BFCL's semantics".

Every function returns None when the value passes, else BFCL's ``error_type`` string.
Types are compared as BFCL compares them, by exact Python type (``True`` is not an
integer), while values are compared by Python equality (``1 == 1.0 == True``).
"""

from __future__ import annotations

import re

#: BFCL's parameter types, as the Python types a decoded value must have. ``tuple`` is
#: a list (JSON has no tuples) and ``any`` a string.
PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}

#: The types whose items are type-checked too (one level deep, as BFCL does).
PYTHON_NESTED = ("array", "tuple")

#: What BFCL removes from strings before comparing them (spaces and ``,./-_*^``).
_IGNORED = re.compile(r"[ ,./\-_*^]")


def standardized(text: str) -> str:
    """BFCL's string normalisation: ``,./-_*^`` and spaces dropped, lower case, and single
    quotes read as double (so ``"April 1, 2024"`` equals ``"april 12024"``)."""
    return _IGNORED.sub("", text).lower().replace("'", '"')


def is_optional_mark(value: object) -> bool:
    """BFCL's "may be left out": ``""`` among the possible answers."""
    return type(value) is str and value == ""


def answer_type(possible: list[object]) -> type | None:
    """The type of the first possible answer that is not ``""`` (None if there is none)."""
    for answer in possible:
        if not is_optional_mark(answer):
            return type(answer)
    return None


def is_among(value: object, possible: list[object]) -> bool:
    """Python's ``value in possible``: equality, where ``1 == 1.0 == True``."""
    return any(value is answer or value == answer for answer in possible)


def type_check(
    value: object, possible: list[object], expected: type, nested: type | None
) -> tuple[bool, str | None]:
    """``(is_variable, error_type)``: whether the possible answers' type differs from the
    declared one (BFCL then takes them for a variable's name and compares by equality),
    and BFCL's type error, if any. Items of a list are checked one level deep."""
    found = answer_type(possible)
    is_variable = found is not None and found is not expected
    failure = "type_error:simple"
    if type(value) is expected:
        if nested is None:
            return is_variable, None
        assert isinstance(value, list)
        for answer in possible:
            # An answer that is not a list (such as "") lets any items through.
            if type(answer) is not list or all(
                type_check(item, answer, nested, None)[1] is None for item in value
            ):
                return is_variable, None
        failure = "type_error:nested"
    if found is not None and type(value) is found:
        # A value of the answers' type: a variable's name; a nested failure stays one.
        return True, (None if failure == "type_error:simple" else failure)
    return is_variable, "type_error:simple"


def string_error(value: str, possible: list[object]) -> str | None:
    """A string among the (string) possible answers, both normalised."""
    answers = [standardized(answer) for answer in possible if type(answer) is str]
    return None if standardized(value) in answers else "value_error:string"


def _standardized_items(items: object) -> list[object]:
    # A possible answer "" iterates as no items: an empty list then matches it.
    return [standardized(item) if type(item) is str else item for item in items]  # type: ignore[attr-defined]


def list_error(value: list[object], possible: list[object]) -> str | None:
    """A list equal to one possible list, its string items normalised (not deeper)."""
    answers = [_standardized_items(answer) for answer in possible]
    return None if _standardized_items(value) in answers else "value_error:list/tuple"


def dict_error(value: dict[str, object], possible: list[object]) -> str | None:
    """A dict matching one possible dict: each key expected, each value among that key's
    possible values (strings normalised, one level deep), each key without ``""`` given.
    The error reported is the last possible dict's (``dict_checker:unclear`` if none)."""
    error = "dict_checker:unclear"
    for answer in possible:
        if is_optional_mark(answer):
            continue
        if not isinstance(answer, dict):
            raise TypeError("a possible answer of a dict that is no dict (BFCL stops on it)")
        found = _one_dict_error(value, answer)
        if found is None:
            return None
        error = found
    return error


def _one_dict_error(value: dict[str, object], answer: dict[str, list[object]]) -> str | None:
    error = None
    for key, item in value.items():
        if key not in answer:
            error = "value_error:dict_key"
            break
        given = standardized(item) if type(item) is str else item
        if not is_among(given, _standardized_items(answer[key])):
            error = "value_error:dict_value"
            break
    # BFCL looks for missing keys even after a wrong value: a missing key's error wins.
    for key, accepted in answer.items():
        if key not in value and not any(is_optional_mark(a) for a in accepted):
            return "value_error:dict_key"
    return error


def list_of_dicts_error(value: list[object], possible: list[object]) -> str | None:
    """A list of dicts matching one possible list of dicts, position by position."""
    error = "list_dict_checker:unclear"
    for answer in possible:
        if len(value) != len(answer):  # type: ignore[arg-type]
            error = "value_error:list_dict_count"
            continue
        failed = False
        for given, expected in zip(value, answer, strict=True):  # type: ignore[call-overload]
            error_of_item = dict_error(given, [expected])
            if error_of_item is not None:
                error, failed = error_of_item, True
                break
        if not failed:
            return None
    return error
