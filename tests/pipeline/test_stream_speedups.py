"""The C speedups of the typed stream reader (``formats/_stream_speedups.c``) place the
commonest lines as the reader's Python does: the streams they leave, the lines they
count and where an interruption stops are the same (rows and summaries are compared
both ways by every test of test_typed_streams.py, through its ``speedups`` fixture)."""

from __future__ import annotations

import gc
import io
from typing import Any

import orjson
import pytest

from toolaudit.formats import stream_speedups
from toolaudit.formats.stream_lanes import OpenCall, OpenStream, StreamLanes
from toolaudit.formats.typed_streams import typed_stream_shapes
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.sources import Source

from ..conftest import WEATHER_SCHEMAS
from .test_typed_streams import (
    assert_same_either_way,
    audited,
    chat_chunk,
    event,
    lines,
    tool_call_delta,
)

SPEEDUPS = stream_speedups.SPEEDUPS
pytestmark = pytest.mark.skipif(SPEEDUPS is None, reason="the C speedups are not built")

OPENING = {"index": 0, "id": "c1", "type": "function", "function": {"name": "get_weather"}}
FINISH = [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]

#: Two OpenAI streams interleaved, each appended to twice, and a usage-only chunk.
CHAT_LOG = lines(
    chat_chunk("a", [{"index": 0, "delta": {"tool_calls": [OPENING]}}]),
    chat_chunk("b", [{"index": 0, "delta": {"tool_calls": [OPENING]}}]),
    chat_chunk("a", tool_call_delta('{"city": ')),
    chat_chunk("b", tool_call_delta('{"city": ')),
    chat_chunk("a", tool_call_delta('"Oslo"}')),
    chat_chunk("b", tool_call_delta("3}")),
    chat_chunk("a", FINISH),
    chat_chunk("b", FINISH),
    chat_chunk("a", [], usage={"total_tokens": 9}),
)
BLOCK = {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}
#: One Anthropic stream: all but its message_start and message_stop are placed.
ANTHROPIC_LOG = lines(
    event("message_start", message={"model": "claude"}),
    event("content_block_start", index=0, content_block=BLOCK),
    event("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": "{"}),
    event("ping"),
    event("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": "}"}),
    event("content_block_stop", index=0),
    event("message_delta", delta={"stop_reason": "tool_use"}),
    event("message_stop"),
)


def placed_in_c(data: bytes, monkeypatch: pytest.MonkeyPatch, **options: Any) -> tuple[int, Any]:
    """(the lines the C placers placed, the summary) of a typed audit of ``data``: those
    counted in progress, and those that ended the stream they hand back."""
    counts = [0]
    original = stream_speedups.placer

    def counting(format: str, most: int, *state: Any) -> Any:
        place = original(format, most, *state)
        assert place is not None

        def counted(lines: Any, decode: Any, progress: list[int]) -> Any:
            before = progress[1] + progress[2]
            record = place(lines, decode, progress)
            counts[0] += progress[1] + progress[2] - before + (type(record) is OpenStream)
            return record

        return counted

    monkeypatch.setattr(stream_speedups, "SPEEDUPS", SPEEDUPS)
    monkeypatch.setattr(stream_speedups, "placer", counting)
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(data))
    summary = run.run(io.BytesIO())
    return counts[0], summary


