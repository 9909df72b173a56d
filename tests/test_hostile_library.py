"""The library's public calls on hostile input: only ToolAuditError kinds or results.

Schemas, calls and responses are generated as an attacker would write them: nesting
near and past the parser's 1,024 levels and Python's recursion limit, integers of
hundreds of digits, 1e400, -0.0, NaN and infinities, lone surrogates, NUL, every
wrong type. Whatever comes in, ``validate_tool_call``, ``compile_schemas``,
``check_response`` and ``tool_result_messages`` return a result that JSON can hold
or raise one of the documented :class:`ToolAuditError` kinds: never a
RecursionError, an OverflowError, a TypeError or a KeyError.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolaudit
from toolaudit import check_response, compile_schemas, tool_result_messages, validate_tool_call
from toolaudit.jsonutil import (
    MAX_NUMBER_DIGITS,
    ExactNumber,
    dumps_any,
    is_beyond_exact_reading,
    loads_exact,
    may_hold_numbers_beyond_a_double,
)

#: More examples by HOSTILE_EXAMPLES=5000 (a longer hunt than a test run wants).
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "60"))
HOSTILE = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)

#: Depths around the parser's limit (1,024) and past Python's recursion limit (1,000).
DEPTHS = [2, 30, 255, 256, 975, 990, 1_000, 1_024, 1_100, 3_000]

HOSTILE_SCALARS: list[object] = [
    None, True, False, 0, -1, 2**63, -(2**64), 10**400, -(10**400),
    0.0, -0.0, 1.5, 1e308, 5e-324, math.inf, -math.inf, math.nan,
    ExactNumber("1e400"), ExactNumber("-1e-400"), Decimal("1.5"),
    "", "x", "\x00", "\ud800", "a\udfffb", "\ufeff", "#/$defs/x", "#", "/", "~1",
    "string", "integer", "number", "object", "array", "null", "boolean",
    b"bytes", (1, 2), frozenset({1}), object(),
]  # fmt: skip
scalars = st.one_of(
    st.sampled_from(HOSTILE_SCALARS),
    st.builds(pow, st.just(10), st.just(5000)),  # past the digits str() writes: no repr
    st.integers(),
    st.floats(),
    st.text(max_size=8),
)


def nested(value: object, depth: int, how: str) -> object:
    """``value`` inside ``depth`` lists or objects (or both, alternating)."""
    for level in range(depth):
        value = [value] if how == "list" or (how == "mixed" and level % 2) else {"a": value}
    return value


@st.composite
def deep_values(draw: st.DrawFn) -> object:
    return nested(
        draw(scalars),
        draw(st.sampled_from(DEPTHS)),
        draw(st.sampled_from(["list", "dict", "mixed"])),
    )


values = st.recursive(
    scalars | deep_values(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.sampled_from(["a", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)

KEYWORDS = [
    "type", "properties", "items", "prefixItems", "enum", "const", "required",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
    "pattern", "anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "definitions",
    "additionalProperties", "uniqueItems", "format", "nullable", "default",
]  # fmt: skip
PATTERNS = ["^a+$", "(a)" * 50, "(?<n>x)", "[", "\\", "(?=x)", "\ud800", "a{99999}", "\\p{L}"]


def schemas_from(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keyword_values = st.one_of(
        inner,
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["x", "y", "a"]), inner, max_size=3),
        st.sampled_from(PATTERNS),
        st.sampled_from(["#", "#/$defs/x", "#/properties/x", "#/definitions/x"]),
    )
    return st.dictionaries(st.sampled_from(KEYWORDS), keyword_values, max_size=4)


schemas = st.recursive(
    st.dictionaries(st.sampled_from(KEYWORDS), scalars, max_size=3) | deep_values(),
    schemas_from,
    max_leaves=10,
)


@st.composite
def tool_sets(draw: st.DrawFn) -> object:
    parameters = draw(
        st.one_of(
            st.fixed_dictionaries(
                {"type": st.just("object"), "properties": st.dictionaries(st.just("x"), schemas)},
                optional={"required": st.lists(scalars | st.just("x"), max_size=2) | values},
            ),
            schemas,
            values,
        )
    )
    tool = draw(st.one_of(st.just({"parameters": parameters}), values))
    if draw(st.booleans()):
        return {"t": tool}
    return draw(st.one_of(st.just({"t": tool, "u": {"parameters": {}}}), values))


calls = st.one_of(
    st.fixed_dictionaries(
        {"name": st.just("t") | scalars, "arguments": st.dictionaries(st.just("x"), values)}
    ),
    st.fixed_dictionaries({"name": st.just("t"), "arguments": values}),
    values,
)


def assert_json(result: object) -> None:
    """The result is JSON the standard library writes and reads back."""
    json.loads(json.dumps(result, allow_nan=False))


def assert_json_text(text: str | bytes) -> None:
    """The text is JSON (read exactly, with room for the nesting the tests give it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        loads_exact(text)
    finally:
        sys.setrecursionlimit(limit)


@HOSTILE
@given(tool_sets(), calls, st.booleans(), st.booleans())
def test_validate_tool_call_raises_only_tool_audit_errors(tools, call, deep, explain):
    try:
        result = validate_tool_call(tools, call, deep=deep, explain=explain)
    except toolaudit.ToolAuditError:
        return
    assert isinstance(result["ok"], bool) and all(type(e) is str for e in result["errors"])
    assert_json(result)


@HOSTILE
@given(tool_sets(), st.lists(calls, max_size=3), st.booleans())
def test_a_compiled_validator_judges_every_call_or_refuses_its_schemas(tools, many, deep):
    try:
        validator = compile_schemas(tools, deep=deep)
    except toolaudit.SchemaError:
        return
    for call in many:
        assert_json(validator.validate(call, explain=True))


def responses(arguments: object, name: object, how: str) -> object:
    """A provider's response (or its JSON text) holding one call of ``name`` with
    ``arguments``, in the shape ``how``."""
    text = arguments if isinstance(arguments, str) else dumps_any(arguments).decode()
    if how == "chat":
        call = {"id": "1", "type": "function", "function": {"name": name, "arguments": text}}
        message = {"role": "assistant", "tool_calls": [call]}
        return {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}
    if how == "anthropic":
        block = {"type": "tool_use", "id": "1", "name": name, "input": arguments}
        return {"type": "message", "role": "assistant", "content": [block]}
    if how == "anthropic-type":
        return {"type": "message", "role": "assistant", "content": [{"type": arguments}]}
    if how == "bfcl":
        return {"id": "q", "result": arguments}
    if how == "gemini":
        part = {"functionCall": {"name": name, "args": arguments}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}
    if how == "responses":
        item = {"type": "function_call", "call_id": arguments, "name": name, "arguments": text}
        return {"object": "response", "output": [item]}
    return dumps_any(responses(arguments, name, "chat")).decode()  # "text"


HOWS = ["chat", "anthropic", "anthropic-type", "bfcl", "gemini", "responses", "text"]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "string", "maxLength": 10**400, "pattern": "^a"}},
            },
        },
    }
]


