"""Deep mode against python-jsonschema (Draft 2020-12), on random schemas and values.

The schemas stay where the issue says the two agree (rule 8): ``additionalProperties`` is
always written out beside ``properties``; no integral float is ever generated (so ``1.0``
never meets ``integer``); no ``oneOf``; no ``allOf`` branch (nor ``$ref`` beside object
keywords) declares ``properties``; ``multipleOf`` is an integer; patterns are plain ASCII ones
whose meaning is the same for Python's ``re`` and ECMA-262 on the generated strings. Booleans
are generated freely: both treat them as neither integers nor numbers, and both compare them
apart from numbers in ``enum``, ``const`` and ``uniqueItems``.

Each random schema is the one argument ``x`` of a tool; its ``$defs`` live in the tool's
parameters, which is also what jsonschema validates ``{"x": value}`` against, so that the
same ``#/$defs/...`` references resolve for both.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolaudit import validate_tool_call

KEYS = ["a", "b", "c-d"]
TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]
PATTERNS = ["^a", "b$", "a+", "^[ab]*$", "^.{2}$", "^(a|b)b", "[^a]", "ab?a"]
FORMATS = ["email", "date-time", "uri", "ipv4"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 6),
    st.sampled_from([-1.5, 0.5, 2.5, 3.25]),
    st.text(alphabet="ab", max_size=3),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=3),
    ),
    max_leaves=8,
)


NUMBER = st.integers(-2, 5)
CONSTRAINTS = {
    "minimum": NUMBER,
    "maximum": NUMBER,
    "exclusiveMinimum": NUMBER,
    "exclusiveMaximum": NUMBER,
    "multipleOf": st.integers(1, 3),
    "minLength": st.integers(0, 3),
    "maxLength": st.integers(0, 3),
    "pattern": st.sampled_from(PATTERNS),
    "minItems": st.integers(0, 3),
    "maxItems": st.integers(0, 3),
    "uniqueItems": st.booleans(),
    "minProperties": st.integers(0, 3),
    "maxProperties": st.integers(0, 3),
    "format": st.sampled_from(FORMATS),
}
NUMERIC = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]
CONSTRAINTS_OF = {
    "object": ["minProperties", "maxProperties"],
    "array": ["minItems", "maxItems", "uniqueItems"],
    "string": ["minLength", "maxLength", "pattern", "format"],
    "integer": NUMERIC,
    "number": NUMERIC,
    "boolean": [],
    "null": [],
}
SHAPES = ["object", "object", "array", "scalar", "scalar", "combinator"]
percent = st.integers(0, 99)


@st.composite
def schemas(draw, depth, refs, declaring=True, shapes=SHAPES):
    """A schema: a dict, or (nested only) a boolean.

    ``refs`` maps each $defs name that may be referenced to whether it declares properties;
    with ``declaring`` False, the schema declares no properties (nor do its $ref targets or
    allOf branches): it may be an allOf branch.
    """
    if depth < 2 and draw(percent) < 6:
        return draw(st.booleans())
    shape = draw(st.sampled_from(shapes)) if depth > 0 else "scalar"
    if shape in ("object", "array"):
        kind = shape
    else:
        kind = draw(st.sampled_from(TYPES[:5] if shape == "scalar" else TYPES))
    schema = {}
    roll = draw(percent)
    if roll < 55:
        schema["type"] = kind
    elif roll < 75:
        other = draw(st.sampled_from(TYPES))
        schema["type"] = [kind] if other == kind else [kind, other]
    container = shape in ("object", "array")
    roll = draw(percent)
    if roll < (3 if container else 8):
        schema["enum"] = draw(st.lists(values, min_size=1, max_size=3))
    elif roll < (5 if container else 12):
        schema["const"] = draw(values)
    keywords = CONSTRAINTS_OF.get(kind, [])
    if keywords and draw(percent) < (15 if container else 50):
        chosen = draw(st.lists(st.sampled_from(keywords), min_size=1, max_size=2, unique=True))
        for keyword in chosen:
            schema[keyword] = draw(CONSTRAINTS[keyword])
    if draw(percent) < 6:
        keyword = draw(st.sampled_from(list(CONSTRAINTS)))
        schema[keyword] = draw(CONSTRAINTS[keyword])
    if depth == 0:
        return schema
    child = schemas(depth - 1, refs)
    if shape == "object":
        if declaring and draw(percent) < 75:
            keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3, unique=True))
            schema["properties"] = {key: draw(child) for key in keys}
            schema["additionalProperties"] = draw(st.one_of(st.booleans(), child))
        elif draw(percent) < 50:
            schema["additionalProperties"] = draw(st.one_of(st.booleans(), child))
        if draw(percent) < 50:
            schema["required"] = draw(
                st.lists(st.sampled_from(KEYS), min_size=1, max_size=2, unique=True)
            )
    if shape == "array" and draw(percent) < 85:
        schema["items"] = draw(child)
    if shape == "combinator" or draw(percent) < 8:
        combinator = draw(st.sampled_from(["anyOf", "allOf", "$ref"]))
        if combinator == "anyOf":
            schema["anyOf"] = draw(st.lists(child, min_size=1, max_size=3))
        elif combinator == "allOf":
            branch = schemas(depth - 1, refs, declaring=False)
            schema["allOf"] = draw(st.lists(branch, min_size=1, max_size=2))
        elif refs:
            object_keywords = {"properties", "additionalProperties", "required"} & set(schema)
            strict = bool(object_keywords) or not declaring
            allowed = sorted(name for name, declares in refs.items() if not (strict and declares))
            if allowed:
                schema["$ref"] = "#/$defs/" + draw(st.sampled_from(allowed))
    return schema


def declares_properties(schema, defs):
    if not isinstance(schema, dict):
        return False
    if "properties" in schema:
        return True
    ref = schema.get("$ref")
    if ref is not None and declares_properties(defs[ref.rsplit("/", 1)[1]], defs):
        return True
    return any(declares_properties(branch, defs) for branch in schema.get("allOf", ()))


def sample(draw, schema, defs, budget=4):
    """A value meant for ``schema``: often valid, sometimes a little off, at any depth."""
    if budget == 0 or draw(percent) < (2 if budget == 4 else 10) or not isinstance(schema, dict):
        return draw(scalars if budget == 0 else values)
    if "$ref" in schema and draw(percent) < 50:
        return sample(draw, defs[schema["$ref"].rsplit("/", 1)[1]], defs, budget - 1)
    for combinator in ("anyOf", "allOf"):
        if combinator in schema and draw(percent) < 40:
            return sample(draw, draw(st.sampled_from(schema[combinator])), defs, budget - 1)
    if "const" in schema and draw(percent) < 70:
        return schema["const"]
    if "enum" in schema and draw(percent) < 70:
        return draw(st.sampled_from(schema["enum"]))
    names = schema.get("type", TYPES)
    kind = draw(st.sampled_from([names] if isinstance(names, str) else names or TYPES))
    if kind == "object":
        properties = schema.get("properties", {})
        keys = [k for k in KEYS if (k in schema.get("required", ()) and draw(percent) < 85)]
        keys += [k for k in properties if k not in keys and draw(st.booleans())]
        if draw(percent) < 20:
            keys.append(draw(st.sampled_from(KEYS)))
        other = schema.get("additionalProperties", True)
        return {k: sample(draw, properties.get(k, other), defs, budget - 1) for k in keys}
    if kind == "array":
        size = draw(st.integers(0, 3))
        return [sample(draw, schema.get("items", True), defs, budget - 1) for _ in range(size)]
    if kind == "string":
        return draw(st.text(alphabet="ab", max_size=3))
    if kind == "integer":
        return draw(st.integers(-3, 6))
    if kind == "number":
        return draw(st.one_of(st.integers(-3, 6), st.sampled_from([-1.5, 0.5, 2.5, 3.25])))
    if kind == "boolean":
        return draw(st.booleans())
    return None


@st.composite
def cases(draw):
    defs = {}
    refs = {}
    for index in range(draw(st.integers(0, 2))):
        definition = draw(schemas(draw(st.integers(0, 2)), dict(refs)))
        name = f"d{index}"
        defs[name] = definition
        refs[name] = declares_properties(definition, defs)
    schema = draw(schemas(3, refs, shapes=["object", "object", "array", "combinator"]))
    assert isinstance(schema, dict)
    return defs, schema, sample(draw, schema, defs)


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def path_of(segments):
    path = ""
    for segment in segments:
        if isinstance(segment, int):
            path += f"[{segment}]"
        elif IDENTIFIER.fullmatch(segment) and path:
            path += f".{segment}"
        elif IDENTIFIER.fullmatch(segment):
            path += segment
        else:
            path += f"[{json.dumps(segment, ensure_ascii=False)}]"
    return path


def split_path(path):
    """Our path syntax back to segments: 'x.a[0]["c-d"]' -> ['x', 'a', 0, 'c-d']."""
    segments = []
    position = 0
    token = re.compile(r'\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
    while position < len(path):
        match = token.match(path, position)
        assert match, (path, position)
        name, index, quoted = match.groups()
        if name is not None:
            segments.append(name)
        elif index is not None:
            segments.append(int(index))
        else:
            segments.append(json.loads(quoted))
        position = match.end()
    return segments


def anchor(error):
    """The segments of the value an error is about: a missing or unexpected key is the
    object's concern, as jsonschema reports it."""
    kind, path = error.split(":", 1)
    segments = split_path(path)
    assert path_of(segments) == path, (error, segments)
    return segments[:-1] if kind in ("missing", "unexpected") else segments


