"""A number below 1e-10000 (``1e-10001``, ``0.0001e-9998``, ``1e-99999``) is refused with
its reason on every line, as docs/guarantees.md promises: in a stream's chunk and in a
request logged alone too, which the general path once read by orjson alone, the number
as 0.0 and the line counted (the typed path leaving such lines to it, both agreed).

Each streamed format (OpenAI Chat and Responses, Anthropic, Bedrock, and Gemini's chunks,
which are whole responses) and each request shape logged alone: the number elsewhere in a
line makes it ``malformed:json`` with the exact parse's reason, at its line; in a call's
arguments (a stream's fragments, a request's history with --history) the call is
``malformed:arguments`` (an object's number is in the line: ``malformed:json``). At the
limit, ``1e-10000`` is read exactly. The typed path and the general path give the same
bytes, as do both with the C speedups off (the suite's second run). A refused chunk is a
bad chunk: the log reads as with that line broken, its detail apart."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.results.summary import Summary
from toolaudit.schemas import load_schemas
from toolaudit.sources import Source

from ..conftest import REPO, assert_counts_add_up

CASES = REPO / "tests" / "cases" / "formats"

STREAMS = ["openai-chat-stream", "openai-responses-stream", "anthropic-stream", "bedrock-stream"]
REQUESTS = [
    "openai-chat-request",
    "openai-responses-request",
    "anthropic-request",
    "gemini-request",
    "bedrock-request",
]
#: Numbers below 1e-10000 once their mantissa's digits count.
BELOW = ["1e-10001", "0.0001e-9998", "1e-99999", "-1E-10001"]


def reason(number: str) -> str:
    """The exact parse's reason for a number past what it reads, as elsewhere."""
    return f"the number {number} is beyond 1e±10000, the range read exactly"


def gemini_stream() -> list[bytes]:
    """A Gemini response as streamGenerateContent sends it: whole responses a line, a text
    chunk, the call's chunk, a usage chunk."""

    def chunk(parts: list[dict[str, Any]], **more: Any) -> bytes:
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0, **more}
        return orjson.dumps({"candidates": [candidate], "modelVersion": "gemini-2.5-flash"})

    call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    return [
        chunk([{"text": "Let me look."}]),
        chunk([call], finishReason="STOP"),
        chunk([{"text": ""}], finishReason="STOP"),
    ]


def lines_of(case: str) -> list[bytes]:
    if case == "gemini-stream":
        return gemini_stream()
    return (CASES / case / "input.jsonl").read_bytes().splitlines()


def schemas_path(case: str) -> str:
    folder = CASES / ("gemini" if case == "gemini-stream" else case)
    [schemas] = sorted(folder.glob("schemas.json*"))
    return str(schemas)


def audited(
    case: str, lines: list[bytes], *, typed: bool, **options: Any
) -> tuple[list[dict[str, Any]], Summary, bytes]:
    """The report's rows, the summary and its bytes of a log read from stdin."""
    run = Audit(
        [Source("-")],
        load_schemas(schemas_path(case)),
        AuditOptions(**options),
        stdin=io.BytesIO(b"\n".join(lines) + b"\n"),
    )
    run.typed_fast_path = typed
    report = io.BytesIO()
    summary = run.run(report)
    rows = [orjson.loads(row) for row in report.getvalue().splitlines()]
    return rows, summary, orjson.dumps(summary.to_dict())


def either_way(
    case: str, lines: list[bytes], **options: Any
) -> tuple[list[dict[str, Any]], Summary]:
    """The general path's rows and summary, the typed path's being the same bytes."""
    general = audited(case, lines, typed=False, **options)
    typed = audited(case, lines, typed=True, **options)
    assert (typed[0], typed[2]) == (general[0], general[2])
    assert_counts_add_up(general[1])
    return general[0], general[1]


def with_key(line: bytes, number: str) -> bytes:
    """``line`` (a JSON object) with a key no shape reads, holding ``number``."""
    return line.rstrip()[:-1] + b',"x":' + number.encode() + b"}"


