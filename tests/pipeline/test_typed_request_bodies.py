"""Requests logged alone (``openai-chat-request`` and the other four request formats) on
the typed path: each line decoded into its format's shape, counted as a record without
calls and its conversation checked from its text, gives the rows and summary the general
path gives, byte for byte: in every provider's shape with every fault, with every option
that changes what is counted or written, on odd and hostile requests, and on random logs.
A line the typed path is not sure of is left to the general path; so is a request whose
API is told otherwise than by its format (detection gives it to another)."""

from __future__ import annotations

import gzip
import importlib
import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.formats import UnknownShape, detect
from toolaudit.formats.request_shapes import HISTORY_FIELDS
from toolaudit.formats.requests import REQUEST_FORMATS
from toolaudit.formats.typed import DECODE_FAILURES, typed_shapes
from toolaudit.history import fast_loop
from toolaudit.pipeline import general_reader
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.sources import Source

from ..conftest import REPO
from ..history.shapes import Shape
from ..history.test_pairing import ASK, FAULTS, W
from .test_typed_histories import (
    BEDROCK_HISTORY,
    CHAT_HISTORY,
    FIELDS,
    HISTORY_SHAPES,
    HOSTILE_LINES,
    MIXED,
    ODD_REQUESTS,
    OPTIONS,
    REQUEST_TOOLS,
    SCHEMAS,
    VALUES,
    Checks,
    assert_same,
    numbered_request,
    pair_line,
    request_of,
)
from .test_typed_path import audited

#: The request formats by the API each reads.
FORMAT_OF = {
    "openai-chat": "openai-chat-request",
    "openai-responses": "openai-responses-request",
    "anthropic": "anthropic-request",
    "bedrock": "bedrock-request",
    "gemini": "gemini-request",
}
#: Every option that changes what is counted or written, on top of those of pairs.
BODY_OPTIONS: list[dict[str, Any]] = [
    *OPTIONS,
    {"group_by": ("model",), "errors_only": True},
    {"conversations": False},
    {"history": True},
]
#: A number the general path may read otherwise than orjson (it parses such a line again).
ODD_NUMBERS = [
    b"18446744073709551617",
    b"1e400",
    b"-1e-400",
    b"-1e-20000",
    b"1.5e-320",
    # Past what is read exactly: the general path finds such a line malformed:json.
    b"1e999999",
    b"-1E+20000",
    b"9" * 5000,
]


def body(request: dict[str, Any]) -> bytes:
    return orjson.dumps(request)