BELOW = ("anyOf", None, "items", "required", "additionalProperties")


def at_or_above(upper, lower):
    return lower[: len(upper)] == upper


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(cases())
def test_deep_agrees_with_jsonschema(case):
    check(case)


def check(case):
    defs, schema, value = case
    parameters = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    if defs:
        parameters["$defs"] = defs
    result = validate_tool_call(
        {"t": {"parameters": parameters}}, {"name": "t", "arguments": {"x": value}}, deep=True
    )
    reference = Draft202012Validator(parameters)
    expected = reference.is_valid({"x": value})
    assert result["ok"] is expected, (
        result,
        [e.message for e in reference.iter_errors({"x": value})],
    )
    ours = [anchor(error) for error in result["errors"]]
    theirs = [(list(e.absolute_path), e.validator) for e in reference.iter_errors({"x": value})]
    for their_path, validator in theirs:
        # Each of jsonschema's errors has one of ours at or above it; or below it, for the
        # keywords jsonschema reports at the object or array whose children they are about:
        # anyOf (a branch's errors), a false schema (jsonschema 4.x places it at the parent),
        # items: false, and a missing or unexpected key (whose one error at its path may be
        # another keyword's, found first).
        assert any(
            at_or_above(mine, their_path) or (validator in BELOW and at_or_above(their_path, mine))
            for mine in ours
        ), (their_path, validator, result["errors"])
    for mine in ours:
        # And each of ours is about a value jsonschema finds wrong, or inside one.
        assert any(at_or_above(their_path, mine) for their_path, _ in theirs), (
            mine,
            theirs,
        )


def test_path_conversion():
    assert path_of(["x", "a", 0, "c-d", "\u00e9"]) == 'x.a[0]["c-d"]["\u00e9"]'
    assert split_path('x.a[0]["c-d"]["q\\"t"]') == ["x", "a", 0, "c-d", 'q"t']
