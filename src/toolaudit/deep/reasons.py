"""A reason for every error: one short sentence, what was expected and what came.

``type:days`` -> "expected integer, got boolean true"; ``enum:units`` ->
'expected one of "c", "f"; got "k"'; ``constraint:days`` -> "minimum 1, got 0";
``missing:city`` -> "required". Values are quoted as JSON and cut to about 60
characters: a reason names what is wrong, never a whole argument (logs hold
personal data).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from toolaudit.deep.nodes import Node
from toolaudit.values import SHOWN_CHARACTERS, described, shown, type_names_of

_CONSTRAINT_WORDS = {
    "minimum": "minimum {limit}",
    "maximum": "maximum {limit}",
    "exclusiveMinimum": "above {limit}",
    "exclusiveMaximum": "below {limit}",
    "multipleOf": "a multiple of {limit}",
    "minLength": "at least {limit} character{s}",
    "maxLength": "at most {limit} character{s}",
    "minItems": "at least {limit} item{s}",
    "maxItems": "at most {limit} item{s}",
    "minProperties": "at least {limit} propert{ies}",
    "maxProperties": "at most {limit} propert{ies}",
}


#: A missing parameter's reason.
REQUIRED = "required"


def sentence(reason: tuple[Any, ...]) -> str:
    """The words for a reason tuple recorded where the error was found."""
    how = reason[0]
    if how == "type":
        _, kinds, value = reason
        try:
            head = _TYPE_HEADS[kinds]
        except TypeError:  # a set of kinds a caller gave
            head = _expected_type(kinds)
        return head + described(value)
    if how == "never":
        return f"no value is allowed here, got {described(reason[1])}"
    if how == "enum":
        _, allowed, value = reason
        return _expected_one_of(allowed) + shown(value)
    if how == "const":
        _, expected, value = reason
        return f"expected {shown(expected)}, got {shown(value)}"
    if how == "constraint":
        return _constraint(*reason[1:])
    if how == "missing":
        return REQUIRED
    if how == "unexpected":
        try:
            return _UNDECLARED[reason[1]]
        except TypeError:  # names given as a list
            return _undeclared(reason[1])
    if how == "unexpected_parameter":
        if not reason[1]:
            return "not a parameter: this tool takes none"
        return f"not a parameter of this tool (parameters: {_names_listed(tuple(reason[1]))})"
    if how == "unknown_tool":
        tools = reason[1]
        if not tools:
            return "no tools are defined"
        return f"no tool of this name (tools: {_names_listed(tuple(tools))})"
    if how == "text":
        return str(reason[1])
    raise ValueError(f"no words for the reason {how!r}")


#: How many words a :class:`_SchemaWords` keeps; past them, it words each time.
MOST_KEPT = 1024


class _SchemaWords(dict[Any, str]):
    """Words of reasons that depend on the schema alone (an object's declared names, a
    limit, the kinds a type allows), kept by what they are worded from: a report words
    the same few for most failing calls. ``words[key]`` is ``word(key)``; a key with no
    hash raises TypeError, for the caller to word it itself."""

    __slots__ = ("_word",)

    def __init__(self, word: Callable[[Any], str]) -> None:
        super().__init__()
        self._word = word

    def __missing__(self, key: Any) -> str:
        words = self._word(key)
        if len(self) < MOST_KEPT:
            self[key] = words
        return words


def _undeclared(declared: Any) -> str:
    """An undeclared property's reason, which lists the names ``declared`` declares."""
    names = _declared_names(declared)
    if not names:
        return "not declared: this object takes no properties"
    return f"not a declared property (declared: {listed(names)})"


def _expected_type(kinds: Iterable[str]) -> str:
    """A type reason's words before the value that came."""
    return f"expected {type_names_of(kinds)}, got "


def _expected_one_of(allowed: Iterable[Any]) -> str:
    """An enum reason's words before the value that came."""
    return f"expected one of {listed(shown(a, 20) for a in allowed)}; got "


