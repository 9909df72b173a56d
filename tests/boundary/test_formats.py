"""``check_response`` reads every provider shape the log-format registry knows.

Each line of each case in tests/cases/formats/ is given to ``check_response`` as
an agent would hold it (the line's bytes), and must give, call by call, what the
audit reported for that line in the case's expected.jsonl: the same ids, tools,
errors and reasons. A line the audit rejects as a whole (``malformed:record``)
raises ResponseError saying the same thing; a line the audit found no call in
gives none. A chunk of a streamed response, and a trace, are refused with
ResponseError: neither is a response an agent holds.

The tools are the ones the audit judged the line by (docs/schemas.md, "Tools
carried by the records"): the record's own, when it carries some (then
``tools=None``); a BFCL question's, looked up by the line's id; else the case's
schemas file. Lines the audit judged by an *earlier* line (an MCP ``tools/list``,
an OpenAI Batch input line) cannot be checked alone: they are skipped, each
with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

import toolaudit
from toolaudit.errors import NoSchemasError
from toolaudit.formats import UnknownShape, extract, get_format, is_format

CASES = Path(__file__).resolve().parents[1] / "cases" / "formats"
FOLDERS = sorted(path for path in CASES.iterdir() if path.is_dir())


@dataclass(frozen=True)
class Case:
    folder: Path
    #: The schemas file, read as JSON (or JSON lines -> a list).
    schemas: Any
    #: Each input line, as bytes, numbered from 1 as the report numbers them.
    lines: dict[int, bytes]
    #: The report rows, by line.
    rows: dict[int, list[dict[str, Any]]]

    @property
    def is_bfcl_questions(self) -> bool:
        return isinstance(self.schemas, list) and all(
            isinstance(question, Mapping) and "question" in question for question in self.schemas
        )


def load(folder: Path) -> Case:
    [schemas_file] = sorted(folder.glob("schemas.json*"))
    text = schemas_file.read_bytes()
    if schemas_file.suffix == ".jsonl":
        schemas: Any = [orjson.loads(line) for line in text.splitlines() if line.strip()]
    else:
        schemas = orjson.loads(text)
    lines = dict(enumerate((folder / "input.jsonl").read_bytes().splitlines(), start=1))
    rows: dict[int, list[dict[str, Any]]] = {}
    for line in (folder / "expected.jsonl").read_bytes().splitlines():
        row = orjson.loads(line)
        rows.setdefault(row["line"], []).append(row)
    return Case(folder, schemas, lines, rows)


CASE_OF = {folder.name: load(folder) for folder in FOLDERS}


def carried_tools(record: Mapping[str, Any]) -> bool:
    """Whether the record carries the tools that judge it (docs/schemas.md, item 1)."""

    def at(*path: str) -> Any:
        value: Any = record
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        return value

    return any(
        isinstance(tools, list) and tools
        for tools in (
            at("request", "tools"),
            at("request", "functions"),
            at("request", "toolConfig", "tools"),  # Bedrock
            at("extra", "invocation_params", "tools"),  # LangSmith
            at("inputs", "tools"),  # LangSmith, a run of a chat model called with tools
        )
    )


def judged_by_an_earlier_line(case: Case, number: int) -> str | None:
    """Why the audit's result for this line depends on an earlier line, if it does."""
    record = orjson.loads(case.lines[number])
    earlier = [(n, orjson.loads(case.lines[n])) for n in range(1, number)]
    if record.get("method") == "tools/call":
        listed = [
            n
            for n, before in earlier
            if isinstance(before.get("result"), Mapping) and "tools" in before["result"]
        ]
        if listed:
            where = ", ".join(map(str, listed))
            return f"an MCP tools/call judged by the tools/list results of lines {where}"
    if "response" in record and "custom_id" in record:
        for n, before in earlier:
            if before.get("custom_id") == record["custom_id"] and "body" in before:
                return (
                    f"a Batch output line judged by the tools of Batch input line {n} "
                    f"(custom_id {record['custom_id']!r})"
                )
    return None


def not_a_response(record: Mapping[str, Any]) -> str | None:
    """What check_response says of a line that is no response an agent holds, if it is
    none: one chunk of a stream, or a trace (the formats without a reply shape)."""
    try:
        extracted = extract(record)
    except UnknownShape:
        return None
    if extracted.stream is not None:
        return "one chunk of a streamed response"
    if is_format(extracted.format) and get_format(extracted.format).tool_result_messages is None:
        return "not a provider's response"
    return None


