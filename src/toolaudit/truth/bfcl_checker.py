"""BFCL's AST checker (``bfcl evaluate``): one decoded output against the possible answers,
with BFCL's dispatch by category, its greedy pairing of parallel calls, and its first
error only. Values are compared in :mod:`toolaudit.truth.bfcl_values`; Java and
JavaScript arguments are read in :mod:`toolaudit.truth.bfcl_langs`.

A check gives a :class:`Verdict`: BFCL's ``error_type`` (None when the output passes)
and the mismatch codes of :mod:`toolaudit.truth.match` it amounts to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from toolaudit.truth.bfcl_langs import JAVA_TYPES, JS_TYPES, NESTED_TYPES, java_value, js_value
from toolaudit.truth.bfcl_values import (
    PYTHON_NESTED,
    PYTHON_TYPES,
    dict_error,
    is_among,
    is_optional_mark,
    list_error,
    list_of_dicts_error,
    string_error,
    type_check,
)

#: A decoded call: ``{name: {parameter: value}}``, as BFCL's decoder gives it.
Decoded = dict[str, dict[str, Any]]
#: One expected call as BFCL's possible answers hold it: ``{name: {parameter: [values]}}``.
Answer = Mapping[str, Mapping[str, list[Any]]]


class Verdict(NamedTuple):
    """BFCL's verdict: its ``error_type`` (None when the output passes), our mismatch codes,
    and the pairs of (made call, expected call) it matched or compared."""

    error_type: str | None
    mismatches: tuple[str, ...] = ()
    pairing: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Checking:
    """What a check needs besides the calls: the question's function docs, the language
    (``python``, ``java`` or ``javascript``), and whether the model's function names
    have their dots as underscores (BFCL's ``underscore_to_dot``, a per-model setting)."""

    functions: Sequence[Mapping[str, Any]]
    language: str = "python"
    underscore_to_dot: bool = False


def check(category: str, made: list[Decoded], answers: list[Answer], how: Checking) -> Verdict:
    """BFCL's ``ast_checker``: parallel categories pair calls greedily in any order,
    ``multiple`` ones check the first call, the others need exactly one call."""
    if "parallel" in category:
        return _parallel(made, answers, how)
    if "multiple" in category:
        if len(made) != len(answers):
            return _wrong_count("multiple_function_checker", made, answers)
    elif len(made) != 1:
        return _wrong_count("simple_function_checker", made, answers)
    failure = call_failure(checked_description(category, answers[0], how), made[0], answers[0], how)
    return failure._replace(pairing=((0, 0),)) if failure else Verdict(None, (), ((0, 0),))


def _parallel(made: list[Decoded], answers: list[Answer], how: Checking) -> Verdict:
    if len(made) != len(answers):
        return _wrong_count("parallel_function_checker_no_order", made, answers)
    pairs: list[tuple[int, int]] = []
    taken: set[int] = set()
    for expected_index, answer in enumerate(answers):
        description = description_of(how, _name(answer))
        for made_index, call in enumerate(made):
            if made_index not in taken and call_failure(description, call, answer, how) is None:
                taken.add(made_index)
                pairs.append((made_index, expected_index))
                break
        else:  # greedy: the first call that passes is taken, and never given back
            return Verdict(
                "parallel_function_checker_no_order:cannot_find_match",
                (f"missing_call:{_name(answer)}",),
                tuple(pairs),
            )
    return Verdict(None, (), tuple(pairs))


def checked_description(category: str, answer: Answer, how: Checking) -> Mapping[str, Any]:
    """The function a call paired with ``answer`` was checked against: its own, but in a
    simple category the question's first function, whatever its name (as BFCL does)."""
    if "parallel" in category or "multiple" in category:
        return description_of(how, _name(answer))
    return how.functions[0]


def _wrong_count(checker: str, made: list[Decoded], answers: list[Answer]) -> Verdict:
    if len(made) > len(answers):
        codes = tuple(f"extra_call:{_name(call)}" for call in made[len(answers) :])
    else:
        codes = tuple(f"missing_call:{_name(answer)}" for answer in answers[len(made) :])
    return Verdict(f"{checker}:wrong_count", codes)


def _name(call: Mapping[str, Any]) -> str:
    return next(iter(call))


def description_of(how: Checking, name: str) -> Mapping[str, Any]:
    """BFCL's ``find_description``: the question's function of that name."""
    for description in how.functions:
        if description["name"] == name:
            return description
    raise LookupError(f"no function {name!r} in the question (BFCL stops on it)")


def expected_name(description: Mapping[str, Any], how: Checking) -> str:
    """The function's name as the model must give it (dots as underscores if the model's
    setting says so)."""
    name = str(description["name"])
    return name.replace(".", "_") if how.underscore_to_dot else name


def call_failure(
    description: Mapping[str, Any], call: Decoded, answer: Answer, how: Checking
) -> Verdict | None:
    """BFCL's ``simple_function_checker``: name, required parameters, each given
    parameter's type and value, then the parameters left out that may not be."""
    name = expected_name(description, how)
    if name not in call:
        return Verdict("simple_function_checker:wrong_func_name", ("wrong_tool",))
    given = call[name]
    possible = next(iter(answer.values()))
    properties = description["parameters"]["properties"]
    for parameter in description["parameters"].get("required", []):
        if parameter not in given:
            return Verdict("simple_function_checker:missing_required", (f"missing:{parameter}",))
    for parameter, value in given.items():
        if parameter not in properties or parameter not in possible:
            return Verdict("simple_function_checker:unexpected_param", (f"unexpected:{parameter}",))
        error = value_error(value, properties[parameter], possible[parameter], how.language)
        if error is not None:
            return Verdict(error, (f"value:{parameter}",))
    for parameter, accepted in possible.items():
        if parameter not in given and not any(is_optional_mark(a) for a in accepted):
            return Verdict("simple_function_checker:missing_optional", (f"missing:{parameter}",))
    return None


def value_error(
    value: Any, details: Mapping[str, Any], possible: list[Any], language: str
) -> str | None:
    """One given parameter's value against its possible answers: BFCL's error_type or None."""
    kind = details["type"]
    has_items = kind in (PYTHON_NESTED if language == "python" else NESTED_TYPES)
    nested_kind = details["items"]["type"] if has_items else None
    if language in ("java", "javascript"):
        types = JAVA_TYPES if language == "java" else JS_TYPES
        expected, nested = types[kind], types[nested_kind] if nested_kind else None
        if type(value) is not str:  # Java and JavaScript values come as source text
            return "type_error:java" if language == "java" else "type_error:js"
        read = java_value if language == "java" else js_value
        value = read(value, kind, nested_kind) if nested_kind else read(value, kind)
    else:
        expected = PYTHON_TYPES[kind]
        nested = PYTHON_TYPES[nested_kind] if nested_kind else None
        if kind == "float" and type(value) is int:
            value = float(value)  # Python's int accepted for a float
        if kind == "tuple" and type(value) is tuple:
            value = list(value)  # a tuple (prompt-mode output) for a tuple parameter
    is_variable, error = type_check(value, possible, expected, nested)
    if error is not None:
        return error
    if not is_variable:  # a variable's name is compared by plain equality below
        if expected is dict:
            return dict_error(value, possible)
        if expected is list:
            if nested is dict:
                return list_of_dicts_error(value, possible)
            return list_error(value, possible)
        if expected is str:
            return string_error(value, possible)
    return None if is_among(value, possible) else "value_error:others"
