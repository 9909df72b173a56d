"""Warnings of ``toolaudit schemas`` about what stands where nothing reads it: a bare map
of parameters, keywords of the wrong kind at the top level, and keywords that the
declared ``type`` leaves without effect.

The contract reads only ``properties`` and ``required`` at the top level, and deep mode
compiles the schemas below it: the root's other keywords are never read, so a
``"pattern": {...}`` there, a defect one level down, passes silently. These checks say
so without changing what the contract or deep mode judge.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolaudit.deep import inspect_parameters
from toolaudit.errors import SchemaError
from toolaudit.values import NUMERIC_KINDS, accepted_kinds, type_names_of

BARE_PARAMETER_MAP = "bare-parameter-map"
MALFORMED_ROOT_KEYWORD = "malformed-root-keyword"
KEYWORD_WITHOUT_EFFECT = "keyword-without-effect"

#: The keywords that constrain one kind of value only, by that kind.
KEYWORDS_OF_KIND: dict[str, tuple[str, ...]] = {
    "object": (
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "unevaluatedProperties",
    ),
    "array": (
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
        "unevaluatedItems",
    ),
    "string": ("minLength", "maxLength", "pattern"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}

#: Keywords deep mode compiles at any level below the top one, and what it then requires
#: of their value; at the top level they are checked the same way, in isolation.
ROOT_KEYWORDS_COMPILED = (
    "type",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "pattern",
    "uniqueItems",
    "items",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
)

#: Keywords that may hold an object: a key among them makes the parameters a schema,
#: never a bare map (``{"items": {"type": "string"}}`` is an array's schema).
OBJECT_VALUED_KEYWORDS = frozenset(
    {
        "properties",
        "patternProperties",
        "additionalProperties",
        "items",
        "additionalItems",
        "contains",
        "propertyNames",
        "dependentSchemas",
        "dependencies",
        "unevaluatedItems",
        "unevaluatedProperties",
        "not",
        "if",
        "then",
        "else",
        "$defs",
        "definitions",
        "$vocabulary",
        "const",
        "default",
        "example",
        "examples",
        "discriminator",
        "externalDocs",
        "xml",
    }
)

#: What a value needs among its keys to look like a parameter's schema.
SCHEMA_LOOKING_KEYS = frozenset(
    {
        "type",
        "properties",
        "items",
        "enum",
        "const",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "description",
        "title",
        "format",
        "default",
    }
)

#: Keys a bare map may hold beside its parameters, with the kind each must be.
BESIDE_A_BARE_MAP = {"required": list, "description": str, "title": str}

#: A found warning: (code, the keyword path from the root as tokens, message).
Found = tuple[str, tuple[str, ...], str]


def root_warnings(parameters: Mapping[str, Any]) -> Iterator[Found]:
    """The top level's own warnings: a bare map of parameters, keywords of the wrong
    kind, and keywords that have no effect on an arguments object."""
    bare = _bare_parameters(parameters)
    if bare:
        names = ", ".join(repr(name) for name in bare[:3])
        if len(bare) > 3:
            names += f" and {len(bare) - 3} more"
        yield (
            BARE_PARAMETER_MAP,
            (),
            f"a bare map of parameters ({names}), not a schema: no parameter is declared and "
            'every argument of a call is unexpected; meant {"type": "object", '
            '"properties": {...}} around them?',
        )
        return  # its keys are parameter names, not keywords
    malformed: set[str] = set()
    for keyword, tokens, reason in _malformed_root_keywords(parameters):
        malformed.add(keyword)
        yield (
            MALFORMED_ROOT_KEYWORD,
            tokens,
            f"{reason} (a defect below the top level; here nothing reads it)",
        )
    for kind, keywords in KEYWORDS_OF_KIND.items():
        if kind == "object":
            continue
        for keyword in keywords:
            if keyword in parameters and keyword not in malformed:
                yield (
                    KEYWORD_WITHOUT_EFFECT,
                    (keyword,),
                    f"{keyword} has no effect at the top level: the arguments are an object, "
                    f"not {'a' if kind != 'array' else 'an'} {kind}",
                )
    if "type" in parameters and "type" not in malformed:
        kinds = accepted_kinds(parameters["type"])
        if "object" not in kinds:
            yield (
                KEYWORD_WITHOUT_EFFECT,
                ("type",),
                f"type ({type_names_of(kinds) or 'none'}) has no effect at the top level: "
                "the arguments are judged as an object",
            )


def _bare_parameters(parameters: Mapping[str, Any]) -> list[str]:
    """The names of a bare map's parameters; empty when ``parameters`` is not one.

    A bare map: no key is a keyword that may hold an object, every key but ``required``
    (a list), ``description`` and ``title`` (strings) holds an object with a schema's
    key (``type``, ``description``, ``enum``...), and there is at least one such key.
    """
    names: list[str] = []
    for key, value in parameters.items():
        beside = BESIDE_A_BARE_MAP.get(key)
        if beside is not None and isinstance(value, beside):
            continue
        if (
            key in OBJECT_VALUED_KEYWORDS
            or not isinstance(value, Mapping)
            or SCHEMA_LOOKING_KEYS.isdisjoint(value)
        ):
            return []
        names.append(str(key))
    return names


def _malformed_root_keywords(
    parameters: Mapping[str, Any],
) -> Iterator[tuple[str, tuple[str, ...], str]]:
    """(keyword, where, why) for each root keyword deep mode would reject one level
    down: each is compiled alone as a parameter's schema, so the reason is deep mode's
    own. A subschema the keyword holds stands in as ``true``: only the keyword's own
    kind is the root's concern (a $ref inside it would resolve elsewhere)."""
    for keyword in ROOT_KEYWORDS_COMPILED:
        value = parameters.get(keyword)
        if keyword not in parameters or (keyword == "$ref" and isinstance(value, str)):
            continue
        try:
            alone = _subschemas_as_true(value) if keyword in _HOLDING_SCHEMAS else value
            inspect_parameters("", {"properties": {"": {keyword: alone}}})
        except SchemaError as error:
            # "at #/properties/: why" for the keyword, "at #/properties//anyOf/2: why" inside it
            where, _, reason = error.reason.partition(": ")
            inside = where.removeprefix(_ALONE_AT).lstrip("/")
            yield keyword, tuple(inside.split("/")) if inside else (keyword,), reason
        except (OverflowError, RecursionError):
            continue  # nested beyond reach: loading reports what cannot be read


