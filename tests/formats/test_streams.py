"""Streamed responses reassembled: stream records read through the registry, fed to the
assembler. The fixtures (tests/fixtures/formats/streams/) come from the providers' SDK
types: see tests/fixtures/formats/make_streams.py."""

from __future__ import annotations

import copy
import gc
from typing import Any

import orjson
import pytest

from toolaudit.formats import ABSENT, JSON_STRING, UnknownShape, extract
from toolaudit.formats.base import CUT_OFF
from toolaudit.formats.streams import (
    LOG_ENDED,
    Finished,
    StreamAssembler,
    StreamError,
    StreamStep,
)

from ..conftest import FIXTURES

STREAMS = FIXTURES / "formats" / "streams"


def lines_of(scenario: str) -> list[dict[str, Any]]:
    return [
        orjson.loads(line) for line in (STREAMS / f"{scenario}.jsonl").read_bytes().splitlines()
    ]


class Fed:
    """What feeding records one a line gave: the streams each line finished, by line,
    the errors by line, and the streams cut when the log ended."""

    def __init__(self, records: list[dict[str, Any]], max_open: int = 10_000) -> None:
        self.assembler = StreamAssembler(max_open)
        self.began: list[int] = []
        self.finished: dict[int, list[Finished]] = {}
        self.errors: dict[int, str] = {}
        for line, record in enumerate(records, 1):
            self.feed(line, record)
        self.open_at_end = len(self.assembler)
        self.cut = self.assembler.close()

    def feed(self, line: int, record: dict[str, Any]) -> None:
        extracted = extract(record)
        assert isinstance(extracted.stream, StreamStep), record
        assert extracted.calls == []  # a step's calls come from its stream
        try:
            began, finished = self.assembler.feed(extracted, line, f"context of {line}")
        except StreamError as error:
            self.errors[line] = str(error)
            return
        if began:
            self.began.append(line)
        if finished:
            self.finished[line] = finished

    def streams(self) -> list[Finished]:
        return [stream for line in sorted(self.finished) for stream in self.finished[line]]

    def only(self) -> Finished:
        [stream] = self.streams() + self.cut
        return stream


def calls_of(stream: Finished) -> list[tuple[int, object, object, object]]:
    return [(c.index, c.id, c.name, c.arguments) for c in stream.extracted.calls]


# -- OpenAI Chat Completions -------------------------------------------------------------


def test_parallel_tool_calls_are_assembled_in_index_order() -> None:
    fed = Fed(lines_of("chat_parallel"))
    assert fed.began == [1] and list(fed.finished) == [7]  # the finish_reason chunk
    stream = fed.only()
    assert (stream.line, stream.context, stream.cut) == (1, "context of 1", None)
    assert stream.extracted.format == "openai-chat-stream"
    assert stream.extracted.model == "gpt-4o-mini"
    assert calls_of(stream) == [
        (0, "call_p0", "get_weather", '{"city": "Paris"}'),
        (1, "call_p1", "get_time", '{"timezone": "CET"}'),
    ]
    assert all(c.encoding == JSON_STRING and c.note is None for c in stream.extracted.calls)


def chat_chunk(
    tool_call: dict[str, Any] | None = None, finish_reason: str | None = None
) -> dict[str, Any]:
    delta = {} if tool_call is None else {"tool_calls": [{"index": 0, **tool_call}]}
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}


def test_calls_one_after_another_at_one_index_are_told_apart_by_id() -> None:
    # Some servers send parallel calls all at index 0: each with an id of its own.
    records = [
        chat_chunk({"id": "call_a", "function": {"name": "get_weather", "arguments": ""}}),
        chat_chunk({"function": {"arguments": '{"city": "Oslo"}'}}),
        chat_chunk({"id": "call_b", "function": {"name": "get_time", "arguments": "{}"}}),
        chat_chunk({"id": "call_c", "function": {"name": "get_weather", "arguments": "{"}}),
        chat_chunk({"function": {"arguments": "}"}}),
        chat_chunk(finish_reason="tool_calls"),
    ]
    fed = Fed(records)
    assert fed.errors == {} and list(fed.finished) == [6]
    assert calls_of(fed.only()) == [
        (0, "call_a", "get_weather", '{"city": "Oslo"}'),
        (1, "call_b", "get_time", "{}"),
        (2, "call_c", "get_weather", "{}"),
    ]


def test_an_open_stream_holds_few_containers_the_cyclic_gc_walks() -> None:
    # Thousands of streams may be open at once: each full collection walks them all.
    assembler = StreamAssembler()
    first = chat_chunk({"id": "call_a", "function": {"name": "get_weather", "arguments": ""}})
    for line, record in enumerate([first, chat_chunk({"function": {"arguments": "{}"}})], 1):
        assembler.feed(extract(record), line, None)
    gc.collect()  # (it stops tracking the tuples that hold no container)
    [stream] = assembler._open.values()
    assert stream.groups == {0: False} and stream.skipped is None and stream.replaced is None
    assert not gc.is_tracked(stream.groups) and not gc.is_tracked(stream.notes)
    [call] = stream.at_slot.values()
    assert not gc.is_tracked(call.slot)


