"""The typed stream reader changes nothing: rows and summaries with the typed path on and
forced off are identical, byte for byte, on the stream cases and on generated logs of
interleaved streams (chunks dropped, odd lines among them, few streams allowed open);
and the typed path does read the stream lines it is meant to (else the comparisons
would compare the general path with itself)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.formats import stream_speedups
from toolaudit.formats.stream_lanes import TYPED_STREAM_FORMATS
from toolaudit.formats.typed_streams import typed_stream_shapes
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.pipeline.typed_stream_reader import TypedStreamReader
from toolaudit.schemas import SchemaSet, load_schemas
from toolaudit.sources import Source

from ..conftest import REPO, WEATHER_SCHEMAS

CASES = REPO / "tests" / "cases" / "formats"

SPEEDUPS_BUILT = stream_speedups.SPEEDUPS


@pytest.fixture(autouse=True, params=["c", "python"])
def speedups(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here both ways: the commonest lines placed by the C speedups, and
    every line by the reader's Python."""
    if request.param == "c":
        if SPEEDUPS_BUILT is None:
            pytest.skip("the C speedups are not built (or TOOLAUDIT_PURE_PYTHON is set)")
        monkeypatch.setattr(stream_speedups, "SPEEDUPS", SPEEDUPS_BUILT)
    else:
        monkeypatch.setattr(stream_speedups, "SPEEDUPS", None)
    return str(request.param)


STREAM_CASES = sorted(CASES.glob("*-stream"))


def audited(data: bytes, schemas: SchemaSet, *, typed: bool, **options: Any) -> tuple[Any, ...]:
    """(the report, the summary, the lines the typed stream reader read)."""
    run = Audit([Source("-")], schemas, AuditOptions(**options), stdin=io.BytesIO(data))
    run.typed_fast_path = typed
    report = io.BytesIO()
    read = [0]
    original = TypedStreamReader.read_lines

    def counted(reader: TypedStreamReader, lines: list[bytes], start: int, *rest: Any) -> int:
        end: int = original(reader, lines, start, *rest)
        read[0] += end - start
        return end

    with mock.patch.object(TypedStreamReader, "read_lines", counted):
        summary = run.run(report)
    return report.getvalue(), summary.to_dict(), read[0]


def assert_same_either_way(data: bytes, schemas: SchemaSet, **options: Any) -> int:
    """Assert the two paths agree; the lines the typed stream reader read."""
    fast = audited(data, schemas, typed=True, **options)
    general = audited(data, schemas, typed=False, **options)
    assert general[2] == 0
    assert fast[0].decode().splitlines() == general[0].decode().splitlines()
    assert fast[1] == general[1]
    return int(fast[2])


@pytest.mark.parametrize("folder", STREAM_CASES, ids=[path.name for path in STREAM_CASES])
def test_every_stream_case_gives_the_same_report_and_summary(folder: Path) -> None:
    [schemas_file] = sorted(folder.glob("schemas.json*"))
    schemas = load_schemas(str(schemas_file))
    data = (folder / "input.jsonl").read_bytes()
    read = assert_same_either_way(data, schemas)
    if folder.name in TYPED_STREAM_FORMATS:
        assert read > 0
    assert_same_either_way(data, schemas, errors_only=True)
    assert_same_either_way(data, schemas, max_open_streams=1)
    assert_same_either_way(data, schemas, group_by=("model",))


def test_the_typed_shapes_are_the_formats_it_names() -> None:
    assert set(typed_stream_shapes()) == TYPED_STREAM_FORMATS


# -- generated streams ------------------------------------------------------------------

ARGUMENTS = st.sampled_from(
    [
        '{"city": "Oslo"}',
        '{"city": "Oslo", "days": 3, "units": "c"}',
        '{"city": 5}',
        '{"city": "Oslo", "units": "k"}',
        "{}",
        "",
        "{",
        '"{}"',
        '{"city": "Oslo", "days": 1e400}',
        '{"city": "Oslo", "days": 123456789012345678901234}',
        '{"city": "\\ud800"}',
        '{"city": "Oslo", "city": 7}',
        '{"city": "\u00e9t\u00e9"}',
    ]
)
NAMES = st.sampled_from(["get_weather", "get_weather", "ping", "unknown", None])
IDS = st.sampled_from(["call_1", "call_2", None])


@st.composite
def pieces(draw: st.DrawFn) -> list[str]:
    """Arguments text cut into one to three pieces."""
    text = draw(ARGUMENTS)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=2)))
    return [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]


def chat_chunk(stream_id: Any, choices: list[Any], **extra: Any) -> bytes:
    record = {"id": stream_id, "object": "chat.completion.chunk", "model": "gpt-4o"}
    return orjson.dumps({**record, "choices": choices, **extra})