#: The compiled keywords whose value is a schema, or a list of them.
_HOLDING_SCHEMAS = frozenset({"items", "additionalProperties", "anyOf", "oneOf", "allOf"})

#: Where deep mode says a keyword compiled alone stands: the parameter named "".
_ALONE_AT = "at #/properties/"


def _subschemas_as_true(value: object) -> object:
    if isinstance(value, Mapping):
        return True
    if isinstance(value, list):
        return [True if isinstance(each, Mapping) else each for each in value]
    return value


def kind_warnings(node: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(code, keyword, message) for each keyword of a subschema that its declared ``type``
    leaves without effect: a ``required`` beside ``"type": "array"``. Nothing beside no
    ``type``, which applies every keyword."""
    if "type" not in node:
        return
    try:
        kinds = accepted_kinds(node["type"])
    except ValueError:  # an unknown type name: compiling reports it as a defect
        return
    for kind, keywords in KEYWORDS_OF_KIND.items():
        admitted = bool(kinds & NUMERIC_KINDS) if kind == "number" else kind in kinds
        if admitted:
            continue
        for keyword in keywords:
            if keyword in node:
                yield (
                    KEYWORD_WITHOUT_EFFECT,
                    keyword,
                    f"{keyword} has no effect under type {type_names_of(kinds) or 'none'}: "
                    f"it constrains only {'an' if kind in ('object', 'array') else 'a'} {kind}",
                )


def keywords_without_effect(node: Mapping[str, Any]) -> set[str]:
    """The keywords of ``node`` that its declared ``type`` leaves without effect."""
    return {keyword for _, keyword, _ in kind_warnings(node)}
