"""The decoder of whole flat calls: each msgspec behaviour it relies on (see the
docstring of toolaudit.typed.flat), how its union grows with the tools a log calls,
and when it is not worth trying. That its verdicts are the general path's is shown
in tests/pipeline/test_typed_path.py, on every kind of flat line."""

from __future__ import annotations

import msgspec
import pytest

from toolaudit import compile_schemas
from toolaudit.typed.arguments import DecodersOnDemand
from toolaudit.typed.flat import FlatCalls

WEATHER = {"parameters": {"properties": {"city": {"type": "string"}}, "required": ["city"]}}


def flat_calls(*names: str, schema: dict[str, object] = WEATHER) -> FlatCalls:
    validator = compile_schemas({name: schema for name in names})
    flat = FlatCalls(DecodersOnDemand(validator))
    for name in names:
        flat.add(name, name)
    return flat


def decoded(flat: FlatCalls, line: bytes) -> object:
    """The tool of a valid call, or None where the decoder refuses the line."""
    try:
        return flat.decode(line).tool
    except msgspec.DecodeError:
        return None


@pytest.mark.parametrize(
    ("line", "tool"),
    [
        (b'{"name": "get", "arguments": {"city": "Oslo"}}', "get"),
        (b'{"arguments": {"city": "Oslo"}, "name": "put"}', "put"),  # the tag anywhere
        (b'{"na\\u006de": "get", "arguments": {"city": "Oslo"}}', "get"),  # escapes read
        (b'{"name": "g\\u0065t", "arguments": {"city": "Oslo"}}', "get"),
        (b'{"name": "get", "arguments": {"city": "Oslo"}, "extra": [1e400, 2e999]}', "get"),
        (b'{"name": "get", "arguments": {"city": "Oslo"}, "name": "get"}', "get"),
        (b'{"name": "nope", "arguments": {"city": "Oslo"}}', None),  # no such tool
        (b'{"arguments": {"city": "Oslo"}}', None),  # no name
        (b'{"name": null, "arguments": {"city": "Oslo"}}', None),
        (b'{"name": 1, "arguments": {"city": "Oslo"}}', None),
        (b'{"name": "get", "arguments": {"city": "Oslo"}, "name": "put"}', None),  # orjson: put
        (b'{"name": "put", "arguments": {"city": 1}, "name": "get"}', None),
        (b'{"name": "get", "arguments": {"city": 1}}', None),  # the arguments are checked
        (b'{"name": "get", "arguments": "{\\"city\\": \\"Oslo\\"}"}', None),  # a JSON string
        (b'{"name": "get", "arguments": {"city": "Oslo"}, "id": 7}', None),  # not a string id
        (b'{"name": "get", "arguments": {"city": "Oslo"}, "model": 4}', None),
        (b'[{"name": "get", "arguments": {"city": "Oslo"}}]', None),
    ],
)
def test_the_decoder_takes_exactly_the_valid_calls_it_knows(line: bytes, tool: object) -> None:
    assert decoded(flat_calls("get", "put"), line) == tool


def test_a_union_of_one_tool_still_needs_the_name() -> None:
    # A lone tagged struct would take a record without its tag.
    flat = flat_calls("get")
    assert decoded(flat, b'{"name": "get", "arguments": {"city": "Oslo"}}') == "get"
    assert decoded(flat, b'{"arguments": {"city": "Oslo"}}') is None


def test_ids_and_model_are_read_as_the_flat_format_reads_them() -> None:
    flat = flat_calls("get")
    call = flat.decode(b'{"name": "get", "arguments": {"city": "O"}, "id": "i", "model": "m"}')
    assert (call.call_id_or_id, call.model) == ("i", "m")
    call = flat.decode(b'{"name": "get", "arguments": {"city": "O"}, "id": "i", "call_id": "c"}')
    assert call.call_id_or_id == "c"  # an OpenAI Responses item's call_id
    call = flat.decode(b'{"name": "get", "arguments": {"city": "O"}, "id": "i", "call_id": null}')
    assert call.call_id_or_id is None
    call = flat.decode(b'{"name": "get", "arguments": {"city": "O"}}')
    assert (call.call_id_or_id, call.model) == (None, None)


def test_an_alias_is_decoded_as_its_tool() -> None:
    validator = compile_schemas({"math.factorial": WEATHER}).with_aliases(
        {"math_factorial": "math.factorial"}
    )
    flat = FlatCalls(DecodersOnDemand(validator))
    flat.add("math_factorial", "math.factorial")
    line = b'{"name": "math_factorial", "arguments": {"city": "Oslo"}}'
    assert decoded(flat, line) == "math.factorial"
    assert decoded(flat, line.replace(b"math_", b"math.")) is None  # not called yet


def test_tools_that_cannot_be_typed_stay_out() -> None:
    many = {"parameters": {"properties": {f"p{i}": {} for i in range(101)}}}
    flat = flat_calls("many", schema=many)
    assert flat.decode is None and "many" not in flat
    lone = "\ud800"  # no struct can hold a lone surrogate as its tag
    flat = flat_calls("get", lone)
    assert "get" in flat and lone not in flat


def test_the_union_grows_at_once_while_small_then_an_eighth_at_a_time() -> None:
    names = [f"t{i}" for i in range(200)]
    validator = compile_schemas({name: WEATHER for name in names})
    flat = FlatCalls(DecodersOnDemand(validator))
    line = b'{"name": "%s", "arguments": {"city": "Oslo"}}'
    rebuilt = 0
    for count, name in enumerate(names, start=1):
        before = flat.decode
        flat.add(name, name)
        rebuilt += flat.decode is not before
        known = [n for n in names[:count] if n in flat]
        waiting = count - len(known)
        assert waiting < max(1, len(known) // 8)
        assert decoded(flat, line % known[-1].encode()) == known[-1]
        if waiting:  # a waiting tool's calls go to the general path meanwhile
            assert decoded(flat, line % name.encode()) is None
        if count <= 8:
            assert waiting == 0
    assert rebuilt < 40  # not 200
    # A waiting tool called often is not left waiting for more tools to come.
    waiting = next(name for name in names if name not in flat)
    for _ in range(FlatCalls.MOST_WAITING_CALLS):
        assert decoded(flat, line % waiting.encode()) is None
        flat.add(waiting, waiting)
    assert decoded(flat, line % waiting.encode()) == waiting


def test_decoding_is_not_tried_while_a_third_of_the_calls_fail() -> None:
    flat = flat_calls("get")
    assert flat.decoder_worth_trying() is flat.decode  # nothing read yet
    flat.lines, flat.failing = 3000, 999
    assert flat.decoder_worth_trying() is flat.decode
    flat.lines, flat.failing = 3000, 1000
    assert flat.decoder_worth_trying() is None
    # What was read long ago weighs less and less: halved past RECENT_LINES.
    flat.lines, flat.failing = FlatCalls.RECENT_LINES + 2, 3000
    assert flat.decoder_worth_trying() is None
    assert (flat.lines, flat.failing) == (FlatCalls.RECENT_LINES // 2 + 1, 1500)
