"""The streaming audit: sources -> lines -> records -> calls -> report rows + summary.

Nothing here prints. The loop in :meth:`Audit._audit_source` is the hot path:
it handles the common case (a line holding one flat, well-formed call to a
declared tool) inline, and hands everything else to :meth:`Audit._audit_record`,
which may be slower because it is rarer: format detection, decoding,
record-carried tools, malformed input.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

import orjson

from toolaudit._version import __version__
from toolaudit.errors import InputError
from toolaudit.results.folding import DEFAULT_MAX_PARAMS, DEFAULT_MAX_TOOLS
from toolaudit.formats import UnknownShape, extract
from toolaudit.results.grouping import Groups
from toolaudit.jsonutil import dumps_any, loads_exact, may_hold_long_integers
from toolaudit.pipeline.judge import Problems, judge
from toolaudit.schemas.loading import NO_SCHEMAS, SchemaSet
from toolaudit.sources import (
    DEFAULT_MAX_LINE_BYTES,
    DamagedInput,
    OversizedLine,
    Source,
    expand_paths,
    read_line_batches,
)
from toolaudit.results.summary import SourceStatus, Summary
from toolaudit.results.tally import Tally
from toolaudit.pipeline.toolsets import NO_TOOLS, RecordTools
from toolaudit.contract import ENUM, MALFORMED, TYPE, format_problems, kind_phrase

Row = dict[str, Any]

_BOM = b"\xef\xbb\xbf"
_NOTHING: Mapping[str, Any] = {}
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
ORJSON_MAX_DEPTH = 1024


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and what to keep, beyond the inputs and the schemas."""

    #: Keep report rows only for calls and records that fail.
    errors_only: bool = False
    #: A longer line is reported as malformed instead of being parsed.
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    #: Read every record as this format (a key of formats.EXTRACTORS); None detects per line.
    input_format: str | None = None
    #: Processes for run() (0: one per core); the outputs are those of one process.
    jobs: int = 1
    #: Distinct tool names, and parameter names per tool, kept in the summary;
    #: the others are folded into "<other>" (see folding.py).
    max_tools: int = DEFAULT_MAX_TOOLS
    max_params: int = DEFAULT_MAX_PARAMS
    #: Record fields to group the summary by (dotted paths; "model" is the model
    #: the record's format names); see summary.Summary.groups.
    group_by: tuple[str, ...] = ()