def test_the_usage_only_chunk_after_the_end_is_neither_a_stream_nor_an_error() -> None:
    records = lines_of("chat_parallel")
    assert records[-1]["choices"] == [] and "usage" in records[-1]
    fed = Fed(records)
    assert fed.errors == {} and fed.cut == [] and fed.open_at_end == 0
    assert 8 not in fed.began and 8 not in fed.finished


def test_interleaved_chat_streams_are_told_apart_by_id() -> None:
    fed = Fed(lines_of("chat_interleaved"))
    assert fed.began == [1, 2]
    first, second = fed.streams()
    assert calls_of(first) == [(0, "call_a", "get_weather", '{"city": "Oslo"}')]
    assert calls_of(second) == [(0, "call_b", "get_weather", '{"city": 7}')]
    assert (first.line, second.line) == (1, 2)


def test_a_stream_of_several_choices_ends_when_each_has_finished() -> None:
    fed = Fed(lines_of("chat_choices"))
    assert list(fed.finished) == [8]  # choice 1 finished on line 7, choice 0 on line 8
    # Numbered across the message, choice by choice, as an unstreamed completion's.
    assert calls_of(fed.only()) == [
        (0, "call_c0", "get_weather", '{"city": "Lima", "days": "2"}'),
        (1, "call_c1", "get_weather", '{"city": "Rome"}'),
    ]


def test_a_legacy_function_call_is_assembled_without_an_id() -> None:
    stream = Fed(lines_of("chat_legacy")).only()
    assert calls_of(stream) == [(0, None, "get_weather", '{"city": "Cairo"}')]
    assert stream.extracted.model == "gpt-3.5-turbo-0613"


def test_a_choice_cut_by_its_length_limit_says_so() -> None:
    stream = Fed(lines_of("chat_length")).only()
    assert stream.cut is None  # the stream finished; the response hit its limit
    [call] = stream.extracted.calls
    assert call.arguments == '{"city": "Par'
    assert call.note == CUT_OFF.format('finish_reason "length"')


def test_a_delta_for_a_call_that_never_started_is_an_error_and_the_stream_goes_on() -> None:
    fed = Fed(lines_of("chat_unknown_index"))
    assert fed.errors == {
        4: "a delta for tool call index 1 of stream 'chatcmpl-gap', which never started"
    }
    assert calls_of(fed.only()) == [(0, "call_g0", "get_weather", '{"city": "Kyiv"}')]


def test_a_rejected_record_changes_nothing() -> None:
    records = lines_of("chat_parallel")[:3]  # call 0 has begun: '{"city"'
    both = copy.deepcopy(records[2])
    # One chunk: a fragment of call 0, then one of a call 5 that never started.
    both["choices"][0]["delta"]["tool_calls"].append({"index": 5, "function": {"arguments": "{}"}})
    fed = Fed([*records, both, *lines_of("chat_parallel")[3:]])
    assert list(fed.errors) == [4]
    [first, _] = calls_of(fed.only())
    assert first == (0, "call_p0", "get_weather", '{"city": "Paris"}')  # not '{"city""city"...'


def test_a_text_answer_is_a_stream_without_calls() -> None:
    fed = Fed(lines_of("chat_text"))
    assert fed.began == [1] and list(fed.finished) == [4]
    assert fed.only().extracted.calls == []


def test_a_stream_the_log_ends_in_is_cut_and_its_calls_say_so() -> None:
    fed = Fed(lines_of("chat_cut"))
    assert fed.finished == {} and fed.open_at_end == 1
    [stream] = fed.cut
    assert stream.cut == LOG_ENDED == "the log ended before the stream finished"
    [call] = stream.extracted.calls
    assert (call.id, call.name, call.arguments) == ("call_1", "get_weather", "")
    assert call.note == f"the stream was cut ({LOG_ENDED}), so these arguments may be incomplete"
    assert len(fed.assembler) == 0


def _opening_chunk(stream_id: str) -> dict[str, Any]:
    record = copy.deepcopy(lines_of("chat_cut")[0])
    record["id"] = stream_id
    return record


