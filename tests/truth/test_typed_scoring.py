"""Scoring on the typed fast path changes nothing: with ``--expected``, the report, the
``--scores`` lines and the summary are the same bytes with the fast paths on and forced
off, and with the quick test of a correct call off too (every entry compared in full
and counted by its Score), on generated logs of every typed format (values at the edges
of each type, long and tiny numbers, failing calls, ids missing, repeated or without an
entry), by the records' own ids and by a dotted ``--expected-key``, grouped by model or
not, and on hostile flat lines."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas import SchemaSet, schema_set
from toolaudit.sources import Source
from toolaudit.truth import line_scores, match
from toolaudit.truth.entries import ExpectedSet
from toolaudit.truth.expectations import Expectations, schema_defaults
from toolaudit.truth.expected import read_entry

from ..pipeline.test_typed_path import OBJECT_FORMATS, WRITERS, call, line_of, logs, openai_chat

TOOLS = {
    "get": {
        "parameters": {
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "default": 3},
                "near": {"type": ["number", "null"]},
            },
            "required": ["city"],
        }
    }
}


def scored(
    data: bytes, schemas: SchemaSet, expectations: Expectations, *, typed: bool, **options: Any
) -> tuple[bytes, bytes, dict[str, Any]]:
    run = Audit(
        [Source("-")],
        schemas,
        AuditOptions(**options),
        stdin=io.BytesIO(data),
        expectations=expectations,
    )
    run.typed_fast_path = typed
    report, scores = io.BytesIO(), io.BytesIO()
    summary = run.run(report, scores)
    assert run.fast_paths is not None
    if not typed:  # else the comparison would compare the typed path with itself
        assert run.fast_paths.typed is None
    return report.getvalue(), scores.getvalue(), summary.to_dict()


def assert_scored_alike(
    data: bytes, schemas: SchemaSet, expectations: Expectations, **options: Any
) -> None:
    fast = scored(data, schemas, expectations, typed=True, **options)
    general = scored(data, schemas, expectations, typed=False, **options)
    assert fast[1].decode().splitlines() == general[1].decode().splitlines()
    assert fast == general
    # The typed path with the kernel (line_scores) in its pure twin, and off.
    compiled = line_scores.SPEEDUPS
    line_scores.SPEEDUPS = None
    try:
        assert scored(data, schemas, expectations, typed=True, **options) == fast
    finally:
        line_scores.SPEEDUPS = compiled
    line_scores.KERNEL_ON = False
    try:
        assert scored(data, schemas, expectations, typed=True, **options) == fast
    finally:
        line_scores.KERNEL_ON = True
    match.QUICK_CORRECT = False
    try:
        full = scored(data, schemas, expectations, typed=False, **options)
    finally:
        match.QUICK_CORRECT = True
    assert fast[1].decode().splitlines() == full[1].decode().splitlines()
    assert fast == full


def expectations_of(
    entries: list[dict[str, Any]], schemas: SchemaSet, key: str | None
) -> Expectations:
    read = {}
    for number, document in enumerate(entries, start=1):
        entry = read_entry(document, source="expected.jsonl", line=number)
        read.setdefault(entry.id, entry)
    return Expectations(ExpectedSet(read, []), key=key, defaults=schema_defaults(schemas))


#: What an entry may expect of a record whose calls are known: those calls, one value
#: changed, another tool, no call, any call.
CHANGES = ("same", "value", "tool", "none", "any", "number")


@st.composite
def scored_logs(draw: st.DrawFn) -> tuple[SchemaSet, bytes, Expectations, bool]:
    """A generated log whose lines carry an ``eval.id`` (or by the records' own ids), and
    an expected entry for most of them, made from the calls they hold."""
    tools, data = draw(logs())
    schemas = schema_set(tools)
    by_key = draw(st.booleans())
    lines, entries = [], []
    for number, line in enumerate(data.splitlines()):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:  # arguments written as bad JSON text
            record = {}
        id = draw(st.sampled_from([f"e{number}", "e0", None, 7])) if by_key else None
        if by_key and id is not None:
            line = line.replace(b"{", b'{"eval":' + orjson.dumps({"id": id}) + b",", 1)
        lines.append(line)
        own = record.get("id", record.get("custom_id"))
        entry_id = id if by_key else own
        if entry_id is None or not draw(st.integers(0, 5)):
            continue  # unscored: no id, or none of the entries names it
        entries.append(draw(entry_for(str(entry_id), tools)))
    entries.append({"id": "never-logged", "calls": []})
    expectations = expectations_of(entries, schemas, "eval.id" if by_key else None)
    return schemas, b"\n".join(lines) + b"\n", expectations, draw(st.booleans())


@st.composite
def entry_for(draw: st.DrawFn, id: str, tools: dict[str, Any]) -> dict[str, Any]:
    change = draw(st.sampled_from(CHANGES))
    names = sorted(tools) or ["get"]
    name = draw(st.sampled_from(names))
    properties = sorted(tools.get(name, {}).get("parameters", {}).get("properties", {}))
    arguments = {
        key: draw(st.sampled_from([1, 1.0, True, "1", None, [1], {"a": 1}]))
        for key in properties[:2]
    }
    if change == "none":
        return {"id": id, "calls": []}
    if change == "any":
        return {"id": id, "calls": "any"}
    if change == "number":
        arguments = {
            key: {"accept": [1], "compare": "number", "tolerance": 0.5} for key in arguments
        }
    if change == "tool":
        name = name + "_other"
    return {"id": id, "calls": [{"name": name, "arguments": arguments}], "category": change}


@pytest.mark.slow  # a long property run
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scored_logs())
def test_generated_logs_are_scored_alike_on_either_path(
    log: tuple[SchemaSet, bytes, Expectations, bool],
) -> None:
    schemas, data, expectations, grouped = log
    options = {"group_by": ("model",)} if grouped else {}
    assert_scored_alike(data, schemas, expectations, **options)


#: A number written as 1e-400 in the lines (below a double's range).
TINY = 0.123456


def test_each_typed_format_is_scored_alike_and_read_by_the_typed_path() -> None:
    schemas = schema_set(TOOLS)
    cases = [
        ({"city": "Oslo"}, {"city": "Oslo"}),  # correct, the default counting
        ({"city": "Oslo", "days": 3}, {"city": "Oslo"}),
        ({"city": "Oslo", "days": 1.0}, {"city": "Oslo", "days": 1}),  # 1 == 1.0
        ({"city": "Oslo", "days": True}, {"city": "Oslo", "days": 1}),  # true != 1
        ({"city": 1}, {"city": "Oslo"}),  # a failing call, and wrong
        ({"city": "Oslo", "near": TINY}, {"city": "Oslo", "near": 0}),  # below a double
        ({"city": "Oslo", "near": 2**70}, {"city": "Oslo", "near": 2**70}),  # past 64 bits
    ]
    read_typed = 0
    for format_name, write in WRITERS.items():
        lines, entries = [], []
        for number, (made, expected) in enumerate(cases * 2):
            record = write([call("get", made, f"c{number}")], eval={"id": f"e{number}"})
            line = line_of(record).replace(str(TINY).encode(), b"1e-400")
            if number >= len(cases) and format_name in OBJECT_FORMATS:
                # Arguments logged as a JSON string where an object belongs: decoded.
                line = line.replace(line_of(made), line_of(line_of(made).decode()), 1)
            lines.append(line)
            entries.append({"id": f"e{number}", "calls": [{"name": "get", "arguments": expected}]})
        data = b"\n".join(lines) + b"\n"
        expectations = expectations_of(entries, schemas, "eval.id")
        assert_scored_alike(data, schemas, expectations)
        # The typed path reads the scored log wherever it reads the plain one.
        runs = [
            Audit([Source("-")], schemas, stdin=io.BytesIO(data), expectations=given)
            for given in (expectations, None)
        ]
        for run in runs:
            run.run()
        scoring, plain = (run.fast_paths is not None and run.fast_paths.typed for run in runs)
        assert bool(scoring) == bool(plain), format_name
        read_typed += bool(scoring)
    assert read_typed >= len(WRITERS) - 1


def test_a_chat_message_with_calls_a_server_could_not_parse_is_read_whole() -> None:
    # The typed shape left a message's invalid_tool_calls unread (and its calls uncounted)
    # where the extractor reads them: such a message is now the general path's.
    record = openai_chat([call("get", {"city": "Oslo"})], eval={"id": "e"})
    record["choices"][0]["message"]["invalid_tool_calls"] = [{"name": "get", "args": "{"}]
    data = line_of(record) + b"\n" + line_of({**record, "eval": {"id": "f"}}) + b"\n"
    entries = [{"id": id, "calls": [{"name": "get", "arguments": {"city": "Oslo"}}]} for id in "ef"]
    schemas = schema_set(TOOLS)
    assert_scored_alike(data, schemas, expectations_of(entries, schemas, "eval.id"))


#: Flat lines at the edges of reading and of JSON equality, each with what its entry
#: expects: duplicate keys (orjson keeps the last), unicode escapes, key order, 1 and
#: 1.0, true and 1, a default standing in, long integers, numbers below a double's
#: range, accept objects, no id, an id given as a number.
LONG = b"123456789012345678901"
HOSTILE_FLAT = [
    (b'"id":"a","name":"get","arguments":{"city":"Oslo","city":"Rome"}', {"city": "Rome"}),
    (b'"id":"b","name":"get","arguments":{"city":"Oslo","city":"Rome"}', {"city": "Oslo"}),
    (b'"id":"c","id":"c2","name":"get","arguments":{"city":"Oslo"}', {"city": "Oslo"}),
    (b'"id":"c2","name":"get","arguments":{"city":"Oslo"},"arguments":{"city":"Rome"}',
     {"city": "Rome"}),
    (b'"id":"d","name":"get","arguments":{"city":"\\u00c5s"}', {"city": "\u00c5s"}),
    (b'"id":"e","name":"get","arguments":{"c\\u0069ty":"Oslo"}', {"city": "Oslo"}),
    (b'"id":"f","name":"get","arguments":{"near":1,"city":"Oslo"}',
     {"city": "Oslo", "near": 1}),
    (b'"id":"g","name":"get","arguments":{"city":"Oslo","near":1}',
     {"city": "Oslo", "near": 1.0}),
    (b'"id":"h","name":"get","arguments":{"city":"Oslo","days":1}',
     {"city": "Oslo", "days": True}),
    (b'"id":"i","name":"get","arguments":{"city":"Oslo"}', {"city": "Oslo", "days": 3}),
    (b'"id":"j","name":"get","arguments":{"city":"Oslo","days":3}', {"city": "Oslo"}),
    (b'"id":"k","name":"get","arguments":{"city":"Oslo","near":' + LONG + b"}",
     {"city": "Oslo", "near": int(LONG)}),
    (b'"id":"l","name":"get","arguments":{"city":"Oslo","near":' + LONG + b"}",
     {"city": "Oslo", "near": int(LONG) - 1}),
    (b'"id":"m","name":"get","arguments":{"city":"Oslo","near":1e-400}',
     {"city": "Oslo", "near": 0}),
    (b'"id":"n","name":"get","arguments":{"city":"Oslo"}', {"city": {"accept": ["Oslo"]}}),
    (b'"id":"o","name":"get","arguments":{"city":"oslo "}',
     {"city": {"accept": ["Oslo"], "compare": "text"}}),
    (b'"id":"p","name":"get","arguments":{"city":"Oslo","near":-0.0}',
     {"city": "Oslo", "near": 0}),
    (b'"name":"get","arguments":{"city":"Oslo"}', {"city": "Oslo"}),
    (b'"id":7,"name":"get","arguments":{"city":"Oslo"}', {"city": "Oslo"}),
    (b'"id":"a","name":"get","arguments":{"city":"Rome"}', {"city": "Rome"}),  # "a" again
    (b'"id":"q","name":"get","arguments":{"city":"Oslo"},"model":2', {"city": "Oslo"}),
    (b'"id":"r","name":"get","arguments":"{\\"city\\": \\"Oslo\\"}"', {"city": "Oslo"}),
]  # fmt: skip


def test_hostile_flat_lines_are_scored_as_ever() -> None:
    schemas = schema_set(TOOLS)
    lines = [b"{" + line + b"}" for line, _ in HOSTILE_FLAT]
    ids = [orjson.loads(line).get("id") for line in lines]
    entries = [
        {"id": str(id), "calls": [{"name": "get", "arguments": expected}], "category": "c"}
        for id, (_, expected) in zip(ids, HOSTILE_FLAT, strict=True)
        if id is not None
    ]
    data = b"\n".join(lines * 2) + b"\n"
    for grouped in ({}, {"group_by": ("model",)}):
        assert_scored_alike(data, schemas, expectations_of(entries, schemas, None), **grouped)
    _, scores, _ = scored(data, schemas, expectations_of(entries, schemas, None), typed=True)
    outcomes = {row["id"]: row["outcome"] for row in map(orjson.loads, scores.splitlines())}
    # What the cases are about, as the full comparison scores them.
    assert outcomes["a"] == outcomes["c2"] == outcomes["d"] == outcomes["e"] == "correct"
    assert outcomes["b"] == outcomes["h"] == outcomes["l"] == "incorrect"
    assert outcomes["g"] == outcomes["i"] == outcomes["n"] == outcomes["o"] == "correct"


#: A provider call's arguments (their JSON text) at the edges of reading and of JSON
#: equality, each with what its entry expects (None: no call): as HOSTILE_FLAT's, and
#: raw unicode, nesting, whitespace around, -0.0 against itself, a JSON string holding
#: the arguments, text that is no JSON.
NESTED = [1, {"a": [True, None]}]
HOSTILE_ARGUMENTS: list[tuple[str, dict[str, Any] | None]] = [
    ('{"city":"Oslo","city":"Rome"}', {"city": "Rome"}),
    ('{"city":"Oslo","city":"Rome"}', {"city": "Oslo"}),
    ('{"city":"\\u00c5s"}', {"city": "\u00c5s"}),
    ('{"c\\u0069ty":"Oslo"}', {"city": "Oslo"}),
    ('{"city":"\u00c5s \U0001f600"}', {"city": "\u00c5s \U0001f600"}),
    ('{"near":1,"city":"Oslo"}', {"city": "Oslo", "near": 1}),
    ('{"city":"Oslo","near":1}', {"city": "Oslo", "near": 1.0}),
    ('{"city":"Oslo","near":1.0}', {"city": "Oslo", "near": 1}),
    ('{"city":"Oslo","days":1}', {"city": "Oslo", "days": True}),
    ('{"city":"Oslo"}', {"city": "Oslo", "days": 3}),
    ('{"city":"Oslo","days":3}', {"city": "Oslo"}),
    ('{"city":"Oslo","near":123456789012345678901}', {"city": "Oslo", "near": int(LONG)}),
    ('{"city":"Oslo","near":123456789012345678901}', {"city": "Oslo", "near": int(LONG) - 1}),
    ('{"city":"Oslo"}', {"city": {"accept": ["Oslo"]}}),
    ('{"city":"oslo "}', {"city": {"accept": ["Oslo"], "compare": "text"}}),
    ('{"city":"Oslo","near":-0.0}', {"city": "Oslo", "near": 0}),
    ('{"city":"Oslo","near":-0.0}', {"city": "Oslo", "near": -0.0}),
    ('{"city":"Oslo","near":[1,{"a":[true,null]}]}', {"city": "Oslo", "near": NESTED}),
    ('{"city":"Oslo","near":[1,{"a":[true,null]}]}', {"city": "Oslo", "near": [1, {"a": []}]}),
    (' {"city": "Oslo"}\n', {"city": "Oslo"}),
    ('{"city":"Oslo"}', None),
    ('{"city":"Rome"}', {"city": "Rome"}),
    ('"{\\"city\\": \\"Oslo\\"}"', {"city": "Oslo"}),
    ('{"city":"Oslo"', {"city": "Oslo"}),
    ('{"city":"Oslo"} {}', {"city": "Oslo"}),
]  # fmt: skip


@pytest.mark.parametrize(
    "format_name", ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "envelope"]
)
@pytest.mark.parametrize("key", ["eval.id", "xid"])  # (a top-level key: read in C)
def test_hostile_provider_calls_are_scored_as_ever(format_name: str, key: str) -> None:
    schemas = schema_set(TOOLS)
    write = WRITERS[format_name]

    def keyed(id: object = None, **more: Any) -> dict[str, Any]:
        """What a record holds of its id (None: none), at ``key``; ``more`` beside it."""
        if key == "eval.id":
            return {"eval": {} if id is None else {"id": id}, **more}
        return ({} if id is None else {"xid": id}) | more

    lines, entries = [], []
    for number, (text, expected) in enumerate(HOSTILE_ARGUMENTS):
        if format_name in OBJECT_FORMATS:
            try:
                orjson.loads(text)
            except orjson.JSONDecodeError:
                continue  # (the line would be no JSON)
        made = [call("get", {"city": "Oslo"}, "c1", text=text)]
        line = line_of(write(made, **keyed(f"h{number}")))
        if format_name in OBJECT_FORMATS:
            line = line.replace(line_of({"city": "Oslo"}), text.encode(), 1)
        lines.append(line)
        calls = [] if expected is None else [{"name": "get", "arguments": expected}]
        entries.append({"id": f"h{number}", "calls": calls, "category": "c"})
    right = [call("get", {"city": "Oslo"}, "c1")]
    lines += [
        line_of(write(right, **keyed("h0"))),  # an id scored already
        line_of(write(right, **keyed())),  # no id
        line_of(write(right, **keyed(7))),  # an integer id
        line_of(write([call("set", {"city": "Oslo"}, "c1")], **keyed("t"))),  # another tool
        line_of(write([*right, call("get", {"city": "Oslo"}, "c2")], **keyed("two"))),
        line_of(write(right, **keyed('q"1'))),  # an id with an escape
        line_of(write(right, **keyed(2**70))),  # an id past 64 bits
        line_of(write(right, **keyed("big", n=2**70))),  # a long integer beside the id
        line_of(write(right, **keyed("big2", n=str(10**19)))),  # a run of 19 digits
        line_of(write(right, **keyed("none", n=2**70))),  # the same, the id without entry
        line_of(write(right, **keyed("none2"))),  # an id without entry
        line_of(write(right, **keyed(1.5))),  # an id of another type
    ]
    entries += [
        {"id": id, "calls": [{"name": "get", "arguments": {"city": "Oslo"}}]}
        for id in ("7", "t", "two", 'q"1', str(2**70), "big", "big2")
    ]
    data = b"\n".join(lines * 2) + b"\n"
    for grouped in ({}, {"group_by": ("model",)}):
        assert_scored_alike(data, schemas, expectations_of(entries, schemas, key), **grouped)
