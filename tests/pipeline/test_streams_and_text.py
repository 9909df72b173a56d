"""The audit of streamed responses and of calls found in text: where their rows go,
what the summary counts, and that the counts still add up."""

from __future__ import annotations

import io

import orjson
import pytest

from toolaudit.errors import OptionError
from toolaudit.output.markdown import render_markdown
from toolaudit.output.table import render_table
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.results.merging import merge_summaries
from toolaudit.results.summary import Summary
from toolaudit.sources import Source

from ..conftest import WEATHER_SCHEMAS, assert_counts_add_up


def audit_bytes(data: bytes, **options: object) -> tuple[list[dict], Summary]:
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(**options), stdin=io.BytesIO(data))
    rows = list(run)
    assert run.summary is not None
    assert_counts_add_up(run.summary)
    return rows, run.summary


def chunk(stream: str, tool_call: dict | None = None, finish: str | None = None, **extra) -> bytes:
    """One OpenAI chat.completion.chunk line."""
    delta = {"tool_calls": [{"index": 0, **tool_call}]} if tool_call else {}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    record = {
        "id": stream,
        "object": "chat.completion.chunk",
        "model": "gpt-4o",
        "choices": [choice],
        **extra,
    }
    return orjson.dumps(record)


def opening(stream: str, call_id: str, arguments: str = "") -> bytes:
    function = {"name": "get_weather", "arguments": arguments}
    return chunk(stream, {"id": call_id, "type": "function", "function": function})


def more(stream: str, arguments: str) -> bytes:
    return chunk(stream, {"function": {"arguments": arguments}})


def end(stream: str) -> bytes:
    return chunk(stream, finish="tool_calls")


def lines(*items: bytes) -> bytes:
    return b"\n".join(items) + b"\n"


def test_interleaved_streams_give_one_row_each_on_the_line_their_stream_began():
    rows, summary = audit_bytes(
        lines(
            opening("a", "call_a"),
            opening("b", "call_b", '{"city": '),
            more("a", '{"city": "Paris"}'),
            more("b", "5}"),
            end("b"),
            end("a"),
        )
    )
    assert [(r["line"], r["index"], r["id"], r["errors"]) for r in rows] == [
        (2, 0, "call_b", ["type:city"]),  # its stream ended first
        (1, 0, "call_a", []),
    ]
    assert (summary.streams, summary.streams_incomplete) == (2, 0)
    # Six records: the two that began a stream hold its calls, the other four none.
    assert (summary.records, summary.records_without_calls, summary.calls) == (6, 4, 2)


def test_a_stream_cut_by_the_end_of_the_log_still_gives_its_calls_saying_so():
    rows, summary = audit_bytes(lines(opening("a", "call_a", '{"city": "Pa')))
    [row] = rows
    assert row["errors"] == ["malformed:arguments"]
    assert "the stream was cut" in row["detail"]
    assert (summary.streams, summary.streams_incomplete) == (1, 1)


def test_streams_past_the_open_limit_are_judged_as_cut_oldest_first():
    rows, summary = audit_bytes(
        lines(
            opening("a", "call_a", '{"city": "Paris"}'),
            opening("b", "call_b", '{"city": "Rome"}'),  # pushes a out
            end("b"),
        ),
        max_open_streams=1,
    )
    assert [(r["id"], r["ok"]) for r in rows] == [("call_a", True), ("call_b", True)]
    assert "max-open-streams" in rows[0]["detail"]
    assert "detail" not in rows[1]
    assert (summary.streams, summary.streams_incomplete) == (2, 1)


def test_a_delta_of_a_stream_never_started_is_a_located_malformed_record():
    rows, summary = audit_bytes(lines(more("ghost", '{"city": "Paris"}')))
    [row] = rows
    assert (row["line"], row["index"], row["errors"]) == (1, None, ["malformed:record"])
    assert "ghost" in row["detail"]
    assert summary.streams == 0


def test_server_sent_event_framing_is_counted_as_blank_and_data_lines_audited():
    data = lines(
        b"event: chunk",
        b"id: 7",
        b"retry: 1000",
        b": a comment",
        b"data: " + opening("a", "call_a", '{"city": "Paris"}'),
        b"",
        b"data:" + end("a"),
        b"data: [DONE]",
        b"data: {not json",
    )
    rows, summary = audit_bytes(data)
    assert [(r["line"], r["errors"]) for r in rows] == [(5, []), (9, ["malformed:json"])]
    assert (summary.lines, summary.blank_lines, summary.records) == (9, 6, 3)
    assert "column 2" in rows[1]["detail"]  # of the data, after "data: "