class Audit:
    """One audit run over some inputs against one schema set.

    Iterate it for the report rows (dicts), or call :meth:`run` to write them as
    JSONL; either way :attr:`summary` is set once the inputs are exhausted.
    """

    #: The inline path for flat calls; tests turn it off to check it changes nothing.
    inline_fast_path = True

    def __init__(
        self,
        inputs: Iterable[str | Source],
        schemas: SchemaSet = NO_SCHEMAS,
        options: AuditOptions = AuditOptions(),
        *,
        on_bytes: Callable[[int], object] | None = None,
        stdin: BinaryIO | None = None,
    ) -> None:
        self.sources = [s if isinstance(s, Source) else Source(s) for s in inputs]
        self.schemas = schemas
        self.options = options
        #: Told how many bytes each read consumed (progress); may be set until run().
        self.on_bytes = on_bytes
        self._stdin = stdin
        #: Counts every line; with --group-by, the groups count the records and calls.
        self._global = Tally(options.max_tools, options.max_params)
        #: Where the record being audited is counted: the global tally or its group's.
        self._tally = self._global
        self._groups = Groups(options.group_by, options.max_tools, options.max_params) if options.group_by else None
        self._statuses: list[SourceStatus] = []
        self._record_tools = RecordTools(schemas)
        #: While a batch of lines is being audited, a stop waits for its end (see request_stop).
        self._busy = False
        self._stop: type[KeyboardInterrupt] | None = None
        self.summary: Summary | None = None

    @classmethod
    def of_paths(
        cls, paths: Iterable[str], schemas: SchemaSet = NO_SCHEMAS, options: AuditOptions = AuditOptions(), **kwargs: Any
    ) -> Audit:
        """An audit of files, directories (walked) and ``-``; missing paths raise now."""
        return cls(expand_paths(paths), schemas, options, **kwargs)

    def request_stop(self, interruption: type[KeyboardInterrupt] = KeyboardInterrupt) -> None:
        """Stop the audit as Ctrl-C would, at the end of the batch being audited.

        For a signal handler: raising in the middle of a batch could leave a line
        read but not counted; between batches (while waiting for input, say),
        the interruption is raised at once.
        """
        if self._busy:
            self._stop = interruption
        else:
            raise interruption()

    @property
    def defines_tools(self) -> bool:
        """Whether a record defined tools for later records (see parallel.py)."""
        return self._record_tools.defines_tools

    def __iter__(self) -> Iterator[Row]:
        for rows in self._row_batches(want_rows=True):
            yield from rows

    def run(self, report: BinaryIO | None = None) -> Summary:
        """Audit everything; write the report rows to ``report`` (JSONL) if given.

        With ``options.jobs`` other than 1 the work is shared among processes
        (see :mod:`toolaudit.runners.parallel`); the results are the same.
        """
        if self.options.jobs != 1:
            from toolaudit.runners.parallel import run_in_parallel

            return run_in_parallel(self, report, self.on_bytes)
        return self.run_here(report)

    def run_here(self, report: BinaryIO | None = None) -> Summary:
        """:meth:`run`, in this process."""
        # Each row is written as soon as it is dumped: holding many orjson
        # results alive at once (a list, a join) was 10x slower, measured.
        try:
            for rows in self._row_batches(want_rows=report is not None):
                if report is not None:
                    write_rows(report, rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)  # interrupted while writing: the summary still says so
            raise
        assert self.summary is not None
        return self.summary

    def _row_batches(self, *, want_rows: bool) -> Iterator[list[Row]]:
        """The report rows, a batch at a time; sets :attr:`summary` at the end.

        Interrupted (Ctrl-C, SIGTERM), it still yields every complete row and
        sets a summary that says it is incomplete, then lets the interruption go on.
        """
        try:
            for source in self.sources:
                status = SourceStatus(source.name)
                self._statuses.append(status)
                self._record_tools.new_stream()
                yield from self._audit_source(source, status, want_rows)
        except KeyboardInterrupt:
            self.finish(interrupted=True)
            raise
        self.finish()

    def finish(self, *, interrupted: bool = False) -> Summary:
        """Set :attr:`summary` from what was counted (once; an interrupted run is incomplete)."""
        if self.summary is None:
            if interrupted and self._statuses and self._statuses[-1].complete:
                last = self._statuses[-1]
                last.complete, last.error = False, "interrupted before the end"
            complete = not interrupted and all(s.complete for s in self._statuses)
            summary = self._global.summary(
                version=__version__, schemas_digest=self.schemas.digest, sources=self._statuses, complete=complete
            )
            if self._groups is not None:
                summary = replace(self._groups.summary(summary), samples=summary.samples)
            self.summary = summary
        return self.summary

    def _audit_source(self, source: Source, status: SourceStatus, want_rows: bool) -> Iterator[list[Row]]:
        tally = self._global
        global_tools = self.schemas.validator
        inline = self.inline_fast_path and global_tools is not None and self.options.input_format in (None, "flat")
        groups = self._groups
        tools_get = global_tools.tools.get if global_tools is not None else NO_TOOLS.tools.get
        ok_batch: list[str] = []
        ok_names = ok_batch.append
        count_ok = tally.count_ok
        ok_rows = want_rows and not self.options.errors_only
        name_of_source = source.name
        loads = _loads
        decode_error = _JSONDecodeError
        rows: list[Row] = []  # the current batch's rows, yielded after each batch
        kept: list[Row] | None = None
        lineno = source.first_line - 1
        blank = 0
        try:
            for lines in read_line_batches(
                source, max_line_bytes=self.options.max_line_bytes, on_bytes=self.on_bytes, stdin=self._stdin
            ):
                if want_rows:
                    rows = kept = []
                self._busy = True
                for line in lines:
                    lineno += 1
                    try:
                        record = loads(line)
                    except decode_error as error:
                        record = self._unparsable(line, lineno, error, name_of_source, kept)
                        if record is _BLANK:
                            blank += 1
                            continue
                        if record is _REPORTED:
                            continue
                    # The common case, inline: a flat call to a declared tool, arguments an object.
                    # (formats.detect() reads name + arguments as a flat call, whatever else is there.)
                    if inline and type(record) is dict:
                        name = record.get("name")
                        arguments = record.get("arguments")
                        if type(name) is str and type(arguments) is dict:
                            tool = tools_get(name)
                            if tool is not None:
                                if groups is not None:
                                    model = record.get("model")
                                    self._tally = groups.tally_for(record, model if type(model) is str else None)
                                problems = tool.check(arguments)
                                if problems:
                                    if _number_may_be_inexact(problems, arguments) and may_hold_long_integers(line):
                                        self._audit_record(record, lineno, name_of_source, kept, line, grouped=True)
                                        continue
                                    self._count_and_report(
                                        tool.name, name, problems, None, _flat_id(record), 0, record.get("model"),
                                        lineno, name_of_source, kept,
                                    )
                                    continue
                                if groups is None:
                                    ok_names(tool.name)
                                else:  # each group counts its own
                                    self._tally.count_one_ok(tool.name)
                                if ok_rows:
                                    call_id = record["call_id"] if "call_id" in record else record.get("id")
                                    model = record.get("model")
                                    if type(model) is str:
                                        rows.append({"source": name_of_source, "line": lineno, "index": 0, "id": call_id,
                                                     "tool": tool.name, "model": model, "ok": True, "errors": []})
                                    else:
                                        rows.append({"source": name_of_source, "line": lineno, "index": 0, "id": call_id,
                                                     "tool": tool.name, "ok": True, "errors": []})
                                continue
                    self._audit_record(record, lineno, name_of_source, kept, line if type(line) is bytes else None)
                # Valid calls are tallied per batch, in C: cheaper than a dict update per call.
                count_ok(ok_batch)
                ok_batch.clear()
                self._busy = False
                if self._stop is not None:
                    raise self._stop()
                if rows:
                    yield rows
                    rows = []
        except DamagedInput as damage:
            status.complete = False
            status.error = f"{damage}; reading stopped after line {lineno}"
        except InputError as error:
            status.complete = False
            status.error = str(error)
        except KeyboardInterrupt:
            self._busy = False
            status.complete = False
            status.error = f"interrupted after line {lineno}"
            count_ok(ok_batch)  # the valid calls of the batch in progress were audited too
            self._count_lines(source, status, lineno, blank)
            if rows:
                yield rows  # every complete row of the batch in progress
            raise
        self._count_lines(source, status, lineno, blank)

    def _count_lines(self, source: Source, status: SourceStatus, lineno: int, blank: int) -> None:
        tally = self._global
        lines_read = lineno - (source.first_line - 1)
        status.lines = lines_read
        tally.lines += lines_read
        tally.blank_lines += blank
        tally.records += lines_read - blank

    # -- the rare paths -------------------------------------------------------------

    def _unparsable(
        self, line: bytes | OversizedLine, lineno: int, error: ValueError, source: str, rows: list[Row] | None
    ) -> Any:
        """A line orjson refused: blank, a BOM to skip, or a malformed record.

        Returns the record when the line is fine after all, ``_BLANK`` for a
        blank line, ``_REPORTED`` when it was reported as malformed.
        """
        if isinstance(line, OversizedLine):
            detail = f"line is {line.length} bytes, over the --max-line-bytes limit"
            self._group_of(None, None)
            self._record_error("json", source, lineno, detail, rows)
            return _REPORTED
        if not line.strip() or line == _BOM:
            return _BLANK
        message = getattr(error, "msg", str(error))
        if "depth limit" in message:
            detail = f"nested deeper than the parser's limit of {ORJSON_MAX_DEPTH} levels; not audited"
        else:
            try:
                # Valid JSON that orjson refuses: 1e400, a lone surrogate escape, a
                # UTF-8 byte order mark (an editor's, or from concatenated files).
                return loads_exact(line)
            except (ValueError, RecursionError):
                pass
            detail = f"not valid JSON: {message} (column {getattr(error, 'colno', '?')})"
        self._group_of(None, None)
        self._record_error("json", source, lineno, detail, rows)
        return _REPORTED

    def _record_error(self, reason: str, source: str, lineno: int, detail: str, rows: list[Row] | None) -> None:
        error = f"{MALFORMED}:{reason}"
        errors = self._tally.record_errors
        errors[error] = errors.get(error, 0) + 1
        row = {"source": source, "line": lineno, "index": None, "id": None, "tool": None, "ok": False, "errors": [error], "detail": detail}
        if rows is not None:
            rows.append(row)
        self._keep_sample(row)

    def _keep_sample(self, row: Row) -> None:
        """Keep a failing row as one of the first few (see summary.SAMPLE_ROWS)."""
        if self._tally.wants_sample():
            self._tally.samples.append(row)
        if self._tally is not self._global and self._global.wants_sample():
            self._global.samples.append(row)

    def _audit_record(
        self, record: object, lineno: int, source: str, rows: list[Row] | None, line: bytes | None = None, *, grouped: bool = False
    ) -> None:
        """Everything but the inline case. ``line`` is the record's text when it was
        parsed by orjson, which turns integers beyond 64 bits into floats: if a call
        then fails, the line is parsed again exactly and judged on that."""
        if not isinstance(record, dict):
            what = kind_phrase(record)
            self._group_of(None, None)
            self._record_error("record", source, lineno, f"expected a JSON object holding tool calls, got {what}", rows)
            return
        try:
            extracted = extract(record, self.options.input_format)
        except UnknownShape as shape:
            if not grouped:
                self._group_of(record, None)
            self._record_error("record", source, lineno, str(shape), rows)
            return
        if not grouped:
            self._group_of(record, extracted.model)
        if extracted.defines is not None:
            self._record_tools.remember(extracted)
        if not extracted.calls:
            self._tally.records_without_calls += 1
            return
        validator, why_unjudged = self._record_tools.validator_for(extracted, source, lineno)
        if validator is None:
            self._record_error("record", source, lineno, f"its tool definitions are malformed: {why_unjudged}", rows)
            return
        exact = line is None
        verdicts = [judge(call, validator, why_unjudged, exact=exact) for call in extracted.calls]
        if not exact and any(problems for _, problems, _ in verdicts) and may_hold_long_integers(line):
            try:
                exact_record = loads_exact(line)
            except (ValueError, RecursionError):
                exact_record = None
            if exact_record is not None:
                self._audit_record(exact_record, lineno, source, rows, grouped=True)
                return
        for call, (tool_key, problems, detail) in zip(extracted.calls, verdicts):
            self._count_and_report(tool_key, call.name, problems, detail, call.id, call.index, extracted.model, lineno, source, rows)

    def _group_of(self, record: Mapping[str, Any] | None, model: str | None) -> None:
        """With --group-by, count this record in its group (see grouping.group_key)."""
        if self._groups is not None:
            self._tally = self._groups.tally_for(record, model)

    def _count_and_report(
        self,
        tool_key: str,
        name: object,
        problems: Problems,
        detail: str | None,
        call_id: object,
        index: int,
        model: object,
        lineno: int,
        source: str,
        rows: list[Row] | None,
    ) -> None:
        tally = self._tally
        if problems:
            tally.count_problems(tool_key, problems)
        else:
            tally.count_one_ok(tool_key)
        wanted = rows is not None and (problems or not self.options.errors_only)
        if wanted or (problems and (self._tally.wants_sample() or self._global.wants_sample())):
            row: Row = {
                "source": source,
                "line": lineno,
                "index": index,
                "id": call_id,
                "tool": tool_key if isinstance(name, str) else None,
            }
            if isinstance(model, str):
                row["model"] = model
            row["ok"] = not problems
            row["errors"] = format_problems(problems)
            if detail is not None:
                row["detail"] = detail
            if wanted:
                rows.append(row)  # type: ignore[union-attr]
            if problems:
                self._keep_sample(row)


