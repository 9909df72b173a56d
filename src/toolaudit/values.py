"""JSON values as Python holds them: their kind, JSON equality, and how messages name them.

Shared by the contract (the top level of a call's arguments) and deep
validation (everything inside): both must read ``true``, ``1`` and ``1.0``
the same way, so both read them here.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from toolaudit.jsonutil import ExactNumber

# The JSON kind of a value, decided by its exact Python type on the fast path.
_KIND_OF_EXACT_TYPE: dict[type, str] = {
    str: "string",
    int: "integer",
    float: "float",
    # A number beyond a double's range, read exactly: a number as a float is.
    ExactNumber: "float",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
    type(None): "null",
}

# Which value kinds each schema type name accepts. "float" is a value kind
# only: a float is a number but never an integer (the contract maps integer->int).
_KINDS_ACCEPTED_BY_TYPE_NAME: dict[str, frozenset[str]] = {
    "string": frozenset({"string"}),
    "integer": frozenset({"integer"}),
    "number": frozenset({"integer", "float"}),
    "boolean": frozenset({"boolean"}),
    "array": frozenset({"array"}),
    "object": frozenset({"object"}),
    "null": frozenset({"null"}),
}

#: The type names a schema may use, in the order messages list them.
TYPE_NAMES = tuple(_KINDS_ACCEPTED_BY_TYPE_NAME)

#: The kind of a value of each exact type (what :func:`value_kind` looks up first), for
#: loops that look it up themselves before calling it.
KIND_OF_EXACT_TYPE: Mapping[type, str] = _KIND_OF_EXACT_TYPE

#: Every value kind; a spec without ``type`` accepts all of them.
ALL_KINDS = frozenset(_KIND_OF_EXACT_TYPE.values())

#: The exact Python types of each value kind.
EXACT_TYPES_OF_KIND: dict[str, frozenset[type]] = {
    kind: frozenset(t for t, k in _KIND_OF_EXACT_TYPE.items() if k == kind) for kind in ALL_KINDS
}

#: The exact types of plain JSON scalars.
SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})

NUMERIC_KINDS = frozenset({"integer", "float"})


def value_kind(value: object) -> str | None:
    """The JSON kind of a Python value, or None when it has none.

    Exact types first: that is the fast path, and it keeps bool (a subclass of
    int that cannot itself be subclassed) apart from int. A value of any other
    subclass (an ``OrderedDict``, an ``IntEnum``) counts as its base.
    """
    kind = _KIND_OF_EXACT_TYPE.get(type(value))
    if kind is not None:
        return kind
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return None


def json_equal(left: object, right: object) -> bool:
    """Equality as JSON sees it, not as Python does.

    ``true`` never equals ``1``, ``1`` equals ``1.0``, arrays and objects
    compare element by element. Iterative, so deeply nested values cannot
    exhaust the interpreter's recursion limit.
    """
    pending: list[tuple[Any, Any]] = [(left, right)]
    while pending:
        a, b = pending.pop()
        kind_a, kind_b = value_kind(a), value_kind(b)
        if kind_a in NUMERIC_KINDS and kind_b in NUMERIC_KINDS:
            if a != b:
                return False
        elif kind_a != kind_b:
            return False
        elif kind_a == "array":
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b, strict=True))
        elif kind_a == "object":
            if a.keys() != b.keys():
                return False
            pending.extend((a[key], b[key]) for key in a)
        elif a != b:
            return False
    return True


def json_key(value: object) -> Hashable:
    """A hashable stand-in for a value: two values have equal keys exactly when
    they are :func:`json_equal` (``1`` and ``1.0`` share one, ``true`` and ``1``
    do not). Lets ``uniqueItems`` test a long array in linear time."""
    kind = value_kind(value)
    if type(value) is ExactNumber:
        # Never equal to a float (beyond a double's range); an integer if integral.
        return ("n", int(value)) if value == value.to_integral_value() else ("n", value)
    if kind == "float":
        number = float(value)  # type: ignore[arg-type]
        # An integral float is its integer (exact: every float is a dyadic rational).
        return ("n", int(number)) if number.is_integer() else ("n", number)
    if kind == "integer":
        return ("n", int(value))  # type: ignore[call-overload]
    if kind == "array":
        return ("a", tuple(json_key(item) for item in value))  # type: ignore[attr-defined]
    if kind == "object":
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))  # type: ignore[attr-defined]
    return (kind, value)


def accepted_kinds(declared: object) -> frozenset[str]:
    """The value kinds a ``type`` declaration (a name or a list of names) accepts.

    Raises ValueError, saying which name, for a name that is not a type name.
    """
    names = tuple(declared) if isinstance(declared, (list, tuple)) else (declared,)
    try:
        return _kinds_of_names(names)
    except (KeyError, TypeError):  # a name that is not a known type name (or not even a string)
        for type_name in names:
            if not isinstance(type_name, str) or type_name not in _KINDS_ACCEPTED_BY_TYPE_NAME:
                known = ", ".join(TYPE_NAMES)
                raise ValueError(
                    f"unknown type name {quoted(type_name)} (known: {known})"
                ) from None
        raise


@functools.lru_cache(maxsize=256)
def _kinds_of_names(names: tuple[str, ...]) -> frozenset[str]:
    # Cached: a schema with a million parameters has a handful of distinct types,
    # and one shared frozenset per type keeps compiling it fast and small.
    kinds: set[str] = set()
    for type_name in names:
        kinds |= _KINDS_ACCEPTED_BY_TYPE_NAME[type_name]
    # An empty list of names accepts no value at all.
    return frozenset(kinds)


def type_names_of(kinds: Iterable[str]) -> str:
    """How a reason names what a type declaration wanted: "integer", "string or null"."""
    kinds = set(kinds)
    names = [
        name
        for name in TYPE_NAMES
        if _KINDS_ACCEPTED_BY_TYPE_NAME[name] <= kinds
        and not (name == "integer" and "float" in kinds)  # "number" says it
    ]
    if not names:
        return "nothing (no type is allowed)"
    return " or ".join(names)


_PHRASE_OF_KIND = {
    "string": "a string",
    "integer": "a number",
    "float": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def kind_phrase(value: object) -> str:
    """How a message names the kind of a value: "an array", "a number", "null"..."""
    kind = value_kind(value)
    return _PHRASE_OF_KIND[kind] if kind is not None else f"a Python {type(value).__name__}"


_KIND_WORD = {
    "string": "string",
    "integer": "integer",
    "float": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
    "null": "null",
}

# Integers with more bits than this may have more digits than str() writes (4,300).
_LONG_INT_BITS = 14_000

#: How much of a value a reason shows: enough to recognise it, never a whole argument.
SHOWN_CHARACTERS = 60


def text_of(value: object) -> str:
    """``str(value)`` for any value a log holds: an integer too long for ``str()`` (past
    Python's 4,300 digits) is said as :func:`shown` says it."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except ValueError:
        return shown(value)


def shown(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """A value as JSON, cut to about ``limit`` characters: what a reason quotes.

    Control characters and quotes are escaped by the JSON encoding, so a
    reason stays one printable line whatever the model sent.
    """
    import orjson  # here: the contract imports this module and nothing heavy

    if isinstance(value, float) and not math.isfinite(value):
        # NaN or an infinity (given by Python code): orjson would write null.
        return "NaN" if value != value else ("-" if value < 0 else "") + "Infinity"
    if type(value) is ExactNumber:
        return str(value)  # 1E+400: its digits are bounded when read
    if type(value) is int and value.bit_length() > _LONG_INT_BITS:
        # Writing all its digits would be slow (and str() refuses past 4,300 of them).
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} digits"

    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # not JSON (a lone surrogate, a Python object), or too deep for orjson
        try:
            text = ascii(value)
        except ValueError:  # an integer inside with more digits than str() writes
            return f"{kind_phrase(value)} holding a very long integer"
        except RecursionError:
            return f"{kind_phrase(value)} nested too deeply to show"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def quoted(value: object) -> str:
    """``repr(value)``, for a message naming what a schema holds; the value as a reason
    shows it (:func:`shown`) where repr cannot say it (nested too deeply, an integer of
    more digits than str() writes)."""
    try:
        return repr(value)
    except (RecursionError, ValueError):
        return shown(value)


def subject_of(key: object) -> str:
    """An argument's name as an error's subject: itself, or ``str`` of a key that is no
    string (a Python caller's); :func:`shown` where str cannot say it."""
    if isinstance(key, str):
        return key
    try:
        return str(key)
    except (RecursionError, ValueError):
        return shown(key)


def described(value: object) -> str:
    """A value with its kind, for "got ...": 'boolean true', 'string "k"', 'array [1, 2]'."""
    kind = value_kind(value)
    if kind is None:
        return f"a Python {type(value).__name__}"
    if kind == "null":
        return "null"
    return f"{_KIND_WORD[kind]} {shown(value)}"
