"""The streaming audit: sources -> lines -> records -> calls -> report rows + summary.

Nothing here prints. The loop in :meth:`Audit._audit_source` is the hot path:
it handles the common case (a line holding one well-formed call) inline, and
hands everything else to helpers that may be slow because they are rare.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from toolaudit import __version__
from toolaudit.errors import InputError
from toolaudit.schemas import SchemaSet
from toolaudit.sources import (
    DEFAULT_MAX_LINE_BYTES,
    DamagedInput,
    OversizedLine,
    Source,
    expand_paths,
    read_line_batches,
)
from toolaudit.summary import NO_NAME, SourceStatus, Summary, Tally
from toolaudit.validate import (
    MALFORMED,
    UNKNOWN_TOOL,
    Problem,
    ToolValidator,
    format_problems,
    kind_phrase,
)

Row = dict[str, Any]

_BOM = b"\xef\xbb\xbf"
_NOTHING: Mapping[str, Any] = {}
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and what to keep, beyond the inputs and the schemas."""

    #: Keep report rows only for calls and records that fail.
    errors_only: bool = False
    #: A longer line is reported as malformed instead of being parsed.
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES


class Audit:
    """One audit run over some inputs against one schema set.

    Iterate it for the report rows (dicts), or call :meth:`run` to write them as
    JSONL; either way :attr:`summary` is set once the inputs are exhausted.
    """

    def __init__(
        self,
        inputs: Iterable[str | Source],
        schemas: SchemaSet,
        options: AuditOptions = AuditOptions(),
        *,
        on_bytes: Callable[[int], object] | None = None,
        stdin: BinaryIO | None = None,
    ) -> None:
        self.sources = [s if isinstance(s, Source) else Source(s) for s in inputs]
        self.schemas = schemas
        self.options = options
        self._on_bytes = on_bytes
        self._stdin = stdin
        self._tally = Tally()
        self._statuses: list[SourceStatus] = []
        self.summary: Summary | None = None

    @classmethod
    def of_paths(cls, paths: Iterable[str], schemas: SchemaSet, options: AuditOptions = AuditOptions(), **kwargs: Any) -> Audit:
        """An audit of files, directories (walked) and ``-``; missing paths raise now."""
        return cls(expand_paths(paths), schemas, options, **kwargs)

    def __iter__(self) -> Iterator[Row]:
        for rows in self._row_batches(want_rows=True):
            yield from rows

    def run(self, report: BinaryIO | None = None) -> Summary:
        """Audit everything; write the report rows to ``report`` (JSONL) if given."""
        # Each row is written as soon as it is dumped: holding many orjson
        # results alive at once (a list, a join) was 10x slower, measured.
        dump_line = functools.partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)
        for rows in self._row_batches(want_rows=report is not None):
            if report is not None:
                report.writelines(map(dump_line, rows))
        assert self.summary is not None
        return self.summary

    def _row_batches(self, *, want_rows: bool) -> Iterator[list[Row]]:
        for source in self.sources:
            status = SourceStatus(source.name)
            self._statuses.append(status)
            yield from self._audit_source(source, status, want_rows)
        tally = self._tally
        self.summary = tally.summary(
            version=__version__,
            schemas_digest=self.schemas.digest,
            sources=self._statuses,
            complete=all(s.complete for s in self._statuses),
        )

    # -- the hot loop -------------------------------------------------------------

    def _audit_source(self, source: Source, status: SourceStatus, want_rows: bool) -> Iterator[list[Row]]:
        tally = self._tally
        tools_get = self.schemas.validator.tools.get
        ok_by_tool = tally.ok_by_tool
        ok_rows = want_rows and not self.options.errors_only
        name_of_source = source.name
        loads = _loads
        decode_error = _JSONDecodeError
        rows: list[Row] = []
        lineno = 0
        blank = 0
        try:
            for lines in read_line_batches(
                source,
                max_line_bytes=self.options.max_line_bytes,
                on_bytes=self._on_bytes,
                stdin=self._stdin,
            ):
                for line in lines:
                    lineno += 1
                    try:
                        record = loads(line)
                    except decode_error as error:
                        record = self._unparsable(line, lineno, error, name_of_source, rows if want_rows else None)
                        if record is None:
                            continue
                        if record is _BLANK:
                            blank += 1
                            continue
                    # The common case, inline: one call, declared tool, arguments an object.
                    if type(record) is dict:
                        name = record.get("name")
                        arguments = record.get("arguments", _NOTHING)
                        if type(name) is str and type(arguments) is dict:
                            tool = tools_get(name)
                            if tool is not None:
                                problems = tool.check(arguments)
                                if problems:
                                    self._count_and_report(
                                        name, problems, None, record.get("id"), 0, lineno, name_of_source,
                                        rows if want_rows else None,
                                    )
                                    continue
                                ok_by_tool[name] = ok_by_tool.get(name, 0) + 1
                                if ok_rows:
                                    rows.append(
                                        {
                                            "source": name_of_source,
                                            "line": lineno,
                                            "index": 0,
                                            "id": record.get("id"),
                                            "tool": name,
                                            "ok": True,
                                            "errors": [],
                                        }
                                    )
                                continue
                    self._audit_record(record, lineno, name_of_source, rows if want_rows else None)
                if rows:
                    yield rows
                    rows = []
        except DamagedInput as damage:
            status.complete = False
            status.error = f"{damage}; reading stopped after line {lineno}"
        except InputError as error:
            status.complete = False
            status.error = str(error)
        if rows:
            yield rows
        status.lines = lineno
        tally.lines += lineno
        tally.blank_lines += blank
        tally.records += lineno - blank

    # -- the rare paths -------------------------------------------------------------

    def _unparsable(
        self, line: bytes | OversizedLine, lineno: int, error: ValueError, source: str, rows: list[Row] | None
    ) -> Any:
        """A line orjson refused: blank, a BOM to skip, or a malformed record.

        Returns the record when the line is fine after all, ``_BLANK`` for a
        blank line, None when it was reported as malformed.
        """
        if isinstance(line, OversizedLine):
            detail = f"line is {line.length} bytes, over the --max-line-bytes limit"
            self._record_error("json", source, lineno, detail, rows)
            return None
        if lineno == 1 and line.startswith(_BOM):  # a BOM that an editor put there
            line = line[len(_BOM) :]
            try:
                return _loads(line)
            except _JSONDecodeError as after_bom:
                error = after_bom
        if not line.strip():
            return _BLANK
        detail = f"not valid JSON: {getattr(error, 'msg', error)} (column {getattr(error, 'colno', '?')})"
        self._record_error("json", source, lineno, detail, rows)
        return None

    def _record_error(self, reason: str, source: str, lineno: int, detail: str, rows: list[Row] | None) -> None:
        error = f"{MALFORMED}:{reason}"
        errors = self._tally.record_errors
        errors[error] = errors.get(error, 0) + 1
        if rows is not None:
            rows.append(
                {
                    "source": source,
                    "line": lineno,
                    "index": None,
                    "id": None,
                    "tool": None,
                    "ok": False,
                    "errors": [error],
                    "detail": detail,
                }
            )

    def _audit_record(self, record: object, lineno: int, source: str, rows: list[Row] | None) -> None:
        if not isinstance(record, dict):
            self._record_error(
                "record", source, lineno, f"expected a JSON object holding a tool call, got {kind_phrase(record)}", rows
            )
            return
        self._audit_call(
            index=0,
            call_id=record.get("id"),
            name=record.get("name"),
            arguments=record.get("arguments", _NOTHING),
            lineno=lineno,
            source=source,
            rows=rows,
        )

    def _audit_call(
        self,
        *,
        index: int,
        call_id: object,
        name: object,
        arguments: object,
        lineno: int,
        source: str,
        rows: list[Row] | None,
    ) -> None:
        detail = None
        problems: tuple[Problem, ...] | list[Problem]
        if not isinstance(name, str):
            problems = [(MALFORMED, "name")]
            detail = f"the call's name is {kind_phrase(name)}, not a string"
        else:
            tool = self.schemas.validator.tools.get(name)
            if tool is None:
                problems = [(UNKNOWN_TOOL, name)]
            else:
                decoded, detail = decode_arguments(arguments, tool)
                problems = [(MALFORMED, "arguments")] if decoded is None else tool.check(decoded)
        self._count_and_report(name, problems, detail, call_id, index, lineno, source, rows)

    def _count_and_report(
        self,
        name: object,
        problems: tuple[Problem, ...] | list[Problem],
        detail: str | None,
        call_id: object,
        index: int,
        lineno: int,
        source: str,
        rows: list[Row] | None,
    ) -> None:
        tally = self._tally
        tool_key = name if isinstance(name, str) else NO_NAME
        if problems:
            tally.count_problems(tool_key, problems)
        else:
            tally.ok_by_tool[tool_key] = tally.ok_by_tool.get(tool_key, 0) + 1
        if rows is not None and (problems or not self.options.errors_only):
            row: Row = {
                "source": source,
                "line": lineno,
                "index": index,
                "id": call_id,
                "tool": name if isinstance(name, str) else None,
                "ok": not problems,
                "errors": format_problems(problems),
            }
            if detail is not None:
                row["detail"] = detail
            rows.append(row)


_BLANK = object()


def decode_arguments(arguments: object, tool: ToolValidator) -> tuple[Mapping[str, Any] | None, str | None]:
    """A call's arguments as logged -> (the object, None) or (None, why not).

    Providers log arguments as a JSON string; decode it. An empty string is
    an empty object only for a tool with no required parameter (some models
    send "" for parameterless tools).
    """
    if isinstance(arguments, Mapping):
        return arguments, None
    if not isinstance(arguments, str):
        return None, f"arguments are {kind_phrase(arguments)}, not an object"
    if not arguments.strip():
        if tool.required:
            return None, "arguments are an empty string, but the tool has required parameters"
        return {}, None
    try:
        decoded = _loads(arguments)
    except _JSONDecodeError as error:
        return None, f"arguments are not valid JSON: {error.msg} (column {error.colno})"
    if isinstance(decoded, dict):
        return decoded, None
    if isinstance(decoded, str):
        try:
            inner = _loads(decoded)
        except _JSONDecodeError:
            inner = None
        if isinstance(inner, dict):
            return None, "arguments are double-encoded: a JSON string holding a JSON object"
    return None, f"arguments decode to {kind_phrase(decoded)}, not an object"