@HOSTILE
@given(values, st.just("t") | scalars, st.sampled_from(HOWS), st.booleans())
def test_check_response_raises_only_tool_audit_errors(arguments, name, how, deep):
    try:
        checks = check_response(responses(arguments, name, how), TOOLS, deep=deep)
        messages = tool_result_messages(checks)
    except toolaudit.ToolAuditError:
        return
    for check in checks:
        assert_json_text(check.to_json())
    assert_json_text(dumps_any(messages))


@HOSTILE
@given(values | tool_sets(), st.booleans())
def test_check_response_refuses_hostile_tools_with_a_schema_error(tools, deep):
    response = responses({"x": "a"}, "t", "chat")
    for given_tools in (tools, dumps_any(tools)):
        with contextlib.suppress(toolaudit.ToolAuditError):
            check_response(response, given_tools, deep=deep)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("how", HOWS)
def test_deep_nesting_in_any_field_of_a_response_is_a_tool_audit_error_or_a_result(depth, how):
    value = nested("x", depth, "list")
    for arguments, name in ((value, "t"), ({"x": value}, "t"), ({}, value)):
        try:
            checks = check_response(responses(arguments, name, how), TOOLS, deep=True)
        except toolaudit.ToolAuditError:
            continue
        for check in checks:
            assert_json_text(check.to_json())


