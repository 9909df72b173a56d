"""The conversation check on the typed path: a request/response pair's history, checked
while the typed path reads the pair, gives the rows and summary the general path gives,
byte for byte: in every provider's shape with every fault, on requests that tell their
API in every way the general path reads, and on hostile requests. A line whose history
it cannot read as the general path would is left to the general path."""

from __future__ import annotations

import io
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.formats import typed_requests
from toolaudit.formats.request_shapes import (
    HISTORY_FIELDS,
    TELLING_FIELDS,
    UNTOLD,
    VALUE_FIELDS,
    shape_by_fields,
)
from toolaudit.formats.typed import _Request
from toolaudit.formats.typed_requests import RequestHistories
from toolaudit.history import check, fast_loop
from toolaudit.history.fast import history_prefixes
from toolaudit.jsonutil import loads_exact
from toolaudit.pipeline import typed_histories
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.pipeline.typed_histories import UNREAD, TypedHistories
from toolaudit.schemas.loading import schema_set
from toolaudit.sources import Source

from ..history.shapes import ANTHROPIC, BEDROCK, CHAT, GEMINI, RESPONSES, Shape, build
from ..history.test_pairing import ASK, FAULTS, W
from .test_typed_path import WRITERS, audited, call

PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
SCHEMAS = schema_set({W: {"parameters": PARAMETERS}})
#: Each shape's request beside its history: its tools as its API defines them.
REQUEST_TOOLS: dict[str, dict[str, Any]] = {
    "openai-chat": {
        "tools": [{"type": "function", "function": {"name": W, "parameters": PARAMETERS}}]
    },
    "openai-responses": {"tools": [{"type": "function", "name": W, "parameters": PARAMETERS}]},
    "anthropic": {"tools": [{"name": W, "input_schema": PARAMETERS}]},
    "bedrock": {
        "toolConfig": {"tools": [{"toolSpec": {"name": W, "inputSchema": {"json": PARAMETERS}}}]}
    },
    "gemini": {"tools": [{"functionDeclarations": [{"name": W, "parameters": PARAMETERS}]}]},
}
HISTORY_SHAPES = (CHAT, RESPONSES, ANTHROPIC, BEDROCK, GEMINI)
#: The model's calls in the pair's response: one valid, one failing (both readers' branches).
MIXED = [call(W, {"city": "Oslo"}), call(W, {"city": 3}, call_id="c2")]
VALID = [call(W, {"city": "Oslo"})]
OPTIONS: list[dict[str, Any]] = [{}, {"group_by": ("model",)}, {"errors_only": True}]
RequestHistories_decoder = msgspec.json.Decoder(_Request)


def pair_line(request: dict[str, Any], calls: list[dict[str, Any]] = VALID) -> bytes:
    return orjson.dumps({"request": request, "response": WRITERS["openai-chat"](calls)})


def request_of(shape: Shape, steps: list[Any], **extra: Any) -> dict[str, Any]:
    messages = build(shape, steps)
    return {
        "model": "m",
        **REQUEST_TOOLS[shape.name],
        HISTORY_FIELDS[shape.name]: messages,
        **extra,
    }