def test_a_long_integer_in_assembled_arguments_is_judged_exactly():
    # 2**64 read as a float would be a type error for an integer parameter.
    rows, _ = audit_bytes(
        lines(opening("a", "c", '{"city": "Oslo", "days": 18446744073709551616}'), end("a"))
    )
    assert rows[0]["errors"] == []


def test_group_by_counts_a_stream_in_the_group_of_its_first_record():
    data = lines(
        opening("a", "call_a", '{"city": 1}'),
        end("a"),
    )
    _, summary = audit_bytes(data, group_by=("model",))
    assert list(summary.groups) == ["gpt-4o"]
    group = summary.groups["gpt-4o"]
    assert (group.streams, group.records, group.records_without_calls, group.invalid) == (
        1,
        2,
        1,
        1,
    )
    assert summary.streams == 1


def test_group_by_counts_every_record_of_a_stream_in_the_group_of_its_first():
    """Anthropic names the model in message_start only: the chunks after it counted in
    the group of no model, which then held records and no calls."""
    starts = [
        {"type": "message_start", "message": {"id": f"msg_{m}", "type": "message",
            "role": "assistant", "model": m, "content": [], "stop_reason": None}}
        for m in ("claude-a", "claude-b")
    ]  # fmt: skip
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}

    def rest(index: int) -> list[dict]:
        delta = {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'}
        return [
            {"type": "content_block_start", "index": index, "content_block": block},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
            {"type": "message_stop"},
        ]

    records = [starts[0], *rest(0), {"type": "ping"}, starts[1], *rest(0)]
    _, summary = audit_bytes(
        b"".join(orjson.dumps(r) + b"\n" for r in records), group_by=("model",)
    )
    assert {key: (g.records, g.calls) for key, g in summary.groups.items()} == {
        "claude-a": (6, 1),
        "claude-b": (6, 1),
        "null": (1, 0),  # the ping, of no stream
    }


def test_the_open_limit_is_checked_when_the_options_are_made():
    with pytest.raises(OptionError, match="max_open_streams"):
        AuditOptions(max_open_streams=0)


def chat_with_text(text: str) -> bytes:
    message = {"role": "assistant", "content": text}
    record = {
        "object": "chat.completion",
        "model": "qwen",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    return orjson.dumps(record)


def test_a_call_found_in_text_fails_with_malformed_text_and_is_counted():
    good = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    bad = '<tool_call>{"name": "get_weather", "arguments": {"city": 3}}</tool_call>'
    rows, summary = audit_bytes(lines(chat_with_text(good), chat_with_text(bad)))
    assert [r["errors"] for r in rows] == [
        ["malformed:text"],
        ["malformed:text", "type:city"],
    ]
    assert rows[0]["detail"].startswith("found in the message text as Hermes <tool_call> markup")
    assert set(rows[1]["why"]) == {"malformed:text", "type:city"}
    assert summary.calls_in_text == 2
    assert summary.by_tool["get_weather"].calls_in_text == 2
    assert summary.invalid == 2


def test_markup_that_does_not_parse_is_one_nameless_call():
    rows, summary = audit_bytes(lines(chat_with_text("<tool_call>{not json</tool_call>")))
    [row] = rows
    assert (row["tool"], row["errors"]) == (None, ["malformed:text"])
    assert row["why"]["malformed:text"] == row["detail"]
    assert summary.calls_in_text == 1


def test_the_new_counts_round_trip_merge_and_show():
    _, streamed = audit_bytes(lines(opening("a", "c", '{"city": "Pa')))
    text = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    _, texted = audit_bytes(lines(chat_with_text(text)))
    for summary in (streamed, texted):
        assert Summary.from_dict(orjson.loads(orjson.dumps(summary.to_dict()))) == summary
    merged = merge_summaries([streamed, texted])
    assert (merged.streams, merged.streams_incomplete, merged.calls_in_text) == (1, 1, 1)
    table = render_table(merged)
    assert "1 streamed responses reassembled (1 cut)" in table
    assert "1 calls found in message text" in table
    assert "calls found in message text" in render_markdown(merged)


def test_a_summary_from_before_these_counts_reads_as_none():
    data = audit_bytes(lines(opening("a", "c", '{"city": "Paris"}'), end("a")))[1].to_dict()
    for key in ("streams", "streams_incomplete"):
        del data[key]
    for tool in data["by_tool"].values():
        del tool["calls_in_text"]
    old = Summary.from_dict(data)
    assert (old.streams, old.calls_in_text) == (0, 0)