@pytest.mark.parametrize(
    ("data", "placed"),
    # The first line of a format is the general path's; the C places every other.
    [(CHAT_LOG, 8), (ANTHROPIC_LOG, 7)],
    ids=["openai-chat-stream", "anthropic-stream"],
)
def test_the_placers_place_the_commonest_lines(
    data: bytes, placed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert placed_in_c(data, monkeypatch)[0] == placed
    assert_same_either_way(data, WEATHER_SCHEMAS)


def test_a_message_delta_that_notes_is_left_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    cut_off = ANTHROPIC_LOG.replace(b'"tool_use"}', b'"max_tokens"}')
    assert placed_in_c(cut_off, monkeypatch)[0] == 6
    assert_same_either_way(cut_off, WEATHER_SCHEMAS)


@pytest.mark.parametrize(
    ("start_input", "placed"),
    [(b'"input":{}', 7), (b'"input":{"city":"Oslo"}', 6), (b'"input":null', 6), (b"", 7)],
)
def test_a_block_whose_start_input_is_not_empty_is_left_to_python(
    start_input: bytes, placed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = ANTHROPIC_LOG.replace(b'"input":{}', start_input).replace(b",}", b"}")
    assert placed_in_c(data, monkeypatch)[0] == placed
    assert_same_either_way(data, WEATHER_SCHEMAS)


def test_a_block_begun_again_at_its_index_is_placed_as_in_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The same index again: with another id a new call takes the slot, with the same id
    # (or none) the call goes on; its name given if it had none.
    again = [
        event("content_block_start", index=0, content_block={**BLOCK, "id": "t2"}),
        event("content_block_start", index=0, content_block={**BLOCK, "id": None}),
        event("content_block_start", index=0, content_block={**BLOCK, "name": None}),
    ]
    for repeated in again:
        data = ANTHROPIC_LOG.replace(b'{"type":"ping"}', repeated)
        assert placed_in_c(data, monkeypatch)[0] == 7
        assert_same_either_way(data, WEATHER_SCHEMAS)


def test_the_comparison_catches_a_wrong_placer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A placer that appends another text than its line's is caught."""
    original = stream_speedups.placer

    def altering(format: str, most: int, *state: Any) -> Any:
        place = original(format, most, *state)
        assert place is not None

        def altered_placer(lines: Any, decode: Any, progress: list[int]) -> Any:
            # (what it appends for "Oslo"} is 5})
            altered = [line.replace(b'\\"Oslo\\"}', b"5}") for line in lines]
            return place(altered, decode, progress)

        return altered_placer

    monkeypatch.setattr(stream_speedups, "SPEEDUPS", SPEEDUPS)
    monkeypatch.setattr(stream_speedups, "placer", altering)
    with pytest.raises(AssertionError):
        assert_same_either_way(CHAT_LOG, WEATHER_SCHEMAS)


def interrupted_summary(speedups: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The summary of an audit of CHAT_LOG interrupted as its fourth typed line decodes."""
    monkeypatch.setattr(stream_speedups, "SPEEDUPS", speedups)
    shape = typed_stream_shapes()["openai-chat-stream"]
    decoder = shape.decoder
    seen = [0]

    class Interrupting:
        @staticmethod
        def decode(line: bytes) -> Any:
            seen[0] += 1
            if seen[0] == 4:
                raise KeyboardInterrupt
            return decoder.decode(line)

    monkeypatch.setattr(shape, "decoder", Interrupting)
    monkeypatch.setattr(shape, "quick", None)  # (else it decodes the lines)
    only_chat = {shape.format: shape}
    monkeypatch.setattr("toolaudit.formats.typed_streams.typed_stream_shapes", lambda *_: only_chat)
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(), stdin=io.BytesIO(CHAT_LOG))
    with pytest.raises(KeyboardInterrupt):
        run.run(io.BytesIO())
    assert run.summary is not None
    return run.summary.to_dict()


def test_an_interruption_in_c_stops_where_python_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt raised while the placer decodes a line (as a signal handler's
    would be) leaves the lines before it counted, with the speedups as without."""
    in_c = interrupted_summary(SPEEDUPS, monkeypatch)
    assert in_c == interrupted_summary(None, monkeypatch)
    # (line 5 is the fourth the typed path decodes: it takes over from line 2)
    assert in_c["sources"][0]["error"] == "interrupted after line 5"
    assert in_c["records_without_calls"] == 2


def test_the_placers_refuse_what_they_are_not_given() -> None:
    assert SPEEDUPS is not None
    lanes = StreamLanes()
    given = ("openai-chat-stream", 100, lanes, OpenStream, OpenCall, 1, None, {}, 100)
    with pytest.raises(TypeError):
        SPEEDUPS.chat(*given, (), None, [0, 0, 0, None])
    with pytest.raises(TypeError):
        SPEEDUPS.chat(*given, [], None, [0, 0, 0])
    with pytest.raises(TypeError):
        SPEEDUPS.chat(*given, [], None)
    anthropic = ("anthropic-stream", 100, None, lanes, OpenStream, OpenCall, 1, None, {}, 100)
    with pytest.raises(TypeError):
        SPEEDUPS.anthropic(*anthropic, [], None, [0, 0, 0, None])


def opening(call_id: str | None = "c1", index: int = 0, **function: Any) -> list[Any]:
    call = {"index": index, "id": call_id, "type": "function", "function": function}
    return [{"index": 0, "delta": {"tool_calls": [call]}}]


#: After CHAT_LOG's two streams (the first two lines the general path's), lines the C
#: places in stream "c", each case one way the lanes go (the number it places).
LATER_CHAT = {
    # a stream begun, appended to, ended
    "begun-in-c": ([opening(name="get_weather")], 1),
    # a second call at the slot: another id takes its place, the same id or none goes on
    "other-id": ([opening(name="get_weather"), opening("c2", name="get_weather")], 2),
    "same-id": ([opening(name="get_weather"), opening(arguments='{"ci')], 2),
    "no-id": ([opening(name="get_weather"), opening(None, name="get_weather")], 2),
    "nameless": ([opening(), opening(name="get_weather")], 2),
    "second-slot": ([opening(name="get_weather"), opening("c2", 1, name="get_weather")], 2),
    # an opening chunk with the first piece, and one with content beside it
    "with-text": ([opening(name="get_weather", arguments='{"city": "Oslo"}')], 1),
    "with-content": (
        [
            [
                {
                    "index": 0,
                    "delta": {"content": "Hi", "tool_calls": opening()[0]["delta"]["tool_calls"]},
                }
            ]
        ],
        1,
    ),
}


@pytest.mark.parametrize("case", sorted(LATER_CHAT))
def test_streams_begun_in_c_are_python_s(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    openings, placed = LATER_CHAT[case]
    finish = [{"index": 0, "delta": None, "finish_reason": "tool_calls"}]
    data = CHAT_LOG + lines(
        *(chat_chunk("c", choices) for choices in openings),
        chat_chunk("c", tool_call_delta('{"city": "Oslo"}')),
        chat_chunk("c", finish),
        chat_chunk("c", [], usage={"total_tokens": 9}),
    )
    # (CHAT_LOG's 8, the openings, the append, the finish, the usage-only chunk)
    assert placed_in_c(data, monkeypatch)[0] == 8 + placed + 3
    assert_same_either_way(data, WEATHER_SCHEMAS)


def test_what_the_c_leaves_to_python_when_streams_begin_and_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    two_choices = [
        {"index": 0, "delta": {"tool_calls": opening(name="get_weather")[0]["delta"]["tool_calls"]}}
    ]
    data = CHAT_LOG + lines(
        # a late opening chunk of stream "a", which finished: the general path words it
        chat_chunk("a", opening(name="get_weather")),
        # a stream of two choices: the first ended, the second goes on, then ends
        chat_chunk("d", two_choices),
        chat_chunk("d", [{"index": 1, "delta": {"role": "assistant"}}]),
        chat_chunk("d", [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
        chat_chunk("d", [{"index": 1, "delta": {}, "finish_reason": "stop"}]),
        # cut off at its length limit: the general path notes it
        chat_chunk("e", opening(name="get_weather")),
        chat_chunk("e", [{"index": 0, "delta": {}, "finish_reason": "length"}]),
        # a finish_reason beside tool calls
        chat_chunk("f", opening(name="get_weather")),
        chat_chunk("f", [{**opening()[0], "finish_reason": "tool_calls"}]),
    )
    # placed: CHAT_LOG's 8, d's opening and both finishes, e's and f's openings
    assert placed_in_c(data, monkeypatch)[0] == 8 + 5
    assert_same_either_way(data, WEATHER_SCHEMAS)
    # (the C remembers the line "a" ended on, which the late chunk's message words)
    report = audited(data, WEATHER_SCHEMAS, typed=True)[0]
    assert b"stream 'a', which already finished on line " in report


@pytest.mark.parametrize("most_open", [1, 2, 3])
def test_streams_past_the_limit_are_python_s(
    most_open: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At --max-open-streams the C begins none (the general path evicts), and its
    remembered ended streams are as many as the limit."""
    data = CHAT_LOG + lines(
        *(chat_chunk(name, opening(name="get_weather")) for name in "cdefg"),
        *(chat_chunk(name, tool_call_delta("{}")) for name in "gfedc"),
        *(chat_chunk(name, FINISH) for name in "cdefg"),
        # late chunks of streams it no longer remembers, or still does
        *(chat_chunk(name, opening(name="get_weather")) for name in "ab"),
        *(chat_chunk(name, FINISH) for name in "ab"),
    )
    placed_in_c(data, monkeypatch, max_open_streams=most_open)
    assert_same_either_way(data, WEATHER_SCHEMAS, max_open_streams=most_open)


def test_anthropic_streams_begun_and_ended_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    unnamed = ANTHROPIC_LOG.replace(b'{"model":"claude"}', b"{}")
    no_message = lines(event("message_start"), *ANTHROPIC_LOG.splitlines()[1:])
    # the second and third streams' message_start too; a message_stop of no open stream
    # and a message_start inside an open stream (it is cut) are the general path's
    data = ANTHROPIC_LOG + unnamed + no_message
    assert placed_in_c(data, monkeypatch)[0] == 7 + 8 + 8
    odd = ANTHROPIC_LOG + lines(event("message_stop")) + ANTHROPIC_LOG[:-1] + ANTHROPIC_LOG
    assert placed_in_c(odd, monkeypatch)[0] == 7 + 7 + 7
    for log in (data, odd):
        assert_same_either_way(log, WEATHER_SCHEMAS)
        assert_same_either_way(log, WEATHER_SCHEMAS, max_open_streams=1)


def judged_in_c(data: bytes, monkeypatch: pytest.MonkeyPatch, *, claim: bool = False) -> list[Any]:
    """The names the C placers gave for the ended streams they found valid (``claim``: a
    placer that calls every ended stream valid, a wrong one)."""
    names: list[Any] = []
    original = stream_speedups.placer

    def watching(format: str, most: int, *state: Any) -> Any:
        place = original(format, most, *state)
        assert place is not None

        def watched(lines: Any, decode: Any, progress: list[Any]) -> Any:
            record = place(lines, decode, progress)
            if type(record) is OpenStream:
                if claim:
                    progress[3] = "get_weather"
                names.append(progress[3])
            return record

        return watched

    monkeypatch.setattr(stream_speedups, "SPEEDUPS", SPEEDUPS)
    monkeypatch.setattr(stream_speedups, "placer", watching)
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(), stdin=io.BytesIO(data))
    run.run(io.BytesIO())
    return names


def test_an_ended_stream_s_one_valid_call_is_judged_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    # "a" is valid, "b" (a number for a city) is the reader's to judge
    assert judged_in_c(CHAT_LOG, monkeypatch) == ["get_weather", None]
    # a block of no deltas: its placeholder {} (no city) fails; with an unknown tool, an
    # empty arguments text, two calls, or arguments too long for the C to decide, the
    # reader judges it
    no_deltas = b"\n".join(
        line for line in ANTHROPIC_LOG.splitlines() if b"input_json_delta" not in line
    )
    unknown = ANTHROPIC_LOG.replace(b'"get_weather"', b'"get_time"')
    long_piece = orjson.dumps('"' + "x" * 2000 + '"}')[1:-1]
    long_call = CHAT_LOG.replace(b'\\"Oslo\\"}', long_piece)
    two_calls = lines(
        *ANTHROPIC_LOG.splitlines()[:6],
        event("content_block_start", index=1, content_block=BLOCK),
        *ANTHROPIC_LOG.splitlines()[2:],
    )
    for data in (no_deltas + b"\n", unknown, long_call, two_calls):
        assert judged_in_c(data, monkeypatch)[0] is None
        assert_same_either_way(data, WEATHER_SCHEMAS)
    # (its first piece {"city": "Oslo", its second })
    valid = ANTHROPIC_LOG.replace(
        b'"partial_json":"{"', b'"partial_json":"{\\"city\\": \\"Oslo\\""'
    )
    assert judged_in_c(valid, monkeypatch) == ["get_weather"]
    assert_same_either_way(valid, WEATHER_SCHEMAS)


def test_the_comparison_catches_a_wrong_judgement(monkeypatch: pytest.MonkeyPatch) -> None:
    """A placer that calls "b"'s failing call valid is caught."""
    assert judged_in_c(CHAT_LOG, monkeypatch, claim=True) == ["get_weather"] * 2
    with pytest.raises(AssertionError):
        assert_same_either_way(CHAT_LOG, WEATHER_SCHEMAS)


def test_streams_and_calls_made_in_c_are_those_of_their_init() -> None:
    """The C makes streams and calls without running their __init__: every slot holds
    what __init__ would have put there."""
    assert SPEEDUPS is not None
    shape = typed_stream_shapes()["openai-chat-stream"]
    data = [
        chat_chunk("a", opening(name="get_weather", arguments="{")),
        chat_chunk("a", opening("c2")),
    ]
    tally = object()
    lanes = StreamLanes()
    progress: list[Any] = [0, 0, 0, None]
    args = ("openai-chat-stream", 10_000, lanes, OpenStream, OpenCall, 7, tally, {}, 100)
    assert SPEEDUPS.chat(*args, data, shape.decoder.decode, progress) is None
    assert progress == [2, 1, 1, None]
    [in_c] = lanes._open.values()
    in_python = OpenStream("openai-chat-stream", 7, tally, 1)
    in_python.model = "gpt-4o"
    in_python.groups[0] = False
    in_python.start((0, 0, 0), "c1", "get_weather", "{", None)
    in_python.start((0, 0, 0), "c2", None, None, None)

    def slots(made: Any) -> dict[str, Any]:
        return {name: getattr(made, name) for name in type(made).__slots__}

    # ... left untracked by the cyclic GC, with the containers made for them: they are in
    # no cycle (refcounting frees them), and the collector need not walk thousands
    made_in_c = [in_c, in_c.at_slot, *in_c.pending(), in_c.pending()[0].pieces]
    assert not any(gc.is_tracked(made) for made in made_in_c)
    assert [gc.is_tracked(made) for made in (in_python, *in_python.pending())] == [True] * 3
    calls = [slots(call) for call in in_c.pending()]
    assert calls == [slots(call) for call in in_python.pending()]
    assert calls[0]["pieces"] == ["{"] and calls[1]["pieces"] is None
    in_c.at_slot, in_c.replaced = in_python.at_slot, in_python.replaced
    assert slots(in_c) == slots(in_python)
    assert lanes._sequence == 1


def test_a_decoder_that_cannot_be_built_is_recorded_as_without_the_c(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An exception building a tool's decoder (or decoding) on the C's judgement of a
    stream is the reader's to record, as the pure reader records it."""

    def broken(tool: Any) -> Any:
        raise ValueError("no decoder today")

    monkeypatch.setattr("toolaudit.typed.arguments.arguments_decoder", broken)
    either = []
    for speedups in (SPEEDUPS, None):
        monkeypatch.setattr(stream_speedups, "SPEEDUPS", speedups)
        either.append(audited(CHAT_LOG, WEATHER_SCHEMAS, typed=True)[:2])
    assert either[0] == either[1]
    assert b"no decoder today" in either[0][0]