class ToolWords:
    """The sentences of one tool's errors at the top level of its arguments, as
    :func:`sentence` words them, with the words that depend on the tool alone made
    once: a report words the reasons of every failing call, the same few for most."""

    __slots__ = ("_heads", "unexpected")

    missing = REQUIRED
    #: Any reason's words (:func:`sentence`), for a caller that imports this module lazily.
    sentence = staticmethod(sentence)

    def __init__(self, parameter_names: tuple[str, ...]) -> None:
        #: An undeclared argument's reason (it lists the tool's parameters).
        self.unexpected = sentence(("unexpected_parameter", parameter_names))
        # (kind, parameter) -> the words before the value that came; at most two a
        # declared parameter.
        self._heads: dict[tuple[str, str], str] = {}

    def wrong_type(self, parameter: str, kinds: Iterable[str], value: object) -> str:
        head = self._heads.get(("type", parameter))
        if head is None:
            head = self._heads["type", parameter] = _expected_type(kinds)
        return head + described(value)

    def not_allowed(self, parameter: str, allowed: Iterable[Any], value: object) -> str:
        head = self._heads.get(("enum", parameter))
        if head is None:
            head = self._heads["enum", parameter] = _expected_one_of(allowed)
        return head + shown(value)


def _declared_names(declared: Any) -> list[str]:
    """A node's declared names, its own properties first; or names given as they are."""
    if isinstance(declared, Node):
        own = list(declared.properties or ())
        return own + sorted(declared.declared.difference(own))
    return list(declared)


def _constraint(keyword: str, limit: Any, value: Any) -> str:
    if keyword == "pattern":
        return _PATTERN_HEADS[limit] + shown(value)  # (a pattern is a string)
    if keyword == "uniqueItems":
        first, again = limit
        return f"items must be unique, and items {first} and {again} are equal"
    if type(limit) is float and limit == 0:
        # -0.0 and 0.0 are one key, of one type, but each is shown as it came.
        rule = _rule((keyword, limit, float))
    else:
        try:
            # (The limit's type too: 1 and 1.0 are equal keys, but each is shown as it came.)
            rule = _RULES[keyword, limit, type(limit)]
        except TypeError:  # a limit with no hash
            rule = _rule((keyword, limit, type(limit)))
    if keyword in ("minLength", "maxLength"):
        return f"{rule}, got {len(value)}: {shown(value)}"
    if keyword in ("minItems", "maxItems"):
        return f"{rule}, got {len(value)}"
    if keyword in ("minProperties", "maxProperties"):
        return f"{rule}, got {len(value)}"
    return f"{rule}, got {shown(value)}"


def _pattern_head(pattern: Any) -> str:
    """A pattern's reason before the value that came."""
    return f"does not match the pattern {shown(pattern)}: got "


def _rule(key: tuple[str, Any, type]) -> str:
    """What a limit asks: "at most 10 characters" (``key``: the keyword, the limit and
    its type)."""
    keyword, limit, _ = key
    one = limit == 1
    return _CONSTRAINT_WORDS[keyword].format(
        limit=shown(limit), s="" if one else "s", ies="y" if one else "ies"
    )


_TYPE_HEADS = _SchemaWords(_expected_type)
_UNDECLARED = _SchemaWords(_undeclared)
_PATTERN_HEADS = _SchemaWords(_pattern_head)
_RULES = _SchemaWords(_rule)


@functools.lru_cache(maxsize=256)
def _names_listed(names: tuple[str, ...]) -> str:
    """A tool's parameters or a schema set's tools, listed: the same few lists, worded
    for many failing calls of a report."""
    return listed(names)


def listed(names: Iterable[str], limit: int = SHOWN_CHARACTERS) -> str:
    """Names joined by commas, cut with "..." (and how many more) past ``limit`` characters."""
    names = list(names)
    shown_names: list[str] = []
    length = 0
    for name in names:
        if shown_names and length + len(name) > limit:
            return ", ".join(shown_names) + f", ... ({len(names) - len(shown_names)} more)"
        shown_names.append(name)
        length += len(name) + 2
    return ", ".join(shown_names)