def test_past_max_open_the_oldest_stream_is_evicted_as_cut() -> None:
    records = [_opening_chunk(f"chatcmpl-{n}") for n in range(3)]
    later = copy.deepcopy(lines_of("chat_parallel")[2])  # arguments for call index 0
    later["id"] = "chatcmpl-0"
    fed = Fed([*records, later], max_open=2)
    evicted = "evicted: more than --max-open-streams (2) streams were open"
    [oldest] = fed.finished[3]  # the third stream's first chunk pushed the first out
    assert (oldest.line, oldest.cut) == (1, evicted)
    assert oldest.extracted.calls[0].note == (
        f"the stream was cut ({evicted}), so these arguments may be incomplete"
    )
    assert fed.open_at_end == 2
    assert fed.errors == {
        4: f"a chunk for tool call index 0 of stream 'chatcmpl-0', which was cut on line 3 "
        f"({evicted})"
    }
    assert [stream.line for stream in fed.cut] == [2, 3]  # in the order they began


def test_what_is_kept_of_ended_streams_is_bounded() -> None:
    first = lines_of("chat_legacy")
    second = [{**record, "id": "chatcmpl-other"} for record in first]
    late = copy.deepcopy(first[1])  # more arguments for the first stream
    # With room for one, the first stream is forgotten once the second has ended:
    # its late chunk is then read as a new stream's, whose call never started.
    fed = Fed([*first, *second, late], max_open=1)
    assert fed.errors == {
        9: "a delta for the function_call of stream 'chatcmpl-fn', which never started"
    }
    fed = Fed([*first, late], max_open=1)
    assert fed.errors == {
        5: "a chunk for the function_call of stream 'chatcmpl-fn', which already finished on line 4"
    }


# -- OpenAI Responses ---------------------------------------------------------------------


def test_responses_events_with_deltas_count_each_call_once() -> None:
    fed = Fed(lines_of("responses_deltas"))
    stream = fed.only()
    assert fed.began == [1] and list(fed.finished) == [10]
    # Added, two deltas, .done, output_item.done and response.completed: one call.
    assert calls_of(stream) == [(0, "call_r1", "get_weather", '{"city": "Paris", "days": 3}')]
    assert stream.extracted.model == "gpt-4.1-2025-04-14"


def test_responses_events_without_deltas_take_the_calls_of_the_final_output() -> None:
    stream = Fed(lines_of("responses_no_deltas")).only()
    assert calls_of(stream) == [
        (0, "call_r2", "get_weather", '{"city": "Tokyo"}'),
        (1, "call_r3", "get_time", '{"zone": "JST"}'),
    ]


def test_a_completed_event_alone_is_a_whole_stream() -> None:
    fed = Fed(lines_of("responses_no_deltas")[1:])
    assert fed.began == [1] and list(fed.finished) == [1]
    assert len(fed.only().extracted.calls) == 2


def test_an_incomplete_response_names_its_reason() -> None:
    [call] = Fed(lines_of("responses_incomplete")).only().extracted.calls
    assert call.arguments == '{"city": "Be'
    assert call.note == CUT_OFF.format('status "incomplete", max_output_tokens')


def test_wrapped_responses_streams_may_interleave() -> None:
    fed = Fed(lines_of("responses_wrapped"))
    assert fed.began == [1, 2]
    first, second = fed.streams()
    assert calls_of(first) == [(0, "call_w1", "get_weather", '{"city": "Quito"}')]
    assert calls_of(second) == [(0, "call_w2", "get_weather", '{"city": "Baku"}')]


def test_unwrapped_responses_streams_cannot_interleave() -> None:
    # Without a wrapper a stream's events must follow one another: the second
    # response.created cuts the first stream short.
    events = [record["event"] for record in lines_of("responses_wrapped")]
    [first] = Fed(events).finished[2]
    assert first.cut == "the next stream began on line 2 before it finished"
    assert first.extracted.calls == []


# -- Anthropic Messages --------------------------------------------------------------------


def test_anthropic_tool_use_blocks_are_assembled_from_partial_json() -> None:
    fed = Fed(lines_of("anthropic_tools"))
    assert fed.errors == {} and fed.began == [1] and list(fed.finished) == [15]
    stream = fed.only()
    assert stream.extracted.format == "anthropic-stream"
    assert stream.extracted.model == "claude-sonnet-4-5"
    assert calls_of(stream) == [
        (0, "toolu_s1", "get_weather", '{"city": "San Francisco", "days": 2}'),
        # Only "" deltas: the block's start input, {}, as JSON text.
        (1, "toolu_s2", "list_cities", "{}"),
    ]
    assert all(c.encoding == JSON_STRING for c in stream.extracted.calls)


def test_wrapped_anthropic_streams_may_interleave() -> None:
    fed = Fed(lines_of("anthropic_wrapped"))
    assert fed.began == [1, 2]
    first, second = fed.streams()
    assert calls_of(first) == [(0, "toolu_w1", "get_weather", '{"city": "Lagos"}')]
    assert calls_of(second) == [(0, "toolu_w2", "get_weather", '{"city": true}')]
    assert first.extracted.model == "claude-haiku-4-5"