@st.composite
def chat_stream(draw: st.DrawFn, stream_id: Any) -> list[bytes]:
    """One OpenAI chat stream: its chunks in order."""
    chunks = []
    groups = draw(st.sampled_from([[0], [0], [0, 1]]))
    for group in groups:
        if draw(st.booleans()):
            delta = {"role": "assistant", "content": draw(st.sampled_from([None, "", "Hi"]))}
            chunks.append(chat_chunk(stream_id, [{"index": group, "delta": delta}]))
        for position in range(draw(st.integers(0, 2))):
            index = draw(st.sampled_from([position, position, 0, None]))
            first, *rest = draw(pieces())
            opening: dict[str, Any] = {
                "id": draw(IDS),
                "type": draw(st.sampled_from(["function", "function", "custom"])),
                "function": {"name": draw(NAMES), "arguments": first},
            }
            legacy = draw(st.integers(0, 7)) == 0
            for part, text in enumerate([None, *rest]):
                call: dict[str, Any] = opening if part == 0 else {"function": {"arguments": text}}
                if legacy:
                    delta = {"function_call": call["function"]}
                else:
                    if index is not None:
                        call = {"index": index, **call}
                    delta = {"tool_calls": [call]}
                chunks.append(chat_chunk(stream_id, [{"index": group, "delta": delta}]))
        finish = draw(st.sampled_from(["tool_calls", "stop", "length", None]))
        if finish is not None:
            delta = draw(st.sampled_from([{}, {"content": "."}]))
            choice = {"index": group, "delta": delta, "finish_reason": finish}
            chunks.append(chat_chunk(stream_id, [choice]))
    if draw(st.booleans()):
        chunks.append(chat_chunk(stream_id, [], usage={"total_tokens": 9}))
    return chunks


def event(kind: str, **fields: Any) -> bytes:
    return orjson.dumps({"type": kind, **fields})


@st.composite
def anthropic_stream(draw: st.DrawFn) -> list[bytes]:
    """One Anthropic stream: its events in order."""
    message = {"id": "msg_1", "type": "message", "model": draw(st.sampled_from(["claude", ""]))}
    events = [event("message_start", message=message)]
    for index in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            events.append(event("content_block_start", index=index, content_block={"type": "text"}))
            delta = {"type": "text_delta", "text": "Hm"}
            events.append(event("content_block_delta", index=index, delta=delta))
        else:
            block: dict[str, Any] = {"type": "tool_use", "id": draw(IDS), "name": draw(NAMES)}
            start_input = draw(st.sampled_from([{}, {}, {"city": "Bergen"}, None, "absent"]))
            if start_input != "absent":
                block["input"] = start_input
            events.append(event("content_block_start", index=index, content_block=block))
            for text in draw(pieces()):
                delta = {"type": "input_json_delta", "partial_json": text}
                events.append(event("content_block_delta", index=index, delta=delta))
        if draw(st.integers(0, 5)) == 0:
            events.append(event("ping"))
        events.append(event("content_block_stop", index=index))
    stop = draw(st.sampled_from(["tool_use", "end_turn", "max_tokens"]))
    events.append(event("message_delta", delta={"stop_reason": stop}, usage={"output_tokens": 3}))
    events.append(event("message_stop"))
    return events


ODD_LINES = st.sampled_from(
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[1, 2]",
        b'{"id": "s1", "object": "chat.completion.chunk", "choices": [{"index": -1}]}',
        b'{"id": 7, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": '
        b'{"tool_calls": [{"index": 0, "function": {"arguments": "x"}}]}}]}',
        b'{"id": "s0", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": '
        b'{"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}}], "n": 1e400}',
        b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
        b'{"type": "content_block_delta", "index": true, "delta": {"type": "input_json_delta"}}',
        b'{"type": "message_stop"}',
        b'{"type": "content_block_stop", "index": 0, "event": {"type": "ping"}}',
        b'{"name": "get_weather", "arguments": {"city": "Oslo"}}',
        b'{"stream_id": "w", "event": {"type": "message_start", "message": {"model": "c"}}}',
    ]
)


@st.composite
def stream_logs(draw: st.DrawFn) -> bytes:
    """Streams interleaved chunk by chunk (Anthropic's, whose events carry no stream id,
    follow one another), a chunk dropped now and then, odd lines among them."""
    streams: list[list[bytes]] = []
    for number in range(draw(st.integers(1, 5))):
        if draw(st.integers(0, 3)) == 0:
            streams.append(draw(anthropic_stream()))
        else:
            stream_id = draw(st.sampled_from([f"s{number}", f"s{number}", "s0", None]))
            streams.append(draw(chat_stream(stream_id)))
    lines: list[bytes] = []
    order = draw(st.permutations([i for i, s in enumerate(streams) for _ in s]))
    positions = [0] * len(streams)
    for which in order:
        line = streams[which][positions[which]]
        positions[which] += 1
        if draw(st.integers(0, 11)) == 0:
            continue  # dropped
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(ODD_LINES))
        lines.append(line)
    return b"\n".join(lines) + b"\n"


# (The speedups fixture sets one switch for every example: it may be function-scoped.)
SLOW_AND_SCOPED = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=SLOW_AND_SCOPED)