_BLANK = object()
_REPORTED = object()
_dump_line = functools.partial(orjson.dumps, option=orjson.OPT_APPEND_NEWLINE)


def _number_may_be_inexact(problems: Problems, arguments: Mapping[str, Any]) -> bool:
    """Whether a type or enum error may come from orjson's float for a huge integer:
    only a float, or an array or object holding one, can be such a value."""
    for kind, subject in problems:
        if kind == TYPE or kind == ENUM:
            value_type = type(arguments.get(subject))
            if value_type is float or value_type is list or value_type is dict:
                return True
    return False


def write_rows(report: BinaryIO, rows: list[Row]) -> None:
    """Write rows as JSON lines, fast with orjson; a row orjson cannot write (a
    lone surrogate from the standard library's parser) goes through dumps_any."""
    pending = iter(rows)
    while True:
        try:
            report.writelines(map(_dump_line, pending))
            return
        except TypeError:
            # writelines wrote every row before the one that failed; map took that
            # one from `pending` too, so it is just before what `pending` has left.
            rest = list(pending)
            report.write(dumps_any(rows[len(rows) - len(rest) - 1], option=orjson.OPT_APPEND_NEWLINE))
            pending = iter(rest)


def _flat_id(record: Mapping[str, Any]) -> object:
    """A flat record's call id: ``call_id`` where it has one (an OpenAI Responses
    item logged alone, whose ``id`` is the item's), else ``id``."""
    return record["call_id"] if "call_id" in record else record.get("id")