def log_of(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


class GeneralLines:
    """How many records the general path read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.read = 0
        read_record = general_reader.GeneralReader.read_record

        def counted(reader: Any, *args: Any, **kwargs: Any) -> None:
            self.read += 1
            read_record(reader, *args, **kwargs)

        monkeypatch.setattr(general_reader.GeneralReader, "read_record", counted)


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("shape", HISTORY_SHAPES, ids=lambda shape: shape.name)
def test_every_fault_in_every_shape_is_checked_on_the_typed_path_as_on_the_general(
    shape: Shape, fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = request_of(shape, FAULTS[fault][0])
    # The same request thrice, and with other values beside (its model, a field no API
    # tells by): one session's lines, then another's.
    lines = [body(request), body(request), body({**request, "model": "n", "temperature": 0})]
    log = log_of(lines)
    checks = Checks(monkeypatch)
    general = GeneralLines(monkeypatch)
    for options in BODY_OPTIONS:
        assert_same(log, **options)
    # Not a comparison of the general path with itself: the typed path read the lines
    # after each audit's first (with the check on, but not --history), the general path
    # only the first.
    typed_audits = 2 * (len(BODY_OPTIONS) - 2)  # (two typed audits of each: assert_same)
    assert checks.checked >= 2 * typed_audits and checks.unread == 0
    summary = audited(log, SCHEMAS, typed=True)[1]
    assert summary["conversations"]["checked"] == 3
    assert summary["records_without_calls"] == 3
    general.read = 0
    audited(log, SCHEMAS, typed=True)
    assert general.read == 1


def test_the_rows_of_a_body_say_its_conversation_without_a_request_prefix() -> None:
    request = request_of(HISTORY_SHAPES[0], FAULTS["unanswered"][0])
    report = audited(log_of([body(request)] * 3), SCHEMAS, typed=True)[0]
    rows = [orjson.loads(row) for row in report.splitlines()]
    assert len(rows) == 3 and all(row["path"].startswith("messages[") for row in rows)


@pytest.mark.parametrize("request_", ODD_REQUESTS, ids=[str(n) for n in range(len(ODD_REQUESTS))])
def test_requests_that_tell_their_api_every_way_are_read_alike(request_: dict[str, Any]) -> None:
    # Alone, after a request the typed path reads, and with extra keys.
    chat = body(request_of(HISTORY_SHAPES[0], FAULTS["orphan"][0]))
    extra = {**request_, "stream": False, "user": "u1", "n": 1}
    log = log_of([chat, chat, body(request_), body(extra), chat, body(request_)])
    for options in BODY_OPTIONS:
        assert_same(log, **options)


@pytest.mark.parametrize("model", ["gpt-4.1", None, 3, "absent"])
def test_a_responses_input_of_one_string_is_read_alike(model: object) -> None:
    request: dict[str, Any] = {"input": "what is the weather in Oslo?"}
    if model != "absent":
        request["model"] = model
    with_history = request_of(HISTORY_SHAPES[1], FAULTS["unanswered"][0])
    log = log_of([body(with_history), body(request), body(request), body(with_history)])
    for options in BODY_OPTIONS:
        assert_same(log, **options)


@pytest.mark.parametrize("template", HOSTILE_LINES)
@pytest.mark.parametrize("told", [True, False], ids=["told by its tools", "untold"])
def test_hostile_requests_are_read_alike(template: bytes, told: bool) -> None:
    message = orjson.dumps(CHAT_HISTORY[2])
    hostile = template % (message, b"null")
    # The pair's request alone: the template's request object, with "response": null cut.
    alone = hostile[len(b'{"request": ') : -len(b', "response": null}')]
    tools = orjson.dumps(REQUEST_TOOLS["openai-chat"]["tools"])
    if told:  # (its own tools, if it has some, given after: they hold)
        alone = b'{"tools": ' + tools + b", " + alone[1:]
    good = body({"messages": CHAT_HISTORY, "tools": REQUEST_TOOLS["openai-chat"]["tools"]})
    log = log_of([good, good, alone, alone, good])
    for options in BODY_OPTIONS:
        assert_same(log, **options)


ODD_LINES = [
    # Keys twice: the last one holds, for both readers.
    b'{"messages": "x", "messages": %s}',
    b'{"tools": 3, "messages": %s, "tools": [{"input_schema": {}}]}',
    b'{"model": 3, "messages": %s, "model": "m"}',
    # A field another format recognises by: its format's, or no format's.
    b'{"messages": %s, "name": "get"}',
    b'{"messages": %s, "arguments": "{}"}',
    b'{"messages": %s, "metadata": {"user_id": "u"}}',
    b'{"messages": %s, "type": "message"}',
    b'{"messages": %s, "choices": []}',
    b'{"messages": %s, "request": {}}',
    # Not JSON, not an object, cut off, white space around the conversation.
    b'{"messages": %s',
    b"[%s]",
    b"not json %s",
    b'{"messages":   \n %s  , "model": "m"}',
    # A model that is not text, a model and a modelId.
    b'{"messages": %s, "model": ["m"]}',
    b'{"messages": %s, "model": null, "modelId": "b"}',
    b'{"messages": %s, "modelId": 7}',
    # Text that is not UTF-8, nesting deeper than the standard library reads.
    b'{"messages": %s, "user": "\xff"}',
    b'{"messages": %s, "x": ' + b"[" * 1000 + b"]" * 1000 + b"}",
]


#: Each history, and the fields that tell its API beside it.
TOLD_HISTORIES = {
    "chat": (CHAT_HISTORY, {"tools": REQUEST_TOOLS["openai-chat"]["tools"]}),
    "bedrock": (BEDROCK_HISTORY, REQUEST_TOOLS["bedrock"]),
    "untold": (CHAT_HISTORY, {}),
}


@pytest.mark.parametrize("template", ODD_LINES, ids=[str(n) for n in range(len(ODD_LINES))])
@pytest.mark.parametrize("told", sorted(TOLD_HISTORIES))
def test_odd_lines_are_read_alike(template: bytes, told: str) -> None:
    history, telling = TOLD_HISTORIES[told]
    good = body({"messages": history, **telling})
    odd = template % orjson.dumps(history)
    if telling and odd.startswith(b"{"):  # (its own fields, given after, hold)
        odd = b"{" + orjson.dumps(telling)[1:-1] + b", " + odd[1:]
    # Thrice: the first of another format's is the general path's, the next the typed's.
    log = log_of([good, good, odd, odd, odd, good])
    for options in BODY_OPTIONS:
        assert_same(log, **options)


@pytest.mark.parametrize("number", ODD_NUMBERS)
@pytest.mark.parametrize("tools", [True, False])
@pytest.mark.parametrize("where", ["a field the check skips", "an id", "the top"])
def test_a_number_orjson_may_read_otherwise_changes_nothing(
    number: bytes, tools: bool, where: str
) -> None:
    odd = numbered_request(number, tools, where)
    good = body({"messages": CHAT_HISTORY, "tools": REQUEST_TOOLS["openai-chat"]["tools"]})
    log = log_of([good, good, odd, good])
    for options in BODY_OPTIONS:
        assert_same(log, **options)


def test_requests_of_every_api_interleaved_are_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each line's format told apart from the one before: the shape of the one before
    # refuses it (its API told otherwise), the general path reads it and tells the next.
    lines = [
        body(request_of(shape, FAULTS[fault][0]))
        for fault in ("clean", "unanswered", "misplaced")
        for shape in HISTORY_SHAPES
        for _ in range(2)
    ]
    lines += [pair_line(request_of(HISTORY_SHAPES[2], FAULTS["orphan"][0]), MIXED)] * 2
    log = log_of(lines)
    general = GeneralLines(monkeypatch)
    for options in BODY_OPTIONS:
        assert_same(log, **options)
    general.read = 0
    audited(log, SCHEMAS, typed=True)
    assert general.read == len(lines) // 2  # the first of each two


def test_without_the_c_speedups_bodies_are_checked_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_loop, "SPEEDUPS", None)
    checks = Checks(monkeypatch)
    for shape in HISTORY_SHAPES:
        for fault in sorted(FAULTS):
            request = request_of(shape, FAULTS[fault][0])
            assert_same(log_of([body(request)] * 3))
    assert checks.checked >= 2 * len(FAULTS) * len(HISTORY_SHAPES) and checks.unread == 0


def test_a_gzipped_log_of_bodies_is_read_alike(tmp_path: Path) -> None:
    lines = [body(request_of(shape, FAULTS["unanswered"][0])) for shape in HISTORY_SHAPES]
    path = tmp_path / "requests.jsonl.gz"
    path.write_bytes(gzip.compress(log_of([line for line in lines for _ in range(3)])))

    def audited_file(typed: bool) -> tuple[bytes, dict[str, Any]]:
        run = Audit([Source(str(path))], SCHEMAS, AuditOptions())
        run.typed_fast_path = typed
        report = io.BytesIO()
        summary = run.run(report)
        return report.getvalue(), summary.to_dict()

    typed = audited_file(True)
    assert typed == audited_file(False)
    assert typed[1]["conversations"]["checked"] == 15


def test_a_log_of_sessions_is_read_on_from_each_session_s_last_history() -> None:
    turns = []
    for shape in HISTORY_SHAPES:
        for number in range(2):
            steps: list[Any] = [ASK]
            for turn in range(5):
                ids = [f"s{number}t{turn}a", f"s{number}t{turn}b"]
                steps.append(("calls", [(i, W) for i in ids]))
                answered = ids[:1] if (number, turn) == (1, 2) else ids
                steps.append(("results", [(i, W, False) for i in answered]))
                turns.append(body(request_of(shape, steps)))
    log = log_of(turns[0::2] + turns[1::2])
    for options in BODY_OPTIONS:
        assert_same(log, **options)


# -- the shapes take only what detection gives their format ----------------------------

SHAPES = {shape.format: shape for shape in typed_shapes() if not shape.holds_calls}


def test_each_request_format_has_its_shape() -> None:
    assert set(SHAPES) == {fmt.name for fmt in REQUEST_FORMATS} == set(FORMAT_OF.values())


def taken_by(line: bytes) -> list[str]:
    """The request formats whose typed shape takes ``line`` (names it no call)."""
    taken = []
    for name, shape in SHAPES.items():
        try:
            record = shape.decoder.decode(line)
        except DECODE_FAILURES:
            continue
        named = shape.calls(record)
        if named is not None:
            assert named[1] == []
            taken.append(name)
    return taken


REQUEST_VALUES = st.one_of(
    VALUES,
    st.sampled_from(["one string", [], [{"role": "user", "content": "hi"}], {"text": "x"}]),
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from([*FIELDS, "name", "metadata"]), REQUEST_VALUES, max_size=5))
def test_a_shape_takes_only_a_request_detection_gives_its_format(request_: dict[str, Any]) -> None:
    line = body(request_)
    taken = taken_by(line)
    if not taken:
        return
    assert len(taken) == 1
    try:
        detected = detect(orjson.loads(line))
    except UnknownShape:
        detected = None
    assert taken == [detected]


def test_each_shape_takes_the_requests_of_its_api() -> None:
    for shape in HISTORY_SHAPES:
        request = request_of(shape, FAULTS["clean"][0])
        assert taken_by(body(request)) == [FORMAT_OF[shape.name]]
        # Untold (no tools, nothing but its messages to tell its API): the general path's.
        untold = {HISTORY_FIELDS[shape.name]: request[HISTORY_FIELDS[shape.name]]}
        if shape.name in ("openai-chat", "anthropic", "bedrock"):
            assert taken_by(body(untold)) == []


# -- random logs -------------------------------------------------------------------------

LINES = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), REQUEST_VALUES, max_size=5).map(body),
    st.sampled_from(
        [
            body(request_of(shape, FAULTS[fault][0]))
            for shape in HISTORY_SHAPES
            for fault in ("clean", "unanswered", "duplicate result")
        ]
    ),
    st.sampled_from([b"", b"not json", b"[1]", b'{"messages": [', b'{"name": "get"}']),
)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(LINES, min_size=1, max_size=8),
    st.sampled_from(BODY_OPTIONS),
)
def test_any_log_of_bodies_is_read_alike(lines: list[bytes], options: dict[str, Any]) -> None:
    assert_same(log_of(lines), **options)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=6))
def test_a_log_of_bodies_is_read_alike(lines: list[bytes]) -> None:
    assert_same(log_of(lines))


def test_scored_bodies_are_the_general_path_s(monkeypatch: pytest.MonkeyPatch) -> None:
    # --expected: a request logged alone is scored (it made no call) by the general path,
    # which reads every line of a log of them: the same scores as with the typed path off.
    from ..truth.test_typed_scoring import expectations_of, scored

    request = request_of(HISTORY_SHAPES[0], FAULTS["unanswered"][0])
    lines = [body({**request, "id": f"r{n}"}) for n in range(4)]
    entries = [{"id": "r0", "calls": []}, {"id": "r1", "calls": [{"name": W, "arguments": {}}]}]
    expectations = expectations_of(entries, SCHEMAS, None)
    general = GeneralLines(monkeypatch)
    fast = scored(log_of(lines), SCHEMAS, expectations, typed=True)
    assert general.read == len(lines)
    assert fast == scored(log_of(lines), SCHEMAS, expectations, typed=False)
    assert b"r1" in fast[1]


@pytest.mark.parametrize("forced", sorted(FORMAT_OF.values()))
def test_a_forced_request_format_is_read_alike(forced: str) -> None:
    # --input-format: every line read as that format, detection aside; the typed path
    # takes only the lines detection would give it too, the general path the others.
    lines = [body(request_of(shape, FAULTS["unanswered"][0])) for shape in HISTORY_SHAPES]
    log = log_of([line for line in lines for _ in range(3)])
    assert_same(log, input_format=forced)
    assert_same(log, input_format=forced, group_by=("model",))


@pytest.mark.parametrize("kind", ["requests", "sessions"])
@pytest.mark.parametrize("shape", sorted(FORMAT_OF))
def test_bodies_as_the_sdks_write_them_are_read_alike(
    kind: str, shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The benchmark's logs (benchmarks/conversations.py): requests written with every
    # field the SDKs send, each line a conversation of its own, or sessions interleaved.
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    conversations = importlib.import_module("conversations")
    path = tmp_path / "bodies.jsonl"
    conversations.generate(path, 40, 12, kind=kind, shape=shape)
    log = path.read_bytes()
    checks = Checks(monkeypatch)
    for options in BODY_OPTIONS:
        assert_same(log, **options)
    assert checks.checked >= 39 and checks.unread == 0