@pytest.mark.slow
@SETTINGS
@given(stream_logs(), st.sampled_from([1, 2, 3, 10_000]))
def test_generated_streams_give_the_same_rows_and_summary(data: bytes, most_open: int) -> None:
    assert_same_either_way(data, WEATHER_SCHEMAS, max_open_streams=most_open)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=SLOW_AND_SCOPED)
@given(stream_logs())
def test_generated_streams_give_the_same_rows_with_errors_only_and_groups(data: bytes) -> None:
    assert_same_either_way(data, WEATHER_SCHEMAS, errors_only=True)
    assert_same_either_way(data, WEATHER_SCHEMAS, group_by=("model",))


def tool_call_delta(arguments: str, **fields: Any) -> list[dict[str, Any]]:
    call = {"index": 0, **fields, "function": {"arguments": arguments}}
    return [{"index": 0, "delta": {"tool_calls": [call]}}]


def test_a_stream_begun_on_one_path_ends_on_the_other() -> None:
    # Stream "a" begins on the general path (the first line of a format always does),
    # so does its second chunk (a tool call type that is no string, which the typed shape
    # leaves alone), and its third and last are the typed path's. Stream 7 (an integer
    # id, which the typed shape leaves alone too) is the general path's throughout.
    opening = {"index": 0, "id": "c1", "type": "function", "function": {"name": "get_weather"}}
    finish = [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]
    data = lines(
        chat_chunk("a", [{"index": 0, "delta": {"tool_calls": [opening]}}]),
        chat_chunk(7, [{"index": 0, "delta": {"tool_calls": [opening]}}]),
        chat_chunk("a", tool_call_delta('{"city": ', type=5)),
        chat_chunk(7, tool_call_delta('{"city": 3}')),
        chat_chunk("a", tool_call_delta('"Oslo"}')),
        chat_chunk(7, finish),
        chat_chunk("a", finish),
    )
    assert assert_same_either_way(data, WEATHER_SCHEMAS) == 2
    report = audited(data, WEATHER_SCHEMAS, typed=True)[0]
    rows = [orjson.loads(line) for line in report.splitlines()]
    assert [(row["line"], row["errors"]) for row in rows] == [(2, ["type:city"]), (1, [])]


def lines(*items: bytes) -> bytes:
    return b"\n".join(items) + b"\n"


def test_the_comparison_catches_a_wrong_lane(
    monkeypatch: pytest.MonkeyPatch, speedups: str
) -> None:
    """A lane that drops a piece of arguments is caught: the comparisons can fail."""
    from toolaudit.formats.stream_lanes import StreamLanes

    if speedups == "c":
        pytest.skip("the C speedups append without the lane (test_stream_speedups.py)")

    original = StreamLanes.append

    def dropping(self: StreamLanes, key: Any, slot: Any, group: Any, text: str, model: Any) -> bool:
        return original(self, key, slot, group, text[:-1], model)

    monkeypatch.setattr(StreamLanes, "append", dropping)
    data = (CASES / "openai-chat-stream" / "input.jsonl").read_bytes()
    schemas = load_schemas(str(next((CASES / "openai-chat-stream").glob("schemas.json*"))))
    with pytest.raises(AssertionError):
        assert_same_either_way(data, schemas)


NESTED = b"[" * 1000 + b"]" * 1000


@pytest.mark.parametrize(
    ("odd", "read"),
    [
        # UTF-8 msgspec would not check, in a value it skips
        (
            chat_chunk("a", tool_call_delta('{"city": '), note="\u00e9").replace(
                b"\xc3\xa9", b"\xc3("
            ),
            3,
        ),
        # nesting deeper than the standard library follows
        (chat_chunk("a", tool_call_delta('{"city": '))[:-1] + b', "deep": ' + NESTED + b"}", 3),
        # a wrapped chunk, an integer stream id
        (orjson.dumps({"stream_id": "a", "event": orjson.loads(chat_chunk("a", []))}), 3),
        (chat_chunk(7, tool_call_delta('{"city": ')), 3),
        # an Anthropic error event: the line after it is the general path's too, which
        # finds the format again
        (b'{"type": "error", "error": {"type": "overloaded_error", "message": "Over"}}', 2),
    ],
    ids=["utf8", "nesting", "wrapped", "integer-id", "error"],
)
def test_lines_it_must_not_decide_go_to_the_general_path(odd: bytes, read: int) -> None:
    opening = {"index": 0, "id": "c1", "type": "function", "function": {"name": "get_weather"}}
    finish = [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]
    data = lines(
        chat_chunk("a", [{"index": 0, "delta": {"tool_calls": [opening]}}]),
        chat_chunk("a", tool_call_delta("")),
        odd,
        chat_chunk("a", tool_call_delta('{"city": "Oslo"}')),
        chat_chunk("a", finish),
    )
    # The first line is the general path's (it finds the format), the odd one too.
    assert assert_same_either_way(data, WEATHER_SCHEMAS) == read