def tools_for(case: Case, record: Mapping[str, Any]) -> Any:
    """The tools the audit judged this record by."""
    if carried_tools(record):
        return None
    if case.is_bfcl_questions:
        # One schema set per question, keyed by the result's id; none for an unknown id.
        question = next((q for q in case.schemas if q["id"] == record.get("id")), None)
        return question["function"] if question is not None else {}
    return case.schemas


LINES = [
    pytest.param(case, number, id=f"{name}:{number}")
    for name, case in CASE_OF.items()
    for number in case.lines
]


@pytest.mark.parametrize(("case", "number"), LINES)
def test_a_line_gives_what_the_audit_reported(case: Case, number: int) -> None:
    reason = judged_by_an_earlier_line(case, number)
    if reason is not None:
        pytest.skip(f"depends on an earlier line: {reason}")
    line = case.lines[number]
    record = orjson.loads(line)
    refused = not_a_response(record)
    if refused is not None:
        with pytest.raises(toolaudit.ResponseError, match=refused):
            toolaudit.check_response(line, case.schemas)
        return
    tools = tools_for(case, record)
    rows = case.rows.get(number, [])

    if any(row["index"] is None for row in rows):
        # The audit rejected the record as a whole: check_response refuses it, saying why.
        [row] = rows
        assert row["errors"] == ["malformed:record"]
        with pytest.raises(toolaudit.ResponseError) as raised:
            toolaudit.check_response(line, tools)
        assert row["detail"] in str(raised.value)
        return

    results = toolaudit.check_response(line, tools)

    assert [row["index"] for row in rows] == list(range(len(rows)))
    assert [(r.id, r.tool, r.ok, r.errors, r.why) for r in results] == [
        (row["id"], row["tool"], row["ok"], row["errors"], row.get("why", {})) for row in rows
    ]
    for result in results:
        # Each call's format has a tool-result shape of its own (no silent fallback).
        assert get_format(result.format).reply_shape(record) == result.reply_shape
    if results and tools is not None:
        # The record carries no tools: without them, there is nothing to judge by.
        with pytest.raises(NoSchemasError, match="pass the tools the request sent"):
            toolaudit.check_response(line)


def answered(messages: list[dict[str, Any]]) -> int:
    """How many calls the tool-result messages answer, whatever their shape."""
    count = 0
    for message in messages:
        if isinstance(message.get("content"), list):  # Anthropic, Bedrock: one block each
            count += len(message["content"])
        elif "parts" in message:  # Gemini
            count += len(message["parts"])
        else:  # one message per call
            count += 1
    return count


def has_calls_of_its_own(case: Case, number: int) -> bool:
    """A line with calls the audit judged from that line alone."""
    # (A problem of the line's conversation is a row of its own, with no index.)
    rows = [row for row in case.rows.get(number, []) if "problem" not in row]
    return (
        bool(rows)
        and all(row["index"] is not None for row in rows)
        and judged_by_an_earlier_line(case, number) is None
        and not_a_response(orjson.loads(case.lines[number])) is None
    )


#: The lines the test above checks calls in (the others are skipped there, or refused).
LINES_WITH_CALLS = [
    pytest.param(case, number, id=f"{name}:{number}")
    for name, case in CASE_OF.items()
    for number in case.lines
    if has_calls_of_its_own(case, number)
]


@pytest.mark.parametrize(("case", "number"), LINES_WITH_CALLS)
def test_the_messages_answer_each_failing_call_once(case: Case, number: int) -> None:
    line = case.lines[number]
    results = toolaudit.check_response(line, tools_for(case, orjson.loads(line)))

    messages = toolaudit.tool_result_messages(results)

    failing = [r for r in results if not r.ok]
    assert answered(messages) == len(failing)
    text = orjson.dumps(messages).decode()
    for result in failing:
        assert "Error: " in text
        if result.tool is not None:
            assert f"`{result.tool}`" in text


def test_every_case_folder_has_lines_and_every_row_a_line() -> None:
    assert len(CASE_OF) >= 15
    for name, case in CASE_OF.items():
        assert case.lines, name
        assert set(case.rows) <= set(case.lines), name
        assert all(row["source"] == "input.jsonl" for rows in case.rows.values() for row in rows)


def test_only_lines_that_depend_on_earlier_ones_are_skipped() -> None:
    # The skips are few and known: MCP calls after a tools/list, a Batch output line
    # after its input line. Everything else is checked.
    skipped = {
        f"{name}:{number}"
        for name, case in CASE_OF.items()
        for number in case.lines
        if judged_by_an_earlier_line(case, number) is not None
    }
    assert skipped == {
        *(f"mcp:{n}" for n in (4, 7, 8, 9, 11, 12)),
        "openai-batch-input:2",
    }