def refused_rows(rows: list[dict[str, Any]], error: str) -> list[dict[str, Any]]:
    return [row for row in rows if row["errors"] == [error]]


STREAM_CASES = [*STREAMS, "gemini-stream"]


@pytest.mark.parametrize("number", BELOW)
@pytest.mark.parametrize("case", STREAM_CASES)
def test_a_chunk_holding_a_number_below_the_range_is_refused(case: str, number: str) -> None:
    lines = lines_of(case)
    for at in sorted({0, 1, len(lines) // 2, len(lines) - 1}):
        changed = list(lines)
        changed[at] = with_key(lines[at], number)
        rows, summary = either_way(case, changed)
        [refused] = refused_rows(rows, "malformed:json")
        assert (refused["line"], refused["detail"]) == (at + 1, f"not audited: {reason(number)}")
        assert summary.record_errors["malformed:json"] == 1
        assert summary.records == len(lines)


@pytest.mark.parametrize("number", BELOW[:2])
@pytest.mark.parametrize("case", REQUESTS)
def test_a_request_logged_alone_holding_a_number_below_the_range_is_refused(
    case: str, number: str
) -> None:
    # Among copies of itself, so that the typed path reads the lines around it.
    line = lines_of(case)[0]
    lines = [line] * 5 + [with_key(line, number)] + [line] * 3
    for options in ({}, {"conversations": True}, {"history": True}):
        rows, summary = either_way(case, lines, **options)
        [refused] = refused_rows(rows, "malformed:json")
        assert (refused["line"], refused["detail"]) == (6, f"not audited: {reason(number)}")
        assert summary.record_errors["malformed:json"] == 1
        assert summary.records_without_calls == 8


#: Where a request's history holds its call's arguments, and what puts ``"days": <n>``
#: first in them: as JSON text (a string in the line, judged with --history) or as an
#: object (its numbers the line's).
HISTORY_ARGUMENTS = {
    "openai-chat-request": (b'"arguments":"{\\"city', b'"arguments":"{\\"days\\": <n>, \\"city'),
    "openai-responses-request": (
        b'"arguments":"{\\"city',
        b'"arguments":"{\\"days\\": <n>, \\"city',
    ),
    "anthropic-request": (b'"input":{"city', b'"input":{"days":<n>,"city'),
    "gemini-request": (b'"args":{"city', b'"args":{"days":<n>,"city'),
    "bedrock-request": (b'"input":{"city', b'"input":{"days":<n>,"city'),
}


def in_history_arguments(case: str, line: bytes, number: str) -> bytes:
    """``line`` with ``"days": number`` first in its history call's arguments."""
    opening, replacement = HISTORY_ARGUMENTS[case]
    assert opening in line
    return line.replace(opening, replacement.replace(b"<n>", number.encode()), 1)


@pytest.mark.parametrize("case", REQUESTS)
def test_a_number_below_the_range_in_a_history_call_is_refused(case: str) -> None:
    line = lines_of(case)[0]
    changed = in_history_arguments(case, line, "1e-10001")
    lines = [line] * 5 + [changed] + [line] * 3
    rows, summary = either_way(case, lines, history=True)
    if b"arguments" in HISTORY_ARGUMENTS[case][0]:
        [refused] = refused_rows(rows, "malformed:arguments")
        assert refused["detail"] == f"arguments are not valid JSON: {reason('1e-10001')}"
        assert "malformed:json" not in summary.record_errors
    else:
        [refused] = refused_rows(rows, "malformed:json")
        assert refused["detail"] == f"not audited: {reason('1e-10001')}"
    assert refused["line"] == 6


@pytest.mark.parametrize("case", REQUESTS)
def test_at_the_limit_a_history_call_is_judged_on_the_exact_number(case: str) -> None:
    # 1e-10000 is read, exactly: not an integer (as 0.0 it was one, and the call passed).
    line = lines_of(case)[0]
    lines = [line] * 5 + [in_history_arguments(case, line, "1e-10000")] + [line] * 3
    rows, _ = either_way(case, lines, history=True)
    [failed] = [row for row in rows if row["errors"] == ["type:days"]]
    assert failed["why"] == {"type:days": "expected integer, got number 1E-10000"}
    assert not refused_rows(rows, "malformed:json")


def split_in_arguments(lines: list[bytes], number: str, cut: int) -> list[bytes]:
    """The stream with ``"days": number`` put first in its first call's arguments, the
    number cut after ``cut`` characters across two fragments (two lines): neither line
    holds it whole."""
    at, found = next(
        (at, found)
        for at, line in enumerate(lines)
        if (found := re.search(rb'":"(\{\\".*?[^\\])"', line)) is not None
    )
    line, fragment = lines[at], found.group(1)
    head, tail = line[: found.start(1)], line[found.end(1) :]
    first = head + b'{\\"days\\": ' + number[:cut].encode() + tail
    second = head + number[cut:].encode() + b', \\"' + fragment[3:] + tail
    return [*lines[:at], first, second, *lines[at + 1 :]]


#: The streams whose first fragment (above) is of a call judged as assembled from them
#: (a Responses stream's .done event repeats its call whole, and replaces them).
ASSEMBLED = ["openai-chat-stream", "anthropic-stream", "bedrock-stream"]


@pytest.mark.parametrize("cut", [2, 4])
@pytest.mark.parametrize("number", [*BELOW[:3], "1e10001", "100e9999"])
@pytest.mark.parametrize("case", ASSEMBLED)
def test_a_number_past_the_range_in_a_stream_call_is_refused(
    case: str, number: str, cut: int
) -> None:
    rows, summary = either_way(case, split_in_arguments(lines_of(case), number, cut))
    [refused] = [row for row in rows if reason(number) in (row.get("detail") or "")]
    assert refused["errors"] == ["malformed:arguments"]
    assert refused["detail"] == f"arguments are not valid JSON: {reason(number)}"
    assert "malformed:json" not in summary.record_errors


@pytest.mark.parametrize("case", ASSEMBLED)
def test_at_the_limit_a_stream_call_is_judged_on_the_exact_number(case: str) -> None:
    rows, _ = either_way(case, split_in_arguments(lines_of(case), "1e-10000", 3))
    assert not any("beyond" in (row.get("detail") or "") for row in rows)
    if case == "openai-chat-stream":  # (the others' first call gives "days" again, after)
        # Read exactly: not an integer (as 0.0 it was one, and the call passed).
        why = {"type:days": "expected integer, got number 1E-10000"}
        [failed] = [row for row in rows if row.get("why") == why]
        assert (failed["line"], failed["errors"]) == (1, ["type:days"])


@pytest.mark.parametrize("number", ["1e-10000", "1e-400", "1e400", "18446744073709551616"])
@pytest.mark.parametrize("case", [*STREAM_CASES, *REQUESTS])
def test_a_number_read_exactly_elsewhere_changes_nothing(case: str, number: str) -> None:
    # Read exactly (an ExactNumber, an integer past 64 bits) in a field no shape reads:
    # the stream assembled, the history checked, the rows and counts as without it.
    lines = lines_of(case)
    if case in REQUESTS:
        lines = [lines[0]] * 3
    changed = [with_key(line, number) for line in lines]
    for options in ({}, {"history": True}):
        rows, summary = either_way(case, changed, **options)
        plain_rows, plain = either_way(case, lines, **options)
        assert (rows, summary.to_dict()) == (plain_rows, plain.to_dict())


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("case", STREAM_CASES)
def test_a_refused_chunk_is_a_bad_chunk(case: str, grouped: bool) -> None:
    # The stream goes on without it (docs/formats.md, "Lines that do not fit"): whichever
    # chunk it is, the log reads as with that line broken JSON, but for its reason; with
    # --group-by, it counts where a broken line counts.
    options = {"group_by": "model"} if grouped else {}
    lines = lines_of(case)
    for at in range(len(lines)):
        refused = [*lines[:at], with_key(lines[at], "1e-10001"), *lines[at + 1 :]]
        broken = [*lines[:at], with_key(lines[at], ""), *lines[at + 1 :]]
        seen = [_without_reason(part, at + 1) for part in either_way(case, refused, **options)]
        made = audited(case, broken, typed=False, **options)[:2]
        assert seen == [_without_reason(part, at + 1) for part in made], at + 1


def _without_reason(found: Any, line: int) -> Any:
    """Rows or a summary with the reasons of ``line``'s malformed:json row taken out."""
    if isinstance(found, Summary):
        found = found.to_dict()
    if isinstance(found, list):
        return [_without_reason(item, line) for item in found]
    if isinstance(found, dict):
        if found.get("line") == line and found.get("errors") == ["malformed:json"]:
            return {k: v for k, v in found.items() if k not in ("detail", "why")}
        return {key: _without_reason(value, line) for key, value in found.items()}
    return found


def test_the_cases_hold_what_the_tests_change() -> None:
    # Each stream's first fragment of arguments opens an object, and its call is judged
    # on the assembled text: else the split tests above would test nothing.
    for case in ASSEMBLED:
        split = split_in_arguments(lines_of(case), "1e-10001", 2)
        assert not any(b"1e-10001" in line for line in split)
        assert any(b'\\"days\\": 1e' in line for line in split)
    assert Path(schemas_path("gemini-stream")).exists()


def one_call_streams(fragments: list[str], streams: int = 6) -> list[bytes]:
    """OpenAI chat streams of one call each, to a tool whose ``x`` is any number (a typed
    decoder takes 0.0 for it), its arguments in ``fragments``: the typed path reads the
    streams after the first whole."""

    def chunk(n: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return orjson.dumps(
            {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "choices": [choice]}
        )

    opening = {"index": 0, "id": "call", "function": {"name": "measure", "arguments": ""}}
    lines = []
    for n in range(streams):
        lines.append(chunk(n, {"tool_calls": [opening]}))
        for fragment in fragments if n == streams - 1 else ['{"x": 1.5}']:
            lines.append(
                chunk(n, {"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]})
            )
        lines.append(chunk(n, {}, "tool_calls"))
    return lines


@pytest.mark.parametrize("number", ["1e-10001", "1e-400", "1e10001", "100e9999", "1e400"])
def test_a_stream_of_one_call_holding_a_number_beyond_a_double_is_judged_exactly(
    number: str, tmp_path: Path
) -> None:
    # A typed decoder reads a tiny number as 0.0 and takes it (here in C, where the
    # speedups decide a stream of one call): the call is the general path's to judge,
    # refused past 1e±10000; read exactly within it (1e-400 is no 0, and passes).
    schemas = tmp_path / "schemas.json"
    schemas.write_bytes(
        orjson.dumps(
            {
                "measure": {
                    "parameters": {
                        "type": "object",
                        "properties": {"x": {"type": "number", "not": {"const": 0}}},
                    }
                }
            }
        )
    )
    lines = one_call_streams(['{"x": ' + number[:3], number[3:] + "}"])
    found = []
    for typed in (False, True):
        run = Audit(
            [Source("-")],
            load_schemas(str(schemas)),
            AuditOptions(),
            stdin=io.BytesIO(b"\n".join(lines) + b"\n"),
        )
        run.typed_fast_path = typed
        report = io.BytesIO()
        summary = run.run(report)
        found.append((report.getvalue(), orjson.dumps(summary.to_dict())))
    assert found[0] == found[1]
    [last] = [orjson.loads(row) for row in found[0][0].splitlines()][-1:]
    if number in ("1e-10001", "1e10001", "100e9999"):
        assert last["detail"] == f"arguments are not valid JSON: {reason(number)}"
    else:
        assert last["ok"] is True
