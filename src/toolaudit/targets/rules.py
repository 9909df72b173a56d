"""What a target rule is: a code, whether the target rejects what it matches or accepts
and ignores it, what it matches, a message, and the page (or engine code) it comes from
with the date that page was last read.

Rules are data: a target module is a tuple of :class:`Rule`, so that a provider's
change is a one-line diff (and a test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["rejects", "ignores"]
#: The target refuses the tool: the request fails.
REJECTS: Severity = "rejects"
#: The target takes the tool but does not hold calls to what was matched.
IGNORES: Severity = "ignores"


@dataclass(frozen=True)
class Keyword:
    """A keyword present in a subschema; with ``when``, only where its value meets it
    (``when_says`` names the condition in the docs' table); with ``on_type``, only in
    a subschema that declares that type."""

    name: str
    when: Callable[[object], bool] | None = None
    when_says: str = ""
    on_type: str | None = None


@dataclass(frozen=True)
class KeywordOutside:
    """Any keyword of a subschema not in ``allowed`` (a target that reads a fixed
    set of fields and refuses the rest)."""

    allowed: frozenset[str]


#: What a :class:`Limit` counts over a whole parameters schema.
Measure = Literal[
    "object-depth",  # object levels from the root (the root object is 1)
    "properties",  # object properties, every object's together
    "enum-values",  # enum values, every enum's together
    "string-size",  # characters of property names, $defs names, enum and const strings
    "large-enum-size",  # characters of one string enum's values, when it has > 250
    "tools",  # tools in one request: a schemas file's (a BFCL question's), not one schema's
]


@dataclass(frozen=True)
class Limit:
    """At most ``maximum`` of a measure."""

    measure: Measure
    maximum: int


#: The structural rules a strict mode adds.
Shape = Literal[
    "open-object",  # an object whose additionalProperties is not false
    "optional-property",  # a property its object does not require
    "root-not-object",  # a parameters schema whose type is not "object"
    "root-any-of",  # a parameters schema that is an anyOf
    "recursive",  # a $ref to a subschema it stands in
    "external-ref",  # a $ref that is not local ("#...")
    "whole-schema",  # the whole schema, once (a mode that enforces none of it)
]


@dataclass(frozen=True)
class Structure:
    """A structural rule, named by its shape."""

    shape: Shape


@dataclass(frozen=True)
class ToolName:
    """A tool's name that does not match ``pattern`` in full (``says`` names it in the
    docs' table). The name is not in the parameters schema: its finding points at the
    whole schema."""

    pattern: str
    says: str


Match = Keyword | KeywordOutside | Limit | Structure | ToolName


@dataclass(frozen=True)
class Rule:
    """One thing a target refuses or does not enforce.

    ``message`` may name ``{keyword}``, ``{value}``, ``{count}`` and ``{maximum}``;
    the finding fills them in.
    """

    #: Short and stable, unique in its target; a finding's code is ``target:<T>:<rule>``.
    rule: str
    severity: Severity
    match: Match
    message: str
    #: The provider's documentation page, or the engine's code, the rule is read from.
    source: str
    #: When that source was last read (ISO date).
    checked: str


@dataclass(frozen=True)
class Target:
    """A provider mode or engine: its name, what it is, and its rules."""

    name: str
    summary: str
    rules: tuple[Rule, ...]

    def code(self, rule: Rule) -> str:
        """A finding's code: ``target:<name>:<rule>``."""
        return f"target:{self.name}:{rule.rule}"


def keyword_rules(
    prefix: str, severity: Severity, names: tuple[str, ...], message: str, source: str, checked: str
) -> tuple[Rule, ...]:
    """One rule per keyword of ``names``, coded ``<prefix>-<keyword>`` (without a ``$``),
    all with the same message and source: a page's list of what it does not support."""
    return tuple(
        Rule(f"{prefix}-{name.lstrip('$')}", severity, Keyword(name), message, source, checked)
        for name in names
    )


def not_enforced(message: str, source: str, checked: str) -> Rule:
    """The one rule of a mode that takes any schema and holds calls to none of it."""
    return Rule("not-enforced", IGNORES, Structure("whole-schema"), message, source, checked)
