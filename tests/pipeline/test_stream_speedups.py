"""The C speedups of the typed stream reader (``formats/_stream_speedups.c``) place the
commonest lines as the reader's Python does: the streams they leave, the lines they
count and where an interruption stops are the same (rows and summaries are compared
both ways by every test of test_typed_streams.py, through its ``speedups`` fixture)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from toolaudit.formats import stream_speedups
from toolaudit.formats.typed_streams import typed_stream_shapes
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.sources import Source

from ..conftest import WEATHER_SCHEMAS
from .test_typed_streams import (
    assert_same_either_way,
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


def placed_in_c(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[int, Any]:
    """(the lines the C placers placed, the summary) of a typed audit of ``data``."""
    counts = [0]
    original = stream_speedups.placer

    def counting(format: str, most: int) -> Any:
        place = original(format, most)
        assert place is not None

        def counted(lines: Any, decode: Any, opened: Any, progress: list[int]) -> Any:
            before = progress[1]
            record = place(lines, decode, opened, progress)
            counts[0] += progress[1] - before
            return record

        return counted

    monkeypatch.setattr(stream_speedups, "SPEEDUPS", SPEEDUPS)
    monkeypatch.setattr(stream_speedups, "placer", counting)
    run = Audit([Source("-")], WEATHER_SCHEMAS, AuditOptions(), stdin=io.BytesIO(data))
    summary = run.run(io.BytesIO())
    return counts[0], summary


@pytest.mark.parametrize(
    ("data", "placed"),
    # The first line of a format is the general path's; so, in the chat log, is the
    # second (the typed path takes over from the third line on).
    [(CHAT_LOG, 5), (ANTHROPIC_LOG, 6)],
    ids=["openai-chat-stream", "anthropic-stream"],
)
def test_the_placers_place_the_commonest_lines(
    data: bytes, placed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert placed_in_c(data, monkeypatch)[0] == placed
    assert_same_either_way(data, WEATHER_SCHEMAS)


def test_a_message_delta_that_notes_is_left_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    cut_off = ANTHROPIC_LOG.replace(b'"tool_use"}', b'"max_tokens"}')
    assert placed_in_c(cut_off, monkeypatch)[0] == 5
    assert_same_either_way(cut_off, WEATHER_SCHEMAS)


@pytest.mark.parametrize(
    ("start_input", "placed"),
    [(b'"input":{}', 6), (b'"input":{"city":"Oslo"}', 5), (b'"input":null', 5), (b"", 6)],
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
        assert placed_in_c(data, monkeypatch)[0] == 6
        assert_same_either_way(data, WEATHER_SCHEMAS)


def test_the_comparison_catches_a_wrong_placer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A placer that appends another text than its line's is caught."""
    original = stream_speedups.placer

    def altering(format: str, most: int) -> Any:
        place = original(format, most)
        assert place is not None

        def altered_placer(lines: Any, decode: Any, opened: Any, progress: list[int]) -> Any:
            # (what it appends for "Oslo"} is 5})
            altered = [line.replace(b'\\"Oslo\\"}', b"5}") for line in lines]
            return place(altered, decode, opened, progress)

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
    with pytest.raises(TypeError):
        SPEEDUPS.chat("openai-chat-stream", 100, (), None, {}, [0, 0])
    with pytest.raises(TypeError):
        SPEEDUPS.chat("openai-chat-stream", 100, [], None, {})