def test_numbers_past_a_double_are_judged_by_their_exact_value():
    schema = {"t": {"parameters": {"properties": {"x": {"multipleOf": 0.01}}}}}

    def judged(text: str) -> list[str]:
        call = {"name": "t", "arguments": loads_exact(f'{{"x": {text}}}')}
        return validate_tool_call(schema, call, deep=True)["errors"]

    # Read as infinity and zero before: 2e308 failed multipleOf 0.01, and 1e-400 passed it.
    assert judged("2e308") == [] and judged("-1e400") == []
    assert judged("1e-400") == ["constraint:x"] and judged("2.5e-400") == ["constraint:x"]
    assert judged("1" + "0" * 5000) == []  # past Python's 4,300 digits, read exactly
    with pytest.raises(ValueError, match="digits"):
        loads_exact("1" * (MAX_NUMBER_DIGITS + 1))


def test_a_huge_max_length_in_deep_mode_is_a_limit_not_an_overflow():
    schema = {"t": {"parameters": {"properties": {"x": {"maxLength": 10**400}}}}}
    assert validate_tool_call(schema, {"name": "t", "arguments": {"x": "a"}}, deep=True)["ok"]
    with pytest.raises(toolaudit.SchemaError, match="maxLength"):
        compile_schemas({"t": {"parameters": {"properties": {"x": {"maxLength": 0.5}}}}}, deep=True)


def test_a_response_check_holding_1e400_is_written_exactly():
    response = responses('{"x": 1e400}', "t", "chat")
    (check,) = check_response(response, TOOLS)
    assert check.errors == ["type:x"] and '"x":1E+400' in check.to_json()


def test_texts_holding_numbers_beyond_a_double_are_told_apart():
    assert may_hold_numbers_beyond_a_double(b'{"x": 1e-400}')
    assert may_hold_numbers_beyond_a_double('{"x": 2E+308}')
    assert not may_hold_numbers_beyond_a_double(b'{"x": 1e-40, "y": 1.5e+30, "z": 123456}')


@pytest.mark.parametrize("number", ["1e9999999999999999999", "-2.5E+99999999999999999999999"])
def test_an_exponent_past_what_decimal_holds_is_beyond_the_exact_reading(number):
    # Decimal raised InvalidOperation for it: the audit's row said "this is a bug".
    with pytest.raises(ValueError, match=r"is beyond 1e±10000, the range read exactly") as refused:
        loads_exact(f'{{"x": {number}}}')
    assert is_beyond_exact_reading(refused.value)
    assert validate_tool_call(
        {"t": {"parameters": {"type": "object"}}},
        {"name": "t", "arguments": f'{{"x": {number}}}'},
    ) == {"ok": False, "errors": ["malformed:arguments"]}


DEEP_LIST = nested("x", 3_000, "list")


@pytest.mark.parametrize(
    ("schema", "arguments"),
    [
        ({"type": DEEP_LIST}, {"a": 1}),  # its repr recursed, for the SchemaError's message
        ({"type": "string"}, {10**5000: 1}),  # str() of the key refused 5,001 digits
        ({"enum": [DEEP_LIST]}, {"a": DEEP_LIST}),
        ({"$ref": "#/" + "/".join(["x"] * 3_000)}, {"a": 1}),
    ],
    ids=["deep type", "huge integer key", "deep enum", "long $ref"],
)
@pytest.mark.parametrize("deep", [False, True])
def test_schemas_and_calls_python_code_builds_are_judged_or_refused(schema, arguments, deep):
    tools = {"t": {"parameters": {"properties": {"a": schema}}}}
    try:
        result = validate_tool_call(tools, {"name": "t", "arguments": arguments}, deep=deep)
    except toolaudit.SchemaError as error:
        assert len(str(error)) < 20_000
        return
    assert isinstance(result["ok"], bool)
    assert_json(validate_tool_call(tools, {"name": "t", "arguments": arguments}, explain=True))


def test_nan_against_an_exact_limit_breaks_it_as_against_a_float():
    limits = {"minimum": ExactNumber("-1e400"), "multipleOf": ExactNumber("1e-400")}
    tools = {"t": {"parameters": {"properties": {"a": limits}}}}
    result = validate_tool_call(tools, {"name": "t", "arguments": {"a": math.nan}}, deep=True)
    assert result["errors"] == ["constraint:a"]  # decimal raised InvalidOperation


def test_an_alias_of_no_tool_is_a_schema_error():
    with pytest.raises(toolaudit.SchemaError, match="names no tool"):
        compile_schemas({"t": {}}).with_aliases({"u": "v"})  # was a KeyError