def test_an_anthropic_message_cut_by_max_tokens_says_so() -> None:
    [call] = Fed(lines_of("anthropic_max_tokens")).only().extracted.calls
    assert call.arguments == '{"city": "Mum'
    assert call.note == CUT_OFF.format('stop_reason "max_tokens"')


def test_an_error_event_cuts_its_stream() -> None:
    fed = Fed(lines_of("anthropic_error"))
    stream = fed.finished[4][0]
    assert stream.cut == "Anthropic reported an error: overloaded_error: Overloaded"
    assert stream.extracted.calls[0].arguments == '{"city": "Delhi"'


def test_an_event_of_a_stream_that_never_started_is_an_error() -> None:
    fed = Fed(lines_of("anthropic_orphan"))
    assert fed.errors == {
        1: "a content_block_start of an Anthropic stream, which never started "
        "(no message_start before it)"
    }
    assert fed.cut == []


def test_a_message_start_cuts_the_stream_left_open() -> None:
    unfinished = lines_of("anthropic_max_tokens")[:3]
    fed = Fed([*unfinished, *lines_of("anthropic_tools")])
    [cut] = fed.finished[4]
    assert (cut.line, cut.cut) == (1, "the next stream began on line 4 before it finished")
    assert [stream.line for stream in fed.streams()] == [1, 4]


def test_a_ping_of_no_open_stream_is_alone() -> None:
    fed = Fed([{"type": "ping"}])
    assert fed.errors == {} and fed.began == [] and fed.cut == []


# -- Bedrock ConverseStream ------------------------------------------------------------------


def test_bedrock_tool_use_is_assembled_and_its_metadata_trails() -> None:
    fed = Fed(lines_of("bedrock_tools"))
    assert fed.errors == {} and list(fed.finished) == [12] and fed.open_at_end == 0
    stream = fed.only()
    assert calls_of(stream) == [
        (0, "tooluse_b1", "get_weather", '{"city": "Seattle", "days": 5}'),
        (1, "tooluse_b2", "get_time", '{"timezone": "PST"}'),
    ]
    assert stream.extracted.model is None  # Bedrock's events name none


def test_bedrock_malformed_tool_use_is_the_providers_failure() -> None:
    [call] = Fed(lines_of("bedrock_malformed")).only().extracted.calls
    assert call.failure == 'Bedrock reports stopReason "malformed_tool_use"'


def test_wrapped_bedrock_streams_carry_the_wrappers_model() -> None:
    first, second = Fed(lines_of("bedrock_wrapped")).streams()
    assert (first.line, second.line) == (1, 2)
    assert first.extracted.model == "anthropic.claude-3-5-sonnet-20240620-v1:0"
    assert calls_of(second) == [(0, "tooluse_w2", "get_weather", '{"city": "Hanoi"}')]


def test_a_bedrock_stream_the_log_ends_in_is_cut() -> None:
    [stream] = Fed(lines_of("bedrock_cut")).cut
    assert stream.cut == LOG_ENDED
    assert stream.extracted.calls[0].arguments == '{"city": "Ro'


def test_a_call_without_arguments_has_none() -> None:
    start = lines_of("bedrock_tools")[3:4]  # a toolUse start, then its stop: no input
    records = [lines_of("bedrock_tools")[0], *start, {"contentBlockStop": {"contentBlockIndex": 1}}]
    [stream] = Fed(records).cut
    assert stream.extracted.calls[0].arguments is ABSENT


# -- reading the records -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "says"),
    [
        (
            {"object": "chat.completion.chunk", "choices": [{"index": "0", "delta": {}}]},
            "choice index",
        ),
        (
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": -1}]}}]},
            "tool call index",
        ),
        (
            {"type": "content_block_delta", "index": None, "delta": {"type": "input_json_delta"}},
            "index",
        ),
        ({"type": "response.function_call_arguments.delta", "delta": "x"}, "output_index"),
        (
            {"contentBlockDelta": {"delta": {"toolUse": {}}, "contentBlockIndex": True}},
            "contentBlockIndex",
        ),
        ({"stream_id": [1], "event": {"type": "ping"}}, "stream_id"),
    ],
)
def test_a_step_that_cannot_be_placed_is_of_no_known_shape(
    record: dict[str, Any], says: str
) -> None:
    with pytest.raises(UnknownShape, match=says):
        extract(record)


@pytest.mark.parametrize(
    "name", ["openai-chat-stream", "openai-responses-stream", "anthropic-stream", "bedrock-stream"]
)
def test_a_forced_stream_format_refuses_other_records(name: str) -> None:
    with pytest.raises(UnknownShape):
        extract({"type": "message", "content": []}, name)


def test_feed_takes_stream_steps_only() -> None:
    with pytest.raises(TypeError):
        StreamAssembler().feed(extract({"name": "x", "arguments": {}}), 1, None)
