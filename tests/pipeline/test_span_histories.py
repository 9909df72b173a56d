"""An OpenTelemetry span's input messages, held as JSON text in their attribute, are
checked straight from that text where the C speedups are sure (``otel_json``), without
the objects parsing it would make: the audit's rows and summary are those of the text
parsed and checked, byte for byte, on spans of every fault, every way of writing them,
and text that is no history at all."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import orjson
import pytest

from toolaudit.history import fast, fast_loop
from toolaudit.pipeline import general_reader
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.sources import Source

from ..history.shapes import OTEL, build
from ..history.test_pairing import ASK, FAULTS, W
from ..history.test_speedups_json import Writer

speedups = pytest.importorskip(
    "toolaudit.history._speedups", reason="the C speedups were not built (no C compiler)"
)


@pytest.fixture(autouse=True)
def _speedups_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The text reader on, TOOLAUDIT_PURE_PYTHON or not (set so, the parsed history is
    checked in pure Python: the text reader is held to it)."""
    monkeypatch.setattr(fast_loop, "SPEEDUPS", speedups)


PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = orjson.dumps([{"type": "function", "name": W, "parameters": PARAMETERS}]).decode()
OPTIONS: list[dict[str, Any]] = [{}, {"group_by": ("model",)}, {"errors_only": True}]


def span(messages: object, model: str = "m", *, text: bool = True) -> bytes:
    """A chat span as SDKs dump it, its input messages as JSON text (or, not ``text``, as
    an array), its output one call."""
    call = {"type": "tool_call", "id": "out", "name": W, "arguments": {"city": "Oslo"}}
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.tool.definitions": TOOLS,
        "gen_ai.input.messages": messages
        if not text or isinstance(messages, str)
        else orjson.dumps(messages).decode(),
        "gen_ai.output.messages": [{"role": "assistant", "parts": [call]}],
    }
    return orjson.dumps({"name": f"chat {model}", "attributes": attributes})


def audited(data: bytes, *, from_text: bool, report: bool, **options: Any) -> tuple[bytes, Any]:
    """The audit of ``data`` (its report when ``report``: the problems worded), the
    histories read from their text or (not ``from_text``) parsed first."""
    saved = general_reader.checked_from_str
    if not from_text:
        general_reader.checked_from_str = lambda *args, **kwargs: None
    try:
        run = Audit([Source("-")], options=AuditOptions(**options), stdin=io.BytesIO(data))
        out = io.BytesIO() if report else None
        summary = run.run(out)
    finally:
        general_reader.checked_from_str = saved
    return (out.getvalue() if out is not None else b""), summary.to_dict()