class Checks:
    """How many histories the typed path checked (read whole), and left to the general path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.checked = self.unread = 0
        checks = self

        class Counted(TypedHistories):
            """TypedHistories whose check (the C speedups' or the twin's) is counted."""

            __slots__ = ()

            def __init__(self, at: str = "request") -> None:
                super().__init__(at)
                check = self.check

                def counted(request: Any, line: bytes, *worded: Any) -> Any:
                    answer = check(request, line, *worded)
                    if answer is UNREAD:
                        checks.unread += 1
                    else:
                        checks.checked += 1
                    return answer

                self.check = counted

        monkeypatch.setattr(typed_histories, "TypedHistories", Counted)


def summary_only(log: bytes, *, typed: bool, **options: Any) -> dict[str, Any]:
    """The summary of an audit that writes no report (no rows kept: a problem's words are
    never made)."""
    run = Audit([Source("-")], SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(log))
    run.typed_fast_path = typed
    return run.run(None).to_dict()


def assert_same(log: bytes, **options: Any) -> None:
    fast = audited(log, SCHEMAS, typed=True, **options)
    general = audited(log, SCHEMAS, typed=False, **options)
    assert fast[0].decode().splitlines() == general[0].decode().splitlines()
    assert fast[1] == general[1]
    for typed in (True, False):
        assert summary_only(log, typed=typed, **options) == general[1]


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("shape", HISTORY_SHAPES, ids=lambda shape: shape.name)
def test_every_fault_in_every_shape_is_checked_on_the_typed_path_as_on_the_general(
    shape: Shape, fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = FAULTS[fault][0]
    lines = [pair_line(request_of(shape, steps), calls) for calls in (VALID, MIXED, VALID)]
    log = b"\n".join(lines) + b"\n"
    checks = Checks(monkeypatch)
    for options in OPTIONS:
        assert_same(log, **options)
    # Not a comparison of the general path with itself: the typed path checked them.
    assert checks.checked >= 2 * len(OPTIONS) and checks.unread == 0
    summary = audited(log, SCHEMAS, typed=True)[1]
    assert summary["conversations"]["checked"] == 3


#: Requests that tell their API each way request_shape reads it (each with a Chat-like
#: history whose reading depends on the API told), and the odd ones.
CHAT_HISTORY = build(CHAT, FAULTS["unanswered"][0])
ANTHROPIC_HISTORY = build(ANTHROPIC, FAULTS["misplaced"][0])
BEDROCK_HISTORY = build(BEDROCK, FAULTS["orphan"][0])
ODD_REQUESTS: list[dict[str, Any]] = [
    {"messages": CHAT_HISTORY},  # nothing tells: Chat
    {"messages": ANTHROPIC_HISTORY},  # its blocks tell
    {"messages": BEDROCK_HISTORY},
    {"messages": CHAT_HISTORY, "anthropic_version": "bedrock-2023-05-31"},
    {"messages": CHAT_HISTORY, "top_k": None},  # present, even null
    {"messages": ANTHROPIC_HISTORY, "inferenceConfig": {"maxTokens": 10}},
    {"messages": ANTHROPIC_HISTORY, "modelId": "x"},
    {"messages": ANTHROPIC_HISTORY, "modelId": None},
    {"messages": ANTHROPIC_HISTORY, "toolConfig": None},
    {"messages": BEDROCK_HISTORY, "system": "be brief"},
    {"messages": BEDROCK_HISTORY, "system": [{"text": "be brief"}]},
    {"messages": BEDROCK_HISTORY, "system": [{"type": "text", "text": "be brief"}]},
    {"messages": ANTHROPIC_HISTORY, "system": None},
    {"messages": ANTHROPIC_HISTORY, "system": []},
    {"messages": CHAT_HISTORY, "tools": REQUEST_TOOLS["anthropic"]["tools"]},
    {"messages": ANTHROPIC_HISTORY, "tools": REQUEST_TOOLS["openai-chat"]["tools"]},
    {"messages": ANTHROPIC_HISTORY, "tools": "not a list"},
    {"messages": ANTHROPIC_HISTORY, "tools": []},
    {"messages": "a string"},
    {"messages": None},
    {"messages": {"role": "user"}},
    {"messages": [1, "two", None, []]},
    {"messages": []},
    {"input": "one string: a single user turn"},
    {"input": build(RESPONSES, FAULTS["duplicate call id"][0])},
    {"input": 3},
    {"contents": build(GEMINI, FAULTS["trimmed away"][0])},
    {"contents": None, "messages": CHAT_HISTORY},  # contents first
    {"input": CHAT_HISTORY, "messages": ANTHROPIC_HISTORY},  # messages first
    {},  # no conversation
    {"model": "m", "functions": [REQUEST_TOOLS["openai-chat"]["tools"][0]["function"]]},
]


@pytest.mark.parametrize("request_", ODD_REQUESTS, ids=[str(n) for n in range(len(ODD_REQUESTS))])
def test_requests_that_tell_their_api_every_way_are_read_alike(
    request_: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = pair_line(request_, MIXED) + b"\n" + pair_line(request_) + b"\n"
    checks = Checks(monkeypatch)
    for options in OPTIONS:
        assert_same(log, **options)
    assert checks.checked > 0


HOSTILE_LINES = [
    # Tools that cannot be compiled: the general path says so.
    b'{"request": {"tools": [[1], {}], "messages": [%s]}, "response": %s}',
    # A key twice: the last one holds, for both readers.
    b'{"request": {"messages": [], "messages": %s}, "response": %s}',
    # An id past 64 bits, which orjson reads as a float and the exact parse as an integer.
    b'{"request": {"messages": [{"role": "tool", "tool_call_id": 18446744073709551617, '
    b'"content": "x"}, %s]}, "response": %s}',
    # A number below a double's range.
    b'{"request": {"messages": [{"role": "user", "content": "x", "n": -1e-400}, %s]}, '
    b'"response": %s}',
    # A lone surrogate, which orjson refuses and the standard library reads.
    b'{"request": {"messages": [{"role": "tool", "tool_call_id": "\\ud800", "content": "x"}, '
    b'%s]}, "response": %s}',
    b'{"request": {"system": "\\udfff", "messages": [%s]}, "response": %s}',
]


@pytest.mark.parametrize("template", HOSTILE_LINES)
def test_hostile_requests_are_read_alike(template: bytes) -> None:
    message = orjson.dumps(CHAT_HISTORY[2])
    response = orjson.dumps(WRITERS["openai-chat"](MIXED))
    good = pair_line({"messages": CHAT_HISTORY})
    log = b"\n".join([good, template % (message, response), good]) + b"\n"
    for options in OPTIONS:
        assert_same(log, **options)


def numbered_request(number: bytes, tools: bool, where: str) -> bytes:
    """A Chat request (told by its tools, or not) whose history holds ``number`` where
    said: as a tool result's id ("an id"), in a message's field the check skips, or at
    its top ("the top")."""
    request: dict[str, Any] = {"tools": REQUEST_TOOLS["openai-chat"]["tools"]} if tools else {}
    call = {"id": "c1", "type": "function", "function": {"name": W, "arguments": "{}"}}
    request["messages"] = [
        {"role": "user", "content": "hi", "n": "<N>" if where != "an id" else 1},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "<N>" if where == "an id" else "c1", "content": "ok"},
    ]
    if where == "the top":
        request["temperature"] = "<N>"
    return orjson.dumps(request).replace(b'"<N>"', number)


@pytest.mark.parametrize("number", [b"18446744073709551617", b"1e400", b"-1e-400", b"-1e-20000"])
@pytest.mark.parametrize("tools", [True, False])
@pytest.mark.parametrize("where", ["a field the check skips", "an id"])
def test_a_number_orjson_may_read_otherwise_never_changes_the_history_checked(
    number: bytes, tools: bool, where: str
) -> None:
    # With the API told by its tools, the history is read from its text (in C, where the
    # speedups were built); without, parsed. Either answers as the check of the exact
    # parse, which the general path may make, or leaves the line to it.
    text = numbered_request(number, tools, where)
    line = b'{"request": ' + text + b"}"
    answer = TypedHistories().check(RequestHistories_decoder.decode(text), line)
    if where == "an id":
        assert answer is UNREAD
    if answer is not UNREAD:
        exact = loads_exact(text)["messages"]
        assert answer == check(exact, "openai-chat", path="request.messages", calls=False)


def test_with_history_calls_judged_the_general_path_reads_pairs() -> None:
    log = pair_line(request_of(ANTHROPIC, FAULTS["clean"][0])) + b"\n"
    run = Audit([Source("-")], SCHEMAS, AuditOptions(history=True), stdin=io.BytesIO(log))
    run.run(io.BytesIO())
    assert run.fast_paths is not None and run.fast_paths.typed is None
    assert_same(log, history=True)


FIELDS = sorted(set(VALUE_FIELDS) | TELLING_FIELDS | {"model", "functions", "stream"})
HISTORIES = st.sampled_from(
    [build(shape, FAULTS[fault][0]) for shape in HISTORY_SHAPES for fault in FAULTS]
)
VALUES = st.one_of(
    HISTORIES,
    st.sampled_from([None, "text", 3, [], {}, [{}], [{"type": "text"}], [{"text": "x"}]]),
    st.sampled_from(
        [tools for definition in REQUEST_TOOLS.values() for tools in definition.values()]
    ),
)


@pytest.mark.slow  # a long property run
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=5), min_size=1, max_size=4)
)
def test_any_request_is_read_alike(requests: list[dict[str, Any]]) -> None:
    log = b"".join(pair_line(request, MIXED) + b"\n" for request in requests)
    assert_same(log)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=5))
def test_a_conversation_told_by_its_fields_is_the_one_read(request_: dict[str, Any]) -> None:
    try:
        decoded = RequestHistories_decoder.decode(orjson.dumps(request_))
    except msgspec.ValidationError:
        return  # (a model that is not text: the typed path leaves such a pair alone)
    histories = RequestHistories()
    told = histories.told(decoded)
    history = histories.history(decoded)
    if told is None:
        return
    shape, path, text = told
    if history is None:  # none to check: a Responses input of one string, or null
        assert orjson.loads(memoryview(text)) is None or isinstance(
            orjson.loads(memoryview(text)), str
        )
        return
    assert (shape, path) == (history.shape, history.path)
    assert orjson.loads(memoryview(text)) == history.messages


@pytest.mark.parametrize("shape", HISTORY_SHAPES, ids=lambda shape: shape.name)
def test_without_the_c_speedups_pairs_are_checked_alike(
    shape: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fast_loop, "SPEEDUPS", None)
    checks = Checks(monkeypatch)
    for fault in sorted(FAULTS):
        lines = [pair_line(request_of(shape, FAULTS[fault][0]), calls) for calls in (VALID, MIXED)]
        assert_same(b"\n".join(lines) + b"\n")
    assert checks.checked >= len(FAULTS) and checks.unread == 0


#: Fields a request may hold, each with a value, that tell (or may tell) its API.
TELLING_VALUES: dict[str, Any] = {
    "contents": [],
    "messages": [],
    "input": [],
    "tools": REQUEST_TOOLS["openai-chat"]["tools"],
    "toolConfig": REQUEST_TOOLS["bedrock"]["toolConfig"],
    "modelId": "m",
    "system": "be brief",
    "anthropic_version": "v",
}


@settings(max_examples=200, deadline=None)
@given(
    fields=st.sets(st.sampled_from(sorted(TELLING_VALUES))),
    tools=st.sampled_from([REQUEST_TOOLS[name]["tools"] for name in ("openai-chat", "anthropic")]),
)
def test_an_api_told_by_one_field_is_the_one_the_fields_tell(fields: set[str], tools: Any):
    request = {field: TELLING_VALUES[field] for field in fields}
    if "tools" in request:
        request["tools"] = tools
    decoded = RequestHistories_decoder.decode(orjson.dumps(request))
    told = typed_requests._told_by_one_field(decoded)
    if told is not None:
        assert told == shape_by_fields(request)
    via = RequestHistories().told(decoded)
    expected = shape_by_fields(request)
    if expected is not None and expected != UNTOLD and HISTORY_FIELDS[expected] in request:
        assert via is not None and via[0] == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(REQUEST_TOOLS)), st.sampled_from([[], "x"])),
        min_size=1,
        max_size=6,
    )
)
def test_the_tools_of_the_request_before_tell_no_other_api(requests: list[Any]) -> None:
    # One reader, its last tools kept, tells each request as a fresh reader does.
    histories = RequestHistories()
    for provider, messages in requests:
        tools = next(iter(REQUEST_TOOLS[provider].values()))
        decoded = RequestHistories_decoder.decode(
            orjson.dumps({"messages": messages, "tools": tools})
        )
        assert histories.told(decoded) == RequestHistories().told(decoded)


@pytest.mark.parametrize("shape", HISTORY_SHAPES, ids=lambda shape: shape.name)
def test_a_log_of_sessions_is_audited_alike_with_its_prefixes_kept_or_not(
    shape: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log as an agent writes it, every turn's pair carrying the whole history so far,
    two sessions interleaved, one with a call left unanswered: read on from each
    session's last history, the same rows and summary as each history read whole."""
    turns = []
    for number in range(2):
        steps: list[Any] = [ASK]
        for turn in range(6):
            ids = [f"s{number}t{turn}a", f"s{number}t{turn}b"]
            steps.append(("calls", [(i, W) for i in ids]))
            answered = ids[:1] if (number, turn) == (1, 2) else ids
            steps.append(("results", [(i, W, False) for i in answered]))
            turns.append(pair_line(request_of(shape, steps), MIXED if turn % 2 else VALID))
    log = b"\n".join(turns[0::2] + turns[1::2]) + b"\n"  # (not) interleaved
    log += b"\n".join(a + b"\n" + b for a, b in zip(turns[0::2], turns[1::2], strict=True)) + b"\n"
    made: list[object] = []
    monkeypatch.setattr(
        typed_histories, "history_prefixes", lambda: made.append(history_prefixes()) or made[-1]
    )
    kept = audited(log, SCHEMAS, typed=True)
    if fast_loop.SPEEDUPS is not None:  # not the reading whole compared with itself
        assert fast_loop.SPEEDUPS.prefixes_held(made[0])[2] >= 12
    monkeypatch.setattr(typed_histories, "history_prefixes", lambda: None)
    assert audited(log, SCHEMAS, typed=True) == kept
    assert kept == audited(log, SCHEMAS, typed=False)
    assert kept[1]["conversations"]["problems"] == {"pairing:unanswered": 8}