class Reads:
    """How many histories were answered from their text (neither None nor refused)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.answered = 0
        reader = fast.checked_from_str

        def counted(*args: Any, **kwargs: Any) -> object:
            found = reader(*args, **kwargs)
            self.answered += found is not None
            return found

        monkeypatch.setattr(general_reader, "checked_from_str", counted)


def assert_same_either_way(data: bytes) -> None:
    for options in OPTIONS:
        for report in (True, False):
            from_text = audited(data, from_text=True, report=report, **options)
            parsed = audited(data, from_text=False, report=report, **options)
            assert from_text[0].decode().splitlines() == parsed[0].decode().splitlines()
            assert from_text == parsed


def failed(steps: list[Any]) -> list[Any]:
    """The steps with each result's text a failure's."""
    return [
        (kind, [(i, n, True) for i, n, _ in held]) if kind == "results" else (kind, held)
        for kind, held in steps
    ]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_gives_the_rows_and_summary_of_the_parsed_history(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = FAULTS[fault][0]
    messages = build(OTEL, steps)
    lines = [span(messages), span(build(OTEL, failed(steps)), "n"), span(messages, text=False)]
    reads = Reads(monkeypatch)
    assert_same_either_way(b"\n".join(lines) + b"\n")
    if fault == "clean":  # the commonest history is read from its text
        assert reads.answered > 0


def test_every_writing_gives_the_rows_and_summary_of_the_parsed_history() -> None:
    lines = []
    for seed in range(60):
        fault = sorted(FAULTS)[seed % len(FAULTS)]
        messages = build(OTEL, FAULTS[fault][0])
        writer = Writer(random.Random(seed), escapes=0.05 * (seed % 3), extras=0.1 * (seed % 4))
        lines.append(span(writer.value(messages), f"m{seed % 3}"))
    assert_same_either_way(b"\n".join(lines) + b"\n")


#: Input messages that are not a history the reader is sure of, as text.
ODD = [
    "not JSON at all",
    "",
    "{}",
    "[1, 2]",
    '[{"role": "user"}]',  # no parts: the full reading says so
    '[{"role": "user", "parts": "hello"}]',
    '[{"role": "user", "parts": {"type": "text"}}]',
    '[{"role": "tool", "parts": [{"type": "tool_call_response", "id": "x", "response": 1}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"},'
    ' {"type": "tool_call_response", "id": "a", "response": "ok"}]}]',  # its own call
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]},'
    ' {"parts": [{"type": "tool_call_response", "id": "a", "result": {"error": "boom"}}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]},'
    ' {"parts": [{"type": "tool_call_response", "id": "a", "response": null,'
    ' "result": "Error: boom"}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]},'
    ' {"parts": [{"type": "tool_call_response", "id": "a", "response": "Error: boom"}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]},'
    ' {"parts": [{"type": "tool_call_response", "id": "a", "response": "Error: boom",'
    ' "result": "fine"}]}]',  # the response read, not the result
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]},'
    ' {"parts": [{"type": "tool_call_response", "id": "a", "response": {"error": "boom"}}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]},'
    ' {"parts": [{"type": "te\\u0078t", "id": "a", "content": "hi"}]}]',  # text, escaped
    '[{"parts": [{"type": "tool_call", "id": "a", "name": 3}]}]',
    '[{"parts": [{"type": "tool_call", "id": 7, "name": "w"}]}]',
    '[{"parts": [{"type": "tool\\u005fcall", "id": "a", "name": "w"}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}, '
    '{"type": "tool_call", "id": "a", "name": "w"}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w", "arguments": {"n": 1e400}}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w", "arguments": {"n": 1e999}}]}]',
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w",'
    ' "arguments": {"n": 123456789012345678901234567890}}]}]',
    '[{"parts": [{"type": "text", "content": "\\ud800"}]}]',  # a lone surrogate, escaped
    '[{"parts": [{"type": "text", "content": "\ud800"}]}]',  # and raw in the str
    '[{"parts": [{"type": "tool_call", "id": "a", "name": "w"}]}] trailing',
    '[{"parts": [], "parts": [{"type": "tool_call", "id": "a", "name": "w"}]}]',
    " \n[]\t",
]


def compact(text: str) -> str:
    """``text`` written with no space, as orjson and JSON.stringify write (the writing the
    reader reads in one pass), where it is JSON."""
    try:
        return orjson.dumps(orjson.loads(text)).decode()
    except orjson.JSONDecodeError:
        return text.replace(": ", ":").replace(", ", ",")


@pytest.mark.parametrize("text", ODD + [compact(text) for text in ODD], ids=repr)
def test_text_that_is_no_plain_history_gives_the_rows_of_the_parsed_text(text: str) -> None:
    try:
        line = span(text)
    except orjson.JSONEncodeError:  # a lone surrogate: as the standard library writes it
        line = json.dumps(
            {
                "name": "chat",
                "attributes": orjson.loads(span("x"))["attributes"]
                | {"gen_ai.input.messages": text},
            }
        ).encode()
    assert_same_either_way(line + b"\n")


def test_a_span_of_every_kind_of_call_answered_is_read_from_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps = [ASK, ("calls", [("c1", W), ("c2", W)]), ("results", [("c1", W, False)])]
    steps += [("results", [("c2", W, False)])]  # answered two messages later: any later one
    reads = Reads(monkeypatch)
    data = span(build(OTEL, steps)) + b"\n"
    assert_same_either_way(data)
    assert reads.answered > 0


def test_without_the_speedups_the_text_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_loop, "SPEEDUPS", None)
    assert fast.checked_from_str("[]", "otel", "m") is None
    data = span(build(OTEL, FAULTS["unanswered"][0])) + b"\n"
    _, summary = audited(data, from_text=True, report=False)
    assert summary["conversations"]["problems"] == {"pairing:unanswered": 1}


def test_an_agents_spans_are_read_on_from_the_history_of_its_last_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An agent's chat spans, a turn each, of three sessions interleaved: each span carries
    # its session's whole history so far (some of them faulty), read on from its last one.
    caches: list[object] = []

    def kept_cache() -> object:
        caches.append(speedups.history_prefixes())
        return caches[-1]

    monkeypatch.setattr(general_reader, "history_prefixes", kept_cache)
    rng = random.Random(7)
    sessions: list[list[Any]] = [[ASK] for _ in range(3)]
    lines = []
    for turn in range(60):
        steps = sessions[turn % 3]
        call_id = f"s{turn % 3}_{turn}"
        steps.append(("calls", [(call_id, W)]))
        answered = rng.random() > 0.05  # now and then a call left unanswered for good
        steps.append(("results", [(call_id, W, rng.random() < 0.05)] if answered else []))
        lines.append(span(build(OTEL, steps), f"m{turn % 3}"))
    assert_same_either_way(b"\n".join(lines) + b"\n")
    resumed = sum(speedups.prefixes_held(cache)[2] for cache in caches)
    assert resumed > 0
